// QuicSession and Http3Session against ngtcp2's own HTTP/3 server
// (gtlsserver, Debian's ngtcp2-server 1.11, GnuTLS) over loopback UDP with
// cert/testdata's chains, and against UDP ports that never answer or
// answer junk: the handshake with our verifier (and its failures by name),
// one request, 20 multiplexed on one connection, a 10 MB body held to the
// stream window while unread, a lossy server (packets lost counted and the
// body intact), a server that stops answering (the idle timeout holds), no
// server (ICMP: refused at once), a dropped UDP path and a junk answerer
// (the handshake timeout holds), cancelling a stream mid-body.

#include "net/quic/http3_session.h"

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "cert/basic_cert_verifier.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/quic/quic_test_server.h"
#include "net/socket/udp_client_socket.h"

namespace net {
namespace {

std::string Htdocs() {
  const char* tmp = getenv("TEST_TMPDIR");
  return absl::StrCat(tmp ? tmp : "/tmp", "/htdocs");
}

std::string PseudoRandom(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    s[i] = static_cast<char>(x >> 24);
  }
  return s;
}

Http3Headers Get(const std::string& path,
                 const std::string& authority = "www.example.test") {
  return {{":method", "GET"},
          {":scheme", "https"},
          {":authority", authority},
          {":path", path},
          {"user-agent", "netstack-test"}};
}

class Http3SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = *std::move(verifier);
    context_ = std::make_unique<QuicClientContext>(verifier_.get());
    ASSERT_TRUE(context_->ok());
    WriteHtdocsFile(Htdocs(), "hello.txt", "hello over h3\n");
  }

  bool StartServer(GtlsServer::Options options = {}) {
    if (!GtlsServer::Available()) {
      ADD_FAILURE() << "gtlsserver missing: tools/setup.sh installs "
                       "ngtcp2-server";
      return false;
    }
    options.htdocs = Htdocs();
    std::string why;
    if (!server_.Start(options, &why)) {
      ADD_FAILURE() << why;
      return false;
    }
    return true;
  }

  std::unique_ptr<Http3Session> NewSession(QuicSessionParams params = {}) {
    if (params.host.empty()) params.host = "www.example.test";
    auto quic = std::make_unique<QuicSession>(
        std::make_unique<UDPClientSocket>(), context_.get(), params);
    Http3SessionParams h3;
    h3.origin = Origin("https", params.host, 443);
    return std::make_unique<Http3Session>(std::move(quic), h3);
  }

  int Connect(Http3Session* session, const IPEndPoint& peer) {
    TestCompletionCallback cb;
    return cb.GetResult(session->Connect(peer, cb.callback()));
  }

  // Sends GET |path| and reads the whole response; returns the status or a
  // net error; the body in |*body|.
  int Fetch(Http3Session* session, const std::string& path, std::string* body) {
    std::unique_ptr<Http3SessionStream> stream;
    int rv = session->CreateStream(&stream);
    if (rv != OK) return rv;
    TestCompletionCallback cb;
    rv = cb.GetResult(stream->SendRequest(Get(path), "", cb.callback()));
    if (rv != OK) return rv;
    rv = cb.GetResult(stream->ReadResponseHeaders(cb.callback()));
    if (rv != OK) return rv;
    auto buf = std::make_shared<IOBuffer>(64 * 1024);
    for (;;) {
      rv = cb.GetResult(stream->ReadBody(buf, 64 * 1024, cb.callback()));
      if (rv < 0) return rv;
      if (rv == 0) break;
      body->append(buf->data(), rv);
    }
    return stream->status();
  }

  // Runs the loop until |done| holds or |timeout| passes; whether it holds.
  // For what the server sends after a response (a NEW_TOKEN frame after a
  // 0-RTT exchange's answer).
  bool RunUntil(const std::function<bool()>& done, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (!done() && absl::Now() < deadline) {
      OneShotTimer tick;
      tick.Start(absl::Milliseconds(10), [&] { loop_.Quit(); });
      loop_.Run();
    }
    return done();
  }

  EventLoop loop_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<QuicClientContext> context_;
  GtlsServer server_;
};

