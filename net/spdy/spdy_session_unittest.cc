// SpdySession and SpdyStream against a scripted SPDY/3 peer
// (TestSpdyPeer over an in-memory socket pair) and against scripted sockets
// (exact bytes): stream ids and priorities, SETTINGS, flow control both
// ways with 1 MB bodies and bounded buffering, PING, RST_STREAM, GOAWAY,
// refused push, idle close, protocol errors, cancellation, bounded control
// queues, and CREDENTIAL slots and proofs.

#include "net/spdy/spdy_session.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/obc_crypto.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/socket/socket_test_util.h"
#include "net/spdy/spdy_credential.h"
#include "net/spdy/spdy_session_pool.h"
#include "net/spdy/spdy_session_test_util.h"
#include "net/spdy/spdy_stream.h"

namespace net {
namespace {

std::string Body(size_t n) {
  std::string body(n, '\0');
  for (size_t i = 0; i < n; ++i) body[i] = static_cast<char>('a' + i % 23);
  return body;
}

SpdyHeaderBlock Request(const std::string& path) {
  return MakeSpdyRequestHeaders(
      "GET", *Url::Parse("https://a.test" + path),
      {{"User-Agent", "netstack"}, {"Connection", "keep-alive"}});
}

SpdySynReplyIR Reply(SpdyStreamId id, bool fin = false) {
  SpdySynReplyIR reply;
  reply.stream_id = id;
  reply.fin = fin;
  reply.headers = {{":status", "200 OK"}, {":version", "HTTP/1.1"}};
  return reply;
}

SpdyDataIR Data(SpdyStreamId id, std::string data, bool fin) {
  return SpdyDataIR{id, std::move(data), fin};
}

// ReadAll reads |stream|'s body to its end (or error, returned as *error).
std::string ReadAll(SpdyStream* stream, int* error = nullptr) {
  std::string out;
  auto buf = std::make_shared<IOBuffer>(7000);
  for (;;) {
    TestCompletionCallback cb;
    int rv = cb.GetResult(stream->ReadBody(buf, 7000, cb.callback()));
    if (rv <= 0) {
      if (error) *error = rv;
      return out;
    }
    out.append(buf->data(), rv);
  }
}

// SETTINGS with one entry, |id| = |value|.
SpdySettingsIR OneSetting(SpdySettingsId id, uint32_t value) {
  SpdySettingsIR settings;
  settings.entries = {{0, static_cast<uint32_t>(id), value}};
  return settings;
}

class SpdySessionTest : public testing::Test {
 protected:
  // Makes a session over a socket pair whose other end is peer_.
  void MakeSession(SpdySessionParams params = SpdySessionParams(),
                   size_t capacity = std::numeric_limits<size_t>::max()) {
    auto [client, server] = CreateFakeSocketPair(capacity);
    client_socket_ = client.get();
    if (params.origin == Origin())
      params.origin = Origin("https", "a.test", 443);
    session_ =
        std::make_unique<SpdySession>(std::move(client), std::move(params));
    session_->set_on_closed([this](SpdySession*) { closed_ = true; });
    peer_ = std::make_unique<TestSpdyPeer>(std::move(server));
    session_->Start();
  }

  std::unique_ptr<SpdyStream> NewStream(uint8_t priority = 3,
                                        const ClientCert* cert = nullptr,
                                        Origin origin = Origin("https",
                                                               "a.test", 443)) {
    SpdyStreamParams params;
    params.priority = priority;
    params.origin = origin;
    params.client_cert = cert;
    std::unique_ptr<SpdyStream> stream;
    EXPECT_EQ(OK, session_->CreateStream(params, &stream));
    return stream;
  }

  // A new stream (NewStream) whose GET of |path| went out: SendRequest was
  // pending, then succeeded.
  std::unique_ptr<SpdyStream> SentStream(const std::string& path = "/") {
    auto stream = NewStream();
    TestCompletionCallback send;
    int rv = stream->SendRequest(Request(path), "", send.callback());
    EXPECT_EQ(ERR_IO_PENDING, rv);
    EXPECT_EQ(OK, send.GetResult(rv));
    return stream;
  }

  void RunUntilIdle() { loop_.RunUntilIdle(); }
  template <typename Pred>
  bool RunUntil(Pred done) {
    return TestSpdyPeer::RunUntil(done);
  }

