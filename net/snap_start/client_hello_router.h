// ClientHelloRouter: how a server decides which TLS stack answers a
// connection. It reads the client's first bytes until ClassifyClientHello can
// tell (a whole ClientHello, at most 64 KiB), then hands back the transport
// and the bytes read: a ClientHello with the Snap Start extension and the
// core's suite goes to SnapStartServerSocket; everything else goes to
// BoringSSL untouched (through a PrefixedStreamSocket replaying the bytes).
//
// Owned by the accepting code for one connection; network-thread affine.

#ifndef NET_SNAP_START_CLIENT_HELLO_ROUTER_H_
#define NET_SNAP_START_CLIENT_HELLO_ROUTER_H_

#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "net/base/io_buffer.h"
#include "net/base/thread_checker.h"
#include "net/snap_start/snap_start_server_context.h"
#include "net/socket/stream_socket.h"

namespace net {

class ClientHelloRouter {
 public:
  using Route = SnapStartServerContext::Route;
  // Called once with kSnapStartCore or kOther (kOther also for a closed or
  // failed connection: the other stack reports it), the transport and the
  // bytes read from it.
  using Callback = absl::AnyInvocable<void(
      Route route, std::unique_ptr<StreamSocket> transport, std::string bytes)>;

  ClientHelloRouter(std::unique_ptr<StreamSocket> transport, Callback callback);
  ~ClientHelloRouter();
  void Start();

 private:
  void ReadMore();
  void OnRead(int result);
  void Finish(Route route);

  std::unique_ptr<StreamSocket> transport_;
  Callback callback_;
  std::shared_ptr<IOBuffer> buf_;
  std::string bytes_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SNAP_START_CLIENT_HELLO_ROUTER_H_
