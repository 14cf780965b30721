// Http3Stream: the HttpStream of HTTP/3 (issue 25) — one Http3SessionStream
// of the origin's Http3Session (net/quic), Http2Stream's peer. Unlike the
// TCP streams it makes its own connection: InitializeStream finds the
// origin's session in the Http3SessionPool (open: "reused"; still
// handshaking for another request: waits for it, then "reused"), or
// resolves the host (the session's resolver, --connect-to applied), opens
// a UDP socket from the ClientSocketFactory and runs the QUIC handshake
// with the shared QuicClientContext ("new"), putting the session into the
// pool so the origin's other requests multiplex on it.
//
// The request goes out as HTTP/2's header list (MakeHttp2RequestHeaders:
// RFC 9114 4.2 asks the same of HTTP/3 — lower-case names, no
// connection-specific fields, :authority); the response comes back as
// HTTP/1.1 response headers. The trace gets dns, connect and TLS points
// filled as Chromium fills them for QUIC (connectStart..connectEnd the QUIC
// handshake, secureConnectionStart = connectStart), the handshake's tls
// and cert facts, and the quic object.
//
// The QUIC handshake is a TLS 1.3 handshake: when this stream's own
// connection's handshake ends (OK or its error; not for a session it
// shares), Params::tls_observer hears of it as of a TCP connection's
// (TlsHandshakeObserver's contract: the trace's tls facts filled in, the
// quic object's session "new"), so net/context adds the same cert.* facts.
// A session opened early for 0-RTT ends its handshake after Connect's OK:
// the observer hears of it when the response headers come (or the request
// fails), as TCP's 0-RTT is reported.
//
// A failure of the QUIC connection itself (no UDP answer, ICMP refused, a
// handshake that fails or times out, version negotiation) before any
// request went out says ShouldFallBackToTcp, with the reason; the
// transaction then retries over TCP. Certificate and DNS errors do not
// fall back: TCP would meet them too.
//
// Owned by HttpNetworkTransaction. Everything in Params is not owned and
// must outlive the stream; the session may go away at any time.

#ifndef NET_HTTP_HTTP3_STREAM_H_
#define NET_HTTP_HTTP3_STREAM_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dns/host_resolver.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/http/http_stream.h"
#include "net/quic/http3_session.h"
#include "net/quic/http3_session_pool.h"
#include "net/quic/quic_client_context.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/connect_to.h"
#include "net/timing/load_timing.h"

namespace net {

class TlsHandshakeObserver;

class Http3Stream : public HttpStream {
 public:
  struct Params {
    LoadTiming* timing = nullptr;
    const TickClock* clock = DefaultTickClock::GetInstance();
    HostResolver* resolver = nullptr;
    ClientSocketFactory* socket_factory = nullptr;
    QuicClientContext* quic_context = nullptr;
    Http3SessionPool* pool = nullptr;
    const ConnectToRules* connect_to = nullptr;
    // An Alt-Svc alternative to connect to instead of the URL's host:port
    // (port 0: none; an empty host: the URL's). The certificate is still
    // verified for the URL's host (RFC 7838 2.1).
    std::string alt_host;
    uint16_t alt_port = 0;
    // Told when this stream's own QUIC handshake ends, OK or not (null:
    // nobody).
    TlsHandshakeObserver* tls_observer = nullptr;
    // For a new connection (host, port and clock are filled in).
    QuicSessionParams quic;
    Http3SessionParams http3;
  };

  explicit Http3Stream(Params params);
  ~Http3Stream() override;
  Http3Stream(const Http3Stream&) = delete;
  Http3Stream& operator=(const Http3Stream&) = delete;

  // OpenSession opens a new QUIC connection for |origin| to |peer| (whose
  // port params.quic.port names) and puts it into params.pool, so the
  // origin's requests multiplex on it; |*result| is its Connect's (OK, a
  // named error, or ERR_IO_PENDING: |callback| then gets it). Requests
  // (DoConnect) and the Preconnector open sessions through it.
  static Http3Session* OpenSession(const Params& params, const Origin& origin,
                                   const IPEndPoint& peer,
                                   CompletionOnceCallback callback,
                                   int* result);

