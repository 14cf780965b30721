// What a revocation filter is built from, read the way a CRLite aggregator
// reads it: the issuers it covers (CA certificates), what they issued
// (certificates, or key lists) and what they revoked (their CRLs, verified
// against them, or key lists). The `revocation_filter` command
// (revocation_filter_tool.h) turns these into a filter or a stash.
//
// Key lists are text, one key a line, '#' comments:
//   ISSUER_SPKI_SHA256_HEX SERIAL_HEX [NOT_BEFORE_UNIX NOT_AFTER_UNIX]
// (the serial as its DER INTEGER content octets, e.g. 1009 or 00c3...).
//
// Plain functions on the calling thread.

#ifndef TOOLS_REVOCATION_FILTER_FILTER_INPUTS_H_
#define TOOLS_REVOCATION_FILTER_FILTER_INPUTS_H_

#include <openssl/x509.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cert/revocation_filter.h"

namespace net {

// An issuer a filter covers.
struct IssuerCert {
  std::string der;
  std::string spki_sha256;
  std::string label;  // its subject's CN (or the whole name)
  bssl::UniquePtr<X509> x509;
};

// LoadIssuers reads CA certificates (PEM files, each may hold several; or
// DER). Errors name the file.
[[nodiscard]] absl::StatusOr<std::vector<IssuerCert>> LoadIssuers(
    const std::vector<std::string>& paths);

// One issued certificate (or key-list line).
struct IssuedEntry {
  RevocationFilterKey key;
  // Unknown for key-list lines without times.
  std::optional<absl::Time> not_before;
  std::optional<absl::Time> not_after;
  std::string source;  // file (and line) it came from
};

// ReadIssued reads |path|: a directory (every regular file in it, not
// hidden, in name order), or one file of PEM or DER certificates or a key
// list. A certificate must be issued (name and signature) by one of
// |issuers|, and a key-list line name one of them: otherwise an error naming
// the file.
absl::Status ReadIssued(const std::string& path,
                        const std::vector<IssuerCert>& issuers,
                        std::vector<IssuedEntry>* out);

// ReadRevoked reads |path|: a CRL (PEM or DER) signed by one of |issuers|
// (every serial on it), or a key list (times ignored). Errors name the file.
absl::Status ReadRevoked(const std::string& path,
                         const std::vector<IssuerCert>& issuers,
                         std::vector<RevocationFilterKey>* out);

// ParseKeyListLine parses one key-list line (no comment, not blank).
[[nodiscard]] absl::StatusOr<IssuedEntry> ParseKeyListLine(
    absl::string_view line);

}  // namespace net

#endif  // TOOLS_REVOCATION_FILTER_FILTER_INPUTS_H_
