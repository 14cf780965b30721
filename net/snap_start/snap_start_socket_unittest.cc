// The Snap Start core end to end over loopback TCP in one event loop: our
// client and server against each other (learning, acceptance in the full and
// ticket forms, recovery, replay, bit flips, the probe) and against
// BoringSSL's TLS 1.2 (SSLServerSocket / SSLClientSocket) in both directions.

#include <openssl/rand.h>
#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <vector>

#include "cert/basic_cert_verifier.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/snap_start/snap_start_client_socket.h"
#include "net/snap_start/snap_start_probe.h"
#include "net/snap_start/snap_start_server_socket.h"
#include "net/snap_start/tls12_test_util.h"
#include "net/socket/tcp_client_socket.h"
#include "net/socket/tcp_server_socket.h"
#include "net/ssl/ssl_client_socket.h"
#include "net/ssl/ssl_server_socket.h"
#include "net/ssl/tls_loopback_test_util.h"

namespace net {
namespace {

constexpr const char* kHost = kLoopbackHost;
const Orbit kOrbit = {0xaa, 0xbb, 0xcc, 0xdd, 0x01, 0x02, 0x03, 0x04};

// The system clock shifted by an offset the test moves.
class ShiftedClock : public WallClock {
 public:
  absl::Time Now() const override { return absl::Now() + offset_; }
  void set_offset(absl::Duration offset) { offset_ = offset; }
  void Advance(absl::Duration d) { offset_ += d; }

 private:
  absl::Duration offset_;
};

SnapStartServerConfig ServerConfig(std::optional<Orbit> orbit = kOrbit) {
  SnapStartServerConfig config;
  config.cert_chain_file = TestCertFile("good_leaf_chain.pem");
  config.key_file = TestCertFile("good_leaf.key");
  config.orbit = orbit;
  return config;
}

// A Snap Start core server (SnapStartServerSocket) on loopback that
// handshakes and echoes (LoopbackEchoServer); its clock is the test's to
// move. The interop tests use BoringSSL's LoopbackTlsServer instead.
class EchoServer {
 public:
  explicit EchoServer(const SnapStartServerConfig& config)
      : core_(CreateContext(config, &clock_)),
        echo_([this](std::unique_ptr<StreamSocket> tcp) {
          return std::make_unique<SnapStartServerSocket>(
              std::move(tcp), std::string(), core_.get());
        }) {}
  const IPEndPoint& address() const { return echo_.address(); }
  SnapStartServerContext* core() { return core_.get(); }
  ShiftedClock& clock() { return clock_; }
  SnapStartServerSocket* last_core_socket() const { return echo_.last(); }

 private:
  static std::unique_ptr<SnapStartServerContext> CreateContext(
      const SnapStartServerConfig& config, ShiftedClock* clock) {
    // Created one window in the past: no startup period in tests.
    clock->set_offset(-config.window - absl::Seconds(1));
    auto context = SnapStartServerContext::Create(config, clock);
    clock->set_offset(absl::ZeroDuration());
    EXPECT_TRUE(context.ok()) << context.status();
    return context.ok() ? std::move(*context) : nullptr;
  }

  // Declared in the order they are needed: the context reads the clock,
  // the connections use the context.
  ShiftedClock clock_;
  std::unique_ptr<SnapStartServerContext> core_;
  LoopbackEchoServer<SnapStartServerSocket> echo_;
};

class SnapStartSocketTest : public ::testing::Test {
 protected:
  SnapStartSocketTest() {
    auto verifier =
        BasicCertVerifier::Create({TestCertFile("good_root.pem")}, false);
    EXPECT_TRUE(verifier.ok());
    verifier_ = std::move(*verifier);
    context_ = MakeContext(SnapStartClientOptions());
  }

  std::unique_ptr<SnapStartClientContext> MakeContext(
      const SnapStartClientOptions& options) {
    auto context = SnapStartClientContext::Create(verifier_.get(), options);
    EXPECT_TRUE(context.ok());
    return std::move(*context);
  }

