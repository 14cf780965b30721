#include "net/http/http_network_transaction.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "net/base/check.h"
#include "net/http/http_basic_stream.h"
#include "net/http/http_proxy_connect_job.h"
#include "net/http/ssl_connect_job.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/socket/transport_connect_job.h"
#include "net/ssl/ssl_info.h"

namespace net {
namespace {

bool IsRetriableOnReusedSocket(int error) {
  return error == ERR_CONNECTION_RESET || error == ERR_CONNECTION_CLOSED ||
         error == ERR_EMPTY_RESPONSE || error == ERR_SOCKET_NOT_CONNECTED;
}

}  // namespace

HttpNetworkTransaction::HttpNetworkTransaction(HttpNetworkSession* session)
    : session_(session) {}

HttpNetworkTransaction::~HttpNetworkTransaction() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // The stream and the job first: they point into this transaction (the
  // request, the trace, the OBC slot).
  stream_.reset();
  connect_job_.reset();
  // Whoever waits for this request's connection looks again.
  EndSpdyConnect();
}

CompletionOnceCallback HttpNetworkTransaction::IOCallback() {
  return [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnIOComplete(rv);
  };
}

int HttpNetworkTransaction::Start(const HttpRequestInfo& request,
                                  CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  request_ = request;
  timing_ = LoadTiming();
  timing_.start = session_->clock()->NowTicks();
  timing_.url = request_.url.spec();
  timing_.method = request_.method;
  timing_.priority = request_.priority;
  timing_.https = request_.url.SchemeIsCryptographic();
  proxy_.reset();
  if (const ProxyServer* proxy =
          session_->params().proxy.ProxyFor(request_.url))
    proxy_ = *proxy;
  timing_.proxy = proxy_ ? proxy_->ToString() : "direct";
  final_error_ = OK;
  deadline_ = TimeTicks();
  if (session_->params().request_timeout > absl::ZeroDuration()) {
    deadline_ = TimeTicks::Now() + session_->params().request_timeout;
    request_timer_.Start(session_->params().request_timeout,
                         [this] { OnRequestTimeout(); });
  }
  next_state_ = STATE_INIT_CONNECTION;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) {
    callback_ = std::move(callback);
  } else {
    Finish(rv);
  }
  return rv;
}

bool HttpNetworkTransaction::DeadlinePassed() const {
  return !deadline_.is_null() && TimeTicks::Now() >= deadline_;
}

int HttpNetworkTransaction::TimeOut(bool body_read_pending) {
  const std::string limit =
      absl::FormatDuration(session_->params().request_timeout);
  const HttpResponseHeaders* headers = response_headers();
  if (headers) {
    // The headers are in: the body is what ran out of time. Say how far it
    // got, and whether it stalled (a read was waiting for data) or was
    // still arriving.
    std::string got = absl::StrCat(timing_.body_bytes);
    if (headers->content_length() >= 0)
      absl::StrAppend(&got, " of ", headers->content_length());
    if (body_read_pending) {
      absl::Duration idle = TimeTicks::Now() - last_progress_;
      error_detail_ = absl::StrCat(
          "the response body stalled: no data for ",
          absl::FormatDuration(absl::Trunc(idle, absl::Milliseconds(1))),
          " when the ", limit, " request deadline passed (", got,
          " body bytes received)");
    } else {
      error_detail_ = absl::StrCat("the ", limit,
                                   " request deadline passed while reading "
                                   "the response body (",
                                   got, " body bytes received)");
    }
  } else {
    // Where the connect job is, if one runs.
    ConnectJob::Phase phase = ConnectJob::Phase::kNone;
    if (connect_job_ && next_state_ == STATE_CONNECT_COMPLETE) {
      MergeConnectTiming();
      phase = connect_job_->phase();
    }
    // Through a proxy the lookup and the connection are the proxy's.
    const std::string via_proxy =
        proxy_ ? absl::StrCat("the proxy ", proxy_->ToString(), " ") : "";
    if (phase == ConnectJob::Phase::kResolveHost) {
      error_detail_ =
          absl::StrCat("resolving ", via_proxy, "'",
                       proxy_ ? proxy_->host() : request_.url.host(),
                       "' did not finish within ", limit);
    } else if (phase == ConnectJob::Phase::kTransportConnect) {
      error_detail_ =
          absl::StrCat("connecting to ", via_proxy, timing_.remote_address,
                       " did not finish within ", limit);
    } else if (phase == ConnectJob::Phase::kProxyTunnel) {
      error_detail_ = absl::StrCat(via_proxy, "did not answer CONNECT ",
                                   request_.url.host(), ":",
                                   request_.url.port(), " within ", limit);
    } else if (phase == ConnectJob::Phase::kSSLHandshake) {
      error_detail_ =
          absl::StrCat("the TLS handshake with ", timing_.remote_address,
                       " did not finish within ", limit);
    } else if (next_state_ == STATE_SEND_REQUEST_COMPLETE) {
      error_detail_ =
          absl::StrCat("sending the request to ", timing_.remote_address,
                       " did not finish within ", limit);
    } else {
      error_detail_ =
          timing_.response_start.is_null()
              ? absl::StrCat("no response within ", limit)
              : absl::StrCat("the response headers did not complete within ",
                             limit);
    }
  }
  // Drop everything in flight; no callback of theirs runs after this.
  connect_job_.reset();
  stream_.reset();
  EndSpdyConnect();
  next_state_ = STATE_NONE;
  final_error_ = ERR_TIMED_OUT;
  Finish(ERR_TIMED_OUT);
  return ERR_TIMED_OUT;
}

void HttpNetworkTransaction::OnRequestTimeout() {
  // After the headers, a pending callback is a body Read waiting for data.
  int rv = TimeOut(/*body_read_pending=*/callback_ != nullptr);
  CompletionOnceCallback callback = std::move(callback_);
  callback_ = nullptr;
  if (callback) std::move(callback)(rv);
}

void HttpNetworkTransaction::Finish(int result) {
  // Done with connecting, whatever the outcome: whoever waits for this
  // request's connection looks again.
  EndSpdyConnect();
  timing_.net_error = result;
  if (result < 0) {
    // The connection is of no more use: its slot goes to the next request.
    socket_slot_.reset();
    request_timer_.Stop();
    if (timing_.failed_at.is_null())
      timing_.failed_at = session_->clock()->NowTicks();
  }
}

void HttpNetworkTransaction::OnIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv == ERR_IO_PENDING) return;
  Finish(rv);
  CompletionOnceCallback callback = std::move(callback_);
  callback_ = nullptr;
  if (callback) std::move(callback)(rv);
}

