// The response head of a stream on a multiplexed session (SPDY/3, HTTP/2,
// HTTP/3) as the HTTP/1.1 head everything above the stream reads: a status
// and a field list in, HttpResponseHeaders out, the head's size in the
// trace. SpdyHttpStream, Http2Stream and Http3Stream each hold one response;
// this is the conversion they share. Pure functions; thread-safe.

#ifndef NET_HTTP_MULTIPLEXED_RESPONSE_HEAD_H_
#define NET_HTTP_MULTIPLEXED_RESPONSE_HEAD_H_

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "net/http/http_response_headers.h"
#include "net/timing/load_timing.h"

namespace net {

// HttpHeadFromFields returns "HTTP/1.1 |status|\r\n", one line per field of
// |fields| (pseudo-headers, whose names start with ':', left out), then the
// empty line. With |split_nul| a value holding NULs is several values of
// one name (SPDY/3's header block joins them so).
template <typename FieldRange>
std::string HttpHeadFromFields(int status, const FieldRange& fields,
                               bool split_nul = false) {
  std::string raw = absl::StrCat("HTTP/1.1 ", status, "\r\n");
  for (const auto& [name, value] : fields) {
    if (!name.empty() && name[0] == ':') continue;
    if (split_nul) {
      for (absl::string_view v : absl::StrSplit(value, '\0'))
        absl::StrAppend(&raw, name, ": ", v, "\r\n");
    } else {
      absl::StrAppend(&raw, name, ": ", value, "\r\n");
    }
  }
  raw += "\r\n";
  return raw;
}

// ParseMultiplexedResponseHead parses |raw| (from HttpHeadFromFields) into
// |*out| and counts its size in |timing->header_bytes|. OK, or the net error
// that names the failure with the parser's reason in |*error_detail|.
int ParseMultiplexedResponseHead(const std::string& raw, LoadTiming* timing,
                                 std::optional<HttpResponseHeaders>* out,
                                 std::string* error_detail);

}  // namespace net

#endif  // NET_HTTP_MULTIPLEXED_RESPONSE_HEAD_H_