  int Connect(const IPEndPoint& address,
              std::unique_ptr<SnapStartClientSocket>* out,
              SnapStartClientContext* context = nullptr) {
    *out = std::make_unique<SnapStartClientSocket>(
        ConnectLoopbackTcp(address), kHost, address.port(),
        context ? context : context_.get());
    TestCompletionCallback cb;
    return cb.GetResult((*out)->Connect(cb.callback()));
  }

  // A first connection learns the server's orbit; its ticket is then
  // forgotten, so the next attempt takes the full form (the premaster rides
  // in the ClientHello). Returns the context key.
  std::string LearnWithoutSession(EchoServer* server) {
    const std::string key = absl::StrCat(kHost, ":", server->address().port());
    std::unique_ptr<SnapStartClientSocket> socket;
    EXPECT_EQ(OK, Connect(server->address(), &socket));
    EXPECT_EQ(RoundTrip(socket.get(), "learn"), "learn");
    context_->RemoveSession(key);
    return key;
  }

  std::string RoundTrip(StreamSocket* socket, const std::string& message) {
    TestCompletionCallback cb;
    auto out = std::make_shared<IOBuffer>(message);
    int rv = cb.GetResult(socket->Write(out, message.size(), cb.callback()));
    EXPECT_EQ(static_cast<int>(message.size()), rv);
    std::string got;
    while (got.size() < message.size()) {
      auto in = std::make_shared<IOBuffer>(4096);
      int n = cb.GetResult(socket->Read(in, 4096, cb.callback()));
      if (n <= 0) {
        last_read_error_ = n;
        break;
      }
      got.append(in->data(), n);
    }
    return got;
  }

  // Sends |bytes| on a fresh connection and returns the first record's
  // content type and first handshake type (0 if none), or -1 on close.
  std::pair<int, int> RawExchange(const IPEndPoint& address,
                                  const std::string& bytes) {
    auto tcp = ConnectLoopbackTcp(address);
    TestCompletionCallback cb;
    auto out = std::make_shared<IOBuffer>(bytes);
    EXPECT_EQ(static_cast<int>(bytes.size()),
              cb.GetResult(tcp->Write(out, bytes.size(), cb.callback())));
    std::string got;
    while (got.size() < 6) {
      auto in = std::make_shared<IOBuffer>(4096);
      int n = cb.GetResult(tcp->Read(in, 4096, cb.callback()));
      if (n <= 0) return {-1, 0};
      got.append(in->data(), n);
    }
    return {static_cast<uint8_t>(got[0]), static_cast<uint8_t>(got[5])};
  }

