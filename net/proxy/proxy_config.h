// ProxyServer, ProxyBypassRules and ProxyConfig: which HTTP proxy, if any, a
// request goes through (Chromium's ProxyResolutionService in spirit, small:
// a fixed configuration, no PAC, no WPAD), read from curl's command-line
// values and environment variables by curl's rules.
//
// Plain values with no I/O: the embedder builds a ProxyConfig (direct by
// default) and hands it to NetworkContextParams / HttpNetworkSessionParams;
// the transaction asks ProxyFor(url) for every request. Parsers return
// absl::StatusOr with a message naming the input and what is wrong with it.

#ifndef NET_PROXY_PROXY_CONFIG_H_
#define NET_PROXY_PROXY_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/base/ip_endpoint.h"
#include "net/base/url.h"

namespace net {

// ProxyServer is one HTTP proxy: host, port and optional Basic credentials.
class ProxyServer {
 public:
  // curl's default proxy port.
  static constexpr uint16_t kDefaultPort = 1080;

  // Parse reads curl's proxy syntax "[http://][user[:password]@]host[:port][/]"
  // (the value of -x/--proxy or of a *_proxy variable): no scheme means
  // http, no port means 1080, user and password are percent-decoded, the
  // host is canonicalized as a URL host (lower case, IDNA, IPv6 in brackets
  // on input). Fails with Unimplemented for the schemes curl knows that this
  // stack does not speak (https://, socks4://, socks4a://, socks5://,
  // socks5h://) and InvalidArgument for anything malformed; the message
  // quotes the input without its password.
  [[nodiscard]] static absl::StatusOr<ProxyServer> Parse(
      absl::string_view text);

  // The canonical host (IPv6 without brackets).
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  const std::string& username() const { return username_; }
  const std::string& password() const { return password_; }
  bool has_credentials() const { return has_credentials_; }

  // "host:port" (IPv6 in brackets): the CONNECT target form of the proxy
  // itself, and its Host header.
  std::string HostPort() const;
  // "http://host:port", never the credentials: what the trace and logs say.
  std::string ToString() const;
  // The Proxy-Authorization value, "Basic base64(user:password)", or "" when
  // the proxy has no credentials.
  std::string BasicAuthorization() const;

  bool operator==(const ProxyServer& o) const {
    return host_ == o.host_ && port_ == o.port_ && username_ == o.username_ &&
           password_ == o.password_ && has_credentials_ == o.has_credentials_;
  }
  bool operator!=(const ProxyServer& o) const { return !(*this == o); }

 private:
  std::string host_;
  uint16_t port_ = kDefaultPort;
  std::string username_;
  std::string password_;
  bool has_credentials_ = false;
};

// ProxyBypassRules is curl's no_proxy list: the hosts reached directly even
// when a proxy is configured.
class ProxyBypassRules {
 public:
  // Parse reads a list separated by commas (and blanks): "*" alone matches
  // every host; a name matches itself and every host under it
  // ("example.com" and ".example.com" both match example.com and
  // www.example.com, not notexample.com), case-insensitively, trailing dots
  // ignored; an IP address matches that address, with "/bits" a CIDR range
  // (IPv6 with or without brackets); an entry may end in ":port" (beyond
  // curl: then it matches only that port). An empty list matches nothing.
  // Fails with InvalidArgument naming the entry: "*" among other entries,
  // a malformed name, address, prefix length or port.
  [[nodiscard]] static absl::StatusOr<ProxyBypassRules> Parse(
      absl::string_view list);

  // Whether |url| (its host and port) goes direct.
  bool Matches(const Url& url) const;
  bool Matches(absl::string_view host, uint16_t port) const;

  bool match_all() const { return match_all_; }
  bool empty() const { return !match_all_ && rules_.empty(); }
  // The rules in canonical form, comma-separated ("*" for all).
  std::string ToString() const;

 private:
  struct Rule {
    // A name suffix (lower case, no leading or trailing dot), or an address
    // with a prefix length.
    std::string name;
    std::optional<IPAddress> address;
    int prefix_bits = 0;
    std::optional<uint16_t> port;
  };
  static absl::StatusOr<Rule> ParseRule(absl::string_view entry);

  bool match_all_ = false;
  std::vector<Rule> rules_;
};

// ProxyConfig: the proxy for http URLs, the proxy for https URLs (each
// optional) and the bypass list. Default-constructed, it is direct.
class ProxyConfig {
 public:
  // A getenv-like lookup: the variable's value, or null when unset.
  using GetEnv = absl::FunctionRef<const char*(const char* name)>;

  // Every request direct.
  static ProxyConfig Direct() { return ProxyConfig(); }
  // Every request (http and https) through |proxy|.
  static ProxyConfig ForAll(ProxyServer proxy);

  // FromEnvironment reads curl's variables (an empty value counts as
  // unset, as in curl):
  //   http URLs   http_proxy (lower case only: a CGI program gets the
  //               client's "Proxy:" request header as HTTP_PROXY, so the
  //               upper-case name is attacker-controlled there: "httpoxy",
  //               CVE-2016-5385; curl ignores it for the same reason)
  //   https URLs  https_proxy, else HTTPS_PROXY
  //   either      all_proxy, else ALL_PROXY, when the scheme's is unset
  //   bypass      no_proxy, else NO_PROXY
  // A malformed value fails, naming the variable.
  [[nodiscard]] static absl::StatusOr<ProxyConfig> FromEnvironment(
      GetEnv getenv);

  // FromCurlOptions is what curl does with -x/--proxy and --noproxy
  // (nullopt: the flag was not given) and the environment:
  // - --proxy VALUE: VALUE for http and https, the *_proxy variables
  //   ignored; --proxy "" means no proxy at all, environment included;
  // - no --proxy: the variables, as FromEnvironment;
  // - --noproxy LIST replaces no_proxy/NO_PROXY (also for a --proxy), and
  //   --noproxy "" bypasses nothing.
  // Errors name the flag or variable.
  [[nodiscard]] static absl::StatusOr<ProxyConfig> FromCurlOptions(
      std::optional<absl::string_view> proxy_flag,
      std::optional<absl::string_view> noproxy_flag, GetEnv getenv);

  // The proxy |url| goes through, or null for a direct connection.
  const ProxyServer* ProxyFor(const Url& url) const;

  bool is_direct() const { return !http_proxy && !https_proxy; }
  // For logs: "direct", or "http: P1, https: P2, no_proxy: LIST" (no
  // credentials).
  std::string ToString() const;

  std::optional<ProxyServer> http_proxy;
  std::optional<ProxyServer> https_proxy;
  ProxyBypassRules bypass;
};

}  // namespace net

#endif  // NET_PROXY_PROXY_CONFIG_H_
