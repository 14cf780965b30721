// GetDefaultClientSocketFactory: the production ClientSocketFactory — TCP
// sockets (net/socket), TLS clients over BoringSSL (net/ssl) and the Snap
// Start core's TLS 1.2 client (net/snap_start).
//
// It lives here, in its own target, rather than in net/socket, because it
// constructs sockets of the layers above net/socket (net/socket <- net/ssl,
// net/snap_start <- net/http); HttpNetworkTransaction itself knows only the
// ClientSocketFactory interface, so tests hand the session a
// MockClientSocketFactory that scripts TCP and TLS.

#ifndef NET_HTTP_DEFAULT_CLIENT_SOCKET_FACTORY_H_
#define NET_HTTP_DEFAULT_CLIENT_SOCKET_FACTORY_H_

#include "net/socket/client_socket_factory.h"

namespace net {

// Never destroyed; stateless, so any thread may use it for its own sockets.
ClientSocketFactory* GetDefaultClientSocketFactory();

}  // namespace net

#endif  // NET_HTTP_DEFAULT_CLIENT_SOCKET_FACTORY_H_