  EventLoop loop_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<SnapStartClientContext> context_;
  int last_read_error_ = 0;
};

TEST_F(SnapStartSocketTest, LearnsOrbitThenAcceptsFullAndTicketForms) {
  EchoServer server(ServerConfig());
  const std::string key = absl::StrCat(kHost, ":", server.address().port());

  std::unique_ptr<SnapStartClientSocket> first;
  ASSERT_EQ(OK, Connect(server.address(), &first)) << first->error_detail();
  EXPECT_EQ(first->ssl_info().snap_start, SnapStartOutcome::kLearned);
  EXPECT_EQ(first->snap_start_outcome(), SnapStartOutcome::kLearned);
  EXPECT_TRUE(first->extended_master_secret());
  EXPECT_EQ(first->ssl_info().version, "TLSv1.2");
  EXPECT_EQ(first->ssl_info().cipher, "TLS_RSA_WITH_AES_128_GCM_SHA256");
  EXPECT_EQ(first->ssl_info().cert_verify.error, OK);
  EXPECT_EQ(RoundTrip(first.get(), "learn"), "learn");
  ASSERT_NE(context_->GetInfo(key), nullptr);
  EXPECT_EQ(context_->GetInfo(key)->orbit, kOrbit);
  ASSERT_NE(context_->GetSession(key), nullptr);

  // Ticket form: Connect completes without I/O; the request rides in the
  // ClientHello.
  std::unique_ptr<SnapStartClientSocket> resumed;
  ASSERT_EQ(OK, Connect(server.address(), &resumed));
  EXPECT_EQ(resumed->ssl_info().snap_start, SnapStartOutcome::kAttempted);
  EXPECT_EQ(RoundTrip(resumed.get(), "GET /ticket"), "GET /ticket");
  EXPECT_EQ(resumed->ssl_info().snap_start, SnapStartOutcome::kAccepted);
  EXPECT_TRUE(resumed->ssl_info().resumed);
  EXPECT_EQ(server.last_core_socket()->ssl_info().snap_start,
            SnapStartOutcome::kAccepted);

  // Full form: no ticket, the premaster travels in the ClientHello.
  context_->RemoveSession(key);
  std::unique_ptr<SnapStartClientSocket> full;
  ASSERT_EQ(OK, Connect(server.address(), &full));
  EXPECT_EQ(RoundTrip(full.get(), "GET /full"), "GET /full");
  EXPECT_EQ(full->ssl_info().snap_start, SnapStartOutcome::kAccepted);
  EXPECT_FALSE(full->ssl_info().resumed);
  // The full form carries the extended master secret too: the session hash
  // is the transcript over the predicted flight (README).
  EXPECT_TRUE(full->extended_master_secret());
  EXPECT_TRUE(server.last_core_socket()->extended_master_secret());
  EXPECT_EQ(server.core()->counters().snap_start_accepted, 2u);
  EXPECT_EQ(server.core()->counters().snap_start_recovered, 0u);
  // And it received a new ticket with its acceptance.
  EXPECT_NE(context_->GetSession(key), nullptr);
}

TEST_F(SnapStartSocketTest, CapturedClientHelloReplayIsNeverAccepted) {
  EchoServer server(ServerConfig());
  // Full form: the strongest capture.
  const std::string key = LearnWithoutSession(&server);
  std::unique_ptr<SnapStartClientSocket> socket;
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  ASSERT_EQ(RoundTrip(socket.get(), "GET /secret"), "GET /secret");
  ASSERT_EQ(socket->ssl_info().snap_start, SnapStartOutcome::kAccepted);
  const std::string capture = socket->sent_client_hello();
  for (int i = 0; i < 3; ++i) {
    auto [content, handshake] = RawExchange(server.address(), capture);
    // Recovery: a ServerHello in plaintext, never CCS/Finished.
    EXPECT_EQ(content, 22);
    EXPECT_EQ(handshake, 2);
  }
  EXPECT_EQ(server.core()->counters().snap_start_accepted, 1u);
  EXPECT_EQ(server.core()->counters().snap_start_recovered, 3u);
  EXPECT_EQ(server.last_core_socket()->ssl_info().snap_start_detail, "replay");
}

TEST_F(SnapStartSocketTest, WrongOrbitAndMispredictionRecoverAndServe) {
  EchoServer server(ServerConfig());
  const std::string key = LearnWithoutSession(&server);
  std::unique_ptr<SnapStartClientSocket> socket;

  // Misprediction: the client believes in a chain without the intermediate.
  SnapStartInfo info = *context_->GetInfo(key);
  info.chain_der.resize(1);
  context_->PutInfo(key, info);
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  EXPECT_EQ(RoundTrip(socket.get(), "GET /mispredicted"), "GET /mispredicted");
  EXPECT_EQ(socket->ssl_info().snap_start, SnapStartOutcome::kRecovered);
  EXPECT_EQ(server.last_core_socket()->ssl_info().snap_start,
            SnapStartOutcome::kRecovered);
  EXPECT_NE(server.last_core_socket()->ssl_info().snap_start_detail.find(
                "misprediction"),
            std::string::npos);

  // Wrong orbit: the server's cluster changed.
  EchoServer other(ServerConfig(Orbit{9, 9, 9, 9, 9, 9, 9, 9}));
  const std::string other_key =
      absl::StrCat(kHost, ":", other.address().port());
  SnapStartInfo moved = *context_->GetInfo(key);
  context_->PutInfo(other_key, moved);
  ASSERT_EQ(OK, Connect(other.address(), &socket));
  EXPECT_EQ(RoundTrip(socket.get(), "GET /moved"), "GET /moved");
  EXPECT_EQ(socket->ssl_info().snap_start, SnapStartOutcome::kRecovered);
  EXPECT_EQ(other.last_core_socket()->ssl_info().snap_start_detail,
            "wrong_orbit");
  // Recovery taught the client the new orbit.
  EXPECT_EQ(context_->GetInfo(other_key)->orbit,
            (Orbit{9, 9, 9, 9, 9, 9, 9, 9}));
}

TEST_F(SnapStartSocketTest, StaleTimeRecovers) {
  SnapStartServerConfig config = ServerConfig();
  config.window = absl::Seconds(1);
  EchoServer server(config);
  const std::string key = LearnWithoutSession(&server);
  std::unique_ptr<SnapStartClientSocket> socket;
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  const std::string fresh_hello_probe = "GET /a";
  ASSERT_EQ(RoundTrip(socket.get(), fresh_hello_probe), fresh_hello_probe);
  const std::string capture = socket->sent_client_hello();
  // Replayed after the window (the server's clock moved on): rejected by
  // time.
  server.clock().Advance(absl::Seconds(2.2));
  auto [content, handshake] = RawExchange(server.address(), capture);
  EXPECT_EQ(content, 22);
  EXPECT_EQ(handshake, 2);
  EXPECT_EQ(server.last_core_socket()->ssl_info().snap_start_detail,
            "time_outside_window");
}

TEST_F(SnapStartSocketTest, BitFlipsInTheExtensionFailCleanlyOrRecover) {
  EchoServer server(ServerConfig());
  const std::string key = LearnWithoutSession(&server);
  std::unique_ptr<SnapStartClientSocket> socket;
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  ASSERT_EQ(RoundTrip(socket.get(), "GET /"), "GET /");
  const std::string capture = socket->sent_client_hello();
  // The extension is the ClientHello's last bytes; flip bits anywhere in
  // its payload, including the length-sensitive header.
  uint32_t seed = 12345;
  int accepted_before = server.core()->counters().snap_start_accepted;
  for (int i = 0; i < 60; ++i) {
    std::string mutated = capture;
    seed = seed * 1103515245 + 12345;
    // The extension: orbit, random, hash, then the embedded records.
    const size_t span = std::min<size_t>(400, mutated.size() - 100);
    const size_t pos = mutated.size() - 1 - (seed >> 8) % span;
    mutated[pos] ^= static_cast<char>(1 << ((seed >> 4) & 7));
    auto [content, handshake] = RawExchange(server.address(), mutated);
    // Recovery (ServerHello), an alert, or a close: never acceptance.
    EXPECT_TRUE((content == 22 && handshake == 2) || content == 21 ||
                content == -1)
        << i << " " << content << " " << handshake;
  }
  EXPECT_EQ(server.core()->counters().snap_start_accepted, accepted_before);
  // The server still works.
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  EXPECT_EQ(RoundTrip(socket.get(), "still up"), "still up");
}

TEST_F(SnapStartSocketTest, TicketResumptionWithoutSnapStart) {
  SnapStartClientOptions options;
  options.attempt = false;
  auto context = MakeContext(options);
  EchoServer server(ServerConfig());
  std::unique_ptr<SnapStartClientSocket> socket;
  ASSERT_EQ(OK, Connect(server.address(), &socket, context.get()));
  EXPECT_FALSE(socket->ssl_info().resumed);
  EXPECT_EQ(RoundTrip(socket.get(), "one"), "one");
  ASSERT_EQ(OK, Connect(server.address(), &socket, context.get()));
  EXPECT_TRUE(socket->ssl_info().resumed);
  EXPECT_EQ(RoundTrip(socket.get(), "two"), "two");
  EXPECT_EQ(server.core()->counters().resumed_handshakes, 1u);
}

TEST_F(SnapStartSocketTest, ProbeLearnsBundleAndLeavesNoSession) {
  EchoServer server(ServerConfig());
  auto probe = std::make_unique<SnapStartProbe>(
      ConnectLoopbackTcp(server.address()), kHost);
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(probe->Run(cb.callback())))
      << probe->error_detail();
  EXPECT_EQ(probe->result().chain_der.size(), 2u);
  EXPECT_EQ(probe->result().cipher_suite, kTlsRsaWithAes128GcmSha256);
  ASSERT_TRUE(probe->result().orbit.has_value());
  EXPECT_EQ(*probe->result().orbit, kOrbit);
  auto info = probe->result().ToSnapStartInfo();
  ASSERT_TRUE(info.has_value());
  EXPECT_FALSE(info->verified);
  EXPECT_EQ(server.core()->counters().full_handshakes, 0u);
  EXPECT_EQ(server.core()->counters().tickets_issued, 0u);

