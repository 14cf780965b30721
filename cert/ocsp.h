// OCSP (RFC 6960) on BoringSSL's crypto, which has no OCSP code of its own:
// CertID and request building (CBB), the GET-or-POST decision, and response
// parsing (CBS) and verification. Pure functions: the verification time is
// an argument.
//
// A response is accepted only if it is "successful" and "basic"; signed by
// the certificate's issuer, or by a responder certificate the issuer issued
// with the OCSP-signing EKU that is valid at |now|; matches the CertID;
// has thisUpdate not in the future, nextUpdate (if any) not in the past,
// and without nextUpdate is younger than the max age; carries no critical
// extension we do not understand; and echoes our nonce if it has one.
// Everything else is an error naming the reason.

#ifndef CERT_OCSP_H_
#define CERT_OCSP_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace net {

enum class OcspHash { kSha1, kSha256 };

// OcspCertId identifies one certificate to a responder.
struct OcspCertId {
  OcspHash hash = OcspHash::kSha1;
  std::string issuer_name_hash;
  std::string issuer_key_hash;
  std::string serial;  // the INTEGER's content octets
  bool operator==(const OcspCertId& o) const {
    return hash == o.hash && issuer_name_hash == o.issuer_name_hash &&
           issuer_key_hash == o.issuer_key_hash && serial == o.serial;
  }
};

// BuildOcspCertId hashes the issuer's name and key for |cert_der|.
[[nodiscard]] absl::StatusOr<OcspCertId> BuildOcspCertId(
    absl::string_view cert_der, absl::string_view issuer_der,
    OcspHash hash = OcspHash::kSha1);

// BuildOcspRequest encodes an OCSPRequest for one certificate, with a nonce
// extension if |nonce| is non-empty.
[[nodiscard]] absl::StatusOr<std::string> BuildOcspRequest(
    const OcspCertId& id, absl::string_view nonce = "");

// OcspGetUrl returns the RFC 6960 A.1 GET URL for |request_der| at
// |responder_url|, or nullopt when the encoded request would be 255 bytes
// or more and POST should be used instead.
std::optional<std::string> OcspGetUrl(absl::string_view responder_url,
                                      absl::string_view request_der);

enum class OcspCertStatus { kGood, kRevoked, kUnknown };
const char* OcspCertStatusToString(OcspCertStatus status);

struct OcspResult {
  OcspCertStatus status = OcspCertStatus::kUnknown;
  absl::Time this_update;
  std::optional<absl::Time> next_update;
  absl::Time produced_at;
  std::optional<absl::Time> revocation_time;
  bool signed_by_delegate = false;
};

struct OcspVerifyOptions {
  absl::Time now;
  // A response without nextUpdate is usable this long after thisUpdate;
  // also the longest any response is trusted (the cache caps by it too).
  absl::Duration max_age = absl::Hours(7 * 24);
  // Clock skew tolerated for thisUpdate/producedAt in the future.
  absl::Duration skew = absl::Minutes(5);
  // If non-empty and the response carries a nonce, it must equal this.
  std::string expected_nonce;
};

// VerifyOcspResponse parses and verifies |response_der| for |cert_der|
// issued by |issuer_der|.
[[nodiscard]] absl::StatusOr<OcspResult> VerifyOcspResponse(
    absl::string_view response_der, absl::string_view cert_der,
    absl::string_view issuer_der, const OcspVerifyOptions& options);

// ParseGeneralizedTime parses DER GeneralizedTime content ("YYYYMMDDHHMMSSZ").
std::optional<absl::Time> ParseGeneralizedTime(absl::string_view text);

}  // namespace net

#endif  // CERT_OCSP_H_
