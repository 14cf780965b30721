#include "net/http/http_stream_parser.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace net {
namespace {

constexpr int kReadChunk = 16 * 1024;

}  // namespace

HttpStreamParser::HttpStreamParser(StreamSocket* socket, LoadTiming* timing,
                                   const TickClock* clock)
    : socket_(socket),
      timing_(timing),
      clock_(clock),
      read_buf_(std::make_shared<GrowableIOBuffer>()) {}

HttpStreamParser::~HttpStreamParser() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
}

int HttpStreamParser::SendRequest(const std::string& request, bool is_head,
                                  CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  request_buf_ = std::make_shared<DrainableIOBuffer>(request);
  is_head_ = is_head;
  next_state_ = STATE_SEND_REQUEST;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpStreamParser::ReadResponseHeaders(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  next_state_ = STATE_READ_HEADERS;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

int HttpStreamParser::ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                                       CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!headers_) return ERR_UNEXPECTED;
  if (body_complete_) return 0;
  if (len <= 0) return ERR_INVALID_ARGUMENT;
  user_buf_ = std::move(buf);
  user_len_ = len;
  next_state_ = STATE_READ_BODY;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) {
    callback_ = std::move(callback);
  } else {
    user_buf_.reset();
  }
  return rv;
}

void HttpStreamParser::OnIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv == ERR_IO_PENDING) return;
  user_buf_.reset();
  CompletionOnceCallback callback = std::move(callback_);
  callback_ = nullptr;
  std::move(callback)(rv);
}

int HttpStreamParser::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_SEND_REQUEST:
        rv = DoSendRequest();
        break;
      case STATE_SEND_REQUEST_COMPLETE:
        rv = DoSendRequestComplete(rv);
        break;
      case STATE_READ_HEADERS:
        rv = DoReadHeaders();
        break;
      case STATE_READ_HEADERS_COMPLETE:
        rv = DoReadHeadersComplete(rv);
        break;
      case STATE_READ_BODY:
        rv = DoReadBody();
        break;
      case STATE_READ_BODY_COMPLETE:
        rv = DoReadBodyComplete(rv);
        break;
      case STATE_NONE:
      default:
        NET_NOTREACHED();
        return ERR_UNEXPECTED;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  return rv;
}

int HttpStreamParser::DoSendRequest() {
  if (timing_->request_start.is_null())
    timing_->request_start = clock_->NowTicks();
  next_state_ = STATE_SEND_REQUEST_COMPLETE;
  return socket_->Write(request_buf_,
                        static_cast<int>(request_buf_->BytesRemaining()),
                        [weak = weak_factory_.GetWeakPtr()](int rv) {
                          if (weak) weak->OnIOComplete(rv);
                        });
}

int HttpStreamParser::DoSendRequestComplete(int result) {
  if (result < 0) return result;
  request_buf_->DidConsume(result);
  if (request_buf_->BytesRemaining() > 0) next_state_ = STATE_SEND_REQUEST;
  return OK;
}

int HttpStreamParser::DoReadHeaders() {
  next_state_ = STATE_READ_HEADERS_COMPLETE;
  if (block_start_ > 0) {
    // Interim blocks before block_start_ are parsed and done: move the rest
    // (the start of the next block, already scanned) to the front. A block's
    // bytes move at most once, so this stays linear too.
    absl::string_view pending = read_buf_->Filled().substr(block_start_);
    std::memmove(read_buf_->StartOfBuffer(), pending.data(), pending.size());
    read_buf_->set_offset(pending.size());
    scanned_end_ -= block_start_;
    block_start_ = 0;
  }
  if (read_buf_->RemainingCapacity() < kReadChunk) {
    // GrowableIOBuffer grows geometrically, so growing by one small read
    // at a time costs linear time in all.
    read_buf_->SetCapacity(read_buf_->offset() + kReadChunk);
  }
  return socket_->Read(read_buf_, kReadChunk,
                       [weak = weak_factory_.GetWeakPtr()](int rv) {
                         if (weak) weak->OnIOComplete(rv);
                       });
}

