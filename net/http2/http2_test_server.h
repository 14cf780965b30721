// Test peers for Http2Session (testonly), on one end of net/spdy's
// FakeSocketPair:
//
// Http2TestServer: a real HTTP/2 server side — nghttp2's server session,
// driven like our client (mem_recv / mem_send over the fake socket) — that
// answers each request with what the test's handler returns (a body, a
// generated body of any size sent under flow control, a reset, a header
// block of a chosen size, or nothing), sends ORIGIN frames and GOAWAY when
// the test says, and records what the client sent:
// the request headers, its SETTINGS, every frame's type, HEADERS priorities,
// WINDOW_UPDATEs.
//
// RawHttp2Peer: a server that writes the bytes the test builds (frames by
// hand, header blocks through nghttp2's HPACK deflater) and records what it
// read: for peers that break the protocol (no SETTINGS, DATA past the
// window, endless CONTINUATION, unanswered PINGs).

#ifndef NET_HTTP2_HTTP2_TEST_SERVER_H_
#define NET_HTTP2_HTTP2_TEST_SERVER_H_

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/io_buffer.h"
#include "net/base/net_errors.h"
#include "net/base/weak_ptr.h"
#include "net/socket/stream_socket.h"

namespace net {

using TestHeaders = std::vector<std::pair<std::string, std::string>>;

// Http2Frame builds one frame: the 9-byte header, then |payload|.
inline std::string Http2Frame(uint8_t type, uint8_t flags, uint32_t stream_id,
                              const std::string& payload) {
  std::string f;
  const uint32_t len = static_cast<uint32_t>(payload.size());
  f.push_back(static_cast<char>((len >> 16) & 0xff));
  f.push_back(static_cast<char>((len >> 8) & 0xff));
  f.push_back(static_cast<char>(len & 0xff));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  f.push_back(static_cast<char>((stream_id >> 24) & 0x7f));
  f.push_back(static_cast<char>((stream_id >> 16) & 0xff));
  f.push_back(static_cast<char>((stream_id >> 8) & 0xff));
  f.push_back(static_cast<char>(stream_id & 0xff));
  return f + payload;
}

inline std::string Be32(uint32_t v) {
  std::string s(4, '\0');
  s[0] = static_cast<char>(v >> 24);
  s[1] = static_cast<char>(v >> 16);
  s[2] = static_cast<char>(v >> 8);
  s[3] = static_cast<char>(v);
  return s;
}

class Http2TestServer {
 public:
  struct Response {
    int status = 200;
    TestHeaders headers;
    std::string body;
    // If >= 0, a generated body of this many bytes instead of |body|.
    int64_t body_size = -1;
    // Never answer.
    bool never_respond = false;
    // Reset the stream with |rst_code| instead of answering.
    bool rst = false;
    uint32_t rst_code = NGHTTP2_NO_ERROR;
    // Header fields of 4 KB values added until the block reaches this size.
    size_t header_bytes = 0;
  };
  using Handler =
      std::function<Response(const TestHeaders& request, const std::string&)>;

  struct Frame {
    uint8_t type;
    uint8_t flags;
    int32_t stream_id;
    // HEADERS with a priority: dependency, weight, exclusive.
    int32_t dep = 0;
    int32_t weight = 0;
    bool exclusive = false;
    // WINDOW_UPDATE increment; RST_STREAM / GOAWAY error code.
    int32_t increment = 0;
    uint32_t error_code = 0;
  };

  Http2TestServer(std::unique_ptr<StreamSocket> socket, Handler handler,
                  std::vector<nghttp2_settings_entry> settings =
                      {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100}})
      : socket_(std::move(socket)),
        handler_(std::move(handler)),
        read_buf_(std::make_shared<IOBuffer>(64 * 1024)) {
    nghttp2_session_callbacks* cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_header_callback(cbs, &OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, &OnFrameRecv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, &OnData);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs,
                                                            &OnBeginHeaders);
    nghttp2_option* opt;
    nghttp2_option_new(&opt);
    // Big header blocks on purpose (the client must bound them).
    nghttp2_option_set_max_send_header_block_length(opt, 16 * 1024 * 1024);
    nghttp2_session_server_new2(&ng_, cbs, this, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    nghttp2_submit_settings(ng_, NGHTTP2_FLAG_NONE, settings.data(),
                            settings.size());
    Flush();
    Read();
  }
  ~Http2TestServer() { nghttp2_session_del(ng_); }

