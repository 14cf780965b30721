#include "net/http2/http2_session.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/ssl/ssl_info.h"

namespace net {
namespace {

// Reads of at most this much; the loop yields to other tasks after this
// many bytes in one turn.
constexpr int kReadBufferSize = 64 * 1024;
constexpr size_t kMaxReadPerTurn = 256 * 1024;
// Bytes gathered from nghttp2 for one socket Write.
constexpr size_t kWriteChunk = 64 * 1024;

// The net error for an nghttp2 library error (a negative NGHTTP2_ERR_*).
int LibErrorToNetError(int lib_error) {
  switch (lib_error) {
    case NGHTTP2_ERR_FLOODED:
    case NGHTTP2_ERR_TOO_MANY_CONTINUATIONS:
    case NGHTTP2_ERR_TOO_MANY_SETTINGS:
      return ERR_HTTP2_FLOOD_DETECTED;
    case NGHTTP2_ERR_NOMEM:
      return ERR_INSUFFICIENT_RESOURCES;
    case NGHTTP2_ERR_HEADER_COMP:
      return ERR_HTTP2_COMPRESSION_ERROR;
    case NGHTTP2_ERR_FRAME_SIZE_ERROR:
      return ERR_HTTP2_FRAME_SIZE_ERROR;
    case NGHTTP2_ERR_FLOW_CONTROL:
      return ERR_HTTP2_FLOW_CONTROL_ERROR;
    case NGHTTP2_ERR_SETTINGS_EXPECTED:
    default:
      return ERR_HTTP2_PROTOCOL_ERROR;
  }
}

}  // namespace

int Http2ErrorCodeToNetError(uint32_t error_code) {
  switch (error_code) {
    case NGHTTP2_PROTOCOL_ERROR:
    case NGHTTP2_SETTINGS_TIMEOUT:
      return ERR_HTTP2_PROTOCOL_ERROR;
    case NGHTTP2_FLOW_CONTROL_ERROR:
      return ERR_HTTP2_FLOW_CONTROL_ERROR;
    case NGHTTP2_FRAME_SIZE_ERROR:
      return ERR_HTTP2_FRAME_SIZE_ERROR;
    case NGHTTP2_REFUSED_STREAM:
      return ERR_HTTP2_SERVER_REFUSED_STREAM;
    case NGHTTP2_COMPRESSION_ERROR:
      return ERR_HTTP2_COMPRESSION_ERROR;
    case NGHTTP2_HTTP_1_1_REQUIRED:
      return ERR_HTTP_1_1_REQUIRED;
    case NGHTTP2_NO_ERROR:
    case NGHTTP2_INTERNAL_ERROR:
    case NGHTTP2_STREAM_CLOSED:
    case NGHTTP2_CANCEL:
    default:
      return ERR_HTTP2_STREAM_CLOSED;
  }
}

std::string Http2SettingName(int32_t id) {
  switch (id) {
    case NGHTTP2_SETTINGS_HEADER_TABLE_SIZE:
      return "HEADER_TABLE_SIZE";
    case NGHTTP2_SETTINGS_ENABLE_PUSH:
      return "ENABLE_PUSH";
    case NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS:
      return "MAX_CONCURRENT_STREAMS";
    case NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE:
      return "INITIAL_WINDOW_SIZE";
    case NGHTTP2_SETTINGS_MAX_FRAME_SIZE:
      return "MAX_FRAME_SIZE";
    case NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE:
      return "MAX_HEADER_LIST_SIZE";
    case NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL:
      return "ENABLE_CONNECT_PROTOCOL";
    case NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES:
      return "NO_RFC7540_PRIORITIES";
    default:
      return absl::StrCat("UNKNOWN_0x", absl::Hex(id));
  }
}

std::optional<Origin> ParseOriginFrameEntry(absl::string_view entry) {
  // An ASCII serialization: a scheme, "://", a host and maybe a port;
  // nothing after it. (Firefox too takes https origins only.)
  constexpr absl::string_view kHttps = "https://";
  if (!absl::StartsWithIgnoreCase(entry, kHttps)) return std::nullopt;
  const absl::string_view authority = entry.substr(kHttps.size());
  if (authority.empty() ||
      authority.find_first_of("/?#@\\") != absl::string_view::npos)
    return std::nullopt;
  absl::StatusOr<Url> url = Url::Parse(entry);
  if (!url.ok() || !url->SchemeIsCryptographic()) return std::nullopt;
  return url->GetOrigin();
}

// Http2Session --------------------------------------------------------------

Http2Session::Http2Session(std::unique_ptr<StreamSocket> socket,
                           Http2SessionParams params)
    : socket_(std::move(socket)),
      params_(std::move(params)),
      read_buf_(std::make_shared<IOBuffer>(kReadBufferSize)) {}

Http2Session::~Http2Session() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // Streams outlive the session through their WeakPtr; they fail.
  if (state_ != State::kClosed) {
    on_closed_ = nullptr;
    on_going_away_ = nullptr;
    CloseWithError(ERR_ABORTED, "the HTTP/2 session was destroyed");
  }
}

