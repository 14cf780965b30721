#include "net/quic/http3_session.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/base/check.h"

namespace net {
namespace {

// Unread body beyond which the buffer is compacted (its consumed prefix
// dropped), so a long stream read in small pieces stays bounded.
constexpr size_t kCompactThreshold = 64 * 1024;

absl::string_view RcbufView(nghttp3_rcbuf* buf) {
  nghttp3_vec v = nghttp3_rcbuf_get_buf(buf);
  return absl::string_view(reinterpret_cast<const char*>(v.base), v.len);
}

}  // namespace

std::string Http3ErrorCodeName(uint64_t code) {
  switch (code) {
    case NGHTTP3_H3_NO_ERROR:
      return "H3_NO_ERROR";
    case NGHTTP3_H3_GENERAL_PROTOCOL_ERROR:
      return "H3_GENERAL_PROTOCOL_ERROR";
    case NGHTTP3_H3_INTERNAL_ERROR:
      return "H3_INTERNAL_ERROR";
    case NGHTTP3_H3_STREAM_CREATION_ERROR:
      return "H3_STREAM_CREATION_ERROR";
    case NGHTTP3_H3_CLOSED_CRITICAL_STREAM:
      return "H3_CLOSED_CRITICAL_STREAM";
    case NGHTTP3_H3_FRAME_UNEXPECTED:
      return "H3_FRAME_UNEXPECTED";
    case NGHTTP3_H3_FRAME_ERROR:
      return "H3_FRAME_ERROR";
    case NGHTTP3_H3_EXCESSIVE_LOAD:
      return "H3_EXCESSIVE_LOAD";
    case NGHTTP3_H3_ID_ERROR:
      return "H3_ID_ERROR";
    case NGHTTP3_H3_SETTINGS_ERROR:
      return "H3_SETTINGS_ERROR";
    case NGHTTP3_H3_MISSING_SETTINGS:
      return "H3_MISSING_SETTINGS";
    case NGHTTP3_H3_REQUEST_REJECTED:
      return "H3_REQUEST_REJECTED";
    case NGHTTP3_H3_REQUEST_CANCELLED:
      return "H3_REQUEST_CANCELLED";
    case NGHTTP3_H3_REQUEST_INCOMPLETE:
      return "H3_REQUEST_INCOMPLETE";
    case NGHTTP3_H3_MESSAGE_ERROR:
      return "H3_MESSAGE_ERROR";
    case NGHTTP3_H3_CONNECT_ERROR:
      return "H3_CONNECT_ERROR";
    case NGHTTP3_H3_VERSION_FALLBACK:
      return "H3_VERSION_FALLBACK";
    case NGHTTP3_QPACK_DECOMPRESSION_FAILED:
      return "QPACK_DECOMPRESSION_FAILED";
    case NGHTTP3_QPACK_ENCODER_STREAM_ERROR:
      return "QPACK_ENCODER_STREAM_ERROR";
    case NGHTTP3_QPACK_DECODER_STREAM_ERROR:
      return "QPACK_DECODER_STREAM_ERROR";
    default:
      return absl::StrFormat("0x%x", code);
  }
}

int Http3ErrorCodeToNetError(uint64_t code) {
  switch (code) {
    case NGHTTP3_H3_REQUEST_REJECTED:
      return ERR_HTTP3_SERVER_REFUSED_STREAM;
    case NGHTTP3_QPACK_DECOMPRESSION_FAILED:
    case NGHTTP3_QPACK_ENCODER_STREAM_ERROR:
    case NGHTTP3_QPACK_DECODER_STREAM_ERROR:
      return ERR_HTTP3_QPACK_ERROR;
    case NGHTTP3_H3_MESSAGE_ERROR:
      return ERR_HTTP3_MESSAGE_ERROR;
    case NGHTTP3_H3_GENERAL_PROTOCOL_ERROR:
    case NGHTTP3_H3_STREAM_CREATION_ERROR:
    case NGHTTP3_H3_CLOSED_CRITICAL_STREAM:
    case NGHTTP3_H3_FRAME_UNEXPECTED:
    case NGHTTP3_H3_FRAME_ERROR:
    case NGHTTP3_H3_EXCESSIVE_LOAD:
    case NGHTTP3_H3_ID_ERROR:
    case NGHTTP3_H3_SETTINGS_ERROR:
    case NGHTTP3_H3_MISSING_SETTINGS:
      return ERR_HTTP3_PROTOCOL_ERROR;
    default:
      return ERR_HTTP3_STREAM_CLOSED;
  }
}

Http3Session::Http3Session(std::unique_ptr<QuicSession> quic,
                           Http3SessionParams params)
    : quic_(std::move(quic)), params_(std::move(params)) {
  quic_->set_delegate(this);
}

Http3Session::~Http3Session() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // Streams outlive us only as WeakPtr holders; they read the session gone.
  for (auto& entry : streams_) entry.second->session_ = WeakPtr<Http3Session>();
  streams_.clear();
  // QUIC first (its destructor may send CONNECTION_CLOSE and must not call
  // into a half-destroyed delegate), then nghttp3.
  quic_->set_delegate(nullptr);
  quic_.reset();
  h3_.reset();
}

