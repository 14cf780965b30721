#include "net/socket/tcp_server_socket.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/socket/tcp_client_socket.h"

namespace net {

TCPServerSocket::~TCPServerSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  watch_.StopWatching();
  if (fd_ >= 0) close(fd_);
}

int TCPServerSocket::Listen(const IPEndPoint& address, int backlog) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  fd_ = socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return MapSystemError(errno);
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (fast_open_queue_ > 0 &&
      (setsockopt(fd_, IPPROTO_TCP, TCP_FASTOPEN, &fast_open_queue_,
                  sizeof(fast_open_queue_)) != 0 ||
       (fast_open_no_cookie_ &&
        setsockopt(fd_, IPPROTO_TCP, TCP_FASTOPEN_NO_COOKIE, &one,
                   sizeof(one)) != 0))) {
    int rv = MapSystemError(errno);
    close(fd_);
    fd_ = -1;
    return rv;
  }
  sockaddr_storage storage;
  socklen_t len = address.ToSockAddr(&storage);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&storage), len) != 0 ||
      listen(fd_, backlog) != 0) {
    int rv = MapSystemError(errno);
    close(fd_);
    fd_ = -1;
    return rv;
  }
  return OK;
}

int TCPServerSocket::GetLocalAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  sockaddr_storage storage;
  socklen_t len = sizeof(storage);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&storage), &len) != 0)
    return MapSystemError(errno);
  return address->FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len)
             ? OK
             : ERR_ADDRESS_INVALID;
}

int TCPServerSocket::DoAccept(std::unique_ptr<StreamSocket>* socket) {
  sockaddr_storage storage;
  socklen_t len = sizeof(storage);
  int fd = accept4(fd_, reinterpret_cast<sockaddr*>(&storage), &len,
                   SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return MapSystemError(errno);
  IPEndPoint peer;
  peer.FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len);
  *socket = TCPClientSocket::AdoptConnected(fd, peer);
  return OK;
}

int TCPServerSocket::Accept(std::unique_ptr<StreamSocket>* socket,
                            CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (fd_ < 0) return ERR_SOCKET_NOT_CONNECTED;
  int rv = DoAccept(socket);
  if (rv != ERR_IO_PENDING) return rv;
  accept_socket_ = socket;
  accept_callback_ = std::move(callback);
  watch_.Watch(EventLoop::Current(), fd_, true, false, this);
  return ERR_IO_PENDING;
}

void TCPServerSocket::OnFdReadable(int fd) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  int rv = DoAccept(accept_socket_);
  if (rv == ERR_IO_PENDING) return;
  watch_.StopWatching();
  accept_socket_ = nullptr;
  std::move(accept_callback_)(rv);
}

}  // namespace net
