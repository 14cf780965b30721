// TunDevice opens a TUN interface (IFF_TUN | IFF_NO_PI: whole IP packets, no
// header) in the network namespace the calling thread is in at that moment;
// the descriptor keeps working wherever the process goes afterwards. The
// interface exists for as long as the TunDevice does (it is not made
// persistent), so a crashed netem leaves no device behind. Owned by whoever
// opened it; PacketForwarder reads and writes through fd().

#ifndef TOOLS_NETEM_TUN_DEVICE_H_
#define TOOLS_NETEM_TUN_DEVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace netem {

class TunDevice {
 public:
  // Creates a TUN device named after |name_pattern| ("netem%d" lets the
  // kernel pick a free number), non-blocking, close-on-exec. Errors say
  // whether /dev/net/tun is missing or the privilege (CAP_NET_ADMIN) is.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<TunDevice>> Open(
      const std::string& name_pattern);

  ~TunDevice();
  TunDevice(const TunDevice&) = delete;
  TunDevice& operator=(const TunDevice&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }

 private:
  TunDevice(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  int fd_;
  std::string name_;
};

// Returns why this process cannot make packet-level links, or OK if it can:
// /dev/net/tun must open and the process must hold CAP_NET_ADMIN (a TUN
// device is created and destroyed at once to find out).
absl::Status CheckPacketLinkPrivileges();

}  // namespace netem

#endif  // TOOLS_NETEM_TUN_DEVICE_H_
