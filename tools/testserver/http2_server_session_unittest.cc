// The test server's HTTP/2 (Http2ServerSession, --http2).
//
// Over an in-memory socket pair (net/spdy's FakeSocketPair): against our own
// client (net/http2's Http2Session) for the routes, 20 concurrent streams,
// 421, GOAWAY after N, RST_STREAM, 431 and 413; and against hand-built frames
// for what a client that breaks the rules does: an ORIGIN frame checked on
// the wire, no preface, a bad preface, an endless header block, 1000 streams
// at once, a client that never reads (with and without a PING flood).
// Over real TLS on loopback (TestServer with --http2): ALPN preference and
// channel-bound cookies for the connection's origin, refused for a
// coalesced origin, and the connection's log line counting its streams.

#include "tools/testserver/http2_server_session.h"

#include <nghttp2/nghttp2.h>
#include <openssl/sha.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/obc_crypto.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/http2/http2_session.h"
#include "net/http2/http2_test_server.h"
#include "net/socket/tcp_client_socket.h"
#include "net/spdy/spdy_session_test_util.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_client_socket.h"
#include "tools/testserver/channel_bound_cookie.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

constexpr char kHost[] = "www.example.test";
constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

std::string Generated(size_t n) {
  static const std::string kPattern =
      "netstack test body 0123456789 abcdefghijklmnopqrstuvwxyz\n";
  std::string out;
  while (out.size() < n) out += kPattern;
  out.resize(n);
  return out;
}

std::string Sha256Hex(const std::string& data) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(data.data()), data.size(), digest);
  return HexEncode(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

// Runs the loop until |done()| or |timeout| (timers fire meanwhile).
template <typename Pred>
bool RunUntil(Pred done, absl::Duration timeout = absl::Seconds(10)) {
  const TimeTicks deadline = TimeTicks::Now() + timeout;
  while (!done() && TimeTicks::Now() < deadline) {
    EventLoop::Current()->PostDelayedTask(absl::Milliseconds(2),
                                          [] { EventLoop::Current()->Quit(); });
    EventLoop::Current()->Run();
  }
  return done();
}

void RunFor(absl::Duration d) {
  RunUntil([] { return false; }, d);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    n += line.find(needle) != std::string::npos;
  return n;
}

// One frame the server sent.
struct Frame {
  uint8_t type = 0;
  uint8_t flags = 0;
  int32_t stream_id = 0;
  std::string payload;
};

// Splits what the server wrote into frames (the server sends no magic).
std::vector<Frame> ParseFrames(const std::string& bytes) {
  std::vector<Frame> frames;
  size_t pos = 0;
  while (pos + 9 <= bytes.size()) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data() + pos);
    const size_t length = (p[0] << 16) | (p[1] << 8) | p[2];
    if (pos + 9 + length > bytes.size()) break;
    Frame f;
    f.type = p[3];
    f.flags = p[4];
    f.stream_id = ((p[5] & 0x7f) << 24) | (p[6] << 16) | (p[7] << 8) | p[8];
    f.payload = bytes.substr(pos + 9, length);
    frames.push_back(std::move(f));
    pos += 9 + length;
  }
  return frames;
}

