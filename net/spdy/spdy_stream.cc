#include "net/spdy/spdy_stream.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cert/obc/client_cert_provider.h"
#include "net/base/check.h"
#include "net/base/event_loop.h"
#include "net/spdy/spdy_session.h"

namespace net {
namespace {

// The receive buffer is compacted once this much of it has been read.
constexpr size_t kCompactAfter = 32 * 1024;

}  // namespace

SpdyStream::SpdyStream(WeakPtr<SpdySession> session,
                       const SpdyStreamParams& params, int32_t send_window,
                       int32_t recv_window)
    : session_(std::move(session)),
      priority_(std::min(params.priority, kSpdyLowestPriority)),
      origin_(params.origin),
      send_window_(send_window),
      recv_window_(recv_window),
      recv_window_size_(recv_window) {
  if (params.client_cert) {
    client_cert_ = std::make_unique<ClientCert>();
    client_cert_->cert_der = params.client_cert->cert_der;
    client_cert_->facts = params.client_cert->facts;
    if (params.client_cert->key) {
      EVP_PKEY_up_ref(params.client_cert->key.get());
      client_cert_->key.reset(params.client_cert->key.get());
    }
  }
}

SpdyStream::~SpdyStream() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (SpdySession* session = session_.get()) session->OnStreamDestroyed(this);
}

int SpdyStream::SendRequest(SpdyHeaderBlock headers, std::string body,
                            CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (next_state_ != STATE_NONE || send_callback_ || stream_id_ != 0 ||
      has_slot_)
    return ERR_UNEXPECTED;
  if (closed_) return error_ != OK ? error_ : ERR_CONNECTION_CLOSED;
  request_headers_ = std::move(headers);
  body_ = std::move(body);
  next_state_ = STATE_REQUEST_SLOT;
  int rv = DoSendLoop(OK);
  if (rv == ERR_IO_PENDING) {
    send_callback_ = std::move(callback);
    if (wake_result_) Poke();  // woken while the loop was still running
  } else {
    next_state_ = STATE_NONE;
    wake_result_.reset();
    if (rv == OK) std::string().swap(body_);
  }
  return rv;
}