void Http2Session::Start() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  NET_DCHECK(state_ == State::kNew);
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_option* option = nullptr;
  nghttp2_session* ng = nullptr;
  int rv = nghttp2_session_callbacks_new(&callbacks);
  if (rv == 0) rv = nghttp2_option_new(&option);
  if (rv == 0) {
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks,
                                                            &OnBeginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks,
                                                         &OnFrameRecv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks,
                                                              &OnDataChunkRecv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks,
                                                           &OnStreamClose);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks,
                                                         &OnFrameSend);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks,
                                                             &OnFrameNotSend);
    nghttp2_session_callbacks_set_error_callback2(callbacks, &OnError);
    // Flow control is ours: windows open only as callers read.
    nghttp2_option_set_no_auto_window_update(option, 1);
    // Until the server's SETTINGS say otherwise (RFC 9113 6.5.2 leaves it
    // unlimited; Chromium assumes 100).
    nghttp2_option_set_peer_max_concurrent_streams(option, 100);
    nghttp2_option_set_max_reserved_remote_streams(option, 0);
    // CONTINUATION frames per header block: enough for a block at our
    // header list limit (256 KB in 16 KB frames, with room for HPACK's
    // worst Huffman expansion), not nghttp2's default 8 (128 KB), so the
    // limit is the stream's ERR_RESPONSE_HEADERS_TOO_BIG; past it, an
    // endless block is a flood.
    nghttp2_option_set_max_continuations(option, 64);
    // RFC 8336 ORIGIN frames reach OnFrameRecv (nghttp2 drops those not on
    // stream 0).
    nghttp2_option_set_builtin_recv_extension_type(option, NGHTTP2_ORIGIN);
    rv = nghttp2_session_client_new2(&ng, callbacks, this, option);
  }
  if (callbacks) nghttp2_session_callbacks_del(callbacks);
  if (option) nghttp2_option_del(option);
  state_ = State::kOpen;
  if (rv != 0) {
    CloseWithError(ERR_INSUFFICIENT_RESOURCES,
                   absl::StrCat("nghttp2: ", nghttp2_strerror(rv)));
    return;
  }
  ng_.reset(ng);
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, params_.header_table_size},
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE,
       static_cast<uint32_t>(params_.stream_window)},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, params_.max_header_list_size},
  };
  rv = nghttp2_submit_settings(ng_.get(), NGHTTP2_FLAG_NONE, settings,
                               sizeof(settings) / sizeof(settings[0]));
  if (rv == 0 &&
      params_.session_window > NGHTTP2_INITIAL_CONNECTION_WINDOW_SIZE) {
    // A WINDOW_UPDATE raising the connection window.
    rv = nghttp2_session_set_local_window_size(ng_.get(), NGHTTP2_FLAG_NONE, 0,
                                               params_.session_window);
  }
  if (rv != 0) {
    CloseWithError(ERR_HTTP2_PROTOCOL_ERROR,
                   absl::StrCat("nghttp2: ", nghttp2_strerror(rv)));
    return;
  }
  settings_timer_.Start(params_.settings_timeout,
                        [this] { OnSettingsTimeout(); });
  UpdateIdleTimer();
  MaybeWrite();
  if (state_ != State::kClosed) DoRead();
}

int Http2Session::CreateStream(std::unique_ptr<Http2SessionStream>* stream) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ != State::kOpen) return ERR_HTTP2_SERVER_REFUSED_STREAM;
  stream->reset(new Http2SessionStream(GetWeakPtr()));
  return OK;
}

bool Http2Session::IsAvailable(bool replay_safe) const {
  if (state_ != State::kOpen) return false;
  if (!replay_safe) {
    // Early data: the server may still reject (or an attacker replay) what
    // goes now; only requests that may be replayed join.
    const SSLInfo* info = socket_->GetSSLInfo();
    if (info && info->awaiting_server_response) return false;
  }
  return true;
}

