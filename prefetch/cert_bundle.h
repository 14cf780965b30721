// CertBundle is the prefetched description of a TLS server a client has not
// talked to yet: host, port, DER chain (leaf first), the cipher suite the
// server will pick, its Snap Start orbit if it has one, the chain's earliest
// notAfter and when the bundle was made. This header holds the value type and
// its codecs for each carrier (the bundle file served at the well-known path
// and by CDNs, and the DNS TXT record at _certbundle.<host>), plus the
// syntactic checks a prefetcher runs before chain verification. Pure
// functions, no I/O; the byte layouts are in prefetch/README.md.
//
// Ownership: CertBundle is a plain value; every function copies what it
// keeps, so callers need keep nothing alive past a call.
//
// Errors (absl::Status codes, each message naming the problem):
//   kInvalidArgument    malformed bytes or fields (bad magic, bad base64,
//                       corrupt zlib, a certificate that does not parse, ...)
//   kResourceExhausted  over a size limit (file, TXT, inflated chain, chain
//                       length); a zlib bomb ends here, not in an allocation
//   kUnimplemented      a message or TXT version this code does not know
//   kFailedPrecondition ValidateBundleShape: well formed but not usable for
//                       this host/port/time (another host, expired, ...)

#ifndef PREFETCH_CERT_BUNDLE_H_
#define PREFETCH_CERT_BUNDLE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace net {

// The CertBundle message versions this code reads and writes: 1, and 2,
// which adds tcp_fast_open_no_cookie. A bundle is written as the lowest
// version that holds its fields (MinimumBundleVersion).
inline constexpr uint32_t kCertBundleVersion = 1;
inline constexpr uint32_t kCertBundleVersionFastOpen = 2;
// A Snap Start orbit is 8 bytes (draft-agl-tls-snapstart).
inline constexpr size_t kCertBundleOrbitSize = 8;
// At most this many certificates in a chain.
inline constexpr size_t kMaxBundleChainLength = 8;
// At most this many bytes of DER in a chain (summed), and of inflated
// chain_zlib output: inflation stops with an error past it.
inline constexpr size_t kMaxBundleChainBytes = 64 * 1024;
// The default limit of DecodeBundleFile.
inline constexpr size_t kMaxBundleFileBytes = 96 * 1024;
// The default limit of ParseBundleTxt: the concatenated strings of one RR,
// whose RDATA is at most 65535 bytes (SPECS.md §10.1).
inline constexpr size_t kMaxBundleTxtBytes = 65535;
// A DNS <character-string> holds at most 255 bytes.
inline constexpr size_t kMaxTxtStringBytes = 255;
// The file magic: 0x89 keeps it from looking like text, '\n' catches
// line-ending conversion (the PNG trick).
inline constexpr char kBundleFileMagic[] =
    "\x89"
    "CB\n";
inline constexpr size_t kBundleFileMagicSize = 4;
// TXT record name prefix and record prefixes.
inline constexpr char kBundleTxtNamePrefix[] = "_certbundle.";
inline constexpr char kBundleTxtBundlePrefix[] = "v=cb1; b=";
inline constexpr char kBundleTxtPointerPrefix[] = "v=cb1; url=";
// Where a server publishes its bundle file (project-defined, SPECS.md §9).
inline constexpr char kBundleWellKnownPath[] = "/.well-known/cert-bundle";
// TLS_RSA_WITH_AES_128_GCM_SHA256, the one suite of net/snap_start.
inline constexpr uint16_t kSnapStartCipherSuite = 0x009c;

// CertBundle is one server's bundle, decoded. Times are whole seconds.
struct CertBundle {
  uint32_t version = kCertBundleVersion;
  std::string host;  // as published; compare case-insensitively
  uint16_t port = 443;
  std::vector<std::string> chain;  // DER, leaf first
  uint16_t cipher_suite = 0;
  std::optional<std::string> orbit;  // kCertBundleOrbitSize bytes if present
  absl::Time not_after;              // earliest notAfter of the chain
  absl::Time created;
  // Version 2: the server takes TCP Fast Open SYN data on |port| without a
  // cookie. Set it with SetTcpFastOpenNoCookie (which raises the version).
  bool tcp_fast_open_no_cookie = false;

  bool operator==(const CertBundle& o) const;
  bool operator!=(const CertBundle& o) const { return !(*this == o); }
};

// SetTcpFastOpenNoCookie marks |bundle|'s server as taking SYN data without
// a TCP Fast Open cookie, raising its version to kCertBundleVersionFastOpen.
void SetTcpFastOpenNoCookie(CertBundle* bundle);