TEST_F(Http3SessionTest, HandshakeAndOneRequest) {
  ASSERT_TRUE(StartServer());
  auto session = NewSession();
  ASSERT_EQ(OK, Connect(session.get(), server_.endpoint()));
  EXPECT_TRUE(session->IsAvailable());
  const SSLInfo& ssl = session->quic()->ssl_info();
  EXPECT_EQ(ssl.version, "TLSv1.3");
  EXPECT_EQ(ssl.alpn, "h3");
  EXPECT_FALSE(ssl.cipher.empty());
  EXPECT_EQ(ssl.cert_verify.error, OK);
  EXPECT_EQ(ssl.peer_cert_count, 2);
  std::string body;
  EXPECT_EQ(200, Fetch(session.get(), "/hello.txt", &body));
  EXPECT_EQ(body, "hello over h3\n");
  QuicConnectionFacts facts = session->quic()->facts();
  EXPECT_EQ(facts.version, 1u);
  EXPECT_FALSE(facts.handshake_done.is_null());
  EXPECT_GE(facts.handshake_done, facts.connect_start);
  EXPECT_GT(facts.packets.sent, 2u);
  EXPECT_GT(facts.packets.received, 2u);
  EXPECT_GT(facts.smoothed_rtt, absl::ZeroDuration());
  EXPECT_TRUE(facts.close_reason.empty());
  // A missing file: the server's 404 is a response like any other.
  body.clear();
  EXPECT_EQ(404, Fetch(session.get(), "/nothing-here", &body));
}

TEST_F(Http3SessionTest, TwentyRequestsMultiplexOnOneConnection) {
  for (int i = 0; i < 20; ++i)
    WriteHtdocsFile(Htdocs(), absl::StrCat("f", i), PseudoRandom(5000 + i, i));
  ASSERT_TRUE(StartServer());
  auto session = NewSession();
  ASSERT_EQ(OK, Connect(session.get(), server_.endpoint()));
  std::vector<std::unique_ptr<Http3SessionStream>> streams(20);
  std::vector<TestCompletionCallback> send_cbs(20);
  // All 20 go out before any response is read.
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(OK, session->CreateStream(&streams[i]));
    ASSERT_EQ(ERR_IO_PENDING,
              streams[i]->SendRequest(Get(absl::StrCat("/f", i)), "",
                                      send_cbs[i].callback()));
  }
  for (int i = 0; i < 20; ++i) EXPECT_EQ(OK, send_cbs[i].WaitForResult());
  EXPECT_EQ(session->open_stream_count(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(streams[i]->stream_id(), 4 * i);  // client bidi ids 0, 4, ...
    TestCompletionCallback cb;
    ASSERT_EQ(OK, cb.GetResult(streams[i]->ReadResponseHeaders(cb.callback())));
    EXPECT_EQ(streams[i]->status(), 200);
    std::string body;
    auto buf = std::make_shared<IOBuffer>(4096);
    int rv;
    while ((rv = cb.GetResult(streams[i]->ReadBody(buf, 4096, cb.callback()))) >
           0)
      body.append(buf->data(), rv);
    EXPECT_EQ(rv, 0);
    EXPECT_EQ(body, PseudoRandom(5000 + i, i)) << i;
  }
  EXPECT_EQ(session->streams_started(), 20u);
}