int Http3Session::Connect(const IPEndPoint& peer,
                          CompletionOnceCallback callback) {
  int rv = quic_->Connect(peer, [weak = weak_factory_.GetWeakPtr()](int rv) {
    if (weak) weak->OnConnectDone(rv);
  });
  if (rv == ERR_IO_PENDING) {
    connect_callback_ = std::move(callback);
    if (quic_->in_early_data()) {
      // 0-RTT: HTTP/3's streams and replay-safe requests go now. Open from a
      // task, as a completed handshake would.
      rv = SetUpHttp3();
      if (rv != OK) {
        quic_->CloseWithApplicationError(NGHTTP3_H3_INTERNAL_ERROR, rv,
                                         "HTTP/3 setup in 0-RTT failed");
        return ERR_IO_PENDING;  // OnConnectDone reports it
      }
      quic_->ScheduleWrite();
      // Open at once: requests may be created now and go in 0-RTT, in the
      // client's first flight (the server's answers are read from a task).
      state_ = State::kOpen;
      connect_callback_ = nullptr;
      return OK;
    }
    return ERR_IO_PENDING;
  }
  // Failed at once (the socket could not be made).
  Closed(rv, quic_->error_detail());
  return rv;
}

void Http3Session::WaitForConnect(CompletionOnceCallback callback) {
  if (state_ == State::kConnecting) {
    connect_waiters_.push_back(std::move(callback));
    return;
  }
  int rv = state_ == State::kOpen ? OK
           : error_ != OK         ? error_
                                  : ERR_HTTP3_SERVER_REFUSED_STREAM;
  EventLoop::Current()->PostTask(
      [cb = std::move(callback), rv]() mutable { std::move(cb)(rv); });
}

void Http3Session::OnConnectDone(int rv) {
  if (rv == OK && state_ == State::kConnecting) state_ = State::kOpen;
  if (rv != OK) Closed(rv, quic_->error_detail());
  std::vector<CompletionOnceCallback> waiters = std::move(connect_waiters_);
  connect_waiters_.clear();
  CompletionOnceCallback cb = std::move(connect_callback_);
  connect_callback_ = nullptr;
  WeakPtr<Http3Session> weak = weak_factory_.GetWeakPtr();
  if (cb) std::move(cb)(rv);
  for (CompletionOnceCallback& waiter : waiters) {
    int result = rv;
    EventLoop::Current()->PostTask(
        [w = std::move(waiter), result]() mutable { std::move(w)(result); });
  }
}

int Http3Session::CreateStream(std::unique_ptr<Http3SessionStream>* stream) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ != State::kOpen) return ERR_HTTP3_SERVER_REFUSED_STREAM;
  stream->reset(new Http3SessionStream(weak_factory_.GetWeakPtr()));
  return OK;
}

// QuicSession::Delegate -----------------------------------------------------

int Http3Session::OnHandshakeCompleted() {
  int rv = SetUpHttp3();
  if (rv != OK) return rv;
  // Requests that waited for the handshake (not replay-safe, or rejected
  // in 0-RTT) go now, from tasks.
  std::vector<WeakPtr<Http3SessionStream>> waiting =
      std::move(waiting_for_handshake_);
  waiting_for_handshake_.clear();
  for (WeakPtr<Http3SessionStream>& s : waiting) {
    if (s) s->Poke();
  }
  return OK;
}