  EventLoop loop_;
  FakeStreamSocket* client_socket_ = nullptr;
  std::unique_ptr<SpdySession> session_;
  std::unique_ptr<TestSpdyPeer> peer_;
  bool closed_ = false;
};

TEST_F(SpdySessionTest, SimpleGet) {
  MakeSession();
  auto stream = NewStream();
  TestCompletionCallback send;
  ASSERT_EQ(ERR_IO_PENDING,
            stream->SendRequest(Request("/x?y=1"), "", send.callback()));
  EXPECT_EQ(OK, send.WaitForResult());
  EXPECT_EQ(1u, stream->stream_id());
  ASSERT_TRUE(RunUntil([&] { return peer_->frames().size() >= 2; }));
  // Our SETTINGS first, then the request with FIN and the SPDY/3 headers.
  auto settings = peer_->FramesOf<SpdySettingsIR>();
  ASSERT_EQ(1u, settings.size());
  ASSERT_TRUE(std::holds_alternative<SpdySettingsIR>(peer_->frames()[0]));
  auto syns = peer_->FramesOf<SpdySynStreamIR>();
  ASSERT_EQ(1u, syns.size());
  EXPECT_EQ(1u, syns[0].stream_id);
  EXPECT_TRUE(syns[0].fin);
  EXPECT_EQ(0, syns[0].slot);
  EXPECT_EQ("GET", syns[0].headers[":method"]);
  EXPECT_EQ("/x?y=1", syns[0].headers[":path"]);
  EXPECT_EQ("HTTP/1.1", syns[0].headers[":version"]);
  EXPECT_EQ("a.test", syns[0].headers[":host"]);
  EXPECT_EQ("https", syns[0].headers[":scheme"]);
  EXPECT_EQ("netstack", syns[0].headers["user-agent"]);
  EXPECT_EQ(0u, syns[0].headers.count("connection"));

  peer_->Send(Reply(1));
  peer_->Send(Data(1, "hello ", false));
  peer_->Send(Data(1, "world", true));
  TestCompletionCallback headers;
  EXPECT_EQ(OK,
            headers.GetResult(stream->ReadResponseHeaders(headers.callback())));
  EXPECT_EQ(200, SpdyResponseStatus(stream->response_headers()));
  int error = 1;
  EXPECT_EQ("hello world", ReadAll(stream.get(), &error));
  EXPECT_EQ(OK, error);
  EXPECT_TRUE(stream->closed());
  EXPECT_EQ(OK, stream->error());
  EXPECT_EQ(0u, session_->active_streams());
  EXPECT_TRUE(session_->IsAvailable());
}

// Scripted sockets: the exact bytes of SETTINGS + SYN_STREAM (built by an
// independent SpdyFramer, whose zlib stream matches ours), then a reply.
TEST_F(SpdySessionTest, ScriptedSocketExactBytes) {
  SpdyFramer expected_framer;
  SpdySettingsIR settings;
  settings.entries.push_back(
      {0, static_cast<uint32_t>(SpdySettingsId::kInitialWindowSize), 65536});
  SpdySynStreamIR syn;
  syn.stream_id = 1;
  syn.priority = 2;
  syn.fin = true;
  syn.headers = Request("/scripted");
  std::string expected = *expected_framer.SerializeFrame(settings) +
                         *expected_framer.SerializeFrame(syn);
  SpdyFramer server_framer;
  std::string reply = *server_framer.SerializeFrame(Reply(1)) +
                      *server_framer.SerializeData(1, "scripted body", true);
  MockWrite writes[] = {MockWrite(ASYNC, expected)};
  MockRead reads[] = {MockRead(ASYNC, reply), MockRead(ASYNC, ERR_IO_PENDING)};
  StaticSocketDataProvider data(reads, writes);
  auto socket = std::make_unique<MockTCPClientSocket>(
      &data, IPEndPoint(IPAddress::IPv4Localhost(), 443));
  TestCompletionCallback connect;
  ASSERT_EQ(OK, connect.GetResult(socket->Connect(connect.callback())));
  SpdySessionParams params;
  params.origin = Origin("https", "a.test", 443);
  session_ = std::make_unique<SpdySession>(std::move(socket), params);
  session_->Start();
  auto stream = NewStream(/*priority=*/2);
  TestCompletionCallback send;
  ASSERT_EQ(ERR_IO_PENDING,
            stream->SendRequest(Request("/scripted"), "", send.callback()));
  EXPECT_EQ(OK, send.WaitForResult());
  TestCompletionCallback headers;
  EXPECT_EQ(OK,
            headers.GetResult(stream->ReadResponseHeaders(headers.callback())));
  EXPECT_EQ("scripted body", ReadAll(stream.get()));
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty());
}

// Streams asked for before anything is written go out by priority, and
// their ids still increase on the wire.
TEST_F(SpdySessionTest, PrioritiesOrderWritesAndIdsIncrease) {
  MakeSession();
  std::vector<std::unique_ptr<SpdyStream>> streams;
  std::vector<TestCompletionCallback> sends(4);
  uint8_t priorities[] = {7, 0, 5, 3};
  for (int i = 0; i < 4; ++i) {
    streams.push_back(NewStream(priorities[i]));
    ASSERT_EQ(ERR_IO_PENDING,
              streams[i]->SendRequest(Request(absl::StrCat("/p", i)), "",
                                      sends[i].callback()));
  }
  for (auto& s : sends) EXPECT_EQ(OK, s.WaitForResult());
  ASSERT_TRUE(
      RunUntil([&] { return peer_->FramesOf<SpdySynStreamIR>().size() == 4; }));
  auto syns = peer_->FramesOf<SpdySynStreamIR>();
  std::vector<std::string> paths;
  std::vector<SpdyStreamId> ids;
  for (auto& syn : syns) {
    paths.push_back(syn.headers[":path"]);
    ids.push_back(syn.stream_id);
  }
  EXPECT_EQ((std::vector<std::string>{"/p1", "/p3", "/p2", "/p0"}), paths);
  EXPECT_EQ((std::vector<SpdyStreamId>{1, 3, 5, 7}), ids);
  EXPECT_EQ(1u, streams[1]->stream_id());
  EXPECT_EQ(7u, streams[0]->stream_id());
}

// DATA of a high-priority stream goes before a low one's when both wait.
TEST_F(SpdySessionTest, PriorityHonouredForData) {
  MakeSession();
  auto low = NewStream(6);
  auto high = NewStream(1);
  TestCompletionCallback low_sent, high_sent;
  ASSERT_EQ(ERR_IO_PENDING, low->SendRequest(Request("/low"), Body(40000),
                                             low_sent.callback()));
  ASSERT_EQ(ERR_IO_PENDING, high->SendRequest(Request("/high"), Body(40000),
                                              high_sent.callback()));
  EXPECT_EQ(OK, high_sent.WaitForResult());
  EXPECT_EQ(OK, low_sent.WaitForResult());
  ASSERT_TRUE(
      RunUntil([&] { return peer_->visitor().stream_ends.size() == 2; }));
  // The high-priority stream (id 1, written first) finished first.
  EXPECT_EQ(1u, high->stream_id());
  EXPECT_EQ((std::vector<SpdyStreamId>{1, 3}), peer_->visitor().stream_ends);
}

TEST_F(SpdySessionTest, MaxConcurrentStreamsMakesStreamsWait) {
  MakeSession();
  SpdySettingsIR settings;
  // A repeated id: only the first counts.
  settings.entries = {
      {0, static_cast<uint32_t>(SpdySettingsId::kMaxConcurrentStreams), 2},
      {0, static_cast<uint32_t>(SpdySettingsId::kMaxConcurrentStreams), 50}};
  peer_->Send(settings);
  ASSERT_TRUE(
      RunUntil([&] { return session_->max_concurrent_streams() == 2; }));
  std::vector<std::unique_ptr<SpdyStream>> streams;
  std::vector<TestCompletionCallback> sends(5);
  for (int i = 0; i < 5; ++i) {
    streams.push_back(NewStream());
    int rv = streams[i]->SendRequest(Request(absl::StrCat("/", i)), "",
                                     sends[i].callback());
    ASSERT_EQ(ERR_IO_PENDING, rv);
  }
  RunUntilIdle();
  EXPECT_EQ(2u, peer_->FramesOf<SpdySynStreamIR>().size());
  EXPECT_EQ(2u, session_->active_streams());
  EXPECT_EQ(3u, session_->waiting_streams());
  EXPECT_FALSE(sends[2].have_result());
  // Finish stream 1: the third request starts.
  peer_->Send(Reply(1, /*fin=*/true));
  ASSERT_TRUE(
      RunUntil([&] { return peer_->FramesOf<SpdySynStreamIR>().size() == 3; }));
  EXPECT_EQ(2u, session_->active_streams());
  // Raise the limit: the rest start.
  settings.entries = {
      {kSpdySettingsFlagPersistValue,
       static_cast<uint32_t>(SpdySettingsId::kMaxConcurrentStreams), 10}};
  settings.clear_settings = true;
  peer_->Send(settings);
  ASSERT_TRUE(
      RunUntil([&] { return peer_->FramesOf<SpdySynStreamIR>().size() == 5; }));
  for (auto& s : sends) EXPECT_EQ(OK, s.WaitForResult());
  EXPECT_EQ(10u, session_->peer_settings().at(4));
}

// A 1 MB upload flows through 64 KB windows; the client never sends more
// than the window the peer granted.
TEST_F(SpdySessionTest, OneMegabyteUploadThroughFlowControl) {
  MakeSession();
  const std::string body = Body(1 << 20);
  auto stream = NewStream();
  TestCompletionCallback send;
  ASSERT_EQ(ERR_IO_PENDING,
            stream->SendRequest(Request("/upload"), body, send.callback()));
  int64_t window = kSpdyInitialWindowSize;
  size_t seen_frames = 0, received = 0;
  std::string got;
  while (!send.have_result()) {
    RunUntilIdle();
    const auto& frames = peer_->frames();
    size_t consumed = 0;
    for (; seen_frames < frames.size(); ++seen_frames) {
      if (const auto* data = std::get_if<SpdyDataIR>(&frames[seen_frames])) {
        window -= data->data.size();
        ASSERT_GE(window, 0) << "client overran the window";
        got += data->data;
        consumed += data->data.size();
      }
    }
    received += consumed;
    if (consumed > 0) {
      SpdyWindowUpdateIR update;
      update.stream_id = 1;
      update.delta = static_cast<uint32_t>(consumed);
      window += consumed;
      peer_->Send(update);
    }
  }
  EXPECT_EQ(OK, send.WaitForResult());
  RunUntilIdle();
  for (; seen_frames < peer_->frames().size(); ++seen_frames)
    if (const auto* d = std::get_if<SpdyDataIR>(&peer_->frames()[seen_frames]))
      got += d->data;
  EXPECT_EQ(body.size(), got.size());
  EXPECT_TRUE(got == body);
  EXPECT_EQ((std::vector<SpdyStreamId>{1}), peer_->visitor().stream_ends);
  EXPECT_EQ(body.size(), stream->body_bytes_sent());
}

// A 1 MB download: the peer sends as the client's windows allow; the
// client replenishes them as its reader takes bytes, and never buffers
// more than one window.
TEST_F(SpdySessionTest, OneMegabyteDownloadThroughFlowControl) {
  MakeSession();
  auto stream = NewStream();
  TestCompletionCallback send;
  ASSERT_EQ(ERR_IO_PENDING,
            stream->SendRequest(Request("/big"), "", send.callback()));
  EXPECT_EQ(OK, send.WaitForResult());
  RunUntilIdle();
  peer_->Send(Reply(1));
  const std::string body = Body(1 << 20);
  int64_t window = kSpdyInitialWindowSize;
  size_t sent = 0, seen = 0;
  std::string got;
  size_t max_buffered = 0;
  auto buf = std::make_shared<IOBuffer>(5000);
  while (got.size() < body.size()) {
    // Peer: send what the window allows, in 16 KB frames.
    while (sent < body.size() && window > 0) {
      size_t n = std::min<size_t>(
          {16384, body.size() - sent, static_cast<size_t>(window)});
      peer_->Send(Data(1, body.substr(sent, n), sent + n == body.size()));
      sent += n;
      window -= n;
    }
    RunUntilIdle();
    max_buffered = std::max(max_buffered, stream->buffered_body_bytes());
    for (; seen < peer_->frames().size(); ++seen)
      if (const auto* u =
              std::get_if<SpdyWindowUpdateIR>(&peer_->frames()[seen]))
        window += u->delta;
    // Client: read one buffer.
    TestCompletionCallback read;
    int rv = stream->ReadBody(buf, 5000, read.callback());
    if (rv == ERR_IO_PENDING) rv = read.WaitForResult();
    ASSERT_GT(rv, 0);
    got.append(buf->data(), rv);
  }
  EXPECT_TRUE(ReadAll(stream.get()).empty());
  EXPECT_TRUE(got == body);
  EXPECT_LE(max_buffered, static_cast<size_t>(kSpdyInitialWindowSize));
  EXPECT_GT(session_->stats().window_updates_sent, 10u);
}

// A reader that never reads: the peer fills one window, no WINDOW_UPDATE
// comes, the stream holds exactly one window. Data beyond it is a flow
// control error.
TEST_F(SpdySessionTest, UnreadStreamBuffersOneWindowThenFlowControlError) {
  MakeSession();
  auto stream = SentStream();
  peer_->Send(Reply(1));
  for (int i = 0; i < 4; ++i) peer_->Send(Data(1, Body(16384), false));
  RunUntilIdle();
  EXPECT_EQ(65536u, stream->buffered_body_bytes());
  EXPECT_EQ(0, stream->recv_window());
  EXPECT_TRUE(peer_->FramesOf<SpdyWindowUpdateIR>().empty());
  peer_->Send(Data(1, "x", false));
  ASSERT_TRUE(
      RunUntil([&] { return !peer_->FramesOf<SpdyRstStreamIR>().empty(); }));
  auto rst = peer_->FramesOf<SpdyRstStreamIR>()[0];
  EXPECT_EQ(1u, rst.stream_id);
  EXPECT_EQ(SpdyRstStreamStatus::kFlowControlError, rst.status);
  // The bytes that arrived within the window are still readable, then the
  // error.
  int error = 0;
  EXPECT_EQ(65536u, ReadAll(stream.get(), &error).size());
  EXPECT_EQ(ERR_SPDY_FLOW_CONTROL_ERROR, error);
}

// SETTINGS_INITIAL_WINDOW_SIZE from the server limits our DATA; a change
// while a stream is open moves its window (here to negative), and a
// WINDOW_UPDATE overflowing 2^31-1 resets the stream.
TEST_F(SpdySessionTest, InitialWindowSizeSettings) {
  MakeSession();
  SpdySettingsIR settings =
      OneSetting(SpdySettingsId::kInitialWindowSize, 1000);
  peer_->Send(settings);
  ASSERT_TRUE(
      RunUntil([&] { return session_->peer_initial_window() == 1000; }));
  auto stream = NewStream();
  TestCompletionCallback send;
  stream->SendRequest(Request("/up"), Body(5000), send.callback());
  RunUntilIdle();
  auto data = peer_->FramesOf<SpdyDataIR>();
  ASSERT_EQ(1u, data.size());
  EXPECT_EQ(1000u, data[0].data.size());
  EXPECT_EQ(0, stream->send_window());
  // Shrink the initial window: the stream's window goes to -500.
  settings.entries[0].value = 500;
  peer_->Send(settings);
  RunUntilIdle();
  EXPECT_EQ(-500, stream->send_window());
  SpdyWindowUpdateIR update;
  update.stream_id = 1;
  update.delta = 1500;
  peer_->Send(update);
  RunUntilIdle();
  data = peer_->FramesOf<SpdyDataIR>();
  ASSERT_EQ(2u, data.size());
  EXPECT_EQ(1000u, data[1].data.size());
  EXPECT_FALSE(send.have_result());
  // Two updates that arrive together: the second overflows 2^31-1.
  update.delta = 0x7fffffff;
  peer_->Send(update);
  update.delta = 1;
  peer_->Send(update);
  EXPECT_EQ(ERR_SPDY_FLOW_CONTROL_ERROR, send.WaitForResult());
  ASSERT_TRUE(
      RunUntil([&] { return !peer_->FramesOf<SpdyRstStreamIR>().empty(); }));
  auto rst = peer_->FramesOf<SpdyRstStreamIR>();
  ASSERT_EQ(1u, rst.size());
  EXPECT_EQ(SpdyRstStreamStatus::kFlowControlError, rst[0].status);
}

TEST_F(SpdySessionTest, PingBothWays) {
  SimpleTestTickClock clock;
  SpdySessionParams params;
  params.clock = &clock;
  MakeSession(params);
  // The server's ping (even id) is echoed.
  SpdyPingIR server_ping;
  server_ping.id = 2;
  peer_->Send(server_ping);
  ASSERT_TRUE(RunUntil([&] { return !peer_->FramesOf<SpdyPingIR>().empty(); }));
  EXPECT_EQ(2u, peer_->FramesOf<SpdyPingIR>()[0].id);
  // Ours (odd ids) measure the round trip.
  TestCompletionCallback ping;
  ASSERT_EQ(ERR_IO_PENDING, session_->Ping(ping.callback()));
  ASSERT_TRUE(
      RunUntil([&] { return peer_->FramesOf<SpdyPingIR>().size() == 2; }));
  SpdyPingIR ours = peer_->FramesOf<SpdyPingIR>()[1];
  EXPECT_EQ(1u, ours.id);
  clock.Advance(absl::Milliseconds(42));
  // An echo of an id we never sent is ignored.
  SpdyPingIR stray;
  stray.id = 77;
  peer_->Send(stray);
  peer_->Send(ours);
  EXPECT_EQ(OK, ping.WaitForResult());
  EXPECT_EQ(absl::Milliseconds(42), session_->last_ping_rtt());
  EXPECT_TRUE(session_->IsAvailable());
}

TEST_F(SpdySessionTest, UnansweredPingClosesSession) {
  SpdySessionParams params;
  params.ping_timeout = absl::Milliseconds(30);
  MakeSession(params);
  auto stream = SentStream();
  TestCompletionCallback ping;
  ASSERT_EQ(ERR_IO_PENDING, session_->Ping(ping.callback()));
  EXPECT_EQ(ERR_SPDY_PING_FAILED, ping.WaitForResult());
  TestCompletionCallback headers;
  EXPECT_EQ(ERR_SPDY_PING_FAILED,
            headers.GetResult(stream->ReadResponseHeaders(headers.callback())));
  ASSERT_TRUE(RunUntil([&] { return closed_; }));
}

TEST_F(SpdySessionTest, RstStreamStatusesMapToErrors) {
  MakeSession();
  struct Case {
    SpdyRstStreamStatus status;
    int error;
  } cases[] = {
      {SpdyRstStreamStatus::kInvalidCredentials, ERR_SPDY_INVALID_CREDENTIALS},
      {SpdyRstStreamStatus::kRefusedStream, ERR_SPDY_SERVER_REFUSED_STREAM},
      {SpdyRstStreamStatus::kProtocolError, ERR_SPDY_PROTOCOL_ERROR},
      {SpdyRstStreamStatus::kFlowControlError, ERR_SPDY_FLOW_CONTROL_ERROR},
      {SpdyRstStreamStatus::kCancel, ERR_SPDY_STREAM_RESET},
      {SpdyRstStreamStatus::kInternalError, ERR_SPDY_STREAM_RESET},
      {SpdyRstStreamStatus::kFrameTooLarge, ERR_SPDY_FRAME_SIZE_ERROR},
  };
  for (const Case& c : cases) {
    auto stream = SentStream();
    SpdyRstStreamIR rst;
    rst.stream_id = stream->stream_id();
    rst.status = c.status;
    peer_->Send(rst);
    TestCompletionCallback headers;
    EXPECT_EQ(c.error, headers.GetResult(
                           stream->ReadResponseHeaders(headers.callback())))
        << ToString(c.status);
  }
  EXPECT_TRUE(IsSpdyRetryableError(ERR_SPDY_INVALID_CREDENTIALS));
  EXPECT_TRUE(IsSpdyRetryableError(ERR_SPDY_SERVER_REFUSED_STREAM));
  EXPECT_FALSE(IsSpdyRetryableError(ERR_SPDY_STREAM_RESET));
  // We never answer a RST_STREAM with one.
  RunUntilIdle();
  EXPECT_TRUE(peer_->FramesOf<SpdyRstStreamIR>().empty());
  EXPECT_TRUE(session_->IsAvailable());
}

// Destroying a stream cancels it: RST_STREAM CANCEL on the wire, no
// callback, and its late data is ignored.
TEST_F(SpdySessionTest, DestroyingAStreamCancelsIt) {
  MakeSession();
  auto stream = SentStream();
  TestCompletionCallback headers;
  ASSERT_EQ(ERR_IO_PENDING, stream->ReadResponseHeaders(headers.callback()));
  stream.reset();
  ASSERT_TRUE(
      RunUntil([&] { return !peer_->FramesOf<SpdyRstStreamIR>().empty(); }));
  auto rst = peer_->FramesOf<SpdyRstStreamIR>()[0];
  EXPECT_EQ(1u, rst.stream_id);
  EXPECT_EQ(SpdyRstStreamStatus::kCancel, rst.status);
  peer_->Send(Reply(1));
  peer_->Send(Data(1, "late", true));
  RunUntilIdle();
  EXPECT_FALSE(headers.have_result());
  EXPECT_EQ(1u, peer_->FramesOf<SpdyRstStreamIR>().size());
  EXPECT_TRUE(session_->IsAvailable());
  EXPECT_EQ(0u, session_->active_streams());
  // A stream destroyed while waiting for a slot just leaves the queue.
  peer_->Send(OneSetting(SpdySettingsId::kMaxConcurrentStreams, 0));
  ASSERT_TRUE(
      RunUntil([&] { return session_->max_concurrent_streams() == 0; }));
  auto waiting = NewStream();
  TestCompletionCallback waiting_send;
  EXPECT_EQ(ERR_IO_PENDING,
            waiting->SendRequest(Request("/w"), "", waiting_send.callback()));
  EXPECT_EQ(1u, session_->waiting_streams());
  waiting.reset();
  EXPECT_EQ(0u, session_->waiting_streams());
  RunUntilIdle();
  EXPECT_FALSE(waiting_send.have_result());
}

TEST_F(SpdySessionTest, GoAwayRefusesStreamsAboveLastGood) {
  MakeSession();
  std::vector<std::unique_ptr<SpdyStream>> streams;
  std::vector<TestCompletionCallback> sends(3);
  for (int i = 0; i < 3; ++i) {
    streams.push_back(NewStream());
    streams[i]->SendRequest(Request(absl::StrCat("/", i)), "",
                            sends[i].callback());
  }
  for (auto& s : sends) EXPECT_EQ(OK, s.WaitForResult());
  SpdyGoAwayIR goaway;
  goaway.last_good_stream_id = 1;
  peer_->Send(goaway);
  TestCompletionCallback h3, h5;
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM,
            h3.GetResult(streams[1]->ReadResponseHeaders(h3.callback())));
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM,
            h5.GetResult(streams[2]->ReadResponseHeaders(h5.callback())));
  EXPECT_FALSE(session_->IsAvailable());
  // No new streams.
  std::unique_ptr<SpdyStream> late;
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM,
            session_->CreateStream(SpdyStreamParams(), &late));
  // Stream 1 completes; then the session closes by itself.
  peer_->Send(Reply(1));
  peer_->Send(Data(1, "still served", true));
  TestCompletionCallback h1;
  EXPECT_EQ(OK, h1.GetResult(streams[0]->ReadResponseHeaders(h1.callback())));
  EXPECT_EQ("still served", ReadAll(streams[0].get()));
  ASSERT_TRUE(RunUntil([&] { return closed_; }));
  EXPECT_EQ(OK, session_->error());
  // Nothing was sent after the GOAWAY but what the open stream needed.
  EXPECT_EQ(3u, peer_->FramesOf<SpdySynStreamIR>().size());
}