TEST_F(Http3SessionTest, TenMegabytesHeldToTheWindowUntilRead) {
  const std::string big = PseudoRandom(10 * 1024 * 1024, 7);
  WriteHtdocsFile(Htdocs(), "big", big);
  ASSERT_TRUE(StartServer());
  QuicSessionParams params;
  params.stream_window = 1024 * 1024;
  params.session_window = 2 * 1024 * 1024;
  auto session = NewSession(params);
  ASSERT_EQ(OK, Connect(session.get(), server_.endpoint()));
  std::unique_ptr<Http3SessionStream> stream;
  ASSERT_EQ(OK, session->CreateStream(&stream));
  TestCompletionCallback cb;
  ASSERT_EQ(OK,
            cb.GetResult(stream->SendRequest(Get("/big"), "", cb.callback())));
  ASSERT_EQ(OK, cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
  // Nobody reads for a while: the server can send no more than the window.
  OneShotTimer wait;
  wait.Start(absl::Milliseconds(300), [&] { loop_.Quit(); });
  loop_.Run();
  EXPECT_LE(stream->buffered_bytes(), params.stream_window);
  EXPECT_GT(stream->buffered_bytes(), 0u);
  std::string body;
  auto buf = std::make_shared<IOBuffer>(16 * 1024);
  int rv;
  while ((rv = cb.GetResult(stream->ReadBody(buf, 16 * 1024, cb.callback()))) >
         0)
    body.append(buf->data(), rv);
  EXPECT_EQ(rv, 0);
  ASSERT_EQ(body.size(), big.size());
  EXPECT_TRUE(body == big);
  EXPECT_LE(session->max_buffered_bytes(), params.stream_window);
}

TEST_F(Http3SessionTest, LossyServerStillDeliversAndLossIsCounted) {
  const std::string file = PseudoRandom(400 * 1024, 3);
  WriteHtdocsFile(Htdocs(), "lossy", file);
  GtlsServer::Options options;
  options.extra_args = {"--tx-loss=0.1"};
  ASSERT_TRUE(StartServer(options));
  QuicSessionParams params;
  params.handshake_timeout = absl::Seconds(10);
  auto session = NewSession(params);
  ASSERT_EQ(OK, Connect(session.get(), server_.endpoint()));
  std::string body;
  EXPECT_EQ(200, Fetch(session.get(), "/lossy", &body));
  EXPECT_TRUE(body == file);
  // The server's losses are ours to detect only as gaps it retransmits;
  // our own lost packets are those the server never acknowledged (its ACKs
  // are lost at 10% too). About 300 packets come through.
  QuicConnectionFacts facts = session->quic()->facts();
  EXPECT_GT(facts.packets.received, 200u);
}

TEST_F(Http3SessionTest, UntrustedAndMismatchedCertificatesFailByName) {
  GtlsServer::Options options;
  options.chain = "cert/testdata/untrusted_leaf_chain.pem";
  options.key = "cert/testdata/untrusted_leaf.key";
  ASSERT_TRUE(StartServer(options));
  auto session = NewSession();
  EXPECT_EQ(ERR_CERT_AUTHORITY_INVALID,
            Connect(session.get(), server_.endpoint()));
  EXPECT_FALSE(session->quic()->ssl_info().cert_verify.detail.empty());
  server_.Stop();

  ASSERT_TRUE(StartServer());
  QuicSessionParams params;
  params.host = "other.example.test";
  auto other = NewSession(params);
  EXPECT_EQ(ERR_CERT_COMMON_NAME_INVALID,
            Connect(other.get(), server_.endpoint()));
}

TEST_F(Http3SessionTest, ServerThatStopsAnsweringHitsTheIdleTimeout) {
  ASSERT_TRUE(StartServer());
  QuicSessionParams params;
  params.idle_timeout = absl::Milliseconds(600);
  auto session = NewSession(params);
  ASSERT_EQ(OK, Connect(session.get(), server_.endpoint()));
  server_.Pause();
  std::unique_ptr<Http3SessionStream> stream;
  ASSERT_EQ(OK, session->CreateStream(&stream));
  TestCompletionCallback cb;
  const TimeTicks start = TimeTicks::Now();
  int rv =
      cb.GetResult(stream->SendRequest(Get("/hello.txt"), "", cb.callback()));
  if (rv == OK) rv = cb.GetResult(stream->ReadResponseHeaders(cb.callback()));
  const absl::Duration took = TimeTicks::Now() - start;
  server_.Resume();
  EXPECT_EQ(rv, ERR_QUIC_IDLE_TIMEOUT);
  EXPECT_GE(took, absl::Milliseconds(400));
  EXPECT_LT(took, absl::Seconds(3));
  EXPECT_NE(session->quic()->facts().close_reason.find("idle timeout"),
            std::string::npos)
      << session->quic()->facts().close_reason;
  EXPECT_FALSE(session->IsAvailable());
}

TEST_F(Http3SessionTest, NobodyThereIsRefusedAtOnce) {
  QuicSessionParams params;
  params.handshake_timeout = absl::Seconds(5);
  auto session = NewSession(params);
  const TimeTicks start = TimeTicks::Now();
  EXPECT_EQ(ERR_CONNECTION_REFUSED,
            Connect(session.get(),
                    IPEndPoint(IPAddress::IPv4Localhost(), PickFreeUdpPort())));
  EXPECT_LT(TimeTicks::Now() - start, absl::Seconds(1));
  EXPECT_NE(session->quic()->error_detail().find("refused"), std::string::npos);
}

TEST_F(Http3SessionTest, DroppedUdpPathHitsTheHandshakeTimeout) {
  UdpBlackHole hole;
  QuicSessionParams params;
  params.handshake_timeout = absl::Milliseconds(500);
  auto session = NewSession(params);
  const TimeTicks start = TimeTicks::Now();
  EXPECT_EQ(ERR_QUIC_HANDSHAKE_TIMEOUT,
            Connect(session.get(), hole.endpoint()));
  const absl::Duration took = TimeTicks::Now() - start;
  EXPECT_GE(took, absl::Milliseconds(450));
  EXPECT_LT(took, absl::Milliseconds(1500));
  EXPECT_GE(hole.received(), 1);  // the Initial (a PTO is 1 s at first)
  EXPECT_NE(session->quic()->error_detail().find("no UDP answer"),
            std::string::npos)
      << session->quic()->error_detail();
}

TEST_F(Http3SessionTest, JunkAnswersAreDroppedAndTheTimeoutHolds) {
  UdpBlackHole junk(/*junk=*/true);
  QuicSessionParams params;
  params.handshake_timeout = absl::Milliseconds(500);
  auto session = NewSession(params);
  EXPECT_EQ(ERR_QUIC_HANDSHAKE_TIMEOUT,
            Connect(session.get(), junk.endpoint()));
  EXPECT_GE(junk.received(), 1);
}

TEST_F(Http3SessionTest, CancellingAStreamLeavesTheSessionUsable) {
  WriteHtdocsFile(Htdocs(), "two-mb", PseudoRandom(2 * 1024 * 1024, 9));
  ASSERT_TRUE(StartServer());
  auto session = NewSession();
  ASSERT_EQ(OK, Connect(session.get(), server_.endpoint()));
  {
    std::unique_ptr<Http3SessionStream> stream;
    ASSERT_EQ(OK, session->CreateStream(&stream));
    TestCompletionCallback cb;
    ASSERT_EQ(OK, cb.GetResult(
                      stream->SendRequest(Get("/two-mb"), "", cb.callback())));
    ASSERT_EQ(OK, cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
    auto buf = std::make_shared<IOBuffer>(1000);
    EXPECT_GT(cb.GetResult(stream->ReadBody(buf, 1000, cb.callback())), 0);
  }  // destroyed mid-body: H3_REQUEST_CANCELLED, its bytes credited back
  EXPECT_EQ(session->buffered_bytes(), 0u);
  std::string body;
  EXPECT_EQ(200, Fetch(session.get(), "/hello.txt", &body));
  EXPECT_EQ(body, "hello over h3\n");
}

TEST(Http3ErrorsTest, CodesMapToNamedErrors) {
  EXPECT_EQ(Http3ErrorCodeToNetError(0x10b), ERR_HTTP3_SERVER_REFUSED_STREAM);
  EXPECT_EQ(Http3ErrorCodeToNetError(0x200), ERR_HTTP3_QPACK_ERROR);
  EXPECT_EQ(Http3ErrorCodeToNetError(0x10e), ERR_HTTP3_MESSAGE_ERROR);
  EXPECT_EQ(Http3ErrorCodeToNetError(0x105), ERR_HTTP3_PROTOCOL_ERROR);
  EXPECT_EQ(Http3ErrorCodeToNetError(0x102), ERR_HTTP3_STREAM_CLOSED);
  EXPECT_EQ(Http3ErrorCodeToNetError(0x10c), ERR_HTTP3_STREAM_CLOSED);
  EXPECT_EQ(Http3ErrorCodeName(0x10b), "H3_REQUEST_REJECTED");
  EXPECT_EQ(Http3ErrorCodeName(0x21), "0x21");
  EXPECT_EQ(QuicTransportErrorName(0xa), "PROTOCOL_VIOLATION");
  EXPECT_EQ(QuicTransportErrorName(0x12a).rfind("CRYPTO_ERROR(0x12a", 0), 0u);
  EXPECT_EQ(QuicTransportErrorName(0x4242), "0x4242");
}

// A first connection leaves a ticket (with the server's transport
// parameters) in the context; the second resumes and sends its GET in
// 0-RTT packets, which the server accepts.
TEST_F(Http3SessionTest, SecondConnectionSendsGetInZeroRtt) {
  ASSERT_TRUE(StartServer());
  std::string body;
  {
    auto first = NewSession();
    ASSERT_EQ(OK, Connect(first.get(), server_.endpoint()));
    EXPECT_EQ(first->quic()->facts().zero_rtt, "none");
    EXPECT_EQ(200, Fetch(first.get(), "/hello.txt", &body));
    EXPECT_FALSE(first->quic()->ssl_info().resumed);
  }
  ASSERT_GE(context_->session_cache()->size(), 1u) << "no ticket kept";
  auto second = NewSession();
  // Connect opens the session at once (OK), before the handshake completed.
  TestCompletionCallback connect_cb;
  ASSERT_EQ(OK, second->Connect(server_.endpoint(), connect_cb.callback()));
  ASSERT_TRUE(second->quic()->in_early_data());
  EXPECT_TRUE(second->IsAvailable());
  EXPECT_EQ(second->quic()->facts().zero_rtt, "offered");
  std::unique_ptr<Http3SessionStream> stream;
  ASSERT_EQ(OK, second->CreateStream(&stream));
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(
                    stream->SendRequest(Get("/hello.txt"), "", cb.callback())));
  EXPECT_TRUE(stream->sent_early());
  ASSERT_EQ(OK, cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
  EXPECT_EQ(stream->status(), 200);
  EXPECT_FALSE(stream->resent_after_rejection());
  QuicConnectionFacts facts = second->quic()->facts();
  EXPECT_EQ(facts.zero_rtt, "accepted");
  EXPECT_TRUE(second->quic()->ssl_info().resumed);
  EXPECT_EQ(second->quic()->ssl_info().cert_verify.error, OK);
}

// A POST is not replay-safe: on a session still in early data it waits
// for the handshake, while a GET beside it goes in 0-RTT.
TEST_F(Http3SessionTest, PostWaitsForTheHandshakeInEarlyData) {
  ASSERT_TRUE(StartServer());
  std::string body;
  {
    auto first = NewSession();
    ASSERT_EQ(OK, Connect(first.get(), server_.endpoint()));
    EXPECT_EQ(200, Fetch(first.get(), "/hello.txt", &body));
  }
  auto second = NewSession();
  TestCompletionCallback connect_cb;
  ASSERT_EQ(OK, second->Connect(server_.endpoint(), connect_cb.callback()));
  ASSERT_TRUE(second->quic()->in_early_data());
  std::unique_ptr<Http3SessionStream> get, post;
  ASSERT_EQ(OK, second->CreateStream(&get));
  ASSERT_EQ(OK, second->CreateStream(&post));
  Http3Headers post_headers = Get("/hello.txt");
  post_headers[0].second = "POST";
  TestCompletionCallback get_cb, post_cb;
  ASSERT_EQ(ERR_IO_PENDING,
            post->SendRequest(post_headers, "a=b", post_cb.callback()));
  ASSERT_EQ(ERR_IO_PENDING,
            get->SendRequest(Get("/hello.txt"), "", get_cb.callback()));
  EXPECT_EQ(OK, get_cb.WaitForResult());
  EXPECT_EQ(OK, post_cb.WaitForResult());
  EXPECT_TRUE(get->sent_early());
  EXPECT_FALSE(post->sent_early());
  EXPECT_TRUE(second->quic()->handshake_completed());
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(get->ReadResponseHeaders(cb.callback())));
  EXPECT_EQ(get->status(), 200);
  ASSERT_EQ(OK, cb.GetResult(post->ReadResponseHeaders(cb.callback())));
  EXPECT_EQ(post->status(), 200);
  EXPECT_EQ(second->quic()->facts().zero_rtt, "accepted");
}

// The ticket is from another server (its ticket key differs: a restart),
// so 0-RTT is rejected: the GET sent early goes again in 1-RTT on the same
// connection and gets its response.
TEST_F(Http3SessionTest, RejectedZeroRttIsResentInOneRtt) {
  ASSERT_TRUE(StartServer());
  QuicSessionParams params;
  params.port = 443;  // the cache key: both servers are "the origin"
  std::string body;
  {
    auto first = NewSession(params);
    ASSERT_EQ(OK, Connect(first.get(), server_.endpoint()));
    EXPECT_EQ(200, Fetch(first.get(), "/hello.txt", &body));
  }
  server_.Stop();
  ASSERT_TRUE(StartServer());
  auto second = NewSession(params);
  TestCompletionCallback connect_cb;
  ASSERT_EQ(OK, second->Connect(server_.endpoint(), connect_cb.callback()));
  ASSERT_TRUE(second->quic()->in_early_data());
  body.clear();
  std::unique_ptr<Http3SessionStream> stream;
  ASSERT_EQ(OK, second->CreateStream(&stream));
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(
                    stream->SendRequest(Get("/hello.txt"), "", cb.callback())));
  ASSERT_EQ(OK, cb.GetResult(stream->ReadResponseHeaders(cb.callback())));
  EXPECT_EQ(stream->status(), 200);
  auto buf = std::make_shared<IOBuffer>(4096);
  int rv;
  while ((rv = cb.GetResult(stream->ReadBody(buf, 4096, cb.callback()))) > 0)
    body.append(buf->data(), rv);
  EXPECT_EQ(rv, 0);
  EXPECT_EQ(body, "hello over h3\n");
  EXPECT_TRUE(stream->sent_early());
  EXPECT_TRUE(stream->resent_after_rejection());
  QuicConnectionFacts facts = second->quic()->facts();
  EXPECT_EQ(facts.zero_rtt, "rejected");
  EXPECT_FALSE(facts.zero_rtt_reason.empty());
  EXPECT_FALSE(second->quic()->ssl_info().resumed);
}

