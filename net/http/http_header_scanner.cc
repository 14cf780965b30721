#include "net/http/http_header_scanner.h"

#include <algorithm>
#include <climits>

#include "net/base/net_errors.h"

namespace net {

HttpHeaderScanner::HttpHeaderScanner(size_t max_bytes)
    : max_bytes_(std::min<size_t>(max_bytes, INT_MAX)) {}

int HttpHeaderScanner::Fail(int error, const char* why) {
  state_ = State::kFailed;
  error_ = error;
  error_detail_ = why;
  return error;
}

void HttpHeaderScanner::StartNextBlock() {
  if (state_ == State::kFailed) return;
  state_ = State::kInLine;
  line_empty_ = true;
  block_size_ = 0;
}

int HttpHeaderScanner::Scan(absl::string_view data) {
  if (state_ == State::kFailed) return error_;
  if (state_ == State::kComplete) return 0;
  // A plain indexed loop (bounds-safe: i < data.size()), with no call per
  // byte: this is the hot path of every response.
  size_t i = 0;
  for (; i < data.size(); ++i) {
    const char c = data[i];
    ++bytes_examined_;
    if (total_bytes_ == max_bytes_) {
      return Fail(ERR_RESPONSE_HEADERS_TOO_BIG,
                  "the response headers exceed the size limit");
    }
    ++total_bytes_;
    ++block_size_;
    if (state_ == State::kAfterCR) {
      // CR is only ever the first half of a line end.
      if (c != '\n') return Fail(ERR_INVALID_HTTP_RESPONSE, "bare CR");
    } else if (c == '\r') {
      state_ = State::kAfterCR;
      continue;
    } else if (c == '\0') {
      return Fail(ERR_INVALID_HTTP_RESPONSE, "NUL in the response headers");
    } else if (c != '\n') {
      line_empty_ = false;
      continue;
    }
    // The end of a line (c is its LF).
    if (line_empty_) {
      state_ = State::kComplete;
      ++i;
      break;
    }
    state_ = State::kInLine;
    line_empty_ = true;
  }
  // At most max_bytes_ <= INT_MAX bytes can be consumed without failing.
  return static_cast<int>(i);
}

}  // namespace net
