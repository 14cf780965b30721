// Test-only builders for OCSP responses and certificates, so every crafted
// bad input (wrong signer, expired, critical extension, another
// certificate's response) is a few lines in a test.

#ifndef CERT_OCSP_TEST_UTIL_H_
#define CERT_OCSP_TEST_UTIL_H_

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cert/ocsp.h"

namespace net {

struct OcspResponseSpec {
  int response_status = 0;  // 0 = successful
  OcspCertId cert_id;
  OcspCertStatus status = OcspCertStatus::kGood;
  absl::Time produced_at;
  absl::Time this_update;
  std::optional<absl::Time> next_update;
  // The key that signs, and the certificate named as responder (by name).
  EVP_PKEY* signer_key = nullptr;
  X509* responder = nullptr;
  // Certificates included in the response (a delegated responder).
  std::vector<X509*> certs;
  std::string nonce;
  bool critical_single_extension = false;
  bool corrupt_signature = false;
};

std::string BuildOcspResponse(const OcspResponseSpec& spec);

// MakeCert issues a certificate for |subject_key| named CN=|cn| by
// |issuer| / |issuer_key| (self-signed when issuer is null).
bssl::UniquePtr<X509> MakeCert(const std::string& cn, EVP_PKEY* subject_key,
                               X509* issuer, EVP_PKEY* issuer_key,
                               bool ocsp_signing_eku, absl::Time not_before,
                               absl::Time not_after, bool is_ca = false,
                               const std::string& ocsp_url = "",
                               const std::string& crl_url = "");

bssl::UniquePtr<EVP_PKEY> MakeP256Key();
bssl::UniquePtr<EVP_PKEY> LoadPemKey(const std::string& path);
std::string X509ToDer(X509* cert);

}  // namespace net

#endif  // CERT_OCSP_TEST_UTIL_H_
