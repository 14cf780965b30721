// HttpNetworkTransaction: one HTTP request, end to end: connect, then
// stream.
//
// Start() runs the DoLoop
//   INIT_CONNECTION -> CONNECT -> INIT_STREAM -> SEND_REQUEST -> READ_HEADERS
// and completes when the response headers are in; Read() then streams the
// body. The connection comes from an idle keep-alive connection of the
// origin, an open SPDY session (the origin's, or one it is IP-pooled onto),
// or a ConnectJob (SSLConnectJob for https, TransportConnectJob for http:
// resolve, each address in turn, TLS); its stamps go into the LoadTiming.
// Through an HTTP proxy (HttpNetworkSessionParams::proxy), an http URL's
// connection is an HttpProxyConnectJob's to the proxy and its request goes
// in absolute form; an https URL's SSLConnectJob runs TLS through a CONNECT
// tunnel. The origin's name is then never resolved here, IP pooling and TCP
// Fast Open are off, and the trace's proxy says which proxy.
// What the connection is (and the protocol its handshake chose) picks the
// HttpStream — HttpBasicStream (HTTP/1.1) or SpdyHttpStream — and
// everything after CONNECT goes through that interface alone. At
// INIT_CONNECTION an HTTP/1.1 request takes one of its origin's connection
// slots (HttpNetworkSession::RequestSocketSlot), or waits for one when the
// origin already has max_sockets_per_group connections. Cookies are not the
// transaction's business: URLRequest (net/url_request) adds the jar's Cookie
// header to the request and stores the response's Set-Cookie headers. A
// failure
// before the response may start the request over on a new connection
// (a stale idle connection, a rejected Snap Start attempt or early data, a
// refused SPDY stream, INVALID_CREDENTIALS on a pooled session).
//
// The session's request_timeout is a deadline for the whole request, body
// included. It fires from a timer when the transaction waits, and Read()
// checks it too, so it holds for a caller that keeps reading synchronous
// results without ever returning to the event loop. Once passed, Start's
// callback or Read returns ERR_TIMED_OUT, and so does every later Read.
//
// The session must outlive the transaction. Destroying the transaction
// cancels it; no callback runs afterwards.

#ifndef NET_HTTP_HTTP_NETWORK_TRANSACTION_H_
#define NET_HTTP_HTTP_NETWORK_TRANSACTION_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cert/obc/client_cert_provider.h"
#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/base/url.h"
#include "net/base/weak_ptr.h"
#include "net/http/http2_stream.h"
#include "net/http/http3_stream.h"
#include "net/http/http_network_session.h"
#include "net/http/http_request_info.h"
#include "net/http/http_stream.h"
#include "net/http/spdy_http_stream.h"
#include "net/socket/connect_job.h"
#include "net/spdy/spdy_session.h"
#include "net/timing/load_timing.h"

namespace net {

class HttpNetworkTransaction {
 public:
  explicit HttpNetworkTransaction(HttpNetworkSession* session);
  ~HttpNetworkTransaction();

  // Start: OK, a net error, or ERR_IO_PENDING. |request| is copied.
  int Start(const HttpRequestInfo& request, CompletionOnceCallback callback);
  // Read reads the body: bytes (> 0, at most |len|), 0 at the end, an
  // error, or pending. Only what has arrived is handed out; nothing is
  // buffered beyond a constant. ERR_TIMED_OUT once the request deadline has
  // passed, even if more data is at hand.
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback);

  const HttpResponseHeaders* response_headers() const;
  const LoadTiming& load_timing() const { return timing_; }
  // For the layer above to add what it did (URLRequest: device bound
  // sessions).
  LoadTiming* mutable_load_timing() { return &timing_; }
  // A human-readable explanation of the last error.
  const std::string& error_detail() const { return error_detail_; }
  // The request headers as they went on the wire (the stream's own, such
  // as Host and User-Agent, included); empty until the request was sent.
  const std::vector<std::pair<std::string, std::string>>& request_headers_sent()
      const {
    return request_headers_sent_;
  }

