// Url and Origin: absolute http/https URLs parsed and resolved by the WHATWG
// URL Standard (https://url.spec.whatwg.org/), and their origins.
//
// The parsing itself is ada's (third_party/ada, the parser Node.js uses), so
// Url lands where a browser lands: relative references and dot segments,
// backslashes as slashes in http(s), tab/newline removal and C0/space
// trimming, percent-encoding of path and query, IDNA (UTS #46) hosts, IPv4
// number forms (0x7f.1 is 127.0.0.1) and IPv6 compression. Url adds a
// networking stack's policy on top: only http and https, no userinfo, no
// port 0, and the fragment is dropped (it is never sent).
//
// Url and Origin are values: copy them freely; nothing refers back to the
// text they were parsed from.

#ifndef NET_BASE_URL_H_
#define NET_BASE_URL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// Origin is (scheme, host, port), the unit of TLS sessions, OBC scopes and
// connection pools. Port 0 means "no origin" (a default-constructed one).
class Origin {
 public:
  Origin() = default;
  Origin(std::string scheme, std::string host, uint16_t port)
      : scheme_(std::move(scheme)), host_(std::move(host)), port_(port) {}

  const std::string& scheme() const { return scheme_; }
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  // Serialize returns "https://host:port", omitting a default port: the
  // WHATWG serialization of a tuple origin.
  std::string Serialize() const;
  // HostPortKey returns "host:port", the key of session caches.
  std::string HostPortKey() const;

  bool operator==(const Origin& o) const {
    return scheme_ == o.scheme_ && host_ == o.host_ && port_ == o.port_;
  }
  bool operator!=(const Origin& o) const { return !(*this == o); }
  bool operator<(const Origin& o) const {
    return std::tie(scheme_, host_, port_) <
           std::tie(o.scheme_, o.host_, o.port_);
  }
  template <typename H>
  friend H AbslHashValue(H h, const Origin& o) {
    return H::combine(std::move(h), o.scheme_, o.host_, o.port_);
  }

 private:
  std::string scheme_;
  std::string host_;
  uint16_t port_ = 0;
};

// Url is an absolute http or https URL in WHATWG canonical form, without its
// fragment.
class Url {
 public:
  // kMaxLength bounds the text Parse and Resolve accept and the canonical
  // spec they produce (percent-encoding can triple a text): Chromium's
  // url::kMaxURLChars, 2 MiB.
  static constexpr size_t kMaxLength = 2 * 1024 * 1024;

  // Parse parses |text| as an absolute URL by the WHATWG URL Standard (with
  // no base) and returns it in canonical form. It fails with
  // InvalidArgument, saying why, when the text is not a valid URL, is longer
  // than kMaxLength, or is a URL this stack does not fetch: a scheme other
  // than http and https, userinfo ("user:pass@"; as in the Fetch Standard's
  // Request constructor, credentials in a URL are refused rather than
  // silently dropped), or port 0. The fragment ("#...") is dropped.
  [[nodiscard]] static absl::StatusOr<Url> Parse(absl::string_view text);

  // Resolve parses |reference| (absolute, or relative: "?q", "../x",
  // "//host/x", "\x", "#f", ...) against this URL as its base by the WHATWG
  // URL Standard: where a browser lands following `Location: reference`
  // from this URL. Fails as Parse does, for the resolved URL.
  [[nodiscard]] absl::StatusOr<Url> Resolve(absl::string_view reference) const;

  // scheme() is "http" or "https".
  const std::string& scheme() const { return scheme_; }
  bool SchemeIsCryptographic() const { return scheme_ == "https"; }
  // host() is the canonical host: a lower-case ASCII (punycode) domain, a
  // dotted-decimal IPv4 address, or a compressed IPv6 address without
  // brackets.
  const std::string& host() const { return host_; }
  // port() is the explicit port or the scheme's default; never 0.
  uint16_t port() const { return port_; }
  // has_explicit_port() is true when the URL names a port other than the
  // scheme's default (the WHATWG URL drops a default port: "http://a:80/"
  // has none).
  bool has_explicit_port() const { return explicit_port_; }
  // PathForRequest is the request target: the path plus "?query" (also a
  // bare "?" when the URL has an empty query), at least "/".
  const std::string& PathForRequest() const { return path_; }
  // HostHeader is the Host header value (port only if non-default, IPv6 in
  // brackets).
  std::string HostHeader() const;
  Origin GetOrigin() const { return Origin(scheme_, host_, port_); }
  // spec() is the canonical URL (the WHATWG href without its fragment).
  const std::string& spec() const { return spec_; }

  // DefaultPortForScheme is 80 for http, 443 for https, 0 otherwise.
  static uint16_t DefaultPortForScheme(absl::string_view scheme);

 private:
  // ParseWithBase parses |text| against |base| (nullptr: no base) and
  // applies the policy above.
  static absl::StatusOr<Url> ParseWithBase(absl::string_view text,
                                           const Url* base);

  std::string scheme_;
  std::string host_;
  uint16_t port_ = 0;
  bool explicit_port_ = false;
  std::string path_;
  std::string spec_;
};

}  // namespace net

#endif  // NET_BASE_URL_H_