int HttpNetworkTransaction::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_INIT_CONNECTION:
        rv = DoInitConnection();
        break;
      case STATE_CONNECT:
        rv = DoConnect();
        break;
      case STATE_CONNECT_COMPLETE:
        rv = DoConnectComplete(rv);
        break;
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
      case STATE_INIT_STREAM:
        rv = DoInitStream();
        break;
      case STATE_INIT_STREAM_COMPLETE:
        rv = DoInitStreamComplete(rv);
        break;
      case STATE_NONE:
      default:
        NET_NOTREACHED();
        rv = ERR_UNEXPECTED;
        break;
    }
  } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  return rv;
}

std::string HttpNetworkTransaction::PoolKey() const {
  return HttpNetworkSession::GroupKey(request_.url.scheme(),
                                      request_.url.host(), request_.url.port(),
                                      proxy_ ? &*proxy_ : nullptr);
}

const ProxyServer* HttpNetworkTransaction::ProxyForStream() const {
  return proxy_ && !timing_.https ? &*proxy_ : nullptr;
}

int HttpNetworkTransaction::DoInitConnection() {
  // Time spent waiting here (for another request's connection or a free
  // slot of the group) counts from the first visit.
  if (timing_.fetch_start.is_null())
    timing_.fetch_start = session_->clock()->NowTicks();
  if (Http3Allowed()) return UseHttp3();
  if (H2Allowed() && !dedicated_h2_connection_) {
    // The origin's open HTTP/2 session carries the request (while its
    // handshake is unconfirmed, early data, only a replayable one), or one
    // it was coalesced onto earlier, or — with no lookup — a session whose
    // ORIGIN frames list it.
    Http2SessionPool* pool = session_->http2_session_pool();
    const Origin origin = RequestOrigin();
    CoalescedBy by = CoalescedBy::kNone;
    Http2Session* s = pool->FindAvailableSession(H2Key(), IsReplaySafe(), &by);
    if (s && s->origin() == origin)
      return UseHttp2Session(s->GetWeakPtr(), CoalescedBy::kNone);
    if (s && !no_pooling_) return UseHttp2Session(s->GetWeakPtr(), by);
    if (!no_pooling_ && !proxy_) {
      Http2SessionPool::CoalesceResult found =
          pool->FindSessionByOriginFrame(origin, IsReplaySafe());
      if (found.session)
        return UseHttp2Session(found.session->GetWeakPtr(), found.by);
      NoteNotCoalesced(found.not_coalesced_reason);
    }
  }
  if ((SpdyAllowed() || H2Allowed()) && !dedicated_h2_connection_) {
    // An open session to the origin (its own, or one it was pooled onto
    // earlier) carries the request; if another request is making the
    // origin's connection, wait for it and look again.
    const Origin origin(request_.url.scheme(), request_.url.host(),
                        request_.url.port());
    if (SpdySession* s =
            SpdyAllowed()
                ? session_->spdy_session_pool()->FindAvailableSession(origin)
                : nullptr) {
      if (!no_pooling_ || s->origin() == origin)
        return UseSpdySession(s->GetWeakPtr());
    }
    if (!owns_spdy_connect_ &&
        session_->ShouldWaitForMultiplexedConnect(PoolKey())) {
      if (!session_->BeginSpdyConnect(PoolKey())) {
        next_state_ = STATE_INIT_CONNECTION;
        session_->WaitForSpdyConnect(PoolKey(),
                                     [weak = weak_factory_.GetWeakPtr()] {
                                       if (weak) weak->OnIOComplete(OK);
                                     });
        return ERR_IO_PENDING;
      }
      owns_spdy_connect_ = true;
    }
  }
  if (!reused_socket_) {
    // HTTP/1.1: one of the group's connection slots first (at most
    // max_sockets_per_group connections per origin); when the group is
    // full, wait for a connection another request releases, or for a slot.
    if (!socket_slot_) {
      socket_slot_ = session_->RequestSocketSlot(
          PoolKey(), [weak = weak_factory_.GetWeakPtr()] {
            if (weak) weak->OnIOComplete(OK);
          });
    }
    if (!socket_slot_->granted()) {
      next_state_ = STATE_INIT_CONNECTION;
      return ERR_IO_PENDING;
    }
    bool preconnected = false;
    if (std::unique_ptr<StreamSocket> idle =
            socket_slot_->TakeSocket(&preconnected)) {
      reused_socket_ = true;
      timing_.socket_reused = true;
      timing_.socket_preconnected = preconnected;
      timing_.dns_source =
          preconnected ? DnsSource::kPreconnect : DnsSource::kReused;
      if (const SSLInfo* info = idle->GetSSLInfo()) timing_.ssl = *info;
      IPEndPoint peer;
      if (idle->GetPeerAddress(&peer) == OK)
        timing_.remote_address = peer.ToString();
      if (H2Allowed() && timing_.ssl.alpn == "h2") {
        // A preconnected connection whose handshake chose h2: the origin's
        // HTTP/2 session starts on it.
        StartHttp2Session(std::move(idle));
        next_state_ = STATE_INIT_STREAM;
        return OK;
      }
      if (timing_.ssl.alpn == "h2" || timing_.ssl.alpn == "spdy/3") {
        // A preconnected multiplexed connection this request may not use
        // (the server requires HTTP/1.1 now): closed; a new one is made.
        idle->Disconnect();
        idle.reset();
        reused_socket_ = false;
        timing_.socket_reused = false;
        timing_.socket_preconnected = false;
        timing_.dns_source = DnsSource::kNone;
        timing_.ssl = SSLInfo();
        timing_.remote_address.clear();
        reuse_addresses_ = false;
        next_state_ = STATE_CONNECT;
        return OK;
      }
      // An idle HTTP/1.1 connection: nobody need wait for this one.
      EndSpdyConnect();
      stream_ = std::make_unique<HttpBasicStream>(
          std::move(idle), &timing_, session_->clock(), ProxyForStream());
      next_state_ = STATE_INIT_STREAM;
      return OK;
    }
  }
  reused_socket_ = false;
  reuse_addresses_ = false;
  next_state_ = STATE_CONNECT;
  return OK;
}

