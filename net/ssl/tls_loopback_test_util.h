// Test helpers: an SSLServerSocket echo server on loopback that records
// what each connection saw (handshake facts, bytes, whether they arrived as
// early data), and a fixture that connects SSLClientSockets to it. For the
// early data and certificate compression tests.

#ifndef NET_SSL_TLS_LOOPBACK_TEST_UTIL_H_
#define NET_SSL_TLS_LOOPBACK_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "cert/basic_cert_verifier.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/socket/tcp_client_socket.h"
#include "net/socket/tcp_server_socket.h"
#include "net/ssl/ssl_client_socket.h"
#include "net/ssl/ssl_server_socket.h"

namespace net {

inline std::string TestCertFile(const std::string& name) {
  return "cert/testdata/" + name;
}

// A TLS server config for cert/testdata's www.example.test chains
// (good_leaf: RSA-2048, good_ecdsa_leaf: P-256).
inline SSLServerConfig LoopbackServerConfig(
    const std::string& chain = "good_leaf_chain.pem",
    const std::string& key = "good_leaf.key") {
  SSLServerConfig config;
  config.cert_chain_file = TestCertFile(chain);
  config.key_file = TestCertFile(key);
  return config;
}

class LoopbackTlsServer {
 public:
  struct Connection {
    std::unique_ptr<SSLServerSocket> socket;
    int handshake_result = ERR_IO_PENDING;
    std::string received;          // application data, in order
    bool read_early_data = false;  // some of it was 0-RTT early data
  };

  explicit LoopbackTlsServer(const SSLServerConfig& config) {
    auto context = SSLServerContext::Create(config);
    EXPECT_TRUE(context.ok()) << context.status();
    if (context.ok()) context_ = std::move(*context);
    EXPECT_EQ(OK,
              listener_.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 16));
    listener_.GetLocalAddress(&address_);
    Accept();
  }

  const IPEndPoint& address() const { return address_; }
  SSLServerContext* context() { return context_.get(); }
  const std::vector<std::unique_ptr<Connection>>& connections() const {
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
    auto connection = std::make_unique<Connection>();
    connection->socket =
        std::make_unique<SSLServerSocket>(std::move(accepted_), context_.get());
    Connection* c = connection.get();
    connections_.push_back(std::move(connection));
    int rv = c->socket->Handshake([this, c](int rv) { OnHandshake(c, rv); });
    if (rv != ERR_IO_PENDING) OnHandshake(c, rv);
  }
  void OnHandshake(Connection* c, int rv) {
    c->handshake_result = rv;
    if (rv == OK) Read(c);
  }
  void Read(Connection* c) {
    for (;;) {
      auto buf = std::make_shared<IOBuffer>(4096);
      int rv = c->socket->Read(buf, 4096, [this, c, buf](int rv) {
        if (OnRead(c, buf, rv)) Read(c);
      });
      if (rv == ERR_IO_PENDING || !OnRead(c, buf, rv)) return;
    }
  }
  // Echoes what arrived; false when the connection is done.
  bool OnRead(Connection* c, const std::shared_ptr<IOBuffer>& buf, int rv) {
    if (rv <= 0) return false;
    if (c->socket->in_early_data()) c->read_early_data = true;
    c->received.append(buf->data(), rv);
    auto out = std::make_shared<IOBuffer>(std::string(buf->data(), rv));
    c->socket->Write(out, rv, [](int) {});
    return true;
  }

  std::unique_ptr<SSLServerContext> context_;
  TCPServerSocket listener_;
  IPEndPoint address_;
  std::unique_ptr<StreamSocket> accepted_;
  std::vector<std::unique_ptr<Connection>> connections_;
};

class LoopbackTlsTest : public ::testing::Test {
 protected:
  LoopbackTlsTest() {
    auto verifier =
        BasicCertVerifier::Create({TestCertFile("good_root.pem")}, false);
    EXPECT_TRUE(verifier.ok());
    verifier_ = std::move(*verifier);
    context_ = std::make_unique<SSLClientContext>(verifier_.get());
  }

  // Connects TCP then TLS to www.example.test at |address|; returns the TLS
  // result (|out| is set either way once TCP connected).
  int ConnectTLS(const IPEndPoint& address, const SSLConfig& config,
                 std::unique_ptr<SSLClientSocket>* out) {
    auto tcp = std::make_unique<TCPClientSocket>(address, absl::Seconds(5));
    TestCompletionCallback cb;
    int rv = cb.GetResult(tcp->Connect(cb.callback()));
    if (rv != OK) return rv;
    *out = std::make_unique<SSLClientSocket>(std::move(tcp), "www.example.test",
                                             address.port(), config,
                                             context_.get());
    return cb.GetResult((*out)->Connect(cb.callback()));
  }

  // Writes |message| and reads until as many bytes came back: the echo, or
  // the error (as "ERR_...") that stopped it.
  std::string RoundTrip(StreamSocket* socket, const std::string& message) {
    TestCompletionCallback cb;
    auto out = std::make_shared<IOBuffer>(message);
    int rv = cb.GetResult(socket->Write(out, message.size(), cb.callback()));
    if (rv < 0) return ErrorToShortString(rv);
    EXPECT_EQ(static_cast<int>(message.size()), rv);
    std::string got;
    while (got.size() < message.size()) {
      auto in = std::make_shared<IOBuffer>(4096);
      int n = cb.GetResult(socket->Read(in, 4096, cb.callback()));
      if (n < 0) return ErrorToShortString(n);
      if (n == 0) break;
      got.append(in->data(), n);
    }
    return got;
  }

  // Runs the event loop briefly so the server side catches up.
  void RunPending() {
    OneShotTimer timer;
    timer.Start(absl::Milliseconds(20), [this] { loop_.Quit(); });
    loop_.Run();
  }

  EventLoop loop_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<SSLClientContext> context_;
};

}  // namespace net

#endif  // NET_SSL_TLS_LOOPBACK_TEST_UTIL_H_