  // What the client sent.
  const std::vector<TestHeaders>& requests() const { return requests_; }
  const std::vector<Frame>& frames() const { return frames_; }
  const std::map<int32_t, uint32_t>& client_settings() const {
    return client_settings_;
  }
  int CountFrames(uint8_t type) const {
    int n = 0;
    for (const Frame& f : frames_) n += f.type == type;
    return n;
  }
  bool closed() const { return closed_; }
  nghttp2_session* ng() { return ng_; }

  void SendGoAway(int32_t last_stream_id, uint32_t code) {
    nghttp2_submit_goaway(ng_, NGHTTP2_FLAG_NONE, last_stream_id, code, nullptr,
                          0);
    Flush();
  }
  // Sends an ORIGIN frame (RFC 8336) listing |origins| (stream 0).
  void SendOrigin(const std::vector<std::string>& origins) {
    std::vector<nghttp2_origin_entry> ov;
    for (const std::string& o : origins) {
      ov.push_back(
          {reinterpret_cast<uint8_t*>(const_cast<char*>(o.data())), o.size()});
    }
    EXPECT_EQ(
        nghttp2_submit_origin(ng_, NGHTTP2_FLAG_NONE, ov.data(), ov.size()), 0);
    Flush();
  }
  // Responds now to stream |id| (one the handler left unanswered).
  void Respond(int32_t id, Response response) {
    Submit(id, std::move(response));
    Flush();
  }
  void Close() {
    closed_ = true;
    socket_->Disconnect();
  }

 private:
  struct Body {
    std::string data;
    size_t offset = 0;
    int64_t generated = -1;  // bytes left of a generated body
  };