int HttpNetworkTransaction::DoConnect() {
  next_state_ = STATE_CONNECT_COMPLETE;
  found_pooled_session_ = false;
  pooled_session_ = WeakPtr<SpdySession>();
  found_h2_session_ = false;
  h2_session_found_ = WeakPtr<Http2Session>();
  TransportConnectJob::Options options;
  options.clock = session_->clock();
  if (reuse_addresses_) {
    // A retry on a new connection: no new lookup (the trace keeps the
    // first), the address that answered first.
    options.resolved = resolve_result_;
    options.first_address = address_index_;
  } else {
    // (Through a proxy the lookup is the proxy's: no IP pooling.)
    const bool pooling =
        (SpdyAllowed() || (H2Allowed() && !dedicated_h2_connection_)) &&
        !no_pooling_ && !proxy_;
    if (pooling || (session_->params().h3_https_rr && timing_.https &&
                    !proxy_ && !tcp_without_https_record_)) {
      options.on_host_resolved = [this,
                                  pooling](const HostResolveResult& result) {
        return OnHostResolved(result, pooling);
      };
    }
  }
  reuse_addresses_ = false;
  const std::string& host = request_.url.host();
  const uint16_t port = request_.url.port();
  // Fast Open: a TLS ClientHello may ride in the SYN (early data has its
  // own rules); a plain request only if replaying it is harmless. Not to a
  // proxy: the hints are the origin's, and the SYN would carry a CONNECT.
  // (--connect-to rules apply to what TransportConnectJob connects to: the
  // proxy itself, through one.)
  options.connect_to = &session_->params().connect_to;
  // An https origin's HTTPS record (RFC 9460): its port and ECH
  // configuration. Not through a proxy, which resolves the origin itself.
  options.https_record = timing_.https && !proxy_ && !tcp_without_https_record_;
  if (!proxy_) {
    options.tcp = session_->tcp_fast_open_hints()->OptionsFor(
        absl::StrCat(host, ":", port), timing_.https || IsReplaySafe());
  }
  if (timing_.https) {
    SSLConnectJobParams params;
    params.host = host;
    params.port = port;
    params.connect_timeout = session_->params().connect_timeout;
    params.ssl_config = session_->params().ssl_config;
    params.ssl_config.early_data_enabled =
        params.ssl_config.early_data_enabled && CanSendEarlyData();
    if (RequiresHttp11()) {
      // The server answered HTTP/2 with HTTP_1_1_REQUIRED: offer only
      // HTTP/1.1 (Chromium's rule).
      params.ssl_config.alpn_protos = {"http/1.1"};
    }
    params.ssl_context = session_->ssl_client_context();
    params.snap_start_context = session_->params().snap_start_context;
    params.snap_start_learn_in_handshake =
        session_->params().snap_start_learn_in_handshake;
    params.transport = std::move(options);
    params.proxy = proxy_;
    connect_job_ = std::make_unique<SSLConnectJob>(session_->host_resolver(),
                                                   session_->socket_factory(),
                                                   std::move(params));
  } else if (proxy_) {
    // An http URL through the proxy: a connection to it, no tunnel.
    HttpProxyConnectJobParams params;
    params.proxy = *proxy_;
    params.host = host;
    params.port = port;
    params.tunnel = false;
    params.connect_timeout = session_->params().connect_timeout;
    params.transport = std::move(options);
    connect_job_ = std::make_unique<HttpProxyConnectJob>(
        session_->host_resolver(), session_->socket_factory(),
        std::move(params));
  } else {
    connect_job_ = std::make_unique<TransportConnectJob>(
        session_->host_resolver(), session_->socket_factory(), host, port,
        session_->params().connect_timeout, std::move(options));
  }
  return connect_job_->Connect(IOCallback());
}

void HttpNetworkTransaction::MergeConnectTiming() {
  const ConnectTiming t = connect_job_->timing();
  if (!t.dns_start.is_null()) {
    // After an h3-only record's restart the second lookup is the cache's:
    // the trace keeps the first one's points and source (what the request
    // waited for on the network).
    if (!tcp_without_https_record_ || timing_.dns_start.is_null()) {
      timing_.dns_start = t.dns_start;
      timing_.dns_end = t.dns_end;
      timing_.dns_source = t.dns_source;
    }
    timing_.dns_https = t.dns_https;
  }
  // The first attempt's, across a retry on a new connection.
  if (timing_.connect_start.is_null()) timing_.connect_start = t.connect_start;
  if (!t.remote_address.empty()) timing_.remote_address = t.remote_address;
  if (!t.ssl_start.is_null()) timing_.ssl_start = t.ssl_start;
  if (!t.connect_end.is_null()) timing_.connect_end = t.connect_end;
}

