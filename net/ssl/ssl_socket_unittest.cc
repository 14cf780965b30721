// SSLClientSocket against SSLServerSocket over real loopback TCP, in one
// event loop: handshakes, False Start, resumption, coalescing, failures.

#include <openssl/ssl.h>

#include "cert/obc/client_cert_provider.h"
#include "net/ssl/tls_loopback_test_util.h"

namespace net {
namespace {

class SSLSocketTest : public LoopbackTlsTest {
 protected:
  // Connects to a server that answers the ClientHello with |answer|
  // instead of TLS (and then keeps the connection open).
  int ConnectToNonTlsServer(const std::string& answer,
                            std::unique_ptr<SSLClientSocket>* out) {
    TCPServerSocket listener;
    EXPECT_EQ(OK,
              listener.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 4));
    IPEndPoint address;
    listener.GetLocalAddress(&address);
    std::unique_ptr<StreamSocket> accepted;
    auto junk = std::make_shared<IOBuffer>(answer);
    listener.Accept(&accepted, [&](int rv) {
      ASSERT_EQ(rv, OK);
      accepted->Write(junk, static_cast<int>(answer.size()), [](int) {});
    });
    return ConnectTLS(address, SSLConfig(), out);
  }
};

TEST_F(SSLSocketTest, Tls13HandshakeAndData) {
  LoopbackTlsServer server(LoopbackServerConfig());
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), SSLConfig(), &socket))
      << (socket ? socket->error_detail() : "");
  EXPECT_EQ(socket->ssl_info().version, "TLSv1.3");
  EXPECT_EQ(socket->ssl_info().alpn, "http/1.1");
  EXPECT_FALSE(socket->ssl_info().resumed);
  EXPECT_FALSE(socket->ssl_info().false_start);
  EXPECT_EQ(socket->ssl_info().cert_verify.error, OK);
  EXPECT_EQ(socket->ssl_info().peer_cert_count, 2);
  EXPECT_EQ(RoundTrip(socket.get(), "hello tls13"), "hello tls13");
}

TEST_F(SSLSocketTest, Tls12FalseStartWithEcdheAead) {
  LoopbackTlsServer server(
      LoopbackServerConfig("good_ecdsa_leaf_chain.pem", "good_ecdsa_leaf.key"));
  SSLConfig config;
  config.version_max = TLS1_2_VERSION;
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), config, &socket));
  EXPECT_EQ(socket->ssl_info().version, "TLSv1.2");
  EXPECT_EQ(socket->ssl_info().cipher,
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
  EXPECT_TRUE(socket->ssl_info().false_start);
  EXPECT_EQ(RoundTrip(socket.get(), "early data"), "early data");
}

TEST_F(SSLSocketTest, NoFalseStartWhenDisabledOrWithoutAlpn) {
  LoopbackTlsServer server(LoopbackServerConfig());
  SSLConfig config;
  config.version_max = TLS1_2_VERSION;
  config.false_start_enabled = false;
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), config, &socket));
  EXPECT_FALSE(socket->ssl_info().false_start);
  EXPECT_EQ(RoundTrip(socket.get(), "x"), "x");

  // BoringSSL refuses False Start without ALPN.
  SSLConfig no_alpn;
  no_alpn.version_max = TLS1_2_VERSION;
  no_alpn.alpn_protos.clear();
  no_alpn.session_resumption_enabled = false;
  ASSERT_EQ(OK, ConnectTLS(server.address(), no_alpn, &socket));
  EXPECT_FALSE(socket->ssl_info().false_start);
}

TEST_F(SSLSocketTest, ResumesTls12AndTls13Sessions) {
  for (uint16_t version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    SCOPED_TRACE(version);
    LoopbackTlsServer server(LoopbackServerConfig());
    SSLConfig config;
    config.version_max = version;
    std::unique_ptr<SSLClientSocket> first, second;
    ASSERT_EQ(OK, ConnectTLS(server.address(), config, &first));
    // Reading lets the client process the TLS 1.3 tickets.
    EXPECT_EQ(RoundTrip(first.get(), "one"), "one");
    ASSERT_EQ(OK, ConnectTLS(server.address(), config, &second));
    EXPECT_TRUE(second->ssl_info().resumed);
    EXPECT_EQ(RoundTrip(second.get(), "two"), "two");
    EXPECT_EQ(server.full_handshakes(), 1);
    EXPECT_EQ(server.resumed_handshakes(), 1);
  }
}