  static Http2TestServer* Self(void* p) {
    return static_cast<Http2TestServer*>(p);
  }
  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame,
                            void* user) {
    Self(user)->request_headers_[frame->hd.stream_id].clear();
    return 0;
  }
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame,
                      const uint8_t* name, size_t namelen, const uint8_t* value,
                      size_t valuelen, uint8_t, void* user) {
    Self(user)->request_headers_[frame->hd.stream_id].emplace_back(
        std::string(reinterpret_cast<const char*>(name), namelen),
        std::string(reinterpret_cast<const char*>(value), valuelen));
    return 0;
  }
  static int OnData(nghttp2_session*, uint8_t, int32_t id, const uint8_t* data,
                    size_t len, void* user) {
    Self(user)->request_bodies_[id].append(reinterpret_cast<const char*>(data),
                                           len);
    return 0;
  }
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame,
                         void* user) {
    Http2TestServer* self = Self(user);
    Frame f{frame->hd.type, frame->hd.flags, frame->hd.stream_id};
    if (frame->hd.type == NGHTTP2_HEADERS &&
        (frame->hd.flags & NGHTTP2_FLAG_PRIORITY)) {
      f.dep = frame->headers.pri_spec.stream_id;
      f.weight = frame->headers.pri_spec.weight;
      f.exclusive = frame->headers.pri_spec.exclusive;
    }
    if (frame->hd.type == NGHTTP2_WINDOW_UPDATE)
      f.increment = frame->window_update.window_size_increment;
    if (frame->hd.type == NGHTTP2_RST_STREAM)
      f.error_code = frame->rst_stream.error_code;
    if (frame->hd.type == NGHTTP2_GOAWAY)
      f.error_code = frame->goaway.error_code;
    if (frame->hd.type == NGHTTP2_SETTINGS &&
        !(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
      for (size_t i = 0; i < frame->settings.niv; ++i) {
        self->client_settings_[frame->settings.iv[i].settings_id] =
            frame->settings.iv[i].value;
      }
    }
    self->frames_.push_back(f);
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
      const int32_t id = frame->hd.stream_id;
      self->requests_.push_back(self->request_headers_[id]);
      Response r =
          self->handler_(self->request_headers_[id], self->request_bodies_[id]);
      if (!r.never_respond) self->Submit(id, std::move(r));
    }
    return 0;
  }
  static ssize_t ReadBody(nghttp2_session*, int32_t, uint8_t* buf,
                          size_t length, uint32_t* flags,
                          nghttp2_data_source* source, void*) {
    Body* body = static_cast<Body*>(source->ptr);
    if (body->generated >= 0) {
      const size_t n = std::min(length, static_cast<size_t>(body->generated));
      for (size_t i = 0; i < n; ++i)
        buf[i] = static_cast<uint8_t>('a' + (body->offset + i) % 26);
      body->offset += n;
      body->generated -= static_cast<int64_t>(n);
      if (body->generated == 0) *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    }
    const size_t n = std::min(length, body->data.size() - body->offset);
    memcpy(buf, body->data.data() + body->offset, n);
    body->offset += n;
    if (body->offset == body->data.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  void Submit(int32_t id, Response r) {
    if (r.rst) {
      nghttp2_submit_rst_stream(ng_, NGHTTP2_FLAG_NONE, id, r.rst_code);
      return;
    }
    TestHeaders headers = {{":status", std::to_string(r.status)}};
    for (auto& h : r.headers) headers.push_back(h);
    size_t size = 0;
    for (int i = 0; size < r.header_bytes; ++i) {
      headers.emplace_back("x-filler-" + std::to_string(i),
                           std::string(4096, 'f'));
      size += headers.back().first.size() + 4096 + 32;
    }
    std::vector<nghttp2_nv> nva;
    for (auto& [name, value] : headers) {
      nva.push_back({reinterpret_cast<uint8_t*>(name.data()),
                     reinterpret_cast<uint8_t*>(value.data()), name.size(),
                     value.size(), NGHTTP2_NV_FLAG_NONE});
    }
    auto body = std::make_unique<Body>();
    body->data = std::move(r.body);
    body->generated = r.body_size;
    nghttp2_data_provider provider;
    provider.source.ptr = body.get();
    provider.read_callback = &ReadBody;
    const bool has_body = body->generated > 0 || !body->data.empty();
    nghttp2_submit_response(ng_, id, nva.data(), nva.size(),
                            has_body ? &provider : nullptr);
    bodies_.push_back(std::move(body));
  }

  void Flush() {
    if (closed_ || write_pending_) return;
    while (true) {
      std::string out;
      const uint8_t* data;
      ssize_t n;
      while (out.size() < 256 * 1024 &&
             (n = nghttp2_session_mem_send(ng_, &data)) > 0) {
        out.append(reinterpret_cast<const char*>(data), n);
      }
      if (out.empty()) return;
      auto buf = std::make_shared<DrainableIOBuffer>(out);
      while (buf->BytesRemaining() > 0) {
        int rv =
            socket_->Write(buf, buf->BytesRemaining(), [this, buf](int rv) {
              write_pending_ = false;
              if (rv < 0) return;
              buf->DidConsume(rv);
              if (buf->BytesRemaining() > 0) {
                pending_out_ = std::string(buf->data(), buf->BytesRemaining());
              }
              FlushPending();
            });
        if (rv == ERR_IO_PENDING) {
          write_pending_ = true;
          return;
        }
        if (rv < 0) return;
        buf->DidConsume(rv);
      }
    }
  }
  void FlushPending() {
    if (!pending_out_.empty()) {
      auto buf = std::make_shared<DrainableIOBuffer>(pending_out_);
      pending_out_.clear();
      int rv = socket_->Write(buf, buf->BytesRemaining(), [this, buf](int rv) {
        write_pending_ = false;
        if (rv >= 0 && static_cast<size_t>(rv) < buf->BytesRemaining()) {
          buf->DidConsume(rv);
          pending_out_ = std::string(buf->data(), buf->BytesRemaining());
        }
        FlushPending();
      });
      if (rv == ERR_IO_PENDING) {
        write_pending_ = true;
        return;
      }
    }
    Flush();
  }

  void Read() {
    while (!closed_) {
      int rv = socket_->Read(read_buf_, 64 * 1024,
                             [weak = weak_factory_.GetWeakPtr()](int rv) {
                               if (weak && weak->OnRead(rv)) weak->Read();
                             });
      if (rv == ERR_IO_PENDING) return;
      if (!OnRead(rv)) return;
    }
  }
  bool OnRead(int rv) {
    if (rv <= 0) {
      closed_ = true;
      return false;
    }
    ssize_t n = nghttp2_session_mem_recv(
        ng_, reinterpret_cast<uint8_t*>(read_buf_->data()), rv);
    EXPECT_EQ(n, rv) << nghttp2_strerror(static_cast<int>(n));
    Flush();
    return n >= 0;
  }

  std::unique_ptr<StreamSocket> socket_;
  Handler handler_;
  nghttp2_session* ng_ = nullptr;
  std::shared_ptr<IOBuffer> read_buf_;
  bool closed_ = false;
  bool write_pending_ = false;
  std::string pending_out_;
  std::map<int32_t, TestHeaders> request_headers_;
  std::map<int32_t, std::string> request_bodies_;
  std::vector<TestHeaders> requests_;
  std::vector<Frame> frames_;
  std::map<int32_t, uint32_t> client_settings_;
  std::vector<std::unique_ptr<Body>> bodies_;
  WeakPtrFactory<Http2TestServer> weak_factory_{this};
};

// RawHttp2Peer: writes what the test gives it, reads and keeps what the
// client sends.
class RawHttp2Peer {
 public:
  explicit RawHttp2Peer(std::unique_ptr<StreamSocket> socket)
      : socket_(std::move(socket)),
        read_buf_(std::make_shared<IOBuffer>(64 * 1024)) {
    nghttp2_hd_deflate_new(&deflater_, 4096);
    Read();
  }
  ~RawHttp2Peer() { nghttp2_hd_deflate_del(deflater_); }

  // Writes |bytes| (the fake socket takes them at once).
  void Send(const std::string& bytes) {
    auto buf = std::make_shared<DrainableIOBuffer>(bytes);
    int rv = socket_->Write(buf, buf->BytesRemaining(), [](int) {});
    EXPECT_EQ(rv, static_cast<int>(bytes.size()));
  }
  // An HPACK block of |headers| (one deflater, as a server's).
  std::string HeaderBlock(const TestHeaders& headers) {
    std::vector<nghttp2_nv> nva;
    for (const auto& [name, value] : headers) {
      nva.push_back(
          {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
           reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())),
           name.size(), value.size(), NGHTTP2_NV_FLAG_NONE});
    }
    std::string out(nghttp2_hd_deflate_bound(deflater_, nva.data(), nva.size()),
                    '\0');
    ssize_t n =
        nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<uint8_t*>(out.data()),
                              out.size(), nva.data(), nva.size());
    out.resize(n > 0 ? n : 0);
    return out;
  }
  const std::string& received() const { return received_; }
  bool closed() const { return closed_; }
  void Close() { socket_->Disconnect(); }

 private:
  void Read() {
    while (!closed_) {
      int rv = socket_->Read(read_buf_, 64 * 1024,
                             [weak = weak_factory_.GetWeakPtr()](int rv) {
                               if (weak && weak->OnRead(rv)) weak->Read();
                             });
      if (rv == ERR_IO_PENDING) return;
      if (!OnRead(rv)) return;
    }
  }
  bool OnRead(int rv) {
    if (rv <= 0) {
      closed_ = true;
      return false;
    }
    received_.append(read_buf_->data(), rv);
    return true;
  }

  std::unique_ptr<StreamSocket> socket_;
  std::shared_ptr<IOBuffer> read_buf_;
  nghttp2_hd_deflater* deflater_ = nullptr;
  std::string received_;
  bool closed_ = false;
  WeakPtrFactory<RawHttp2Peer> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP2_HTTP2_TEST_SERVER_H_