bool Http2Session::MayCarry(const Origin& origin) const {
  if (origin == params_.origin) return true;
  if (misdirected_overflow_ || WasMisdirected(origin)) return false;
  return !origin_frame_received_ || origin_set_.count(origin) > 0;
}

void Http2Session::NoteMisdirected(const Origin& origin) {
  if (misdirected_.size() >= params_.max_misdirected) {
    misdirected_overflow_ = true;
    return;
  }
  misdirected_.insert(origin);
  // RFC 8336 2.4 (and Firefox): a 421 takes the origin out of the set.
  origin_set_.erase(origin);
}

bool Http2Session::WasMisdirected(const Origin& origin) const {
  return misdirected_.count(origin) > 0;
}

void Http2Session::OnOriginFrame(const nghttp2_extension& ext) {
  const auto* frame = static_cast<const nghttp2_ext_origin*>(ext.payload);
  origin_frame_received_ = true;
  if (!frame) return;
  for (size_t i = 0; i < frame->nov; ++i) {
    const absl::string_view text(
        reinterpret_cast<const char*>(frame->ov[i].origin),
        frame->ov[i].origin_len);
    std::optional<Origin> origin = ParseOriginFrameEntry(text);
    if (!origin || (origin_set_.size() >= params_.max_origin_set &&
                    !origin_set_.count(*origin))) {
      ++origin_frame_entries_ignored_;
      continue;
    }
    // A later ORIGIN frame does not bring back an origin the server
    // answered 421 for here.
    if (!WasMisdirected(*origin)) origin_set_.insert(*std::move(origin));
  }
}

void Http2Session::Ping(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ == State::kClosed || !ng_) {
    EventLoop::Current()->PostTask(
        [cb = std::move(callback),
         rv = error_ == OK ? ERR_CONNECTION_CLOSED : error_]() mutable {
          std::move(cb)(rv);
        });
    return;
  }
  ping_callbacks_.push_back(std::move(callback));
  if (ping_callbacks_.size() == 1) {
    nghttp2_submit_ping(ng_.get(), NGHTTP2_FLAG_NONE, nullptr);
    ping_sent_ = params_.clock->NowTicks();
    ping_timer_.Start(params_.ping_timeout, [this] { OnPingTimeout(); });
  }
  MaybeWrite();
}

void Http2Session::GoAway() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ != State::kOpen || !ng_) return;
  nghttp2_submit_goaway(ng_.get(), NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(ng_.get()),
                        NGHTTP2_NO_ERROR, nullptr, 0);
  EnterGoingAway();
  MaybeWrite();
}

void Http2Session::EnterGoingAway() {
  if (state_ != State::kOpen) return;
  state_ = State::kGoingAway;
  if (on_going_away_) on_going_away_(this);
}

void Http2Session::FailStreams(int error) {
  // Copy: failing a stream touches nothing of the map, but be safe.
  std::vector<Http2SessionStream*> streams;
  for (auto& [id, stream] : streams_) streams.push_back(stream);
  for (Http2SessionStream* stream : streams) {
    if (stream->closed_) continue;
    stream->closed_ = true;
    if (stream->end_stream_received_) continue;
    // Never sent: refused (retryable), unless the server asked for HTTP/1.1
    // for everything, which that retry must honour.
    stream->Fail(stream->headers_sent_ || error == ERR_HTTP_1_1_REQUIRED
                     ? error
                     : ERR_HTTP2_SERVER_REFUSED_STREAM);
  }
}

void Http2Session::CloseWithError(int error, const std::string& detail) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (state_ == State::kClosed) return;
  const bool was_open = state_ == State::kOpen || state_ == State::kNew;
  state_ = State::kClosed;
  error_ = error;
  error_detail_ = detail;
  settings_timer_.Stop();
  ping_timer_.Stop();
  idle_timer_.Stop();
  // After a GOAWAY with an error code, the streams it did not finish fail
  // with it (those above its last stream id were refused already).
  int stream_error = error;
  if (goaway_received_ && goaway_error_code_ != NGHTTP2_NO_ERROR)
    stream_error = ERR_HTTP2_GOAWAY_FRAME;
  if (goaway_received_ && goaway_error_code_ == NGHTTP2_HTTP_1_1_REQUIRED)
    stream_error = ERR_HTTP_1_1_REQUIRED;
  FailStreams(stream_error);
  for (auto& cb : ping_callbacks_) {
    EventLoop::Current()->PostTask(
        [cb = std::move(cb), error]() mutable { std::move(cb)(error); });
  }
  ping_callbacks_.clear();
  socket_->Disconnect();
  if (was_open && on_going_away_) on_going_away_(this);
  EventLoop::Current()->PostTask([weak = GetWeakPtr()] {
    Http2Session* self = weak.get();
    if (self && self->on_closed_) {
      auto cb = std::move(self->on_closed_);
      self->on_closed_ = nullptr;
      cb(self);  // may destroy the session
    }
  });
}