TEST_F(SpdySessionTest, GoAwayWithErrorThenCloseIsANamedError) {
  MakeSession();
  auto stream = NewStream();
  auto above = NewStream();
  TestCompletionCallback send, send_above;
  stream->SendRequest(Request("/"), "", send.callback());
  EXPECT_EQ(OK, send.WaitForResult());
  above->SendRequest(Request("/above"), "", send_above.callback());
  EXPECT_EQ(OK, send_above.WaitForResult());
  SpdyGoAwayIR goaway;
  goaway.last_good_stream_id = 1;
  goaway.status = SpdyGoAwayStatus::kProtocolError;
  peer_->Send(goaway);
  // Above the last good id: not retried, the named error.
  TestCompletionCallback above_headers;
  EXPECT_EQ(ERR_SPDY_GOAWAY_ERROR,
            above_headers.GetResult(
                above->ReadResponseHeaders(above_headers.callback())));
  peer_->Close();
  TestCompletionCallback headers;
  EXPECT_EQ(ERR_SPDY_GOAWAY_ERROR,
            headers.GetResult(stream->ReadResponseHeaders(headers.callback())));
  EXPECT_EQ(ERR_SPDY_GOAWAY_ERROR, session_->error());
}

// Streams whose SYN_STREAM never went out when the connection dropped are
// retryable; open ones get ERR_CONNECTION_CLOSED.
TEST_F(SpdySessionTest, ConnectionClosedFailsStreams) {
  MakeSession();
  peer_->Send(OneSetting(SpdySettingsId::kMaxConcurrentStreams, 1));
  ASSERT_TRUE(
      RunUntil([&] { return session_->max_concurrent_streams() == 1; }));
  auto open = NewStream();
  auto waiting = NewStream();
  TestCompletionCallback s1, s2;
  open->SendRequest(Request("/1"), "", s1.callback());
  EXPECT_EQ(OK, s1.WaitForResult());
  EXPECT_EQ(ERR_IO_PENDING,
            waiting->SendRequest(Request("/2"), "", s2.callback()));
  peer_->Close();
  EXPECT_EQ(ERR_SPDY_SERVER_REFUSED_STREAM, s2.WaitForResult());
  TestCompletionCallback h1;
  EXPECT_EQ(ERR_CONNECTION_CLOSED,
            h1.GetResult(open->ReadResponseHeaders(h1.callback())));
  ASSERT_TRUE(RunUntil([&] { return closed_; }));
}

