// PrefixedStreamSocket: a StreamSocket that first returns bytes already read
// from its transport (a server that peeked at a ClientHello to route it), then
// reads from the transport. Writes and everything else pass through.
//
// Owns the transport. Network-thread affine.

#ifndef NET_SOCKET_PREFIXED_STREAM_SOCKET_H_
#define NET_SOCKET_PREFIXED_STREAM_SOCKET_H_

#include <memory>
#include <string>

#include "net/base/thread_checker.h"
#include "net/socket/stream_socket.h"

namespace net {

class PrefixedStreamSocket : public StreamSocket {
 public:
  PrefixedStreamSocket(std::unique_ptr<StreamSocket> transport,
                       std::string prefix);
  ~PrefixedStreamSocket() override;

  int Connect(CompletionOnceCallback callback) override;
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override;
  bool IsConnectedAndIdle() const override;
  int GetPeerAddress(IPEndPoint* address) const override;
  int GetLocalAddress(IPEndPoint* address) const override;

 private:
  std::unique_ptr<StreamSocket> transport_;
  std::string prefix_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SOCKET_PREFIXED_STREAM_SOCKET_H_
