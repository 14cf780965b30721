// Test helpers for SpdySession (testonly):
//
// FakeSocketPair: two connected in-memory StreamSockets on the current
// EventLoop. Reads complete synchronously when bytes are there and from a
// posted task otherwise; each direction holds at most |capacity| unread
// bytes, beyond which writes pend (a peer that stops reading). Disconnect
// (or destroying one end) makes the other end read EOF once drained.
//
// TestSpdyPeer: the server end of a SPDY/3 connection scripted by a test:
// it owns one FakeSocketPair end, reads and records every frame our client
// sends (RecordingSpdyVisitor), and sends frames the test builds with its own
// SpdyFramer (so its header blocks go through its own zlib stream, as a real
// server's). Reading can be paused, to make the client's writes back up.

#ifndef NET_SPDY_SPDY_SESSION_TEST_UTIL_H_
#define NET_SPDY_SPDY_SESSION_TEST_UTIL_H_

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/weak_ptr.h"
#include "net/socket/stream_socket.h"
#include "net/spdy/spdy_deframer.h"
#include "net/spdy/spdy_framer.h"
#include "net/spdy/spdy_test_util.h"

namespace net {

class FakeStreamSocket : public StreamSocket {
 public:
  // One direction of the pair.
  struct Pipe {
    std::string data;
    bool closed = false;
    size_t capacity = std::numeric_limits<size_t>::max();
    FakeStreamSocket* reader = nullptr;
    FakeStreamSocket* writer = nullptr;
  };

  FakeStreamSocket(std::shared_ptr<Pipe> in, std::shared_ptr<Pipe> out)
      : in_(std::move(in)), out_(std::move(out)) {
    in_->reader = this;
    out_->writer = this;
  }
  ~FakeStreamSocket() override {
    Disconnect();
    in_->reader = nullptr;
    out_->writer = nullptr;
  }

  int Connect(CompletionOnceCallback) override { return OK; }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override {
    if (disconnected_) return ERR_SOCKET_NOT_CONNECTED;
    if (!in_->data.empty() || in_->closed) return ReadNow(buf.get(), len);
    read_buf_ = std::move(buf);
    read_len_ = len;
    read_callback_ = std::move(callback);
    return ERR_IO_PENDING;
  }
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override {
    if (disconnected_) return ERR_SOCKET_NOT_CONNECTED;
    if (out_->closed) return ERR_CONNECTION_RESET;
    if (out_->data.size() >= out_->capacity) {
      write_buf_ = std::move(buf);
      write_len_ = len;
      write_callback_ = std::move(callback);
      return ERR_IO_PENDING;
    }
    return WriteNow(buf.get(), len);
  }
  void Disconnect() override {
    if (disconnected_) return;
    disconnected_ = true;
    read_callback_ = nullptr;
    write_callback_ = nullptr;
    in_->closed = true;
    out_->closed = true;
    if (out_->reader) out_->reader->Notify();
    if (in_->writer) in_->writer->Notify();
  }
  bool IsConnected() const override { return !disconnected_; }
  bool IsConnectedAndIdle() const override {
    return !disconnected_ && in_->data.empty();
  }
  int GetPeerAddress(IPEndPoint* address) const override {
    *address = IPEndPoint(IPAddress::IPv4Localhost(), 443);
    return OK;
  }
  int GetLocalAddress(IPEndPoint* address) const override {
    *address = IPEndPoint(IPAddress::IPv4Localhost(), 50000);
    return OK;
  }

  // Bytes written by this end and not yet read by the other.
  size_t unread_outgoing() const { return out_->data.size(); }

 private:
  int ReadNow(IOBuffer* buf, int len) {
    if (in_->data.empty()) return in_->closed ? 0 : ERR_IO_PENDING;
    size_t n = std::min(in_->data.size(), static_cast<size_t>(len));
    memcpy(buf->data(), in_->data.data(), n);
    in_->data.erase(0, n);
    if (in_->writer) in_->writer->Notify();  // room for a pending write
    return static_cast<int>(n);
  }
  int WriteNow(IOBuffer* buf, int len) {
    size_t room = out_->capacity - out_->data.size();
    size_t n = std::min(room, static_cast<size_t>(len));
    out_->data.append(buf->data(), n);
    if (out_->reader) out_->reader->Notify();
    return static_cast<int>(n);
  }
  // Notify posts a task that completes whatever is pending and can now go.
  void Notify() {
    if (notify_posted_) return;
    notify_posted_ = true;
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (FakeStreamSocket* self = weak.get()) self->OnNotify();
    });
  }
  void OnNotify() {
    notify_posted_ = false;
    WeakPtr<FakeStreamSocket> weak = weak_factory_.GetWeakPtr();
    if (read_callback_ && (!in_->data.empty() || in_->closed)) {
      int rv = ReadNow(read_buf_.get(), read_len_);
      read_buf_.reset();
      CompletionOnceCallback cb = std::move(read_callback_);
      read_callback_ = nullptr;
      cb(rv);
      if (!weak) return;
    }
    if (write_callback_ &&
        (out_->closed || out_->data.size() < out_->capacity)) {
      int rv = out_->closed ? ERR_CONNECTION_RESET
                            : WriteNow(write_buf_.get(), write_len_);
      write_buf_.reset();
      CompletionOnceCallback cb = std::move(write_callback_);
      write_callback_ = nullptr;
      cb(rv);
    }
  }

  std::shared_ptr<Pipe> in_;
  std::shared_ptr<Pipe> out_;
  bool disconnected_ = false;
  bool notify_posted_ = false;
  std::shared_ptr<IOBuffer> read_buf_;
  int read_len_ = 0;
  CompletionOnceCallback read_callback_;
  std::shared_ptr<IOBuffer> write_buf_;
  int write_len_ = 0;
  CompletionOnceCallback write_callback_;
  WeakPtrFactory<FakeStreamSocket> weak_factory_{this};
};