TEST_F(SpdySessionTest, ServerPushIsRefusedWithoutHarm) {
  MakeSession();
  auto stream = SentStream("/page");
  peer_->Send(Reply(1));
  SpdySynStreamIR push;
  push.stream_id = 2;
  push.associated_stream_id = 1;
  push.unidirectional = true;
  push.headers = {{":scheme", "https"},
                  {":host", "a.test"},
                  {":path", "/pushed.css"},
                  {":status", "200"},
                  {":version", "HTTP/1.1"}};
  peer_->Send(push);
  peer_->Send(Data(2, "body { }", true));
  peer_->Send(Data(1, "the page", true));
  EXPECT_EQ("the page", ReadAll(stream.get()));
  ASSERT_TRUE(
      RunUntil([&] { return !peer_->FramesOf<SpdyRstStreamIR>().empty(); }));
  auto rst = peer_->FramesOf<SpdyRstStreamIR>();
  ASSERT_EQ(1u, rst.size());
  EXPECT_EQ(2u, rst[0].stream_id);
  EXPECT_EQ(SpdyRstStreamStatus::kRefusedStream, rst[0].status);
  EXPECT_EQ(1u, session_->stats().pushes_refused);
  EXPECT_TRUE(session_->IsAvailable());
  // A server stream with an odd id is a session error.
  push.stream_id = 3;
  peer_->Send(push);
  ASSERT_TRUE(RunUntil([&] { return closed_ && peer_->eof(); }));
  EXPECT_EQ(ERR_SPDY_PROTOCOL_ERROR, session_->error());
  auto goaways = peer_->FramesOf<SpdyGoAwayIR>();
  ASSERT_EQ(1u, goaways.size());
  EXPECT_EQ(SpdyGoAwayStatus::kProtocolError, goaways[0].status);
}

