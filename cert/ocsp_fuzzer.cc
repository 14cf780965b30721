// Fuzzes VerifyOcspResponse and CheckCrl with arbitrary bytes against a fixed
// certificate and issuer (and ParseGeneralizedTime). Beyond "no crash", what
// verifies must hold up:
//  - freshness: thisUpdate / producedAt not in the future (beyond the skew),
//    not expired (nextUpdate, or thisUpdate + max_age); the same bytes a
//    second after expiry, or before thisUpdate, do not verify;
//  - binding: an OCSP response for the leaf says nothing good or revoked
//    about another certificate of the same issuer, and verifies against no
//    other issuer; a CRL verifies against no other issuer;
//  - a revoked status carries its revocation time.
// The clock is one day after the seed's thisUpdate, so the seed (an
// openssl-made response, cert/testdata/ocsp_response_seed.der) verifies.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cert/crl.h"
#include "cert/ocsp.h"
#include "cert/x509_util.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "ocsp_fuzzer: %s\n", what);
  std::abort();
}

struct Fixtures {
  std::string leaf;
  std::string other_leaf;  // same issuer, another serial
  std::string issuer;
  std::string root;  // not the issuer
};

const Fixtures& GetFixtures() {
  static const Fixtures* fixtures = [] {
    auto first = [](const char* path) {
      return (*net::LoadPemCertificatesFromFile(path))[0];
    };
    auto* f = new Fixtures;
    f->leaf = first("cert/testdata/good_leaf.pem");
    f->other_leaf = first("cert/testdata/good_ecdsa_leaf.pem");
    f->issuer = first("cert/testdata/good_intermediate.pem");
    f->root = first("cert/testdata/good_root.pem");
    return f;
  }();
  return *fixtures;
}

void CheckOcsp(const std::string& input, const Fixtures& f,
               const net::OcspVerifyOptions& options) {
  auto result = net::VerifyOcspResponse(input, f.leaf, f.issuer, options);
  if (!result.ok()) return;
  Check(result->this_update <= options.now + options.skew,
        "thisUpdate not in the future");
  Check(result->produced_at <= options.now + options.skew,
        "producedAt not in the future");
  // nextUpdate when there is one (the revocation cache caps how long an
  // answer is kept by max_age too), else thisUpdate + max_age.
  const absl::Time expiry = result->next_update
                                ? *result->next_update
                                : result->this_update + options.max_age;
  Check(options.now <= expiry, "not expired");
  Check(result->status != net::OcspCertStatus::kRevoked ||
            result->revocation_time.has_value(),
        "revoked with a revocation time");

  net::OcspVerifyOptions later = options;
  later.now = expiry + absl::Seconds(1);
  Check(!net::VerifyOcspResponse(input, f.leaf, f.issuer, later).ok(),
        "an expired response does not verify");
  net::OcspVerifyOptions earlier = options;
  earlier.now = result->this_update - options.skew - absl::Seconds(1);
  Check(!net::VerifyOcspResponse(input, f.leaf, f.issuer, earlier).ok(),
        "a response from the future does not verify");

  auto other = net::VerifyOcspResponse(input, f.other_leaf, f.issuer, options);
  Check(!other.ok() || other->status == net::OcspCertStatus::kUnknown,
        "a response for the leaf vouches for no other certificate");
  Check(!net::VerifyOcspResponse(input, f.leaf, f.root, options).ok(),
        "a response verifies against its issuer only");
}

void CheckCrl(const std::string& input, const Fixtures& f, absl::Time now) {
  auto result = net::CheckCrl(input, f.leaf, f.issuer, now);
  if (!result.ok()) return;
  if (result->next_update) {
    Check(now <= *result->next_update, "CRL not expired");
    Check(!net::CheckCrl(input, f.leaf, f.issuer,
                         *result->next_update + absl::Seconds(1))
               .ok(),
          "an expired CRL does not verify");
  }
  Check(!net::CheckCrl(input, f.leaf, f.root, now).ok(),
        "a CRL verifies against its issuer only");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const Fixtures& f = GetFixtures();
  net::OcspVerifyOptions options;
  options.now = absl::FromUnixSeconds(1'795'328'305);  // 2026-11-22 06:18:25
  CheckOcsp(input, f, options);
  CheckCrl(input, f, options.now);
  (void)net::ParseGeneralizedTime(input);
  return 0;
}