uint32_t Be32At(const std::string& s, size_t at) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data() + at);
  return (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

std::string Settings(std::vector<std::pair<uint16_t, uint32_t>> entries) {
  std::string payload;
  for (auto [id, value] : entries) {
    payload.push_back(static_cast<char>(id >> 8));
    payload.push_back(static_cast<char>(id));
    payload += Be32(value);
  }
  return Http2Frame(NGHTTP2_SETTINGS, 0, 0, payload);
}

class Http2ServerSessionTest : public ::testing::Test {
 protected:
  // A TestServer without listeners (its config, log and cookies) and an
  // Http2ServerSession on one end of a socket pair whose other end is
  // client_end_.
  void StartServer(Http2ServerConfig h2 = Http2ServerConfig(),
                   size_t capacity = std::numeric_limits<size_t>::max(),
                   absl::Duration request_timeout = absl::Seconds(10),
                   absl::Duration idle_timeout = absl::Seconds(60)) {
    TestServerConfig config;
    config.http2 = h2;
    config.quiet = true;
    config.request_timeout = request_timeout;
    config.idle_timeout = idle_timeout;
    log_path_ = absl::StrCat(
        ::testing::TempDir(), "/h2_server_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name(),
        ".jsonl");
    std::remove(log_path_.c_str());
    config.log_file = log_path_;
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    auto [client, server] = CreateFakeSocketPair(capacity);
    client_end_ = std::move(client);
    server_end_ = std::move(server);
    Http2ServerConnectionInfo info;
    info.conn_id = 7;
    info.ssl_info.alpn = "h2";
    info.server_name = kHost;
    session_ = std::make_unique<Http2ServerSession>(
        server_.get(), server_end_.get(), std::move(info),
        [this] { session_done_ = true; });
    session_->Start();
  }
  // Our client on client_end_.
  void StartClient() {
    Http2SessionParams params;
    params.origin = Origin("https", kHost, 443);
    client_ = std::make_unique<Http2Session>(std::move(client_end_), params);
    client_->Start();
  }
  // Hand-built frames on client_end_ (it reads and keeps what arrives).
  void StartRaw() {
    raw_ = std::make_unique<RawHttp2Peer>(std::move(client_end_));
  }

  struct Result {
    int error = OK;
    int status = 0;
    Http2Headers headers;
    std::string body;
  };

  static Http2Headers Request(const std::string& method,
                              const std::string& path,
                              const std::string& authority = kHost) {
    return {{":method", method},
            {":authority", authority},
            {":scheme", "https"},
            {":path", path}};
  }

  // Sends |headers| and |body|, and reads the whole response.
  Result Fetch(Http2Headers headers, std::string body = "",
               Http2Session* session = nullptr) {
    session = session ? session : client_.get();
    Result r;
    std::unique_ptr<Http2SessionStream> stream;
    r.error = session->CreateStream(&stream);
    if (r.error != OK) return r;
    TestCompletionCallback sent;
    r.error = sent.GetResult(
        stream->SendRequest(headers, std::move(body), sent.callback()));
    if (r.error != OK) return r;
    TestCompletionCallback head;
    r.error = head.GetResult(stream->ReadResponseHeaders(head.callback()));
    if (r.error != OK) return r;
    r.status = stream->status();
    r.headers = stream->response_headers();
    auto buf = std::make_shared<IOBuffer>(64 * 1024);
    while (true) {
      TestCompletionCallback cb;
      int rv = cb.GetResult(stream->ReadBody(buf, 64 * 1024, cb.callback()));
      if (rv < 0) r.error = rv;
      if (rv <= 0) break;
      r.body.append(buf->data(), rv);
    }
    return r;
  }

  static std::string Header(const Result& r, const std::string& name) {
    for (const auto& [n, v] : r.headers)
      if (n == name) return v;
    return "<none>";
  }

  // The server's HEADERS blocks, decoded in order (one inflater, as a
  // client's): (stream id, header list).
  std::vector<std::pair<int32_t, Http2Headers>> DecodeHeaders(
      const std::vector<Frame>& frames) {
    std::vector<std::pair<int32_t, Http2Headers>> out;
    nghttp2_hd_inflater* inflater = nullptr;
    nghttp2_hd_inflate_new(&inflater);
    for (const Frame& f : frames) {
      if (f.type != NGHTTP2_HEADERS) continue;
      Http2Headers list;
      const auto* in = reinterpret_cast<const uint8_t*>(f.payload.data());
      size_t left = f.payload.size();
      while (true) {
        nghttp2_nv nv;
        int inflate_flags = 0;
        ssize_t n =
            nghttp2_hd_inflate_hd2(inflater, &nv, &inflate_flags, in, left, 1);
        if (n < 0) break;
        in += n;
        left -= n;
        if (inflate_flags & NGHTTP2_HD_INFLATE_EMIT) {
          list.emplace_back(
              std::string(reinterpret_cast<char*>(nv.name), nv.namelen),
              std::string(reinterpret_cast<char*>(nv.value), nv.valuelen));
        }
        if (inflate_flags & NGHTTP2_HD_INFLATE_FINAL) {
          nghttp2_hd_inflate_end_headers(inflater);
          break;
        }
        if (left == 0 && !(inflate_flags & NGHTTP2_HD_INFLATE_EMIT)) break;
      }
      out.emplace_back(f.stream_id, std::move(list));
    }
    nghttp2_hd_inflate_del(inflater);
    return out;
  }

  std::string Log() { return ReadFile(log_path_); }

  EventLoop loop_;
  std::string log_path_;
  std::unique_ptr<TestServer> server_;
  std::unique_ptr<FakeStreamSocket> client_end_;
  std::unique_ptr<FakeStreamSocket> server_end_;
  std::unique_ptr<Http2ServerSession> session_;
  bool session_done_ = false;
  std::unique_ptr<Http2Session> client_;
  std::unique_ptr<RawHttp2Peer> raw_;
};

TEST_F(Http2ServerSessionTest, RoutesOverOurClient) {
  StartServer();
  StartClient();
  Result size = Fetch(Request("GET", "/size/100000"));
  ASSERT_EQ(size.error, OK);
  EXPECT_EQ(size.status, 200);
  EXPECT_EQ(Header(size, "content-length"), "100000");
  EXPECT_EQ(size.body, Generated(100000));

  Result head = Fetch(Request("HEAD", "/size/5"));
  ASSERT_EQ(head.error, OK);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(Header(head, "content-length"), "5");
  EXPECT_EQ(head.body, "");

  // /chunked/N: DATA frames and no content-length (HTTP/2 has no chunking).
  Result chunked = Fetch(Request("GET", "/chunked/70001"));
  ASSERT_EQ(chunked.error, OK);
  EXPECT_EQ(Header(chunked, "content-length"), "<none>");
  EXPECT_EQ(chunked.body, Generated(70001));

  Result tls = Fetch(Request("GET", "/tls"));
  ASSERT_EQ(tls.error, OK);
  EXPECT_TRUE(absl::StrContains(tls.body, "\"h2\":true,\"stream\":7"))
      << tls.body;
  EXPECT_TRUE(absl::StrContains(tls.body, "\"alpn\":\"h2\"")) << tls.body;

  // A 1 MB upload, hashed as it arrives.
  const std::string upload = Generated(1 << 20) + "tail";
  Result up = Fetch(Request("POST", "/h2/upload"), upload);
  ASSERT_EQ(up.error, OK);
  EXPECT_EQ(up.status, 200);
  EXPECT_EQ(up.body,
            absl::StrCat("{\"bytes\":", upload.size(), ",\"sha256\":\"",
                         Sha256Hex(upload), "\"}\n"));

  Result post = Fetch(Request("POST", "/size/1"), "x");
  EXPECT_EQ(post.status, 405);
  Result login = Fetch(Request("GET", "/obc/login"));
  EXPECT_EQ(login.status, 403);
  EXPECT_TRUE(absl::StrContains(login.body, "no origin-bound certificate"))
      << login.body;
  // Anything else: --response-size generated bytes.
  Result other = Fetch(Request("GET", "/anything"));
  EXPECT_EQ(other.body, Generated(1024));

  EXPECT_EQ(session_->streams(), 8u);
  const std::string log = Log();
  EXPECT_EQ(CountLines(log, "\"proto\":\"h2\""), 8) << log;
  EXPECT_TRUE(absl::StrContains(
      log,
      "\"stream\":1,\"method\":\"GET\",\"host\":\"www.example.test\","
      "\"path\":\"/size/100000\",\"status\":200,\"bytes\":100000"))
      << log;
  EXPECT_TRUE(absl::StrContains(log, "\"event\":\"h2_session\",\"conn\":7"));
}

TEST_F(Http2ServerSessionTest, TwentyConcurrentStreamsOnOneSession) {
  StartServer();
  StartClient();
  std::vector<std::unique_ptr<Http2SessionStream>> streams(20);
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(client_->CreateStream(&streams[i]), OK);
    ASSERT_EQ(
        ERR_IO_PENDING,
        streams[i]->SendRequest(
            Request("GET", absl::StrCat("/size/", 20000 + i)), "", [](int) {}));
  }
  for (int i = 0; i < 20; ++i) {
    TestCompletionCallback head;
    ASSERT_EQ(OK,
              head.GetResult(streams[i]->ReadResponseHeaders(head.callback())));
    std::string body;
    auto buf = std::make_shared<IOBuffer>(8192);
    while (true) {
      TestCompletionCallback cb;
      int rv = cb.GetResult(streams[i]->ReadBody(buf, 8192, cb.callback()));
      ASSERT_GE(rv, 0);
      if (rv == 0) break;
      body.append(buf->data(), rv);
    }
    EXPECT_EQ(body, Generated(20000 + i));
    EXPECT_EQ(streams[i]->stream_id(), 1 + 2 * i);
  }
  EXPECT_EQ(session_->streams(), 20u);
  EXPECT_EQ(CountLines(Log(), "\"proto\":\"h2\""), 20);
}