TEST_F(SpdySessionTest, IdleSessionSendsGoAwayAndCloses) {
  SpdySessionParams params;
  params.idle_timeout = absl::Milliseconds(20);
  MakeSession(params);
  auto stream = SentStream();
  peer_->Send(Reply(1, /*fin=*/true));
  TestCompletionCallback headers;
  EXPECT_EQ(OK,
            headers.GetResult(stream->ReadResponseHeaders(headers.callback())));
  EXPECT_EQ(0u, session_->active_streams());
  // Busy sessions are not idle: the timer starts only now.
  TestCompletionCallback closed;
  session_->set_on_closed([&](SpdySession*) { closed.callback()(OK); });
  EXPECT_EQ(OK, closed.WaitForResult());
  ASSERT_TRUE(RunUntil([&] { return peer_->eof(); }));
  auto goaways = peer_->FramesOf<SpdyGoAwayIR>();
  ASSERT_EQ(1u, goaways.size());
  EXPECT_EQ(SpdyGoAwayStatus::kOk, goaways[0].status);
  EXPECT_EQ(SpdySession::State::kClosed, session_->state());
}

TEST_F(SpdySessionTest, FramingErrorSendsGoAwayProtocolError) {
  MakeSession();
  auto stream = SentStream();
  // A control frame of version 2.
  peer_->SendRaw(HexDecode("80 02 00 06 00 00 00 04 00 00 00 01"));
  TestCompletionCallback headers;
  EXPECT_EQ(ERR_SPDY_PROTOCOL_ERROR,
            headers.GetResult(stream->ReadResponseHeaders(headers.callback())));
  ASSERT_TRUE(RunUntil([&] { return closed_ && peer_->eof(); }));
  auto goaways = peer_->FramesOf<SpdyGoAwayIR>();
  ASSERT_EQ(1u, goaways.size());
  EXPECT_EQ(SpdyGoAwayStatus::kProtocolError, goaways[0].status);
  EXPECT_NE(std::string::npos,
            session_->error_detail().find("UNSUPPORTED_VERSION"));
}

