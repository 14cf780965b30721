// PacketForwarder moves IP packets between the two TUN devices of an
// emulated link on the network thread's net::EventLoop: packets read from
// the inner device (the shell's side) go up, packets read from the outer
// device go down, each through the LinkPipe of its path and direction.
// A path is an IPv4 prefix on the outer side (the destination going up, the
// source coming down) with its own link; packets matching no path (and
// non-IPv4 ones) take the default link. Owned by the shell; the descriptors
// must outlive it.

#ifndef TOOLS_NETEM_PACKET_FORWARDER_H_
#define TOOLS_NETEM_PACKET_FORWARDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/base/event_loop.h"
#include "tools/netem/link_pipe.h"

namespace netem {

// One direction's parameters for both directions of a path.
struct PathParams {
  std::string name;     // "default" or the prefix as given
  uint32_t prefix = 0;  // host byte order
  int prefix_len = 0;   // 0: matches everything (the default path)
  PipeParams uplink;    // inner -> outer
  PipeParams downlink;  // outer -> inner
};

class PacketForwarder : public net::FdWatcher {
 public:
  // |paths| must end with the default path (prefix_len 0). Nothing happens
  // until Start().
  PacketForwarder(net::EventLoop* loop, int inner_fd, int outer_fd,
                  std::vector<PathParams> paths);
  ~PacketForwarder() override;

  PacketForwarder(const PacketForwarder&) = delete;
  PacketForwarder& operator=(const PacketForwarder&) = delete;

  // Starts watching both descriptors. Returns false if epoll refuses them.
  bool Start();

  // Statistics as one JSON object: {"uplink": ..., "downlink": ...} of the
  // default path, and with more paths "paths": [{"path", "uplink",
  // "downlink"}, ...] for every path.
  std::string StatsJson() const;

  // Packets that could not be written to a device (it went away, or the
  // kernel refused them).
  uint64_t write_errors() const { return write_errors_; }

  // Monotonic time in nanoseconds, the clock every pipe runs on.
  static int64_t NowNs();

 private:
  struct Path {
    PathParams params;
    std::unique_ptr<LinkPipe> up;
    std::unique_ptr<LinkPipe> down;
  };

  // net::FdWatcher:
  void OnFdReadable(int fd) override;
  void OnFdWritable(int fd) override {}

  Path& Classify(const std::string& packet, bool going_up);
  // Delivers whatever is due by now and re-arms the timer for the next event.
  void Service();
  void Write(int fd, const std::string& packet);

  net::EventLoop* const loop_;
  const int inner_fd_;
  const int outer_fd_;
  std::vector<Path> paths_;
  net::FdWatchController inner_watch_;
  net::FdWatchController outer_watch_;
  net::OneShotTimer timer_;
  int64_t armed_ns_ = -1;
  std::string buffer_;
  uint64_t write_errors_ = 0;
};

}  // namespace netem

#endif  // TOOLS_NETEM_PACKET_FORWARDER_H_