int Http3Session::OnEarlyDataRejected() {
  // ngtcp2 discarded every stream, ours and HTTP/3's control and QPACK
  // streams: nghttp3's state goes too, and the requests are submitted again
  // once the handshake completes (nothing of theirs reached the server,
  // RFC 9001 4.6.2).
  h3_.reset();
  for (auto& entry : streams_) {
    Http3SessionStream* s = entry.second;
    s->stream_id_ = -1;
    s->submitted_ = false;
    s->upload_offset_ = 0;
    s->upload_acked_ = 0;
    s->resend_ = true;
    waiting_for_handshake_.push_back(s->weak_factory_.GetWeakPtr());
  }
  streams_.clear();
  return OK;
}

int Http3Session::SetUpHttp3() {
  if (h3_) return OK;
  nghttp3_callbacks callbacks = {};
  callbacks.acked_stream_data = &Http3Session::OnAckedStreamData;
  callbacks.stream_close = &Http3Session::OnH3StreamClose;
  callbacks.recv_data = &Http3Session::OnRecvData;
  callbacks.deferred_consume = &Http3Session::OnDeferredConsume;
  callbacks.begin_headers = &Http3Session::OnBeginHeaders;
  callbacks.recv_header = &Http3Session::OnRecvHeader;
  callbacks.end_headers = &Http3Session::OnEndHeaders;
  callbacks.begin_trailers = &Http3Session::OnBeginHeaders;
  callbacks.recv_trailer = &Http3Session::OnRecvHeader;
  callbacks.end_trailers = &Http3Session::OnEndHeaders;
  callbacks.stop_sending = &Http3Session::OnStopSending;
  callbacks.end_stream = &Http3Session::OnEndStream;
  callbacks.reset_stream = &Http3Session::OnResetStream;
  callbacks.shutdown = &Http3Session::OnShutdown;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  settings.max_field_section_size = params_.max_field_section_size;
  settings.qpack_max_dtable_capacity = params_.qpack_max_dtable_capacity;
  settings.qpack_blocked_streams = params_.qpack_blocked_streams;
  nghttp3_conn* conn = nullptr;
  int rv = nghttp3_conn_client_new(&conn, &callbacks, &settings,
                                   nghttp3_mem_default(), this);
  if (rv != 0) return ERR_OUT_OF_MEMORY;
  h3_.reset(conn);
  // HTTP/3's control stream and QPACK's encoder and decoder streams
  // (RFC 9114 6.2.1, RFC 9204 4.2): the server allows at least 3.
  int64_t control, qpack_enc, qpack_dec;
  if (quic_->OpenUniStream(&control) != OK ||
      quic_->OpenUniStream(&qpack_enc) != OK ||
      quic_->OpenUniStream(&qpack_dec) != OK) {
    quic_->SetApplicationCloseError(NGHTTP3_H3_GENERAL_PROTOCOL_ERROR,
                                    "the server allows too few uni streams");
    return ERR_HTTP3_PROTOCOL_ERROR;
  }
  if (nghttp3_conn_bind_control_stream(conn, control) != 0 ||
      nghttp3_conn_bind_qpack_streams(conn, qpack_enc, qpack_dec) != 0) {
    return ERR_HTTP3_PROTOCOL_ERROR;
  }
  return OK;
}

int Http3Session::FailConnection(int rv, const char* what) {
  quic_->SetApplicationCloseError(
      nghttp3_err_infer_quic_app_error_code(rv),
      absl::StrCat(
          what, ": ", nghttp3_strerror(rv), " (",
          Http3ErrorCodeName(nghttp3_err_infer_quic_app_error_code(rv)), ")"));
  return -1;
}

int64_t Http3Session::OnStreamData(int64_t stream_id, const uint8_t* data,
                                   size_t len, bool fin) {
  if (!h3_) return -1;
  nghttp3_ssize consumed =
      nghttp3_conn_read_stream(h3_.get(), stream_id, data, len, fin);
  if (consumed < 0) return FailConnection(consumed, "HTTP/3");
  return consumed;
}

int Http3Session::OnStreamDataAcked(int64_t stream_id, uint64_t len) {
  if (!h3_) return 0;
  int rv = nghttp3_conn_add_ack_offset(h3_.get(), stream_id, len);
  return rv == 0 ? 0 : FailConnection(rv, "HTTP/3 ack");
}

