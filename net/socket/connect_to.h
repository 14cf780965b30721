// ConnectToRules: curl's --connect-to for the whole stack. A request to
// HOST1:PORT1 resolves and connects to HOST2:PORT2 instead, while
// everything above the transport keeps the origin: the TLS server name and
// certificate check, the Host header, cookies, pooling and the trace's URL.
// The local world uses it to reach servers on ports other than the ones in
// the URLs its certificates embed (OCSP, CRL, bundle files), where a URL
// rewrite would change what is fetched.
//
// A value type: the session parameters own a copy; connect jobs read it.

#ifndef NET_SOCKET_CONNECT_TO_H_
#define NET_SOCKET_CONNECT_TO_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

struct ConnectToRule {
  // Empty |from_host| matches any host; |from_port| 0 any port.
  std::string from_host;
  uint16_t from_port = 0;
  // Empty |to_host| keeps the request's host; |to_port| 0 its port.
  std::string to_host;
  uint16_t to_port = 0;

  // Parses curl's "HOST1:PORT1:HOST2:PORT2" (each part may be empty, IPv6
  // literals in brackets). Host names are compared case-insensitively.
  [[nodiscard]] static absl::StatusOr<ConnectToRule> Parse(
      absl::string_view text);
  // "HOST1:PORT1:HOST2:PORT2" again, for the trace and error messages.
  std::string ToString() const;
};

class ConnectToRules {
 public:
  ConnectToRules() = default;
  explicit ConnectToRules(std::vector<ConnectToRule> rules)
      : rules_(std::move(rules)) {}

  void Add(ConnectToRule rule) { rules_.push_back(std::move(rule)); }
  bool empty() const { return rules_.empty(); }
  const std::vector<ConnectToRule>& rules() const { return rules_; }

  // Where a connection to host:port goes: the first matching rule's
  // destination (as curl, only the first applies), else host:port itself.
  std::pair<std::string, uint16_t> Apply(const std::string& host,
                                         uint16_t port) const;

 private:
  std::vector<ConnectToRule> rules_;
};

}  // namespace net

#endif  // NET_SOCKET_CONNECT_TO_H_
