#include "net/spdy/spdy_session.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "cert/obc/client_cert_provider.h"

namespace net {
namespace {

// Reads go into a buffer of this size.
constexpr int kReadBufferSize = 32 * 1024;
// Frames are gathered into one socket write up to about this size.
constexpr size_t kWriteBatchBytes = 16 * 1024;
// One event-loop turn reads or writes at most this much, so that one busy
// session does not keep the loop from everything else.
constexpr size_t kMaxBytesPerTurn = 256 * 1024;
// Our PINGs outstanding at once.
constexpr size_t kMaxPendingPings = 8;
// How long a closing session waits for its GOAWAY to be written.
constexpr absl::Duration kGoAwayWriteTimeout = absl::Seconds(1);
constexpr int64_t kMaxWindow = 0x7fffffff;

}  // namespace

int SpdyRstStatusToError(SpdyRstStreamStatus status) {
  switch (status) {
    case SpdyRstStreamStatus::kProtocolError:
      return ERR_SPDY_PROTOCOL_ERROR;
    case SpdyRstStreamStatus::kRefusedStream:
      return ERR_SPDY_SERVER_REFUSED_STREAM;
    case SpdyRstStreamStatus::kFlowControlError:
      return ERR_SPDY_FLOW_CONTROL_ERROR;
    case SpdyRstStreamStatus::kInvalidCredentials:
      return ERR_SPDY_INVALID_CREDENTIALS;
    case SpdyRstStreamStatus::kFrameTooLarge:
      return ERR_SPDY_FRAME_SIZE_ERROR;
    default:
      return ERR_SPDY_STREAM_RESET;
  }
}

bool IsSpdyRetryableError(int error) {
  return error == ERR_SPDY_SERVER_REFUSED_STREAM ||
         error == ERR_SPDY_INVALID_CREDENTIALS;
}

SpdySession::SpdySession(std::unique_ptr<StreamSocket> socket,
                         SpdySessionParams params)
    : socket_(std::move(socket)),
      params_(std::move(params)),
      clock_(params_.clock ? params_.clock : DefaultTickClock::GetInstance()),
      framer_(params_.limits),
      deframer_(this, params_.limits),
      max_concurrent_(std::min(params_.initial_max_concurrent_streams,
                               params_.max_concurrent_streams_cap)) {
  credentials_.SetHandshakeCertificate(params_.handshake_cert_der);
}

SpdySession::~SpdySession() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // Streams outlive us: they fail, and their pending callbacks run (from
  // posted tasks). Our own callbacks (pings, on_closed) never run.
  std::vector<SpdyStream*> streams = slotted_;
  for (auto& queue : waiting_)
    streams.insert(streams.end(), queue.begin(), queue.end());
  state_ = State::kClosed;
  for (SpdyStream* stream : streams) stream->Close(ERR_ABORTED);
}

void SpdySession::Start() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ != State::kNew) return;
  state_ = State::kOpen;
  SpdySettingsIR settings;
  settings.entries.push_back(
      {0, static_cast<uint32_t>(SpdySettingsId::kInitialWindowSize),
       static_cast<uint32_t>(params_.initial_recv_window)});
  EnqueueControl(settings);
  ScheduleRead();
  UpdateIdleTimer();
}

TimeTicks SpdySession::Now() const { return clock_->NowTicks(); }

size_t SpdySession::waiting_streams() const {
  size_t n = 0;
  for (const auto& queue : waiting_) n += queue.size();
  return n;
}

int SpdySession::CreateStream(const SpdyStreamParams& params,
                              std::unique_ptr<SpdyStream>* stream) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ != State::kNew && state_ != State::kOpen)
    return ERR_SPDY_SERVER_REFUSED_STREAM;
  stream->reset(new SpdyStream(weak_factory_.GetWeakPtr(), params,
                               peer_initial_window_,
                               params_.initial_recv_window));
  return OK;
}

// ---------------------------------------------------------------------------
// Called by streams.

int SpdySession::RequestSlot(SpdyStream* stream) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ != State::kNew && state_ != State::kOpen)
    return ERR_SPDY_SERVER_REFUSED_STREAM;
  bool others_waiting = waiting_streams() > 0;
  if (!others_waiting && active_count_ < max_concurrent_) {
    stream->has_slot_ = true;
    slotted_.push_back(stream);
    ++active_count_;
    UpdateIdleTimer();
    return OK;
  }
  waiting_[stream->priority_].push_back(stream);
  // Admitted at once if there is room after all (it is then woken from a
  // posted task, as any waiting stream).
  AdmitWaitingStreams();
  UpdateIdleTimer();
  return ERR_IO_PENDING;
}

void SpdySession::AdmitWaitingStreams() {
  while (active_count_ < max_concurrent_ &&
         (state_ == State::kOpen || state_ == State::kNew)) {
    SpdyStream* next = nullptr;
    for (auto& queue : waiting_) {
      if (!queue.empty()) {
        next = queue.front();
        queue.pop_front();
        break;
      }
    }
    if (!next) return;
    next->has_slot_ = true;
    slotted_.push_back(next);
    ++active_count_;
    next->Wake(OK);
  }
}

