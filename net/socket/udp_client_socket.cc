#include "net/socket/udp_client_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/base/check.h"

namespace net {

UDPClientSocket::UDPClientSocket() = default;

UDPClientSocket::~UDPClientSocket() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  Close();
}

int UDPClientSocket::Connect(const IPEndPoint& peer) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (fd_ >= 0) return ERR_SOCKET_IS_CONNECTED;
  sockaddr_storage storage;
  socklen_t len = peer.ToSockAddr(&storage);
  if (len == 0) return ERR_ADDRESS_INVALID;
  fd_ = socket(peer.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return MapSystemError(errno);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&storage), len) != 0) {
    int error = MapSystemError(errno);
    Close();
    return error;
  }
  peer_ = peer;
  return OK;
}

int UDPClientSocket::DoRead(IOBuffer* buf, int len) {
  ssize_t n = recv(fd_, buf->data(), static_cast<size_t>(len), 0);
  if (n >= 0) return static_cast<int>(n);
  if (errno == EAGAIN || errno == EWOULDBLOCK) return ERR_IO_PENDING;
  return MapSystemError(errno);
}

int UDPClientSocket::DoWrite(IOBuffer* buf, int len) {
  ssize_t n = send(fd_, buf->data(), static_cast<size_t>(len), 0);
  if (n >= 0) return static_cast<int>(n);
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
    return ERR_IO_PENDING;
  return MapSystemError(errno);
}

int UDPClientSocket::Read(std::shared_ptr<IOBuffer> buf, int len,
                          CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  NET_DCHECK(!read_callback_);
  if (fd_ < 0) return ERR_SOCKET_NOT_CONNECTED;
  int rv = DoRead(buf.get(), len);
  if (rv != ERR_IO_PENDING) return rv;
  read_buf_ = std::move(buf);
  read_len_ = len;
  read_callback_ = std::move(callback);
  UpdateWatch();
  return ERR_IO_PENDING;
}

int UDPClientSocket::Write(std::shared_ptr<IOBuffer> buf, int len,
                           CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  NET_DCHECK(!write_callback_);
  if (fd_ < 0) return ERR_SOCKET_NOT_CONNECTED;
  int rv = DoWrite(buf.get(), len);
  if (rv != ERR_IO_PENDING) return rv;
  write_buf_ = std::move(buf);
  write_len_ = len;
  write_callback_ = std::move(callback);
  UpdateWatch();
  return ERR_IO_PENDING;
}

void UDPClientSocket::UpdateWatch() {
  if (fd_ < 0) return;
  bool want_read = static_cast<bool>(read_callback_);
  bool want_write = static_cast<bool>(write_callback_);
  if (!want_read && !want_write) {
    watch_.StopWatching();
    return;
  }
  watch_.Watch(EventLoop::Current(), fd_, want_read, want_write, this);
}

void UDPClientSocket::OnFdReadable(int fd) {
  if (!read_callback_) return UpdateWatch();
  int rv = DoRead(read_buf_.get(), read_len_);
  if (rv == ERR_IO_PENDING) return;
  read_buf_.reset();
  CompletionOnceCallback cb = std::move(read_callback_);
  read_callback_ = nullptr;
  UpdateWatch();
  std::move(cb)(rv);
}

void UDPClientSocket::OnFdWritable(int fd) {
  if (!write_callback_) return UpdateWatch();
  int rv = DoWrite(write_buf_.get(), write_len_);
  if (rv == ERR_IO_PENDING) return;
  write_buf_.reset();
  CompletionOnceCallback cb = std::move(write_callback_);
  write_callback_ = nullptr;
  UpdateWatch();
  std::move(cb)(rv);
}

int UDPClientSocket::GetLocalAddress(IPEndPoint* address) const {
  if (fd_ < 0) return ERR_SOCKET_NOT_CONNECTED;
  sockaddr_storage storage;
  socklen_t len = sizeof(storage);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&storage), &len) != 0)
    return MapSystemError(errno);
  return address->FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len)
             ? OK
             : ERR_ADDRESS_INVALID;
}

int UDPClientSocket::GetPeerAddress(IPEndPoint* address) const {
  if (fd_ < 0) return ERR_SOCKET_NOT_CONNECTED;
  *address = peer_;
  return OK;
}

void UDPClientSocket::Close() {
  watch_.StopWatching();
  read_callback_ = nullptr;
  write_callback_ = nullptr;
  read_buf_.reset();
  write_buf_.reset();
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
}

}  // namespace net