int HttpNetworkTransaction::DoConnectComplete(int result) {
  MergeConnectTiming();
  if (found_pooled_session_) {
    // The OnHostResolved hook found an open session for this request.
    connect_job_.reset();
    found_pooled_session_ = false;
    return UseSpdySession(std::move(pooled_session_));
  }
  if (found_h2_session_) {
    // The OnHostResolved hook found another origin's HTTP/2 session at one
    // of this origin's addresses.
    connect_job_.reset();
    found_h2_session_ = false;
    return UseHttp2Session(std::move(h2_session_found_), CoalescedBy::kDns);
  }
  if (h3_record_lookup_) {
    // The hook found an HTTPS record offering h3: HTTP/3 instead of TCP.
    connect_job_.reset();
    return UseHttp3FromHttpsRecord();
  }
  if (restart_tcp_without_record_) {
    // An h3-only record: TCP again, to the origin's own addresses.
    restart_tcp_without_record_ = false;
    connect_job_.reset();
    next_state_ = STATE_CONNECT;
    return OK;
  }
  if (tcp_without_https_record_ && h3_only_record_)
    timing_.dns_https = *h3_only_record_;
  if (const HandshakeChoice* choice = connect_job_->handshake_choice())
    timing_.handshake_choice = *choice;
  if (connect_job_->ssl_info()) OnHandshakeDone(result);
  if (result != OK && proxy_) {
    // The proxy job's own detail names the proxy and what failed.
    error_detail_ = connect_job_->error_detail();
    connect_job_.reset();
    EndSpdyConnect();
    return result;
  }
  if (result != OK) {
    switch (connect_job_->phase()) {
      case ConnectJob::Phase::kResolveHost: {
        const HostResolveResult& resolved = connect_job_->resolve_result();
        error_detail_ =
            absl::StrCat("could not resolve host '", request_.url.host(), "'",
                         resolved.detail.empty() ? "" : ": ", resolved.detail);
        break;
      }
      case ConnectJob::Phase::kTransportConnect:
        error_detail_ =
            absl::StrCat("could not connect to ", timing_.remote_address);
        break;
      default:
        error_detail_ = connect_job_->error_detail();
        break;
    }
    connect_job_.reset();
    EndSpdyConnect();
    return result;
  }
  resolve_result_ = connect_job_->resolve_result();
  address_index_ = connect_job_->address_index();
  NoteTransportHandshake();
  std::unique_ptr<StreamSocket> socket = connect_job_->TakeSocket();
  connect_job_.reset();
  next_state_ = STATE_INIT_STREAM;
  // The protocol the handshake chose picks the stream.
  if (timing_.https &&
      (timing_.ssl.alpn == "spdy/3" || timing_.ssl.alpn == "h2")) {
    // The server speaks a multiplexed protocol: later requests wait for
    // its connections (ConnectWaitPolicy).
    session_->server_properties()->SetMultiplexing(PoolKey(), true);
    if (!spdy_ip_key_.empty())
      session_->server_properties()->SetMultiplexing(spdy_ip_key_, true);
  }
  if (timing_.https && SpdyAllowed() && timing_.ssl.alpn == "spdy/3") {
    if (SpdySession* s = session_->spdy_session_pool()->FindAvailableSession(
            RequestOrigin());
        s && s->origin() == RequestOrigin()) {
      // Another request's connection made the origin's session while this
      // one connected (requests that did not wait): that session carries
      // it, this connection is closed.
      socket->Disconnect();
      session_->NoteRedundantMultiplexedConnection();
      EndSpdyConnect();
      return UseSpdySession(s->GetWeakPtr());
    }
    // A new SPDY session (InitializeStream makes it, after the OBC the
    // handshake presented, if any).
    timing_.spdy.session = SessionUse::kNew;
    stream_ = std::make_unique<SpdyHttpStream>(
        std::move(socket), session_->spdy_session_pool(),
        [this] {
          // A SPDY session's connection holds no slot of the HTTP/1.1
          // limit, and the origin's session exists: those waiting for it
          // may use it now.
          socket_slot_.reset();
          EndSpdyConnect();
        },
        SpdyStreamParams());
    return OK;
  }
  if (timing_.https && H2Allowed() && timing_.ssl.alpn == "h2") {
    if (!dedicated_h2_connection_) {
      // As for SPDY above: the first session wins, this connection closes —
      // the origin's own, or one that appeared at this connection's address
      // while it was being made and may carry the origin (Chromium looks
      // again before it makes a session of a new socket).
      Http2SessionPool* pool = session_->http2_session_pool();
      Http2Session* s = pool->FindAvailableSession(H2Key(), IsReplaySafe());
      CoalescedBy by = CoalescedBy::kNone;
      if (s && s->origin() != RequestOrigin()) s = nullptr;
      if (!s && !no_pooling_ && !proxy_) {
        std::vector<IPEndPoint> endpoints;
        for (const IPAddress& address : resolve_result_.addresses)
          endpoints.emplace_back(address, request_.url.port());
        Http2SessionPool::CoalesceResult found = pool->FindSessionForCoalescing(
            RequestOrigin(), endpoints, IsReplaySafe());
        s = found.session;
        by = found.by;
      }
      if (s) {
        socket->Disconnect();
        session_->NoteRedundantMultiplexedConnection();
        EndSpdyConnect();
        return UseHttp2Session(s->GetWeakPtr(), by,
                               /*made_own_connection=*/true);
      }
    }
    StartHttp2Session(std::move(socket));
    return OK;
  }
  if (timing_.https) {
    // HTTP/1.1: whoever waits on this origin makes its own connection.
    if (SpdyAllowed() || H2Allowed()) {
      session_->server_properties()->SetMultiplexing(PoolKey(), false);
      if (!spdy_ip_key_.empty())
        session_->server_properties()->SetMultiplexing(spdy_ip_key_, false);
    }
    EndSpdyConnect();
  }
  stream_ = std::make_unique<HttpBasicStream>(
      std::move(socket), &timing_, session_->clock(), ProxyForStream());
  return OK;
}

void HttpNetworkTransaction::NoteTransportHandshake() {
  // The job's own stamps (not the trace's, whose connectStart is a retry's
  // first attempt): TCP's connect to the TLS handshake's start, or to
  // connectEnd without TLS.
  const ConnectTiming t = connect_job_->timing();
  const TimeTicks end = t.ssl_start.is_null() ? t.connect_end : t.ssl_start;
  transport_handshake_ = t.connect_start.is_null() || end.is_null()
                             ? absl::ZeroDuration()
                             : end - t.connect_start;
}

void HttpNetworkTransaction::OnHandshakeDone(int result) {
  const SSLInfo* info = connect_job_->ssl_info();
  timing_.ssl = *info;
  // A Snap Start attempt's handshake ends with the server's first answer.
  handshake_awaits_response_ = info->awaiting_server_response;
  NoteSnapStartRejection();
  NoteEarlyDataRejection();
  if (TlsHandshakeObserver* observer = session_->params().tls_observer) {
    observer->OnTlsHandshakeDone(request_.url.host(), request_.url.port(),
                                 result, &timing_);
  }
}

int HttpNetworkTransaction::DoInitStream() {
  next_state_ = STATE_INIT_STREAM_COMPLETE;
  return stream_->InitializeStream(&request_, IOCallback());
}

int HttpNetworkTransaction::DoInitStreamComplete(int result) {
  if (result != OK) {
    if (MaybeRetry(result)) return OK;
    error_detail_ = stream_->error_detail();
    return result;
  }
  next_state_ = STATE_SEND_REQUEST;
  return OK;
}

int HttpNetworkTransaction::DoSendRequest() {
  next_state_ = STATE_SEND_REQUEST_COMPLETE;
  int rv = stream_->SendRequest(IOCallback());
  request_headers_sent_ = stream_->request_headers_sent();
  return rv;
}

void HttpNetworkTransaction::NoteSnapStartRejection() {
  if (snap_start_rejection_.empty()) return;
  timing_.ssl.snap_start = SnapStartOutcome::kRejected;
  timing_.ssl.snap_start_detail = absl::StrCat(
      snap_start_rejection_, "; retried on a new connection (",
      timing_.ssl.snap_start_detail.empty() ? "normal handshake"
                                            : timing_.ssl.snap_start_detail,
      ")");
}

bool HttpNetworkTransaction::CanSendEarlyData() const {
  // Early data can be replayed by an attacker: idempotent requests only
  // (RFC 8470 section 2.1; Chromium's rule), and once rejected, never again
  // for this request.
  // Nor with SPDY/3 offered: a session made on a connection still in early
  // data would carry other requests' streams (a POST among them) early too.
  return IsReplaySafe() && early_data_rejection_.empty() && !SpdyAllowed();
}

