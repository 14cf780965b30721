// Http2Session against nghttp2's server side (Http2TestServer) and against
// hand-built frames (RawHttp2Peer), over an in-memory socket pair.

#include "net/http2/http2_session.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/http2/http2_session_pool.h"
#include "net/http2/http2_test_server.h"
#include "net/spdy/spdy_session_test_util.h"

namespace net {
namespace {

constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

Http2Headers Get(const std::string& path) {
  return {{":method", "GET"},
          {":authority", "example.test"},
          {":scheme", "https"},
          {":path", path},
          {"priority", "u=0, i"}};
}

std::string Generated(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
  return s;
}

class Http2SessionTest : public testing::Test {
 protected:
  // A session on one end of a socket pair; the other end is |server_end_|.
  void MakeSession(Http2SessionParams params = Http2SessionParams()) {
    auto [client, server] = CreateFakeSocketPair();
    server_end_ = std::move(server);
    params.origin = Origin("https", "example.test", 443);
    session_ = std::make_unique<Http2Session>(std::move(client), params);
    session_->set_on_closed([this](Http2Session*) { closed_ = true; });
  }
  // A session served by an nghttp2 server answering with |handler|.
  void StartWithServer(Http2TestServer::Handler handler,
                       Http2SessionParams params = Http2SessionParams()) {
    MakeSession(params);
    server_ = std::make_unique<Http2TestServer>(std::move(server_end_),
                                                std::move(handler));
    session_->Start();
  }
  void StartWithRawPeer(Http2SessionParams params = Http2SessionParams()) {
    MakeSession(params);
    raw_ = std::make_unique<RawHttp2Peer>(std::move(server_end_));
    session_->Start();
  }
  std::unique_ptr<Http2SessionStream> Open() {
    std::unique_ptr<Http2SessionStream> stream;
    EXPECT_EQ(session_->CreateStream(&stream), OK);
    return stream;
  }
  // Sends a GET for |path| and waits for the response headers.
  int Fetch(Http2SessionStream* stream, const std::string& path) {
    TestCompletionCallback send;
    int rv =
        send.GetResult(stream->SendRequest(Get(path), "", send.callback()));
    if (rv != OK) return rv;
    TestCompletionCallback headers;
    return headers.GetResult(stream->ReadResponseHeaders(headers.callback()));
  }
  // Reads the body to its end (or an error, returned).
  int ReadAll(Http2SessionStream* stream, std::string* out,
              int chunk = 64 * 1024) {
    auto buf = std::make_shared<IOBuffer>(chunk);
    while (true) {
      TestCompletionCallback cb;
      int rv = cb.GetResult(stream->ReadBody(buf, chunk, cb.callback()));
      if (rv <= 0) return rv;
      out->append(buf->data(), rv);
    }
  }