int Http3Session::OnStreamClosed(int64_t stream_id, bool has_error,
                                 uint64_t app_error) {
  if (!h3_) return 0;
  uint64_t code = has_error ? app_error : NGHTTP3_H3_NO_ERROR;
  int rv = nghttp3_conn_close_stream(h3_.get(), stream_id, code);
  if (rv == NGHTTP3_ERR_STREAM_NOT_FOUND) {
    // A server stream that carried nothing: its slot comes back.
    if ((stream_id & 0x2) && (stream_id & 0x1))
      quic_->ExtendMaxServerUniStreams(1);
  } else if (rv != 0) {
    return FailConnection(rv, "HTTP/3 stream close");
  }
  return 0;
}

int Http3Session::OnStreamReset(int64_t stream_id, uint64_t app_error) {
  if (Http3SessionStream* s = FindStream(stream_id)) {
    if (!s->end_stream_received_) {
      s->Fail(Http3ErrorCodeToNetError(app_error),
              absl::StrCat("the server reset the stream (",
                           Http3ErrorCodeName(app_error), ")"));
    }
  }
  if (!h3_) return 0;
  int rv = nghttp3_conn_shutdown_stream_read(h3_.get(), stream_id);
  return rv == 0 ? 0 : FailConnection(rv, "HTTP/3 reset");
}

int Http3Session::OnStreamStopSending(int64_t stream_id, uint64_t app_error) {
  // The server wants no more of the request (RFC 9114 4.1.1 lets it answer
  // before reading the whole body): the response goes on.
  if (!h3_) return 0;
  int rv = nghttp3_conn_shutdown_stream_read(h3_.get(), stream_id);
  return rv == 0 ? 0 : FailConnection(rv, "HTTP/3 stop sending");
}

int Http3Session::OnStreamUnblocked(int64_t stream_id) {
  if (!h3_) return 0;
  int rv = nghttp3_conn_unblock_stream(h3_.get(), stream_id);
  return rv == 0 ? 0 : FailConnection(rv, "HTTP/3 unblock");
}

void Http3Session::OnMoreStreamsAllowed() {
  std::vector<WeakPtr<Http3SessionStream>> waiting =
      std::move(waiting_for_stream_id_);
  waiting_for_stream_id_.clear();
  for (WeakPtr<Http3SessionStream>& s : waiting) {
    if (s) s->Poke();  // TrySubmit from a task, outside ngtcp2
  }
}

int64_t Http3Session::GetStreamData(int64_t* stream_id, bool* fin,
                                    ngtcp2_vec* vec, size_t veccnt) {
  if (!h3_) return 0;
  int pfin = 0;
  nghttp3_ssize n = nghttp3_conn_writev_stream(
      h3_.get(), stream_id, &pfin, reinterpret_cast<nghttp3_vec*>(vec), veccnt);
  if (n < 0) {
    FailConnection(n, "HTTP/3 write");
    return ERR_HTTP3_PROTOCOL_ERROR;
  }
  *fin = pfin != 0;
  return n;
}

int Http3Session::OnStreamDataWritten(int64_t stream_id, size_t len) {
  if (!h3_) return 0;
  int rv = nghttp3_conn_add_write_offset(h3_.get(), stream_id, len);
  if (rv != 0) return FailConnection(rv, "HTTP/3 write offset");
  if (Http3SessionStream* s = FindStream(stream_id)) {
    // Handed to ngtcp2 before the handshake completed: 0-RTT packets.
    if (len > 0 && quic_->in_early_data()) s->sent_early_ = true;
    if (!s->request_sent_ && s->upload_offset_ == s->upload_.size()) {
      s->request_sent_ = true;
      s->Poke();
    }
  }
  return 0;
}

void Http3Session::OnStreamWriteBlocked(int64_t stream_id) {
  if (h3_) nghttp3_conn_block_stream(h3_.get(), stream_id);
}

void Http3Session::OnStreamWriteShut(int64_t stream_id) {
  if (h3_) nghttp3_conn_shutdown_stream_write(h3_.get(), stream_id);
}

void Http3Session::OnSessionClosed(int error) {
  Closed(error, quic_->error_detail());
}

// nghttp3 callbacks ---------------------------------------------------------

int Http3Session::OnAckedStreamData(nghttp3_conn*, int64_t stream_id,
                                    uint64_t datalen, void* user_data,
                                    void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  if (Http3SessionStream* s = self->FindStream(stream_id))
    s->upload_acked_ += datalen;
  return 0;
}

