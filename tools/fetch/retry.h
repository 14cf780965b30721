// curl's --retry rules for fetch: which outcomes are transient (a timeout;
// HTTP 408, 429, 500, 502, 503, 504; a refused connection only with
// --retry-connrefused) and how long to wait before the next attempt
// (--retry-delay, else the response's Retry-After in seconds, else one
// second doubling up to ten minutes), within --retry-max-time.

#ifndef TOOLS_FETCH_RETRY_H_
#define TOOLS_FETCH_RETRY_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "tools/fetch/fetch_options.h"

namespace net {

// An HTTP status curl retries.
bool IsTransientHttpStatus(int status);

// The wait before retry number |retries_done| + 1 of a transfer that ended
// with |result| (a net error or OK) and |status| (0 without a response),
// |elapsed| after the first attempt began; nullopt when it is not retried.
// |*why| says what was transient, as curl's warning does.
std::optional<absl::Duration> RetryDelay(const FetchOptions& options,
                                         int result, int status,
                                         const std::string& retry_after,
                                         int retries_done,
                                         absl::Duration elapsed,
                                         std::string* why);

}  // namespace net

#endif  // TOOLS_FETCH_RETRY_H_