bool HttpNetworkTransaction::IsReplaySafe() const {
  return (request_.method == "GET" || request_.method == "HEAD") &&
         request_.upload_body.empty();
}

void HttpNetworkTransaction::NoteEarlyDataRejection() {
  if (early_data_rejection_.empty()) {
    // Early data was asked for but this request may not use it: say why.
    if (session_->params().ssl_config.early_data_enabled && timing_.https &&
        !CanSendEarlyData() &&
        timing_.ssl.early_data == EarlyDataState::kNotOffered) {
      timing_.ssl.early_data_reason =
          request_.method != "GET" && request_.method != "HEAD"
              ? absl::StrCat(request_.method, " request is not idempotent")
          : !request_.upload_body.empty()
              ? absl::StrCat(request_.method, " request has a body")
              : "SPDY/3 offered: its session would carry every stream early";
    }
    return;
  }
  timing_.ssl.early_data = EarlyDataState::kRejected;
  timing_.ssl.early_data_reason = absl::StrCat(
      early_data_rejection_, "; request retried in 1-RTT on a new connection");
}

bool HttpNetworkTransaction::MaybeRetryOnNewConnection(int error) {
  if ((error == ERR_EARLY_DATA_REJECTED ||
       error == ERR_WRONG_VERSION_ON_EARLY_DATA) &&
      early_data_rejection_.empty()) {
    // The server did not take the request sent as 0-RTT (it processed none
    // of it, RFC 8446 4.2.10): send it again on a new connection without
    // early data, as Chromium does. Once only.
    const SSLInfo* info = stream_ ? stream_->GetSSLInfo() : nullptr;
    early_data_rejection_ = error == ERR_WRONG_VERSION_ON_EARLY_DATA
                                ? "the server chose TLS 1.2"
                                : (info && !info->early_data_reason.empty()
                                       ? info->early_data_reason
                                       : "rejected");
    StartOverOnANewConnection(/*reuse_addresses=*/true);
    return true;
  }
  if (error == ERR_SNAP_START_REJECTED && snap_start_rejection_.empty()) {
    // The server refused the Snap Start ClientHello outright (an alert or a
    // close); the socket has forgotten the server's information, so a new
    // connection does a normal handshake. Once only.
    const SSLInfo* info = stream_ ? stream_->GetSSLInfo() : nullptr;
    snap_start_rejection_ = info ? info->snap_start_detail : "rejected";
    StartOverOnANewConnection(/*reuse_addresses=*/true);
    return true;
  }
  if (!reused_socket_ || !IsRetriableOnReusedSocket(error)) return false;
  // The server closed the idle connection before answering: start over on
  // a new one, as if there had been no idle socket.
  StartOverOnANewConnection(/*reuse_addresses=*/false);
  return true;
}

void HttpNetworkTransaction::StartOverOnANewConnection(bool reuse_addresses) {
  stream_.reset();
  reused_socket_ = false;
  timing_.socket_reused = false;
  timing_.socket_preconnected = false;
  timing_.request_start = TimeTicks();
  timing_.response_start = TimeTicks();
  reuse_addresses_ = reuse_addresses;
  next_state_ = STATE_CONNECT;
}

bool HttpNetworkTransaction::MaybeRetry(int error) {
  // The two are disjoint: the streams that retry on another stream (SPDY's)
  // never run on a reused idle connection, in early data or over Snap
  // Start.
  return MaybeRetryOverHttp11(error) || MaybeRetryOnAnotherStream(error) ||
         MaybeFallBackToTcp(error) || MaybeRetryOnNewConnection(error);
}

bool HttpNetworkTransaction::MaybeRetryOverHttp11(int error) {
  if (error != ERR_HTTP_1_1_REQUIRED || http11_required_ || !stream_)
    return false;
  // The server wants HTTP/1.1 for this origin: remember it (later requests
  // offer only http/1.1) and send the request again over HTTP/1.1 on a new
  // connection, as Chromium does.
  http11_required_ = true;
  session_->server_properties()->SetHttp11Required(PoolKey());
  timing_.h2.retry =
      "HTTP_1_1_REQUIRED: retried over HTTP/1.1 on a new connection";
  StartOverForRetry();
  next_state_ = STATE_INIT_CONNECTION;
  return true;
}

void HttpNetworkTransaction::OnBodyDone(int result) {
  request_timer_.Stop();
  if (result < 0) {
    error_detail_ = stream_->error_detail();
    // Every later Read says so again.
    final_error_ = result;
    Finish(result);
    return;
  }
  bool reusable = false;
  std::unique_ptr<StreamSocket> socket = stream_->ReleaseConnection(&reusable);
  if (socket && reusable) {
    if (socket_slot_) {
      // To the next request waiting for the group, or the idle pool.
      session_->ReleaseSocketSlot(std::move(socket_slot_), std::move(socket));
    } else {
      session_->ReturnIdleSocket(PoolKey(), std::move(socket));
    }
  } else if (socket) {
    // Not reusable (close-delimited, Connection: close): closed now, so
    // the group's next request may connect in its place.
    socket->Disconnect();
    socket_slot_.reset();
  }
}

int HttpNetworkTransaction::DoSendRequestComplete(int result) {
  if (result < 0) {
    if (MaybeRetry(result)) return OK;
    error_detail_ = stream_->error_detail();
    return result;
  }
  next_state_ = STATE_READ_HEADERS;
  return OK;
}

int HttpNetworkTransaction::DoReadHeaders() {
  next_state_ = STATE_READ_HEADERS_COMPLETE;
  return stream_->ReadResponseHeaders(IOCallback());
}