int Http3Session::OnH3StreamClose(nghttp3_conn*, int64_t stream_id,
                                  uint64_t app_error_code, void* user_data,
                                  void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  // A server uni stream's slot comes back (RFC 9000 4.6).
  if ((stream_id & 0x2) && (stream_id & 0x1))
    self->quic_->ExtendMaxServerUniStreams(1);
  Http3SessionStream* s = self->FindStream(stream_id);
  if (!s) return 0;
  s->closed_ = true;
  if (!s->end_stream_received_ && s->error_ == OK) {
    s->Fail(app_error_code == NGHTTP3_H3_NO_ERROR
                ? ERR_HTTP3_STREAM_CLOSED
                : Http3ErrorCodeToNetError(app_error_code),
            absl::StrCat("the stream closed before the response ended (",
                         Http3ErrorCodeName(app_error_code), ")"));
  }
  s->Poke();
  return 0;
}

int Http3Session::OnRecvData(nghttp3_conn*, int64_t stream_id,
                             const uint8_t* data, size_t datalen,
                             void* user_data, void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  Http3SessionStream* s = self->FindStream(stream_id);
  if (!s || s->error_ != OK) {
    // Nobody reads it: credit it back at once.
    self->quic_->ExtendStreamWindow(stream_id, datalen);
    return 0;
  }
  s->body_.append(reinterpret_cast<const char*>(data), datalen);
  self->buffered_bytes_ += datalen;
  if (self->buffered_bytes_ > self->max_buffered_bytes_)
    self->max_buffered_bytes_ = self->buffered_bytes_;
  s->Poke();
  return 0;
}

int Http3Session::OnDeferredConsume(nghttp3_conn*, int64_t stream_id,
                                    size_t consumed, void* user_data,
                                    void* stream_user_data) {
  // Bytes nghttp3 held for a QPACK-blocked stream and has now processed.
  static_cast<Http3Session*>(user_data)->quic_->ExtendStreamWindow(stream_id,
                                                                   consumed);
  return 0;
}

int Http3Session::OnBeginHeaders(nghttp3_conn*, int64_t stream_id,
                                 void* user_data, void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  if (Http3SessionStream* s = self->FindStream(stream_id)) s->block_.clear();
  return 0;
}

int Http3Session::OnRecvHeader(nghttp3_conn*, int64_t stream_id, int32_t token,
                               nghttp3_rcbuf* name, nghttp3_rcbuf* value,
                               uint8_t flags, void* user_data,
                               void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  Http3SessionStream* s = self->FindStream(stream_id);
  if (!s || s->error_ != OK) return 0;
  absl::string_view n = RcbufView(name);
  absl::string_view v = RcbufView(value);
  // RFC 9114 4.2.2's accounting, over every block of the response.
  s->field_section_bytes_ += n.size() + v.size() + 32;
  if (s->field_section_bytes_ > self->params_.max_field_section_size) {
    s->Fail(ERR_RESPONSE_HEADERS_TOO_BIG,
            absl::StrCat("the response's header fields exceed ",
                         self->params_.max_field_section_size, " bytes"));
    // Cancel the stream from a task (not inside nghttp3's callback).
    EventLoop::Current()->PostTask([weak = self->weak_factory_.GetWeakPtr(),
                                    stream_id] {
      if (weak && !weak->quic_->closed())
        weak->quic_->ShutdownStream(stream_id, NGHTTP3_H3_REQUEST_CANCELLED);
    });
    return 0;
  }
  s->block_.emplace_back(std::string(n), std::string(v));
  return 0;
}

int Http3Session::OnEndHeaders(nghttp3_conn*, int64_t stream_id, int fin,
                               void* user_data, void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  Http3SessionStream* s = self->FindStream(stream_id);
  if (!s || s->error_ != OK) return 0;
  if (s->response_headers_done_) {
    // Trailers: kept with the headers (nobody above reads them yet).
    for (auto& field : s->block_)
      s->response_headers_.push_back(std::move(field));
    s->block_.clear();
    return 0;
  }
  int status = 0;
  for (const auto& field : s->block_) {
    if (field.first == ":status") {
      if (!absl::SimpleAtoi(field.second, &status) || status < 100 ||
          status > 999) {
        status = -1;
      }
      break;
    }
  }
  if (status <= 0) {
    s->Fail(ERR_HTTP3_MESSAGE_ERROR, "the response has no valid :status");
    return 0;
  }
  if (status < 200) {
    s->block_.clear();  // an interim response: skipped
    return 0;
  }
  s->status_ = status;
  s->response_headers_ = std::move(s->block_);
  s->block_.clear();
  s->response_headers_done_ = true;
  s->Poke();
  return 0;
}

