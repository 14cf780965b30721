// Fuzz target: a client SpdySession driven by a fuzzed server. The input is
// a program: each step either sends the client a frame the fuzzer chose
// (SYN_REPLY, DATA, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS,
// WINDOW_UPDATE, a push SYN_STREAM, raw bytes), built by a server-side
// SpdyFramer so most of them parse, or acts as the client's user (open a
// stream with or without a body, read, destroy a stream). After every step
// the event loop runs, and these must hold:
//   - no crash, no sanitizer report, no callback after destruction;
//   - no stream buffers more than its receive window;
//   - the control-frame queue stays within its bound;
//   - a failed stream's error is a net error (< 0), never ERR_IO_PENDING.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "net/base/event_loop.h"
#include "net/spdy/spdy_session.h"
#include "net/spdy/spdy_session_test_util.h"

namespace net {
namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | Byte();
    return v;
  }
  std::string Bytes(size_t n) {
    n = std::min(n, size_ - std::min(pos_, size_));
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct Client {
  std::unique_ptr<SpdyStream> stream;
  bool reading = false;
  std::shared_ptr<IOBuffer> buf = std::make_shared<IOBuffer>(4096);
};

#define FUZZ_CHECK(condition)                                                \
  do {                                                                       \
    if (!(condition)) {                                                      \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #condition); \
      abort();                                                               \
    }                                                                        \
  } while (0)

}  // namespace
}  // namespace net

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace net;
  EventLoop loop;
  Input in(data, size);
  auto [client_socket, server_socket] = CreateFakeSocketPair(64 * 1024);
  SpdySessionParams params;
  params.origin = Origin("https", "a.test", 443);
  params.max_queued_control_bytes = 32 * 1024;
  params.idle_timeout = absl::ZeroDuration();
  auto session =
      std::make_unique<SpdySession>(std::move(client_socket), params);
  session->Start();
  TestSpdyPeer peer(std::move(server_socket));
  SpdyFramer framer;
  std::vector<Client> clients(4);
  int callbacks = 0;

  auto stream_id = [&]() -> SpdyStreamId {
    uint8_t b = in.Byte();
    if (b < 200) return 1 + 2 * (b % 8);  // our likely ids
    if (b < 240) return 2 + 2 * (b % 4);  // server ids
    return in.U32() & kSpdyStreamIdMask;
  };
  auto send = [&](const SpdyFrameIR& frame) {
    absl::StatusOr<std::string> bytes = framer.SerializeFrame(frame);
    if (bytes.ok()) peer.SendRaw(*bytes);
  };

  for (int step = 0; step < 200 && !in.empty(); ++step) {
    uint8_t op = in.Byte() % 13;
    switch (op) {
      case 0: {
        SpdySynReplyIR f;
        f.stream_id = stream_id();
        f.fin = in.Byte() & 1;
        if (in.Byte() & 1)
          f.headers = {{":status", "200"}, {":version", "HTTP/1.1"}};
        send(f);
        break;
      }
      case 1: {
        SpdyStreamId id = stream_id();
        size_t n = (in.Byte() << 8 | in.Byte()) % 20000;
        absl::StatusOr<std::string> bytes =
            framer.SerializeData(id, std::string(n, 'd'), in.Byte() & 1);
        if (bytes.ok()) peer.SendRaw(*bytes);
        break;
      }
      case 2: {
        SpdyRstStreamIR f;
        f.stream_id = stream_id();
        f.status = static_cast<SpdyRstStreamStatus>(1 + in.Byte() % 12);
        send(f);
        break;
      }
      case 3: {
        SpdySettingsIR f;
        f.clear_settings = in.Byte() & 1;
        int n = in.Byte() % 4;
        for (int i = 0; i < n; ++i) {
          SpdySettingsEntry e;
          e.flags = in.Byte() % 4;
          e.id = 1 + in.Byte() % 9;
          uint8_t kind = in.Byte() % 4;
          e.value = kind == 0   ? in.Byte()
                    : kind == 1 ? in.U32()
                                : (in.Byte() << 12);
          f.entries.push_back(e);
        }
        send(f);
        break;
      }
      case 4: {
        SpdyPingIR f;
        f.id = in.Byte() & 1 ? 1 + 2 * (in.Byte() % 4) : in.U32();
        send(f);
        break;
      }
      case 5: {
        SpdyGoAwayIR f;
        f.last_good_stream_id = stream_id();
        f.status = static_cast<SpdyGoAwayStatus>(in.Byte() % 3);
        send(f);
        break;
      }
      case 6: {
        SpdyHeadersIR f;
        f.stream_id = stream_id();
        f.fin = in.Byte() & 1;
        f.headers = {{"x-extra", "v"}};
        send(f);
        break;
      }
      case 7: {
        SpdyWindowUpdateIR f;
        f.stream_id = stream_id();
        f.delta = in.Byte() & 1 ? (in.Byte() + 1) << 10 : in.U32();
        send(f);
        break;
      }
      case 8: {
        SpdySynStreamIR f;
        f.stream_id = stream_id();
        f.associated_stream_id = 1;
        f.unidirectional = true;
        f.headers = {
            {":path", "/p"}, {":host", "a.test"}, {":scheme", "https"}};
        send(f);
        break;
      }
      case 9:
        peer.SendRaw(in.Bytes(in.Byte() % 24));
        break;
      case 10: {  // open a stream
        Client& c = clients[in.Byte() % clients.size()];
        SpdyStreamParams sp;
        sp.priority = in.Byte() % 8;
        sp.origin = params.origin;
        c.stream.reset();
        c.reading = false;
        if (session->CreateStream(sp, &c.stream) != OK) break;
        std::string body(in.Byte() & 1 ? (in.Byte() << 10) : 0, 'b');
        int rv = c.stream->SendRequest(
            MakeSpdyRequestHeaders("GET", *Url::Parse("https://a.test/")),
            std::move(body), [&](int rv) {
              ++callbacks;
              FUZZ_CHECK(rv != ERR_IO_PENDING);
            });
        FUZZ_CHECK(rv != ERR_IO_PENDING ? rv <= 0 : true);
        break;
      }
      case 11: {  // read
        Client& c = clients[in.Byte() % clients.size()];
        if (!c.stream || c.reading) break;
        int rv = c.stream->ReadBody(c.buf, 4096, [&c, &callbacks](int rv) {
          ++callbacks;
          c.reading = false;
          FUZZ_CHECK(rv != ERR_IO_PENDING);
        });
        c.reading = rv == ERR_IO_PENDING;
        break;
      }
      case 12: {  // destroy
        Client& c = clients[in.Byte() % clients.size()];
        c.stream.reset();
        c.reading = false;
        break;
      }
    }
    for (int i = 0; i < 4; ++i) loop.RunUntilIdle();
    for (const Client& c : clients) {
      if (!c.stream) continue;
      FUZZ_CHECK(c.stream->buffered_body_bytes() <= kSpdyInitialWindowSize);
      if (c.stream->closed()) FUZZ_CHECK(c.stream->error() <= 0);
    }
    FUZZ_CHECK(session->queued_control_bytes() <= 32 * 1024 + 64);
  }
  // Everything can be torn down in any state.
  session.reset();
  for (int i = 0; i < 4; ++i) loop.RunUntilIdle();
  clients.clear();
  loop.RunUntilIdle();
  return 0;
}