int HttpNetworkTransaction::DoReadHeadersComplete(int result) {
  if (result < 0) {
    if (MaybeRetry(result)) return OK;
    error_detail_ = stream_->error_detail();
    return result;
  }
  timing_.status_code = stream_->response_headers()->status_code();
  if (timing_.status_code == 421 && !misdirected_retried_ &&
      stream_->ShouldRetryMisdirectedRequest()) {
    // 421 on a shared HTTP/2 session: once more, on a new connection of the
    // origin's own (Chromium retries a 421 once without IP pooling).
    misdirected_retried_ = true;
    dedicated_h2_connection_ = true;
    no_pooling_ = true;
    StartOverForRetry();
    next_state_ = STATE_INIT_CONNECTION;
    return OK;
  }
  // A connection made for this request: what it did with Fast Open (known
  // once the server answered), remembered for the next connection.
  if (!timing_.socket_reused && timing_.spdy.session != SessionUse::kPooled &&
      timing_.spdy.session != SessionUse::kReused &&
      timing_.h2.session != SessionUse::kReused && !proxy_ &&
      !timing_.quic.used) {
    timing_.tcp_fast_open = stream_->GetTcpFastOpenInfo();
    session_->tcp_fast_open_hints()->NoteOutcome(
        absl::StrCat(request_.url.host(), ":", request_.url.port()),
        timing_.tcp_fast_open);
    // And its round trip, of which the next Fast Open race's delay is made.
    session_->tcp_fast_open_hints()->NoteRtt(
        request_.url.host(),
        ConnectionRttSample(timing_.tcp_fast_open, transport_handshake_));
  }
  // A Snap Start attempt's outcome is known only once the server answered.
  if (handshake_awaits_response_) {
    handshake_awaits_response_ = false;
    if (const SSLInfo* info = stream_->GetSSLInfo()) timing_.ssl = *info;
    NoteSnapStartRejection();
    NoteEarlyDataRejection();
    // The Snap Start (or 0-RTT) handshake has only now really ended.
    if (TlsHandshakeObserver* observer = session_->params().tls_observer) {
      observer->OnTlsHandshakeDone(request_.url.host(), request_.url.port(), OK,
                                   &timing_);
    }
  }
  NoteAltSvc();
  last_progress_ = TimeTicks::Now();
  // Headers-only responses (HEAD, 204, 304) may already be complete.
  if (stream_->IsResponseBodyComplete()) OnBodyDone(OK);
  return OK;
}

int HttpNetworkTransaction::Read(std::shared_ptr<IOBuffer> buf, int len,
                                 CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (final_error_ != OK) return final_error_;
  if (!stream_ || !stream_->response_headers()) return ERR_UNEXPECTED;
  if (stream_->IsResponseBodyComplete()) return 0;
  // A caller that reads again at once after every synchronous result never
  // lets the event loop run the deadline's timer: check it here.
  if (DeadlinePassed()) return TimeOut(/*body_read_pending=*/false);
  int rv = stream_->ReadResponseBody(
      std::move(buf), len, [this, weak = weak_factory_.GetWeakPtr()](int rv) {
        if (!weak) return;
        if (rv > 0) last_progress_ = TimeTicks::Now();
        if (rv <= 0 || stream_->IsResponseBodyComplete()) OnBodyDone(rv);
        CompletionOnceCallback cb = std::move(callback_);
        callback_ = nullptr;
        if (cb) std::move(cb)(rv);
      });
  if (rv == ERR_IO_PENDING) {
    callback_ = std::move(callback);
    return rv;
  }
  if (rv > 0) last_progress_ = TimeTicks::Now();
  if (rv <= 0 || stream_->IsResponseBodyComplete()) OnBodyDone(rv);
  return rv;
}

const HttpResponseHeaders* HttpNetworkTransaction::response_headers() const {
  return stream_ ? stream_->response_headers() : nullptr;
}

// SPDY -------------------------------------------------------------------

bool HttpNetworkTransaction::SpdyAllowed() const {
  return timing_.https && session_->spdy_enabled() &&
         session_->params().snap_start_context == nullptr && !RequiresHttp11();
}

bool HttpNetworkTransaction::RequiresHttp11() const {
  return http11_required_ ||
         session_->server_properties()->RequiresHttp11(PoolKey());
}

Origin HttpNetworkTransaction::RequestOrigin() const {
  return Origin(request_.url.scheme(), request_.url.host(),
                request_.url.port());
}

void HttpNetworkTransaction::EndSpdyConnect() {
  if (!spdy_ip_key_.empty()) {
    session_->EndSpdyConnect(spdy_ip_key_);
    spdy_ip_key_.clear();
  }
  if (!owns_spdy_connect_) return;
  owns_spdy_connect_ = false;
  session_->EndSpdyConnect(PoolKey());
}

int HttpNetworkTransaction::OnHostResolved(const HostResolveResult& result,
                                           bool pooling) {
  MergeConnectTiming();
  if (Http3FromHttpsRecordAllowed() && result.https.used()) {
    const HttpsRecordInfo& https = result.https;
    const bool h3 = https.SupportsAlpn("h3");
    // Whether the record applies to TCP too: a protocol this request's
    // ClientHello would offer is in its ALPN set.
    bool tcp = false;
    if (RequiresHttp11() || session_->params().ssl_config.alpn_protos.empty()) {
      tcp = https.SupportsAlpn("http/1.1");
    } else {
      for (const std::string& protocol :
           session_->params().ssl_config.alpn_protos)
        tcp = tcp || https.SupportsAlpn(protocol);
    }
    if (h3) {
      h3_record_ =
          absl::StrCat("alpn=", absl::StrJoin(https.alpn, ","),
                       https.no_default_alpn ? " no-default-alpn" : "",
                       " target=", https.target,
                       https.port ? absl::StrCat(" port=", *https.port) : "");
    }
    // QUIC here has no Encrypted ClientHello: where the record (or the
    // configuration) gives one and ECH is on, TCP keeps the name hidden.
    const bool ech = session_->EchApplies(https);
    if (h3 && ech) {
      timing_.quic.https_record = h3_record_;
      timing_.quic.fallback =
          "not over QUIC: an ECH configuration applies and QUIC here has no "
          "ECH; TCP";
    }
    std::string broken;
    if (h3 && !ech && !http3_failed_ && !RequiresHttp11()) {
      broken = session_->http3_session_pool()->BrokenReason(RequestOrigin());
      if (broken.empty()) {
        // The record says the origin speaks HTTP/3 there: QUIC instead.
        EndSpdyConnect();
        h3_record_lookup_ = result;
        return ERR_ABORTED;  // DoConnectComplete goes to HTTP/3
      }
      timing_.quic.fallback =
          absl::StrCat("QUIC marked broken for this origin (", broken, ")");
      timing_.quic.https_record = h3_record_;
    }
    if (!tcp) {
      // Over TCP the record does not apply (its ALPN set has nothing TCP
      // speaks, RFC 9460 7.1.2): the client is SVCB-optional, so TCP goes
      // as if there were no record, to the origin's own addresses and port.
      EndSpdyConnect();
      h3_only_record_ = https;
      h3_only_record_->status = HttpsRecordStatus::kIgnored;
      h3_only_record_->detail = absl::StrCat(
          "not for TCP: its ALPN set (", absl::StrJoin(https.AlpnSet(), ","),
          ") has no protocol this client speaks over TCP; TCP went to the "
          "origin's own addresses and port");
      tcp_without_https_record_ = true;
      restart_tcp_without_record_ = true;
      return ERR_ABORTED;
    }
  }
  if (!pooling) return OK;
  // IP pooling: an open session to one of these addresses whose
  // certificate covers this host carries the request, with no new
  // connection or handshake.
  std::vector<IPEndPoint> endpoints;
  for (const IPAddress& address : result.addresses)
    endpoints.emplace_back(address, request_.url.port());
  const Origin origin = RequestOrigin();
  if (H2Allowed() && !dedicated_h2_connection_) {
    // HTTP/2 coalescing (RFC 9113 9.1.1), Chromium's rule: an open session
    // to one of these addresses whose verified certificate covers this host
    // (and whose client certificate, if any, is this origin's too).
    Http2SessionPool::CoalesceResult found =
        session_->http2_session_pool()->FindSessionForCoalescing(
            origin, endpoints, IsReplaySafe());
    if (found.session) {
      EndSpdyConnect();
      found_h2_session_ = true;
      h2_session_found_ = found.session->GetWeakPtr();
      return ERR_ABORTED;  // DoConnectComplete takes the session
    }
    NoteNotCoalesced(found.not_coalesced_reason);
  }
  SpdySession* s = SpdyAllowed()
                       ? session_->spdy_session_pool()->FindSessionForPooling(
                             origin, endpoints)
                       : nullptr;
  if (s) {
    EndSpdyConnect();
    found_pooled_session_ = true;
    pooled_session_ = s->GetWeakPtr();
    // Ends the job without a connection; DoConnectComplete takes the
    // session.
    return ERR_ABORTED;
  }
  // A connection to the first address is being made for another origin:
  // wait for it, it may carry this one too.
  const std::string ip_key = absl::StrCat("ip:", endpoints[0].ToString());
  if (spdy_ip_key_.empty() &&
      session_->ShouldWaitForMultiplexedConnect(ip_key)) {
    if (!session_->BeginSpdyConnect(ip_key)) {
      session_->WaitForSpdyConnect(ip_key, [weak = weak_factory_.GetWeakPtr()] {
        // The job that waits, if it still does (a timeout drops it).
        if (weak && weak->connect_job_ &&
            weak->connect_job_->phase() == ConnectJob::Phase::kHostResolved)
          weak->connect_job_->ResumeAfterHostResolved();
      });
      return ERR_IO_PENDING;
    }
    spdy_ip_key_ = ip_key;
  }
  return OK;
}

