// UDPClientSocket: the DatagramClientSocket of the kernel's UDP — a
// non-blocking, connected socket driven by the EventLoop (readiness through
// an FdWatchController, level-triggered). Connected, so the kernel drops
// datagrams from anyone but the peer and reports an ICMP port unreachable
// as ECONNREFUSED on the next Read (ERR_CONNECTION_REFUSED: "a server that
// isn't there" on a path that says so).
//
// Made by ClientSocketFactory::CreateDatagramClientSocket; owned by its
// user (a QuicSession). Owns its descriptor. Network-thread affine.

#ifndef NET_SOCKET_UDP_CLIENT_SOCKET_H_
#define NET_SOCKET_UDP_CLIENT_SOCKET_H_

#include <memory>

#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/socket/datagram_client_socket.h"

namespace net {

class UDPClientSocket : public DatagramClientSocket, public FdWatcher {
 public:
  UDPClientSocket();
  ~UDPClientSocket() override;
  UDPClientSocket(const UDPClientSocket&) = delete;
  UDPClientSocket& operator=(const UDPClientSocket&) = delete;

  // DatagramClientSocket:
  int Connect(const IPEndPoint& peer) override;
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  int GetLocalAddress(IPEndPoint* address) const override;
  int GetPeerAddress(IPEndPoint* address) const override;
  void Close() override;

  // FdWatcher:
  void OnFdReadable(int fd) override;
  void OnFdWritable(int fd) override;

 private:
  int DoRead(IOBuffer* buf, int len);
  int DoWrite(IOBuffer* buf, int len);
  void UpdateWatch();

  int fd_ = -1;
  IPEndPoint peer_;
  FdWatchController watch_;
  std::shared_ptr<IOBuffer> read_buf_;
  int read_len_ = 0;
  CompletionOnceCallback read_callback_;
  std::shared_ptr<IOBuffer> write_buf_;
  int write_len_ = 0;
  CompletionOnceCallback write_callback_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SOCKET_UDP_CLIENT_SOCKET_H_
