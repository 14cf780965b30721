// Alt-Svc (RFC 7838): the parser of the response header and the client's
// bounded cache of the alternatives origins advertised, for HTTP/3
// discovery (issue 25): a response that says `alt-svc: h3=":443"; ma=3600`
// lets the next request to its origin go over HTTP/3 (QUIC) to that
// authority, for ma seconds, with the certificate still verified for the
// origin's host.
//
// ParseAltSvc is sans-I/O (string in, StatusOr out, bounded) and fuzzed;
// AltSvcCache is owned by the HttpNetworkSession, network-thread only, and
// takes the time from its caller, so tests are exact.

#ifndef NET_HTTP_ALT_SVC_H_
#define NET_HTTP_ALT_SVC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/base/url.h"

namespace net {

// One alternative: protocol-id="[host]:port"; ma=seconds.
struct AltSvcEntry {
  std::string alpn;  // percent-decoded protocol-id ("h3")
  std::string host;  // empty: the origin's own host
  uint16_t port = 0;
  absl::Duration max_age = absl::Hours(24);  // RFC 7838 3.1's default
};

struct AltSvcHeader {
  bool clear = false;  // "clear": forget the origin's alternatives
  std::vector<AltSvcEntry> entries;
};

// The most alternatives one header may list, and its longest accepted form.
inline constexpr size_t kMaxAltSvcEntries = 32;
inline constexpr size_t kMaxAltSvcHeaderBytes = 8 * 1024;

// ParseAltSvc parses one Alt-Svc field value (several header lines joined
// with ", "). InvalidArgument names what is wrong (a missing quote, a port
// that is not 1..65535, a bad parameter, too many entries or bytes); the
// caller then ignores the whole field.
[[nodiscard]] absl::StatusOr<AltSvcHeader> ParseAltSvc(absl::string_view value);

// AltSvcCache: per origin, the HTTP/3 alternative it advertised last and
// until when. At most |max_origins| origins: a new one beyond that
// replaces the one whose entry expires first.
class AltSvcCache {
 public:
  struct Alternative {
    std::string host;  // empty: the origin's host
    uint16_t port = 0;
    absl::Time expires;
    std::string header;  // as the server said it, for the trace
  };

  explicit AltSvcCache(size_t max_origins = 256) : max_origins_(max_origins) {}

  // A response from |origin| carried |value| at |now|: its first "h3"
  // alternative replaces what was known ("clear", or no h3 entry with ma
  // > 0, forgets it). A malformed value changes nothing.
  void OnHeader(const Origin& origin, absl::string_view value, absl::Time now);
  // The origin's unexpired HTTP/3 alternative, if any.
  std::optional<Alternative> GetHttp3(const Origin& origin, absl::Time now);
  void Forget(const Origin& origin);
  size_t size() const { return entries_.size(); }

 private:
  const size_t max_origins_;
  std::map<std::string, Alternative> entries_;
};

}  // namespace net

#endif  // NET_HTTP_ALT_SVC_H_