// A socket nobody reads (preconnected, or kept alive between requests) still
// takes in the TLS 1.3 NewSessionTickets that follow the handshake: the
// session reaches the cache, so the next connection resumes, and the socket
// stays idle for the pool. Without it the tickets sat unread in the adapter,
// the socket looked busy, and coalesced connections waited for a session
// that never came (the world's `fetch --preconnect`).
TEST_F(SSLSocketTest, IdleSocketTakesInTls13Tickets) {
  LoopbackTlsServer server(LoopbackServerConfig());
  std::unique_ptr<SSLClientSocket> first;
  ASSERT_EQ(OK, ConnectTLS(server.address(), SSLConfig(), &first));
  ASSERT_EQ(first->ssl_info().version, "TLSv1.3");
  const std::string key =
      "www.example.test:" + std::to_string(server.address().port());
  RunUntil([&] { return context_->session_cache()->Has(key, absl::Now()); });
  EXPECT_TRUE(context_->session_cache()->Has(key, absl::Now()));
  EXPECT_TRUE(first->IsConnectedAndIdle());
  std::unique_ptr<SSLClientSocket> second;
  ASSERT_EQ(OK, ConnectTLS(server.address(), SSLConfig(), &second));
  EXPECT_TRUE(second->ssl_info().resumed);
  EXPECT_EQ(server.full_handshakes(), 1);
  // The idle socket still works.
  EXPECT_EQ(RoundTrip(first.get(), "after tickets"), "after tickets");
}

// Application data that arrives while nobody reads is kept for the next
// Read, and the socket is not idle.
TEST_F(SSLSocketTest, DataArrivingWhileIdleIsKeptForRead) {
  LoopbackTlsServer server(LoopbackServerConfig());
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), SSLConfig(), &socket));
  RunUntil([&] { return server.full_handshakes() > 0; });
  ASSERT_EQ(server.full_handshakes(), 1);
  const std::string pushed = "unsolicited";
  auto buf = std::make_shared<IOBuffer>(pushed);
  TestCompletionCallback write_cb;
  EXPECT_EQ(static_cast<int>(pushed.size()),
            write_cb.GetResult(server.last()->Write(
                buf, static_cast<int>(pushed.size()), write_cb.callback())));
  RunUntil([&] { return !socket->IsConnectedAndIdle(); });
  EXPECT_FALSE(socket->IsConnectedAndIdle());
  EXPECT_TRUE(socket->IsConnected());
  auto in = std::make_shared<IOBuffer>(64);
  TestCompletionCallback read_cb;
  int n = read_cb.GetResult(socket->Read(in, 64, read_cb.callback()));
  ASSERT_EQ(n, static_cast<int>(pushed.size()));
  EXPECT_EQ(std::string(in->data(), n), pushed);
}

TEST_F(SSLSocketTest, ParallelConnectionsCoalesceIntoOneFullHandshake) {
  for (uint16_t version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    SCOPED_TRACE(version);
    context_ = std::make_unique<SSLClientContext>(verifier_.get());
    LoopbackTlsServer server(LoopbackServerConfig());
    SSLConfig config;
    config.version_max = version;
    config.coalesce_handshakes = true;  // opt-in
    std::vector<std::unique_ptr<SSLClientSocket>> sockets;
    std::vector<int> results(6, 1);
    int done = 0;
    for (int i = 0; i < 6; ++i) {
      sockets.push_back(std::make_unique<SSLClientSocket>(
          ConnectLoopbackTcp(server.address()), kLoopbackHost,
          server.address().port(), config, context_.get()));
    }
    for (int i = 0; i < 6; ++i) {
      int rv = sockets[i]->Connect([&, i](int rv) {
        results[i] = rv;
        ++done;
        // The leader reads, which delivers TLS 1.3 tickets.
        if (rv == OK && !sockets[i]->ssl_info().resumed) {
          auto out = std::make_shared<IOBuffer>(absl::string_view("go"));
          sockets[i]->Write(out, 2, [](int) {});
          auto in = std::make_shared<IOBuffer>(16);
          sockets[i]->Read(in, 16, [](int) {});
        }
        if (done == 6) loop_.Quit();
      });
      if (rv != ERR_IO_PENDING) {
        results[i] = rv;
        ++done;
      }
    }
    if (done < 6) loop_.Run();
    for (int rv : results) EXPECT_EQ(rv, OK);
    int resumed = 0, waited = 0;
    for (auto& s : sockets) {
      resumed += s->ssl_info().resumed;
      waited += s->ssl_info().waited_for_session;
    }
    EXPECT_EQ(resumed, 5);
    EXPECT_EQ(waited, 5);
    RunPending();
    EXPECT_EQ(server.full_handshakes(), 1);
    EXPECT_EQ(server.resumed_handshakes(), 5);
  }
}