TEST_F(SpdySessionTest, StreamProtocolErrors) {
  MakeSession();
  // DATA before SYN_REPLY.
  auto a = SentStream("/a");
  peer_->Send(Data(1, "early", false));
  TestCompletionCallback ha;
  EXPECT_EQ(ERR_SPDY_PROTOCOL_ERROR,
            ha.GetResult(a->ReadResponseHeaders(ha.callback())));
  // A SYN_REPLY without :status.
  auto b = SentStream("/b");
  SpdySynReplyIR bad;
  bad.stream_id = 3;
  bad.headers = {{":version", "HTTP/1.1"}};
  peer_->Send(bad);
  TestCompletionCallback hb;
  EXPECT_EQ(ERR_SPDY_PROTOCOL_ERROR,
            hb.GetResult(b->ReadResponseHeaders(hb.callback())));
  // A duplicate SYN_REPLY.
  auto c = SentStream("/c");
  peer_->Send(Reply(5));
  peer_->Send(Reply(5));
  RunUntilIdle();
  std::vector<SpdyRstStreamStatus> statuses;
  for (auto& rst : peer_->FramesOf<SpdyRstStreamIR>())
    statuses.push_back(rst.status);
  EXPECT_EQ(
      (std::vector<SpdyRstStreamStatus>{SpdyRstStreamStatus::kProtocolError,
                                        SpdyRstStreamStatus::kProtocolError,
                                        SpdyRstStreamStatus::kStreamInUse}),
      statuses);
  EXPECT_TRUE(session_->IsAvailable());
}

// A peer that sends PINGs and never reads our echoes cannot make us queue
// without bound.
TEST_F(SpdySessionTest, ControlQueueIsBounded) {
  SpdySessionParams params;
  params.max_queued_control_bytes = 64 * 1024;
  MakeSession(params, /*capacity=*/16 * 1024);
  peer_->PauseReading();
  SpdyPingIR ping;
  std::string flood;
  SpdyFramer framer;
  for (uint32_t id = 2; id < 2 * 20000; id += 2) {
    ping.id = id;
    flood += *framer.SerializeFrame(ping);
  }
  // Write the flood in pieces as the client reads it.
  size_t pos = 0;
  while (pos < flood.size() && !closed_) {
    peer_->SendRaw(flood.substr(pos, 8192));
    pos += 8192;
    RunUntilIdle();
  }
  ASSERT_TRUE(RunUntil([&] { return closed_; }));
  EXPECT_EQ(ERR_INSUFFICIENT_RESOURCES, session_->error());
  EXPECT_LE(session_->stats().max_queued_control_bytes, 64 * 1024 + 16u);
}

// Destroying the session fails its streams (ERR_ABORTED) and their pending
// callbacks still run; the streams can then be destroyed safely.
TEST_F(SpdySessionTest, DestroyingTheSessionAbortsStreams) {
  MakeSession();
  auto stream = SentStream();
  TestCompletionCallback headers;
  ASSERT_EQ(ERR_IO_PENDING, stream->ReadResponseHeaders(headers.callback()));
  session_.reset();
  EXPECT_EQ(ERR_ABORTED, headers.WaitForResult());
  EXPECT_EQ(nullptr, stream->session());
  stream.reset();
}

TEST_F(SpdySessionTest, HeadersFrameAddsHeadersAndFin) {
  MakeSession();
  auto stream = SentStream();
  peer_->Send(Reply(1));
  peer_->Send(Data(1, "body", false));
  SpdyHeadersIR trailers;
  trailers.stream_id = 1;
  trailers.fin = true;
  trailers.headers = {{"x-trailer", "t"}};
  peer_->Send(trailers);
  EXPECT_EQ("body", ReadAll(stream.get()));
  EXPECT_EQ("t", stream->response_headers().at("x-trailer"));
  EXPECT_TRUE(stream->closed());
}