SpdyHttpStream::Params HttpNetworkTransaction::SpdyStreamParams() {
  SpdyHttpStream::Params params;
  params.timing = &timing_;
  params.clock = session_->clock();
  params.cert_provider = session_->params().ssl_config.client_cert_provider;
  params.client_cert = &client_cert_;
  return params;
}

int HttpNetworkTransaction::UseSpdySession(WeakPtr<SpdySession> session) {
  const Origin origin(request_.url.scheme(), request_.url.host(),
                      request_.url.port());
  // A session gone already (never within one turn) refuses the stream,
  // which the stream's retry rule sends to another session.
  const bool pooled = session && session->origin() != origin;
  timing_.spdy.session = pooled ? SessionUse::kPooled : SessionUse::kReused;
  // A SPDY session's connection holds no slot of the HTTP/1.1 limit.
  socket_slot_.reset();
  if (session) {
    // No connection of its own: the session's.
    timing_.socket_reused = true;
    if (timing_.dns_source == DnsSource::kNone)
      timing_.dns_source = DnsSource::kReused;
    if (const SSLInfo* info = session->socket()->GetSSLInfo())
      timing_.ssl = *info;
    IPEndPoint peer;
    if (session->socket()->GetPeerAddress(&peer) == OK)
      timing_.remote_address = peer.ToString();
    // Pooled after a lookup: the (free) connection comes after it.
    if (!timing_.dns_end.is_null()) {
      timing_.connect_start = timing_.ssl_start = timing_.connect_end =
          session_->clock()->NowTicks();
    }
  }
  SpdyHttpStream::Params params = SpdyStreamParams();
  params.pooled = pooled;
  stream_ = std::make_unique<SpdyHttpStream>(std::move(session), params);
  next_state_ = STATE_INIT_STREAM;
  return OK;
}

bool HttpNetworkTransaction::MaybeRetryOnAnotherStream(int error) {
  if (!stream_ || stream_retries_ >= 3) return false;
  bool avoid_pooling = false;
  if (!stream_->ShouldRetryOnAnotherStream(error, &avoid_pooling)) return false;
  if (avoid_pooling) no_pooling_ = true;
  ++stream_retries_;
  StartOverForRetry();
  next_state_ = STATE_INIT_CONNECTION;
  return true;
}

void HttpNetworkTransaction::StartOverForRetry() {
  stream_.reset();
  reused_socket_ = false;
  timing_.socket_reused = false;
  timing_.socket_preconnected = false;
  timing_.dns_start = TimeTicks();
  timing_.dns_end = TimeTicks();
  timing_.connect_start = TimeTicks();
  timing_.ssl_start = TimeTicks();
  timing_.connect_end = TimeTicks();
  timing_.request_start = TimeTicks();
  timing_.response_start = TimeTicks();
  timing_.status_code = 0;
  timing_.header_bytes = 0;
}

// HTTP/2 -----------------------------------------------------------------

bool HttpNetworkTransaction::H2Allowed() const {
  return timing_.https && session_->h2_enabled() && !RequiresHttp11();
}

Http2SessionKey HttpNetworkTransaction::H2Key() const {
  return Http2SessionKey{RequestOrigin(), proxy_ ? proxy_->ToString() : ""};
}

void HttpNetworkTransaction::NoteNotCoalesced(const std::string& reason) {
  if (!reason.empty() && timing_.h2.not_coalesced_reason.empty())
    timing_.h2.not_coalesced_reason = reason;
}

Http2Stream::Params HttpNetworkTransaction::Http2StreamParams() {
  Http2Stream::Params params;
  params.timing = &timing_;
  params.clock = session_->clock();
  params.session = session_->params().http2;
  params.session.proxy = proxy_ ? proxy_->ToString() : "";
  return params;
}

void HttpNetworkTransaction::StartHttp2Session(
    std::unique_ptr<StreamSocket> socket) {
  timing_.h2.session = SessionUse::kNew;
  timing_.h2.coalesced = false;
  timing_.h2.coalesced_by.clear();
  timing_.h2.coalesced_onto.clear();
  stream_ = std::make_unique<Http2Stream>(
      std::move(socket), session_->http2_session_pool(),
      [this] {
        // An HTTP/2 session's connection holds no slot of the HTTP/1.1
        // limit, and the origin's session exists: those waiting for it
        // may use it now.
        socket_slot_.reset();
        EndSpdyConnect();
      },
      Http2StreamParams());
}