// The handshake's round trips and the address token, counted from what
// happened: a full handshake whose flight fits in the server's allowance
// is 1 round trip and sends no token; gtlsserver gives one in a NEW_TOKEN
// frame, which the context keeps for the origin.
TEST_F(Http3SessionTest, FirstHandshakeIsOneRoundTripAndGetsAToken) {
  ASSERT_TRUE(StartServer());
  const std::string key = "www.example.test:443";
  auto session = NewSession();
  ASSERT_EQ(OK, Connect(session.get(), server_.endpoint()));
  std::string body;
  EXPECT_EQ(200, Fetch(session.get(), "/hello.txt", &body));
  QuicConnectionFacts facts = session->quic()->facts();
  EXPECT_EQ(facts.address_token, "none");
  EXPECT_EQ(facts.retries, 0);
  EXPECT_GE(facts.first_flight_bytes, 1200u);
  EXPECT_GT(facts.server_handshake_bytes, 0u);
  EXPECT_LE(facts.server_handshake_bytes, 3 * facts.first_flight_bytes);
  EXPECT_EQ(facts.handshake_rtts, 1);
  EXPECT_EQ(context_->TokenCount(key), 1u);
}

// The next connection sends the token in its Initial, once: it is taken
// from the context (the connection's own NEW_TOKEN brings the next one).
// With 0-RTT accepted the handshake costs the request no round trip.
TEST_F(Http3SessionTest, NextConnectionSendsTheTokenOnce) {
  ASSERT_TRUE(StartServer());
  const std::string key = "www.example.test:443";
  std::string body;
  {
    auto first = NewSession();
    ASSERT_EQ(OK, Connect(first.get(), server_.endpoint()));
    EXPECT_EQ(200, Fetch(first.get(), "/hello.txt", &body));
  }
  ASSERT_EQ(context_->TokenCount(key), 1u);
  auto second = NewSession();
  TestCompletionCallback connect_cb;
  ASSERT_EQ(OK, second->Connect(server_.endpoint(), connect_cb.callback()));
  EXPECT_EQ(context_->TokenCount(key), 0u);  // taken: used once
  EXPECT_EQ(second->quic()->facts().address_token, "sent");
  EXPECT_EQ(second->quic()->facts().handshake_rtts, -1);  // not done yet
  body.clear();
  EXPECT_EQ(200, Fetch(second.get(), "/hello.txt", &body));
  EXPECT_EQ(body, "hello over h3\n");
  QuicConnectionFacts facts = second->quic()->facts();
  EXPECT_EQ(facts.zero_rtt, "accepted");
  EXPECT_EQ(facts.handshake_rtts, 0);
  EXPECT_EQ(facts.retries, 0);
  // The second's own token: after a 0-RTT exchange the server may answer
  // before it confirms the handshake, so its NEW_TOKEN can come after the
  // response.
  EXPECT_TRUE(RunUntil([&] { return context_->TokenCount(key) == 1u; },
                       absl::Seconds(5)))
      << context_->TokenCount(key) << " tokens";
}

