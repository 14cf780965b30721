#include "tools/fetch/retry.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "net/base/net_errors.h"

namespace net {

bool IsTransientHttpStatus(int status) {
  switch (status) {
    case 408:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return false;
  }
}

std::optional<absl::Duration> RetryDelay(const FetchOptions& options,
                                         int result, int status,
                                         const std::string& retry_after,
                                         int retries_done,
                                         absl::Duration elapsed,
                                         std::string* why) {
  if (retries_done >= options.retry) return std::nullopt;
  if (result == ERR_TIMED_OUT || result == ERR_CONNECTION_TIMED_OUT) {
    *why = "Timeout";
  } else if (result == ERR_CONNECTION_REFUSED && options.retry_connrefused) {
    *why = "Connection refused";
  } else if (result >= 0 && IsTransientHttpStatus(status)) {
    *why = "HTTP error";
  } else {
    return std::nullopt;
  }
  absl::Duration delay;
  int64_t seconds;
  if (options.retry_delay > absl::ZeroDuration()) {
    delay = options.retry_delay;
  } else if (absl::SimpleAtoi(absl::StripAsciiWhitespace(retry_after),
                              &seconds) &&
             seconds >= 0) {
    delay = absl::Seconds(std::min<int64_t>(seconds, 6 * 3600));
  } else {
    delay =
        std::min(absl::Seconds(1) * (int64_t{1} << std::min(retries_done, 10)),
                 absl::Minutes(10));
  }
  if (options.retry_max_time > absl::ZeroDuration() &&
      elapsed + delay > options.retry_max_time)
    return std::nullopt;
  return delay;
}

}  // namespace net
