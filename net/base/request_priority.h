// RequestPriority: how urgent a request is, Chromium's levels
// (net/base/request_priority.h there), from THROTTLED (may wait behind
// everything) to HIGHEST (a navigation: what the user is waiting for). The
// HTTP/2 layer maps it to stream weights and dependencies and to the RFC
// 9218 "priority" header (net/http2/http2_priority.h). A plain enum.

#ifndef NET_BASE_REQUEST_PRIORITY_H_
#define NET_BASE_REQUEST_PRIORITY_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace net {

// Ordered: a larger value is more urgent.
enum RequestPriority {
  THROTTLED = 0,
  IDLE = 1,
  LOWEST = 2,
  LOW = 3,
  MEDIUM = 4,
  HIGHEST = 5,
  MINIMUM_PRIORITY = THROTTLED,
  MAXIMUM_PRIORITY = HIGHEST,
};

// RequestPriorityToString: "THROTTLED", "IDLE", "LOWEST", "LOW", "MEDIUM" or
// "HIGHEST".
const char* RequestPriorityToString(RequestPriority priority);
// ParseRequestPriority reads one of those names, in any case; nullopt for
// anything else.
std::optional<RequestPriority> ParseRequestPriority(absl::string_view name);

}  // namespace net

#endif  // NET_BASE_REQUEST_PRIORITY_H_
