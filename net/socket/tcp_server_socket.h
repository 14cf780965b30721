// TCPServerSocket: a listening TCP socket whose Accept completes through the
// EventLoop with a connected TCPClientSocket. Owns its descriptor. Affine to
// the thread whose EventLoop drives it.

#ifndef NET_SOCKET_TCP_SERVER_SOCKET_H_
#define NET_SOCKET_TCP_SERVER_SOCKET_H_

#include <memory>

#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/socket/stream_socket.h"

namespace net {

class TCPServerSocket : public FdWatcher {
 public:
  TCPServerSocket() = default;
  ~TCPServerSocket() override;

  // SetFastOpen makes the next Listen accept TCP Fast Open (RFC 7413): SYN
  // data from clients with a cookie this server issued, queued up to
  // |queue_length| connections; with |no_cookie|, from any client
  // (TCP_FASTOPEN_NO_COOKIE on the listener: a server that says so in its
  // certificate bundle). The namespace's net.ipv4.tcp_fastopen must have
  // the server bit (2), or the kernel ignores the SYN's data.
  void SetFastOpen(int queue_length, bool no_cookie) {
    fast_open_queue_ = queue_length;
    fast_open_no_cookie_ = no_cookie;
  }
  // Listen binds and listens; port 0 picks an ephemeral port (see
  // GetLocalAddress). Returns OK or a net error.
  int Listen(const IPEndPoint& address, int backlog);
  int GetLocalAddress(IPEndPoint* address) const;

  // Accept fills |*socket| with the next connection: OK, a net error, or
  // ERR_IO_PENDING. |socket| must stay valid until the callback runs.
  int Accept(std::unique_ptr<StreamSocket>* socket,
             CompletionOnceCallback callback);

  void OnFdReadable(int fd) override;
  void OnFdWritable(int fd) override {}

  // The listening descriptor (-1 before Listen), for tests that attach a
  // socket filter to it.
  int fd_for_testing() const { return fd_; }

 private:
  int DoAccept(std::unique_ptr<StreamSocket>* socket);

  int fd_ = -1;
  int fast_open_queue_ = 0;
  bool fast_open_no_cookie_ = false;
  FdWatchController watch_;
  std::unique_ptr<StreamSocket>* accept_socket_ = nullptr;
  CompletionOnceCallback accept_callback_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SOCKET_TCP_SERVER_SOCKET_H_