void Http2Session::OnSettingsTimeout() {
  if (settings_received_) return;
  CloseWithError(
      ERR_HTTP2_SETTINGS_TIMEOUT,
      absl::StrCat("the server sent no SETTINGS (its HTTP/2 connection "
                   "preface) within ",
                   absl::FormatDuration(params_.settings_timeout)));
}

void Http2Session::OnPingTimeout() {
  CloseWithError(ERR_HTTP2_PING_FAILED,
                 absl::StrCat("no PING ACK within ",
                              absl::FormatDuration(params_.ping_timeout)));
}

void Http2Session::OnIdleTimeout() {
  if (state_ != State::kOpen || !streams_.empty() || !ng_) return;
  // GOAWAY NO_ERROR; once it is written nghttp2 wants nothing more and
  // CheckTerminated closes the session.
  nghttp2_session_terminate_session(ng_.get(), NGHTTP2_NO_ERROR);
  EnterGoingAway();
  MaybeWrite();
}

void Http2Session::UpdateIdleTimer() {
  if (state_ == State::kOpen && streams_.empty()) {
    idle_timer_.Start(params_.idle_timeout, [this] { OnIdleTimeout(); });
  } else {
    idle_timer_.Stop();
  }
}

Http2SessionStream* Http2Session::FindStream(int32_t stream_id) {
  auto it = streams_.find(stream_id);
  return it == streams_.end() ? nullptr : it->second;
}

int32_t Http2Session::SubmitRequest(Http2SessionStream* stream,
                                    const Http2Headers& headers,
                                    bool has_body) {
  if (state_ != State::kOpen || !ng_) return ERR_HTTP2_SERVER_REFUSED_STREAM;
  std::vector<nghttp2_nv> nva;
  nva.reserve(headers.size());
  for (const auto& [name, value] : headers) {
    nghttp2_nv nv;
    nv.name = reinterpret_cast<uint8_t*>(const_cast<char*>(name.data()));
    nv.namelen = name.size();
    nv.value = reinterpret_cast<uint8_t*>(const_cast<char*>(value.data()));
    nv.valuelen = value.size();
    // nghttp2 copies the header list at submission.
    nv.flags = NGHTTP2_NV_FLAG_NONE;
    nva.push_back(nv);
  }
  // Chromium's HTTP/2 priorities (Http2PriorityDependencies): an exclusive
  // dependency on the newest open stream of the same or a more urgent
  // priority, the priority's weight. nghttp2 gives the request the next
  // stream id.
  const uint32_t next_id = nghttp2_session_get_next_stream_id(ng_.get());
  if (next_id > static_cast<uint32_t>(INT32_MAX))
    return ERR_HTTP2_SERVER_REFUSED_STREAM;  // ids exhausted: a new session
  stream->sent_priority_ = priorities_.OnStreamCreation(
      static_cast<int32_t>(next_id), stream->priority_);
  nghttp2_priority_spec priority;
  nghttp2_priority_spec_init(&priority, stream->sent_priority_.parent,
                             stream->sent_priority_.weight,
                             stream->sent_priority_.exclusive ? 1 : 0);
  nghttp2_data_provider provider;
  provider.source.ptr = nullptr;
  provider.read_callback = &ReadUpload;
  const int32_t id =
      nghttp2_submit_request(ng_.get(), &priority, nva.data(), nva.size(),
                             has_body ? &provider : nullptr, nullptr);
  if (id < 0) {
    priorities_.OnStreamDestruction(static_cast<int32_t>(next_id));
    return ERR_HTTP2_PROTOCOL_ERROR;
  }
  NET_DCHECK(static_cast<uint32_t>(id) == next_id);
  streams_[id] = stream;
  ++streams_started_;
  UpdateIdleTimer();
  return id;
}

void Http2Session::Unregister(Http2SessionStream* stream) {
  const int32_t id = stream->stream_id_;
  if (id <= 0) return;
  streams_.erase(id);
  priorities_.OnStreamDestruction(id);
  const size_t unread = stream->buffered_bytes();
  buffered_bytes_ -= unread;
  if (state_ != State::kClosed && ng_) {
    if (!stream->closed_)
      nghttp2_submit_rst_stream(ng_.get(), NGHTTP2_FLAG_NONE, id,
                                NGHTTP2_CANCEL);
    // What the caller never read goes back to the connection's window
    // (nghttp2 credits the connection even for a closed stream).
    if (unread > 0) nghttp2_session_consume(ng_.get(), id, unread);
    UpdateIdleTimer();
    MaybeWrite();
  }
}