// BundlePointer is a TXT record that names where the bundle file is
// (an http:// URL) instead of carrying it.
struct BundlePointer {
  std::string url;
  bool operator==(const BundlePointer& o) const { return url == o.url; }
  bool operator!=(const BundlePointer& o) const { return url != o.url; }
};

// BundleTxtRecord is what one certbundle TXT record holds.
using BundleTxtRecord = std::variant<CertBundle, BundlePointer>;

// EarliestNotAfter parses every certificate of |chain_der| and returns the
// earliest notAfter, truncated to seconds; an error names the certificate
// that does not parse.
[[nodiscard]] absl::StatusOr<absl::Time> EarliestNotAfter(
    const std::vector<std::string>& chain_der);

// MakeCertBundle builds a bundle from a chain (DER, leaf first), computing
// not_after from the chain. Fails if the host, port, chain or orbit would
// make a bundle the decoders reject, or a certificate does not parse.
[[nodiscard]] absl::StatusOr<CertBundle> MakeCertBundle(
    absl::string_view host, uint16_t port, std::vector<std::string> chain_der,
    uint16_t cipher_suite, std::optional<std::string> orbit,
    absl::Time created);

// EncodeBundleFile returns the file form (magic, 24-bit length, serialized
// CertBundle message), with the chain in chain_zlib if |compress|. Fails
// for a bundle the decoder would reject (see CheckBundleWellFormed).
[[nodiscard]] absl::StatusOr<std::string> EncodeBundleFile(
    const CertBundle& bundle, bool compress);

// DecodeBundleFile parses the file form. Inputs longer than |max_bytes|,
// without the magic (an HTML 404 page), truncated or with trailing bytes,
// whose message does not parse, has another version, or holds fields out
// of range (CheckBundleWellFormed) are errors.
[[nodiscard]] absl::StatusOr<CertBundle> DecodeBundleFile(
    absl::string_view bytes, size_t max_bytes = kMaxBundleFileBytes);

// BundleTxtName returns the TXT record name for |host|: "_certbundle."
// followed by the host, lower-cased, without a trailing dot.
std::string BundleTxtName(absl::string_view host);

// EncodeBundleTxt returns the strings of the TXT record carrying |bundle|:
// "v=cb1; b=" and the base64 of the compressed file form, cut into strings
// of at most 255 bytes (the last may be shorter). Fails as EncodeBundleFile
// does, or if the record would exceed kMaxBundleTxtBytes.
[[nodiscard]] absl::StatusOr<std::vector<std::string>> EncodeBundleTxt(
    const CertBundle& bundle);

// EncodeBundlePointerTxt returns the strings of a pointer record,
// "v=cb1; url=" then |url|. Fails for a URL ParseBundleTxt would reject.
[[nodiscard]] absl::StatusOr<std::vector<std::string>> EncodeBundlePointerTxt(
    absl::string_view url);

// ParseBundleTxt parses the strings of ONE TXT record (an RR's strings,
// concatenated in order). Errors: no strings, a string over 255 bytes, more
// than |max_bytes| in all, no "v=" tag, a version other than cb1, an unknown
// field, bad base64, a bundle DecodeBundleFile rejects, a URL that is not
// http:// or does not parse.
[[nodiscard]] absl::StatusOr<BundleTxtRecord> ParseBundleTxt(
    const std::vector<std::string>& strings,
    size_t max_bytes = kMaxBundleTxtBytes);

// CheckBundleWellFormed is the field check the codecs share: version (1, or
// 2; a field of version 2 in a version-1 bundle is an error),
// host syntax (ASCII letters, digits, '-', '_', '.', labels of 1..63, at
// most 253), port != 0, 1..kMaxBundleChainLength non-empty certificates of
// at most kMaxBundleChainBytes in all, orbit size, times within
// 1970..9999. It does not parse the certificates.
[[nodiscard]] absl::Status CheckBundleWellFormed(const CertBundle& bundle);

// ValidateBundleShape runs the syntactic checks a prefetcher does before
// chain verification (which is cert/'s job, not repeated here): the
// well-formedness above, host equal to |expected_host| ignoring case and a
// trailing dot, port equal to |expected_port|, every certificate a whole
// X.509 certificate, not_after no later than the chain's earliest notAfter
// and after |now|, created no more than an hour after |now| (clock skew).
[[nodiscard]] absl::Status ValidateBundleShape(const CertBundle& bundle,
                                               absl::string_view expected_host,
                                               uint16_t expected_port,
                                               absl::Time now);

}  // namespace net

#endif  // PREFETCH_CERT_BUNDLE_H_
