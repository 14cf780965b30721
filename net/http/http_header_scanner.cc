#include "net/http/http_header_scanner.h"

#include <algorithm>
#include <climits>

#include "net/base/net_errors.h"
#include "openssl/bytestring.h"

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
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(data.data()), data.size());
  uint8_t c;
  while (CBS_get_u8(&cbs, &c)) {
    ++bytes_examined_;
    if (total_bytes_ == max_bytes_) {
      return Fail(ERR_RESPONSE_HEADERS_TOO_BIG,
                  "the response headers exceed the size limit");
    }
    ++total_bytes_;
    ++block_size_;
    bool end_of_line = false;
    if (state_ == State::kAfterCR) {
      // CR is only ever the first half of a line end.
      if (c != '\n') return Fail(ERR_INVALID_HTTP_RESPONSE, "bare CR");
      end_of_line = true;
    } else if (c == '\r') {
      state_ = State::kAfterCR;
    } else if (c == '\n') {
      end_of_line = true;
    } else if (c == '\0') {
      return Fail(ERR_INVALID_HTTP_RESPONSE, "NUL in the response headers");
    } else {
      line_empty_ = false;
    }
    if (!end_of_line) continue;
    if (line_empty_) {
      state_ = State::kComplete;
      break;
    }
    state_ = State::kInLine;
    line_empty_ = true;
  }
  // At most max_bytes_ <= INT_MAX bytes can be consumed without failing.
  return static_cast<int>(data.size() - CBS_len(&cbs));
}

}  // namespace net
