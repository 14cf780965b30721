#include "net/socket/tcp_client_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace net {
namespace {

void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

TCPClientSocket::TCPClientSocket(const IPEndPoint& peer,
                                 absl::Duration connect_timeout)
    : peer_(peer), connect_timeout_(connect_timeout) {}

std::unique_ptr<TCPClientSocket> TCPClientSocket::AdoptConnected(
    int fd, const IPEndPoint& peer) {
  auto socket = std::make_unique<TCPClientSocket>(peer, absl::ZeroDuration());
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  SetNoDelay(fd);
  socket->fd_ = fd;
  socket->connected_ = true;
  return socket;
}

TCPClientSocket::~TCPClientSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  Disconnect();
}

int TCPClientSocket::Connect(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (connected_) return OK;
  if (peer_.address().empty()) return ERR_ADDRESS_INVALID;
  fd_ = socket(peer_.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return MapSystemError(errno);
  SetNoDelay(fd_);
  sockaddr_storage storage;
  socklen_t len = peer_.ToSockAddr(&storage);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&storage), len) == 0) {
    connected_ = true;
    return OK;
  }
  if (errno != EINPROGRESS) {
    int rv = MapConnectError(errno);
    Disconnect();
    return rv;
  }
  connecting_ = true;
  connect_callback_ = std::move(callback);
  UpdateWatch();
  if (connect_timeout_ > absl::ZeroDuration()) {
    connect_timer_.Start(connect_timeout_, [this] {
      OnConnectComplete(ERR_CONNECTION_TIMED_OUT);
    });
  }
  return ERR_IO_PENDING;
}

void TCPClientSocket::OnConnectComplete(int result) {
  connecting_ = false;
  connect_timer_.Stop();
  CompletionOnceCallback callback = std::move(connect_callback_);
  connect_callback_ = nullptr;
  if (result == OK) {
    connected_ = true;
    UpdateWatch();
  } else {
    Disconnect();
  }
  std::move(callback)(result);
}

int TCPClientSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                          CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  ssize_t n = read(fd_, buf->data(), len);
  if (n >= 0) return static_cast<int>(n);
  if (errno != EAGAIN && errno != EWOULDBLOCK) return MapSystemError(errno);
  read_buf_ = std::move(buf);
  read_len_ = len;
  read_callback_ = std::move(callback);
  UpdateWatch();
  return ERR_IO_PENDING;
}

int TCPClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                           CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  ssize_t n = send(fd_, buf->data(), len, MSG_NOSIGNAL);
  if (n >= 0) return static_cast<int>(n);
  if (errno != EAGAIN && errno != EWOULDBLOCK) return MapSystemError(errno);
  write_buf_ = std::move(buf);
  write_len_ = len;
  write_callback_ = std::move(callback);
  UpdateWatch();
  return ERR_IO_PENDING;
}

void TCPClientSocket::UpdateWatch() {
  bool want_read = connected_ && read_callback_ != nullptr;
  bool want_write = connecting_ || (connected_ && write_callback_ != nullptr);
  if (fd_ < 0) return;
  watch_.Watch(EventLoop::Current(), fd_, want_read, want_write, this);
}

void TCPClientSocket::OnFdReadable(int fd) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!read_callback_) return;
  ssize_t n = read(fd_, read_buf_->data(), read_len_);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  int rv = n >= 0 ? static_cast<int>(n) : MapSystemError(errno);
  read_buf_.reset();
  CompletionOnceCallback cb = std::move(read_callback_);
  read_callback_ = nullptr;
  UpdateWatch();
  std::move(cb)(rv);
}

void TCPClientSocket::OnFdWritable(int fd) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (connecting_) {
    int error = 0;
    socklen_t len = sizeof(error);
    getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    OnConnectComplete(error == 0 ? OK : MapConnectError(error));
    return;
  }
  if (!write_callback_) return;
  ssize_t n = send(fd_, write_buf_->data(), write_len_, MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  int rv = n >= 0 ? static_cast<int>(n) : MapSystemError(errno);
  write_buf_.reset();
  CompletionOnceCallback cb = std::move(write_callback_);
  write_callback_ = nullptr;
  UpdateWatch();
  std::move(cb)(rv);
}

void TCPClientSocket::Disconnect() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  watch_.StopWatching();
  connect_timer_.Stop();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  connected_ = false;
  connecting_ = false;
  read_callback_ = nullptr;
  write_callback_ = nullptr;
  connect_callback_ = nullptr;
  read_buf_.reset();
  write_buf_.reset();
}

bool TCPClientSocket::IsConnected() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_ || fd_ < 0) return false;
  char c;
  ssize_t n = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return false;  // Peer closed.
  if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
  return true;
}

bool TCPClientSocket::IsConnectedAndIdle() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_ || fd_ < 0) return false;
  char c;
  ssize_t n = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

int TCPClientSocket::GetPeerAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!connected_) return ERR_SOCKET_NOT_CONNECTED;
  *address = peer_;
  return OK;
}

int TCPClientSocket::GetLocalAddress(IPEndPoint* address) const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (fd_ < 0) return ERR_SOCKET_NOT_CONNECTED;
  sockaddr_storage storage;
  socklen_t len = sizeof(storage);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&storage), &len) != 0)
    return MapSystemError(errno);
  return address->FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len)
             ? OK
             : ERR_ADDRESS_INVALID;
}

}  // namespace net