// Connections that start after the leader's handshake finished, but before
// its TLS 1.3 ticket arrived, still wait for that ticket and resume. (The
// server holds its tickets until it writes, as BoringSSL does by default.)
TEST_F(SSLSocketTest, LateConnectionsWaitForAFinishedLeadersSession) {
  SSLServerConfig config = LoopbackServerConfig();
  config.tls13_tickets_at_handshake = false;
  LoopbackTlsServer server(config);
  SSLConfig coalesce;
  coalesce.coalesce_handshakes = true;  // opt-in
  std::unique_ptr<SSLClientSocket> leader;
  ASSERT_EQ(OK, ConnectTLS(server.address(), coalesce, &leader));
  EXPECT_FALSE(leader->ssl_info().resumed);
  std::vector<std::unique_ptr<SSLClientSocket>> late;
  int done = 0;
  for (int i = 0; i < 5; ++i) {
    late.push_back(std::make_unique<SSLClientSocket>(
        ConnectLoopbackTcp(server.address()), kLoopbackHost,
        server.address().port(), coalesce, context_.get()));
    ASSERT_EQ(ERR_IO_PENDING, late.back()->Connect([&](int rv) {
      EXPECT_EQ(rv, OK);
      ++done;
    }));
  }
  // The leader reads, which delivers its tickets and wakes the others.
  EXPECT_EQ(RoundTrip(leader.get(), "tickets"), "tickets");
  while (done < 5) loop_.RunUntilIdle();
  for (auto& s : late) {
    EXPECT_TRUE(s->ssl_info().resumed);
    EXPECT_TRUE(s->ssl_info().waited_for_session);
  }
  EXPECT_EQ(server.full_handshakes(), 1);
}

TEST_F(SSLSocketTest, CertificateErrorsAreNamed) {
  struct Case {
    const char* chain;
    const char* key;
    const char* host;
    int expected;
  } cases[] = {
      {"expired_leaf_chain.pem", "expired_leaf.key", "www.example.test",
       ERR_CERT_DATE_INVALID},
      {"good_leaf_chain.pem", "good_leaf.key", "wrong.example.test",
       ERR_CERT_COMMON_NAME_INVALID},
      {"untrusted_leaf_chain.pem", "untrusted_leaf.key", "www.example.test",
       ERR_CERT_AUTHORITY_INVALID},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.chain);
    LoopbackTlsServer server(LoopbackServerConfig(c.chain, c.key));
    std::unique_ptr<SSLClientSocket> socket;
    EXPECT_EQ(c.expected,
              ConnectTLS(server.address(), c.host, SSLConfig(), &socket));
    EXPECT_FALSE(socket->error_detail().empty());
    // The server is told why: it fails on our fatal alert.
    RunPending();
    ASSERT_FALSE(server.connections().empty());
    EXPECT_NE(server.last()->error_detail().find("ALERT"), std::string::npos)
        << server.last()->error_detail();
  }
}

TEST_F(SSLSocketTest, VersionMismatchIsNamed) {
  SSLServerConfig server_config = LoopbackServerConfig();
  server_config.version_min = TLS1_3_VERSION;
  LoopbackTlsServer server(server_config);
  SSLConfig config;
  config.version_max = TLS1_2_VERSION;
  std::unique_ptr<SSLClientSocket> socket;
  EXPECT_EQ(ERR_SSL_VERSION_OR_CIPHER_MISMATCH,
            ConnectTLS(server.address(), config, &socket));
}

TEST_F(SSLSocketTest, ServerClosingMidHandshake) {
  TCPServerSocket listener;
  ASSERT_EQ(OK, listener.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 4));
  IPEndPoint address;
  listener.GetLocalAddress(&address);
  std::unique_ptr<StreamSocket> accepted;
  auto buf = std::make_shared<IOBuffer>(4096);
  // Read the ClientHello, then close without answering.
  listener.Accept(&accepted, [&](int rv) {
    ASSERT_EQ(rv, OK);
    accepted->Read(buf, 4096, [&](int n) {
      EXPECT_GT(n, 0);
      accepted.reset();
    });
  });
  std::unique_ptr<SSLClientSocket> socket;
  EXPECT_EQ(ERR_SSL_HANDSHAKE_CLOSED,
            ConnectTLS(address, SSLConfig(), &socket));
}