void SpdySession::EnqueueSynStream(SpdyStream* stream) {
  PendingFrame frame;
  frame.type = SpdyFrameType::kSynStream;
  frame.stream = stream;
  queues_[1 + stream->priority_].push_back(std::move(frame));
  ScheduleWrite();
}

void SpdySession::EnqueueData(SpdyStream* stream, absl::string_view data,
                              bool fin) {
  absl::StatusOr<std::string> bytes =
      framer_.SerializeData(stream->stream_id_, data, fin);
  if (!bytes.ok()) {
    ResetStream(stream, SpdyRstStreamStatus::kInternalError, ERR_UNEXPECTED);
    return;
  }
  PendingFrame frame;
  frame.type = SpdyFrameType::kData;
  frame.stream = stream;
  frame.bytes = std::move(*bytes);
  frame.fin = fin;
  queues_[1 + stream->priority_].push_back(std::move(frame));
  ScheduleWrite();
}

void SpdySession::OnBodyConsumed(SpdyStream* stream, size_t bytes) {
  if (state_ == State::kClosed || stream->remote_fin_ || stream->closed_ ||
      stream->stream_id_ == 0)
    return;
  stream->recv_unacked_ += static_cast<int32_t>(bytes);
  // Replenish once half a window has been consumed: fewer frames than one
  // per read, and the peer never stalls on a window it could have had.
  if (stream->recv_unacked_ >= stream->recv_window_size_ / 2) {
    SpdyWindowUpdateIR update;
    update.stream_id = stream->stream_id_;
    update.delta = static_cast<uint32_t>(stream->recv_unacked_);
    stream->recv_window_ += stream->recv_unacked_;
    stream->recv_unacked_ = 0;
    ++stats_.window_updates_sent;
    EnqueueControl(update);
  }
}

void SpdySession::OnStreamDestroyed(SpdyStream* stream) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!stream->closed_ && stream->stream_id_ != 0 && state_ != State::kClosed) {
    SpdyRstStreamIR rst;
    rst.stream_id = stream->stream_id_;
    rst.status = SpdyRstStreamStatus::kCancel;
    EnqueueControl(rst);
  }
  // As CloseStream, without touching the stream (it is going away).
  if (stream->has_slot_) {
    slotted_.erase(std::remove(slotted_.begin(), slotted_.end(), stream),
                   slotted_.end());
    --active_count_;
    stream->has_slot_ = false;
  }
  if (stream->stream_id_ != 0) {
    auto it = active_by_id_.find(stream->stream_id_);
    if (it != active_by_id_.end() && it->second == stream)
      active_by_id_.erase(it);
  }
  for (auto& queue : waiting_)
    queue.erase(std::remove(queue.begin(), queue.end(), stream), queue.end());
  RemoveQueuedFrames(stream);
  if (state_ == State::kClosed) return;
  AdmitWaitingStreams();
  MaybeFinishGoingAway();
  UpdateIdleTimer();
}

// ---------------------------------------------------------------------------
// Writing.

void SpdySession::EnqueueControl(const SpdyFrameIR& frame) {
  if (state_ == State::kClosed) return;
  absl::StatusOr<std::string> bytes = framer_.SerializeFrame(frame);
  if (!bytes.ok()) {
    DoClose(ERR_UNEXPECTED,
            absl::StrCat("cannot build ", FrameToString(frame), ": ",
                         bytes.status().message()),
            std::nullopt);
    return;
  }
  queued_control_bytes_ += bytes->size();
  stats_.max_queued_control_bytes =
      std::max(stats_.max_queued_control_bytes, queued_control_bytes_);
  PendingFrame pending;
  pending.type = FrameType(frame);
  pending.bytes = std::move(*bytes);
  queues_[0].push_back(std::move(pending));
  if (queued_control_bytes_ > params_.max_queued_control_bytes) {
    // The peer keeps provoking answers (PINGs, frames we reset) and does
    // not read them.
    DoClose(ERR_INSUFFICIENT_RESOURCES,
            absl::StrCat(queued_control_bytes_,
                         " bytes of control frames queued: the peer is not "
                         "reading"),
            std::nullopt);
    return;
  }
  ScheduleWrite();
}

void SpdySession::RemoveQueuedFrames(SpdyStream* stream) {
  for (size_t q = 1; q < queues_.size(); ++q) {
    auto& queue = queues_[q];
    queue.erase(std::remove_if(queue.begin(), queue.end(),
                               [stream](const PendingFrame& f) {
                                 return f.stream == stream;
                               }),
                queue.end());
  }
  // Its control frames (RST_STREAM, WINDOW_UPDATE) carry only its id and
  // still go out.
}

void SpdySession::ScheduleWrite() {
  if (write_scheduled_ || write_buf_ || state_ == State::kNew) return;
  if (state_ == State::kClosed && !close_after_write_) return;
  write_scheduled_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (SpdySession* self = weak.get()) {
      self->write_scheduled_ = false;
      self->DoWriteLoop();
    }
  });
}

