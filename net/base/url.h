// Url and Origin: parsing of absolute http/https URLs and their origins.
//
// Url keeps the parts a client needs (scheme, host, port, path+query); the
// host is lower-cased, IPv6 literals keep their brackets in host_for_url()
// and lose them in host(). Only http and https are accepted: anything else is
// an error, never silently rewritten.

#ifndef NET_BASE_URL_H_
#define NET_BASE_URL_H_

#include <cstdint>
#include <string>
#include <tuple>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// Origin is (scheme, host, port), the unit of TLS sessions, OBC scopes and
// connection pools.
class Origin {
 public:
  Origin() = default;
  Origin(std::string scheme, std::string host, uint16_t port)
      : scheme_(std::move(scheme)), host_(std::move(host)), port_(port) {}

  const std::string& scheme() const { return scheme_; }
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  // Serialize returns "https://host:port", omitting a default port.
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

class Url {
 public:
  // Parse accepts "http[s]://host[:port][/path][?query][#fragment]".
  // Userinfo is rejected; the fragment is dropped.
  [[nodiscard]] static absl::StatusOr<Url> Parse(absl::string_view text);

  const std::string& scheme() const { return scheme_; }
  bool SchemeIsCryptographic() const { return scheme_ == "https"; }
  // host() is without brackets for IPv6 literals.
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  bool has_explicit_port() const { return explicit_port_; }
  // PathForRequest is path plus "?query", at least "/".
  const std::string& PathForRequest() const { return path_; }
  // HostHeader is the Host header value (port only if non-default).
  std::string HostHeader() const;
  Origin GetOrigin() const { return Origin(scheme_, host_, port_); }
  std::string spec() const;
  // Resolve resolves a (possibly relative) reference against this URL.
  [[nodiscard]] absl::StatusOr<Url> Resolve(absl::string_view reference) const;

  static uint16_t DefaultPortForScheme(absl::string_view scheme);

 private:
  std::string scheme_;
  std::string host_;
  uint16_t port_ = 0;
  bool explicit_port_ = false;
  std::string path_;
};

}  // namespace net

#endif  // NET_BASE_URL_H_