TEST_F(Http2ServerSessionTest, OriginFrameFollowsSettings) {
  Http2ServerConfig h2;
  h2.origin_frame = {"https://www.example.test",
                     "https://cdn.example.test:8443"};
  StartServer(h2);
  StartRaw();
  raw_->Send(std::string(kPreface) + Settings({}));
  ASSERT_TRUE(RunUntil([&] {
    for (const Frame& f : ParseFrames(raw_->received()))
      if (f.type == NGHTTP2_ORIGIN) return true;
    return false;
  }));
  std::vector<Frame> frames = ParseFrames(raw_->received());
  ASSERT_GE(frames.size(), 2u);
  // The server's connection preface (SETTINGS) comes first.
  EXPECT_EQ(frames[0].type, NGHTTP2_SETTINGS);
  EXPECT_EQ(frames[0].flags, 0);
  const Frame* origin = nullptr;
  for (const Frame& f : frames)
    if (f.type == NGHTTP2_ORIGIN) origin = &f;
  ASSERT_NE(origin, nullptr);
  EXPECT_EQ(origin->stream_id, 0);
  // RFC 8336 6.1: Origin-Len (16 bits) and ASCII-Origin, repeated.
  EXPECT_EQ(origin->payload,
            std::string("\0\x18", 2) + "https://www.example.test" +
                std::string("\0\x1d", 2) + "https://cdn.example.test:8443");
  EXPECT_TRUE(
      absl::StrContains(Log(),
                        "\"origin_frame\":[\"https://www.example.test\","
                        "\"https://cdn.example.test:8443\"]"));
}