  EventLoop loop_;
  std::unique_ptr<StreamSocket> server_end_;
  std::unique_ptr<Http2Session> session_;
  std::unique_ptr<Http2TestServer> server_;
  std::unique_ptr<RawHttp2Peer> raw_;
  bool closed_ = false;
};

TEST_F(Http2SessionTest, GetWithChromiumSettingsAndPriority) {
  StartWithServer([](const TestHeaders& request, const std::string&) {
    Http2TestServer::Response r;
    r.headers = {{"content-type", "text/plain"}};
    r.body = "hello over h2";
    return r;
  });
  auto stream = Open();
  ASSERT_EQ(Fetch(stream.get(), "/hello"), OK);
  EXPECT_EQ(stream->status(), 200);
  EXPECT_EQ(stream->stream_id(), 1);
  std::string body;
  EXPECT_EQ(ReadAll(stream.get(), &body), 0);
  EXPECT_EQ(body, "hello over h2");
  ASSERT_EQ(stream->response_headers().size(), 2u);
  EXPECT_EQ(stream->response_headers()[1].first, "content-type");

  // The request as sent: pseudo-headers in Chromium's order, the RFC 9218
  // priority header.
  ASSERT_EQ(server_->requests().size(), 1u);
  const TestHeaders& req = server_->requests()[0];
  ASSERT_GE(req.size(), 5u);
  EXPECT_EQ(req[0], (std::pair<std::string, std::string>(":method", "GET")));
  EXPECT_EQ(req[3], (std::pair<std::string, std::string>(":path", "/hello")));
  EXPECT_EQ(req[4],
            (std::pair<std::string, std::string>("priority", "u=0, i")));
  // Our SETTINGS, Chromium's values, and the connection window raised to
  // 15 MB by one WINDOW_UPDATE on stream 0.
  const auto& s = server_->client_settings();
  EXPECT_EQ(s.at(NGHTTP2_SETTINGS_ENABLE_PUSH), 0u);
  EXPECT_EQ(s.at(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE), 6u * 1024 * 1024);
  EXPECT_EQ(s.at(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE), 256u * 1024);
  EXPECT_EQ(s.at(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE), 64u * 1024);
  bool window_raised = false;
  for (const auto& f : server_->frames()) {
    if (f.type == NGHTTP2_WINDOW_UPDATE && f.stream_id == 0 &&
        f.increment == 15 * 1024 * 1024 - 65535)
      window_raised = true;
    if (f.type == NGHTTP2_HEADERS) {
      EXPECT_EQ(f.weight, 256);
      EXPECT_TRUE(f.exclusive);
      EXPECT_EQ(f.dep, 0);
    }
  }
  EXPECT_TRUE(window_raised);
  // The server's SETTINGS, as the trace shows them.
  ASSERT_TRUE(session_->settings_received());
  ASSERT_EQ(session_->server_settings().size(), 1u);
  EXPECT_EQ(session_->server_settings()[0].first, "MAX_CONCURRENT_STREAMS");
  EXPECT_EQ(session_->server_settings()[0].second, 100u);
}

TEST_F(Http2SessionTest, TwentyStreamsMultiplexWithChromiumsDependencyChain) {
  StartWithServer([](const TestHeaders& request, const std::string&) {
    Http2TestServer::Response r;
    for (const auto& [name, value] : request)
      if (name == ":path") r.body = "body of " + value;
    return r;
  });
  std::vector<std::unique_ptr<Http2SessionStream>> streams;
  std::vector<std::unique_ptr<TestCompletionCallback>> sends;
  for (int i = 0; i < 20; ++i) {
    streams.push_back(Open());
    sends.push_back(std::make_unique<TestCompletionCallback>());
    int rv = streams.back()->SendRequest(Get(absl::StrCat("/r", i)), "",
                                         sends.back()->callback());
    ASSERT_EQ(rv, ERR_IO_PENDING);
  }
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(sends[i]->WaitForResult(), OK);
    EXPECT_EQ(streams[i]->stream_id(), 1 + 2 * i);
  }
  for (int i = 0; i < 20; ++i) {
    TestCompletionCallback headers;
    ASSERT_EQ(
        headers.GetResult(streams[i]->ReadResponseHeaders(headers.callback())),
        OK);
    std::string body;
    EXPECT_EQ(ReadAll(streams[i].get(), &body), 0);
    EXPECT_EQ(body, absl::StrCat("body of /r", i));
  }
  // Each HEADERS depends exclusively on the stream before it (all 20 were
  // open when the next was made), weight 256.
  int headers = 0;
  for (const auto& f : server_->frames()) {
    if (f.type != NGHTTP2_HEADERS) continue;
    EXPECT_EQ(f.dep, headers == 0 ? 0 : f.stream_id - 2) << f.stream_id;
    EXPECT_EQ(f.weight, 256);
    EXPECT_TRUE(f.exclusive);
    ++headers;
  }
  EXPECT_EQ(headers, 20);
  EXPECT_EQ(session_->streams_started(), 20u);
}

// A server with 50 MB to send on a stream nobody reads: the session holds
// exactly the stream's 6 MB window and no more; reading releases it.
TEST_F(Http2SessionTest, UnreadStreamBuffersOneWindowThenReadsTenMegabytes) {
  const int64_t kSize = 10 * 1024 * 1024;
  StartWithServer([&](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.body_size = kSize;
    return r;
  });
  auto stream = Open();
  ASSERT_EQ(Fetch(stream.get(), "/big"), OK);
  loop_.RunUntilIdle();
  EXPECT_EQ(stream->buffered_bytes(), 6u * 1024 * 1024);
  EXPECT_EQ(session_->buffered_bytes(), 6u * 1024 * 1024);
  std::string body;
  EXPECT_EQ(ReadAll(stream.get(), &body, 16 * 1024), 0);
  EXPECT_EQ(body.size(), static_cast<size_t>(kSize));
  EXPECT_TRUE(body == Generated(kSize));
  EXPECT_LE(session_->max_buffered_bytes(), 6u * 1024 * 1024);
  EXPECT_EQ(session_->buffered_bytes(), 0u);
  // The windows reopened as we read: WINDOW_UPDATEs for the stream.
  int stream_updates = 0;
  for (const auto& f : server_->frames())
    stream_updates += f.type == NGHTTP2_WINDOW_UPDATE && f.stream_id == 1;
  EXPECT_GE(stream_updates, 2);
}

// Three unread streams: the connection's 15 MB window bounds them together.
TEST_F(Http2SessionTest, ConnectionWindowBoundsAllStreams) {
  StartWithServer([&](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.body_size = 8 * 1024 * 1024;
    return r;
  });
  std::vector<std::unique_ptr<Http2SessionStream>> streams;
  for (int i = 0; i < 3; ++i) {
    streams.push_back(Open());
    ASSERT_EQ(Fetch(streams.back().get(), "/big"), OK);
  }
  loop_.RunUntilIdle();
  EXPECT_EQ(session_->buffered_bytes(), 15u * 1024 * 1024);
  // Cancelling one resets it and frees its 6 MB (credited to the
  // connection: nghttp2 sends the WINDOW_UPDATE once half the window is
  // consumed, so with what the others read next).
  streams[0].reset();
  loop_.RunUntilIdle();
  EXPECT_EQ(server_->CountFrames(NGHTTP2_RST_STREAM), 1);
  EXPECT_EQ(session_->buffered_bytes(), 9u * 1024 * 1024);
  for (int i = 1; i < 3; ++i) {
    std::string body;
    EXPECT_EQ(ReadAll(streams[i].get(), &body), 0);
    EXPECT_EQ(body.size(), 8u * 1024 * 1024);
  }
  EXPECT_EQ(session_->buffered_bytes(), 0u);
}

TEST_F(Http2SessionTest, PostBodyIsSent) {
  std::string received;
  StartWithServer([&](const TestHeaders&, const std::string& body) {
    received = body;
    Http2TestServer::Response r;
    r.body = absl::StrCat(body.size());
    return r;
  });
  auto stream = Open();
  const std::string upload = Generated(1024 * 1024 + 7);
  Http2Headers headers = Get("/upload");
  headers[0].second = "POST";
  TestCompletionCallback send;
  ASSERT_EQ(
      send.GetResult(stream->SendRequest(headers, upload, send.callback())),
      OK);
  TestCompletionCallback cb;
  ASSERT_EQ(cb.GetResult(stream->ReadResponseHeaders(cb.callback())), OK);
  std::string body;
  EXPECT_EQ(ReadAll(stream.get(), &body), 0);
  EXPECT_EQ(body, "1048583");
  EXPECT_TRUE(received == upload);
}

TEST_F(Http2SessionTest, RstStreamCodesAreNamedAndTheSessionGoesOn) {
  const std::vector<std::pair<uint32_t, int>> cases = {
      {NGHTTP2_REFUSED_STREAM, ERR_HTTP2_SERVER_REFUSED_STREAM},
      {NGHTTP2_CANCEL, ERR_HTTP2_STREAM_CLOSED},
      {NGHTTP2_INTERNAL_ERROR, ERR_HTTP2_STREAM_CLOSED},
      {NGHTTP2_PROTOCOL_ERROR, ERR_HTTP2_PROTOCOL_ERROR},
      {NGHTTP2_FLOW_CONTROL_ERROR, ERR_HTTP2_FLOW_CONTROL_ERROR},
  };
  size_t index = 0;
  StartWithServer([&](const TestHeaders& request, const std::string&) {
    Http2TestServer::Response r;
    if (index < cases.size()) {
      r.rst = true;
      r.rst_code = cases[index].first;
    }
    ++index;
    r.body = "fine";
    return r;
  });
  for (const auto& [code, error] : cases) {
    auto stream = Open();
    EXPECT_EQ(Fetch(stream.get(), "/reset"), error) << code;
  }
  auto stream = Open();
  ASSERT_EQ(Fetch(stream.get(), "/ok"), OK);
  std::string body;
  EXPECT_EQ(ReadAll(stream.get(), &body), 0);
  EXPECT_EQ(body, "fine");
}

// GOAWAY naming stream 1: stream 1 is answered, stream 3 is refused
// (retryable), the session takes no new stream and closes when done.
TEST_F(Http2SessionTest, GoAwayRefusesStreamsAboveLastStreamId) {
  StartWithServer([&](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;
    return r;
  });
  auto first = Open();
  auto second = Open();
  TestCompletionCallback s1, s2;
  ASSERT_EQ(s1.GetResult(first->SendRequest(Get("/a"), "", s1.callback())), OK);
  ASSERT_EQ(s2.GetResult(second->SendRequest(Get("/b"), "", s2.callback())),
            OK);
  server_->SendGoAway(1, NGHTTP2_NO_ERROR);
  Http2TestServer::Response r;
  r.body = "last one";
  server_->Respond(1, r);
  TestCompletionCallback h2;
  EXPECT_EQ(h2.GetResult(second->ReadResponseHeaders(h2.callback())),
            ERR_HTTP2_SERVER_REFUSED_STREAM);
  EXPECT_FALSE(session_->IsAvailable());
  std::unique_ptr<Http2SessionStream> third;
  EXPECT_EQ(session_->CreateStream(&third), ERR_HTTP2_SERVER_REFUSED_STREAM);
  TestCompletionCallback h1;
  ASSERT_EQ(h1.GetResult(first->ReadResponseHeaders(h1.callback())), OK);
  std::string body;
  EXPECT_EQ(ReadAll(first.get(), &body), 0);
  EXPECT_EQ(body, "last one");
  EXPECT_TRUE(session_->goaway_received());
  EXPECT_EQ(session_->goaway_last_stream_id(), 1);
  // Nothing left: nghttp2 wants no more and the session closes.
  first.reset();
  second.reset();
  loop_.RunUntilIdle();
  EXPECT_TRUE(closed_);
}

TEST_F(Http2SessionTest, GoAwayWithAnErrorFailsUnfinishedStreams) {
  StartWithServer([&](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;
    return r;
  });
  auto stream = Open();
  TestCompletionCallback send;
  ASSERT_EQ(send.GetResult(stream->SendRequest(Get("/a"), "", send.callback())),
            OK);
  server_->SendGoAway(1, NGHTTP2_INTERNAL_ERROR);
  loop_.RunUntilIdle();
  server_->Close();
  TestCompletionCallback headers;
  EXPECT_EQ(headers.GetResult(stream->ReadResponseHeaders(headers.callback())),
            ERR_HTTP2_GOAWAY_FRAME);
}

TEST_F(Http2SessionTest, PingRoundTrip) {
  StartWithServer([](const TestHeaders&, const std::string&) {
    return Http2TestServer::Response();
  });
  TestCompletionCallback ping;
  session_->Ping(ping.callback());
  EXPECT_EQ(ping.WaitForResult(), OK);
  EXPECT_EQ(server_->CountFrames(NGHTTP2_PING), 1);
  EXPECT_TRUE(session_->IsAvailable());
}

// The server's connection preface never comes: a named error, in bounded
// time, for the session and the stream on it.
TEST_F(Http2SessionTest, ServerThatNeverSendsSettingsTimesOut) {
  Http2SessionParams params;
  params.settings_timeout = absl::Milliseconds(100);
  StartWithRawPeer(params);
  auto stream = Open();
  EXPECT_EQ(Fetch(stream.get(), "/"), ERR_HTTP2_SETTINGS_TIMEOUT);
  EXPECT_EQ(session_->error(), ERR_HTTP2_SETTINGS_TIMEOUT);
  // We did send our preface.
  EXPECT_EQ(raw_->received().substr(0, 24), kPreface);
}

TEST_F(Http2SessionTest, UnansweredPingFailsTheSession) {
  Http2SessionParams params;
  params.ping_timeout = absl::Milliseconds(100);
  StartWithRawPeer(params);
  raw_->Send(Http2Frame(NGHTTP2_SETTINGS, 0, 0, ""));
  auto stream = Open();
  TestCompletionCallback send;
  ASSERT_EQ(send.GetResult(stream->SendRequest(Get("/"), "", send.callback())),
            OK);
  TestCompletionCallback ping;
  session_->Ping(ping.callback());
  EXPECT_EQ(ping.WaitForResult(), ERR_HTTP2_PING_FAILED);
  TestCompletionCallback headers;
  EXPECT_EQ(headers.GetResult(stream->ReadResponseHeaders(headers.callback())),
            ERR_HTTP2_PING_FAILED);
}

// A response header list past 256 KB: the stream fails with a named error
// (reset), the session keeps serving.
TEST_F(Http2SessionTest, OversizedHeaderListIsRefused) {
  int n = 0;
  StartWithServer([&](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    if (n++ == 0) r.header_bytes = 300 * 1024;
    r.body = "small";
    return r;
  });
  auto big = Open();
  EXPECT_EQ(Fetch(big.get(), "/big-headers"), ERR_RESPONSE_HEADERS_TOO_BIG);
  loop_.RunUntilIdle();
  EXPECT_EQ(server_->CountFrames(NGHTTP2_RST_STREAM), 1);
  auto next = Open();
  ASSERT_EQ(Fetch(next.get(), "/"), OK);
  std::string body;
  EXPECT_EQ(ReadAll(next.get(), &body), 0);
  EXPECT_EQ(body, "small");
}

// A header block that never ends (HEADERS without END_HEADERS, then
// CONTINUATION after CONTINUATION): nghttp2 stops it, a named error.
TEST_F(Http2SessionTest, EndlessContinuationIsStopped) {
  StartWithRawPeer();
  raw_->Send(Http2Frame(NGHTTP2_SETTINGS, 0, 0, ""));
  auto stream = Open();
  TestCompletionCallback send;
  ASSERT_EQ(send.GetResult(stream->SendRequest(Get("/"), "", send.callback())),
            OK);
  raw_->Send(Http2Frame(NGHTTP2_HEADERS, 0, 1,
                        raw_->HeaderBlock({{":status", "200"}})));
  for (int i = 0; i < 100 && !closed_; ++i) {
    raw_->Send(
        Http2Frame(NGHTTP2_CONTINUATION, 0, 1,
                   raw_->HeaderBlock({{"x-more", std::string(1000, 'm')}})));
    loop_.RunUntilIdle();
  }
  TestCompletionCallback headers;
  int rv = headers.GetResult(stream->ReadResponseHeaders(headers.callback()));
  EXPECT_EQ(rv, ERR_HTTP2_FLOOD_DETECTED) << ErrorToShortString(rv);
  EXPECT_TRUE(closed_);
}

// A server that ignores our window: DATA past the stream's 6 MB. We read
// what the window allowed, then the stream fails with a named error.
TEST_F(Http2SessionTest, DataPastTheWindowIsAFlowControlError) {
  StartWithRawPeer();
  raw_->Send(Http2Frame(NGHTTP2_SETTINGS, 0, 0, ""));
  raw_->Send(Http2Frame(NGHTTP2_SETTINGS, NGHTTP2_FLAG_ACK, 0, ""));
  auto stream = Open();
  TestCompletionCallback send;
  ASSERT_EQ(send.GetResult(stream->SendRequest(Get("/"), "", send.callback())),
            OK);
  raw_->Send(Http2Frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS, 1,
                        raw_->HeaderBlock({{":status", "200"}})));
  TestCompletionCallback headers;
  ASSERT_EQ(headers.GetResult(stream->ReadResponseHeaders(headers.callback())),
            OK);
  const std::string chunk(16384, 'd');
  std::string data;
  for (int i = 0; i < 6 * 64 + 3; ++i)  // 48 KB too many
    data += Http2Frame(NGHTTP2_DATA, 0, 1, chunk);
  raw_->Send(data);
  loop_.RunUntilIdle();
  // nghttp2 hands over the frame that crosses the window before it resets
  // the stream: at most one frame (16 KB, our SETTINGS_MAX_FRAME_SIZE) past
  // it, and nothing after.
  const size_t kBound = 6u * 1024 * 1024 + 16384;
  EXPECT_LE(session_->max_buffered_bytes(), kBound);
  std::string body;
  EXPECT_EQ(ReadAll(stream.get(), &body), ERR_HTTP2_FLOW_CONTROL_ERROR);
  EXPECT_GE(body.size(), 6u * 1024 * 1024);
  EXPECT_LE(body.size(), kBound);
  loop_.RunUntilIdle();
  EXPECT_NE(raw_->received().find(Http2Frame(NGHTTP2_RST_STREAM, 0, 1,
                                             Be32(NGHTTP2_FLOW_CONTROL_ERROR))),
            std::string::npos);
}

