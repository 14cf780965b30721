// Fuzz target: a client Http2Session driven by a fuzzed server. After the
// server's SETTINGS (and the ACK of ours), the input is a program: each step
// either sends the client a frame the fuzzer chose (any type, flags and
// stream id, a fuzzed payload; HEADERS with a real HPACK block from the
// server's deflater; DATA of up to 16 KB) or raw bytes, or acts as the
// client's user (open a stream with or without a body, read some of a
// stream's body, destroy a stream, ping). After every step the event loop
// runs, and these must hold:
//   - no crash, no sanitizer report, no callback after destruction;
//   - no stream buffers more than its 6 MB window plus one frame, the
//     session no more than its 15 MB window plus one frame;
//   - a failed stream's error is a net error (< 0), never ERR_IO_PENDING.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "net/base/event_loop.h"
#include "net/http2/http2_session.h"
#include "net/http2/http2_test_server.h"
#include "net/spdy/spdy_session_test_util.h"

namespace net {
namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(Byte() << 8 | Byte()); }
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

void Check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "http2_session_fuzzer: %s\n", what);
    abort();
  }
}

// A stream and the calls it has pending (at most one of each kind).
struct UserStream {
  std::unique_ptr<Http2SessionStream> stream;
  bool headers_pending = false;
  bool body_pending = false;
  std::shared_ptr<IOBuffer> buf;
};

void CheckResult(int rv) {
  Check(rv != ERR_IO_PENDING, "a callback ran with ERR_IO_PENDING");
}

void Run(const uint8_t* data, size_t size) {
  EventLoop loop;
  Input in(data, size);
  auto [client, server] = CreateFakeSocketPair();
  Http2SessionParams params;
  params.origin = Origin("https", "example.test", 443);
  // Timers never fire within one input: nothing here waits on the clock.
  auto session = std::make_unique<Http2Session>(std::move(client), params);
  RawHttp2Peer peer(std::move(server));
  session->Start();
  peer.Send(Http2Frame(NGHTTP2_SETTINGS, 0, 0, ""));
  peer.Send(Http2Frame(NGHTTP2_SETTINGS, NGHTTP2_FLAG_ACK, 0, ""));
  loop.RunUntilIdle();

  std::vector<std::unique_ptr<UserStream>> streams;
  const size_t kStreamBound = 6u * 1024 * 1024 + 16384;
  const size_t kSessionBound = 15u * 1024 * 1024 + 16384;
  for (int steps = 0; !in.empty() && steps < 2000; ++steps) {
    const uint8_t op = in.Byte() % 9;
    switch (op) {
      case 0: {  // any frame
        const uint8_t type = in.Byte() % 11;
        const uint8_t flags = in.Byte();
        const uint32_t id = in.Byte() % 12;
        peer.Send(Http2Frame(type, flags, id, in.Bytes(in.Byte())));
        break;
      }
      case 1: {  // HEADERS with a real block
        const uint32_t id = 1 + 2 * (in.Byte() % 6);
        const uint8_t flags =
            in.Byte() & (NGHTTP2_FLAG_END_STREAM | NGHTTP2_FLAG_END_HEADERS);
        TestHeaders headers = {{":status", in.Byte() % 2 ? "200" : "103"}};
        if (in.Byte() % 2)
          headers.emplace_back(in.Bytes(8), in.Bytes(in.Byte()));
        peer.Send(
            Http2Frame(NGHTTP2_HEADERS, flags, id, peer.HeaderBlock(headers)));
        break;
      }
      case 2: {  // DATA of up to 16 KB
        const uint32_t id = 1 + 2 * (in.Byte() % 6);
        const uint8_t flags = in.Byte() & NGHTTP2_FLAG_END_STREAM;
        const size_t len = in.U16() % 16385;
        peer.Send(Http2Frame(NGHTTP2_DATA, flags, id, std::string(len, 'd')));
        break;
      }
      case 3:  // raw bytes
        peer.Send(in.Bytes(in.Byte()));
        break;
      case 4: {  // open a stream
        if (streams.size() >= 8) break;
        auto s = std::make_unique<UserStream>();
        if (session->CreateStream(&s->stream) != OK) break;
        Http2Headers headers = {{":method", "GET"},
                                {":authority", "example.test"},
                                {":scheme", "https"},
                                {":path", "/"}};
        std::string body = in.Byte() % 4 == 0 ? in.Bytes(in.Byte()) : "";
        s->stream->SendRequest(headers, body, &CheckResult);
        streams.push_back(std::move(s));
        break;
      }
      case 5: {  // read headers and some body
        if (streams.empty()) break;
        UserStream* s = streams[in.Byte() % streams.size()].get();
        const size_t len = 1 + in.U16() % 65536;
        if (s->headers_pending || s->body_pending) break;
        int rv = s->stream->ReadResponseHeaders([s](int rv) {
          CheckResult(rv);
          s->headers_pending = false;
        });
        if (rv == ERR_IO_PENDING) {
          s->headers_pending = true;
          break;
        }
        if (rv != OK) break;
        s->buf = std::make_shared<IOBuffer>(len);
        rv = s->stream->ReadBody(s->buf, static_cast<int>(len), [s](int rv) {
          CheckResult(rv);
          s->body_pending = false;
        });
        s->body_pending = rv == ERR_IO_PENDING;
        break;
      }
      case 6:  // destroy a stream
        if (!streams.empty())
          streams.erase(streams.begin() + in.Byte() % streams.size());
        break;
      case 7:
        session->Ping([](int) {});
        break;
      case 8:
        loop.RunUntilIdle();
        break;
    }
    loop.RunUntilIdle();
    Check(session->buffered_bytes() <= kSessionBound, "session buffer bound");
    for (const auto& s : streams) {
      Check(s->stream->buffered_bytes() <= kStreamBound, "stream buffer bound");
      Check(s->stream->error() <= 0 && s->stream->error() != ERR_IO_PENDING,
            "stream error is not a net error");
    }
  }
  streams.clear();
  session.reset();
  loop.RunUntilIdle();
}

}  // namespace
}  // namespace net

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  net::Run(data, size);
  return 0;
}