void Http2Session::Consume(int32_t stream_id, size_t bytes) {
  buffered_bytes_ -= bytes;
  if (state_ == State::kClosed || !ng_) return;
  nghttp2_session_consume(ng_.get(), stream_id, bytes);
  MaybeWrite();
}

// I/O ------------------------------------------------------------------------

void Http2Session::MaybeWrite() {
  if (write_pending_ || in_nghttp2_ || state_ == State::kClosed || !ng_) return;
  WeakPtr<Http2Session> weak = GetWeakPtr();
  while (true) {
    std::string out;
    while (out.size() < kWriteChunk) {
      const uint8_t* data = nullptr;
      in_nghttp2_ = true;
      const ssize_t n = nghttp2_session_mem_send(ng_.get(), &data);
      in_nghttp2_ = false;
      if (n < 0) {
        CloseWithError(
            LibErrorToNetError(static_cast<int>(n)),
            absl::StrCat("nghttp2: ", nghttp2_strerror(static_cast<int>(n))));
        return;
      }
      if (n == 0) break;
      out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
    }
    if (out.empty()) {
      CheckTerminated();
      return;
    }
    write_buf_ = std::make_shared<DrainableIOBuffer>(out);
    while (write_buf_->BytesRemaining() > 0) {
      const int rv = socket_->Write(
          write_buf_, static_cast<int>(write_buf_->BytesRemaining()),
          [weak](int rv) {
            if (weak) weak->OnWriteDone(rv);
          });
      if (rv == ERR_IO_PENDING) {
        write_pending_ = true;
        return;
      }
      if (rv < 0) {
        CloseWithError(rv, "writing to the HTTP/2 connection failed");
        return;
      }
      write_buf_->DidConsume(static_cast<size_t>(rv));
    }
    if (!weak || state_ == State::kClosed) return;
  }
}

void Http2Session::OnWriteDone(int rv) {
  write_pending_ = false;
  if (state_ == State::kClosed) return;
  if (rv < 0) {
    CloseWithError(rv, "writing to the HTTP/2 connection failed");
    return;
  }
  write_buf_->DidConsume(static_cast<size_t>(rv));
  if (write_buf_->BytesRemaining() > 0) {
    const int next = socket_->Write(
        write_buf_, static_cast<int>(write_buf_->BytesRemaining()),
        [weak = GetWeakPtr()](int rv) {
          if (weak) weak->OnWriteDone(rv);
        });
    if (next == ERR_IO_PENDING) {
      write_pending_ = true;
      return;
    }
    return OnWriteDone(next);
  }
  MaybeWrite();
}

void Http2Session::DoRead() {
  read_posted_ = false;
  size_t this_turn = 0;
  while (state_ != State::kClosed && !read_pending_) {
    const int rv = socket_->Read(read_buf_, kReadBufferSize,
                                 [weak = GetWeakPtr()](int rv) {
                                   if (weak) weak->OnReadDone(rv);
                                 });
    if (rv == ERR_IO_PENDING) {
      read_pending_ = true;
      return;
    }
    if (!ProcessRead(rv)) return;
    this_turn += static_cast<size_t>(rv);
    if (this_turn >= kMaxReadPerTurn) {
      // Let other tasks (the streams' callbacks, timers) run.
      read_posted_ = true;
      EventLoop::Current()->PostTask([weak = GetWeakPtr()] {
        if (weak) weak->DoRead();
      });
      return;
    }
  }
}

void Http2Session::OnReadDone(int rv) {
  read_pending_ = false;
  if (!ProcessRead(rv)) return;
  DoRead();
}

bool Http2Session::ProcessRead(int rv) {
  if (state_ == State::kClosed) return false;
  if (rv <= 0) {
    if (rv == 0) {
      CloseWithError(ERR_CONNECTION_CLOSED,
                     goaway_received_
                         ? "the server closed the connection after GOAWAY"
                         : "the server closed the HTTP/2 connection");
    } else {
      CloseWithError(rv, socket_->error_detail().empty()
                             ? "reading the HTTP/2 connection failed"
                             : socket_->error_detail());
    }
    return false;
  }
  in_nghttp2_ = true;
  const ssize_t n = nghttp2_session_mem_recv(
      ng_.get(), reinterpret_cast<const uint8_t*>(read_buf_->data()),
      static_cast<size_t>(rv));
  in_nghttp2_ = false;
  if (n < 0) {
    CloseWithError(
        LibErrorToNetError(static_cast<int>(n)),
        absl::StrCat("nghttp2: ", nghttp2_strerror(static_cast<int>(n)),
                     nghttp2_detail_.empty() ? "" : ": ", nghttp2_detail_));
    return false;
  }
  MaybeWrite();
  return state_ != State::kClosed;
}

