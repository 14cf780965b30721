// SocketAddress is a copyable IPv4 or IPv6 address plus port, parsed from
// "host:port" text and usable directly with the BSD socket calls. ScopedFd
// owns one file descriptor and closes it on destruction. Both are plain value
// types used throughout tools/netem; whoever holds them owns them.

#ifndef TOOLS_NETEM_SOCKET_ADDRESS_H_
#define TOOLS_NETEM_SOCKET_ADDRESS_H_

#include <sys/socket.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace netem {

class SocketAddress {
 public:
  SocketAddress();

  // Parses "A.B.C.D:PORT", "localhost:PORT" (IPv4 loopback) or
  // "[V6ADDR]:PORT". Returns InvalidArgument on anything else, including a
  // port outside 0..65535. Host names other than "localhost" are not resolved.
  [[nodiscard]] static absl::StatusOr<SocketAddress> Parse(
      absl::string_view text);

  // Copies `len` bytes of `addr`; `len` must not exceed sockaddr_storage.
  static SocketAddress FromSockaddr(const sockaddr* addr, socklen_t len);

  // Returns the local address `fd` is bound to, or an error from
  // getsockname().
  [[nodiscard]] static absl::StatusOr<SocketAddress> LocalOf(int fd);

  int family() const { return storage_.ss_family; }
  int port() const;
  const sockaddr* sockaddr_ptr() const {
    return reinterpret_cast<const sockaddr*>(&storage_);
  }
  sockaddr* mutable_sockaddr_ptr() {
    return reinterpret_cast<sockaddr*>(&storage_);
  }
  socklen_t len() const { return len_; }
  void set_len(socklen_t len) { len_ = len; }

  // "127.0.0.1:80" or "[::1]:80".
  std::string ToString() const;

  // A byte string that identifies family, address and port; equal addresses
  // give equal keys. Used as a map key.
  std::string Key() const;

 private:
  sockaddr_storage storage_;
  socklen_t len_ = 0;
};

// Owns a file descriptor; closes it on destruction or reset().
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(other.release()) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { reset(); }

  int get() const { return fd_; }
  bool is_valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Sets O_NONBLOCK on `fd`. Returns false on failure.
bool SetNonBlocking(int fd);

// Sets TCP_NODELAY on `fd`. Returns false on failure.
bool SetNoDelay(int fd);

// Makes the next close() of `fd` send a RST instead of a FIN.
void SetLingerZero(int fd);

// Creates a non-blocking, close-on-exec socket bound to `address` (with
// SO_REUSEADDR) and, for SOCK_STREAM, listening. Returns the socket or an
// error naming the failed call.
[[nodiscard]] absl::StatusOr<ScopedFd> BindSocket(const SocketAddress& address,
                                                  int type);

}  // namespace netem

#endif  // TOOLS_NETEM_SOCKET_ADDRESS_H_
