// Http2Stream: the HttpStream of HTTP/2 — one Http2SessionStream of a
// session in the Http2SessionPool, SpdyHttpStream's peer. Either a stream
// of the origin's open session ("reused"), of a session made for another
// origin that the pool coalesced this one onto ("pooled"), or the first
// stream of a new session on a connection whose TLS handshake chose h2
// ("new"): InitializeStream then starts the session and puts it into the
// pool, so the origin's other requests multiplex on it. The request goes
// out as an HTTP/2 header list (:method :authority :scheme :path, then the
// request's headers lower-cased, connection-specific ones dropped, and the
// RFC 9218 "priority" header of its priority) with its priority's weight and
// dependency; the response comes back as HTTP/1.1 response headers, so
// everything above reads every protocol alike. The trace gets the h2 facts
// (stream id, which session, the server's SETTINGS, the priority sent).
//
// Owned by HttpNetworkTransaction. The pool, the LoadTiming and the clock
// are not owned and must outlive it; the session may go away at any time
// (the stream then fails with ERR_HTTP2_SERVER_REFUSED_STREAM if its
// request never left, which the transaction retries).

#ifndef NET_HTTP_HTTP2_STREAM_H_
#define NET_HTTP_HTTP2_STREAM_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_stream.h"
#include "net/http2/http2_session.h"
#include "net/http2/http2_session_pool.h"
#include "net/timing/load_timing.h"

namespace net {

// MakeHttp2RequestHeaders builds the header list of |request| with our
// default user-agent and accept (the request's own win).
Http2Headers MakeHttp2RequestHeaders(const HttpRequestInfo& request);

class Http2Stream : public HttpStream {
 public:
  struct Params {
    LoadTiming* timing = nullptr;
    const TickClock* clock = DefaultTickClock::GetInstance();
    // For a new session.
    Http2SessionParams session;
    // For an open session: the origin's own (kReused) or another origin's
    // it was coalesced onto (kPooled).
    SessionUse use = SessionUse::kReused;
  };

  // A stream of the open |session|.
  Http2Stream(WeakPtr<Http2Session> session, Params params);
  // The first stream of a new session on |socket| (handshaken, ALPN h2):
  // InitializeStream starts the session, inserts it into |pool| and runs
  // |on_session_started| (requests waiting for the origin's connection may
  // look again).
  Http2Stream(std::unique_ptr<StreamSocket> socket, Http2SessionPool* pool,
              absl::AnyInvocable<void()> on_session_started, Params params);
  ~Http2Stream() override;
  Http2Stream(const Http2Stream&) = delete;
  Http2Stream& operator=(const Http2Stream&) = delete;

  // HttpStream:
  int InitializeStream(const HttpRequestInfo* request,
                       CompletionOnceCallback callback) override;
  int SendRequest(CompletionOnceCallback callback) override;
  // The HTTP/2 header list, pseudo-headers first.
  const std::vector<std::pair<std::string, std::string>>& request_headers_sent()
      const override {
    return headers_sent_;
  }
  int ReadResponseHeaders(CompletionOnceCallback callback) override;
  const HttpResponseHeaders* response_headers() const override;
  int ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                       CompletionOnceCallback callback) override;
  bool IsResponseBodyComplete() const override;
  std::unique_ptr<StreamSocket> ReleaseConnection(bool* reusable) override;
  const SSLInfo* GetSSLInfo() const override;
  TcpFastOpenInfo GetTcpFastOpenInfo() const override;
  const std::string& error_detail() const override { return error_detail_; }
  // A refused stream (REFUSED_STREAM, GOAWAY above it, a session gone
  // before its HEADERS left) goes to another session; so does one whose
  // reused session turned out dead (PING failed, connection closed or
  // reset) before any response.
  bool ShouldRetryOnAnotherStream(int error, bool* avoid_pooling) override;
  // A 421 on a reused or coalesced session: the session is told not to
  // carry the request's origin again (Http2Session::NoteMisdirected).
  bool ShouldRetryMisdirectedRequest() override;

 private:
  int OnResponseHeaders(int result);
  void OnBodyResult(int rv);
  // The session's facts into the trace (settings, id).
  void NoteSessionFacts();
  std::string StreamFailure(int error) const;

  WeakPtr<Http2Session> session_;
  std::unique_ptr<StreamSocket> socket_;
  Http2SessionPool* const pool_ = nullptr;
  absl::AnyInvocable<void()> on_session_started_;
  Params params_;
  // kNew, kReused or kPooled.
  const SessionUse use_;
  const HttpRequestInfo* request_ = nullptr;
  std::unique_ptr<Http2SessionStream> stream_;
  std::optional<HttpResponseHeaders> response_headers_;
  std::vector<std::pair<std::string, std::string>> headers_sent_;
  bool body_done_ = false;
  std::string error_detail_;
};

}  // namespace net

#endif  // NET_HTTP_HTTP2_STREAM_H_