// Server push is off (SETTINGS_ENABLE_PUSH 0): a PUSH_PROMISE is a
// connection error.
TEST_F(Http2SessionTest, PushPromiseIsAProtocolError) {
  StartWithRawPeer();
  raw_->Send(Http2Frame(NGHTTP2_SETTINGS, 0, 0, ""));
  raw_->Send(Http2Frame(NGHTTP2_SETTINGS, NGHTTP2_FLAG_ACK, 0, ""));
  auto stream = Open();
  TestCompletionCallback send;
  ASSERT_EQ(send.GetResult(stream->SendRequest(Get("/"), "", send.callback())),
            OK);
  raw_->Send(
      Http2Frame(NGHTTP2_PUSH_PROMISE, NGHTTP2_FLAG_END_HEADERS, 1,
                 Be32(2) + raw_->HeaderBlock({{":method", "GET"},
                                              {":scheme", "https"},
                                              {":authority", "example.test"},
                                              {":path", "/pushed"}})));
  TestCompletionCallback headers;
  EXPECT_EQ(headers.GetResult(stream->ReadResponseHeaders(headers.callback())),
            ERR_HTTP2_PROTOCOL_ERROR);
  EXPECT_EQ(session_->error(), ERR_HTTP2_PROTOCOL_ERROR);
}