TEST_F(Http2ServerSessionTest, MisdirectedRequestIs421) {
  Http2ServerConfig h2;
  h2.misdirect_hosts = {"other.example.test"};
  StartServer(h2);
  StartClient();
  Result misdirected =
      Fetch(Request("GET", "/size/10", "other.example.test:8443"));
  ASSERT_EQ(misdirected.error, OK);
  EXPECT_EQ(misdirected.status, 421);
  EXPECT_TRUE(absl::StrContains(misdirected.body, "misdirected request"));
  Result fine = Fetch(Request("GET", "/size/10"));
  EXPECT_EQ(fine.status, 200);
  EXPECT_TRUE(absl::StrContains(Log(), "\"path\":\"/size/10\",\"status\":421"));
}

TEST_F(Http2ServerSessionTest, GoAwayAfterTwoStreamsRefusesTheThird) {
  Http2ServerConfig h2;
  h2.goaway_after = 2;
  StartServer(h2);
  StartClient();
  std::vector<std::unique_ptr<Http2SessionStream>> streams(3);
  for (auto& s : streams) {
    ASSERT_EQ(client_->CreateStream(&s), OK);
    s->SendRequest(Request("GET", "/size/100"), "", [](int) {});
  }
  std::vector<int> results;
  for (auto& s : streams) {
    TestCompletionCallback head;
    results.push_back(head.GetResult(s->ReadResponseHeaders(head.callback())));
  }
  EXPECT_EQ(results,
            (std::vector<int>{OK, OK, ERR_HTTP2_SERVER_REFUSED_STREAM}));
  ASSERT_TRUE(RunUntil([&] { return session_done_; }));
  EXPECT_TRUE(session_->goaway_sent());
  EXPECT_EQ(session_->streams(), 2u);
  EXPECT_TRUE(client_->goaway_received());
  EXPECT_EQ(client_->goaway_last_stream_id(), 3);
  EXPECT_TRUE(absl::StrContains(
      Log(),
      "\"event\":\"h2_goaway\",\"conn\":7,\"last_stream_id\":3,"
      "\"error_code\":\"NO_ERROR\",\"reason\":\"goaway after 2 "
      "streams\""));
  EXPECT_EQ(session_->end_reason(), "goaway after 2 streams");
}

TEST_F(Http2ServerSessionTest, RstRouteAndGoAwayRoute) {
  StartServer();
  StartClient();
  Result reset = Fetch(Request("GET", "/h2/rst/8"));  // CANCEL
  EXPECT_EQ(reset.error, ERR_HTTP2_STREAM_CLOSED);
  Result next = Fetch(Request("GET", "/size/3"));
  EXPECT_EQ(next.status, 200);
  Result goaway = Fetch(Request("GET", "/h2/goaway"));
  EXPECT_EQ(goaway.body, "going away\n");
  ASSERT_TRUE(RunUntil([&] { return session_done_; }));
  EXPECT_EQ(client_->goaway_last_stream_id(), 5);
  EXPECT_TRUE(absl::StrContains(Log(),
                                "\"path\":\"/h2/rst/8\",\"status\":0,"
                                "\"bytes\":0,\"rst\":8"));
}

