// ConnectDelaySocketFactory: the client half of link emulation. A userspace
// relay (tools/netem) cannot delay the kernel's TCP handshake: connect()
// to the relay completes at loopback speed. This ClientSocketFactory wraps
// another one and completes Connect() to configured endpoints one emulated
// round trip late — the SYN / SYN-ACK exchange — so a fetch through netem
// pays every round trip a real link would, and the trace shows it as TCP
// connect time.
//
// The wrapped factory is not owned and must outlive this one.

#ifndef TOOLS_NETEM_CONNECT_DELAY_SOCKET_FACTORY_H_
#define TOOLS_NETEM_CONNECT_DELAY_SOCKET_FACTORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "net/socket/client_socket_factory.h"

namespace net {

class ConnectDelaySocketFactory : public ClientSocketFactory {
 public:
  explicit ConnectDelaySocketFactory(ClientSocketFactory* base) : base_(base) {}

  // Connections to |endpoint| complete |rtt| after the transport connects.
  void AddLink(const IPEndPoint& endpoint, absl::Duration rtt) {
    links_[endpoint] = rtt;
  }
  size_t link_count() const { return links_.size(); }

  std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint& address, absl::Duration connect_timeout) override;
  // TLS sockets come from the wrapped factory (over the delayed transport).
  std::unique_ptr<StreamSocket> CreateSSLClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, const SSLConfig& config,
      SSLClientContext* context) override;
  std::unique_ptr<StreamSocket> CreateSnapStartClientSocket(
      std::unique_ptr<StreamSocket> transport, const std::string& host,
      uint16_t port, SnapStartClientContext* context) override;

 private:
  ClientSocketFactory* const base_;
  std::map<IPEndPoint, absl::Duration> links_;
};

}  // namespace net

#endif  // TOOLS_NETEM_CONNECT_DELAY_SOCKET_FACTORY_H_
