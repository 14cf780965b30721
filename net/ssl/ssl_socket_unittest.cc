// SSLClientSocket against SSLServerSocket over real loopback TCP, in one
// event loop: handshakes, False Start, resumption, coalescing, failures.

#include <openssl/ssl.h>

#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/socket/tcp_client_socket.h"
#include "net/socket/tcp_server_socket.h"
#include "net/ssl/ssl_client_socket.h"
#include "net/ssl/ssl_server_socket.h"

namespace net {
namespace {

constexpr char kDir[] = "cert/testdata/";

std::string Fixture(const char* name) { return std::string(kDir) + name; }

// A TLS server on an ephemeral loopback port that accepts connections,
// handshakes, and echoes what it reads.
class EchoServer {
 public:
  explicit EchoServer(const SSLServerConfig& config) {
    auto context = SSLServerContext::Create(config);
    EXPECT_TRUE(context.ok()) << context.status();
    context_ = std::move(*context);
    EXPECT_EQ(OK,
              listener_.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 64));
    listener_.GetLocalAddress(&address_);
    Accept();
  }
  const IPEndPoint& address() const { return address_; }
  // Sends a CertificateRequest in every handshake and accepts any client
  // certificate, or none (OBC semantics, as tools/testserver does).
  void RequestClientCertificates() {
    SSL_CTX_set_custom_verify(
        context_->ssl_ctx(), SSL_VERIFY_PEER,
        [](SSL*, uint8_t*) -> ssl_verify_result_t { return ssl_verify_ok; });
  }
  int full_handshakes() const { return full_; }
  int resumed_handshakes() const { return resumed_; }
  const std::vector<std::unique_ptr<SSLServerSocket>>& connections() const {
    return connections_;
  }

 private:
  void Accept() {
    for (;;) {
      int rv = listener_.Accept(&accepted_, [this](int rv) {
        if (rv == OK) OnAccepted();
        Accept();
      });
      if (rv != OK) return;
      OnAccepted();
    }
  }
  void OnAccepted() {
    connections_.push_back(std::make_unique<SSLServerSocket>(
        std::move(accepted_), context_.get()));
    SSLServerSocket* socket = connections_.back().get();
    int rv =
        socket->Handshake([this, socket](int rv) { OnHandshake(socket, rv); });
    if (rv != ERR_IO_PENDING) OnHandshake(socket, rv);
  }
  void OnHandshake(SSLServerSocket* socket, int rv) {
    if (rv != OK) return;
    (socket->ssl_info().resumed ? resumed_ : full_)++;
    Echo(socket);
  }
  void Echo(SSLServerSocket* socket) {
    auto buf = std::make_shared<IOBuffer>(4096);
    int rv = socket->Read(buf, 4096, [this, socket, buf](int rv) {
      if (rv > 0) Reply(socket, buf, rv);
    });
    if (rv > 0) Reply(socket, buf, rv);
  }
  void Reply(SSLServerSocket* socket, std::shared_ptr<IOBuffer> buf, int len) {
    int rv = socket->Write(buf, len, [this, socket](int rv) {
      if (rv > 0) Echo(socket);
    });
    if (rv > 0) Echo(socket);
  }

  std::unique_ptr<SSLServerContext> context_;
  TCPServerSocket listener_;
  IPEndPoint address_;
  std::unique_ptr<StreamSocket> accepted_;
  std::vector<std::unique_ptr<SSLServerSocket>> connections_;
  int full_ = 0;
  int resumed_ = 0;
};

SSLServerConfig ServerConfig(const char* chain = "good_leaf_chain.pem",
                             const char* key = "good_leaf.key") {
  SSLServerConfig config;
  config.cert_chain_file = Fixture(chain);
  config.key_file = Fixture(key);
  return config;
}

class SSLSocketTest : public ::testing::Test {
 protected:
  SSLSocketTest() {
    auto verifier =
        BasicCertVerifier::Create({Fixture("good_root.pem")}, false);
    EXPECT_TRUE(verifier.ok());
    verifier_ = std::move(*verifier);
    context_ = std::make_unique<SSLClientContext>(verifier_.get());
  }

  // Connects TCP then TLS; returns the TLS result.
  int ConnectTLS(const IPEndPoint& address, const std::string& host,
                 const SSLConfig& config,
                 std::unique_ptr<SSLClientSocket>* out) {
    auto tcp = std::make_unique<TCPClientSocket>(address, absl::Seconds(5));
    TestCompletionCallback cb;
    int rv = cb.GetResult(tcp->Connect(cb.callback()));
    if (rv != OK) return rv;
    *out = std::make_unique<SSLClientSocket>(
        std::move(tcp), host, address.port(), config, context_.get());
    return cb.GetResult((*out)->Connect(cb.callback()));
  }

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
    return ConnectTLS(address, "www.example.test", SSLConfig(), out);
  }