TEST_F(Http2ServerSessionTest, ClientWithoutPrefaceTimesOut) {
  StartServer(Http2ServerConfig(), std::numeric_limits<size_t>::max(),
              /*request_timeout=*/absl::Milliseconds(200));
  StartRaw();
  const TimeTicks start = TimeTicks::Now();
  ASSERT_TRUE(RunUntil([&] { return session_done_; }, absl::Seconds(5)));
  const absl::Duration took = TimeTicks::Now() - start;
  EXPECT_GE(took, absl::Milliseconds(190));
  EXPECT_LT(took, absl::Seconds(2));
  EXPECT_EQ(session_->end_reason(), "no client preface");
  EXPECT_TRUE(
      absl::StrContains(Log(),
                        "\"event\":\"timeout\",\"conn\":7,\"proto\":\"h2\","
                        "\"phase\":\"h2_preface\""));
}

TEST_F(Http2ServerSessionTest, BadPrefaceEndsTheSession) {
  StartServer();
  StartRaw();
  raw_->Send("GET / HTTP/1.1\r\nHost: www.example.test\r\n\r\n");
  ASSERT_TRUE(RunUntil([&] { return session_done_; }, absl::Seconds(5)));
  EXPECT_TRUE(absl::StartsWith(session_->end_reason(), "bad client preface"))
      << session_->end_reason();
  EXPECT_TRUE(absl::StrContains(Log(), "\"error\":\"bad client preface\""));
}

TEST_F(Http2ServerSessionTest, OversizedHeaderListIs431AndTheSessionGoesOn) {
  StartServer();
  StartClient();
  // 3000 small fields: a 24 KB block, a 120 KB header list by RFC 9113
  // 6.5.2 (name + value + 32 each), past our 64 KB MAX_HEADER_LIST_SIZE.
  Http2Headers big = Request("GET", "/size/10");
  for (int i = 0; i < 3000; ++i) big.emplace_back(absl::StrCat("x-", i), "v");
  Result too_big = Fetch(big);
  ASSERT_EQ(too_big.error, OK);
  EXPECT_EQ(too_big.status, 431);
  Result next = Fetch(Request("GET", "/size/10"));
  EXPECT_EQ(next.status, 200);
  EXPECT_FALSE(session_done_);
  EXPECT_LT(session_->max_held_bytes(), 64u * 1024);
}

TEST_F(Http2ServerSessionTest, EndlessHeaderBlockIsAFlood) {
  StartServer();
  StartRaw();
  std::string out = std::string(kPreface) + Settings({});
  // HEADERS without END_HEADERS, then CONTINUATION frames that never end.
  out += Http2Frame(NGHTTP2_HEADERS, 0, 1,
                    raw_->HeaderBlock({{":method", "GET"}}));
  for (int i = 0; i < 100; ++i)
    out += Http2Frame(NGHTTP2_CONTINUATION, 0, 1, "");
  raw_->Send(out);
  ASSERT_TRUE(RunUntil([&] { return session_done_; }, absl::Seconds(5)));
  EXPECT_TRUE(absl::StartsWith(session_->end_reason(), "flood"))
      << session_->end_reason();
  EXPECT_TRUE(absl::StrContains(Log(), "\"event\":\"h2_error\""));
}

TEST_F(Http2ServerSessionTest, BodyOverTheLimitIs413) {
  Http2ServerConfig h2;
  h2.max_request_body = 100000;
  StartServer(h2);
  StartClient();
  Result r = Fetch(Request("POST", "/h2/upload"), Generated(1 << 20));
  ASSERT_EQ(r.error, OK);
  EXPECT_EQ(r.status, 413);
  // The body is never kept.
  EXPECT_LT(session_->max_held_bytes(), 64u * 1024);
  EXPECT_TRUE(absl::StrContains(Log(), "\"status\":413"));
  // A declared content-length over the limit is refused before any DATA.
  Http2Headers declared = Request("POST", "/h2/upload");
  declared.emplace_back("content-length", "200000");
  Result early = Fetch(declared, Generated(200000));
  EXPECT_EQ(early.status, 413);
  Result next = Fetch(Request("GET", "/size/10"));
  EXPECT_EQ(next.status, 200);
}

