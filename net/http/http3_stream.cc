#include "net/http/http3_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/http/http2_stream.h"
#include "net/http/http_network_session.h"
#include "net/http/multiplexed_response_head.h"

namespace net {

Http3Stream::Http3Stream(Params params) : params_(std::move(params)) {}

Http3Stream::~Http3Stream() = default;

void Http3Stream::SetResolved(HostResolveResult lookup) {
  preresolved_ = std::move(lookup);
}

int Http3Stream::InitializeStream(const HttpRequestInfo* request,
                                  CompletionOnceCallback callback) {
  request_ = request;
  origin_ =
      Origin(request->url.scheme(), request->url.host(), request->url.port());
  next_state_ = STATE_FIND_SESSION;
  int rv = DoLoop(OK);
  if (rv == ERR_IO_PENDING) callback_ = std::move(callback);
  return rv;
}

void Http3Stream::OnIOComplete(int result) {
  int rv = DoLoop(result);
  if (rv == ERR_IO_PENDING) return;
  CompletionOnceCallback cb = std::move(callback_);
  callback_ = nullptr;
  if (cb) std::move(cb)(rv);
}

int Http3Stream::DoLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_FIND_SESSION:
        rv = DoFindSession();
        break;
      case STATE_WAIT_FOR_SESSION_COMPLETE:
        rv = DoWaitForSessionComplete(rv);
        break;
      case STATE_RESOLVE:
        rv = DoResolve();
        break;
      case STATE_RESOLVE_COMPLETE:
        rv = DoResolveComplete(rv);
        break;
      case STATE_CONNECT:
        rv = DoConnect();
        break;
      case STATE_CONNECT_COMPLETE:
        rv = DoConnectComplete(rv);
        break;
      case STATE_CREATE_STREAM:
        rv = DoCreateStream();
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

int Http3Stream::DoFindSession() {
  Http3Session* session = params_.pool->Find(origin_);
  if (!session && preresolved_) {
    // The lookup is done (the trace has its dns points): straight to the
    // record's endpoint.
    resolved_ = *std::move(preresolved_);
    preresolved_.reset();
    params_.quic.port = resolved_.https.port.value_or(request_->url.port());
    next_state_ = resolved_.addresses.empty() ? STATE_RESOLVE : STATE_CONNECT;
    return OK;
  }
  if (!session) {
    next_state_ = STATE_RESOLVE;
    return OK;
  }
  session_ = session->GetWeakPtr();
  on_session_ = true;
  if (session->state() == Http3Session::State::kConnecting) {
    // Another request is making the origin's connection: share it.
    next_state_ = STATE_WAIT_FOR_SESSION_COMPLETE;
    session->WaitForConnect([weak = weak_factory_.GetWeakPtr()](int rv) {
      if (weak) weak->OnIOComplete(rv);
    });
    return ERR_IO_PENDING;
  }
  next_state_ = STATE_CREATE_STREAM;
  return OK;
}

int Http3Stream::DoWaitForSessionComplete(int result) {
  if (result != OK) {
    // The connection this request waited for failed: its failure is this
    // request's too (and QUIC's, so it may fall back).
    connect_failed_ = true;
    connect_error_ = result;
    error_detail_ = session_ ? session_->error_detail()
                             : absl::StrCat(
                                   "the origin's QUIC connection "
                                   "failed: ",
                                   ErrorToShortString(result));
    return result;
  }
  next_state_ = STATE_CREATE_STREAM;
  return OK;
}

int Http3Stream::DoResolve() {
  next_state_ = STATE_RESOLVE_COMPLETE;
  std::string host = request_->url.host();
  uint16_t port = request_->url.port();
  if (params_.alt_port != 0) {
    if (!params_.alt_host.empty()) host = params_.alt_host;
    port = params_.alt_port;
  }
  if (params_.connect_to) {
    auto [to_host, to_port] = params_.connect_to->Apply(host, port);
    host = to_host;
    port = to_port;
  }
  params_.quic.port = port;
  LoadTiming* timing = params_.timing;
  timing->dns_start = params_.clock->NowTicks();
  return params_.resolver->Resolve(
      host, port, &resolved_,
      [weak = weak_factory_.GetWeakPtr()](int rv) {
        if (weak) weak->OnIOComplete(rv);
      },
      &resolve_request_);
}

int Http3Stream::DoResolveComplete(int result) {
  resolve_request_.reset();
  LoadTiming* timing = params_.timing;
  timing->dns_end = params_.clock->NowTicks();
  timing->dns_source = resolved_.source;
  if (result != OK || resolved_.addresses.empty()) {
    error_detail_ =
        absl::StrCat("could not resolve host '", request_->url.host(), "'",
                     resolved_.detail.empty() ? "" : ": ", resolved_.detail);
    return result != OK ? result : ERR_NAME_NOT_RESOLVED;
  }
  next_state_ = STATE_CONNECT;
  return OK;
}

int Http3Stream::DoConnect() {
  next_state_ = STATE_CONNECT_COMPLETE;
  // The first address (QUIC has no per-address fallback here: a failure
  // falls back to TCP, which tries each).
  const IPEndPoint peer(resolved_.addresses[0], params_.quic.port);
  LoadTiming* timing = params_.timing;
  timing->remote_address = peer.ToString();
  timing->connect_start = params_.clock->NowTicks();
  // Chromium's QUIC: the TLS handshake is the transport's handshake.
  timing->ssl_start = timing->connect_start;
  int rv;
  Http3Session* session = OpenSession(
      params_, origin_, peer,
      [weak = weak_factory_.GetWeakPtr()](int rv) {
        if (weak) weak->OnIOComplete(rv);
      },
      &rv);
  session_ = session->GetWeakPtr();
  on_session_ = true;
  new_session_ = true;
  return rv;
}

// static
Http3Session* Http3Stream::OpenSession(const Params& params,
                                       const Origin& origin,
                                       const IPEndPoint& peer,
                                       CompletionOnceCallback callback,
                                       int* result) {
  QuicSessionParams quic = params.quic;
  quic.host = origin.host();
  quic.clock = params.clock;
  Http3SessionParams http3 = params.http3;
  http3.origin = origin;
  Http3Session* session = params.pool->Insert(std::make_unique<Http3Session>(
      std::make_unique<QuicSession>(
          params.socket_factory->CreateDatagramClientSocket(),
          params.quic_context, quic),
      http3));
  *result = session->Connect(peer, std::move(callback));
  return session;
}

int Http3Stream::DoConnectComplete(int result) {
  LoadTiming* timing = params_.timing;
  NoteConnectionFacts();
  if (result == OK && !session_handshake_done_) {
    // Opened early for 0-RTT: the handshake has not ended yet.
    tls_observer_deferred_ = params_.tls_observer != nullptr;
  } else if (params_.tls_observer) {
    // The handshake ended (or the connection failed during it): told as a
    // TCP connection's TLS handshake is, before a fallback resets the trace.
    params_.tls_observer->OnTlsHandshakeDone(
        request_->url.host(), request_->url.port(), result, timing);
  }
  if (result != OK) {
    connect_failed_ = true;
    connect_error_ = result;
    error_detail_ =
        session_ && !session_->error_detail().empty()
            ? session_->error_detail()
            : absl::StrCat("QUIC connection to ", timing->remote_address,
                           " failed: ", ErrorToShortString(result));
    return result;
  }
  timing->connect_end = params_.clock->NowTicks();
  next_state_ = STATE_CREATE_STREAM;
  return OK;
}

int Http3Stream::DoCreateStream() {
  Http3Session* session = session_.get();
  LoadTiming* timing = params_.timing;
  if (!new_session_) {
    // No connection of its own: the session's, as any reused connection;
    // the first request on a preconnected session says so, as on a TCP
    // preconnected socket.
    timing->socket_reused = true;
    const bool preconnected = session && session->TakePreconnected();
    timing->socket_preconnected = preconnected;
    if (timing->dns_source == DnsSource::kNone)
      timing->dns_source =
          preconnected ? DnsSource::kPreconnect : DnsSource::kReused;
    if (session) timing->remote_address = session->quic()->peer().ToString();
  }
  if (!session) {
    error_detail_ = "the HTTP/3 session went away before the request";
    NotifyDeferredHandshake(ERR_HTTP3_SERVER_REFUSED_STREAM);
    return ERR_HTTP3_SERVER_REFUSED_STREAM;
  }
  NoteConnectionFacts();
  int rv = session->CreateStream(&stream_);
  if (rv != OK) {
    error_detail_ = session->error_detail().empty()
                        ? "the HTTP/3 session is going away"
                        : session->error_detail();
    NotifyDeferredHandshake(rv);
  }
  return rv;
}

void Http3Stream::NoteConnectionFacts() {
  Http3Session* session = session_.get();
  if (!session) return;
  LoadTiming* timing = params_.timing;
  QuicSession* quic = session->quic();
  ssl_info_ = quic->ssl_info();
  timing->ssl = ssl_info_;
  QuicConnectionFacts facts = quic->facts();
  QuicTrace& q = timing->quic;
  q.version = facts.version;
  q.session = new_session_ ? SessionUse::kNew : SessionUse::kReused;
  if (!facts.handshake_done.is_null()) {
    q.handshake = facts.handshake_done - facts.connect_start;
    session_handshake_done_ = true;
  }
  q.packets_sent = facts.packets.sent;
  q.packets_received = facts.packets.received;
  q.packets_lost = facts.packets.lost;
  q.zero_rtt = facts.zero_rtt;
  q.zero_rtt_reason = facts.zero_rtt_reason;
  q.handshake_rtts = facts.handshake_rtts;
  q.address_token = facts.address_token;
  if (stream_) q.sent_early = stream_->sent_early();
  q.close_reason = facts.close_reason;
  if (stream_) q.stream_id = stream_->stream_id();
}

int Http3Stream::SendRequest(CompletionOnceCallback callback) {
  if (!stream_) return ERR_HTTP3_SERVER_REFUSED_STREAM;
  LoadTiming* timing = params_.timing;
  timing->quic.used = true;
  Http2Headers headers = MakeHttp2RequestHeaders(*request_);
  headers_sent_.assign(headers.begin(), headers.end());
  timing->request_start = params_.clock->NowTicks();
  int rv = stream_->SendRequest(
      headers, request_->upload_body,
      [this, callback = std::move(callback)](int rv) mutable {
        params_.timing->quic.stream_id = stream_->stream_id();
        if (rv != OK) {
          error_detail_ = StreamFailure(rv);
          NotifyDeferredHandshake(rv);
        }
        std::move(callback)(rv);
      });
  timing->quic.stream_id = stream_->stream_id();
  if (rv != OK && rv != ERR_IO_PENDING) {
    error_detail_ = StreamFailure(rv);
    NotifyDeferredHandshake(rv);
  }
  return rv;
}

std::string Http3Stream::StreamFailure(int error) const {
  std::string detail =
      absl::StrCat("HTTP/3 stream ", stream_ ? stream_->stream_id() : -1,
                   " failed: ", ErrorToShortString(error));
  if (stream_ && !stream_->error_detail().empty())
    absl::StrAppend(&detail, " (", stream_->error_detail(), ")");
  return detail;
}

int Http3Stream::ReadResponseHeaders(CompletionOnceCallback callback) {
  if (!stream_) return ERR_HTTP3_SERVER_REFUSED_STREAM;
  int rv = stream_->ReadResponseHeaders(
      [this, callback = std::move(callback)](int rv) mutable {
        std::move(callback)(OnResponseHeaders(rv));
      });
  if (rv == ERR_IO_PENDING) return rv;
  return OnResponseHeaders(rv);
}

void Http3Stream::NotifyDeferredHandshake(int error) {
  if (!tls_observer_deferred_) return;
  tls_observer_deferred_ = false;
  NoteConnectionFacts();
  params_.tls_observer->OnTlsHandshakeDone(
      request_->url.host(), request_->url.port(),
      session_handshake_done_ ? OK : error, params_.timing);
}

int Http3Stream::OnResponseHeaders(int result) {
  LoadTiming* timing = params_.timing;
  NoteConnectionFacts();
  // A response (or an error after the handshake) ends a 0-RTT handshake.
  NotifyDeferredHandshake(result);
  if (result != OK) {
    error_detail_ = StreamFailure(result);
    return result;
  }
  timing->response_start = params_.clock->NowTicks();
  int rv = ParseMultiplexedResponseHead(
      HttpHeadFromFields(stream_->status(), stream_->response_headers()),
      timing, &response_headers_, &error_detail_);
  if (rv != OK) return rv;
  if (stream_->response_complete() && stream_->buffered_bytes() == 0)
    OnBodyResult(0);
  return OK;
}

const HttpResponseHeaders* Http3Stream::response_headers() const {
  return response_headers_ ? &*response_headers_ : nullptr;
}

void Http3Stream::OnBodyResult(int rv) {
  if (rv > 0) {
    params_.timing->body_bytes += rv;
    return;
  }
  body_done_ = true;
  params_.timing->response_end = params_.clock->NowTicks();
  NoteConnectionFacts();
  if (rv < 0) error_detail_ = StreamFailure(rv);
}

int Http3Stream::ReadResponseBody(std::shared_ptr<IOBuffer> buf, int len,
                                  CompletionOnceCallback callback) {
  if (body_done_ || !stream_) return 0;
  int rv =
      stream_->ReadBody(std::move(buf), len,
                        [this, callback = std::move(callback)](int rv) mutable {
                          OnBodyResult(rv);
                          std::move(callback)(rv);
                        });
  if (rv == ERR_IO_PENDING) return rv;
  OnBodyResult(rv);
  return rv;
}

bool Http3Stream::IsResponseBodyComplete() const {
  return body_done_ || !stream_;
}

std::unique_ptr<StreamSocket> Http3Stream::ReleaseConnection(bool* reusable) {
  // The session keeps its connection for its other streams.
  *reusable = false;
  return nullptr;
}

const SSLInfo* Http3Stream::GetSSLInfo() const {
  return ssl_info_.version.empty() ? nullptr : &ssl_info_;
}

bool Http3Stream::ShouldRetryOnAnotherStream(int error, bool* avoid_pooling) {
  if (error == ERR_HTTP3_SERVER_REFUSED_STREAM && !FailedBeforeHandshake()) {
    params_.timing->quic.close_reason.clear();
    return true;
  }
  return false;
}

bool Http3Stream::FailedBeforeHandshake() {
  // A session opened early (0-RTT) that never completed its handshake
  // failed to connect as surely as one whose Connect failed.
  if (connect_failed_) return true;
  Http3Session* session = session_.get();
  if (QuicSession* quic = session ? session->quic() : nullptr) {
    if (quic->handshake_completed()) session_handshake_done_ = true;
  }
  return on_session_ && !session_handshake_done_;
}

// static
bool Http3Stream::IsQuicConnectFailure(int error) {
  switch (GetNetErrorArea(error)) {
    case NetErrorArea::kQuic:
    case NetErrorArea::kConnection:
    case NetErrorArea::kTls:
      return true;
    default:
      return false;
  }
}

bool Http3Stream::ShouldFallBackToTcp(int error, std::string* reason) {
  if (!FailedBeforeHandshake()) return false;
  // A request refused because its session closed before the handshake
  // completed never reached the server: TCP as well.
  if (!IsQuicConnectFailure(error) && error != ERR_HTTP3_SERVER_REFUSED_STREAM)
    return false;
  *reason = absl::StrCat(ErrorToShortString(error), ": ", error_detail_);
  return true;
}

}  // namespace net
