// HttpStream: one request and its response over one protocol, on a
// connection (or session) someone else made — the seam between "connect"
// and "stream" in HttpNetworkTransaction (Chromium's HttpStream). One
// implementation per protocol: HttpBasicStream (HTTP/1.1 over a socket,
// with HttpStreamParser) and SpdyHttpStream (a stream of a SPDY/3 session);
// HTTP/2 and HTTP/3 streams go beside them.
//
// The transaction owns its stream. The request, the LoadTiming and the clock
// a stream is given are not owned and must outlive it. Every method follows
// the net error contract: OK (or a count), a net error, or ERR_IO_PENDING and
// the callback runs once, later, never after the stream is destroyed. The
// calls come in order: InitializeStream, SendRequest, ReadResponseHeaders,
// then ReadResponseBody until it returns 0 or an error.

#ifndef NET_HTTP_HTTP_STREAM_H_
#define NET_HTTP_HTTP_STREAM_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/base/io_buffer.h"
#include "net/base/net_errors.h"
#include "net/http/http_request_info.h"
#include "net/http/http_response_headers.h"
#include "net/socket/stream_socket.h"
#include "net/ssl/ssl_info.h"

namespace net {

class HttpStream {
 public:
  virtual ~HttpStream() = default;

  // InitializeStream readies the stream for |request| (kept by pointer):
  // SPDY fetches the origin-bound certificate to present and opens the
  // session on a new connection; HTTP/1.1 has nothing to do.
  virtual int InitializeStream(const HttpRequestInfo* request,
                               CompletionOnceCallback callback) = 0;
  // SendRequest sends the request and the upload body; stamps the trace's
  // request_start.
  virtual int SendRequest(CompletionOnceCallback callback) = 0;
  // The request headers SendRequest put on the wire, the stream's own
  // (Host, User-Agent, ...) included, in order; empty before.
  virtual const std::vector<std::pair<std::string, std::string>>&
  request_headers_sent() const = 0;
  // ReadResponseHeaders: OK once the final response head is in
  // (response_headers()); stamps response_start.
  virtual int ReadResponseHeaders(CompletionOnceCallback callback) = 0;
  // The response head, as HTTP/1.1 headers whatever the protocol; null
  // before.
  virtual const HttpResponseHeaders* response_headers() const = 0;
  // ReadResponseBody: bytes (> 0, at most |len|), 0 at the end of the body,
  // an error, or ERR_IO_PENDING. Counts body bytes and stamps response_end.
  virtual int ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                               CompletionOnceCallback callback) = 0;
  virtual bool IsResponseBodyComplete() const = 0;
  // Once the body is complete: the connection this stream had to itself,
  // and in |*reusable| whether it may carry another request (HTTP/1.1
  // keep-alive); null for a stream of a shared session, which keeps it.
  virtual std::unique_ptr<StreamSocket> ReleaseConnection(bool* reusable) = 0;
  // The TLS facts of the connection under the stream (null without TLS):
  // read again after the response for a Snap Start or 0-RTT outcome.
  virtual const SSLInfo* GetSSLInfo() const = 0;
  // What the connection under the stream did with TCP Fast Open.
  virtual TcpFastOpenInfo GetTcpFastOpenInfo() const = 0;
  // Why the last call failed, for the fetch tool.
  virtual const std::string& error_detail() const = 0;

  // After |error| ended the stream before its response: true if nothing of
  // the request was processed and it may go again on another stream (a new
  // or another session), saying why in the trace; with |*avoid_pooling|,
  // only on a connection of the origin's own. HTTP/1.1 has no such errors
  // (its connection-level retries are the transaction's).
  virtual bool ShouldRetryOnAnotherStream(int error, bool* avoid_pooling) {
    return false;
  }
  // After a 421 (Misdirected Request) response: true if the request should
  // go again on a new connection of its origin's own, because the stream's
  // connection was shared (a coalesced or reused HTTP/2 session; the stream
  // tells the session not to carry the origin again and says so in the
  // trace). False for a connection made for this request: its 421 is the
  // response.
  virtual bool ShouldRetryMisdirectedRequest() { return false; }

  // After |error| ended the stream before its request left: true if the
  // stream's own connection (QUIC's, which Http3Stream makes itself)
  // failed in a way TCP may not, so the request should go again over TCP;
  // |*reason| says why, for the trace. Only Http3Stream has such errors.
  virtual bool ShouldFallBackToTcp(int error, std::string* reason) {
    return false;
  }
};

}  // namespace net

#endif  // NET_HTTP_HTTP_STREAM_H_