  // The probed (unverified) bundle drives Snap Start after verification.
  const std::string key = absl::StrCat(kHost, ":", server.address().port());
  context_->PutInfo(key, *info);
  std::unique_ptr<SnapStartClientSocket> socket;
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  EXPECT_EQ(RoundTrip(socket.get(), "GET /probed"), "GET /probed");
  EXPECT_EQ(socket->ssl_info().snap_start, SnapStartOutcome::kAccepted);
  // The server has seen the probe's alert by now (it ran meanwhile).
  EXPECT_EQ(server.core()->counters().handshakes_failed, 1u);  // the probe
}

TEST_F(SnapStartSocketTest, UntrustedPredictedChainIsNotUsed) {
  EchoServer server(ServerConfig());
  const std::string key = absl::StrCat(kHost, ":", server.address().port());
  auto probe = std::make_unique<SnapStartProbe>(
      ConnectLoopbackTcp(server.address()), kHost);
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(probe->Run(cb.callback())));
  // A client that trusts a different root refuses the probed bundle: it does
  // a normal handshake, which then fails verification.
  auto verifier =
      BasicCertVerifier::Create({TestCertFile("untrusted_root.pem")}, false);
  ASSERT_TRUE(verifier.ok());
  auto context =
      SnapStartClientContext::Create(verifier->get(), SnapStartClientOptions());
  ASSERT_TRUE(context.ok());
  (*context)->PutInfo(key, *probe->result().ToSnapStartInfo());
  std::unique_ptr<SnapStartClientSocket> socket;
  EXPECT_EQ(ERR_CERT_AUTHORITY_INVALID,
            Connect(server.address(), &socket, context->get()));
  EXPECT_NE(socket->ssl_info().snap_start_detail.find("failed verification"),
            std::string::npos);
  EXPECT_EQ((*context)->GetInfo(key), nullptr);
}

