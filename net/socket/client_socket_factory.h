// ClientSocketFactory creates transport sockets for outgoing connections.
// Production code uses GetDefaultFactory(); tests pass a
// MockClientSocketFactory (socket_test_util.h) with scripted sockets.

#ifndef NET_SOCKET_CLIENT_SOCKET_FACTORY_H_
#define NET_SOCKET_CLIENT_SOCKET_FACTORY_H_

#include <memory>

#include "absl/time/time.h"
#include "net/socket/stream_socket.h"

namespace net {

class ClientSocketFactory {
 public:
  virtual ~ClientSocketFactory() = default;
  virtual std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint& address, absl::Duration connect_timeout) = 0;
  // GetDefaultFactory returns the TCP factory; never destroyed.
  static ClientSocketFactory* GetDefaultFactory();
};

}  // namespace net

#endif  // NET_SOCKET_CLIENT_SOCKET_FACTORY_H_
