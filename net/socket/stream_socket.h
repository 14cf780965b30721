// StreamSocket: the interface of a connected, ordered byte stream (TCP, TLS
// over TCP, scripted test sockets).
//
// Methods follow the async contract in net/base/net_errors.h. A pending
// Read or Write keeps its IOBuffer alive through the shared_ptr. At most one
// Read and one Write may be pending at a time. Destroying the socket cancels
// pending operations; their callbacks never run.

#ifndef NET_SOCKET_STREAM_SOCKET_H_
#define NET_SOCKET_STREAM_SOCKET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "net/base/io_buffer.h"
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"
#include "net/socket/tcp_fast_open.h"

namespace net {

// net/ssl/ssl_info.h (net/socket does not depend on net/ssl; only TLS sockets
// fill one in).
struct SSLInfo;

class StreamSocket {
 public:
  virtual ~StreamSocket() = default;

  // Connect establishes the connection. OK, a net error, or ERR_IO_PENDING.
  virtual int Connect(CompletionOnceCallback callback) = 0;
  // Read reads up to |len| bytes into |buf|: bytes read (> 0), 0 at end of
  // stream, a net error, or ERR_IO_PENDING.
  virtual int Read(std::shared_ptr<IOBuffer> buf, int len,
                   CompletionOnceCallback callback) = 0;
  // Write writes up to |len| bytes from |buf|: bytes written (> 0), a net
  // error, or ERR_IO_PENDING. Partial writes are possible.
  virtual int Write(std::shared_ptr<IOBuffer> buf, int len,
                    CompletionOnceCallback callback) = 0;
  // Disconnect closes the connection; pending callbacks never run.
  virtual void Disconnect() = 0;
  virtual bool IsConnected() const = 0;
  // IsConnectedAndIdle is true when connected with no unread data and no
  // pending EOF: safe to reuse for a new request.
  virtual bool IsConnectedAndIdle() const = 0;
  virtual int GetPeerAddress(IPEndPoint* address) const = 0;
  virtual int GetLocalAddress(IPEndPoint* address) const = 0;

  // GetSSLInfo returns the TLS facts of the connection, or null for a socket
  // that is not TLS (TCP, a scripted transport). A TLS socket fills them in
  // as its handshake proceeds: complete once Connect succeeded (unless
  // SSLInfo::awaiting_server_response), and on a certificate error its
  // cert_verify says why. Valid until the socket is destroyed.
  virtual const SSLInfo* GetSSLInfo() const { return nullptr; }
  // ExportKeyingMaterial writes |out_len| bytes of the TLS connection's RFC
  // 5705 keying material for |label| (with |context| only if |has_context|)
  // to |out|: OK, or a net error; ERR_NOT_IMPLEMENTED for a socket that is
  // not TLS. SPDY CREDENTIAL proofs need it (net/spdy/spdy_credential.h).
  virtual int ExportKeyingMaterial(absl::string_view label, bool has_context,
                                   absl::string_view context, uint8_t* out,
                                   size_t out_len) const {
    return ERR_NOT_IMPLEMENTED;
  }
  // GetTcpFastOpenInfo says what the connection did with TCP Fast Open: a
  // TCP socket its own, a socket over a transport (TLS) the transport's.
  // Complete once the transport is established (the first Read returned).
  virtual TcpFastOpenInfo GetTcpFastOpenInfo() const { return {}; }
  // error_detail explains the socket's last failure beyond its error code
  // (BoringSSL's reason, the Snap Start core's), or is empty.
  virtual const std::string& error_detail() const;
};

}  // namespace net

#endif  // NET_SOCKET_STREAM_SOCKET_H_