TEST_F(SnapStartSocketTest, ServerWithoutOrbitIsAPlainTls12Peer) {
  EchoServer server(ServerConfig(std::nullopt));
  std::unique_ptr<SnapStartClientSocket> socket;
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  EXPECT_EQ(socket->ssl_info().snap_start, SnapStartOutcome::kLearned);
  EXPECT_EQ(socket->ssl_info().snap_start_detail,
            "server does not support Snap Start");
  EXPECT_EQ(RoundTrip(socket.get(), "plain"), "plain");
}

TEST_F(SnapStartSocketTest, OurClientAgainstBoringSslServer) {
  SSLServerConfig config = LoopbackServerConfig();
  config.version_max = TLS1_2_VERSION;
  config.cipher_list = "AES128-GCM-SHA256";
  LoopbackTlsServer server(config);
  for (int i = 0; i < 2; ++i) {
    std::unique_ptr<SnapStartClientSocket> socket;
    ASSERT_EQ(OK, Connect(server.address(), &socket)) << socket->error_detail();
    if (i == 0) {
      EXPECT_EQ(socket->ssl_info().snap_start_detail,
                "server does not support Snap Start");
    }
    EXPECT_EQ(socket->ssl_info().resumed, i == 1);  // BoringSSL tickets
    EXPECT_TRUE(socket->extended_master_secret());  // BoringSSL echoes it
    EXPECT_EQ(RoundTrip(socket.get(), "to boringssl"), "to boringssl");
  }
}