int HttpStreamParser::DoReadHeadersComplete(int result) {
  if (result < 0) {
    error_detail_ = absl::StrCat("reading the response headers failed: ",
                                 ErrorToShortString(result));
    return result;
  }
  if (result == 0) {
    if (read_buf_->offset() == 0 && interim_header_bytes_ == 0) {
      error_detail_ =
          "the server closed the connection without sending anything";
      return ERR_EMPTY_RESPONSE;
    }
    error_detail_ =
        "the server closed the connection inside the response headers";
    return ERR_INVALID_HTTP_RESPONSE;
  }
  if (timing_->response_start.is_null())
    timing_->response_start = clock_->NowTicks();
  read_buf_->set_offset(read_buf_->offset() + result);
  return ProcessHeaderBuffer();
}

int HttpStreamParser::ProcessHeaderBuffer() {
  // Interim responses are parsed and dropped in this loop (not by recursion);
  // their bytes count against the scanner's limit like the final block's, so
  // an endless stream of them ends in ERR_RESPONSE_HEADERS_TOO_BIG.
  for (;;) {
    absl::string_view filled = read_buf_->Filled();
    // Reject non-HTTP early rather than waiting for a blank line that may
    // never come.
    absl::string_view block = filled.substr(block_start_);
    size_t check = std::min<size_t>(block.size(), 5);
    if (block.substr(0, check) != absl::string_view("HTTP/").substr(0, check)) {
      error_detail_ = "the response does not start with HTTP/";
      return ERR_INVALID_HTTP_RESPONSE;
    }
    // Only the bytes not scanned yet: each byte is looked at once, however
    // the response is cut into reads.
    int scanned = header_scanner_.Scan(filled.substr(scanned_end_));
    if (scanned == ERR_RESPONSE_HEADERS_TOO_BIG) {
      error_detail_ = absl::StrCat(
          "the response headers", interim_header_bytes_ > 0 ? " (with " : "",
          interim_header_bytes_ > 0 ? "interim 1xx responses)" : "", " exceed ",
          kMaxHeaderBytes / 1024, " KB");
      return scanned;
    }
    if (scanned < 0) {
      error_detail_ = absl::StrCat("malformed HTTP response: ",
                                   header_scanner_.error_detail());
      return scanned;
    }
    scanned_end_ += static_cast<size_t>(scanned);
    if (!header_scanner_.block_complete()) {
      next_state_ = STATE_READ_HEADERS;
      return OK;
    }
    const size_t end = scanned_end_ - block_start_;
    absl::StatusOr<HttpResponseHeaders> parsed =
        HttpResponseHeaders::Parse(block.substr(0, end));
    if (!parsed.ok()) {
      error_detail_ = std::string(parsed.status().message());
      return HttpResponseHeaders::NetErrorForParseFailure(parsed.status());
    }
    timing_->header_bytes += end;
    absl::string_view rest = filled.substr(scanned_end_);
    int code = parsed->status_code();
    if (code >= 100 && code < 200 && code != 101) {
      // Interim response: drop it and look for the final one in what
      // remains (DoReadHeaders moves that to the front before reading).
      interim_header_bytes_ += end;
      block_start_ = scanned_end_;
      header_scanner_.StartNextBlock();
      if (rest.empty()) {
        next_state_ = STATE_READ_HEADERS;
        return OK;
      }
      continue;
    }
    headers_ = std::move(*parsed);
    // At most one read beyond the headers: a constant, not the body.
    body_leftover_.assign(rest.data(), rest.size());
    body_leftover_offset_ = 0;
    read_buf_ = std::make_shared<GrowableIOBuffer>();
    block_start_ = 0;
    scanned_end_ = 0;
    SetUpBody();
    return OK;
  }
}

