// IPAddress (v4 or v6) and IPEndPoint (address + port), with conversion to
// and from sockaddr and text ("127.0.0.1:443", "[::1]:443").

#ifndef NET_BASE_IP_ENDPOINT_H_
#define NET_BASE_IP_ENDPOINT_H_

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

class IPAddress {
 public:
  IPAddress() = default;
  static IPAddress IPv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d);
  static IPAddress IPv4Localhost() { return IPv4(127, 0, 0, 1); }
  // FromBytes takes 4 (IPv4) or 16 (IPv6) network-order bytes.
  static std::optional<IPAddress> FromBytes(const uint8_t* bytes, size_t size);
  // Parse accepts dotted IPv4 or textual IPv6 (no brackets).
  static std::optional<IPAddress> Parse(absl::string_view text);

  bool IsIPv4() const { return size_ == 4; }
  bool IsIPv6() const { return size_ == 16; }
  bool empty() const { return size_ == 0; }
  const uint8_t* bytes() const { return bytes_.data(); }
  size_t size() const { return size_; }
  std::string ToString() const;

  bool operator==(const IPAddress& o) const;
  bool operator!=(const IPAddress& o) const { return !(*this == o); }
  bool operator<(const IPAddress& o) const;

 private:
  std::array<uint8_t, 16> bytes_{};
  size_t size_ = 0;
};

class IPEndPoint {
 public:
  IPEndPoint() = default;
  IPEndPoint(IPAddress address, uint16_t port)
      : address_(address), port_(port) {}

  // Parse accepts "1.2.3.4:443" or "[::1]:443".
  [[nodiscard]] static absl::StatusOr<IPEndPoint> Parse(absl::string_view text);

  const IPAddress& address() const { return address_; }
  uint16_t port() const { return port_; }

  // ToSockAddr fills |storage| and returns the length, or 0 if empty.
  socklen_t ToSockAddr(sockaddr_storage* storage) const;
  // FromSockAddr returns false for address families other than v4/v6.
  bool FromSockAddr(const sockaddr* addr, socklen_t len);
  int family() const { return address_.IsIPv6() ? AF_INET6 : AF_INET; }

  std::string ToString() const;
  bool operator==(const IPEndPoint& o) const {
    return address_ == o.address_ && port_ == o.port_;
  }
  bool operator<(const IPEndPoint& o) const {
    return address_ == o.address_ ? port_ < o.port_ : address_ < o.address_;
  }

 private:
  IPAddress address_;
  uint16_t port_ = 0;
};

}  // namespace net

#endif  // NET_BASE_IP_ENDPOINT_H_