// gtlsserver --validate-addr answers an Initial without a valid token with
// a Retry: the first connection makes 2 round trips. The second sends the
// NEW_TOKEN token the first got, and the server takes it as proof of our
// address: no Retry, 1 round trip (early data off: a resumed 1-RTT
// handshake). A token the server did not give is refused (Retry again).
TEST_F(Http3SessionTest, ValidatingServerAcceptsTheTokenInsteadOfARetry) {
  GtlsServer::Options options;
  options.extra_args = {"--validate-addr"};
  ASSERT_TRUE(StartServer(options));
  context_->set_early_data_enabled(false);
  const std::string key = "www.example.test:443";
  std::string body;
  {
    auto first = NewSession();
    ASSERT_EQ(OK, Connect(first.get(), server_.endpoint()));
    EXPECT_EQ(200, Fetch(first.get(), "/hello.txt", &body));
    QuicConnectionFacts facts = first->quic()->facts();
    EXPECT_EQ(facts.address_token, "none");
    EXPECT_EQ(facts.retries, 1);
    EXPECT_EQ(facts.handshake_rtts, 2);
  }
  ASSERT_EQ(context_->TokenCount(key), 1u);
  {
    auto second = NewSession();
    ASSERT_EQ(OK, Connect(second.get(), server_.endpoint()));
    EXPECT_EQ(200, Fetch(second.get(), "/hello.txt", &body));
    QuicConnectionFacts facts = second->quic()->facts();
    EXPECT_EQ(facts.address_token, "sent");
    EXPECT_EQ(facts.retries, 0);
    EXPECT_EQ(facts.zero_rtt, "none");
    EXPECT_TRUE(second->quic()->ssl_info().resumed);
    EXPECT_EQ(facts.handshake_rtts, 1);
  }
  // A forged token: the server does not know it and sends a Retry.
  ASSERT_EQ(context_->TakeToken(key, absl::Now()).empty(), false);
  context_->AddToken(key, std::string(64, 'x'), absl::Now());
  auto third = NewSession();
  ASSERT_EQ(OK, Connect(third.get(), server_.endpoint()));
  QuicConnectionFacts facts = third->quic()->facts();
  EXPECT_EQ(facts.address_token, "sent");
  EXPECT_EQ(facts.retries, 1);
  EXPECT_EQ(facts.handshake_rtts, 2);
}