TEST_F(SSLSocketTest, PlainHttpFromServerIsNotTls) {
  std::unique_ptr<SSLClientSocket> socket;
  int rv = ConnectToNonTlsServer("HTTP/1.1 400 Bad Request\r\n\r\n", &socket);
  EXPECT_EQ(rv, ERR_SSL_PROTOCOL_ERROR) << ErrorToString(rv);
  const std::string& detail = socket->error_detail();
  EXPECT_NE(detail.find("peer does not speak TLS"), std::string::npos)
      << detail;
  EXPECT_NE(detail.find("\"HTTP/1.1 400"), std::string::npos) << detail;
  EXPECT_NE(detail.find("plain HTTP"), std::string::npos) << detail;
}

TEST_F(SSLSocketTest, RandomBytesFromServerAreNotTls) {
  // Fixed "random" bytes; the second is not 0x03, so they cannot pass for
  // a TLS record header by chance.
  const std::string noise(
      "\x8f\x3a\x11\xc4\x7e\x00\x92\xd5\x5b\x21\xee\x04"
      "\x6a\xb7\x30\x19",
      16);
  std::unique_ptr<SSLClientSocket> socket;
  int rv = ConnectToNonTlsServer(noise, &socket);
  EXPECT_EQ(rv, ERR_SSL_PROTOCOL_ERROR) << ErrorToString(rv);
  const std::string& detail = socket->error_detail();
  EXPECT_NE(detail.find("peer does not speak TLS"), std::string::npos)
      << detail;
  EXPECT_NE(detail.find("8f 3a 11 c4"), std::string::npos) << detail;
}

// A ClientCertProvider that fails with |error|, at once or later.
class FailingClientCertProvider : public ClientCertProvider {
 public:
  FailingClientCertProvider(int error, bool async)
      : error_(error), async_(async) {}
  int GetClientCert(const Origin& origin, ClientCert* cert,
                    CompletionOnceCallback callback,
                    std::unique_ptr<Request>* out_request) override {
    ++calls;
    if (!async_) return error_;
    EventLoop::Current()->PostTask(
        [callback = std::move(callback), error = error_]() mutable {
          std::move(callback)(error);
        });
    return ERR_IO_PENDING;
  }
  int calls = 0;

 private:
  const int error_;
  const bool async_;
};

// The server asks for a client certificate and the OBC cannot be had: the
// handshake fails with the OBC's own error and says so, not with a generic
// TLS error (BoringSSL reports only SSL_ERROR_SSL when the certificate
// callback fails). The provider is asked once.
TEST_F(SSLSocketTest, ObcFailureKeepsItsCause) {
  LoopbackTlsServer server(LoopbackServerConfig());
  server.RequestClientCertificates();
  for (uint16_t version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    for (bool async : {false, true}) {
      SCOPED_TRACE(testing::Message()
                   << "version " << version << " async " << async);
      FailingClientCertProvider key_failure(ERR_OBC_KEY_GENERATION_FAILED,
                                            async);
      SSLConfig config;
      config.version_min = config.version_max = version;
      config.client_cert_provider = &key_failure;
      std::unique_ptr<SSLClientSocket> socket;
      int rv = ConnectTLS(server.address(), config, &socket);
      EXPECT_EQ(rv, ERR_OBC_KEY_GENERATION_FAILED) << ErrorToString(rv);
      EXPECT_EQ(key_failure.calls, 1);
      EXPECT_NE(socket->error_detail().find("no origin-bound certificate"),
                std::string::npos)
          << socket->error_detail();
      EXPECT_NE(socket->error_detail().find("ERR_OBC_KEY_GENERATION_FAILED"),
                std::string::npos)
          << socket->error_detail();

      // Any other failure of the provider is "unavailable", its error named.
      FailingClientCertProvider other(ERR_INVALID_URL, async);
      config.client_cert_provider = &other;
      rv = ConnectTLS(server.address(), config, &socket);
      EXPECT_EQ(rv, ERR_OBC_CERT_UNAVAILABLE) << ErrorToString(rv);
      EXPECT_NE(socket->error_detail().find("ERR_INVALID_URL"),
                std::string::npos)
          << socket->error_detail();
    }
  }
}

}  // namespace
}  // namespace net
