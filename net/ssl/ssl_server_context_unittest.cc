// SSLServerContext's external session cache: our client resumes TLS 1.2
// sessions through net/session_cache (LRU, PRED) hooked into BoringSSL's
// session callbacks; PRED's newcomer rule and the next-connect hint; TLS 1.3
// and tickets bypass it; expired sessions are dropped.

#include "net/ssl/ssl_server_context.h"

#include <ctime>

#include "net/ssl/tls_loopback_test_util.h"

namespace net {
namespace {

SSLServerConfig ServerConfig(const char* spec) {
  SSLServerConfig config = LoopbackServerConfig();
  config.tickets = false;
  config.version_max = TLS1_2_VERSION;
  if (spec) config.external_session_cache = *ParseSessionCacheSpec(spec);
  return config;
}

class ExternalSessionCacheTest : public LoopbackTlsTest {
 protected:
  // A client with its own session cache (one per simulated device).
  std::unique_ptr<SSLClientContext> NewClient() {
    return std::make_unique<SSLClientContext>(verifier_.get());
  }

  // Connects |client| to |server| and returns whether the handshake resumed
  // (after letting the server finish its side).
  bool Connect(LoopbackTlsServer& server, SSLClientContext* client,
               uint16_t version_max = TLS1_2_VERSION) {
    SSLConfig config;
    config.version_max = version_max;
    // Without False Start the TLS 1.2 handshake ends with the server's
    // Finished, so the client has its session when Connect returns.
    config.false_start_enabled = false;
    std::unique_ptr<SSLClientSocket> socket;
    EXPECT_EQ(OK, ConnectTLS(server.address(), kLoopbackHost, config, &socket,
                             client))
        << (socket ? socket->error_detail() : "TCP connect failed");
    if (!socket) return false;
    // The client's last flight lets the server finish its side.
    auto out = std::make_shared<IOBuffer>(std::string("x"));
    TestCompletionCallback cb;
    EXPECT_EQ(1, cb.GetResult(socket->Write(out, 1, cb.callback())));
    loop_.RunUntilIdle();
    for (int i = 0; i < 100 && !server.last()->session(); ++i)
      loop_.RunUntilIdle();
    return socket->ssl_info().resumed;
  }
};

TEST_F(ExternalSessionCacheTest, ResumesThroughTheExternalCache) {
  LoopbackTlsServer server(ServerConfig("lru:8"));
  auto client = NewClient();
  EXPECT_FALSE(Connect(server, client.get()));
  EXPECT_TRUE(Connect(server, client.get()));
  EXPECT_TRUE(Connect(server, client.get()));
  SessionCacheStats stats = server.context()->external_session_cache()->stats();
  EXPECT_EQ(1u, stats.inserts);
  EXPECT_EQ(2u, stats.lookups);
  EXPECT_EQ(2u, stats.hits);
  EXPECT_EQ(1u, server.context()->external_session_cache()->size());
  // BoringSSL's own table is not used.
  EXPECT_EQ(0u, SSL_CTX_sess_number(server.context()->ssl_ctx()));
}

TEST_F(ExternalSessionCacheTest, EvictedSessionMeansAFullHandshake) {
  LoopbackTlsServer server(ServerConfig("fifo:1"));
  auto a = NewClient();
  auto b = NewClient();
  EXPECT_FALSE(Connect(server, a.get()));
  EXPECT_FALSE(Connect(server, b.get()));  // evicts a's session
  EXPECT_FALSE(Connect(server, a.get()));  // offered, not found: full
  EXPECT_EQ(2u, server.context()->external_session_cache()->stats().evictions);
}

TEST_F(ExternalSessionCacheTest, PredAdmitsByAnnouncedNextConnect) {
  LoopbackTlsServer server(ServerConfig("pred:1"));
  SSLServerContext* context = server.context();
  auto a = NewClient();
  auto b = NewClient();
  EXPECT_FALSE(Connect(server, a.get()));
  EXPECT_EQ(
      SessionIndex::PutOutcome::kUpdated,
      context->SetNextConnect(server.last()->session(), absl::Seconds(60)));
  // b's new session, unannounced, is the farthest: not admitted...
  EXPECT_FALSE(Connect(server, b.get()));
  EXPECT_EQ(1u, context->external_session_cache()->stats().rejections);
  // ...until b announces a nearer next connect than a's; a's session goes.
  EXPECT_EQ(
      SessionIndex::PutOutcome::kInserted,
      context->SetNextConnect(server.last()->session(), absl::Seconds(10)));
  EXPECT_TRUE(Connect(server, b.get()));
  EXPECT_FALSE(Connect(server, a.get()));
  // a announces farther than b: rejected again, b keeps resuming.
  EXPECT_EQ(
      SessionIndex::PutOutcome::kRejected,
      context->SetNextConnect(server.last()->session(), absl::Seconds(60)));
  EXPECT_TRUE(Connect(server, b.get()));
}

TEST_F(ExternalSessionCacheTest, Tls13AndTicketsBypassTheCache) {
  // TLS 1.3 sessions have no ID: without tickets nothing resumes.
  SSLServerConfig config = ServerConfig("lru:8");
  config.version_max = TLS1_3_VERSION;
  LoopbackTlsServer no_tickets(config);
  auto client = NewClient();
  EXPECT_FALSE(Connect(no_tickets, client.get(), TLS1_3_VERSION));
  EXPECT_FALSE(Connect(no_tickets, client.get(), TLS1_3_VERSION));
  EXPECT_EQ(0u, no_tickets.context()->external_session_cache()->size());
  EXPECT_FALSE(no_tickets.context()->SetNextConnect(
      no_tickets.last()->session(), absl::Seconds(1)));
  // With tickets, TLS 1.2 resumes by ticket and leaves the cache empty too.
  config = ServerConfig("lru:8");
  config.tickets = true;
  LoopbackTlsServer tickets(config);
  auto other = NewClient();
  EXPECT_FALSE(Connect(tickets, other.get()));
  EXPECT_TRUE(Connect(tickets, other.get()));
  EXPECT_EQ(0u, tickets.context()->external_session_cache()->stats().lookups);
}

TEST_F(ExternalSessionCacheTest, ExpiredSessionIsDropped) {
  LoopbackTlsServer server(ServerConfig("lru:8"));
  auto client = NewClient();
  EXPECT_FALSE(Connect(server, client.get()));
  // Age the cached session past its lifetime.
  SSL_SESSION* session = server.last()->session();
  SSL_SESSION_set_time(session,
                       time(nullptr) - 2 * SSL_SESSION_get_timeout(session));
  EXPECT_FALSE(Connect(server, client.get()));
  EXPECT_EQ(1u, server.context()->external_session_cache()->stats().removals);
}

TEST(SSLServerContextTest, BadExternalCacheConfigIsAnError) {
  SSLServerConfig config = ServerConfig(nullptr);
  SessionCacheConfig cache;
  cache.capacity = 10;
  cache.ways = 3;
  config.external_session_cache = cache;
  auto context = SSLServerContext::Create(config);
  EXPECT_EQ(absl::StatusCode::kInvalidArgument, context.status().code());
}

}  // namespace
}  // namespace net
