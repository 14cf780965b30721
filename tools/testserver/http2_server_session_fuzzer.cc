// Fuzz target: the test server's HTTP/2 side (Http2ServerSession) driven by
// a fuzzed client. The input is a program run over an in-memory socket pair
// after the client preface (or, when the first byte says so, a fuzzed
// preface): each step sends the server a request HEADERS (a real HPACK
// block from a client deflater, one of the server's routes or a fuzzed
// path, with or without END_STREAM), DATA for a stream, SETTINGS, a
// WINDOW_UPDATE, an RST_STREAM, any frame the fuzzer builds, or raw bytes.
// After every step the event loop runs, and these must hold:
//   - no crash, no sanitizer report, no callback after destruction;
//   - the response memory the session holds stays within kMaxHeldBytes
//     whatever the client asks for (bodies are generated within the
//     client's windows; request bodies are consumed as they arrive);
//   - nghttp2's queue of frames to send stays bounded.

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "net/base/event_loop.h"
#include "net/http2/http2_test_server.h"
#include "net/spdy/spdy_session_test_util.h"
#include "tools/testserver/http2_server_session.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

// Response bodies kept in streams plus the write buffer: a few frames per
// stream at most, 100 streams.
constexpr size_t kMaxHeldBytes = 8u << 20;
constexpr size_t kMaxOutboundQueue = 4096;

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(Byte() << 8 | Byte()); }
  uint32_t U32() { return uint32_t{U16()} << 16 | U16(); }
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
    fprintf(stderr, "http2_server_session_fuzzer: %s\n", what);
    abort();
  }
}

const char* const kPaths[] = {
    "/",           "/size/100",     "/size/100000", "/size/1000000000",
    "/h2/upload",  "/h2/goaway",    "/h2/rst/1",    "/obc/login",
    "/obc/whoami", "/echo-headers", "/snap-start",  "/nonexistent",
};

// A TestServer for its config and cookies; it listens nowhere (so it holds
// no socket and no TLS context: cheap per input, and nothing outlives the
// input's event loop).
std::unique_ptr<TestServer> MakeServer() {
  TestServerConfig config;
  config.quiet = true;
  Http2ServerConfig h2;
  h2.misdirect_hosts = {"misdirected.example.test"};
  h2.origin_frame = {"https://other.example.test"};
  config.http2 = h2;
  auto server = std::make_unique<TestServer>(config);
  Check(server->Start().ok(), "the TestServer did not start");
  return server;
}

void Run(const uint8_t* data, size_t size) {
  EventLoop loop;
  std::unique_ptr<TestServer> server = MakeServer();
  Input in(data, size);
  auto [client_end, server_end] = CreateFakeSocketPair();
  Http2ServerConnectionInfo info;
  info.conn_id = 1;
  info.ssl_info.alpn = "h2";
  info.server_name = "www.example.test";
  bool done = false;
  auto session = std::make_unique<Http2ServerSession>(
      server.get(), server_end.get(), std::move(info),
      [&done] { done = true; });
  session->Start();
  RawHttp2Peer client(std::move(client_end));
  if (in.Byte() % 16 == 0) {
    client.Send(in.Bytes(in.Byte() % 32));  // a fuzzed preface
  } else {
    client.Send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    client.Send(Http2Frame(NGHTTP2_SETTINGS, 0, 0, ""));
  }
  loop.RunUntilIdle();

  bool client_gone = false;
  while (!in.empty() && !done && !client_gone) {
    const uint32_t sid = 1 + 2 * (in.Byte() % 64);
    switch (in.Byte() % 9) {
      case 0: {  // a request
        const uint8_t pick = in.Byte();
        std::string path = pick < 200 ? kPaths[pick % std::size(kPaths)]
                                      : "/" + in.Bytes(in.Byte() % 64);
        const bool misdirect = pick % 7 == 0;
        TestHeaders headers = {
            {":method", pick % 3 == 0 ? "POST" : "GET"},
            {":scheme", "https"},
            {":authority",
             misdirect ? "misdirected.example.test" : "www.example.test"},
            {":path", path}};
        if (pick % 5 == 0) headers.push_back({"x-fuzz", in.Bytes(in.U16())});
        const uint8_t flags = NGHTTP2_FLAG_END_HEADERS |
                              (in.Byte() % 2 ? NGHTTP2_FLAG_END_STREAM : 0);
        client.Send(Http2Frame(NGHTTP2_HEADERS, flags, sid,
                               client.HeaderBlock(headers)));
        break;
      }
      case 1:  // request body
        client.Send(Http2Frame(NGHTTP2_DATA, in.Byte() % 2, sid,
                               in.Bytes(in.U16() % 20000)));
        break;
      case 2: {  // SETTINGS
        std::string payload;
        for (int n = in.Byte() % 4; n > 0; --n) {
          const uint16_t id = in.Byte() % 8;
          payload.push_back(static_cast<char>(id >> 8));
          payload.push_back(static_cast<char>(id));
          payload += Be32(in.U32());
        }
        client.Send(Http2Frame(NGHTTP2_SETTINGS, 0, 0, payload));
        break;
      }
      case 3:  // WINDOW_UPDATE, the connection's or a stream's
        client.Send(Http2Frame(NGHTTP2_WINDOW_UPDATE, 0,
                               in.Byte() % 2 ? sid : 0,
                               Be32(in.U32() & 0x7fffffff)));
        break;
      case 4:  // RST_STREAM
        client.Send(Http2Frame(NGHTTP2_RST_STREAM, 0, sid, Be32(in.Byte())));
        break;
      case 5: {  // any frame
        const uint8_t type = in.Byte();
        const uint8_t flags = in.Byte();
        client.Send(Http2Frame(type, flags, in.Byte() % 2 ? sid : 0,
                               in.Bytes(in.Byte())));
        break;
      }
      case 6:  // raw bytes
        client.Send(in.Bytes(in.Byte()));
        break;
      case 7:  // a PING
        client.Send(Http2Frame(NGHTTP2_PING, in.Byte() % 2, 0, in.Bytes(8)));
        break;
      case 8:  // the client goes away
        client.Close();
        client_gone = true;
        break;
    }
    loop.RunUntilIdle();
    Check(session->max_held_bytes() <= kMaxHeldBytes,
          "the session held more than its bound");
    Check(session->outbound_queue_size() <= kMaxOutboundQueue,
          "nghttp2's outbound queue grew without bound");
    if (client.closed()) break;  // the server closed
  }
  session.reset();
  loop.RunUntilIdle();
}

}  // namespace
}  // namespace net

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  net::Run(data, size);
  return 0;
}
