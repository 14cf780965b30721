// CRL checking on BoringSSL's X509_CRL: parse, verify the issuer's
// signature, check the validity window, and look up a serial. Pure: the
// time is an argument.

#ifndef CERT_CRL_H_
#define CERT_CRL_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace net {

struct CrlResult {
  bool revoked = false;
  absl::Time this_update;
  std::optional<absl::Time> next_update;
};

// CheckCrl verifies |crl| (DER, or PEM) against |issuer_der| at |now| and
// says whether |cert_der|'s serial is on it. Errors name the reason (bad
// signature, wrong issuer, expired, malformed).
[[nodiscard]] absl::StatusOr<CrlResult> CheckCrl(absl::string_view crl,
                                                 absl::string_view cert_der,
                                                 absl::string_view issuer_der,
                                                 absl::Time now);

}  // namespace net

#endif  // CERT_CRL_H_