int Http3Session::OnEndStream(nghttp3_conn*, int64_t stream_id, void* user_data,
                              void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  if (Http3SessionStream* s = self->FindStream(stream_id)) {
    s->end_stream_received_ = true;
    if (!s->response_headers_done_ && s->error_ == OK)
      s->Fail(ERR_HTTP3_MESSAGE_ERROR, "the stream ended without a response");
    s->Poke();
  }
  return 0;
}

int Http3Session::OnStopSending(nghttp3_conn*, int64_t stream_id,
                                uint64_t app_error_code, void* user_data,
                                void* stream_user_data) {
  static_cast<Http3Session*>(user_data)->quic_->ShutdownStreamRead(
      stream_id, app_error_code);
  return 0;
}

int Http3Session::OnResetStream(nghttp3_conn*, int64_t stream_id,
                                uint64_t app_error_code, void* user_data,
                                void* stream_user_data) {
  static_cast<Http3Session*>(user_data)->quic_->ShutdownStreamWrite(
      stream_id, app_error_code);
  return 0;
}

int Http3Session::OnShutdown(nghttp3_conn*, int64_t id, void* user_data) {
  // GOAWAY (RFC 9114 5.2): requests on streams >= id were not processed.
  auto* self = static_cast<Http3Session*>(user_data);
  self->goaway_received_ = true;
  self->goaway_id_ = id;
  for (auto& entry : self->streams_) {
    if (entry.first >= id && entry.second->error_ == OK) {
      entry.second->Fail(
          ERR_HTTP3_SERVER_REFUSED_STREAM,
          absl::StrCat("GOAWAY: the server processes streams below ", id,
                       " only"));
    }
  }
  EventLoop::Current()->PostTask([weak = self->weak_factory_.GetWeakPtr()] {
    if (weak) weak->EnterGoingAway();
  });
  return 0;
}

nghttp3_ssize Http3Session::ReadUpload(nghttp3_conn*, int64_t stream_id,
                                       nghttp3_vec* vec, size_t veccnt,
                                       uint32_t* pflags, void* user_data,
                                       void* stream_user_data) {
  auto* self = static_cast<Http3Session*>(user_data);
  Http3SessionStream* s = self->FindStream(stream_id);
  if (!s) {
    *pflags |= NGHTTP3_DATA_FLAG_EOF;
    return 0;
  }
  size_t left = s->upload_.size() - s->upload_offset_;
  if (left == 0) {
    *pflags |= NGHTTP3_DATA_FLAG_EOF;
    return 0;
  }
  vec[0].base =
      reinterpret_cast<uint8_t*>(s->upload_.data()) + s->upload_offset_;
  vec[0].len = left;
  s->upload_offset_ = s->upload_.size();
  *pflags |= NGHTTP3_DATA_FLAG_EOF;
  return 1;
}

// Streams -------------------------------------------------------------------

Http3SessionStream* Http3Session::FindStream(int64_t stream_id) {
  auto it = streams_.find(stream_id);
  return it == streams_.end() ? nullptr : it->second;
}

