#include "tools/netem/relay.h"

#include <sys/socket.h>

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tools/netem/tcp_relay.h"
#include "tools/netem/udp_relay.h"

namespace netem {

std::string ListenerInfo::ToString() const {
  return absl::StrCat("listening ", ProtocolName(protocol), " ",
                      bound.ToString(), " -> ", target.ToString());
}

Relay::Relay(const Options& options) : options_(options), link_(options.link) {}

Relay::~Relay() { Stop(); }

absl::Status Relay::Start() {
  if (absl::Status status = loop_.Init(); !status.ok()) return status;
  // Bind everything first so that a failure leaves nothing half-started.
  std::vector<ScopedFd> fds;
  for (const Forward& forward : options_.forwards) {
    absl::StatusOr<ScopedFd> fd = BindSocket(
        forward.listen,
        forward.protocol == Protocol::kTcp ? SOCK_STREAM : SOCK_DGRAM);
    absl::StatusOr<SocketAddress> bound =
        fd.ok() ? SocketAddress::LocalOf(fd->get())
                : absl::StatusOr<SocketAddress>(fd.status());
    if (!bound.ok()) {
      listeners_.clear();
      return bound.status();
    }
    listeners_.push_back(
        ListenerInfo{forward.protocol, *bound, forward.target});
    fds.push_back(*std::move(fd));
  }
  for (size_t i = 0; i < fds.size(); ++i) {
    const Forward& forward = options_.forwards[i];
    if (forward.protocol == Protocol::kTcp) {
      loop_
          .Add(std::make_unique<TcpListener>(&loop_, &link_, std::move(fds[i]),
                                             forward.target))
          ->Start();
    } else {
      loop_
          .Add(std::make_unique<UdpListener>(&loop_, &link_, std::move(fds[i]),
                                             forward.target,
                                             options_.udp_idle_timeout_ns))
          ->Start();
    }
  }
  thread_ = std::thread([this] { loop_.Run(); });
  return absl::OkStatus();
}

void Relay::Stop() {
  if (!thread_.joinable()) return;
  loop_.Quit();
  thread_.join();
}

}  // namespace netem