// A peer that keeps sending HEADERS for a stream cannot grow its headers
// past the header-block limit: the stream is reset with a named error once
// the merged headers would exceed it.
TEST_F(SpdySessionTest, HeadersFramesCannotGrowAStreamsHeadersWithoutBound) {
  SpdySessionParams params;
  params.limits.max_header_block_bytes = 4096;
  MakeSession(params);
  auto stream = SentStream();
  TestCompletionCallback headers;
  peer_->Send(Reply(1));
  EXPECT_EQ(OK,
            headers.GetResult(stream->ReadResponseHeaders(headers.callback())));
  for (int i = 0; i < 8 && !stream->closed(); ++i) {
    SpdyHeadersIR more;
    more.stream_id = 1;
    more.headers = {{"x-more", std::string(1000, 'a' + i)}};
    peer_->Send(more);
    RunUntilIdle();
  }
  ASSERT_TRUE(RunUntil([&] { return stream->closed(); }));
  EXPECT_EQ(ERR_RESPONSE_HEADERS_TOO_BIG, stream->error());
  size_t total = 0;
  for (const auto& [name, value] : stream->response_headers())
    total += name.size() + value.size();
  EXPECT_LE(total, 4096u);
}

TEST(SpdySessionPoolTest, FindsByOriginAndPoolsByAddress) {
  EventLoop loop;
  const Origin a("https", "a.test", 443), b("https", "b.test", 443),
      c("https", "c.test", 443);
  std::vector<Origin> asked;
  SpdySessionPool pool([&](const SpdySession& session, const Origin& origin) {
    asked.push_back(origin);
    return origin != c;  // the certificate covers a and b, not c
  });
  auto [client, server] = CreateFakeSocketPair();  // peer 127.0.0.1:443
  SpdySessionParams params;
  params.origin = a;
  SpdySession* session = pool.InsertSession(
      std::make_unique<SpdySession>(std::move(client), params));
  session->Start();
  TestSpdyPeer peer(std::move(server));
  EXPECT_EQ(session, pool.FindAvailableSession(a));
  EXPECT_EQ(nullptr, pool.FindAvailableSession(b));
  const IPEndPoint here(IPAddress::IPv4Localhost(), 443);
  const IPEndPoint elsewhere(IPAddress::IPv4(10, 0, 0, 1), 443);
  EXPECT_EQ(nullptr, pool.FindSessionForPooling(b, {elsewhere}));
  EXPECT_EQ(session, pool.FindSessionForPooling(b, {elsewhere, here}));
  EXPECT_EQ(session, pool.FindAvailableSession(b));  // now an alias
  EXPECT_EQ(nullptr, pool.FindSessionForPooling(c, {here}));
  EXPECT_EQ((std::vector<Origin>{b, c}), asked);
  EXPECT_EQ(1u, pool.pooled_lookups());
  // A GOAWAY: nothing is found any more; once closed, the session is gone.
  SpdyGoAwayIR goaway;
  peer.Send(goaway);
  ASSERT_TRUE(
      TestSpdyPeer::RunUntil([&] { return pool.session_count() == 0; }));
  EXPECT_EQ(nullptr, pool.FindAvailableSession(a));
  EXPECT_EQ(nullptr, pool.FindAvailableSession(b));
}

// --- CREDENTIAL --------------------------------------------------------------

class SpdyCredentialSessionTest : public SpdySessionTest {
 protected:
  static ClientCert MakeCert(KeyAlgorithm algorithm) {
    absl::StatusOr<ObcKeyMaterial> m = MakeKeyMaterial(algorithm, absl::Now());
    EXPECT_TRUE(m.ok());
    ClientCert cert;
    cert.cert_der = m->cert_der;
    cert.key = std::move(m->key);
    return cert;
  }
  const std::string secret_ = std::string(32, '\x5a');
};

TEST_F(SpdyCredentialSessionTest, PooledOriginGetsItsOwnSlotAndProof) {
  ClientCert cert_a = MakeCert(KeyAlgorithm::kEcdsaP256);
  ClientCert cert_b = MakeCert(KeyAlgorithm::kEcdsaP256);
  ClientCert cert_c = MakeCert(KeyAlgorithm::kRsa2048);
  SpdySessionParams params;
  params.handshake_cert_der = cert_a.cert_der;
  int exports = 0;
  params.export_keying_material = [&](absl::string_view label, size_t length,
                                      std::string* out) {
    ++exports;
    EXPECT_EQ(kSpdyCredentialExporterLabel, label);
    EXPECT_EQ(32u, length);
    *out = secret_;
    return OK;
  };
  MakeSession(params);
  const Origin a("https", "a.test", 443), b("https", "b.test", 443),
      c("https", "c.test", 443);
  auto get = [&](const ClientCert* cert, const Origin& origin) {
    auto stream = NewStream(3, cert, origin);
    TestCompletionCallback send;
    EXPECT_EQ(OK, send.GetResult(
                      stream->SendRequest(Request("/"), "", send.callback())));
    return stream;
  };
  auto sa = get(&cert_a, a);    // the handshake's certificate: slot 0
  auto sb = get(&cert_b, b);    // CREDENTIAL into slot 2 (slot 1 = handshake)
  auto sb2 = get(&cert_b, b);   // the same slot, no new CREDENTIAL
  auto sa_b = get(&cert_a, b);  // b under an eTLD+1-shared OBC: slot 1
  auto sc = get(&cert_c, c);    // RSA: slot 3
  RunUntil([&] { return peer_->FramesOf<SpdySynStreamIR>().size() == 5; });
  EXPECT_EQ(0, sa->credential_slot());
  EXPECT_FALSE(sa->sent_credential());
  EXPECT_EQ(2, sb->credential_slot());
  EXPECT_TRUE(sb->sent_credential());
  EXPECT_EQ(2, sb2->credential_slot());
  EXPECT_FALSE(sb2->sent_credential());
  EXPECT_EQ(1, sa_b->credential_slot());
  EXPECT_EQ(3, sc->credential_slot());
  EXPECT_EQ(1, exports);  // the keying material is exported once

  // On the wire: each CREDENTIAL immediately before the SYN_STREAM naming
  // its slot, proofs that verify against the certificates.
  std::vector<std::string> order;
  for (const SpdyFrameIR& f : peer_->frames()) {
    if (auto* cred = std::get_if<SpdyCredentialIR>(&f)) {
      order.push_back(absl::StrCat("CREDENTIAL ", cred->slot));
      ASSERT_EQ(1u, cred->certificates.size());
      EXPECT_TRUE(
          VerifySpdyCredentialProof(cred->proof, secret_, cred->certificates[0])
              .ok());
      EXPECT_EQ(cred->slot == 2 ? cert_b.cert_der : cert_c.cert_der,
                cred->certificates[0]);
    } else if (auto* syn = std::get_if<SpdySynStreamIR>(&f)) {
      order.push_back(absl::StrCat("SYN ", syn->stream_id, " slot ",
                                   static_cast<int>(syn->slot)));
    }
  }
  EXPECT_EQ((std::vector<std::string>{
                "SYN 1 slot 0", "CREDENTIAL 2", "SYN 3 slot 2", "SYN 5 slot 2",
                "SYN 7 slot 1", "CREDENTIAL 3", "SYN 9 slot 3"}),
            order);

  // The server shrinks the vector to nothing: a new certificate cannot be
  // sent.
  peer_->Send(OneSetting(SpdySettingsId::kClientCertificateVectorSize, 0));
  ASSERT_TRUE(
      RunUntil([&] { return session_->credential_state().num_slots() == 0; }));
  ClientCert cert_d = MakeCert(KeyAlgorithm::kEd25519);
  auto sd = NewStream(3, &cert_d, Origin("https", "d.test", 443));
  TestCompletionCallback send;
  EXPECT_EQ(ERR_SPDY_CREDENTIAL_UNAVAILABLE,
            send.GetResult(sd->SendRequest(Request("/"), "", send.callback())));
  EXPECT_TRUE(session_->IsAvailable());
}