 private:
  enum State {
    STATE_NONE,
    STATE_INIT_CONNECTION,
    STATE_CONNECT,
    STATE_CONNECT_COMPLETE,
    STATE_INIT_STREAM,
    STATE_INIT_STREAM_COMPLETE,
    STATE_SEND_REQUEST,
    STATE_SEND_REQUEST_COMPLETE,
    STATE_READ_HEADERS,
    STATE_READ_HEADERS_COMPLETE,
  };

  int DoLoop(int result);
  int DoInitConnection();
  int DoConnect();
  int DoConnectComplete(int result);
  // The TLS handshake of the connect job ended (|result|): its facts into
  // the trace, the observer told.
  void OnHandshakeDone(int result);
  int DoInitStream();
  int DoInitStreamComplete(int result);
  int DoSendRequest();
  int DoSendRequestComplete(int result);
  int DoReadHeaders();
  int DoReadHeadersComplete(int result);
  // The connect job's OnHostResolved hook (SPDY IP pooling): an open
  // session to one of |result|'s addresses whose certificate covers the
  // host carries the request (the job ends; DoConnectComplete takes the
  // session), or, when another request is connecting to the first address,
  // the job waits for it and looks again.
  // With |pooling| false, only the HTTPS record's HTTP/3 discovery (below)
  // runs: a record that applies and offers h3 ends the job and the request
  // goes over HTTP/3 (DoConnectComplete); an h3-only record ends a TCP
  // job, which starts again without HTTPS records.
  int OnHostResolved(const HostResolveResult& result, bool pooling);
  // HTTP/3 from the DNS HTTPS record (HttpNetworkSessionParams::
  // h3_https_rr): whether a TCP connection's lookup may send the request
  // to QUIC instead.
  bool Http3FromHttpsRecordAllowed() const;
  // The HTTPS record's endpoint for HTTP/3: the record's addresses, port.
  int UseHttp3FromHttpsRecord();
  // Copies what the connect job stamped into the trace.
  void MergeConnectTiming();
  // Keeps the connect job's transport handshake time (an RTT sample).
  void NoteTransportHandshake();
  // SPDY: whether this request may use a SPDY session (https, spdy/3
  // offered, not after the server asked for a direct connection).
  bool SpdyAllowed() const;
  // Takes the open |session| for this request (the origin's own: "reused",
  // or another origin's: "pooled") and goes on to its stream.
  int UseSpdySession(WeakPtr<SpdySession> session);
  SpdyHttpStream::Params SpdyStreamParams();
  // HTTP/2: whether this request may use an HTTP/2 session (https, h2
  // offered, the server not known to require HTTP/1.1).
  bool H2Allowed() const;
  // The server answered HTTP/2 with HTTP_1_1_REQUIRED (this request, or
  // an earlier one: HttpServerProperties).
  bool RequiresHttp11() const;
  Origin RequestOrigin() const;
  // The request's key in the Http2SessionPool: origin and proxy.
  Http2SessionKey H2Key() const;
  // Takes the open HTTP/2 |session| and goes on to its stream: the origin's
  // own (|coalesced_by| kNone) or another origin's it was coalesced onto.
  // |made_own_connection|: the request made a connection (then closed) and
  // found the session once it was ready; the trace keeps its times.
  int UseHttp2Session(WeakPtr<Http2Session> session, CoalescedBy coalesced_by,
                      bool made_own_connection = false);
  // An open session could have carried the request but did not, for
  // |reason| (the first one is kept for the trace).
  void NoteNotCoalesced(const std::string& reason);
  // A new HTTP/2 session on |socket| (its handshake chose h2) carries the
  // request: the stream starts it and puts it into the pool.
  void StartHttp2Session(std::unique_ptr<StreamSocket> socket);
  Http2Stream::Params Http2StreamParams();
  // Ends this request's claim on making the origin's connection.
  void EndSpdyConnect();
  // HTTP/3 (issue 25): whether this request goes over QUIC (https, the
  // session's http3 switch, no proxy, QUIC not failed for it or broken for
  // the origin; a broken origin's reason goes in the trace).
  bool Http3Allowed();
  // The request's stream is an Http3Stream (it connects by itself).
  int UseHttp3();
  // The QUIC connection failed before the request left
  // (HttpStream::ShouldFallBackToTcp): the origin is marked broken for
  // QUIC and the request starts over at INIT_CONNECTION on TCP, the reason
  // in the trace. False (nothing changed) otherwise.
  bool MaybeFallBackToTcp(int error);
  // Alt-Svc: remembers the response's h3 alternative for the origin
  // (HttpNetworkSessionParams::alt_svc_h3).
  void NoteAltSvc();
  // The stream failed before a response and says the request may go again
  // on another stream (HttpStream::ShouldRetryOnAnotherStream): starts over
  // at INIT_CONNECTION, at most 3 times. False (nothing changed) if not.
  bool MaybeRetryOnAnotherStream(int error);
  // ERR_HTTP_1_1_REQUIRED (RST_STREAM or GOAWAY HTTP_1_1_REQUIRED): notes
  // the server in HttpServerProperties and starts over at INIT_CONNECTION,
  // offering only http/1.1, once. False (nothing changed) otherwise.
  bool MaybeRetryOverHttp11(int error);
  // Drops the stream and clears what the trace said of its connection, for
  // a retry from INIT_CONNECTION.
  void StartOverForRetry();
  // The stream failed before a response: MaybeRetryOnAnotherStream or
  // MaybeRetryOnNewConnection, whichever applies.
  bool MaybeRetry(int error);
  void OnIOComplete(int result);
  // The request deadline passed (from its timer, or noticed by Read): drops
  // the work in flight, says in error_detail() what was going on (with
  // |body_read_pending|, a body read was waiting for data), and returns
  // ERR_TIMED_OUT. Runs no callback.
  int TimeOut(bool body_read_pending);
  void OnRequestTimeout();
  bool DeadlinePassed() const;
  // After a rejected Snap Start attempt and its retry, says so in the
  // trace's ssl facts.
  void NoteSnapStartRejection();
  // TLS 1.3 early data: whether this request may go as 0-RTT (GET or HEAD
  // without a body, not after a rejection), and, after a rejected attempt
  // and its retry, says so in the trace's ssl facts.
  bool CanSendEarlyData() const;
  // Whether the network may replay the request without harm (GET or HEAD
  // without a body, RFC 8470 section 2.1): the rule for 0-RTT and for a
  // plain request in a TCP Fast Open SYN.
  bool IsReplaySafe() const;
  void NoteEarlyDataRejection();
  // A reused idle connection failed before any response, or a Snap Start
  // attempt or early data was rejected: retry on a new connection. Returns
  // false (and changes nothing) otherwise.
  bool MaybeRetryOnNewConnection(int error);
  // Drops the connection and the parser and clears what the trace said of
  // them, then connects again: to the addresses already resolved with
  // |reuse_addresses|, else after a new lookup (for a stale idle one).
  void StartOverOnANewConnection(bool reuse_addresses);
  // The body is complete (|result| >= 0) or failed: stop the deadline, and
  // return a reusable connection to the idle pool.
  void OnBodyDone(int result);
  void Finish(int result);
  // The connection group: origin, and the proxy if any
  // (HttpNetworkSession::GroupKey).
  std::string PoolKey() const;
  // The proxy of an http URL's HttpBasicStream (absolute form), else null.
  const ProxyServer* ProxyForStream() const;
  CompletionOnceCallback IOCallback();

