#include "net/http/http_network_transaction.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "net/base/check.h"
#include "net/http/cookie_jar.h"
#include "net/http/ssl_connect_job.h"
#include "net/socket/transport_connect_job.h"
#include "net/snap_start/snap_start_client_context.h"
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
  timing_.https = request_.url.SchemeIsCryptographic();
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
  const HttpResponseHeaders* headers =
      parser_ ? parser_->response_headers() : nullptr;
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
    if (phase == ConnectJob::Phase::kResolveHost) {
      error_detail_ = absl::StrCat("resolving '", request_.url.host(),
                                   "' did not finish within ", limit);
    } else if (phase == ConnectJob::Phase::kTransportConnect) {
      error_detail_ = absl::StrCat("connecting to ", timing_.remote_address,
                                   " did not finish within ", limit);
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
  parser_.reset();
  socket_.reset();
  spdy_stream_.reset();
  cert_request_.reset();
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
      case STATE_SPDY_GET_CERT:
        rv = DoSpdyGetCert();
        break;
      case STATE_SPDY_GET_CERT_COMPLETE:
        rv = DoSpdyGetCertComplete(rv);
        break;
      case STATE_SPDY_SEND_REQUEST:
        rv = DoSpdySendRequest();
        break;
      case STATE_SPDY_SEND_REQUEST_COMPLETE:
        rv = DoSpdySendRequestComplete(rv);
        break;
      case STATE_SPDY_READ_HEADERS:
        rv = DoSpdyReadHeaders();
        break;
      case STATE_SPDY_READ_HEADERS_COMPLETE:
        rv = DoSpdyReadHeadersComplete(rv);
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
  return absl::StrCat(request_.url.scheme(), "://", request_.url.host(), ":",
                      request_.url.port());
}

