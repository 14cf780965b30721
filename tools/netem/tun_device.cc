#include "tools/netem/tun_device.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace netem {

absl::StatusOr<std::unique_ptr<TunDevice>> TunDevice::Open(
    const std::string& name_pattern) {
  if (name_pattern.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(
        absl::StrCat("interface name too long: ", name_pattern));
  }
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open /dev/net/tun: ", std::strerror(e),
        e == ENOENT ? " (no TUN support in this kernel or container)" : ""));
  }
  struct ifreq ifr;
  std::memset(&ifr, 0, sizeof(ifr));
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::memcpy(ifr.ifr_name, name_pattern.data(), name_pattern.size());
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    int e = errno;
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create a TUN device: ", std::strerror(e),
                     e == EPERM ? " (needs root or CAP_NET_ADMIN)" : ""));
  }
  return std::unique_ptr<TunDevice>(
      new TunDevice(fd, std::string(ifr.ifr_name)));
}

TunDevice::~TunDevice() {
  if (fd_ >= 0) close(fd_);
}

absl::Status CheckPacketLinkPrivileges() {
  // Opening the clone device creates nothing; only TUNSETIFF would.
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open /dev/net/tun: ", std::strerror(e)));
  }
  close(fd);
  // CAP_NET_ADMIN (12) makes TUN devices and addresses; CAP_SYS_ADMIN (21)
  // makes network namespaces. Read from /proc/self/status's CapEff.
  FILE* status = fopen("/proc/self/status", "re");
  if (status == nullptr) {
    return absl::FailedPreconditionError("cannot read /proc/self/status");
  }
  char line[256];
  unsigned long long cap_eff = 0;
  bool found = false;
  while (fgets(line, sizeof(line), status) != nullptr) {
    if (std::strncmp(line, "CapEff:", 7) == 0) {
      cap_eff = std::strtoull(line + 7, nullptr, 16);
      found = true;
      break;
    }
  }
  fclose(status);
  if (!found) {
    return absl::FailedPreconditionError("no CapEff in /proc/self/status");
  }
  if (!(cap_eff & (1ull << 12)) || !(cap_eff & (1ull << 21))) {
    return absl::FailedPreconditionError(
        "needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to make network "
        "namespaces and TUN devices");
  }
  return absl::OkStatus();
}

}  // namespace netem
