// Fuzzes VerifyOcspResponse (and CheckCrl) with arbitrary bytes against a
// fixed certificate and issuer.

#include <cstddef>
#include <cstdint>
#include <string>

#include "cert/crl.h"
#include "cert/ocsp.h"
#include "cert/x509_util.h"

namespace {

const std::string& Fixture(const char* path) {
  static std::string* leaf = nullptr;
  static std::string* issuer = nullptr;
  if (!leaf) {
    leaf = new std::string(
        (*net::LoadPemCertificatesFromFile("cert/testdata/good_leaf.pem"))[0]);
    issuer = new std::string((*net::LoadPemCertificatesFromFile(
        "cert/testdata/good_intermediate.pem"))[0]);
  }
  return std::string(path) == "leaf" ? *leaf : *issuer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  net::OcspVerifyOptions options;
  options.now = absl::FromUnixSeconds(1'780'000'000);
  (void)net::VerifyOcspResponse(input, Fixture("leaf"), Fixture("issuer"),
                                options);
  (void)net::CheckCrl(input, Fixture("leaf"), Fixture("issuer"), options.now);
  (void)net::ParseGeneralizedTime(input);
  return 0;
}