  HttpNetworkSession* const session_;
  HttpRequestInfo request_;
  State next_state_ = STATE_NONE;
  CompletionOnceCallback callback_;
  LoadTiming timing_;
  std::string error_detail_;
  std::vector<std::pair<std::string, std::string>> request_headers_sent_;

  // The HTTP proxy this request goes through (the session's ProxyConfig
  // decides at Start), or none.
  std::optional<ProxyServer> proxy_;
  // The connection being made.
  std::unique_ptr<ConnectJob> connect_job_;
  // The addresses of the last lookup and the one connected to, for a retry
  // on a new connection that needs no new lookup.
  HostResolveResult resolve_result_;
  size_t address_index_ = 0;
  bool reuse_addresses_ = false;
  // TCP Fast Open: how long the new connection's transport step took
  // (NoteTransportHandshake), an RTT sample when it asked for no Fast Open.
  absl::Duration transport_handshake_ = absl::ZeroDuration();
  // The OnHostResolved hook found this session to pool onto.
  WeakPtr<SpdySession> pooled_session_;
  bool found_pooled_session_ = false;
  // The OnHostResolved hook found this HTTP/2 session to coalesce onto.
  WeakPtr<Http2Session> h2_session_found_;
  bool found_h2_session_ = false;
  // A 421 on a shared HTTP/2 session: the retry uses a new connection of
  // the origin's own (no open session, no coalescing, no waiting), once.
  bool dedicated_h2_connection_ = false;
  bool misdirected_retried_ = false;
  // HTTP_1_1_REQUIRED: this request goes over HTTP/1.1 only.
  bool http11_required_ = false;
  // The request's stream: HttpBasicStream or SpdyHttpStream, chosen by how
  // the connection was had (an idle one, an open SPDY session, or the
  // protocol a new connection's handshake chose).
  std::unique_ptr<HttpStream> stream_;
  // This request's slot under the session's per-group connection limit
  // (HTTP/1.1), held while it connects and uses socket_.
  std::unique_ptr<HttpNetworkSession::SocketSlot> socket_slot_;
  bool reused_socket_ = false;
  // The TLS handshake completed before the server answered (a Snap Start
  // attempt): its facts are read again, and the observer told again, once
  // the response headers are in.
  bool handshake_awaits_response_ = false;
  // SPDY.
  // This request is making its origin's connection (others wait on it).
  bool owns_spdy_connect_ = false;
  // This request is making the connection to this address ("ip:a:port"),
  // so requests for other origins that resolve to it wait to be pooled.
  std::string spdy_ip_key_;
  // A stream asked for a connection of the origin's own (INVALID_CREDENTIALS
  // on a pooled SPDY session): no pooling for this request any more.
  bool no_pooling_ = false;
  // Retries on another stream (at most 3).
  int stream_retries_ = 0;
  // HTTP/3: QUIC failed for this request; it goes over TCP from now on.
  bool http3_failed_ = false;
  // The Alt-Svc alternative this request's HTTP/3 attempt goes to.
  std::optional<AltSvcCache::Alternative> alt_svc_;
  // The lookup whose HTTPS record sent this request to HTTP/3 (the hook
  // ended the TCP job; DoConnectComplete takes it).
  std::optional<HostResolveResult> h3_record_lookup_;
  // The record, in words, for the trace's quic.httpsRecord (kept across
  // a fallback).
  std::string h3_record_;
  // The lookup brought a record whose ALPN set has only h3: TCP connects
  // without HTTPS records (the origin's own addresses); the record, for the
  // trace's dns.httpsRecord (status "ignored" for TCP).
  bool tcp_without_https_record_ = false;
  std::optional<HttpsRecordInfo> h3_only_record_;
  bool restart_tcp_without_record_ = false;
  // The OBC for the request's origin (presented on the session), fetched
  // once across retries by the SpdyHttpStream.
  ClientCert client_cert_;
  OneShotTimer request_timer_;
  // When the request deadline passes, on the event loop's clock (that of
  // |request_timer_|); null for none.
  TimeTicks deadline_;
  // When body bytes last arrived (or the headers did), for the stall message.
  TimeTicks last_progress_;
  // Set once the request failed for good (a timeout): every later Read
  // returns it.
  int final_error_ = OK;
  // Set when a Snap Start attempt was rejected and the request retried.
  std::string snap_start_rejection_;
  // Set when the server rejected early data and the request was retried on
  // a new connection without it: the first attempt's reason.
  std::string early_data_rejection_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<HttpNetworkTransaction> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP_HTTP_NETWORK_TRANSACTION_H_