TEST_F(Http2SessionTest, ConnectionClosedMidResponse) {
  StartWithServer([&](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;
    return r;
  });
  auto stream = Open();
  TestCompletionCallback send;
  ASSERT_EQ(send.GetResult(stream->SendRequest(Get("/"), "", send.callback())),
            OK);
  server_->Close();
  TestCompletionCallback headers;
  EXPECT_EQ(headers.GetResult(stream->ReadResponseHeaders(headers.callback())),
            ERR_CONNECTION_CLOSED);
  loop_.RunUntilIdle();
  EXPECT_TRUE(closed_);
}

TEST_F(Http2SessionTest, IdleSessionSendsGoAwayAndCloses) {
  Http2SessionParams params;
  params.idle_timeout = absl::Milliseconds(50);
  StartWithServer(
      [](const TestHeaders&, const std::string&) {
        Http2TestServer::Response r;
        r.body = "x";
        return r;
      },
      params);
  {
    auto stream = Open();
    ASSERT_EQ(Fetch(stream.get(), "/"), OK);
    std::string body;
    EXPECT_EQ(ReadAll(stream.get(), &body), 0);
  }
  while (!closed_) {
    TestCompletionCallback wait;
    OneShotTimer t;
    t.Start(absl::Milliseconds(20),
            [cb = wait.callback()]() mutable { std::move(cb)(OK); });
    wait.WaitForResult();
  }
  EXPECT_EQ(server_->CountFrames(NGHTTP2_GOAWAY), 1);
}