bool SpdySession::BuildSynStream(SpdyStream* stream, std::string* out) {
  if (state_ == State::kGoingAway || state_ == State::kClosed ||
      next_stream_id_ > kSpdyStreamIdMask) {
    // Our ids ran out, or the server's GOAWAY came first: the stream never
    // went out and may be retried elsewhere.
    if (next_stream_id_ > kSpdyStreamIdMask) StartGoingAway();
    CloseStream(stream, ERR_SPDY_SERVER_REFUSED_STREAM);
    return false;
  }
  int slot = 0;
  bool sent_credential = false;
  if (stream->client_cert_) {
    slot = EnsureCredential(stream->origin_, *stream->client_cert_, out,
                            &sent_credential);
    if (slot < 0) {
      CloseStream(stream, slot);
      return false;
    }
  }
  SpdySynStreamIR syn;
  syn.stream_id = next_stream_id_;
  syn.priority = stream->priority_;
  syn.slot = static_cast<uint8_t>(slot);
  syn.fin = stream->body_.empty();
  syn.headers = std::move(stream->request_headers_);
  absl::StatusOr<std::string> bytes = framer_.SerializeFrame(syn);
  if (!bytes.ok()) {
    if (framer_.broken()) {
      DoClose(ERR_SPDY_COMPRESSION_ERROR, "header compression failed",
              std::nullopt);
    } else {
      // Refused before compression (an invalid header): the zlib stream is
      // untouched, only this stream fails.
      CloseStream(stream, ERR_INVALID_ARGUMENT);
    }
    return false;
  }
  out->append(*bytes);
  next_stream_id_ += 2;
  active_by_id_[syn.stream_id] = stream;
  stream->credential_slot_ = static_cast<uint8_t>(slot);
  stream->sent_credential_ = sent_credential;
  // The stream's send window starts from the initial window in force now.
  stream->send_window_ = peer_initial_window_;
  stream->OnSynStreamWritten(syn.stream_id);
  ++stats_.streams_started;
  return true;
}

int SpdySession::EnsureCredential(const Origin& origin, const ClientCert& cert,
                                  std::string* out, bool* sent) {
  *sent = false;
  if (cert.cert_der.empty()) return 0;
  // The handshake's certificate for the session's own origin: slot 0, the
  // server takes it from the TLS connection.
  if (origin == params_.origin && cert.cert_der == params_.handshake_cert_der)
    return 0;
  if (size_t slot = credentials_.FindSlot(cert.cert_der)) return slot;
  if (!params_.export_keying_material) return ERR_SPDY_CREDENTIAL_UNAVAILABLE;
  if (credential_secret_.empty()) {
    std::string secret;
    int rv = params_.export_keying_material(kSpdyCredentialExporterLabel,
                                            kSpdyCredentialSecretSize, &secret);
    if (rv != OK || secret.size() != kSpdyCredentialSecretSize)
      return ERR_SPDY_CREDENTIAL_UNAVAILABLE;
    credential_secret_ = std::move(secret);
  }
  size_t slot = credentials_.Assign(cert.cert_der);
  if (slot == 0) return ERR_SPDY_CREDENTIAL_UNAVAILABLE;
  absl::StatusOr<SpdyCredentialIR> frame =
      BuildSpdyCredentialFrame(static_cast<uint16_t>(slot), credential_secret_,
                               {cert.cert_der}, cert.key.get());
  absl::StatusOr<std::string> bytes =
      frame.ok() ? framer_.SerializeFrame(*frame) : frame.status();
  if (!bytes.ok()) {
    credentials_.Release(slot);
    return ERR_SPDY_CREDENTIAL_UNAVAILABLE;
  }
  out->append(*bytes);
  *sent = true;
  ++stats_.credentials_sent;
  ++stats_.frames_sent[SpdyFrameType::kCredential];
  return static_cast<int>(slot);
}

void SpdySession::DoWriteLoop() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  size_t this_turn = 0;
  for (;;) {
    if (!write_buf_) {
      std::string batch;
      in_flight_.clear();
      while (batch.size() < kWriteBatchBytes) {
        size_t q = 0;
        while (q < queues_.size() && queues_[q].empty()) ++q;
        if (q == queues_.size()) break;
        PendingFrame frame = std::move(queues_[q].front());
        queues_[q].pop_front();
        if (q == 0) queued_control_bytes_ -= frame.bytes.size();
        if (frame.type == SpdyFrameType::kSynStream) {
          frame.fin = frame.stream->body_.empty();
          if (!BuildSynStream(frame.stream, &batch)) continue;
        } else {
          batch += frame.bytes;
        }
        ++stats_.frames_sent[frame.type];
        if (frame.stream) {
          in_flight_.emplace_back(frame.stream->weak_factory_.GetWeakPtr(),
                                  frame.fin);
        }
      }
      if (batch.empty()) {
        if (close_after_write_) FinishClose();
        return;
      }
      write_buf_ = std::make_shared<DrainableIOBuffer>(batch);
    }
    if (this_turn >= kMaxBytesPerTurn) {
      EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
        if (SpdySession* self = weak.get()) self->DoWriteLoop();
      });
      return;
    }
    int rv = socket_->Write(write_buf_,
                            static_cast<int>(write_buf_->BytesRemaining()),
                            [weak = weak_factory_.GetWeakPtr()](int rv) {
                              if (SpdySession* self = weak.get())
                                self->OnWriteComplete(rv);
                            });
    if (rv == ERR_IO_PENDING) return;
    if (rv > 0) this_turn += rv;
    if (!HandleWriteResult(rv)) return;
  }
}

