// TLS 1.3 early data (0-RTT): SSLClientSocket against SSLServerSocket over
// loopback — accepted on a resumption, rejected by the server (reject mode,
// the strike register catching a replayed ticket, TLS 1.2 chosen), and the
// client's own rules (off by default, one early-data use per ticket). And
// the strike register (EarlyDataAntiReplay) alone.

#include <openssl/ssl.h>

#include "net/ssl/early_data_anti_replay.h"
#include "net/ssl/tls_loopback_test_util.h"

namespace net {
namespace {

constexpr char kKey[] = "www.example.test";

SSLConfig EarlyDataConfig() {
  SSLConfig config;
  config.early_data_enabled = true;
  return config;
}

SSLServerConfig EarlyDataServer(
    SSLServerConfig::EarlyData mode = SSLServerConfig::EarlyData::kOn) {
  SSLServerConfig config = LoopbackServerConfig();
  config.early_data = mode;
  return config;
}

class EarlyDataTest : public LoopbackTlsTest {
 protected:
  std::string SessionKey(const LoopbackTlsServer& server) const {
    return std::string(kKey) + ":" + std::to_string(server.address().port());
  }

  // A full handshake whose echo lets the client take the server's tickets.
  void FirstVisit(LoopbackTlsServer* server) {
    std::unique_ptr<SSLClientSocket> socket;
    ASSERT_EQ(OK, ConnectTLS(server->address(), EarlyDataConfig(), &socket));
    EXPECT_FALSE(socket->ssl_info().resumed);
    EXPECT_EQ(socket->ssl_info().early_data, EarlyDataState::kNotOffered);
    EXPECT_EQ(socket->ssl_info().early_data_reason, "no_session_offered");
    EXPECT_FALSE(socket->ssl_info().awaiting_server_response);
    EXPECT_EQ(RoundTrip(socket.get(), "first"), "first");
  }

  // Leaves exactly one copy of a cached session (its ticket) in the cache
  // and returns another copy: a distinct SSL_SESSION with the same ticket.
  bssl::UniquePtr<SSL_SESSION> OneSessionAndACopy(const std::string& key) {
    bssl::UniquePtr<SSL_SESSION> session =
        context_->session_cache()->Lookup(key, absl::Now());
    EXPECT_TRUE(session);
    if (!session) return nullptr;
    uint8_t* bytes = nullptr;
    size_t len = 0;
    EXPECT_TRUE(SSL_SESSION_to_bytes(session.get(), &bytes, &len));
    bssl::UniquePtr<SSL_SESSION> copy(
        SSL_SESSION_from_bytes(bytes, len, context_->ssl_ctx()));
    OPENSSL_free(bytes);
    context_->session_cache()->Flush();
    context_->session_cache()->Insert(key, std::move(session));
    return copy;
  }
};

TEST_F(EarlyDataTest, ResumptionSendsRequestInEarlyDataAndServerAccepts) {
  LoopbackTlsServer server(EarlyDataServer());
  FirstVisit(&server);

  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), EarlyDataConfig(), &socket));
  // Connect completed after the ClientHello alone: the facts wait for the
  // server's answer.
  EXPECT_EQ(socket->ssl_info().early_data, EarlyDataState::kOffered);
  EXPECT_TRUE(socket->ssl_info().awaiting_server_response);
  EXPECT_EQ(RoundTrip(socket.get(), "GET / in 0-RTT"), "GET / in 0-RTT");
  const SSLInfo& info = socket->ssl_info();
  EXPECT_EQ(info.early_data, EarlyDataState::kAccepted);
  EXPECT_EQ(info.early_data_reason, "accepted");
  EXPECT_FALSE(info.awaiting_server_response);
  EXPECT_TRUE(info.resumed);
  EXPECT_EQ(info.version, "TLSv1.3");
  EXPECT_EQ(info.alpn, "http/1.1");
  EXPECT_EQ(info.cert_verify.error, OK);

  ASSERT_EQ(server.connections().size(), 2u);
  const auto& second = *server.connections()[1];
  EXPECT_EQ(second.socket->ssl_info().early_data, EarlyDataState::kAccepted);
  EXPECT_TRUE(second.read_early_data);
  EXPECT_EQ(second.received, "GET / in 0-RTT");
  EXPECT_EQ(server.context()->early_data_anti_replay()->admitted(), 1u);
}