TEST_F(Http2ServerSessionTest, ThousandStreamsAtOnce) {
  StartServer();
  StartRaw();
  // Streams that stay open (no END_STREAM): 100 are taken, the rest refused.
  std::string out = std::string(kPreface) + Settings({});
  for (int i = 0; i < 1000; ++i) {
    out += Http2Frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS, 1 + 2 * i,
                      raw_->HeaderBlock({{":method", "POST"},
                                         {":scheme", "https"},
                                         {":authority", kHost},
                                         {":path", "/h2/upload"}}));
  }
  raw_->Send(out);
  auto refused = [&] {
    int n = 0;
    for (const Frame& f : ParseFrames(raw_->received())) {
      if (f.type == NGHTTP2_RST_STREAM &&
          Be32At(f.payload, 0) == NGHTTP2_REFUSED_STREAM)
        ++n;
    }
    return n;
  };
  ASSERT_TRUE(RunUntil([&] { return refused() == 900; }, absl::Seconds(10)))
      << refused();
  EXPECT_EQ(session_->open_streams(), 100u);
  EXPECT_FALSE(session_done_);
  EXPECT_LT(session_->max_held_bytes(), 64u * 1024);
}

TEST_F(Http2ServerSessionTest, ClientThatNeverReadsIsBoundedAndDropped) {
  // 16 KB of room in the pipe to the client, which never reads it.
  StartServer(Http2ServerConfig(), 16 * 1024, absl::Seconds(10),
              /*idle_timeout=*/absl::Milliseconds(300));
  // Huge windows, 100 requests for 100 MB each.
  std::string out =
      std::string(kPreface) +
      Settings({{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 0x7fffffff}}) +
      Http2Frame(NGHTTP2_WINDOW_UPDATE, 0, 0, Be32(0x7fffffff - 65535));
  nghttp2_hd_deflater* deflater = nullptr;
  nghttp2_hd_deflate_new(&deflater, 4096);
  for (int i = 0; i < 100; ++i) {
    std::string m = "GET", s = "https", a = kHost, p = "/size/100000000";
    nghttp2_nv nva[] = {
        {reinterpret_cast<uint8_t*>(const_cast<char*>(":method")),
         reinterpret_cast<uint8_t*>(m.data()), 7, m.size(), 0},
        {reinterpret_cast<uint8_t*>(const_cast<char*>(":scheme")),
         reinterpret_cast<uint8_t*>(s.data()), 7, s.size(), 0},
        {reinterpret_cast<uint8_t*>(const_cast<char*>(":authority")),
         reinterpret_cast<uint8_t*>(a.data()), 10, a.size(), 0},
        {reinterpret_cast<uint8_t*>(const_cast<char*>(":path")),
         reinterpret_cast<uint8_t*>(p.data()), 5, p.size(), 0}};
    std::string block(nghttp2_hd_deflate_bound(deflater, nva, 4), '\0');
    ssize_t n = nghttp2_hd_deflate_hd(deflater,
                                      reinterpret_cast<uint8_t*>(block.data()),
                                      block.size(), nva, 4);
    block.resize(n);
    out += Http2Frame(NGHTTP2_HEADERS,
                      NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_END_STREAM,
                      1 + 2 * i, block);
  }
  nghttp2_hd_deflate_del(deflater);
  auto buf = std::make_shared<IOBuffer>(out);
  ASSERT_EQ(client_end_->Write(buf, out.size(), [](int) {}),
            static_cast<int>(out.size()));
  RunFor(absl::Milliseconds(100));
  // Writing stalled: 10 GB asked for, the pipe's 16 KB and one gathered
  // write held, nothing more.
  EXPECT_FALSE(session_done_);
  EXPECT_EQ(session_->open_streams(), 100u);
  // The server took every byte the client sent (it keeps reading).
  EXPECT_EQ(client_end_->unread_outgoing(), 0u);
  EXPECT_LT(session_->held_bytes(), 80u * 1024);
  ASSERT_TRUE(RunUntil([&] { return session_done_; }, absl::Seconds(3)));
  EXPECT_LT(session_->max_held_bytes(), 80u * 1024);
  EXPECT_EQ(session_->end_reason(),
            "write stalled: the client stopped reading");
  EXPECT_TRUE(absl::StrContains(Log(), "\"phase\":\"write\""));
}

