#include "net/base/ip_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace net {

IPAddress IPAddress::IPv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  IPAddress ip;
  ip.bytes_[0] = a;
  ip.bytes_[1] = b;
  ip.bytes_[2] = c;
  ip.bytes_[3] = d;
  ip.size_ = 4;
  return ip;
}

std::optional<IPAddress> IPAddress::FromBytes(const uint8_t* bytes,
                                              size_t size) {
  if (size != 4 && size != 16) return std::nullopt;
  IPAddress ip;
  std::memcpy(ip.bytes_.data(), bytes, size);
  ip.size_ = size;
  return ip;
}

std::optional<IPAddress> IPAddress::Parse(absl::string_view text) {
  std::string s(text);
  IPAddress ip;
  if (inet_pton(AF_INET, s.c_str(), ip.bytes_.data()) == 1) {
    ip.size_ = 4;
    return ip;
  }
  if (inet_pton(AF_INET6, s.c_str(), ip.bytes_.data()) == 1) {
    ip.size_ = 16;
    return ip;
  }
  return std::nullopt;
}

std::string IPAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (size_ == 4) {
    inet_ntop(AF_INET, bytes_.data(), buf, sizeof(buf));
  } else if (size_ == 16) {
    inet_ntop(AF_INET6, bytes_.data(), buf, sizeof(buf));
  }
  return buf;
}

bool IPAddress::operator==(const IPAddress& o) const {
  return size_ == o.size_ &&
         std::memcmp(bytes_.data(), o.bytes_.data(), size_) == 0;
}

bool IPAddress::operator<(const IPAddress& o) const {
  if (size_ != o.size_) return size_ < o.size_;
  return std::memcmp(bytes_.data(), o.bytes_.data(), size_) < 0;
}

absl::StatusOr<IPEndPoint> IPEndPoint::Parse(absl::string_view text) {
  absl::string_view host, port;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == absl::string_view::npos || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      return absl::InvalidArgumentError(
          absl::StrCat("bad endpoint '", text, "': expected [v6]:port"));
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad endpoint '", text, "': expected addr:port"));
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  std::optional<IPAddress> address = IPAddress::Parse(host);
  uint32_t port_number;
  if (!address || !absl::SimpleAtoi(port, &port_number) ||
      port_number > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad endpoint '", text, "'"));
  }
  return IPEndPoint(*address, static_cast<uint16_t>(port_number));
}

socklen_t IPEndPoint::ToSockAddr(sockaddr_storage* storage) const {
  std::memset(storage, 0, sizeof(*storage));
  if (address_.IsIPv4()) {
    auto* sin = reinterpret_cast<sockaddr_in*>(storage);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port_);
    std::memcpy(&sin->sin_addr, address_.bytes(), 4);
    return sizeof(sockaddr_in);
  }
  if (address_.IsIPv6()) {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(storage);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port_);
    std::memcpy(&sin6->sin6_addr, address_.bytes(), 16);
    return sizeof(sockaddr_in6);
  }
  return 0;
}

bool IPEndPoint::FromSockAddr(const sockaddr* addr, socklen_t len) {
  if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
    const auto* sin = reinterpret_cast<const sockaddr_in*>(addr);
    const auto* b = reinterpret_cast<const uint8_t*>(&sin->sin_addr);
    address_ = IPAddress::IPv4(b[0], b[1], b[2], b[3]);
    port_ = ntohs(sin->sin_port);
    return true;
  }
  if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(addr);
    char buf[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &sin6->sin6_addr, buf, sizeof(buf));
    address_ = *IPAddress::Parse(buf);
    port_ = ntohs(sin6->sin6_port);
    return true;
  }
  return false;
}

std::string IPEndPoint::ToString() const {
  if (address_.IsIPv6())
    return absl::StrCat("[", address_.ToString(), "]:", port_);
  return absl::StrCat(address_.ToString(), ":", port_);
}

}  // namespace net