void SpdySession::OnWriteComplete(int rv) {
  if (HandleWriteResult(rv)) DoWriteLoop();
}

bool SpdySession::HandleWriteResult(int rv) {
  if (rv < 0) {
    write_buf_.reset();
    in_flight_.clear();
    if (close_after_write_) {
      FinishClose();
    } else {
      DoClose(rv, "write failed", std::nullopt);
    }
    return false;
  }
  write_buf_->DidConsume(rv);
  stats_.bytes_written += rv;
  if (write_buf_->BytesRemaining() > 0) return true;
  write_buf_.reset();
  // Tell the streams whose SYN_STREAM or DATA went out.
  std::vector<std::pair<WeakPtr<SpdyStream>, bool>> done;
  done.swap(in_flight_);
  bool woke = false;
  for (auto& [weak_stream, fin] : done) {
    SpdyStream* stream = weak_stream.get();
    if (!stream || stream->closed_) continue;
    if (fin) stream->local_fin_sent_ = true;
    stream->Wake(OK);
    woke = true;
    MaybeCloseStreamCleanly(stream);
  }
  if (state_ == State::kClosed && !close_after_write_) return false;
  if (woke) {
    // The woken streams queue their next DATA from posted tasks; write
    // again after them, so that a high-priority stream's next frame is
    // queued before a low-priority one's is taken.
    ScheduleWrite();
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Reading.

void SpdySession::ScheduleRead() {
  if (read_scheduled_ || read_pending_ || state_ == State::kClosed) return;
  read_scheduled_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (SpdySession* self = weak.get()) {
      self->read_scheduled_ = false;
      self->DoReadLoop();
    }
  });
}

void SpdySession::DoReadLoop() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  size_t this_turn = 0;
  while (state_ != State::kClosed && !read_pending_) {
    if (this_turn >= kMaxBytesPerTurn) {
      ScheduleRead();
      return;
    }
    if (!read_buf_) read_buf_ = std::make_shared<IOBuffer>(kReadBufferSize);
    read_pending_ = true;
    int rv = socket_->Read(read_buf_, kReadBufferSize,
                           [weak = weak_factory_.GetWeakPtr()](int rv) {
                             if (SpdySession* self = weak.get())
                               self->OnReadComplete(rv);
                           });
    if (rv == ERR_IO_PENDING) return;
    read_pending_ = false;
    if (rv <= 0) {
      OnReadComplete(rv);
      return;
    }
    this_turn += rv;
    if (!ProcessReadData(absl::string_view(read_buf_->data(), rv))) return;
  }
}

void SpdySession::OnReadComplete(int rv) {
  read_pending_ = false;
  if (state_ == State::kClosed) return;
  if (rv == 0) {
    if (received_goaway_ && received_goaway_->status != SpdyGoAwayStatus::kOk) {
      DoClose(ERR_SPDY_GOAWAY_ERROR,
              absl::StrCat("the server sent GOAWAY ",
                           ToString(received_goaway_->status),
                           " and closed the connection"),
              std::nullopt);
    } else {
      DoClose(ERR_CONNECTION_CLOSED, "the server closed the connection",
              std::nullopt);
    }
    return;
  }
  if (rv < 0) {
    DoClose(rv, "read failed", std::nullopt);
    return;
  }
  if (!ProcessReadData(absl::string_view(read_buf_->data(), rv))) return;
  DoReadLoop();
}