// CreateFakeSocketPair returns (client end, server end); each direction
// holds at most |capacity| unread bytes.
inline std::pair<std::unique_ptr<FakeStreamSocket>,
                 std::unique_ptr<FakeStreamSocket>>
CreateFakeSocketPair(size_t capacity = std::numeric_limits<size_t>::max()) {
  auto a_to_b = std::make_shared<FakeStreamSocket::Pipe>();
  auto b_to_a = std::make_shared<FakeStreamSocket::Pipe>();
  a_to_b->capacity = capacity;
  b_to_a->capacity = capacity;
  auto a = std::make_unique<FakeStreamSocket>(b_to_a, a_to_b);
  auto b = std::make_unique<FakeStreamSocket>(a_to_b, b_to_a);
  return {std::move(a), std::move(b)};
}

class TestSpdyPeer {
 public:
  explicit TestSpdyPeer(std::unique_ptr<StreamSocket> socket)
      : socket_(std::move(socket)), deframer_(&visitor_) {
    ReadLoop();
  }

  // Send writes |frame| (built with the peer's own framer) at once.
  void Send(const SpdyFrameIR& frame) {
    absl::StatusOr<std::string> bytes = framer_.SerializeFrame(frame);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    SendRaw(*bytes);
  }
  void SendRaw(const std::string& bytes) {
    pending_out_ += bytes;
    Flush();
  }
  // Close drops the connection (the client reads EOF).
  void Close() { socket_->Disconnect(); }

  // PauseReading stops taking the client's bytes; ResumeReading goes on.
  void PauseReading() { paused_ = true; }
  void ResumeReading() {
    paused_ = false;
    ReadLoop();
  }

  // RunUntil runs the loop until |done()| holds (fails after |max_turns|).
  template <typename Pred>
  static bool RunUntil(Pred done, int max_turns = 200000) {
    for (int i = 0; i < max_turns && !done(); ++i)
      EventLoop::Current()->RunUntilIdle();
    return done();
  }

  // Frames the client sent, in order.
  const std::vector<SpdyFrameIR>& frames() const { return visitor_.frames; }
  RecordingSpdyVisitor& visitor() { return visitor_; }
  size_t bytes_read() const { return bytes_read_; }
  bool eof() const { return eof_; }

  // Frames of type T the client sent.
  template <typename T>
  std::vector<T> FramesOf() const {
    std::vector<T> out;
    for (const SpdyFrameIR& f : visitor_.frames)
      if (const T* t = std::get_if<T>(&f)) out.push_back(*t);
    return out;
  }

 private:
  void ReadLoop() {
    while (!paused_ && !eof_ && !read_pending_) {
      auto buf = std::make_shared<IOBuffer>(64 * 1024);
      read_pending_ = true;
      int rv = socket_->Read(buf, 64 * 1024,
                             [this, buf](int rv) { OnRead(buf, rv); });
      if (rv == ERR_IO_PENDING) return;
      read_pending_ = false;
      Consume(buf, rv);
    }
  }
  void OnRead(const std::shared_ptr<IOBuffer>& buf, int rv) {
    read_pending_ = false;
    Consume(buf, rv);
    ReadLoop();
  }
  void Consume(const std::shared_ptr<IOBuffer>& buf, int rv) {
    if (rv <= 0) {
      eof_ = true;
      return;
    }
    bytes_read_ += rv;
    deframer_.ProcessInput(absl::string_view(buf->data(), rv));
  }
  void Flush() {
    while (!pending_out_.empty() && !write_pending_) {
      auto buf = std::make_shared<IOBuffer>(pending_out_);
      int len = static_cast<int>(pending_out_.size());
      write_pending_ = true;
      int rv = socket_->Write(buf, len, [this](int rv) { OnWrite(rv); });
      if (rv == ERR_IO_PENDING) return;
      write_pending_ = false;
      if (rv < 0) return;
      pending_out_.erase(0, rv);
    }
  }
  void OnWrite(int rv) {
    write_pending_ = false;
    if (rv < 0) return;
    pending_out_.erase(0, rv);
    Flush();
  }

  std::unique_ptr<StreamSocket> socket_;
  RecordingSpdyVisitor visitor_;
  SpdyDeframer deframer_;
  SpdyFramer framer_;
  std::string pending_out_;
  bool paused_ = false;
  bool eof_ = false;
  bool read_pending_ = false;
  bool write_pending_ = false;
  size_t bytes_read_ = 0;
};

}  // namespace net

#endif  // NET_SPDY_SPDY_SESSION_TEST_UTIL_H_