  std::string RoundTrip(SSLClientSocket* socket, const std::string& message) {
    TestCompletionCallback cb;
    auto out = std::make_shared<IOBuffer>(message);
    EXPECT_EQ(static_cast<int>(message.size()),
              cb.GetResult(socket->Write(out, message.size(), cb.callback())));
    std::string got;
    while (got.size() < message.size()) {
      auto in = std::make_shared<IOBuffer>(4096);
      int n = cb.GetResult(socket->Read(in, 4096, cb.callback()));
      if (n <= 0) break;
      got.append(in->data(), n);
    }
    return got;
  }

  EventLoop loop_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<SSLClientContext> context_;
};

TEST_F(SSLSocketTest, Tls13HandshakeAndData) {
  EchoServer server(ServerConfig());
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), "www.example.test", SSLConfig(),
                           &socket))
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
  EchoServer server(
      ServerConfig("good_ecdsa_leaf_chain.pem", "good_ecdsa_leaf.key"));
  SSLConfig config;
  config.version_max = TLS1_2_VERSION;
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK,
            ConnectTLS(server.address(), "www.example.test", config, &socket));
  EXPECT_EQ(socket->ssl_info().version, "TLSv1.2");
  EXPECT_EQ(socket->ssl_info().cipher,
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
  EXPECT_TRUE(socket->ssl_info().false_start);
  EXPECT_EQ(RoundTrip(socket.get(), "early data"), "early data");
}

TEST_F(SSLSocketTest, NoFalseStartWhenDisabledOrWithoutAlpn) {
  EchoServer server(ServerConfig());
  SSLConfig config;
  config.version_max = TLS1_2_VERSION;
  config.false_start_enabled = false;
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK,
            ConnectTLS(server.address(), "www.example.test", config, &socket));
  EXPECT_FALSE(socket->ssl_info().false_start);
  EXPECT_EQ(RoundTrip(socket.get(), "x"), "x");

  // BoringSSL refuses False Start without ALPN.
  SSLConfig no_alpn;
  no_alpn.version_max = TLS1_2_VERSION;
  no_alpn.alpn_protos.clear();
  no_alpn.session_resumption_enabled = false;
  ASSERT_EQ(OK,
            ConnectTLS(server.address(), "www.example.test", no_alpn, &socket));
  EXPECT_FALSE(socket->ssl_info().false_start);
}

