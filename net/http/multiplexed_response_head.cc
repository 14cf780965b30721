#include "net/http/multiplexed_response_head.h"

#include "absl/status/statusor.h"

namespace net {

int ParseMultiplexedResponseHead(const std::string& raw, LoadTiming* timing,
                                 std::optional<HttpResponseHeaders>* out,
                                 std::string* error_detail) {
  timing->header_bytes = raw.size();
  absl::StatusOr<HttpResponseHeaders> parsed = HttpResponseHeaders::Parse(raw);
  if (!parsed.ok()) {
    *error_detail = std::string(parsed.status().message());
    return HttpResponseHeaders::NetErrorForParseFailure(parsed.status());
  }
  *out = *std::move(parsed);
  return OK;
}

}  // namespace net