bool SpdySession::ProcessReadData(absl::string_view data) {
  stats_.bytes_read += data.size();
  deframer_.ProcessInput(data);
  if (state_ == State::kClosed) return false;
  if (deframer_.HasError()) {
    DoClose(SpdyDeframerErrorToNetError(deframer_.error()),
            absl::StrCat(ToString(deframer_.error()), ": ",
                         deframer_.error_detail()),
            SpdyGoAwayStatus::kProtocolError);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Frames from the server.

SpdyStream* SpdySession::FindActiveStream(SpdyStreamId id) const {
  auto it = active_by_id_.find(id);
  return it == active_by_id_.end() ? nullptr : it->second;
}

void SpdySession::OnError(SpdyDeframerError error, const std::string& detail) {
  // Handled once ProcessInput returns (ProcessReadData).
}

void SpdySession::OnDataFrameHeader(SpdyStreamId stream_id, size_t length,
                                    bool fin) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kData];
  data_stream_ = nullptr;
  SpdyStream* stream = FindActiveStream(stream_id);
  if (!stream) {
    // A refused push (even id) or a stream we already reset or finished:
    // data may still be in flight; ignore it. A stream never opened is an
    // error of that stream.
    if (stream_id % 2 == 0 || stream_id < next_stream_id_) return;
    SpdyRstStreamIR rst;
    rst.stream_id = stream_id;
    rst.status = SpdyRstStreamStatus::kInvalidStream;
    EnqueueControl(rst);
    return;
  }
  if (!stream->response_headers_received_) {
    ResetStream(stream, SpdyRstStreamStatus::kProtocolError,
                ERR_SPDY_PROTOCOL_ERROR);
    return;
  }
  if (stream->remote_fin_) {
    ResetStream(stream, SpdyRstStreamStatus::kStreamAlreadyClosed,
                ERR_SPDY_PROTOCOL_ERROR);
    return;
  }
  if (static_cast<int64_t>(length) > stream->recv_window_) {
    ResetStream(stream, SpdyRstStreamStatus::kFlowControlError,
                ERR_SPDY_FLOW_CONTROL_ERROR);
    return;
  }
  stream->recv_window_ -= static_cast<int32_t>(length);
  data_stream_ = stream;
}

void SpdySession::OnStreamFrameData(SpdyStreamId stream_id,
                                    absl::string_view data) {
  if (state_ == State::kClosed) return;
  // A DATA frame may be split across reads, and its stream destroyed in
  // between: look it up again.
  SpdyStream* stream = FindActiveStream(stream_id);
  if (!stream || stream != data_stream_) return;
  stream->OnData(data);
}

void SpdySession::OnStreamEnd(SpdyStreamId stream_id) {
  if (state_ == State::kClosed) return;
  SpdyStream* stream = FindActiveStream(stream_id);
  if (!stream || stream != data_stream_) return;
  data_stream_ = nullptr;
  stream->OnRemoteFin();
  MaybeCloseStreamCleanly(stream);
}

void SpdySession::OnSynStream(const SpdySynStreamIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kSynStream];
  if (frame.stream_id % 2 == 1) {
    SessionProtocolError(absl::StrCat("the server opened stream ",
                                      frame.stream_id, ", an odd (client) id"));
    return;
  }
  if (frame.stream_id <= last_push_id_) {
    SessionProtocolError(absl::StrCat("the server's stream id ",
                                      frame.stream_id, " did not increase"));
    return;
  }
  last_push_id_ = frame.stream_id;
  // Server push is refused (its header block was inflated by the deframer,
  // keeping the zlib stream in step).
  ++stats_.pushes_refused;
  SpdyRstStreamIR rst;
  rst.stream_id = frame.stream_id;
  rst.status = SpdyRstStreamStatus::kRefusedStream;
  EnqueueControl(rst);
}

void SpdySession::OnSynReply(const SpdySynReplyIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kSynReply];
  SpdyStream* stream = FindActiveStream(frame.stream_id);
  if (!stream) {
    if (frame.stream_id % 2 == 1 && frame.stream_id < next_stream_id_) return;
    SpdyRstStreamIR rst;
    rst.stream_id = frame.stream_id;
    rst.status = SpdyRstStreamStatus::kInvalidStream;
    EnqueueControl(rst);
    return;
  }
  if (stream->response_headers_received_) {
    ResetStream(stream, SpdyRstStreamStatus::kStreamInUse,
                ERR_SPDY_PROTOCOL_ERROR);
    return;
  }
  if (!frame.headers.count(":status") || !frame.headers.count(":version")) {
    ResetStream(stream, SpdyRstStreamStatus::kProtocolError,
                ERR_SPDY_PROTOCOL_ERROR);
    return;
  }
  stream->OnResponseHeaders(frame.headers, frame.fin);
  if (frame.fin) MaybeCloseStreamCleanly(stream);
}

void SpdySession::OnHeaders(const SpdyHeadersIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kHeaders];
  SpdyStream* stream = FindActiveStream(frame.stream_id);
  if (!stream) return;
  if (!stream->response_headers_received_ || stream->remote_fin_) {
    ResetStream(stream, SpdyRstStreamStatus::kProtocolError,
                ERR_SPDY_PROTOCOL_ERROR);
    return;
  }
  // Each frame's block is capped by the deframer; the stream's merged
  // headers are capped the same, or a peer could grow them one HEADERS frame
  // at a time for as long as the stream lasts.
  size_t merged = 0;
  for (const auto& [name, value] : stream->response_headers_)
    merged += name.size() + value.size();
  for (const auto& [name, value] : frame.headers)
    merged += name.size() + value.size() + 1;
  if (merged > params_.limits.max_header_block_bytes) {
    ResetStream(stream, SpdyRstStreamStatus::kFrameTooLarge,
                ERR_RESPONSE_HEADERS_TOO_BIG);
    return;
  }
  for (const auto& [name, value] : frame.headers) {
    std::string& existing = stream->response_headers_[name];
    if (!existing.empty() && !value.empty()) existing.push_back('\0');
    existing += value;
  }
  if (frame.fin) {
    stream->OnRemoteFin();
    MaybeCloseStreamCleanly(stream);
  }
}

