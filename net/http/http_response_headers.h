// HttpResponseHeaders: a parsed HTTP/1.x status line and header block.
//
// Parse is strict where leniency would be unsafe (conflicting or malformed
// Content-Length, junk status line, bare CR, NUL, whitespace before the
// first field line) and returns an error naming the problem;
// NetErrorForParseFailure turns it into the net error. Lines end in CRLF or
// a bare LF (HttpHeaderScanner vets them). An obs-fold (a line starting with
// SP or HTAB) continues the previous field's value, joined with one SP, as
// RFC 9112 5.2 requires of a user agent.
//
// Message framing follows RFC 9112 section 6.3: Transfer-Encoding header
// lines combine into one list of codings; chunked counts only as the last
// one (and only once); with any Transfer-Encoding, Content-Length is ignored
// (content_length() is -1), even a malformed one. Content-Length may repeat,
// on several lines or as a list ("10, 10"), if every value is the same.

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
  // including the blank line (CRLF or bare LF line ends), and nothing after
  // it.
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
  // NetErrorForParseFailure names a failed Parse as a net error:
  // ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH (Content-Length values
  // differ), ERR_INVALID_CONTENT_LENGTH (one is not a decimal number that
  // fits in int64), ERR_INVALID_HTTP_RESPONSE (anything else).
  static int NetErrorForParseFailure(const absl::Status& status);

  // content_length is the Content-Length, or -1 when absent or overridden by
  // a Transfer-Encoding.
  int64_t content_length() const { return content_length_; }
  // IsChunked: chunked is the last transfer coding.
  bool IsChunked() const { return chunked_; }
  // HasTransferEncoding: a Transfer-Encoding header is present (with
  // chunked last, the body is chunked; otherwise it runs until the
  // connection closes).
  bool HasTransferEncoding() const { return has_transfer_encoding_; }
  // Both Transfer-Encoding and Content-Length: the former wins, but such a
  // response may be an attempt at response splitting (RFC 9112 6.3 rule 3).
  bool HasTransferEncodingAndContentLength() const {
    return has_transfer_encoding_ && has_content_length_;
  }
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
  bool has_transfer_encoding_ = false;
  bool has_content_length_ = false;
};

}  // namespace net

#endif  // NET_HTTP_HTTP_RESPONSE_HEADERS_H_
