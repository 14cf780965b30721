// RunCertbundle is the whole `certbundle` command (tools/certbundle), kept in
// a library so that main() stays a line long: server operators make a
// CertBundle from their chain and print it in each carrier's form (DNS TXT
// record, well-known file, CDN file), and anyone can inspect a bundle.
// prefetch/cert_bundle does the encoding; this file parses flags, reads
// files and formats output. See tools/certbundle/README.md.

#ifndef TOOLS_CERTBUNDLE_CERTBUNDLE_TOOL_H_
#define TOOLS_CERTBUNDLE_CERTBUNDLE_TOOL_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// Exit codes of the command (also in --help).
inline constexpr int kCertbundleExitOk = 0;
inline constexpr int kCertbundleExitBadInput = 1;  // unreadable/invalid input
inline constexpr int kCertbundleExitUsage = 2;     // bad flags or arguments

// RunCertbundle runs `certbundle ARGS...` (|args| without the program name),
// reading "-" from |in| and writing to |out| and |err|, none of which it
// closes. Returns the exit code.
int RunCertbundle(const std::vector<std::string>& args, std::FILE* in,
                  std::FILE* out, std::FILE* err);

// ParseCipherSuite accepts "0xHHHH", an IETF name
// (TLS_RSA_WITH_AES_128_GCM_SHA256) or an OpenSSL name (AES128-GCM-SHA256)
// of a suite BoringSSL knows.
[[nodiscard]] absl::StatusOr<uint16_t> ParseCipherSuite(absl::string_view s);

// CipherSuiteName returns the IETF name of |suite|, or nullopt if BoringSSL
// does not know it.
std::optional<std::string> CipherSuiteName(uint16_t suite);

}  // namespace net

#endif  // TOOLS_CERTBUNDLE_CERTBUNDLE_TOOL_H_