void SpdySession::OnRstStream(const SpdyRstStreamIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kRstStream];
  SpdyStream* stream = FindActiveStream(frame.stream_id);
  if (!stream) return;  // never answer a RST_STREAM with one
  CloseStream(stream, SpdyRstStatusToError(frame.status));
}

void SpdySession::OnSettings(const SpdySettingsIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kSettings];
  std::set<uint32_t> seen;
  for (const SpdySettingsEntry& entry : frame.entries) {
    // Only the first of a repeated id counts (draft 3, 2.6.4).
    if (!seen.insert(entry.id).second) continue;
    // Persistence flags ask us to remember values across sessions; we do
    // not persist SETTINGS, so the value applies to this session only.
    switch (static_cast<SpdySettingsId>(entry.id)) {
      case SpdySettingsId::kMaxConcurrentStreams:
        max_concurrent_ =
            std::min(entry.value, params_.max_concurrent_streams_cap);
        break;
      case SpdySettingsId::kInitialWindowSize: {
        if (entry.value > kMaxWindow) continue;  // ignored, as Chromium did
        int64_t delta =
            static_cast<int64_t>(entry.value) - peer_initial_window_;
        peer_initial_window_ = static_cast<int32_t>(entry.value);
        std::vector<SpdyStream*> streams;
        for (const auto& [id, stream] : active_by_id_)
          streams.push_back(stream);
        for (SpdyStream* stream : streams) {
          if (stream->local_fin_sent_) continue;
          int64_t window = stream->send_window_ + delta;
          if (window > kMaxWindow) {
            ResetStream(stream, SpdyRstStreamStatus::kFlowControlError,
                        ERR_SPDY_FLOW_CONTROL_ERROR);
            continue;
          }
          stream->send_window_ = static_cast<int32_t>(window);
          if (stream->waiting_for_window_ && window > 0) {
            stream->waiting_for_window_ = false;
            stream->Wake(OK);
          }
        }
        break;
      }
      case SpdySettingsId::kClientCertificateVectorSize:
        credentials_.Resize(entry.value);
        break;
      default:
        break;
    }
    peer_settings_[entry.id] = entry.value;
  }
  AdmitWaitingStreams();
}

void SpdySession::OnPing(const SpdyPingIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kPing];
  if (frame.id % 2 == 0) {
    EnqueueControl(frame);  // the server's: echo it at once
    return;
  }
  auto it = pings_.find(frame.id);
  if (it == pings_.end()) return;  // not one of ours (or already answered)
  last_ping_rtt_ = Now() - it->second.sent;
  CompletionOnceCallback callback = std::move(it->second.callback);
  pings_.erase(it);
  if (pings_.empty()) ping_timer_.Stop();
  EventLoop::Current()->PostTask(
      [weak = weak_factory_.GetWeakPtr(), cb = std::move(callback)]() mutable {
        if (weak) cb(OK);
      });
}

void SpdySession::OnGoAway(const SpdyGoAwayIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kGoAway];
  received_goaway_ = frame;
  StartGoingAway();
  // Streams above the last good id were never processed: with GOAWAY OK
  // they may be retried elsewhere. A GOAWAY with an error status means the
  // server rejected something we sent (a CREDENTIAL whose proof did not
  // verify, a frame it could not parse): those streams fail with the named
  // error rather than being retried blindly. Streams whose SYN_STREAM has
  // not gone out were never seen: retryable either way.
  int above_error = frame.status == SpdyGoAwayStatus::kOk
                        ? ERR_SPDY_SERVER_REFUSED_STREAM
                        : ERR_SPDY_GOAWAY_ERROR;
  std::vector<std::pair<SpdyStream*, int>> refused;
  for (SpdyStream* stream : slotted_) {
    if (stream->stream_id_ == 0)
      refused.emplace_back(stream, ERR_SPDY_SERVER_REFUSED_STREAM);
    else if (stream->stream_id_ > frame.last_good_stream_id)
      refused.emplace_back(stream, above_error);
  }
  for (auto& queue : waiting_)
    for (SpdyStream* stream : queue)
      refused.emplace_back(stream, ERR_SPDY_SERVER_REFUSED_STREAM);
  for (auto& [stream, error] : refused) CloseStream(stream, error);
  MaybeFinishGoingAway();
}

void SpdySession::OnWindowUpdate(const SpdyWindowUpdateIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kWindowUpdate];
  SpdyStream* stream = FindActiveStream(frame.stream_id);
  if (!stream || stream->local_fin_sent_) return;
  int64_t window = static_cast<int64_t>(stream->send_window_) + frame.delta;
  if (window > kMaxWindow) {
    ResetStream(stream, SpdyRstStreamStatus::kFlowControlError,
                ERR_SPDY_FLOW_CONTROL_ERROR);
    return;
  }
  stream->send_window_ = static_cast<int32_t>(window);
  if (stream->waiting_for_window_ && window > 0) {
    stream->waiting_for_window_ = false;
    stream->Wake(OK);
  }
}