int Http3Session::SubmitRequest(Http3SessionStream* stream,
                                const Http3Headers& headers, bool has_body) {
  if (state_ != State::kOpen) return ERR_HTTP3_SERVER_REFUSED_STREAM;
  // In early data only what is safe to replay: GET or HEAD without a body
  // (TCP's 0-RTT rule, HttpNetworkTransaction::IsReplaySafe); the rest
  // waits for the handshake, as does everything after a 0-RTT rejection.
  bool replay_safe = !has_body;
  if (replay_safe) {
    replay_safe = false;
    for (const auto& h : headers) {
      if (h.first == ":method") {
        replay_safe = h.second == "GET" || h.second == "HEAD";
        break;
      }
    }
  }
  const bool early = quic_->in_early_data();
  if (!h3_ || (early && !replay_safe)) {
    waiting_for_handshake_.push_back(stream->weak_factory_.GetWeakPtr());
    return ERR_IO_PENDING;
  }
  int64_t stream_id = -1;
  int rv = quic_->OpenBidiStream(&stream_id);
  if (rv == ERR_IO_PENDING) {
    waiting_for_stream_id_.push_back(stream->weak_factory_.GetWeakPtr());
    return ERR_IO_PENDING;
  }
  if (rv != OK) return ERR_HTTP3_SERVER_REFUSED_STREAM;
  std::vector<nghttp3_nv> nva;
  nva.reserve(headers.size());
  for (const auto& h : headers) {
    nghttp3_nv nv;
    nv.name = reinterpret_cast<const uint8_t*>(h.first.data());
    nv.namelen = h.first.size();
    nv.value = reinterpret_cast<const uint8_t*>(h.second.data());
    nv.valuelen = h.second.size();
    nv.flags = NGHTTP3_NV_FLAG_NONE;
    nva.push_back(nv);
  }
  nghttp3_data_reader reader = {&Http3Session::ReadUpload};
  stream->stream_id_ = stream_id;
  streams_[stream_id] = stream;
  rv = nghttp3_conn_submit_request(h3_.get(), stream_id, nva.data(), nva.size(),
                                   has_body ? &reader : nullptr, nullptr);
  if (rv != 0) {
    streams_.erase(stream_id);
    quic_->ShutdownStream(stream_id, NGHTTP3_H3_INTERNAL_ERROR);
    return ERR_HTTP3_PROTOCOL_ERROR;
  }
  ++streams_started_;
  if (early) {
    quic_->FlushWrites();
  } else {
    quic_->ScheduleWrite();
  }
  return OK;
}

void Http3Session::Unregister(Http3SessionStream* stream) {
  if (stream->stream_id_ < 0) return;
  auto it = streams_.find(stream->stream_id_);
  if (it == streams_.end() || it->second != stream) return;
  streams_.erase(it);
  // The unread body goes back to flow control.
  size_t unread = stream->buffered_bytes();
  buffered_bytes_ -= unread;
  if (!quic_->closed()) {
    quic_->ExtendStreamWindow(stream->stream_id_, unread);
    if (!stream->closed_ && !stream->end_stream_received_) {
      quic_->ShutdownStream(stream->stream_id_, NGHTTP3_H3_REQUEST_CANCELLED);
    }
    if (h3_) {
      // nghttp3 must not hand out the stream's upload any more: it goes
      // with the stream object.
      nghttp3_conn_shutdown_stream_write(h3_.get(), stream->stream_id_);
    }
  }
}

void Http3Session::Consume(int64_t stream_id, size_t bytes) {
  buffered_bytes_ -= bytes;
  quic_->ExtendStreamWindow(stream_id, bytes);
}

void Http3Session::EnterGoingAway() {
  if (state_ != State::kOpen && state_ != State::kConnecting) return;
  state_ = State::kGoingAway;
  if (on_going_away_) on_going_away_(this);
}

void Http3Session::FailStreams(int error) {
  for (auto& entry : streams_) {
    Http3SessionStream* s = entry.second;
    if (s->error_ != OK || s->end_stream_received_) continue;
    if (!s->request_sent_) {
      s->Fail(ERR_HTTP3_SERVER_REFUSED_STREAM,
              absl::StrCat("the connection closed before the request left: ",
                           error_detail_));
    } else {
      s->Fail(error, error_detail_);
    }
  }
  for (WeakPtr<Http3SessionStream>& s : waiting_for_stream_id_) {
    if (s && s->error_ == OK)
      s->Fail(ERR_HTTP3_SERVER_REFUSED_STREAM,
              "the connection closed before the request left");
  }
  waiting_for_stream_id_.clear();
  for (WeakPtr<Http3SessionStream>& s : waiting_for_handshake_) {
    if (s && s->error_ == OK)
      s->Fail(ERR_HTTP3_SERVER_REFUSED_STREAM,
              "the connection closed before the request left");
  }
  waiting_for_handshake_.clear();
}

void Http3Session::Closed(int error, const std::string& detail) {
  if (state_ == State::kClosed) return;
  const bool was_available = state_ == State::kOpen;
  state_ = State::kClosed;
  error_ = error;
  error_detail_ = detail;
  FailStreams(error);
  if (was_available && on_going_away_) on_going_away_(this);
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak && weak->on_closed_) weak->on_closed_(weak.get());
  });
}