  // Whether |error|, ending a QUIC connection before any request left, is
  // QUIC's own trouble (TCP may well work) rather than one TCP would meet
  // too (a certificate, a name that does not resolve).
  static bool IsQuicConnectFailure(int error);

  // SetResolved: the connection's lookup was made (a TCP connect job's,
  // whose DNS HTTPS record offered h3): a new connection goes to its first
  // address, on the record's port (the URL's without one), with no lookup
  // of its own. Before InitializeStream.
  void SetResolved(HostResolveResult lookup);

  // HttpStream:
  int InitializeStream(const HttpRequestInfo* request,
                       CompletionOnceCallback callback) override;
  int SendRequest(CompletionOnceCallback callback) override;
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
  TcpFastOpenInfo GetTcpFastOpenInfo() const override {
    return TcpFastOpenInfo();
  }
  const std::string& error_detail() const override { return error_detail_; }
  // GOAWAY or H3_REQUEST_REJECTED: another session (a new connection).
  bool ShouldRetryOnAnotherStream(int error, bool* avoid_pooling) override;
  // The QUIC connection failed before the request left: TCP instead.
  bool ShouldFallBackToTcp(int error, std::string* reason) override;

 private:
  enum State {
    STATE_NONE,
    STATE_FIND_SESSION,
    STATE_WAIT_FOR_SESSION_COMPLETE,
    STATE_RESOLVE,
    STATE_RESOLVE_COMPLETE,
    STATE_CONNECT,
    STATE_CONNECT_COMPLETE,
    STATE_CREATE_STREAM,
  };
  int DoLoop(int result);
  int DoFindSession();
  int DoWaitForSessionComplete(int result);
  int DoResolve();
  int DoResolveComplete(int result);
  int DoConnect();
  int DoConnectComplete(int result);
  int DoCreateStream();
  void OnIOComplete(int result);

  int OnResponseHeaders(int result);
  void OnBodyResult(int rv);
  // The connection's facts into the trace (tls, quic).
  void NoteConnectionFacts();
  // The QUIC connection this stream used (or waited for) failed before its
  // handshake completed.
  bool FailedBeforeHandshake();
  std::string StreamFailure(int error) const;
  // Tells Params::tls_observer of a deferred (0-RTT) handshake's end: OK if
  // the session's handshake completed, else |error|.
  void NotifyDeferredHandshake(int error);

  Params params_;
  State next_state_ = STATE_NONE;
  CompletionOnceCallback callback_;
  const HttpRequestInfo* request_ = nullptr;
  Origin origin_;
  HostResolveResult resolved_;
  // SetResolved's lookup.
  std::optional<HostResolveResult> preresolved_;
  std::unique_ptr<HostResolver::Request> resolve_request_;
  WeakPtr<Http3Session> session_;
  bool new_session_ = false;
  // The QUIC connection failed before any request went out on it.
  bool connect_failed_ = false;
  int connect_error_ = OK;
  // Whether this stream's session has completed its handshake, as last
  // seen (NoteConnectionFacts). A session opened early for 0-RTT reports
  // its connect as OK at once; if it then fails before the handshake
  // completes, that is still a failure to connect (ShouldFallBackToTcp).
  bool session_handshake_done_ = false;
  bool on_session_ = false;  // session_ was set (it may be gone since)
  // This stream's own session opened early (0-RTT): Params::tls_observer
  // hears of the handshake once it has really ended (the response headers
  // came, or the request failed), not at Connect's early OK.
  bool tls_observer_deferred_ = false;
  std::unique_ptr<Http3SessionStream> stream_;
  std::optional<HttpResponseHeaders> response_headers_;
  std::vector<std::pair<std::string, std::string>> headers_sent_;
  SSLInfo ssl_info_;
  bool body_done_ = false;
  std::string error_detail_;
  WeakPtrFactory<Http3Stream> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP_HTTP3_STREAM_H_