void Http2Session::CheckTerminated() {
  if (state_ == State::kClosed || !ng_ || write_pending_) return;
  if (nghttp2_session_want_read(ng_.get()) ||
      nghttp2_session_want_write(ng_.get()))
    return;
  // nghttp2 is done with the connection: after our GOAWAY (an error it
  // found in what the server sent, or our idle close), or after the
  // server's GOAWAY once its last stream ended.
  if (goaway_sent_ && goaway_sent_code_ != NGHTTP2_NO_ERROR) {
    CloseWithError(
        Http2ErrorCodeToNetError(goaway_sent_code_) == ERR_HTTP2_STREAM_CLOSED
            ? ERR_HTTP2_PROTOCOL_ERROR
            : Http2ErrorCodeToNetError(goaway_sent_code_),
        absl::StrCat("the server broke HTTP/2",
                     nghttp2_detail_.empty() ? "" : ": ", nghttp2_detail_,
                     " (we sent GOAWAY ",
                     nghttp2_http2_strerror(goaway_sent_code_), ")"));
    return;
  }
  CloseWithError(ERR_CONNECTION_CLOSED,
                 goaway_received_ ? "the server sent GOAWAY"
                                  : "the HTTP/2 session closed (idle)");
}

// nghttp2 callbacks -----------------------------------------------------------

int Http2Session::OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame,
                                 void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  if (Http2SessionStream* stream = self->FindStream(frame->hd.stream_id))
    stream->block_.clear();
  return 0;
}

int Http2Session::OnHeader(nghttp2_session*, const nghttp2_frame* frame,
                           const uint8_t* name, size_t namelen,
                           const uint8_t* value, size_t valuelen, uint8_t,
                           void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  Http2SessionStream* stream = self->FindStream(frame->hd.stream_id);
  if (!stream) return 0;  // cancelled: HPACK state is kept by nghttp2
  // RFC 9113 6.5.2's size: name + value + 32 per field, every block of the
  // response (interim, final, trailers) together.
  stream->header_list_bytes_ += namelen + valuelen + 32;
  if (stream->header_list_bytes_ > self->params_.max_header_list_size) {
    stream->Fail(ERR_RESPONSE_HEADERS_TOO_BIG);
    // nghttp2 resets the stream (INTERNAL_ERROR) and decodes the rest of
    // the block without calling us.
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  }
  stream->block_.emplace_back(
      std::string(reinterpret_cast<const char*>(name), namelen),
      std::string(reinterpret_cast<const char*>(value), valuelen));
  return 0;
}

int Http2Session::OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame,
                              void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  switch (frame->hd.type) {
    case NGHTTP2_SETTINGS: {
      if (frame->hd.flags & NGHTTP2_FLAG_ACK) break;
      self->settings_received_ = true;
      self->settings_timer_.Stop();
      for (size_t i = 0; i < frame->settings.niv; ++i) {
        self->server_settings_.emplace_back(
            Http2SettingName(frame->settings.iv[i].settings_id),
            frame->settings.iv[i].value);
      }
      break;
    }
    case NGHTTP2_HEADERS: {
      Http2SessionStream* stream = self->FindStream(frame->hd.stream_id);
      if (!stream) break;
      if (!stream->response_headers_done_) {
        int status = 0;
        for (const auto& [name, value] : stream->block_) {
          if (name == ":status") {
            if (!absl::SimpleAtoi(value, &status)) status = 0;
          }
        }
        // nghttp2 checked :status (three digits) already; 1xx blocks are
        // interim and skipped.
        if (status >= 200) {
          stream->status_ = status;
          stream->response_headers_ = std::move(stream->block_);
          stream->response_headers_done_ = true;
        }
      }
      stream->block_.clear();
      if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)
        stream->end_stream_received_ = true;
      stream->Poke();
      break;
    }
    case NGHTTP2_DATA: {
      Http2SessionStream* stream = self->FindStream(frame->hd.stream_id);
      if (stream && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        stream->end_stream_received_ = true;
        stream->Poke();
      }
      break;
    }
    case NGHTTP2_GOAWAY:
      self->goaway_received_ = true;
      self->goaway_last_stream_id_ = frame->goaway.last_stream_id;
      self->goaway_error_code_ = frame->goaway.error_code;
      self->EnterGoingAway();
      break;
    case NGHTTP2_ORIGIN:
      self->OnOriginFrame(frame->ext);
      break;
    case NGHTTP2_PING:
      if ((frame->hd.flags & NGHTTP2_FLAG_ACK) &&
          !self->ping_callbacks_.empty()) {
        self->ping_timer_.Stop();
        self->last_ping_rtt_ =
            self->params_.clock->NowTicks() - self->ping_sent_;
        for (auto& cb : self->ping_callbacks_) {
          EventLoop::Current()->PostTask(
              [cb = std::move(cb)]() mutable { std::move(cb)(OK); });
        }
        self->ping_callbacks_.clear();
      }
      break;
    default:
      break;
  }
  return 0;
}

