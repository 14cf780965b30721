// TCPClientSocket: a non-blocking TCP connection driven by the EventLoop.
//
// Created by a ClientSocketFactory for an outgoing connection (Connect with
// a timeout), or by TCPServerSocket for an accepted one (already connected).
// Owns its descriptor. Network-thread affine.

#ifndef NET_SOCKET_TCP_CLIENT_SOCKET_H_
#define NET_SOCKET_TCP_CLIENT_SOCKET_H_

#include <memory>

#include "absl/time/time.h"
#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/socket/stream_socket.h"

namespace net {

class TCPClientSocket : public StreamSocket, public FdWatcher {
 public:
  // Zero |connect_timeout| means no timeout beyond the kernel's.
  TCPClientSocket(const IPEndPoint& peer, absl::Duration connect_timeout);
  // AdoptConnected wraps an accepted, connected descriptor.
  static std::unique_ptr<TCPClientSocket> AdoptConnected(
      int fd, const IPEndPoint& peer);
  ~TCPClientSocket() override;

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

  // FdWatcher:
  void OnFdReadable(int fd) override;
  void OnFdWritable(int fd) override;

  int fd_for_testing() const { return fd_; }

 private:
  void UpdateWatch();
  void OnConnectComplete(int result);

  IPEndPoint peer_;
  absl::Duration connect_timeout_;
  int fd_ = -1;
  bool connecting_ = false;
  bool connected_ = false;
  FdWatchController watch_;
  OneShotTimer connect_timer_;
  CompletionOnceCallback connect_callback_;

  std::shared_ptr<IOBuffer> read_buf_;
  int read_len_ = 0;
  CompletionOnceCallback read_callback_;
  std::shared_ptr<IOBuffer> write_buf_;
  int write_len_ = 0;
  CompletionOnceCallback write_callback_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_SOCKET_TCP_CLIENT_SOCKET_H_
