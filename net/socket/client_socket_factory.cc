#include "net/socket/client_socket_factory.h"

#include "net/socket/tcp_client_socket.h"

namespace net {
namespace {

class DefaultClientSocketFactory : public ClientSocketFactory {
 public:
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint& address, absl::Duration connect_timeout) override {
    return std::make_unique<TCPClientSocket>(address, connect_timeout);
  }
};

}  // namespace

ClientSocketFactory* ClientSocketFactory::GetDefaultFactory() {
  static ClientSocketFactory* factory = new DefaultClientSocketFactory();
  return factory;
}

}  // namespace net