int Http2Session::OnDataChunkRecv(nghttp2_session* ng, uint8_t,
                                  int32_t stream_id, const uint8_t* data,
                                  size_t len, void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  Http2SessionStream* stream = self->FindStream(stream_id);
  if (!stream || stream->error_ != OK) {
    // Nobody will read it: give the window back at once.
    nghttp2_session_consume(ng, stream_id, len);
    return 0;
  }
  // Compact what the caller already read before growing.
  if (stream->body_offset_ > 0 &&
      stream->body_offset_ >= stream->body_.size() / 2) {
    stream->body_.erase(0, stream->body_offset_);
    stream->body_offset_ = 0;
  }
  stream->body_.append(reinterpret_cast<const char*>(data), len);
  self->buffered_bytes_ += len;
  self->max_buffered_bytes_ =
      std::max(self->max_buffered_bytes_, self->buffered_bytes_);
  stream->Poke();
  return 0;
}

int Http2Session::OnStreamClose(nghttp2_session*, int32_t stream_id,
                                uint32_t error_code, void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  Http2SessionStream* stream = self->FindStream(stream_id);
  if (!stream) return 0;
  stream->closed_ = true;
  self->priorities_.OnStreamDestruction(stream_id);
  if (!stream->end_stream_received_) {
    int error = Http2ErrorCodeToNetError(error_code);
    // Above a GOAWAY HTTP_1_1_REQUIRED's last stream id (nghttp2 closes
    // those REFUSED_STREAM): HTTP/1.1 is what the server wants for it too.
    if (self->goaway_received_ &&
        self->goaway_error_code_ == NGHTTP2_HTTP_1_1_REQUIRED)
      error = ERR_HTTP_1_1_REQUIRED;
    // Refused by GOAWAY's last stream id (nghttp2 closes those with
    // REFUSED_STREAM), or reset before the response ended.
    stream->Fail(error);
  }
  stream->Poke();
  return 0;
}

int Http2Session::OnFrameSend(nghttp2_session*, const nghttp2_frame* frame,
                              void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  switch (frame->hd.type) {
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA: {
      Http2SessionStream* stream = self->FindStream(frame->hd.stream_id);
      if (!stream) break;
      stream->headers_sent_ = true;
      if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
        stream->request_sent_ = true;
        stream->Poke();
      }
      break;
    }
    case NGHTTP2_GOAWAY:
      self->goaway_sent_ = true;
      self->goaway_sent_code_ = frame->goaway.error_code;
      self->EnterGoingAway();
      break;
    default:
      break;
  }
  return 0;
}

int Http2Session::OnFrameNotSend(nghttp2_session*, const nghttp2_frame* frame,
                                 int lib_error_code, void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  Http2SessionStream* stream = self->FindStream(frame->hd.stream_id);
  if (!stream) return 0;
  // Not sent because the session is going away (GOAWAY) or the stream
  // closed first: the server never saw it, so it may go elsewhere.
  const bool refused = lib_error_code == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED ||
                       lib_error_code == NGHTTP2_ERR_SESSION_CLOSING ||
                       lib_error_code == NGHTTP2_ERR_STREAM_CLOSED ||
                       lib_error_code == NGHTTP2_ERR_STREAM_CLOSING;
  stream->Fail(refused ? ERR_HTTP2_SERVER_REFUSED_STREAM
                       : ERR_HTTP2_PROTOCOL_ERROR);
  return 0;
}

int Http2Session::OnError(nghttp2_session*, int, const char* msg, size_t len,
                          void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  self->nghttp2_detail_.assign(msg, std::min<size_t>(len, 256));
  return 0;
}