TEST_F(EarlyDataTest, OffByDefaultAndWithoutServerSupport) {
  {
    // The client does not ask: a normal 1-RTT resumption.
    LoopbackTlsServer server(EarlyDataServer());
    FirstVisit(&server);
    std::unique_ptr<SSLClientSocket> socket;
    ASSERT_EQ(OK, ConnectTLS(server.address(), SSLConfig(), &socket));
    EXPECT_EQ(RoundTrip(socket.get(), "x"), "x");
    EXPECT_TRUE(socket->ssl_info().resumed);
    EXPECT_EQ(socket->ssl_info().early_data, EarlyDataState::kNotOffered);
    EXPECT_EQ(socket->ssl_info().early_data_reason, "disabled");
  }
  {
    // The server's tickets carry no 0-RTT permission.
    LoopbackTlsServer server(EarlyDataServer(SSLServerConfig::EarlyData::kOff));
    FirstVisit(&server);
    std::unique_ptr<SSLClientSocket> socket;
    ASSERT_EQ(OK, ConnectTLS(server.address(), EarlyDataConfig(), &socket));
    EXPECT_FALSE(socket->ssl_info().awaiting_server_response);
    EXPECT_EQ(RoundTrip(socket.get(), "x"), "x");
    EXPECT_TRUE(socket->ssl_info().resumed);
    EXPECT_EQ(socket->ssl_info().early_data, EarlyDataState::kNotOffered);
    EXPECT_EQ(socket->ssl_info().early_data_reason, "unsupported_for_session");
    EXPECT_EQ(server.connections()[1]->socket->ssl_info().early_data,
              EarlyDataState::kNotOffered);
  }
}

TEST_F(EarlyDataTest, ServerRejectsEarlyData) {
  LoopbackTlsServer server(
      EarlyDataServer(SSLServerConfig::EarlyData::kReject));
  FirstVisit(&server);

  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), EarlyDataConfig(), &socket));
  EXPECT_EQ(socket->ssl_info().early_data, EarlyDataState::kOffered);
  // The write goes out as early data; the read learns of the rejection.
  EXPECT_EQ(RoundTrip(socket.get(), "GET /"), "ERR_EARLY_DATA_REJECTED");
  EXPECT_EQ(socket->ssl_info().early_data, EarlyDataState::kRejected);
  EXPECT_FALSE(socket->ssl_info().awaiting_server_response);
  EXPECT_FALSE(socket->ssl_info().early_data_reason.empty());

  // The client gives up on the connection (its caller retries elsewhere);
  // the server's handshake fails, knowing what it rejected.
  socket.reset();
  RunPending();
  ASSERT_EQ(server.connections().size(), 2u);
  const auto& second = *server.connections()[1];
  EXPECT_NE(second.handshake_result, OK);
  EXPECT_EQ(second.socket->ssl_info().early_data, EarlyDataState::kRejected);
  EXPECT_EQ(second.socket->ssl_info().early_data_reason,
            "rejected_by_server_configuration");
  // BoringSSL skipped the rejected early data: the server never saw it.
  EXPECT_EQ(second.received, "");
  EXPECT_FALSE(second.read_early_data);

  // A new connection without early data resumes and works.
  std::unique_ptr<SSLClientSocket> retry;
  ASSERT_EQ(OK, ConnectTLS(server.address(), SSLConfig(), &retry));
  EXPECT_EQ(RoundTrip(retry.get(), "GET /"), "GET /");
  EXPECT_TRUE(retry->ssl_info().resumed);
}

TEST_F(EarlyDataTest, StrikeRegisterRejectsAReplayedTicket) {
  LoopbackTlsServer server(EarlyDataServer());
  FirstVisit(&server);
  bssl::UniquePtr<SSL_SESSION> copy = OneSessionAndACopy(SessionKey(server));
  ASSERT_TRUE(copy);

  std::unique_ptr<SSLClientSocket> first;
  ASSERT_EQ(OK, ConnectTLS(server.address(), EarlyDataConfig(), &first));
  EXPECT_EQ(RoundTrip(first.get(), "one"), "one");
  EXPECT_EQ(first->ssl_info().early_data, EarlyDataState::kAccepted);

  // The same ticket again (as a replaying attacker would send it, or a
  // client that reuses tickets): 0-RTT rejected, nothing read early.
  context_->session_cache()->Flush();
  context_->session_cache()->Insert(SessionKey(server), std::move(copy));
  std::unique_ptr<SSLClientSocket> second;
  ASSERT_EQ(OK, ConnectTLS(server.address(), EarlyDataConfig(), &second));
  EXPECT_EQ(second->ssl_info().early_data, EarlyDataState::kOffered);
  EXPECT_EQ(RoundTrip(second.get(), "two"), "ERR_EARLY_DATA_REJECTED");
  second.reset();
  RunPending();
  ASSERT_EQ(server.connections().size(), 3u);
  const SSLInfo& server_info = server.connections()[2]->socket->ssl_info();
  EXPECT_EQ(server_info.early_data, EarlyDataState::kRejected);
  EXPECT_EQ(server_info.early_data_reason, "replayed_ticket");
  EXPECT_EQ(server.connections()[2]->received, "");
  EXPECT_EQ(server.context()->early_data_anti_replay()->replayed(), 1u);
}

