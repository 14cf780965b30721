// TestHttpsServer: a minimal HTTPS/1.1 origin for net/context's tests, on an
// ephemeral loopback port in the test's event loop. GET /redirect gets a 302
// to / with a Set-Cookie of its own ("from=redirect"); every other request
// gets "200 OK" with a fixed body and a Set-Cookie ("visit=N"). The
// connection stays open for keep-alive. Counts handshakes and keeps each
// request's path and Cookie header. Test-only; network-thread affine.

#ifndef NET_CONTEXT_TEST_HTTPS_SERVER_H_
#define NET_CONTEXT_TEST_HTTPS_SERVER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/base/ip_endpoint.h"
#include "net/socket/tcp_server_socket.h"
#include "net/ssl/ssl_server_context.h"
#include "net/ssl/ssl_server_socket.h"

namespace net {

class TestHttpsServer {
 public:
  static constexpr char kBody[] = "hello from the test server\n";

  // Serves cert/testdata's good leaf (www.example.test, localhost,
  // 127.0.0.1).
  TestHttpsServer();
  ~TestHttpsServer();

  const IPEndPoint& address() const { return address_; }
  int handshakes() const { return handshakes_; }
  int requests() const { return requests_; }
  // Per request, in order: its path and its Cookie header ("" if none).
  const std::vector<std::pair<std::string, std::string>>& seen() const {
    return seen_;
  }

 private:
  struct Connection;
  void Accept();
  void OnAccepted();
  void ReadRequest(Connection* connection);
  void OnRead(Connection* connection, int rv);

  std::unique_ptr<SSLServerContext> context_;
  TCPServerSocket listener_;
  IPEndPoint address_;
  std::unique_ptr<StreamSocket> accepted_;
  std::vector<std::unique_ptr<Connection>> connections_;
  int handshakes_ = 0;
  int requests_ = 0;
  std::vector<std::pair<std::string, std::string>> seen_;
};

}  // namespace net

#endif  // NET_CONTEXT_TEST_HTTPS_SERVER_H_