TEST_F(Http2SessionTest, PoolSharesOneSessionPerOrigin) {
  Http2SessionPool pool;
  auto [client, server] = CreateFakeSocketPair();
  Http2TestServer peer(std::move(server),
                       [](const TestHeaders&, const std::string&) {
                         return Http2TestServer::Response();
                       });
  Http2SessionParams params;
  params.origin = Origin("https", "example.test", 443);
  Http2Session* s = pool.InsertSession(
      std::make_unique<Http2Session>(std::move(client), params));
  s->Start();
  EXPECT_EQ(pool.FindAvailableSession(params.origin), s);
  EXPECT_EQ(pool.FindAvailableSession(Origin("https", "other.test", 443)),
            nullptr);
  peer.SendGoAway(0, NGHTTP2_NO_ERROR);
  loop_.RunUntilIdle();
  EXPECT_EQ(pool.FindAvailableSession(params.origin), nullptr);
  // Closed (nothing open after GOAWAY) and destroyed by the pool.
  EXPECT_EQ(pool.session_count(), 0u);
}

// Streams of different priorities: each HEADERS carries its priority's
// weight and depends on the newest open stream at its own or a more urgent
// priority (Chromium's Http2PriorityDependencies), as nghttp2's server
// decoded them.
TEST_F(Http2SessionTest, HeadersCarryEachRequestsPriority) {
  StartWithServer([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;  // keep every stream open
    return r;
  });
  const RequestPriority priorities[] = {LOWEST, HIGHEST, HIGHEST, MEDIUM, IDLE};
  std::vector<std::unique_ptr<Http2SessionStream>> streams;
  for (RequestPriority p : priorities) {
    streams.push_back(Open());
    streams.back()->set_priority(p);
    TestCompletionCallback send;
    ASSERT_EQ(send.GetResult(
                  streams.back()->SendRequest(Get("/"), "", send.callback())),
              OK);
  }
  loop_.RunUntilIdle();
  struct Want {
    int32_t id, dep, weight;
  };
  const Want want[] = {
      {1, 0, 147},  // LOWEST, alone
      {3, 0, 256},  // HIGHEST: more urgent than all open
      {5, 3, 256},  // HIGHEST after HIGHEST
      {7, 5, 220},  // MEDIUM after the newest HIGHEST
      {9, 1, 110},  // IDLE after the newest LOWEST
  };
  std::vector<Http2TestServer::Frame> headers;
  for (const auto& f : server_->frames())
    if (f.type == NGHTTP2_HEADERS) headers.push_back(f);
  ASSERT_EQ(headers.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(headers[i].stream_id, want[i].id);
    EXPECT_EQ(headers[i].dep, want[i].dep) << "stream " << want[i].id;
    EXPECT_EQ(headers[i].weight, want[i].weight) << "stream " << want[i].id;
    EXPECT_TRUE(headers[i].exclusive);
    EXPECT_EQ(streams[i]->sent_priority().weight, want[i].weight);
    EXPECT_EQ(streams[i]->sent_priority().parent, want[i].dep);
  }
  // A cancelled stream is no parent any more.
  streams[2].reset();  // stream 5
  streams.push_back(Open());
  TestCompletionCallback send;
  ASSERT_EQ(send.GetResult(
                streams.back()->SendRequest(Get("/"), "", send.callback())),
            OK);
  EXPECT_EQ(streams.back()->sent_priority().parent, 3);
}