int HttpNetworkTransaction::UseHttp2Session(WeakPtr<Http2Session> session,
                                            CoalescedBy coalesced_by,
                                            bool made_own_connection) {
  const bool coalesced = coalesced_by != CoalescedBy::kNone;
  timing_.h2.session = coalesced ? SessionUse::kPooled : SessionUse::kReused;
  timing_.h2.coalesced = coalesced;
  timing_.h2.coalesced_by = CoalescedByToString(coalesced_by);
  timing_.h2.coalesced_onto =
      coalesced && session ? session->origin().Serialize() : "";
  // An HTTP/2 session's connection holds no slot of the HTTP/1.1 limit.
  socket_slot_.reset();
  if (session) {
    // No connection of its own: the session's.
    timing_.socket_reused = true;
    if (timing_.dns_source == DnsSource::kNone)
      timing_.dns_source = DnsSource::kReused;
    if (const SSLInfo* info = session->socket()->GetSSLInfo())
      timing_.ssl = *info;
    IPEndPoint peer;
    if (session->socket()->GetPeerAddress(&peer) == OK)
      timing_.remote_address = peer.ToString();
    // Coalesced after a lookup: the (free) connection comes after it. (A
    // request that made a connection of its own and found a session when
    // it was ready keeps the connection's times: it paid them.)
    if (coalesced && !timing_.dns_end.is_null() && !made_own_connection) {
      timing_.connect_start = timing_.ssl_start = timing_.connect_end =
          session_->clock()->NowTicks();
    }
  }
  Http2Stream::Params params = Http2StreamParams();
  params.use = timing_.h2.session;
  stream_ = std::make_unique<Http2Stream>(std::move(session), params);
  next_state_ = STATE_INIT_STREAM;
  return OK;
}

// HTTP/3 -----------------------------------------------------------------

bool HttpNetworkTransaction::Http3Allowed() {
  alt_svc_.reset();
  // (HTTP_1_1_REQUIRED: the server asked for HTTP/1.1, not HTTP/3 either.)
  if (!timing_.https || proxy_ || http3_failed_ || RequiresHttp11())
    return false;
  const Origin origin(request_.url.scheme(), request_.url.host(),
                      request_.url.port());
  if (!session_->params().http3) {
    // Discovery: an earlier response of the origin offered h3.
    if (session_->params().alt_svc_h3)
      alt_svc_ = session_->alt_svc_cache()->GetHttp3(origin, absl::Now());
    // Or an HTTPS record did, and the session it led to is open (the
    // lookup happens in the TCP connect job: OnHostResolved).
    if (!alt_svc_ && !(session_->params().h3_https_rr &&
                       session_->http3_session_pool()->Find(origin)))
      return false;
  }
  std::string broken = session_->http3_session_pool()->BrokenReason(origin);
  if (!broken.empty()) {
    timing_.quic.fallback =
        absl::StrCat("QUIC marked broken for this origin (", broken, ")");
    return false;
  }
  return true;
}

void HttpNetworkTransaction::NoteAltSvc() {
  if (!timing_.https || !session_->params().alt_svc_h3 || proxy_) return;
  // Several Alt-Svc lines are one list (RFC 9110 5.3).
  std::string value;
  for (const auto& [name, v] : stream_->response_headers()->headers()) {
    if (absl::EqualsIgnoreCase(name, "alt-svc"))
      absl::StrAppend(&value, value.empty() ? "" : ", ", v);
  }
  if (value.empty()) return;
  session_->alt_svc_cache()->OnHeader(
      Origin(request_.url.scheme(), request_.url.host(), request_.url.port()),
      value, absl::Now());
}

int HttpNetworkTransaction::UseHttp3() {
  Http3Stream::Params params = session_->Http3StreamParams();
  params.timing = &timing_;
  if (alt_svc_) {
    params.alt_host = alt_svc_->host;
    params.alt_port = alt_svc_->port;
    timing_.quic.alt_svc = alt_svc_->header;
  }
  // A QUIC connection holds no slot of the HTTP/1.1 limit.
  socket_slot_.reset();
  stream_ = std::make_unique<Http3Stream>(std::move(params));
  next_state_ = STATE_INIT_STREAM;
  return OK;
}

bool HttpNetworkTransaction::Http3FromHttpsRecordAllowed() const {
  return session_->Http3FromHttpsRecordAllowed() && timing_.https && !proxy_ &&
         !tcp_without_https_record_;
}

int HttpNetworkTransaction::UseHttp3FromHttpsRecord() {
  HostResolveResult lookup = *std::move(h3_record_lookup_);
  h3_record_lookup_.reset();
  int rv = UseHttp3();
  Http3Stream* stream = static_cast<Http3Stream*>(stream_.get());
  stream->SetResolved(std::move(lookup));
  timing_.quic.https_record = h3_record_;
  return rv;
}

bool HttpNetworkTransaction::MaybeFallBackToTcp(int error) {
  std::string reason;
  if (!stream_ || !stream_->ShouldFallBackToTcp(error, &reason)) return false;
  http3_failed_ = true;
  const Origin origin(request_.url.scheme(), request_.url.host(),
                      request_.url.port());
  session_->http3_session_pool()->MarkBroken(origin, reason);
  stream_.reset();
  // The trace shows the TCP connection; the QUIC attempt is its reason.
  const std::string close_reason = timing_.quic.close_reason;
  timing_.quic = QuicTrace();
  timing_.quic.close_reason = close_reason;
  timing_.quic.fallback = absl::StrCat(reason, "; retried over TCP");
  if (alt_svc_) timing_.quic.alt_svc = alt_svc_->header;
  timing_.quic.https_record = h3_record_;
  timing_.ssl = SSLInfo();
  // The QUIC handshake's cert.bundle facts; TCP's handshake tells its own.
  timing_.cert_bundle = CertBundleTrace();
  timing_.socket_reused = false;
  timing_.socket_preconnected = false;
  timing_.remote_address.clear();
  timing_.dns_start = TimeTicks();
  timing_.dns_end = TimeTicks();
  timing_.dns_source = DnsSource::kNone;
  timing_.connect_start = TimeTicks();
  timing_.ssl_start = TimeTicks();
  timing_.connect_end = TimeTicks();
  timing_.request_start = TimeTicks();
  timing_.response_start = TimeTicks();
  next_state_ = STATE_INIT_CONNECTION;
  return true;
}

}  // namespace net