TEST_F(SpdyCredentialSessionTest, NoExporterMeansNoCredential) {
  ClientCert cert = MakeCert(KeyAlgorithm::kEcdsaP256);
  MakeSession();  // plain SPDY: no exporter
  auto stream = NewStream(3, &cert, Origin("https", "b.test", 443));
  TestCompletionCallback send;
  EXPECT_EQ(
      ERR_SPDY_CREDENTIAL_UNAVAILABLE,
      send.GetResult(stream->SendRequest(Request("/"), "", send.callback())));
  RunUntilIdle();
  EXPECT_TRUE(peer_->FramesOf<SpdyCredentialIR>().empty());
  EXPECT_TRUE(peer_->FramesOf<SpdySynStreamIR>().empty());
}

TEST(SpdyCredentialTest, ProofsVerifyForEveryAlgorithmAndNotOtherwise) {
  const std::string secret(32, '\x11');
  for (KeyAlgorithm algorithm : kAllKeyAlgorithms) {
    SCOPED_TRACE(KeyAlgorithmToString(algorithm));
    absl::StatusOr<ObcKeyMaterial> m = MakeKeyMaterial(algorithm, absl::Now());
    ASSERT_TRUE(m.ok());
    absl::StatusOr<SpdyCredentialIR> frame =
        BuildSpdyCredentialFrame(4, secret, {m->cert_der}, m->key.get());
    ASSERT_TRUE(frame.ok()) << frame.status();
    EXPECT_EQ(4, frame->slot);
    EXPECT_TRUE(
        VerifySpdyCredentialProof(frame->proof, secret, m->cert_der).ok());
    // Another secret (another connection), a flipped byte, another
    // certificate, garbage: all refused.
    EXPECT_FALSE(VerifySpdyCredentialProof(frame->proof,
                                           std::string(32, '\x12'), m->cert_der)
                     .ok());
    std::string flipped = frame->proof;
    flipped[flipped.size() - 3] ^= 1;
    EXPECT_FALSE(VerifySpdyCredentialProof(flipped, secret, m->cert_der).ok());
    absl::StatusOr<ObcKeyMaterial> other =
        MakeKeyMaterial(algorithm, absl::Now());
    EXPECT_FALSE(
        VerifySpdyCredentialProof(frame->proof, secret, other->cert_der).ok());
    EXPECT_FALSE(
        VerifySpdyCredentialProof(frame->proof, secret, "not a cert").ok());
    EXPECT_FALSE(
        VerifySpdyCredentialProof(frame->proof + "x", secret, m->cert_der)
            .ok());
  }
  EXPECT_FALSE(BuildSpdyCredentialFrame(0, secret, {"x"}, nullptr).ok());
}

TEST(SpdyCredentialTest, StateSlots) {
  SpdyCredentialState state;
  EXPECT_EQ(8u, state.num_slots());
  state.SetHandshakeCertificate("handshake");
  EXPECT_EQ(1u, state.FindSlot("handshake"));
  EXPECT_EQ(0u, state.FindSlot("c2"));
  for (int i = 2; i <= 8; ++i)
    EXPECT_EQ(static_cast<size_t>(i), state.Assign(absl::StrCat("c", i)));
  EXPECT_EQ(8u, state.used_slots());
  // Full: the least recently used goes. Touch 1 and 2 first.
  state.FindSlot("handshake");
  state.FindSlot("c2");
  EXPECT_EQ(3u, state.Assign("c9"));
  EXPECT_EQ(0u, state.FindSlot("c3"));
  // Shrinking keeps the low slots.
  state.Resize(2);
  EXPECT_EQ(1u, state.FindSlot("handshake"));
  EXPECT_EQ(2u, state.FindSlot("c2"));
  EXPECT_EQ(0u, state.FindSlot("c9"));
  state.Resize(1000);
  EXPECT_EQ(kSpdyMaxCredentialSlots, state.num_slots());
  state.Release(2);
  EXPECT_EQ(0u, state.FindSlot("c2"));
  state.Resize(0);
  EXPECT_EQ(0u, state.Assign("x"));
}

TEST(SpdyStreamHelpersTest, RequestHeadersAndStatus) {
  SpdyHeaderBlock h =
      MakeSpdyRequestHeaders("POST", *Url::Parse("https://b.test:8443/p?q=1"),
                             {{"Cookie", "a=1"},
                              {"cookie", "b=2"},
                              {"Host", "x"},
                              {"Transfer-Encoding", "chunked"},
                              {"Accept", "*/*"}});
  EXPECT_EQ("POST", h[":method"]);
  EXPECT_EQ("/p?q=1", h[":path"]);
  EXPECT_EQ("b.test:8443", h[":host"]);
  EXPECT_EQ("https", h[":scheme"]);
  EXPECT_EQ(std::string("a=1\0b=2", 7), h["cookie"]);
  EXPECT_EQ(0u, h.count("host"));
  EXPECT_EQ(0u, h.count("transfer-encoding"));
  EXPECT_EQ(200, SpdyResponseStatus({{":status", "200 OK"}}));
  EXPECT_EQ(404, SpdyResponseStatus({{":status", "404"}}));
  EXPECT_EQ(-1, SpdyResponseStatus({{":status", "OK"}}));
  EXPECT_EQ(-1, SpdyResponseStatus({}));
}

}  // namespace
}  // namespace net