TEST_F(Http2SessionTest, RstStreamHttp11RequiredIsANamedError) {
  StartWithServer([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.rst = true;
    r.rst_code = NGHTTP2_HTTP_1_1_REQUIRED;
    return r;
  });
  auto stream = Open();
  EXPECT_EQ(Fetch(stream.get(), "/"), ERR_HTTP_1_1_REQUIRED);
  EXPECT_EQ(session_->state(), Http2Session::State::kOpen);
  EXPECT_EQ(Http2ErrorCodeToNetError(NGHTTP2_HTTP_1_1_REQUIRED),
            ERR_HTTP_1_1_REQUIRED);
}

// GOAWAY HTTP_1_1_REQUIRED: the stream below its last id and the one above
// it (which nghttp2 closes REFUSED_STREAM) both fail ERR_HTTP_1_1_REQUIRED,
// so neither is retried over HTTP/2.
TEST_F(Http2SessionTest, GoAwayHttp11RequiredFailsEveryStream) {
  StartWithServer([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;
    return r;
  });
  auto a = Open();
  auto b = Open();
  TestCompletionCallback sa, sb;
  ASSERT_EQ(sa.GetResult(a->SendRequest(Get("/a"), "", sa.callback())), OK);
  ASSERT_EQ(sb.GetResult(b->SendRequest(Get("/b"), "", sb.callback())), OK);
  loop_.RunUntilIdle();
  server_->SendGoAway(1, NGHTTP2_HTTP_1_1_REQUIRED);
  server_->Close();
  TestCompletionCallback ha, hb;
  EXPECT_EQ(hb.GetResult(b->ReadResponseHeaders(hb.callback())),
            ERR_HTTP_1_1_REQUIRED);
  EXPECT_EQ(ha.GetResult(a->ReadResponseHeaders(ha.callback())),
            ERR_HTTP_1_1_REQUIRED);
  EXPECT_FALSE(session_->IsAvailable());
}

