#include "tools/netem/socket_address.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace netem {

SocketAddress::SocketAddress() { std::memset(&storage_, 0, sizeof(storage_)); }

absl::StatusOr<SocketAddress> SocketAddress::Parse(absl::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("address '", text, "' is not HOST:PORT"));
  }
  absl::string_view host = text.substr(0, colon);
  absl::string_view port_text = text.substr(colon + 1);
  uint32_t port = 0;
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != absl::string_view::npos ||
      !absl::SimpleAtoi(port_text, &port) || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad port '", port_text, "' in '", text, "'"));
  }
  SocketAddress result;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    std::string v6(host.substr(1, host.size() - 2));
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&result.storage_);
    if (inet_pton(AF_INET6, v6.c_str(), &sin6->sin6_addr) != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad IPv6 address '", v6, "' in '", text, "'"));
    }
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(static_cast<uint16_t>(port));
    result.len_ = sizeof(sockaddr_in6);
    return result;
  }
  std::string v4(host == "localhost" ? "127.0.0.1" : host);
  auto* sin = reinterpret_cast<sockaddr_in*>(&result.storage_);
  if (inet_pton(AF_INET, v4.c_str(), &sin->sin_addr) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad IPv4 address '", host, "' in '", text,
                     "' (names other than localhost are not resolved)"));
  }
  sin->sin_family = AF_INET;
  sin->sin_port = htons(static_cast<uint16_t>(port));
  result.len_ = sizeof(sockaddr_in);
  return result;
}

SocketAddress SocketAddress::FromSockaddr(const sockaddr* addr, socklen_t len) {
  SocketAddress result;
  if (len > sizeof(result.storage_)) len = sizeof(result.storage_);
  std::memcpy(&result.storage_, addr, len);
  result.len_ = len;
  return result;
}

absl::StatusOr<SocketAddress> SocketAddress::LocalOf(int fd) {
  SocketAddress result;
  socklen_t len = sizeof(result.storage_);
  if (getsockname(fd, result.mutable_sockaddr_ptr(), &len) != 0) {
    return absl::InternalError(
        absl::StrCat("getsockname: ", std::strerror(errno)));
  }
  result.len_ = len;
  return result;
}

int SocketAddress::port() const {
  if (family() == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_port);
  }
  if (family() == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_port);
  }
  return 0;
}

std::string SocketAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (family() == AF_INET) {
    inet_ntop(AF_INET,
              &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, buf,
              sizeof(buf));
    return absl::StrCat(buf, ":", port());
  }
  if (family() == AF_INET6) {
    inet_ntop(AF_INET6,
              &reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr, buf,
              sizeof(buf));
    return absl::StrCat("[", buf, "]:", port());
  }
  return "(unspecified)";
}

std::string SocketAddress::Key() const {
  // Only family, port and address matter; flow info and scope ids of IPv6
  // peers are the same for one client in practice.
  std::string key;
  key.push_back(static_cast<char>(family()));
  uint16_t p = static_cast<uint16_t>(port());
  key.append(reinterpret_cast<const char*>(&p), sizeof(p));
  if (family() == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr;
    key.append(reinterpret_cast<const char*>(&a), sizeof(a));
  } else if (family() == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr;
    key.append(reinterpret_cast<const char*>(&a), sizeof(a));
  }
  return key;
}

void ScopedFd::reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

bool SetNonBlocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

bool SetNoDelay(int fd) {
  int one = 1;
  return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0;
}

void SetLingerZero(int fd) {
  linger l{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
}

absl::StatusOr<ScopedFd> BindSocket(const SocketAddress& address, int type) {
  ScopedFd fd(socket(address.family(), type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.is_valid()) {
    return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  }
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd.get(), address.sockaddr_ptr(), address.len()) != 0) {
    return absl::UnavailableError(
        absl::StrCat("bind ", address.ToString(), ": ", std::strerror(errno)));
  }
  if (type == SOCK_STREAM && listen(fd.get(), SOMAXCONN) != 0) {
    return absl::UnavailableError(absl::StrCat("listen ", address.ToString(),
                                               ": ", std::strerror(errno)));
  }
  return fd;
}

}  // namespace netem