TEST_F(SSLSocketTest, ResumesTls12AndTls13Sessions) {
  for (uint16_t version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    SCOPED_TRACE(version);
    EchoServer server(ServerConfig());
    SSLConfig config;
    config.version_max = version;
    std::unique_ptr<SSLClientSocket> first, second;
    ASSERT_EQ(OK,
              ConnectTLS(server.address(), "www.example.test", config, &first));
    // Reading lets the client process the TLS 1.3 tickets.
    EXPECT_EQ(RoundTrip(first.get(), "one"), "one");
    ASSERT_EQ(
        OK, ConnectTLS(server.address(), "www.example.test", config, &second));
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
  EchoServer server(ServerConfig());
  std::unique_ptr<SSLClientSocket> first;
  ASSERT_EQ(OK, ConnectTLS(server.address(), "www.example.test", SSLConfig(),
                           &first));
  ASSERT_EQ(first->ssl_info().version, "TLSv1.3");
  const std::string key =
      "www.example.test:" + std::to_string(server.address().port());
  for (int i = 0; i < 250 && !context_->session_cache()->Has(key, absl::Now());
       ++i) {
    loop_.PostDelayedTask(absl::Milliseconds(20), [this] { loop_.Quit(); });
    loop_.Run();
  }
  EXPECT_TRUE(context_->session_cache()->Has(key, absl::Now()));
  EXPECT_TRUE(first->IsConnectedAndIdle());
  std::unique_ptr<SSLClientSocket> second;
  ASSERT_EQ(OK, ConnectTLS(server.address(), "www.example.test", SSLConfig(),
                           &second));
  EXPECT_TRUE(second->ssl_info().resumed);
  EXPECT_EQ(server.full_handshakes(), 1);
  // The idle socket still works.
  EXPECT_EQ(RoundTrip(first.get(), "after tickets"), "after tickets");
}

// Application data that arrives while nobody reads is kept for the next
// Read, and the socket is not idle.
TEST_F(SSLSocketTest, DataArrivingWhileIdleIsKeptForRead) {
  EchoServer server(ServerConfig());
  std::unique_ptr<SSLClientSocket> socket;
  ASSERT_EQ(OK, ConnectTLS(server.address(), "www.example.test", SSLConfig(),
                           &socket));
  for (int i = 0; i < 250 && server.full_handshakes() == 0; ++i) {
    loop_.PostDelayedTask(absl::Milliseconds(20), [this] { loop_.Quit(); });
    loop_.Run();
  }
  ASSERT_EQ(server.full_handshakes(), 1);
  const std::string pushed = "unsolicited";
  auto buf = std::make_shared<IOBuffer>(pushed);
  TestCompletionCallback write_cb;
  EXPECT_EQ(static_cast<int>(pushed.size()),
            write_cb.GetResult(server.connections()[0]->Write(
                buf, static_cast<int>(pushed.size()), write_cb.callback())));
  for (int i = 0; i < 250 && socket->IsConnectedAndIdle(); ++i) {
    loop_.PostDelayedTask(absl::Milliseconds(20), [this] { loop_.Quit(); });
    loop_.Run();
  }
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
    EchoServer server(ServerConfig());
    SSLConfig config;
    config.version_max = version;
    config.coalesce_handshakes = true;  // opt-in
    std::vector<std::unique_ptr<SSLClientSocket>> sockets;
    std::vector<int> results(6, 1);
    int done = 0;
    for (int i = 0; i < 6; ++i) {
      auto tcp =
          std::make_unique<TCPClientSocket>(server.address(), absl::Seconds(5));
      TestCompletionCallback cb;
      ASSERT_EQ(OK, cb.GetResult(tcp->Connect(cb.callback())));
      sockets.push_back(std::make_unique<SSLClientSocket>(
          std::move(tcp), "www.example.test", server.address().port(), config,
          context_.get()));
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
    loop_.PostDelayedTask(absl::Milliseconds(20), [&] { loop_.Quit(); });
    loop_.Run();
    EXPECT_EQ(server.full_handshakes(), 1);
    EXPECT_EQ(server.resumed_handshakes(), 5);
  }
}

// Connections that start after the leader's handshake finished, but before
// its TLS 1.3 ticket arrived, still wait for that ticket and resume. (The
// server holds its tickets until it writes, as BoringSSL does by default.)
TEST_F(SSLSocketTest, LateConnectionsWaitForAFinishedLeadersSession) {
  SSLServerConfig config = ServerConfig();
  config.tls13_tickets_at_handshake = false;
  EchoServer server(config);
  SSLConfig coalesce;
  coalesce.coalesce_handshakes = true;  // opt-in
  std::unique_ptr<SSLClientSocket> leader;
  ASSERT_EQ(
      OK, ConnectTLS(server.address(), "www.example.test", coalesce, &leader));
  EXPECT_FALSE(leader->ssl_info().resumed);
  std::vector<std::unique_ptr<SSLClientSocket>> late;
  int done = 0;
  for (int i = 0; i < 5; ++i) {
    auto tcp =
        std::make_unique<TCPClientSocket>(server.address(), absl::Seconds(5));
    TestCompletionCallback cb;
    ASSERT_EQ(OK, cb.GetResult(tcp->Connect(cb.callback())));
    late.push_back(std::make_unique<SSLClientSocket>(
        std::move(tcp), "www.example.test", server.address().port(), coalesce,
        context_.get()));
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
    EchoServer server(ServerConfig(c.chain, c.key));
    std::unique_ptr<SSLClientSocket> socket;
    EXPECT_EQ(c.expected,
              ConnectTLS(server.address(), c.host, SSLConfig(), &socket));
    EXPECT_FALSE(socket->error_detail().empty());
    // The server is told why: it fails on our fatal alert.
    loop_.PostDelayedTask(absl::Milliseconds(20), [&] { loop_.Quit(); });
    loop_.Run();
    ASSERT_FALSE(server.connections().empty());
    EXPECT_NE(server.connections().back()->error_detail().find("ALERT"),
              std::string::npos)
        << server.connections().back()->error_detail();
  }
}

TEST_F(SSLSocketTest, VersionMismatchIsNamed) {
  SSLServerConfig server_config = ServerConfig();
  server_config.version_min = TLS1_3_VERSION;
  EchoServer server(server_config);
  SSLConfig config;
  config.version_max = TLS1_2_VERSION;
  std::unique_ptr<SSLClientSocket> socket;
  EXPECT_EQ(ERR_SSL_VERSION_OR_CIPHER_MISMATCH,
            ConnectTLS(server.address(), "www.example.test", config, &socket));
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
            ConnectTLS(address, "www.example.test", SSLConfig(), &socket));
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
  EchoServer server(ServerConfig());
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
      int rv =
          ConnectTLS(server.address(), "www.example.test", config, &socket);
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
      rv = ConnectTLS(server.address(), "www.example.test", config, &socket);
      EXPECT_EQ(rv, ERR_OBC_CERT_UNAVAILABLE) << ErrorToString(rv);
      EXPECT_NE(socket->error_detail().find("ERR_INVALID_URL"),
                std::string::npos)
          << socket->error_detail();
    }
  }
}

}  // namespace
}  // namespace net