TEST_F(EarlyDataTest, ClientSendsEarlyDataOncePerTicket) {
  LoopbackTlsServer server(EarlyDataServer());
  FirstVisit(&server);
  OneSessionAndACopy(SessionKey(server));  // Leaves one session.

  // The cache hands its last session out without removing it; only its
  // first use carries early data, the second resumes in 1-RTT.
  std::unique_ptr<SSLClientSocket> first, second;
  ASSERT_EQ(OK, ConnectTLS(server.address(), EarlyDataConfig(), &first));
  ASSERT_EQ(OK, ConnectTLS(server.address(), EarlyDataConfig(), &second));
  EXPECT_EQ(RoundTrip(first.get(), "one"), "one");
  EXPECT_EQ(RoundTrip(second.get(), "two"), "two");
  EXPECT_EQ(first->ssl_info().early_data, EarlyDataState::kAccepted);
  EXPECT_EQ(second->ssl_info().early_data, EarlyDataState::kNotOffered);
  EXPECT_EQ(second->ssl_info().early_data_reason,
            "ticket_already_used_for_early_data");
  EXPECT_TRUE(second->ssl_info().resumed);
}

TEST_F(EarlyDataTest, ServerChoosingTls12FailsWithWrongVersion) {
  LoopbackTlsServer tls13(EarlyDataServer());
  FirstVisit(&tls13);
  bssl::UniquePtr<SSL_SESSION> session =
      context_->session_cache()->Lookup(SessionKey(tls13), absl::Now());
  ASSERT_TRUE(session);

  // The same name served by a TLS 1.2-only server (a downgraded
  // deployment): the 0-RTT attempt must fail, and a retry without it work.
  SSLServerConfig config = EarlyDataServer();
  config.version_max = TLS1_2_VERSION;
  LoopbackTlsServer tls12(config);
  context_->session_cache()->Insert(SessionKey(tls12), std::move(session));
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(tls12.address(), EarlyDataConfig(), &socket));
  EXPECT_EQ(RoundTrip(socket.get(), "x"), "ERR_WRONG_VERSION_ON_EARLY_DATA");

  std::unique_ptr<SSLClientSocket> retry;
  ASSERT_EQ(OK, ConnectTLS(tls12.address(), SSLConfig(), &retry));
  EXPECT_EQ(RoundTrip(retry.get(), "x"), "x");
  EXPECT_EQ(retry->ssl_info().version, "TLSv1.2");
}

TEST(EarlyDataAntiReplayTest, AdmitsEachTicketOncePerWindow) {
  SimpleTestTickClock clock;
  EarlyDataAntiReplay anti_replay(absl::Seconds(125), 3, &clock);
  using Verdict = EarlyDataAntiReplay::Verdict;
  EXPECT_EQ(anti_replay.Admit("ticket-a"), Verdict::kAdmitted);
  EXPECT_EQ(anti_replay.Admit("ticket-a"), Verdict::kReplayed);
  EXPECT_EQ(anti_replay.Admit("ticket-b"), Verdict::kAdmitted);
  clock.Advance(absl::Seconds(100));
  EXPECT_EQ(anti_replay.Admit("ticket-a"), Verdict::kReplayed);
  EXPECT_EQ(anti_replay.Admit("ticket-c"), Verdict::kAdmitted);
  // Full: fails closed.
  EXPECT_EQ(anti_replay.Admit("ticket-d"), Verdict::kFull);
  EXPECT_EQ(anti_replay.size(), 3u);
  // Past the window (BoringSSL's ticket-age check refuses such old
  // ClientHellos itself) the entries go, and room returns.
  clock.Advance(absl::Seconds(26));
  EXPECT_EQ(anti_replay.size(), 3u);  // Expiry happens on Admit.
  EXPECT_EQ(anti_replay.Admit("ticket-d"), Verdict::kAdmitted);
  EXPECT_EQ(anti_replay.size(), 2u);  // c and d
  EXPECT_EQ(anti_replay.Admit("ticket-c"), Verdict::kReplayed);
  EXPECT_EQ(anti_replay.admitted(), 4u);
  EXPECT_EQ(anti_replay.replayed(), 3u);
  EXPECT_EQ(anti_replay.refused_full(), 1u);
}

}  // namespace
}  // namespace net
