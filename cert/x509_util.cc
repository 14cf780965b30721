#include "cert/x509_util.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/mem.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"

namespace net {

absl::StatusOr<std::vector<std::string>> ParsePemCertificates(
    absl::string_view pem) {
  bssl::UniquePtr<BIO> bio(BIO_new_mem_buf(pem.data(), pem.size()));
  std::vector<std::string> ders;
  for (;;) {
    bssl::UniquePtr<X509> cert(
        PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    uint8_t* der = nullptr;
    int len = i2d_X509(cert.get(), &der);
    if (len <= 0)
      return absl::InvalidArgumentError("cannot encode certificate");
    ders.emplace_back(reinterpret_cast<char*>(der), len);
    OPENSSL_free(der);
  }
  uint32_t err = ERR_peek_last_error();
  ERR_clear_error();
  // Running out of PEM blocks is the normal end; anything else is an error.
  if (err != 0 && !(ERR_GET_LIB(err) == ERR_LIB_PEM &&
                    ERR_GET_REASON(err) == PEM_R_NO_START_LINE)) {
    return absl::InvalidArgumentError("malformed PEM certificate");
  }
  if (ders.empty())
    return absl::InvalidArgumentError("no PEM certificate found");
  return ders;
}

absl::StatusOr<std::vector<std::string>> LoadPemCertificatesFromFile(
    const std::string& path) {
  absl::StatusOr<std::string> pem = ReadFileToString(path);
  if (!pem.ok()) return pem.status();
  absl::StatusOr<std::vector<std::string>> certs = ParsePemCertificates(*pem);
  if (!certs.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", certs.status().message()));
  }
  return certs;
}

std::string ChainFingerprint(const std::vector<std::string>& chain_der) {
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  for (const std::string& der : chain_der) {
    uint64_t len = der.size();
    SHA256_Update(&ctx, &len, sizeof(len));
    SHA256_Update(&ctx, der.data(), der.size());
  }
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256_Final(digest, &ctx);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

bssl::UniquePtr<X509> DerToX509(absl::string_view der) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(der.data());
  bssl::UniquePtr<X509> cert(d2i_X509(nullptr, &p, der.size()));
  if (cert && p != reinterpret_cast<const uint8_t*>(der.data()) + der.size())
    return nullptr;  // Trailing data.
  return cert;
}

bool CertificateCoversHost(absl::string_view leaf_der, absl::string_view host) {
  bssl::UniquePtr<X509> leaf = DerToX509(leaf_der);
  if (!leaf || host.empty()) return false;
  std::string name(host);
  if (name.size() > 2 && name.front() == '[' && name.back() == ']')
    name = name.substr(1, name.size() - 2);
  if (X509_check_ip_asc(leaf.get(), name.c_str(), 0) == 1) return true;
  return X509_check_host(leaf.get(), name.data(), name.size(),
                         X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, nullptr) == 1;
}

}  // namespace net
