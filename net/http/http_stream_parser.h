// HttpStreamParser: HTTP/1.1 on one connected StreamSocket — writes a
// request, reads the response headers, then the body framed as RFC 9112
// section 6.3 says: HEAD, 1xx, 204 and 304 have none; Transfer-Encoding with
// chunked last is chunked (and wins over Content-Length); another
// Transfer-Encoding, or no framing header, runs until the connection closes;
// otherwise exactly Content-Length bytes. Bytes beyond a complete response
// are never body: they are dropped, and the connection is not reused. Nor is
// it after a response with both Transfer-Encoding and Content-Length (a
// possible response-splitting attempt: we follow the chunked framing but do
// not trust the connection afterwards), or an HTTP/1.0 response with
// Transfer-Encoding (RFC 9112 6.1).
//
// Memory is bounded by constants, never by the body: ReadResponseBody hands
// out what it has (bytes that came with the headers first) and otherwise
// reads at most |len| bytes from the socket straight into the caller's
// buffer. Header blocks, interim responses included, are capped at
// kMaxHeaderBytes, and HttpHeaderScanner looks at each of their bytes once
// (a read of one byte costs O(1), not a rescan); chunked framing is bounded
// by HttpChunkedDecoder's limits.
//
// The socket, the LoadTiming and the clock are not owned and must outlive the
// parser.
// One request at a time.

#ifndef NET_HTTP_HTTP_STREAM_PARSER_H_
#define NET_HTTP_HTTP_STREAM_PARSER_H_

#include <memory>
#include <optional>
#include <string>

#include "net/base/io_buffer.h"
#include "net/base/thread_checker.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_chunked_decoder.h"
#include "net/http/http_header_scanner.h"
#include "net/http/http_response_headers.h"
#include "net/socket/stream_socket.h"
#include "net/timing/load_timing.h"

namespace net {

class HttpStreamParser {
 public:
  // Responses whose headers, interim (1xx) responses included, exceed this
  // fail with ERR_RESPONSE_HEADERS_TOO_BIG.
  static constexpr int kMaxHeaderBytes = 256 * 1024;

  HttpStreamParser(StreamSocket* socket, LoadTiming* timing,
                   const TickClock* clock = DefaultTickClock::GetInstance());
  ~HttpStreamParser();

  // SendRequest writes |request| (request line, headers, blank line).
  int SendRequest(const std::string& request, bool is_head,
                  CompletionOnceCallback callback);
  // ReadResponseHeaders reads until the final (non-1xx) header block.
  int ReadResponseHeaders(CompletionOnceCallback callback);
  const HttpResponseHeaders* response_headers() const {
    return headers_ ? &*headers_ : nullptr;
  }
  // ReadResponseBody: bytes read (> 0, at most |len|), 0 when the body is
  // complete, an error, or ERR_IO_PENDING. |len| must be positive.
  int ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                       CompletionOnceCallback callback);
  bool IsResponseBodyComplete() const { return body_complete_; }
  // CanReuseConnection: body complete, keep-alive, framing trustworthy,
  // nothing beyond the response received.
  bool CanReuseConnection() const;
  const std::string& error_detail() const { return error_detail_; }
  // Bytes of the response's header blocks the scanner has examined: each
  // once, so at most the header bytes received plus one (tests check the
  // header block is read in linear time, however it is cut into reads).
  uint64_t header_bytes_scanned() const {
    return header_scanner_.bytes_examined();
  }

 private:
  enum State {
    STATE_NONE,
    STATE_SEND_REQUEST,
    STATE_SEND_REQUEST_COMPLETE,
    STATE_READ_HEADERS,
    STATE_READ_HEADERS_COMPLETE,
    STATE_READ_BODY,
    STATE_READ_BODY_COMPLETE,
  };

  int DoLoop(int result);
  int DoSendRequest();
  int DoSendRequestComplete(int result);
  int DoReadHeaders();
  int DoReadHeadersComplete(int result);
  int DoReadBody();
  int DoReadBodyComplete(int result);
  void OnIOComplete(int result);
  // Parses the header blocks in read_buf_: skips interim responses, sets up
  // the body after the final one, or asks for more bytes.
  int ProcessHeaderBuffer();
  // Decides the body framing from headers_ (RFC 9112 6.3).
  void SetUpBody();
  // The body is complete: anything still held is beyond the response.
  void OnBodyComplete();

  StreamSocket* const socket_;
  LoadTiming* const timing_;
  const TickClock* const clock_;
  State next_state_ = STATE_NONE;
  CompletionOnceCallback callback_;

  std::shared_ptr<DrainableIOBuffer> request_buf_;
  bool is_head_ = false;

  std::shared_ptr<GrowableIOBuffer> read_buf_;
  // Finds the end of each header block as the bytes arrive, and holds them
  // all (interim blocks too) to kMaxHeaderBytes.
  HttpHeaderScanner header_scanner_{kMaxHeaderBytes};
  // In read_buf_: where the current header block starts (past interim
  // blocks already parsed) and how far the scanner has looked.
  size_t block_start_ = 0;
  size_t scanned_end_ = 0;
  // Bytes of interim (1xx) header blocks already parsed and dropped.
  int64_t interim_header_bytes_ = 0;
  std::optional<HttpResponseHeaders> headers_;
  // Body bytes that arrived with the headers (at most what the framing
  // allows); handed out from |body_leftover_offset_| on.
  std::string body_leftover_;
  size_t body_leftover_offset_ = 0;

  std::shared_ptr<IOBuffer> user_buf_;
  int user_len_ = 0;
  int64_t body_remaining_ = -1;  // for Content-Length bodies
  std::unique_ptr<HttpChunkedDecoder> chunked_;
  bool body_complete_ = false;
  bool close_delimited_ = false;
  // Bytes arrived beyond the end of the response.
  bool extra_data_ = false;
  // False when the framing itself makes the connection untrustworthy.
  bool reusable_framing_ = true;
  std::string error_detail_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<HttpStreamParser> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP_HTTP_STREAM_PARSER_H_