TEST_F(Http2ServerSessionTest, PingFloodFromAClientThatNeverReads) {
  StartServer(Http2ServerConfig(), 16 * 1024);
  std::string out = std::string(kPreface) + Settings({});
  for (int i = 0; i < 5000; ++i)
    out += Http2Frame(NGHTTP2_PING, 0, 0, std::string(8, 'p'));
  // Written as the pipe's 16 KB take it; the server reads all of it.
  size_t written = 0;
  ASSERT_TRUE(RunUntil(
      [&] {
        if (written < out.size() && !session_done_) {
          auto buf = std::make_shared<IOBuffer>(out.substr(written));
          int rv = client_end_->Write(buf, out.size() - written, [](int) {});
          if (rv > 0) written += rv;
        }
        return session_done_;
      },
      absl::Seconds(5)));
  // 5000 PINGs, at most ~960 ACKs fit the pipe: nghttp2's limit of 1000
  // queued ACKs ends the session.
  EXPECT_TRUE(absl::StartsWith(session_->end_reason(), "flood"))
      << session_->end_reason();
  EXPECT_LT(session_->max_held_bytes(), 80u * 1024);
}

TEST_F(Http2ServerSessionTest, IdleSessionGoesAway) {
  StartServer(Http2ServerConfig(), std::numeric_limits<size_t>::max(),
              absl::Seconds(10), /*idle_timeout=*/absl::Milliseconds(200));
  StartClient();
  EXPECT_EQ(Fetch(Request("GET", "/size/1")).status, 200);
  ASSERT_TRUE(RunUntil([&] { return session_done_; }, absl::Seconds(5)));
  EXPECT_EQ(session_->end_reason(), "idle");
  EXPECT_TRUE(client_->goaway_received());
  EXPECT_TRUE(absl::StrContains(Log(), "\"phase\":\"idle\""));
}

// ---------------------------------------------------------------------------
// Over TLS on loopback, through TestServer.

ClientCert CopyCert(const ClientCert& from) {
  ClientCert cert;
  cert.cert_der = from.cert_der;
  EVP_PKEY_up_ref(from.key.get());
  cert.key.reset(from.key.get());
  return cert;
}

class FixedCertProvider : public ClientCertProvider {
 public:
  explicit FixedCertProvider(const ClientCert& cert) : cert_(CopyCert(cert)) {}
  int GetClientCert(const Origin&, ClientCert* cert, CompletionOnceCallback,
                    std::unique_ptr<Request>*) override {
    *cert = CopyCert(cert_);
    return OK;
  }

 private:
  ClientCert cert_;
};

class Http2ServerTlsTest : public Http2ServerSessionTest {
 protected:
  void StartTlsServer(bool http2, bool spdy) {
    TestServerConfig config;
    config.https_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.ssl.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
    config.ssl.key_file = "cert/testdata/good_leaf.key";
    config.request_client_cert = true;
    if (http2) config.http2.emplace();
    if (spdy) config.spdy.emplace();
    config.quiet = true;
    log_path_ = absl::StrCat(
        ::testing::TempDir(), "/h2_tls_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name(),
        ".jsonl");
    std::remove(log_path_.c_str());
    config.log_file = log_path_;
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->bound()[0].second.port();
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = std::move(*verifier);
    context_ = std::make_unique<SSLClientContext>(verifier_.get());
  }

  std::unique_ptr<SSLClientSocket> ConnectTls(
      std::vector<std::string> alpn, const ClientCert* cert = nullptr) {
    auto tcp = std::make_unique<TCPClientSocket>(
        IPEndPoint(IPAddress::IPv4Localhost(), port_), absl::Seconds(5));
    TestCompletionCallback cb;
    EXPECT_EQ(OK, cb.GetResult(tcp->Connect(cb.callback())));
    SSLConfig ssl_config;
    ssl_config.alpn_protos = std::move(alpn);
    ssl_config.session_resumption_enabled = false;
    if (cert) {
      provider_ = std::make_unique<FixedCertProvider>(*cert);
      ssl_config.client_cert_provider = provider_.get();
    }
    auto ssl = std::make_unique<SSLClientSocket>(std::move(tcp), kHost, port_,
                                                 ssl_config, context_.get());
    EXPECT_EQ(OK, cb.GetResult(ssl->Connect(cb.callback())));
    return ssl;
  }

  std::string Authority(const std::string& host) {
    return absl::StrCat(host, ":", port_);
  }

  uint16_t port_ = 0;
  std::unique_ptr<CertVerifier> verifier_;
  std::unique_ptr<SSLClientContext> context_;
  std::unique_ptr<ClientCertProvider> provider_;
};