int SpdyStream::DoSendLoop(int result) {
  int rv = result;
  do {
    State state = next_state_;
    next_state_ = STATE_NONE;
    switch (state) {
      case STATE_REQUEST_SLOT:
        rv = DoRequestSlot();
        break;
      case STATE_REQUEST_SLOT_COMPLETE:
        rv = DoRequestSlotComplete(rv);
        break;
      case STATE_SEND_HEADERS:
        rv = DoSendHeaders();
        break;
      case STATE_SEND_HEADERS_COMPLETE:
        rv = DoSendHeadersComplete(rv);
        break;
      case STATE_SEND_BODY:
        rv = DoSendBody();
        break;
      case STATE_SEND_BODY_COMPLETE:
        rv = DoSendBodyComplete(rv);
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

int SpdyStream::DoRequestSlot() {
  next_state_ = STATE_REQUEST_SLOT_COMPLETE;
  SpdySession* session = session_.get();
  if (!session) return ERR_ABORTED;
  return session->RequestSlot(this);
}

int SpdyStream::DoRequestSlotComplete(int result) {
  if (result < 0) return result;
  next_state_ = STATE_SEND_HEADERS;
  return OK;
}

int SpdyStream::DoSendHeaders() {
  next_state_ = STATE_SEND_HEADERS_COMPLETE;
  SpdySession* session = session_.get();
  if (!session) return ERR_ABORTED;
  if (closed_) return error_ != OK ? error_ : ERR_CONNECTION_CLOSED;
  session->EnqueueSynStream(this);
  return ERR_IO_PENDING;
}

int SpdyStream::DoSendHeadersComplete(int result) {
  if (result < 0) return result;
  if (body_.empty()) return OK;  // FIN went on the SYN_STREAM
  next_state_ = STATE_SEND_BODY;
  return OK;
}

int SpdyStream::DoSendBody() {
  SpdySession* session = session_.get();
  if (!session) return ERR_ABORTED;
  if (closed_) return error_ != OK ? error_ : ERR_CONNECTION_CLOSED;
  if (send_window_ <= 0) {
    // The session wakes us when a WINDOW_UPDATE (or SETTINGS) opens it.
    next_state_ = STATE_SEND_BODY;
    waiting_for_window_ = true;
    return ERR_IO_PENDING;
  }
  size_t remaining = body_.size() - body_offset_;
  size_t n = std::min({remaining, session->params_.max_data_frame_size,
                       static_cast<size_t>(send_window_)});
  bool fin = n == remaining;
  next_state_ = STATE_SEND_BODY_COMPLETE;
  send_window_ -= static_cast<int32_t>(n);
  session->EnqueueData(this, absl::string_view(body_).substr(body_offset_, n),
                       fin);
  body_offset_ += n;
  return ERR_IO_PENDING;
}

int SpdyStream::DoSendBodyComplete(int result) {
  if (result < 0) return result;
  if (body_offset_ < body_.size()) next_state_ = STATE_SEND_BODY;
  return OK;
}

void SpdyStream::Wake(int result) {
  // Only a send in progress waits (next_state_ names what it waits for).
  if (next_state_ == STATE_NONE) return;
  // An error overrides a success not yet delivered; OK never overrides.
  if (!wake_result_ || result < 0) wake_result_ = result;
  Poke();
}

void SpdyStream::Poke() {
  // No loop (torn down with the session at exit): nobody is waiting.
  if (poke_posted_ || !EventLoop::Current()) return;
  poke_posted_ = true;
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (SpdyStream* self = weak.get()) self->OnPoke();
  });
}

void SpdyStream::OnPoke() {
  poke_posted_ = false;
  WeakPtr<SpdyStream> weak = weak_factory_.GetWeakPtr();
  if (send_callback_ && wake_result_) {
    int result = *wake_result_;
    wake_result_.reset();
    waiting_for_window_ = false;
    int rv;
    if (result < 0) {
      next_state_ = STATE_NONE;
      rv = result;
    } else {
      rv = DoSendLoop(result);
    }
    if (rv != ERR_IO_PENDING) {
      if (rv == OK) std::string().swap(body_);
      CompletionOnceCallback callback = std::move(send_callback_);
      send_callback_ = nullptr;
      callback(rv);
      if (!weak) return;
    }
  }
  if (headers_callback_ && (response_headers_received_ || closed_)) {
    int rv = response_headers_received_
                 ? OK
                 : (error_ != OK ? error_ : ERR_CONNECTION_CLOSED);
    CompletionOnceCallback callback = std::move(headers_callback_);
    headers_callback_ = nullptr;
    callback(rv);
    if (!weak) return;
  }
  if (read_callback_ && (recv_buffered_ > 0 || remote_fin_ || closed_)) {
    std::shared_ptr<IOBuffer> buf = std::move(read_buf_);
    int rv = ReadBodyNow(buf.get(), read_len_);
    CompletionOnceCallback callback = std::move(read_callback_);
    read_callback_ = nullptr;
    callback(rv);
  }
}

int SpdyStream::ReadResponseHeaders(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (headers_callback_) return ERR_UNEXPECTED;
  if (response_headers_received_) return OK;
  if (closed_) return error_ != OK ? error_ : ERR_CONNECTION_CLOSED;
  headers_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int SpdyStream::ReadBody(std::shared_ptr<IOBuffer> buf, int len,
                         CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (read_callback_ || len <= 0) return ERR_INVALID_ARGUMENT;
  if (recv_buffered_ > 0 || remote_fin_ || closed_)
    return ReadBodyNow(buf.get(), len);
  read_buf_ = std::move(buf);
  read_len_ = len;
  read_callback_ = std::move(callback);
  return ERR_IO_PENDING;
}

int SpdyStream::ReadBodyNow(IOBuffer* buf, int len) {
  if (recv_buffered_ == 0) {
    if (remote_fin_ || error_ == OK) return 0;
    return error_;
  }
  size_t n = std::min(recv_buffered_, static_cast<size_t>(len));
  memcpy(buf->data(), recv_buf_.data() + recv_offset_, n);
  recv_offset_ += n;
  recv_buffered_ -= n;
  if (recv_buffered_ == 0) {
    recv_buf_.clear();
    recv_offset_ = 0;
  } else if (recv_offset_ >= kCompactAfter) {
    recv_buf_.erase(0, recv_offset_);
    recv_offset_ = 0;
  }
  if (SpdySession* session = session_.get()) session->OnBodyConsumed(this, n);
  return static_cast<int>(n);
}

void SpdyStream::OnSynStreamWritten(SpdyStreamId id) { stream_id_ = id; }

void SpdyStream::OnResponseHeaders(const SpdyHeaderBlock& headers, bool fin) {
  response_headers_ = headers;
  response_headers_received_ = true;
  if (fin) remote_fin_ = true;
  Poke();
}

void SpdyStream::OnData(absl::string_view data) {
  if (data.empty()) return;
  recv_buf_.append(data.data(), data.size());
  recv_buffered_ += data.size();
  body_received_ += data.size();
  if (read_callback_) Poke();
}

void SpdyStream::OnRemoteFin() {
  remote_fin_ = true;
  Poke();
}

void SpdyStream::Close(int error) {
  if (closed_) return;
  closed_ = true;
  error_ = error;
  has_slot_ = false;
  waiting_for_window_ = false;
  // A clean close comes after our FIN was written, whose Wake(OK) finishes
  // the send; an error ends a pending send with it.
  if (error != OK) Wake(error);
  Poke();
}

SpdyHeaderBlock MakeSpdyRequestHeaders(
    absl::string_view method, const Url& url,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  SpdyHeaderBlock block;
  block[":method"] = std::string(method);
  block[":path"] = url.PathForRequest();
  block[":version"] = "HTTP/1.1";
  block[":host"] = url.HostHeader();
  block[":scheme"] = url.scheme();
  for (const auto& [raw_name, value] : headers) {
    std::string name = absl::AsciiStrToLower(raw_name);
    if (name.empty() || name[0] == ':' || name == "connection" ||
        name == "host" || name == "keep-alive" || name == "proxy-connection" ||
        name == "transfer-encoding")
      continue;
    auto it = block.find(name);
    if (it == block.end()) {
      block[name] = value;
    } else if (!value.empty()) {
      if (!it->second.empty()) it->second.push_back('\0');
      it->second += value;
    }
  }
  return block;
}

int SpdyResponseStatus(const SpdyHeaderBlock& headers) {
  auto it = headers.find(":status");
  if (it == headers.end()) return -1;
  absl::string_view value = it->second;
  value = value.substr(0, value.find(' '));
  int status = 0;
  if (value.size() != 3 || !absl::SimpleAtoi(value, &status) || status < 100)
    return -1;
  return status;
}

}  // namespace net