ssize_t Http2Session::ReadUpload(nghttp2_session* ng, int32_t stream_id,
                                 uint8_t* buf, size_t length,
                                 uint32_t* data_flags, nghttp2_data_source*,
                                 void* user_data) {
  auto* self = static_cast<Http2Session*>(user_data);
  Http2SessionStream* stream = self->FindStream(stream_id);
  if (!stream) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  const size_t left = stream->upload_.size() - stream->upload_offset_;
  const size_t n = std::min(left, length);
  memcpy(buf, stream->upload_.data() + stream->upload_offset_, n);
  stream->upload_offset_ += n;
  if (stream->upload_offset_ == stream->upload_.size())
    *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

// Http2SessionStream
// -----------------------------------------------------------

Http2SessionStream::Http2SessionStream(WeakPtr<Http2Session> session)
    : session_(std::move(session)) {}

Http2SessionStream::~Http2SessionStream() {
  if (Http2Session* session = session_.get()) session->Unregister(this);
}

int Http2SessionStream::SendRequest(const Http2Headers& headers,
                                    std::string body,
                                    CompletionOnceCallback callback) {
  Http2Session* session = session_.get();
  if (!session) return error_ != OK ? error_ : ERR_HTTP2_SERVER_REFUSED_STREAM;
  upload_ = std::move(body);
  const bool has_body = !upload_.empty();
  const int32_t id = session->SubmitRequest(this, headers, has_body);
  if (id < 0) {
    error_ = id;
    return id;
  }
  stream_id_ = id;
  send_callback_ = std::move(callback);
  session->MaybeWrite();
  return ERR_IO_PENDING;
}

int Http2SessionStream::ReadResponseHeaders(CompletionOnceCallback callback) {
  if (response_headers_done_) return OK;
  if (error_ != OK) return error_;
  if (!session_ && !closed_) return ERR_ABORTED;
  headers_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int Http2SessionStream::TakeBody(IOBuffer* buf, int len) {
  const size_t n = std::min(buffered_bytes(), static_cast<size_t>(len));
  memcpy(buf->data(), body_.data() + body_offset_, n);
  body_offset_ += n;
  if (body_offset_ == body_.size()) {
    body_.clear();
    body_offset_ = 0;
  }
  if (Http2Session* session = session_.get()) session->Consume(stream_id_, n);
  return static_cast<int>(n);
}

int Http2SessionStream::ReadBody(std::shared_ptr<IOBuffer> buf, int len,
                                 CompletionOnceCallback callback) {
  if (buffered_bytes() > 0) return TakeBody(buf.get(), len);
  if (end_stream_received_) return 0;
  if (error_ != OK) return error_;
  if (!session_) return ERR_ABORTED;
  body_buf_ = std::move(buf);
  body_len_ = len;
  body_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

void Http2SessionStream::Fail(int error) {
  if (error_ == OK) error_ = error;
  Poke();
}

void Http2SessionStream::Poke() {
  if (poke_posted_) return;
  poke_posted_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (Http2SessionStream* self = weak.get()) self->RunCallbacks();
  });
}

void Http2SessionStream::RunCallbacks() {
  poke_posted_ = false;
  WeakPtr<Http2SessionStream> weak = weak_factory_.GetWeakPtr();
  // A session destroyed under the stream.
  if (!session_ && error_ == OK && !end_stream_received_) error_ = ERR_ABORTED;
  if (send_callback_ && (request_sent_ || error_ != OK)) {
    CompletionOnceCallback cb = std::move(send_callback_);
    send_callback_ = nullptr;
    // A server may answer (and end the stream) before the body is through.
    std::move(cb)(request_sent_ || response_headers_done_ ? OK : error_);
    if (!weak) return;
  }
  if (headers_callback_ && (response_headers_done_ || error_ != OK)) {
    CompletionOnceCallback cb = std::move(headers_callback_);
    headers_callback_ = nullptr;
    std::move(cb)(response_headers_done_ ? OK : error_);
    if (!weak) return;
  }
  if (body_callback_) {
    int rv = ERR_IO_PENDING;
    if (buffered_bytes() > 0) {
      rv = TakeBody(body_buf_.get(), body_len_);
    } else if (end_stream_received_) {
      rv = 0;
    } else if (error_ != OK) {
      rv = error_;
    }
    if (rv != ERR_IO_PENDING) {
      body_buf_.reset();
      CompletionOnceCallback cb = std::move(body_callback_);
      body_callback_ = nullptr;
      std::move(cb)(rv);
    }
  }
}

}  // namespace net