TEST_F(Http2ServerTlsTest, AlpnPreference) {
  StartTlsServer(/*http2=*/true, /*spdy=*/true);
  EXPECT_EQ(ConnectTls({"h2", "http/1.1"})->ssl_info().alpn, "h2");
  EXPECT_EQ(ConnectTls({"spdy/3", "h2", "http/1.1"})->ssl_info().alpn,
            "spdy/3");
  EXPECT_EQ(ConnectTls({"http/1.1"})->ssl_info().alpn, "http/1.1");
}

TEST_F(Http2ServerTlsTest, WithoutHttp2ClientsGetHttp11) {
  StartTlsServer(/*http2=*/false, /*spdy=*/false);
  EXPECT_EQ(ConnectTls({"h2", "http/1.1"})->ssl_info().alpn, "http/1.1");
}

TEST_F(Http2ServerTlsTest, ChannelBoundCookiesForTheConnectionsOrigin) {
  StartTlsServer(/*http2=*/true, /*spdy=*/false);
  absl::StatusOr<ObcKeyMaterial> m =
      MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now());
  ASSERT_TRUE(m.ok());
  ClientCert obc;
  obc.cert_der = m->cert_der;
  obc.key = std::move(m->key);
  const std::string spki = HexEncode(*SpkiSha256(obc.cert_der));

  std::unique_ptr<SSLClientSocket> ssl = ConnectTls({"h2", "http/1.1"}, &obc);
  ASSERT_EQ(ssl->ssl_info().alpn, "h2");
  Http2SessionParams params;
  params.origin = Origin("https", kHost, port_);
  auto session = std::make_unique<Http2Session>(std::move(ssl), params);
  session->Start();

  Result login =
      Fetch(Request("GET", "/obc/login", Authority(kHost)), "", session.get());
  ASSERT_EQ(login.error, OK);
  EXPECT_EQ(login.status, 200);
  EXPECT_EQ(Header(login, "x-obc-spki-sha256"), spki);
  const std::string set_cookie = Header(login, "set-cookie");
  ASSERT_TRUE(absl::StartsWith(set_cookie, "obc_session=")) << set_cookie;
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));

  Http2Headers whoami = Request("GET", "/obc/whoami", Authority(kHost));
  whoami.emplace_back("cookie", cookie);
  Result accepted = Fetch(whoami, "", session.get());
  EXPECT_EQ(accepted.status, 200);
  EXPECT_EQ(accepted.body,
            absl::StrCat("{\"session\":\"accepted\",\"obc_spki_sha256\":\"",
                         spki, "\",\"bound_to\":\"", spki, "\"}\n"));

  // localhost is in the certificate too, so a client may coalesce it onto
  // this connection; but the OBC was made for www.example.test and HTTP/2
  // has no CREDENTIAL: localhost has no OBC here.
  Http2Headers coalesced =
      Request("GET", "/obc/whoami", Authority("localhost"));
  coalesced.emplace_back("cookie", cookie);
  Result refused = Fetch(coalesced, "", session.get());
  EXPECT_EQ(refused.status, 403);
  EXPECT_TRUE(absl::StrContains(refused.body, "is none")) << refused.body;
  Result login_other = Fetch(
      Request("GET", "/obc/login", Authority("localhost")), "", session.get());
  EXPECT_EQ(login_other.status, 403);
  EXPECT_TRUE(absl::StrContains(login_other.body, "HTTP/2 has no CREDENTIAL"))
      << login_other.body;

  // A forged token is refused whatever the origin.
  Http2Headers forged = Request("GET", "/size/1", Authority(kHost));
  forged.emplace_back("cookie", "obc_session=AAAA");
  EXPECT_EQ(Fetch(forged, "", session.get()).status, 403);

  // The connection's log line, written when it ends: h2, 5 streams.
  session.reset();
  ASSERT_TRUE(RunUntil(
      [&] { return absl::StrContains(Log(), "\"event\":\"connection\""); }));
  const std::string log = Log();
  EXPECT_TRUE(absl::StrContains(log, "\"alpn\":\"h2\"")) << log;
  EXPECT_TRUE(absl::StrContains(log, "\"streams\":5,\"h2_end\":")) << log;
  EXPECT_TRUE(absl::StrContains(
      log, absl::StrCat("\"obc_spki_sha256\":\"", spki, "\"")));
  EXPECT_TRUE(absl::StrContains(log, "\"obc_cookie\":\"accepted\""));
  EXPECT_TRUE(absl::StrContains(log, "\"obc_cookie\":\"no_obc\""));
  EXPECT_TRUE(absl::StrContains(log, "\"obc_cookie\":\"invalid\""));
}

}  // namespace
}  // namespace net