void SpdySession::OnCredential(const SpdyCredentialIR& frame) {
  if (state_ == State::kClosed) return;
  ++stats_.frames_received[SpdyFrameType::kCredential];
  SessionProtocolError("the server sent a CREDENTIAL frame");
}

void SpdySession::OnUnknownControlFrame(uint16_t type, uint8_t flags,
                                        absl::string_view payload) {
  // The draft gives no rule; ignoring keeps extensions (and SPDY/2's NOOP)
  // harmless.
}

// ---------------------------------------------------------------------------
// Stream and session lifetime.

void SpdySession::ResetStream(SpdyStream* stream, SpdyRstStreamStatus status,
                              int error) {
  if (stream->stream_id_ != 0) {
    SpdyRstStreamIR rst;
    rst.stream_id = stream->stream_id_;
    rst.status = status;
    EnqueueControl(rst);
  }
  CloseStream(stream, error);
}

void SpdySession::CloseStream(SpdyStream* stream, int error) {
  if (stream->closed_) return;
  if (stream->has_slot_) {
    slotted_.erase(std::remove(slotted_.begin(), slotted_.end(), stream),
                   slotted_.end());
    --active_count_;
  }
  if (stream->stream_id_ != 0) {
    auto it = active_by_id_.find(stream->stream_id_);
    if (it != active_by_id_.end() && it->second == stream)
      active_by_id_.erase(it);
  }
  for (auto& queue : waiting_)
    queue.erase(std::remove(queue.begin(), queue.end(), stream), queue.end());
  RemoveQueuedFrames(stream);
  if (data_stream_ == stream) data_stream_ = nullptr;
  stream->Close(error);
  if (state_ == State::kClosed) return;
  AdmitWaitingStreams();
  MaybeFinishGoingAway();
  UpdateIdleTimer();
}

void SpdySession::MaybeCloseStreamCleanly(SpdyStream* stream) {
  if (stream->local_fin_sent_ && stream->remote_fin_ && !stream->closed_)
    CloseStream(stream, OK);
}

void SpdySession::StartGoingAway() {
  if (state_ != State::kNew && state_ != State::kOpen) return;
  state_ = State::kGoingAway;
  idle_timer_.Stop();
  if (on_going_away_) {
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (SpdySession* self = weak.get())
        if (self->on_going_away_) self->on_going_away_(self);
    });
  }
}

void SpdySession::MaybeFinishGoingAway() {
  if (state_ != State::kGoingAway || active_count_ > 0 || waiting_streams() > 0)
    return;
  if (received_goaway_ && received_goaway_->status != SpdyGoAwayStatus::kOk) {
    DoClose(ERR_SPDY_GOAWAY_ERROR,
            absl::StrCat("the server sent GOAWAY ",
                         ToString(received_goaway_->status)),
            std::nullopt);
    return;
  }
  DoClose(OK, received_goaway_ ? "GOAWAY: all streams done" : "went away",
          std::nullopt);
}

void SpdySession::UpdateIdleTimer() {
  if (state_ != State::kOpen || active_count_ > 0 || waiting_streams() > 0 ||
      params_.idle_timeout <= absl::ZeroDuration()) {
    idle_timer_.Stop();
    return;
  }
  if (idle_timer_.IsRunning()) return;
  idle_timer_.Start(params_.idle_timeout, [weak = weak_factory_.GetWeakPtr()] {
    if (SpdySession* self = weak.get()) {
      self->StartGoingAway();
      self->DoClose(OK, "idle", SpdyGoAwayStatus::kOk);
    }
  });
}

void SpdySession::GoAway() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ == State::kClosed) return;
  if (state_ == State::kNew || state_ == State::kOpen) {
    SpdyGoAwayIR goaway;
    goaway.last_good_stream_id = 0;  // we accept no server streams
    goaway.status = SpdyGoAwayStatus::kOk;
    EnqueueControl(goaway);
  }
  StartGoingAway();
  MaybeFinishGoingAway();
}

void SpdySession::CloseWithError(int error, const std::string& detail) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  DoClose(error, detail, SpdyGoAwayStatus::kOk);
}

void SpdySession::SessionProtocolError(const std::string& detail) {
  DoClose(ERR_SPDY_PROTOCOL_ERROR, detail, SpdyGoAwayStatus::kProtocolError);
}

