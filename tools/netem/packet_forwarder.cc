#include "tools/netem/packet_forwarder.h"

#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace netem {
namespace {

// Packets read from one device per readiness event, so that a flood in one
// direction cannot starve the other or the timer.
constexpr int kMaxReadsPerEvent = 256;
// The largest IP packet.
constexpr size_t kMaxPacketBytes = 65535;

uint32_t ReadBe32(const std::string& p, size_t offset) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(p[offset])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[offset + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[offset + 2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(p[offset + 3]));
}

}  // namespace

int64_t PacketForwarder::NowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

PacketForwarder::PacketForwarder(net::EventLoop* loop, int inner_fd,
                                 int outer_fd, std::vector<PathParams> paths)
    : loop_(loop), inner_fd_(inner_fd), outer_fd_(outer_fd) {
  const int64_t start = NowNs();
  for (PathParams& p : paths) {
    Path path;
    path.up = std::make_unique<LinkPipe>(p.uplink, start);
    path.down = std::make_unique<LinkPipe>(p.downlink, start);
    path.params = std::move(p);
    paths_.push_back(std::move(path));
  }
  buffer_.resize(kMaxPacketBytes);
}

PacketForwarder::~PacketForwarder() = default;

bool PacketForwarder::Start() {
  return inner_watch_.Watch(loop_, inner_fd_, /*read=*/true, /*write=*/false,
                            this) &&
         outer_watch_.Watch(loop_, outer_fd_, /*read=*/true, /*write=*/false,
                            this);
}

PacketForwarder::Path& PacketForwarder::Classify(const std::string& packet,
                                                 bool going_up) {
  if (paths_.size() > 1 && packet.size() >= 20 &&
      (static_cast<uint8_t>(packet[0]) >> 4) == 4) {
    // The outer side's address: the destination going up, the source down.
    uint32_t addr = ReadBe32(packet, going_up ? 16 : 12);
    for (Path& path : paths_) {
      int len = path.params.prefix_len;
      uint32_t mask = len == 0 ? 0 : ~uint32_t{0} << (32 - len);
      if ((addr & mask) == (path.params.prefix & mask)) return path;
    }
  }
  return paths_.back();
}

void PacketForwarder::OnFdReadable(int fd) {
  const bool going_up = fd == inner_fd_;
  for (int i = 0; i < kMaxReadsPerEvent; ++i) {
    ssize_t n = read(fd, buffer_.data(), buffer_.size());
    if (n <= 0) break;  // EAGAIN: drained; errors show up as write errors
    std::string packet(buffer_.data(), n);
    Path& path = Classify(packet, going_up);
    (going_up ? path.up : path.down)->Enqueue(std::move(packet), NowNs());
  }
  Service();
}

void PacketForwarder::Write(int fd, const std::string& packet) {
  if (write(fd, packet.data(), packet.size()) !=
      static_cast<ssize_t>(packet.size())) {
    ++write_errors_;
  }
}

void PacketForwarder::Service() {
  const int64_t now = NowNs();
  int64_t next = -1;
  for (Path& path : paths_) {
    path.up->Deliver(now, [&](const std::string& p) { Write(outer_fd_, p); });
    path.down->Deliver(now, [&](const std::string& p) { Write(inner_fd_, p); });
    for (LinkPipe* pipe : {path.up.get(), path.down.get()}) {
      std::optional<int64_t> t = pipe->NextEventNs();
      if (t && (next < 0 || *t < next)) next = *t;
    }
  }
  if (next < 0) {
    timer_.Stop();
    armed_ns_ = -1;
    return;
  }
  if (timer_.IsRunning() && armed_ns_ == next) return;
  armed_ns_ = next;
  int64_t wait = next - NowNs();
  timer_.Start(absl::Nanoseconds(wait > 0 ? wait : 0), [this] {
    armed_ns_ = -1;
    Service();
  });
}

std::string PacketForwarder::StatsJson() const {
  const Path& def = paths_.back();
  std::string json =
      absl::StrCat("{\"uplink\": ", def.up->stats().ToJson(),
                   ", \"downlink\": ", def.down->stats().ToJson(),
                   ", \"write_errors\": ", write_errors_);
  if (paths_.size() > 1) {
    absl::StrAppend(&json, ", \"paths\": [");
    for (size_t i = 0; i < paths_.size(); ++i) {
      absl::StrAppend(
          &json, i ? ", " : "", "{\"path\": \"", paths_[i].params.name,
          "\", \"uplink\": ", paths_[i].up->stats().ToJson(),
          ", \"downlink\": ", paths_[i].down->stats().ToJson(), "}");
    }
    absl::StrAppend(&json, "]");
  }
  absl::StrAppend(&json, "}");
  return json;
}

}  // namespace netem