TEST_F(SnapStartSocketTest, BoringSslClientAgainstOurServer) {
  EchoServer server(ServerConfig());
  SSLClientContext ssl_context(verifier_.get());
  SSLConfig config;
  config.version_max = TLS1_2_VERSION;
  config.cipher_list = "AES128-GCM-SHA256";
  for (int i = 0; i < 2; ++i) {
    auto socket = std::make_unique<SSLClientSocket>(
        ConnectLoopbackTcp(server.address()), kHost, server.address().port(),
        config, &ssl_context);
    TestCompletionCallback cb;
    ASSERT_EQ(OK, cb.GetResult(socket->Connect(cb.callback())))
        << socket->error_detail();
    EXPECT_EQ(socket->ssl_info().version, "TLSv1.2");
    EXPECT_EQ(socket->ssl_info().cipher, "TLS_RSA_WITH_AES_128_GCM_SHA256");
    EXPECT_EQ(RoundTrip(socket.get(), "from boringssl"), "from boringssl");
    EXPECT_EQ(socket->ssl_info().resumed, i == 1);  // our tickets
    // BoringSSL offers the extended master secret; the session keeps it.
    EXPECT_TRUE(server.last_core_socket()->extended_master_secret());
  }
  EXPECT_EQ(server.core()->counters().full_handshakes, 1u);
  EXPECT_EQ(server.core()->counters().resumed_handshakes, 1u);
}

// Regression: an attempt that fails before anything is sent (the predicted
// leaf key is ECDSA, so no premaster can be encrypted to it) used to run the
// handshake loop with no state (ERR_UNEXPECTED, so the transaction never
// retried), and a second Write then read the server information the failure
// had removed (a crash). Now every call answers ERR_SNAP_START_REJECTED and a
// new connection does a normal handshake.
TEST_F(SnapStartSocketTest, AttemptThatCannotBeBuiltIsRejectedNotACrash) {
  EchoServer server(ServerConfig());
  // The full form encrypts to the leaf key.
  const std::string key = LearnWithoutSession(&server);
  std::unique_ptr<SnapStartClientSocket> socket;
  SnapStartInfo info = *context_->GetInfo(key);
  info.chain_der = ReadPemChain(TestCertFile("good_ecdsa_leaf_chain.pem"));
  ASSERT_FALSE(info.chain_der.empty());
  info.verified = true;
  context_->PutInfo(key, info);

  ASSERT_EQ(OK, Connect(server.address(), &socket));
  EXPECT_EQ(socket->ssl_info().snap_start, SnapStartOutcome::kAttempted);
  TestCompletionCallback cb;
  auto request = std::make_shared<IOBuffer>(std::string("GET /"));
  EXPECT_EQ(ERR_SNAP_START_REJECTED, socket->Write(request, 5, cb.callback()));
  EXPECT_EQ(socket->snap_start_outcome(), SnapStartOutcome::kRejected);
  EXPECT_NE(socket->ssl_info().snap_start_detail.find("not RSA"),
            std::string::npos)
      << socket->ssl_info().snap_start_detail;
  EXPECT_EQ(context_->GetInfo(key), nullptr);
  // Every later call is safe and says the same.
  EXPECT_EQ(ERR_SNAP_START_REJECTED, socket->Write(request, 5, cb.callback()));
  auto in = std::make_shared<IOBuffer>(16);
  EXPECT_EQ(ERR_SNAP_START_REJECTED, socket->Read(in, 16, cb.callback()));
  EXPECT_FALSE(cb.have_result());

  // What the transaction does next: a new connection, a normal handshake.
  ASSERT_EQ(OK, Connect(server.address(), &socket));
  EXPECT_EQ(socket->ssl_info().snap_start, SnapStartOutcome::kLearned);
  EXPECT_EQ(RoundTrip(socket.get(), "GET /again"), "GET /again");
}

}  // namespace
}  // namespace net