// Http3SessionStream --------------------------------------------------------

Http3SessionStream::Http3SessionStream(WeakPtr<Http3Session> session)
    : session_(std::move(session)) {}

Http3SessionStream::~Http3SessionStream() {
  if (Http3Session* s = session_.get()) s->Unregister(this);
}

int Http3SessionStream::SendRequest(const Http3Headers& headers,
                                    std::string body,
                                    CompletionOnceCallback callback) {
  upload_ = std::move(body);
  request_headers_ = headers;
  send_callback_ = std::move(callback);
  TrySubmit();
  if (error_ != OK && !submitted_) {
    send_callback_ = nullptr;
    return error_;
  }
  return ERR_IO_PENDING;
}

void Http3SessionStream::TrySubmit() {
  if (submitted_ || error_ != OK) return;
  Http3Session* s = session_.get();
  if (!s) {
    Fail(ERR_HTTP3_SERVER_REFUSED_STREAM, "the HTTP/3 session is gone");
    return;
  }
  int rv = s->SubmitRequest(this, request_headers_, !upload_.empty());
  if (rv == ERR_IO_PENDING) return;  // the server's stream limit
  if (rv != OK) {
    Fail(rv, "the HTTP/3 session took no new stream");
    return;
  }
  submitted_ = true;
}

int Http3SessionStream::ReadResponseHeaders(CompletionOnceCallback callback) {
  if (error_ != OK) return error_;
  if (response_headers_done_) return OK;
  if (!session_) return ERR_HTTP3_SERVER_REFUSED_STREAM;
  headers_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int Http3SessionStream::TakeBody(IOBuffer* buf, int len) {
  size_t n = std::min(static_cast<size_t>(len), buffered_bytes());
  memcpy(buf->data(), body_.data() + body_offset_, n);
  body_offset_ += n;
  if (body_offset_ == body_.size()) {
    body_.clear();
    body_offset_ = 0;
  } else if (body_offset_ > kCompactThreshold) {
    body_.erase(0, body_offset_);
    body_offset_ = 0;
  }
  if (Http3Session* s = session_.get()) s->Consume(stream_id_, n);
  return static_cast<int>(n);
}

int Http3SessionStream::ReadBody(std::shared_ptr<IOBuffer> buf, int len,
                                 CompletionOnceCallback callback) {
  if (buffered_bytes() > 0) return TakeBody(buf.get(), len);
  if (error_ != OK) return error_;
  if (end_stream_received_) return 0;
  if (!session_) return ERR_HTTP3_STREAM_CLOSED;
  body_buf_ = std::move(buf);
  body_len_ = len;
  body_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

void Http3SessionStream::Fail(int error, const std::string& detail) {
  if (error_ != OK) return;
  error_ = error;
  error_detail_ = detail;
  Poke();
}

void Http3SessionStream::Poke() {
  if (poke_posted_) return;
  poke_posted_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (!weak) return;
    weak->poke_posted_ = false;
    weak->RunCallbacks();
  });
}

void Http3SessionStream::RunCallbacks() {
  WeakPtr<Http3SessionStream> weak = weak_factory_.GetWeakPtr();
  if (!submitted_ && error_ == OK && (send_callback_ || resend_)) TrySubmit();
  if (send_callback_ && (request_sent_ || error_ != OK)) {
    CompletionOnceCallback cb = std::move(send_callback_);
    send_callback_ = nullptr;
    std::move(cb)(request_sent_ ? OK : error_);
    if (!weak) return;
  }
  if (headers_callback_ && (response_headers_done_ || error_ != OK)) {
    CompletionOnceCallback cb = std::move(headers_callback_);
    headers_callback_ = nullptr;
    std::move(cb)(response_headers_done_ && error_ == OK ? OK : error_);
    if (!weak) return;
  }
  if (body_callback_ &&
      (buffered_bytes() > 0 || error_ != OK || end_stream_received_)) {
    int rv = buffered_bytes() > 0 ? TakeBody(body_buf_.get(), body_len_)
             : error_ != OK       ? error_
                                  : 0;
    body_buf_.reset();
    CompletionOnceCallback cb = std::move(body_callback_);
    body_callback_ = nullptr;
    std::move(cb)(rv);
  }
}

}  // namespace net
