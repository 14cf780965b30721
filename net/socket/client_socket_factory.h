// ClientSocketFactory creates the sockets of outgoing connections: transport
// sockets, and the TLS client sockets that wrap them. HttpNetworkTransaction
// makes every socket it uses through its session's factory, so a test can
// script TCP and TLS alike (MockClientSocketFactory, socket_test_util.h).
//
// The TLS client sockets live above net/socket (net/ssl for BoringSSL,
// net/snap_start for the Snap Start core), so this interface names their
// parameter types by forward declaration only: net/socket does not depend on
// them. The production factory, which constructs all three kinds, is
// GetDefaultClientSocketFactory() in //net/http:default_client_socket_factory
// (net/http is the first layer that may see net/ssl and net/snap_start).

#ifndef NET_SOCKET_CLIENT_SOCKET_FACTORY_H_
#define NET_SOCKET_CLIENT_SOCKET_FACTORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "net/socket/datagram_client_socket.h"
#include "net/socket/stream_socket.h"
#include "net/socket/tcp_fast_open.h"
#include "net/socket/udp_client_socket.h"

namespace net {

class SSLClientContext;        // net/ssl/ssl_client_context.h
class SnapStartClientContext;  // net/snap_start/snap_start_client_context.h
struct SSLConfig;              // net/ssl/ssl_config.h

class ClientSocketFactory {
 public:
  virtual ~ClientSocketFactory() = default;

  // A TCP connection to |address| (Connect() connects), with TCP Fast Open
  // as |options| say; null on failure.
  virtual std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint& address, absl::Duration connect_timeout,
      const TcpConnectOptions& options) = 0;

  // A TLS client over BoringSSL on the connected |transport|: Connect() runs
  // the handshake for |host| (SNI and verification name; with |port|, the
  // session key). |context| is not owned and outlives the socket.
  virtual std::unique_ptr<StreamSocket> CreateSSLClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, const SSLConfig& config, SSLClientContext* context) = 0;

  // The Snap Start core's TLS 1.2 client on the connected |transport|: a
  // Snap Start attempt when |context| knows |host|:|port|, else a normal
  // handshake that learns. |context| is not owned and outlives the socket.
  virtual std::unique_ptr<StreamSocket> CreateSnapStartClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, SnapStartClientContext* context) = 0;

  // A UDP socket for QUIC (net/quic), not yet connected. The kernel's
  // (UDPClientSocket) unless a factory makes its own.
  virtual std::unique_ptr<DatagramClientSocket> CreateDatagramClientSocket() {
    return std::make_unique<UDPClientSocket>();
  }
};

}  // namespace net

#endif  // NET_SOCKET_CLIENT_SOCKET_FACTORY_H_