TEST(Http2OriginFrameTest, ParsesAsciiOriginsOnly) {
  EXPECT_EQ(ParseOriginFrameEntry("https://a.example.test"),
            Origin("https", "a.example.test", 443));
  EXPECT_EQ(ParseOriginFrameEntry("https://a.example.test:8443"),
            Origin("https", "a.example.test", 8443));
  EXPECT_EQ(ParseOriginFrameEntry("HTTPS://A.Example.Test"),
            Origin("https", "a.example.test", 443));
  EXPECT_EQ(ParseOriginFrameEntry("https://[::1]:8443"),
            Origin("https", "::1", 8443));
  for (const char* bad :
       {"", "https://", "http://a.example.test", "a.example.test",
        "https://a.example.test/", "https://a.example.test/x",
        "https://a.example.test?q", "https://u@a.example.test",
        "https://a.example.test#f", "https://a.example.test:0",
        "https://a..test:99999", "ftp://a.example.test"}) {
    EXPECT_EQ(ParseOriginFrameEntry(bad), std::nullopt) << bad;
  }
}

// ORIGIN frames: the set is the session's own origin plus what the frames
// list; malformed and non-https entries and those past the bound are
// ignored and counted; a 421 takes an origin out for good.
TEST_F(Http2SessionTest, OriginFrameSetsWhatTheSessionMayCarry) {
  Http2SessionParams params;
  params.max_origin_set = 3;
  StartWithServer(
      [](const TestHeaders&, const std::string&) {
        return Http2TestServer::Response();
      },
      params);
  const Origin own("https", "example.test", 443);
  const Origin b("https", "b.example.test", 443);
  const Origin c("https", "c.example.test", 8443);
  const Origin d("https", "d.example.test", 443);
  loop_.RunUntilIdle();
  EXPECT_FALSE(session_->origin_frame_received());
  EXPECT_TRUE(session_->MayCarry(b));  // no ORIGIN yet: DNS decides
  server_->SendOrigin({"https://b.example.test", "http://x.example.test",
                       "not an origin", "https://c.example.test:8443"});
  loop_.RunUntilIdle();
  EXPECT_TRUE(session_->origin_frame_received());
  EXPECT_EQ(session_->origin_set(), (std::set<Origin>{b, c}));
  EXPECT_EQ(session_->origin_frame_entries_ignored(), 2u);
  EXPECT_TRUE(session_->MayCarry(own));
  EXPECT_TRUE(session_->MayCarry(b));
  EXPECT_TRUE(session_->MayCarry(c));
  EXPECT_FALSE(session_->MayCarry(d));
  // A second frame adds (up to the bound of 3).
  server_->SendOrigin({"https://d.example.test", "https://e.example.test",
                       "https://b.example.test"});
  loop_.RunUntilIdle();
  EXPECT_EQ(session_->origin_set(), (std::set<Origin>{b, c, d}));
  EXPECT_EQ(session_->origin_frame_entries_ignored(), 3u);
  EXPECT_FALSE(session_->MayCarry(Origin("https", "e.example.test", 443)));
  // 421 for b: out, and a later frame does not bring it back.
  session_->NoteMisdirected(b);
  EXPECT_FALSE(session_->MayCarry(b));
  EXPECT_TRUE(session_->WasMisdirected(b));
  server_->SendOrigin({"https://b.example.test"});
  loop_.RunUntilIdle();
  EXPECT_FALSE(session_->MayCarry(b));
  EXPECT_TRUE(session_->MayCarry(own));
  // The session is unharmed: a request still works.
  auto stream = Open();
  EXPECT_EQ(Fetch(stream.get(), "/"), OK);
}

TEST_F(Http2SessionTest, MisdirectedOriginsAreBounded) {
  Http2SessionParams params;
  params.max_misdirected = 2;
  StartWithServer(
      [](const TestHeaders&, const std::string&) {
        return Http2TestServer::Response();
      },
      params);
  const Origin a("https", "a.example.test", 443);
  const Origin b("https", "b.example.test", 443);
  const Origin c("https", "c.example.test", 443);
  session_->NoteMisdirected(a);
  EXPECT_TRUE(session_->MayCarry(c));
  session_->NoteMisdirected(b);
  session_->NoteMisdirected(c);  // past the bound: no other origin at all
  EXPECT_FALSE(session_->MayCarry(c));
  EXPECT_FALSE(session_->MayCarry(Origin("https", "z.example.test", 443)));
  EXPECT_TRUE(session_->MayCarry(Origin("https", "example.test", 443)));
}

}  // namespace
}  // namespace net
