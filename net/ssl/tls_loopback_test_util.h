// Test helpers for TLS over real loopback TCP in one event loop:
// LoopbackEchoServer (accepts, wraps each connection in a server socket of
// the test's choice, handshakes, echoes, and records what each connection
// saw), LoopbackTlsServer (that with BoringSSL's SSLServerSocket), and the
// LoopbackTlsTest fixture that connects SSLClientSockets to it. Shared by
// the net/ssl socket, early data, certificate compression and external
// session cache tests and by net/snap_start's socket tests.

#ifndef NET_SSL_TLS_LOOPBACK_TEST_UTIL_H_
#define NET_SSL_TLS_LOOPBACK_TEST_UTIL_H_

#include <openssl/ssl.h>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
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

// The name cert/testdata's leaf chains are issued for.
inline constexpr char kLoopbackHost[] = "www.example.test";

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

// A TCP connection to |address| (EXPECTs that it connects; on failure the
// socket is returned unconnected and the test has already failed).
inline std::unique_ptr<StreamSocket> ConnectLoopbackTcp(
    const IPEndPoint& address) {
  auto tcp = std::make_unique<TCPClientSocket>(address, absl::Seconds(5));
  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(tcp->Connect(cb.callback())));
  return tcp;
}

// LoopbackEchoServer listens on an ephemeral loopback port. |wrap| turns
// each accepted TCP connection into a ServerSocket (a StreamSocket whose
// Connect runs the server handshake: SSLServerSocket, the Snap Start core);
// after the handshake the server echoes, writing back each chunk it read
// before reading on. It keeps every connection, with what it saw, until it
// is destroyed; what |wrap| uses must outlive it.
template <typename ServerSocket>
class LoopbackEchoServer {
 public:
  struct Connection {
    std::unique_ptr<ServerSocket> socket;
    int handshake_result = ERR_IO_PENDING;
    std::string received;          // application data, in order
    bool read_early_data = false;  // some of it was TLS 1.3 early data
  };
  using WrapFn = std::function<std::unique_ptr<ServerSocket>(
      std::unique_ptr<StreamSocket>)>;

  explicit LoopbackEchoServer(WrapFn wrap) : wrap_(std::move(wrap)) {
    EXPECT_EQ(OK,
              listener_.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 64));
    listener_.GetLocalAddress(&address_);
    Accept();
  }

  const IPEndPoint& address() const { return address_; }
  const std::vector<std::unique_ptr<Connection>>& connections() const {
    return connections_;
  }
  // The newest connection's socket, or null before the first.
  ServerSocket* last() const {
    return connections_.empty() ? nullptr : connections_.back()->socket.get();
  }
  // Connections whose handshake failed.
  int handshake_errors() const {
    int n = 0;
    for (const auto& c : connections_) {
      if (c->handshake_result != OK && c->handshake_result != ERR_IO_PENDING)
        ++n;
    }
    return n;
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
    connection->socket = wrap_(std::move(accepted_));
    Connection* c = connection.get();
    connections_.push_back(std::move(connection));
    int rv = c->socket->Connect([this, c](int rv) { OnHandshake(c, rv); });
    if (rv != ERR_IO_PENDING) OnHandshake(c, rv);
  }
  void OnHandshake(Connection* c, int rv) {
    c->handshake_result = rv;
    if (rv == OK) Echo(c);
  }
  void Echo(Connection* c) {
    for (;;) {
      auto buf = std::make_shared<IOBuffer>(4096);
      int rv = c->socket->Read(buf, 4096, [this, c, buf](int rv) {
        if (OnRead(c, buf, rv)) Echo(c);
      });
      if (rv == ERR_IO_PENDING || !OnRead(c, buf, rv)) return;
    }
  }
  // Records and writes back what arrived; true when the echo may read on
  // now (false at the end of the stream, or when the write's callback will).
  bool OnRead(Connection* c, const std::shared_ptr<IOBuffer>& buf, int rv) {
    if (rv <= 0) return false;
    if constexpr (std::is_same_v<ServerSocket, SSLServerSocket>) {
      if (c->socket->in_early_data()) c->read_early_data = true;
    }
    c->received.append(buf->data(), rv);
    int w = c->socket->Write(buf, rv, [this, c](int w) {
      if (w > 0) Echo(c);
    });
    return w > 0;
  }

  WrapFn wrap_;
  TCPServerSocket listener_;
  IPEndPoint address_;
  std::unique_ptr<StreamSocket> accepted_;
  std::vector<std::unique_ptr<Connection>> connections_;
};

