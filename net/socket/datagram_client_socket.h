// DatagramClientSocket: a connected datagram (UDP) socket for a client —
// one peer, whole datagrams in and out. QUIC (net/quic) runs over it; the
// ClientSocketFactory makes it (CreateDatagramClientSocket), so a test can
// give QUIC a socket of its own.
//
// Every method follows the async contract of net/base/net_errors.h: a
// result now, or ERR_IO_PENDING and the callback runs once, later, from the
// event loop, never after the socket is destroyed. At most one Read and one
// Write may be pending. Network-thread affine; destroying the socket closes
// it and drops pending callbacks.

#ifndef NET_SOCKET_DATAGRAM_CLIENT_SOCKET_H_
#define NET_SOCKET_DATAGRAM_CLIENT_SOCKET_H_

#include <memory>

#include "net/base/io_buffer.h"
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"

namespace net {

class DatagramClientSocket {
 public:
  virtual ~DatagramClientSocket() = default;

  // Connect opens the socket and fixes its peer (no packet is sent): OK or
  // a net error (ERR_ADDRESS_INVALID, the system's error). Synchronous.
  virtual int Connect(const IPEndPoint& peer) = 0;
  // Read receives one datagram into |buf| (at most |len| bytes; a longer one
  // is cut to |len|): its size, a net error (ERR_CONNECTION_REFUSED when the
  // peer's host answered with ICMP port unreachable), or ERR_IO_PENDING.
  virtual int Read(std::shared_ptr<IOBuffer> buf, int len,
                   CompletionOnceCallback callback) = 0;
  // Write sends |len| bytes of |buf| as one datagram: |len|, a net error, or
  // ERR_IO_PENDING (the kernel's send buffer is full; the callback runs when
  // it went).
  virtual int Write(std::shared_ptr<IOBuffer> buf, int len,
                    CompletionOnceCallback callback) = 0;
  virtual int GetLocalAddress(IPEndPoint* address) const = 0;
  virtual int GetPeerAddress(IPEndPoint* address) const = 0;
  virtual void Close() = 0;
};

}  // namespace net

#endif  // NET_SOCKET_DATAGRAM_CLIENT_SOCKET_H_
