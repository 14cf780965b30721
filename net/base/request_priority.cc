#include "net/base/request_priority.h"

#include "absl/strings/match.h"

namespace net {

const char* RequestPriorityToString(RequestPriority priority) {
  switch (priority) {
    case THROTTLED:
      return "THROTTLED";
    case IDLE:
      return "IDLE";
    case LOWEST:
      return "LOWEST";
    case LOW:
      return "LOW";
    case MEDIUM:
      return "MEDIUM";
    case HIGHEST:
      return "HIGHEST";
  }
  return "unknown";
}

std::optional<RequestPriority> ParseRequestPriority(absl::string_view name) {
  for (int p = MINIMUM_PRIORITY; p <= MAXIMUM_PRIORITY; ++p) {
    const auto priority = static_cast<RequestPriority>(p);
    if (absl::EqualsIgnoreCase(name, RequestPriorityToString(priority)))
      return priority;
  }
  return std::nullopt;
}

}  // namespace net
