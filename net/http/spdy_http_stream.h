// SpdyHttpStream: the HttpStream of SPDY/3 — one SpdyStream of a session in
// the session pool. Either a stream of an open session (the origin's own,
// or one it was pooled onto by IP), or the first stream of a new session
// on a connection whose TLS handshake chose spdy/3: InitializeStream then
// puts the session into the pool. InitializeStream also fetches the
// origin-bound certificate to present on the session (CREDENTIAL frames),
// when the session's handshake presented one. The SYN_REPLY comes back as
// HTTP/1.1 response headers, so everything above reads both protocols
// alike; the trace gets the SPDY facts (stream id, credential slot, which
// session).
//
// Owned by HttpNetworkTransaction. The pool, the LoadTiming, the clock, the
// certificate provider and the ClientCert slot in Params are not owned and
// must outlive it; the session may go away at any time (the stream then
// fails with ERR_SPDY_SERVER_REFUSED_STREAM, which the transaction retries).

#ifndef NET_HTTP_SPDY_HTTP_STREAM_H_
#define NET_HTTP_SPDY_HTTP_STREAM_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "cert/obc/client_cert_provider.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_stream.h"
#include "net/spdy/spdy_session.h"
#include "net/spdy/spdy_session_pool.h"
#include "net/spdy/spdy_stream.h"
#include "net/timing/load_timing.h"

namespace net {

class SpdyHttpStream : public HttpStream {
 public:
  struct Params {
    LoadTiming* timing = nullptr;
    const TickClock* clock = DefaultTickClock::GetInstance();
    // Origin-bound certificates (null: none).
    ClientCertProvider* cert_provider = nullptr;
    // Where the origin's certificate is kept across the request's retries
    // (fetched once; empty cert_der: none). Required.
    ClientCert* client_cert = nullptr;
    // The session was made for another origin (IP pooling).
    bool pooled = false;
  };

  // A stream of the open |session|.
  SpdyHttpStream(WeakPtr<SpdySession> session, Params params);
  // The first stream of a new session on |socket| (handshaken, ALPN
  // spdy/3): InitializeStream starts the session, inserts it into |pool|
  // and runs |on_session_started| (the origin's session exists: requests
  // waiting for it may look again).
  SpdyHttpStream(std::unique_ptr<StreamSocket> socket, SpdySessionPool* pool,
                 absl::AnyInvocable<void()> on_session_started, Params params);
  ~SpdyHttpStream() override;
  SpdyHttpStream(const SpdyHttpStream&) = delete;
  SpdyHttpStream& operator=(const SpdyHttpStream&) = delete;

  // HttpStream:
  int InitializeStream(const HttpRequestInfo* request,
                       CompletionOnceCallback callback) override;
  int SendRequest(CompletionOnceCallback callback) override;
  // The SPDY/3 header block, as name-value pairs (":method", ":path", ...).
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
  // A refused stream (GOAWAY, or the session gone) goes to another session;
  // INVALID_CREDENTIALS or an OBC that cannot be presented on a pooled
  // session, to a direct connection.
  bool ShouldRetryOnAnotherStream(int error, bool* avoid_pooling) override;

 private:
  Origin RequestOrigin() const;
  // The certificate is in (or failed): the session, for a new connection.
  int OnClientCertDone(int result);
  void StartSession();
  int OnResponseHeaders(int result);
  // A reset after every byte the Content-Length promised loses nothing.
  int SettleBodyResult(int rv) const;
  void OnBodyResult(int rv);

  WeakPtr<SpdySession> session_;
  // A new connection, until the session takes it.
  std::unique_ptr<StreamSocket> socket_;
  SpdySessionPool* const pool_ = nullptr;
  absl::AnyInvocable<void()> on_session_started_;
  Params params_;
  const HttpRequestInfo* request_ = nullptr;
  std::unique_ptr<ClientCertProvider::Request> cert_request_;
  CompletionOnceCallback init_callback_;
  std::unique_ptr<SpdyStream> stream_;
  std::optional<HttpResponseHeaders> response_headers_;
  std::vector<std::pair<std::string, std::string>> headers_sent_;
  bool body_done_ = false;
  std::string error_detail_;
  WeakPtrFactory<SpdyHttpStream> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP_SPDY_HTTP_STREAM_H_