int HttpNetworkTransaction::DoInitConnection() {
  // Time spent waiting here (for another request's connection or a free
  // slot of the group) counts from the first visit.
  if (timing_.fetch_start.is_null())
    timing_.fetch_start = session_->clock()->NowTicks();
  if (SpdyAllowed()) {
    // An open session to the origin (its own, or one it was pooled onto
    // earlier) carries the request; if another request is making the
    // origin's connection, wait for it and look again.
    const Origin origin(request_.url.scheme(), request_.url.host(),
                        request_.url.port());
    if (SpdySession* s =
            session_->spdy_session_pool()->FindAvailableSession(origin)) {
      if (!spdy_no_pooling_ || s->origin() == origin)
        return UseSpdySession(s, s->origin() == origin ? "reused" : "pooled");
    }
    if (!owns_spdy_connect_ && !session_->KnownNoSpdy(PoolKey())) {
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
      socket_ = std::move(idle);
      reused_socket_ = true;
      timing_.socket_reused = true;
      timing_.socket_preconnected = preconnected;
      timing_.dns_source = preconnected ? "preconnect" : "reused";
      // An idle HTTP/1.1 connection: nobody need wait for this one.
      EndSpdyConnect();
      if (const SSLInfo* info = socket_->GetSSLInfo()) timing_.ssl = *info;
      IPEndPoint peer;
      if (socket_->GetPeerAddress(&peer) == OK)
        timing_.remote_address = peer.ToString();
      next_state_ = STATE_SEND_REQUEST;
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
  TransportConnectJob::Options options;
  options.clock = session_->clock();
  if (reuse_addresses_) {
    // A retry on a new connection: no new lookup (the trace keeps the
    // first), the address that answered first.
    options.resolved = resolve_result_;
    options.first_address = address_index_;
  } else if (SpdyAllowed() && !spdy_no_pooling_) {
    options.on_host_resolved = [this](const HostResolveResult& result) {
      return OnHostResolved(result);
    };
  }
  reuse_addresses_ = false;
  const std::string& host = request_.url.host();
  const uint16_t port = request_.url.port();
  if (timing_.https) {
    SSLConnectJobParams params;
    params.host = host;
    params.port = port;
    params.connect_timeout = session_->params().connect_timeout;
    params.ssl_config = session_->params().ssl_config;
    params.ssl_config.early_data_enabled =
        params.ssl_config.early_data_enabled && CanSendEarlyData();
    params.ssl_context = session_->ssl_client_context();
    params.snap_start_context = session_->params().snap_start_context;
    params.snap_start_learn_in_handshake =
        session_->params().snap_start_learn_in_handshake;
    params.transport = std::move(options);
    connect_job_ = std::make_unique<SSLConnectJob>(
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
    timing_.dns_start = t.dns_start;
    timing_.dns_end = t.dns_end;
    timing_.dns_source = t.dns_source;
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
    SpdySession* s = pooled_session_.get();
    pooled_session_ = WeakPtr<SpdySession>();
    if (!s) {
      return MaybeRetrySpdy(ERR_SPDY_SERVER_REFUSED_STREAM)
                 ? OK
                 : ERR_SPDY_SERVER_REFUSED_STREAM;
    }
    const Origin origin(request_.url.scheme(), request_.url.host(),
                        request_.url.port());
    return UseSpdySession(s, s->origin() == origin ? "reused" : "pooled");
  }
  if (connect_job_->ssl_info()) OnHandshakeDone(result);
  if (result != OK) {
    switch (connect_job_->phase()) {
      case ConnectJob::Phase::kResolveHost: {
        const HostResolveResult& resolved = connect_job_->resolve_result();
        error_detail_ = absl::StrCat("could not resolve host '",
                                     request_.url.host(), "'",
                                     resolved.detail.empty() ? "" : ": ",
                                     resolved.detail);
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
  socket_ = connect_job_->TakeSocket();
  connect_job_.reset();
  if (!timing_.https) {
    next_state_ = STATE_SEND_REQUEST;
    return OK;
  }
  if (SpdyAllowed() && timing_.ssl.alpn == "spdy/3") {
    // A new SPDY session: first the OBC the handshake presented, if any.
    spdy_session_ = WeakPtr<SpdySession>();
    timing_.spdy.session = "new";
    next_state_ = STATE_SPDY_GET_CERT;
    return OK;
  }
  // HTTP/1.1: whoever waits on this origin makes its own connection.
  if (SpdyAllowed()) {
    session_->NoteNoSpdy(PoolKey());
    if (!spdy_ip_key_.empty()) session_->NoteNoSpdy(spdy_ip_key_);
  }
  EndSpdyConnect();
  next_state_ = STATE_SEND_REQUEST;
  return OK;
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

bool HttpNetworkTransaction::HasExtraHeader(absl::string_view name) const {
  for (const auto& [n, v] : request_.extra_headers) {
    if (absl::EqualsIgnoreCase(n, name)) return true;
  }
  return false;
}

std::string HttpNetworkTransaction::BuildRequest() const {
  std::string request = absl::StrCat(
      request_.method, " ", request_.url.PathForRequest(), " HTTP/1.1\r\n");
  if (!HasExtraHeader("host"))
    absl::StrAppend(&request, "Host: ", request_.url.HostHeader(), "\r\n");
  if (!HasExtraHeader("user-agent"))
    absl::StrAppend(&request, "User-Agent: netstack-fetch/0.1\r\n");
  if (!HasExtraHeader("accept")) absl::StrAppend(&request, "Accept: */*\r\n");
  if (!HasExtraHeader("connection"))
    absl::StrAppend(&request, "Connection: keep-alive\r\n");
  for (const auto& [name, value] : request_.extra_headers) {
    absl::StrAppend(&request, name, ": ", value, "\r\n");
  }
  if (!cookie_header_.empty())
    absl::StrAppend(&request, "Cookie: ", cookie_header_, "\r\n");
  if (!request_.upload_body.empty() || request_.method == "POST") {
    absl::StrAppend(&request, "Content-Length: ", request_.upload_body.size(),
                    "\r\n");
  }
  request += "\r\n";
  request += request_.upload_body;
  return request;
}

int HttpNetworkTransaction::DoSendRequest() {
  timing_.request_start = TimeTicks();
  // RFC 6265 5.4: one Cookie header; a caller's own wins over the jar's.
  cookie_header_.clear();
  if (CookieJar* jar = session_->cookie_jar(); jar && !HasExtraHeader("cookie"))
    cookie_header_ = jar->CookieHeaderFor(request_.url, absl::Now());
  parser_ = std::make_unique<HttpStreamParser>(socket_.get(), &timing_,
                                               session_->clock());
  next_state_ = STATE_SEND_REQUEST_COMPLETE;
  return parser_->SendRequest(BuildRequest(), request_.method == "HEAD",
                              IOCallback());
}

void HttpNetworkTransaction::NoteSnapStartRejection() {
  if (snap_start_rejection_.empty()) return;
  timing_.ssl.snap_start = "rejected";
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
  return (request_.method == "GET" || request_.method == "HEAD") &&
         request_.upload_body.empty() && early_data_rejection_.empty() &&
         !SpdyAllowed();
}

void HttpNetworkTransaction::NoteEarlyDataRejection() {
  if (early_data_rejection_.empty()) {
    // Early data was asked for but this request may not use it: say why.
    if (session_->params().ssl_config.early_data_enabled && timing_.https &&
        !CanSendEarlyData() && timing_.ssl.early_data == "not_offered") {
      timing_.ssl.early_data_reason =
          request_.method != "GET" && request_.method != "HEAD"
              ? absl::StrCat(request_.method, " request is not idempotent")
          : !request_.upload_body.empty()
              ? absl::StrCat(request_.method, " request has a body")
              : "SPDY/3 offered: its session would carry every stream early";
    }
    return;
  }
  timing_.ssl.early_data = "rejected";
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
    const SSLInfo* info = socket_ ? socket_->GetSSLInfo() : nullptr;
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
    const SSLInfo* info = socket_ ? socket_->GetSSLInfo() : nullptr;
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
  parser_.reset();
  socket_.reset();
  reused_socket_ = false;
  timing_.socket_reused = false;
  timing_.socket_preconnected = false;
  timing_.request_start = TimeTicks();
  timing_.response_start = TimeTicks();
  reuse_addresses_ = reuse_addresses;
  next_state_ = STATE_CONNECT;
}

void HttpNetworkTransaction::OnBodyDone(int result) {
  request_timer_.Stop();
  if (result < 0) {
    error_detail_ = parser_->error_detail();
    Finish(result);
  } else if (socket_ && parser_->CanReuseConnection()) {
    if (socket_slot_) {
      // To the next request waiting for the group, or the idle pool.
      session_->ReleaseSocketSlot(std::move(socket_slot_), std::move(socket_));
    } else {
      session_->ReturnIdleSocket(PoolKey(), std::move(socket_));
    }
  } else if (socket_) {
    // Not reusable (close-delimited, Connection: close): closed now, so
    // the group's next request may connect in its place.
    socket_->Disconnect();
    socket_slot_.reset();
  }
}

int HttpNetworkTransaction::DoSendRequestComplete(int result) {
  if (result < 0) {
    if (MaybeRetryOnNewConnection(result)) return OK;
    error_detail_ = "sending the request failed";
    return result;
  }
  next_state_ = STATE_READ_HEADERS;
  return OK;
}

int HttpNetworkTransaction::DoReadHeaders() {
  next_state_ = STATE_READ_HEADERS_COMPLETE;
  return parser_->ReadResponseHeaders(IOCallback());
}

int HttpNetworkTransaction::DoReadHeadersComplete(int result) {
  if (result < 0) {
    if (MaybeRetryOnNewConnection(result)) return OK;
    error_detail_ = parser_->error_detail();
    return result;
  }
  timing_.status_code = parser_->response_headers()->status_code();
  // A Snap Start attempt's outcome is known only once the server answered.
  if (handshake_awaits_response_) {
    handshake_awaits_response_ = false;
    if (const SSLInfo* info = socket_->GetSSLInfo()) timing_.ssl = *info;
    NoteSnapStartRejection();
    NoteEarlyDataRejection();
    // The Snap Start (or 0-RTT) handshake has only now really ended.
    if (TlsHandshakeObserver* observer = session_->params().tls_observer) {
      observer->OnTlsHandshakeDone(request_.url.host(), request_.url.port(), OK,
                                   &timing_);
    }
  }
  SaveCookies();
  last_progress_ = TimeTicks::Now();
  // Headers-only responses (HEAD, 204, 304) may already be complete.
  if (parser_->IsResponseBodyComplete()) OnBodyDone(OK);
  return OK;
}

void HttpNetworkTransaction::SaveCookies() {
  CookieJar* jar = session_->cookie_jar();
  if (!jar) return;
  absl::Time now = absl::Now();
  for (const auto& [name, value] : response_headers()->headers()) {
    if (!absl::EqualsIgnoreCase(name, "set-cookie")) continue;
    absl::Status status = jar->SetCookie(request_.url, value, now);
    if (!status.ok()) rejected_cookies_.emplace_back(status.message());
  }
}

int HttpNetworkTransaction::Read(std::shared_ptr<IOBuffer> buf, int len,
                                 CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (final_error_ != OK) return final_error_;
  if (spdy_response_headers_)
    return ReadSpdyBody(std::move(buf), len, std::move(callback));
  if (!parser_ || !parser_->response_headers()) return ERR_UNEXPECTED;
  if (parser_->IsResponseBodyComplete()) return 0;
  // A caller that reads again at once after every synchronous result never
  // lets the event loop run the deadline's timer: check it here.
  if (DeadlinePassed()) return TimeOut(/*body_read_pending=*/false);
  int rv = parser_->ReadResponseBody(
      std::move(buf), len, [this, weak = weak_factory_.GetWeakPtr()](int rv) {
        if (!weak) return;
        if (rv > 0) last_progress_ = TimeTicks::Now();
        if (rv <= 0 || parser_->IsResponseBodyComplete()) OnBodyDone(rv);
        CompletionOnceCallback cb = std::move(callback_);
        callback_ = nullptr;
        std::move(cb)(rv);
      });
  if (rv == ERR_IO_PENDING) {
    callback_ = std::move(callback);
    return rv;
  }
  if (rv > 0) last_progress_ = TimeTicks::Now();
  if (rv <= 0 || parser_->IsResponseBodyComplete()) OnBodyDone(rv);
  return rv;
}

const HttpResponseHeaders* HttpNetworkTransaction::response_headers() const {
  if (spdy_response_headers_) return &*spdy_response_headers_;
  return parser_ ? parser_->response_headers() : nullptr;
}

// SPDY -------------------------------------------------------------------

bool HttpNetworkTransaction::SpdyAllowed() const {
  return timing_.https && session_->spdy_enabled() &&
         session_->params().snap_start_context == nullptr;
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

int HttpNetworkTransaction::OnHostResolved(const HostResolveResult& result) {
  // IP pooling: an open session to one of these addresses whose
  // certificate covers this host carries the request, with no new
  // connection or handshake.
  MergeConnectTiming();
  std::vector<IPEndPoint> endpoints;
  for (const IPAddress& address : result.addresses)
    endpoints.emplace_back(address, request_.url.port());
  const Origin origin(request_.url.scheme(), request_.url.host(),
                      request_.url.port());
  if (SpdySession* s = session_->spdy_session_pool()->FindSessionForPooling(
          origin, endpoints)) {
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
  if (spdy_ip_key_.empty() && !session_->KnownNoSpdy(ip_key)) {
    if (!session_->BeginSpdyConnect(ip_key)) {
      session_->WaitForSpdyConnect(ip_key, [weak = weak_factory_.GetWeakPtr()] {
        if (weak && weak->connect_job_)
          weak->connect_job_->ResumeAfterHostResolved();
      });
      return ERR_IO_PENDING;
    }
    spdy_ip_key_ = ip_key;
  }
  return OK;
}

int HttpNetworkTransaction::UseSpdySession(SpdySession* session,
                                           const char* how) {
  spdy_session_ = session->GetWeakPtr();
  timing_.spdy.session = how;
  // A SPDY session's connection holds no slot of the HTTP/1.1 limit.
  socket_slot_.reset();
  if (std::string(how) != "new") {
    // No connection of its own: the session's.
    timing_.socket_reused = true;
    if (timing_.dns_source.empty()) timing_.dns_source = "reused";
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
  next_state_ = STATE_SPDY_GET_CERT;
  return OK;
}

int HttpNetworkTransaction::DoSpdyGetCert() {
  next_state_ = STATE_SPDY_GET_CERT_COMPLETE;
  ClientCertProvider* provider =
      session_->params().ssl_config.client_cert_provider;
  // The OBC matters only on a session whose handshake presented one (the
  // server asked for client certificates).
  const SSLInfo* info =
      spdy_session_ ? spdy_session_->socket()->GetSSLInfo() : &timing_.ssl;
  if (!provider || !info || info->obc.source == ObcSource::kNone ||
      have_client_cert_)
    return OK;
  client_cert_ = ClientCert();
  return provider->GetClientCert(
      Origin(request_.url.scheme(), request_.url.host(), request_.url.port()),
      &client_cert_, IOCallback(), &cert_request_);
}

int HttpNetworkTransaction::DoSpdyGetCertComplete(int result) {
  cert_request_.reset();
  if (result != OK) {
    error_detail_ = "no origin-bound certificate for the SPDY stream";
    EndSpdyConnect();
    return result;
  }
  have_client_cert_ = !client_cert_.cert_der.empty();
  if (!spdy_session_) {
    // The session this request was to use is gone: another one.
    if (!socket_) {
      return MaybeRetrySpdy(ERR_SPDY_SERVER_REFUSED_STREAM)
                 ? OK
                 : ERR_SPDY_SERVER_REFUSED_STREAM;
    }
    int rv = StartSpdySession();
    if (rv != OK) return rv;
  }
  next_state_ = STATE_SPDY_SEND_REQUEST;
  return OK;
}

int HttpNetworkTransaction::StartSpdySession() {
  SpdySessionParams params;
  params.origin =
      Origin(request_.url.scheme(), request_.url.host(), request_.url.port());
  if (have_client_cert_) params.handshake_cert_der = client_cert_.cert_der;
  // RFC 5705 keying material for CREDENTIAL proofs (the session owns the
  // socket and outlives the exporter's uses).
  StreamSocket* tls = socket_.get();
  params.export_keying_material = [tls](absl::string_view label, size_t length,
                                        std::string* out) {
    out->assign(length, '\0');
    return tls->ExportKeyingMaterial(
        label, kSpdyCredentialExporterHasContext, "",
        reinterpret_cast<uint8_t*>(out->data()), length);
  };
  auto session = std::make_unique<SpdySession>(std::move(socket_), params);
  SpdySession* raw =
      session_->spdy_session_pool()->InsertSession(std::move(session));
  raw->Start();
  spdy_session_ = raw->GetWeakPtr();
  socket_slot_.reset();
  // The origin's session exists: those waiting for it may use it now.
  EndSpdyConnect();
  return OK;
}

int HttpNetworkTransaction::DoSpdySendRequest() {
  SpdySession* session = spdy_session_.get();
  if (!session) return ERR_SPDY_SERVER_REFUSED_STREAM;
  timing_.spdy.used = true;
  {
    IPEndPoint local;
    std::string via;
    if (session->socket() && session->socket()->GetLocalAddress(&local) == OK)
      via = local.ToString();
    timing_.spdy.session_id =
        absl::StrCat(session->origin().Serialize(), " via ", via);
  }
  SpdyStreamParams params;
  params.origin =
      Origin(request_.url.scheme(), request_.url.host(), request_.url.port());
  params.client_cert = have_client_cert_ ? &client_cert_ : nullptr;
  int rv = session->CreateStream(params, &spdy_stream_);
  if (rv != OK) {
    if (MaybeRetrySpdy(rv)) return OK;
    return rv;
  }
  cookie_header_.clear();
  if (CookieJar* jar = session_->cookie_jar(); jar && !HasExtraHeader("cookie"))
    cookie_header_ = jar->CookieHeaderFor(request_.url, absl::Now());
  std::vector<std::pair<std::string, std::string>> headers;
  if (!HasExtraHeader("user-agent"))
    headers.emplace_back("user-agent", "netstack-fetch/0.1");
  if (!HasExtraHeader("accept")) headers.emplace_back("accept", "*/*");
  for (const auto& header : request_.extra_headers) headers.push_back(header);
  if (!cookie_header_.empty()) headers.emplace_back("cookie", cookie_header_);
  if (!request_.upload_body.empty() || request_.method == "POST") {
    headers.emplace_back("content-length",
                         absl::StrCat(request_.upload_body.size()));
  }
  timing_.request_start = session_->clock()->NowTicks();
  next_state_ = STATE_SPDY_SEND_REQUEST_COMPLETE;
  return spdy_stream_->SendRequest(
      MakeSpdyRequestHeaders(request_.method, request_.url, headers),
      request_.upload_body, IOCallback());
}

int HttpNetworkTransaction::DoSpdySendRequestComplete(int result) {
  if (result != OK) {
    if (MaybeRetrySpdy(result)) return OK;
    error_detail_ = "sending the request on the SPDY stream failed";
    return result;
  }
  next_state_ = STATE_SPDY_READ_HEADERS;
  return OK;
}

int HttpNetworkTransaction::DoSpdyReadHeaders() {
  next_state_ = STATE_SPDY_READ_HEADERS_COMPLETE;
  return spdy_stream_->ReadResponseHeaders(IOCallback());
}

int HttpNetworkTransaction::DoSpdyReadHeadersComplete(int result) {
  timing_.spdy.stream_id = spdy_stream_->stream_id();
  timing_.spdy.credential_slot = spdy_stream_->credential_slot();
  timing_.spdy.credential_sent = spdy_stream_->sent_credential();
  if (result != OK) {
    if (MaybeRetrySpdy(result)) return OK;
    error_detail_ = absl::StrCat("SPDY stream ", spdy_stream_->stream_id(),
                                 " failed: ", ErrorToShortString(result));
    return result;
  }
  timing_.response_start = session_->clock()->NowTicks();
  const SpdyHeaderBlock& block = spdy_stream_->response_headers();
  const int status = SpdyResponseStatus(block);
  if (status < 0) {
    error_detail_ = "the SYN_REPLY has no valid :status";
    return ERR_SPDY_PROTOCOL_ERROR;
  }
  // The response as an HTTP/1.1 head, so everything above reads it alike.
  std::string raw = absl::StrCat("HTTP/1.1 ", status, "\r\n");
  for (const auto& [name, value] : block) {
    if (!name.empty() && name[0] == ':') continue;
    for (absl::string_view v : absl::StrSplit(value, '\0'))
      absl::StrAppend(&raw, name, ": ", v, "\r\n");
  }
  raw += "\r\n";
  timing_.header_bytes = raw.size();
  absl::StatusOr<HttpResponseHeaders> parsed = HttpResponseHeaders::Parse(raw);
  if (!parsed.ok()) {
    error_detail_ = std::string(parsed.status().message());
    return HttpResponseHeaders::NetErrorForParseFailure(parsed.status());
  }
  spdy_response_headers_ = *std::move(parsed);
  timing_.status_code = status;
  SaveCookies();
  last_progress_ = TimeTicks::Now();
  return OK;
}

bool HttpNetworkTransaction::MaybeRetrySpdy(int error) {
  if (spdy_retries_ >= 3) return false;
  const bool pooled = timing_.spdy.session == "pooled";
  if ((error == ERR_SPDY_INVALID_CREDENTIALS ||
       error == ERR_SPDY_CREDENTIAL_UNAVAILABLE) &&
      pooled) {
    // The server wants this origin on a connection of its own (or its OBC
    // cannot be presented on the pooled one): a direct connection.
    spdy_no_pooling_ = true;
    timing_.spdy.retry = absl::StrCat(ErrorToShortString(error),
                                      ": retried on a direct connection");
  } else if (error == ERR_SPDY_SERVER_REFUSED_STREAM) {
    timing_.spdy.retry = "refused stream (GOAWAY): retried on a new session";
  } else {
    return false;
  }
  ++spdy_retries_;
  spdy_stream_.reset();
  spdy_session_ = WeakPtr<SpdySession>();
  socket_.reset();
  reused_socket_ = false;
  timing_.socket_reused = false;
  timing_.dns_start = TimeTicks();
  timing_.dns_end = TimeTicks();
  timing_.connect_start = TimeTicks();
  timing_.ssl_start = TimeTicks();
  timing_.connect_end = TimeTicks();
  timing_.request_start = TimeTicks();
  timing_.response_start = TimeTicks();
  next_state_ = STATE_INIT_CONNECTION;
  return true;
}

int HttpNetworkTransaction::ReadSpdyBody(std::shared_ptr<IOBuffer> buf, int len,
                                         CompletionOnceCallback callback) {
  if (spdy_body_done_ || !spdy_stream_) return 0;
  if (DeadlinePassed()) return TimeOut(/*body_read_pending=*/false);
  // A peer that resets a stream after sending every byte its
  // Content-Length promised has lost us nothing: the body is complete (seen
  // from node-spdy around a GOAWAY). Without a length, a reset stays an
  // error: the body may be cut short.
  auto settle = [this](int rv) {
    const HttpResponseHeaders* headers = response_headers();
    if (rv == ERR_SPDY_STREAM_RESET && headers &&
        headers->content_length() >= 0 &&
        timing_.body_bytes == headers->content_length())
      return 0;
    return rv;
  };
  auto on_result = [this](int rv) {
    if (rv > 0) {
      timing_.body_bytes += rv;
      last_progress_ = TimeTicks::Now();
    } else {
      spdy_body_done_ = true;
      request_timer_.Stop();
      timing_.response_end = session_->clock()->NowTicks();
      if (rv < 0) {
        error_detail_ = absl::StrCat("SPDY stream ", spdy_stream_->stream_id(),
                                     " failed: ", ErrorToShortString(rv));
        final_error_ = rv;
        Finish(rv);
      }
    }
  };
  int rv = spdy_stream_->ReadBody(
      std::move(buf), len,
      [this, on_result, settle, weak = weak_factory_.GetWeakPtr()](int rv) {
        if (!weak) return;
        rv = settle(rv);
        on_result(rv);
        CompletionOnceCallback cb = std::move(callback_);
        callback_ = nullptr;
        if (cb) std::move(cb)(rv);
      });
  if (rv == ERR_IO_PENDING) {
    callback_ = std::move(callback);
    return rv;
  }
  rv = settle(rv);
  on_result(rv);
  return rv;
}

}  // namespace net
