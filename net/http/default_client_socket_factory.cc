#include "net/http/default_client_socket_factory.h"

#include <utility>

#include "net/snap_start/snap_start_client_socket.h"
#include "net/socket/tcp_client_socket.h"
#include "net/ssl/ssl_client_socket.h"

namespace net {
namespace {

class DefaultClientSocketFactory : public ClientSocketFactory {
 public:
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint& address, absl::Duration connect_timeout,
      const TcpConnectOptions& options) override {
    return std::make_unique<TCPClientSocket>(address, connect_timeout, options);
  }

  std::unique_ptr<StreamSocket> CreateSSLClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, const SSLConfig& config,
      SSLClientContext* context) override {
    return std::make_unique<SSLClientSocket>(std::move(transport), host, port,
                                             config, context);
  }

  std::unique_ptr<StreamSocket> CreateSnapStartClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, SnapStartClientContext* context) override {
    return std::make_unique<SnapStartClientSocket>(std::move(transport), host,
                                                   port, context);
  }
};

}  // namespace

ClientSocketFactory* GetDefaultClientSocketFactory() {
  static ClientSocketFactory* const factory = new DefaultClientSocketFactory();
  return factory;
}

}  // namespace net