void HttpStreamParser::SetUpBody() {
  int code = headers_->status_code();
  // A response with both Transfer-Encoding and Content-Length may be an
  // attempt at response splitting, and an HTTP/1.0 one with
  // Transfer-Encoding has faulty framing (RFC 9112 6.1, 6.3 rule 3): follow
  // the Transfer-Encoding, but never reuse the connection. 101 leaves HTTP.
  if (headers_->HasTransferEncodingAndContentLength() ||
      (headers_->version() == 10 && headers_->HasTransferEncoding()) ||
      code == 101) {
    reusable_framing_ = false;
  }
  if (is_head_ || code == 204 || code == 304 || code == 101) {
    // Rule 1: no body, whatever the headers say.
    OnBodyComplete();
  } else if (headers_->IsChunked()) {
    // Rule 3 (chunked last).
    chunked_ = std::make_unique<HttpChunkedDecoder>();
  } else if (headers_->HasTransferEncoding()) {
    // Rule 4 (another coding last): until the close.
    close_delimited_ = true;
  } else if (headers_->content_length() >= 0) {
    // Rule 6: exactly Content-Length bytes; what came beyond them with the
    // headers is not body.
    body_remaining_ = headers_->content_length();
    if (static_cast<int64_t>(body_leftover_.size()) > body_remaining_) {
      body_leftover_.resize(static_cast<size_t>(body_remaining_));
      extra_data_ = true;
    }
    if (body_remaining_ == 0) OnBodyComplete();
  } else {
    // Rule 8: until the close.
    close_delimited_ = true;
  }
}

void HttpStreamParser::OnBodyComplete() {
  body_complete_ = true;
  if (body_leftover_offset_ < body_leftover_.size()) extra_data_ = true;
  body_leftover_.clear();
  body_leftover_.shrink_to_fit();
  body_leftover_offset_ = 0;
  if (timing_->response_end.is_null())
    timing_->response_end = clock_->NowTicks();
}

int HttpStreamParser::DoReadBody() {
  next_state_ = STATE_READ_BODY_COMPLETE;
  if (body_leftover_offset_ < body_leftover_.size()) {
    // Bytes that came with the headers first; the framing already cut them
    // to at most the Content-Length.
    size_t n = std::min<size_t>(user_len_,
                                body_leftover_.size() - body_leftover_offset_);
    std::memcpy(user_buf_->data(),
                body_leftover_.data() + body_leftover_offset_, n);
    body_leftover_offset_ += n;
    if (body_leftover_offset_ == body_leftover_.size()) {
      body_leftover_.clear();
      body_leftover_.shrink_to_fit();
      body_leftover_offset_ = 0;
    }
    return static_cast<int>(n);
  }
  int len = user_len_;
  if (body_remaining_ >= 0)
    len = static_cast<int>(std::min<int64_t>(len, body_remaining_));
  return socket_->Read(user_buf_, len,
                       [weak = weak_factory_.GetWeakPtr()](int rv) {
                         if (weak) weak->OnIOComplete(rv);
                       });
}

int HttpStreamParser::DoReadBodyComplete(int result) {
  if (result < 0) {
    error_detail_ = absl::StrCat("reading the response body failed: ",
                                 ErrorToShortString(result));
    return result;
  }
  if (result == 0) {
    // End of stream.
    if (chunked_ && !chunked_->reached_eof()) {
      error_detail_ = "connection closed inside the chunked body";
      return ERR_INCOMPLETE_CHUNKED_ENCODING;
    }
    if (body_remaining_ > 0) {
      error_detail_ = absl::StrCat("connection closed with ", body_remaining_,
                                   " bytes of the body missing");
      return ERR_CONTENT_LENGTH_MISMATCH;
    }
    OnBodyComplete();
    return 0;
  }
  int n = result;
  if (chunked_) {
    n = chunked_->FilterBuf(user_buf_->data(), result);
    if (n < 0) {
      error_detail_ =
          absl::StrCat("malformed chunked encoding: ", chunked_->error());
      return n;
    }
    if (chunked_->reached_eof()) {
      if (chunked_->bytes_after_eof() > 0) extra_data_ = true;
      OnBodyComplete();
    } else if (n == 0) {
      // Only framing bytes so far: read more. Bounded: chunk-size lines and
      // trailers have limits, and every other chunk carries payload.
      next_state_ = STATE_READ_BODY;
      return OK;
    }
  } else if (body_remaining_ >= 0) {
    // DoReadBody never asks for more than remains.
    body_remaining_ -= n;
    if (body_remaining_ == 0) OnBodyComplete();
  }
  timing_->body_bytes += n;
  if (n == 0 && body_complete_) return 0;
  return n;
}

bool HttpStreamParser::CanReuseConnection() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return body_complete_ && reusable_framing_ && !close_delimited_ &&
         !extra_data_ && headers_ && headers_->IsKeepAlive() &&
         body_leftover_.empty() && socket_->IsConnectedAndIdle();
}

}  // namespace net
