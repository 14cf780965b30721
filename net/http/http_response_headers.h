// HttpResponseHeaders: a parsed HTTP/1.x status line and header block.
//
// Parse is strict where leniency would be unsafe (conflicting
// Content-Length, obs-fold, junk status line) and returns an error naming
// the problem.

#ifndef NET_HTTP_HTTP_RESPONSE_HEADERS_H_
#define NET_HTTP_HTTP_RESPONSE_HEADERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

class HttpResponseHeaders {
 public:
  // Parse takes the raw block including the status line, up to and
  // including the blank line (CRLF or bare LF line ends).
  [[nodiscard]] static absl::StatusOr<HttpResponseHeaders> Parse(
      absl::string_view raw);

  int status_code() const { return status_code_; }
  const std::string& reason() const { return reason_; }
  // 10 for HTTP/1.0, 11 for HTTP/1.1.
  int version() const { return version_; }
  const std::vector<std::pair<std::string, std::string>>& headers() const {
    return headers_;
  }
  // GetHeader returns the first value of |name| (case-insensitive).
  std::optional<std::string> GetHeader(absl::string_view name) const;
  // ContentLength is the parsed Content-Length, or -1 when absent.
  int64_t content_length() const { return content_length_; }
  bool IsChunked() const { return chunked_; }
  // IsKeepAlive: the connection may carry another request afterwards.
  bool IsKeepAlive() const;
  std::string status_line() const;
  std::string raw() const { return raw_; }

 private:
  std::string raw_;
  int version_ = 11;
  int status_code_ = 0;
  std::string reason_;
  std::vector<std::pair<std::string, std::string>> headers_;
  int64_t content_length_ = -1;
  bool chunked_ = false;
};

}  // namespace net

#endif  // NET_HTTP_HTTP_RESPONSE_HEADERS_H_