// A chain too big for the server's first flight (testdata's big leaf,
// 3.5 KB of DER, and the intermediate: its Initial and Handshake datagrams
// exceed 3x our 1200-byte Initial): the anti-amplification limit holds it
// back a round trip (2) on a first visit. The next full handshake (tickets
// dropped) sends the NEW_TOKEN token, the server validates our address
// from it and sends the whole flight at once: 1.
TEST_F(Http3SessionTest, TokenLiftsTheAmplificationLimit) {
  GtlsServer::Options options;
  options.chain = "net/quic/testdata/big_leaf_chain.pem";
  options.key = "net/quic/testdata/big_leaf.key";
  ASSERT_TRUE(StartServer(options));
  const std::string key = "www.example.test:443";
  std::string body;
  {
    auto first = NewSession();
    ASSERT_EQ(OK, Connect(first.get(), server_.endpoint()));
    EXPECT_EQ(200, Fetch(first.get(), "/hello.txt", &body));
    EXPECT_EQ(first->quic()->ssl_info().cert_verify.error, OK);
    QuicConnectionFacts facts = first->quic()->facts();
    EXPECT_EQ(facts.address_token, "none");
    EXPECT_GT(facts.server_handshake_bytes, 3 * facts.first_flight_bytes);
    EXPECT_EQ(facts.handshake_rtts, 2);
  }
  ASSERT_EQ(context_->TokenCount(key), 1u);
  context_->session_cache()->Flush();
  auto second = NewSession();
  ASSERT_EQ(OK, Connect(second.get(), server_.endpoint()));
  EXPECT_EQ(200, Fetch(second.get(), "/hello.txt", &body));
  EXPECT_FALSE(second->quic()->ssl_info().resumed);
  QuicConnectionFacts facts = second->quic()->facts();
  EXPECT_EQ(facts.address_token, "sent");
  EXPECT_GT(facts.server_handshake_bytes, 3 * facts.first_flight_bytes);
  EXPECT_EQ(facts.handshake_rtts, 1);
}

}  // namespace
}  // namespace net