// LoopbackTlsServer: a LoopbackEchoServer of SSLServerSockets sharing one
// SSLServerContext made from |config|.
class LoopbackTlsServer {
 public:
  using Connection = LoopbackEchoServer<SSLServerSocket>::Connection;

  explicit LoopbackTlsServer(const SSLServerConfig& config)
      : context_(CreateContext(config)),
        echo_([this](std::unique_ptr<StreamSocket> tcp) {
          return std::make_unique<SSLServerSocket>(std::move(tcp),
                                                   context_.get());
        }) {}

  const IPEndPoint& address() const { return echo_.address(); }
  SSLServerContext* context() { return context_.get(); }
  const std::vector<std::unique_ptr<Connection>>& connections() const {
    return echo_.connections();
  }
  SSLServerSocket* last() const { return echo_.last(); }
  // Handshakes that completed, full or resumed.
  int full_handshakes() const { return CountHandshakes(false); }
  int resumed_handshakes() const { return CountHandshakes(true); }

  // Sends a CertificateRequest in every handshake and accepts any client
  // certificate, or none (OBC semantics, as tools/testserver does).
  void RequestClientCertificates() {
    SSL_CTX_set_custom_verify(
        context_->ssl_ctx(), SSL_VERIFY_PEER,
        [](SSL*, uint8_t*) -> ssl_verify_result_t { return ssl_verify_ok; });
  }

 private:
  static std::unique_ptr<SSLServerContext> CreateContext(
      const SSLServerConfig& config) {
    auto context = SSLServerContext::Create(config);
    EXPECT_TRUE(context.ok()) << context.status();
    return context.ok() ? std::move(*context) : nullptr;
  }
  int CountHandshakes(bool resumed) const {
    int n = 0;
    for (const auto& c : connections()) {
      if (c->handshake_result == OK && c->socket->ssl_info().resumed == resumed)
        ++n;
    }
    return n;
  }

  // Declared before echo_: its connections use the context.
  std::unique_ptr<SSLServerContext> context_;
  LoopbackEchoServer<SSLServerSocket> echo_;
};

// LoopbackTlsTest: an event loop and an SSLClientContext that trusts
// cert/testdata's good_root.pem.
class LoopbackTlsTest : public ::testing::Test {
 protected:
  LoopbackTlsTest() {
    auto verifier =
        BasicCertVerifier::Create({TestCertFile("good_root.pem")}, false);
    EXPECT_TRUE(verifier.ok());
    verifier_ = std::move(*verifier);
    context_ = std::make_unique<SSLClientContext>(verifier_.get());
  }

  // Connects TCP then TLS to |host| at |address| with |context| (default:
  // the fixture's); returns the TLS result (|out| is set either way once TCP
  // connected).
  int ConnectTLS(const IPEndPoint& address, const std::string& host,
                 const SSLConfig& config, std::unique_ptr<SSLClientSocket>* out,
                 SSLClientContext* context = nullptr) {
    auto tcp = std::make_unique<TCPClientSocket>(address, absl::Seconds(5));
    TestCompletionCallback cb;
    int rv = cb.GetResult(tcp->Connect(cb.callback()));
    if (rv != OK) return rv;
    *out = std::make_unique<SSLClientSocket>(
        std::move(tcp), host, address.port(), config,
        context ? context : context_.get());
    return cb.GetResult((*out)->Connect(cb.callback()));
  }
  // The same to www.example.test.
  int ConnectTLS(const IPEndPoint& address, const SSLConfig& config,
                 std::unique_ptr<SSLClientSocket>* out) {
    return ConnectTLS(address, kLoopbackHost, config, out);
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

  // Runs the event loop for 20 ms so the server side catches up.
  void RunPending() {
    OneShotTimer timer;
    timer.Start(absl::Milliseconds(20), [this] { loop_.Quit(); });
    loop_.Run();
  }
  // Runs the event loop in 20 ms steps until |done| or 5 s passed.
  void RunUntil(const std::function<bool()>& done) {
    for (int i = 0; i < 250 && !done(); ++i) RunPending();
  }

  EventLoop loop_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<SSLClientContext> context_;
};

}  // namespace net

#endif  // NET_SSL_TLS_LOOPBACK_TEST_UTIL_H_