void SpdySession::DoClose(int error, const std::string& detail,
                          std::optional<SpdyGoAwayStatus> goaway) {
  if (state_ == State::kClosed) return;
  bool going_away_notified = state_ == State::kGoingAway;
  state_ = State::kClosed;
  error_ = error;
  error_detail_ = detail;
  idle_timer_.Stop();
  ping_timer_.Stop();
  if (!going_away_notified && on_going_away_) {
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (SpdySession* self = weak.get())
        if (self->on_going_away_) self->on_going_away_(self);
    });
  }
  // Every stream fails. One whose SYN_STREAM never went out was not seen by
  // the server and may be retried.
  std::vector<SpdyStream*> streams = slotted_;
  for (auto& queue : waiting_) {
    streams.insert(streams.end(), queue.begin(), queue.end());
    queue.clear();
  }
  slotted_.clear();
  active_by_id_.clear();
  active_count_ = 0;
  data_stream_ = nullptr;
  for (SpdyStream* stream : streams) {
    stream->has_slot_ = false;
    int stream_error = stream->stream_id_ == 0 ? ERR_SPDY_SERVER_REFUSED_STREAM
                       : error == OK           ? ERR_CONNECTION_CLOSED
                                               : error;
    stream->Close(stream_error);
  }
  // Our pings fail too.
  for (auto& [id, ping] : pings_) {
    EventLoop::Current()->PostTask(
        [weak = weak_factory_.GetWeakPtr(), cb = std::move(ping.callback),
         e = error == OK ? ERR_CONNECTION_CLOSED : error]() mutable {
          if (weak) cb(e);
        });
  }
  pings_.clear();
  // Stream frames are dropped (their streams have failed). After an error
  // nothing queued goes out but the GOAWAY; a clean close (idle, GOAWAY
  // either way) still writes the control frames it queued (RST_STREAMs,
  // our GOAWAY, PING echoes).
  for (size_t q = 1; q < queues_.size(); ++q) queues_[q].clear();
  if (error != OK) {
    queues_[0].clear();
    queued_control_bytes_ = 0;
  }
  bool flush = !queues_[0].empty() && socket_->IsConnected();
  if (goaway && socket_->IsConnected()) {
    SpdyGoAwayIR frame;
    frame.last_good_stream_id = 0;  // we accept no server streams
    frame.status = *goaway;
    absl::StatusOr<std::string> bytes = framer_.SerializeFrame(frame);
    if (bytes.ok()) {
      PendingFrame pending;
      pending.type = SpdyFrameType::kGoAway;
      pending.bytes = std::move(*bytes);
      queued_control_bytes_ += pending.bytes.size();
      queues_[0].push_back(std::move(pending));
      close_after_write_ = true;
      // Give the GOAWAY a moment to be written, no more.
      idle_timer_.Start(kGoAwayWriteTimeout,
                        [weak = weak_factory_.GetWeakPtr()] {
                          if (SpdySession* self = weak.get())
                            self->FinishClose();
                        });
      ScheduleWrite();
      return;
    }
  }
  if (flush) {
    close_after_write_ = true;
    idle_timer_.Start(kGoAwayWriteTimeout, [weak = weak_factory_.GetWeakPtr()] {
      if (SpdySession* self = weak.get()) self->FinishClose();
    });
    ScheduleWrite();
    return;
  }
  FinishClose();
}

void SpdySession::FinishClose() {
  if (closed_notified_) return;
  closed_notified_ = true;
  close_after_write_ = false;
  idle_timer_.Stop();
  for (auto& queue : queues_) queue.clear();
  queued_control_bytes_ = 0;
  socket_->Disconnect();
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    SpdySession* self = weak.get();
    if (!self || !self->on_closed_) return;
    // Moved out first: the owner may destroy the session from it.
    absl::AnyInvocable<void(SpdySession*)> on_closed =
        std::move(self->on_closed_);
    self->on_closed_ = nullptr;
    on_closed(self);
  });
}

int SpdySession::Ping(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ == State::kClosed)
    return error_ != OK ? error_ : ERR_CONNECTION_CLOSED;
  if (pings_.size() >= kMaxPendingPings) return ERR_INSUFFICIENT_RESOURCES;
  uint32_t id = next_ping_id_;
  next_ping_id_ += 2;
  if (next_ping_id_ > kSpdyStreamIdMask) next_ping_id_ = 1;  // ids may wrap
  pings_[id] = PendingPing{Now(), std::move(callback)};
  SpdyPingIR ping;
  ping.id = id;
  EnqueueControl(ping);
  if (!ping_timer_.IsRunning()) {
    ping_timer_.Start(params_.ping_timeout,
                      [weak = weak_factory_.GetWeakPtr()] {
                        if (SpdySession* self = weak.get())
                          self->OnPingTimeout();
                      });
  }
  return ERR_IO_PENDING;
}

void SpdySession::OnPingTimeout() {
  if (pings_.empty() || state_ == State::kClosed) return;
  TimeTicks oldest = pings_.begin()->second.sent;
  for (const auto& [id, ping] : pings_) oldest = std::min(oldest, ping.sent);
  absl::Duration waited = Now() - oldest;
  if (waited < params_.ping_timeout) {
    ping_timer_.Start(params_.ping_timeout - waited,
                      [weak = weak_factory_.GetWeakPtr()] {
                        if (SpdySession* self = weak.get())
                          self->OnPingTimeout();
                      });
    return;
  }
  DoClose(ERR_SPDY_PING_FAILED,
          absl::StrCat("PING unanswered for ",
                       absl::FormatDuration(params_.ping_timeout)),
          std::nullopt);
}

}  // namespace net
