// PacketQueue is a link's buffer in one direction: a FIFO of IP packets with
// a discipline that decides what is dropped: drop-tail with a limit in
// packets or in bytes, or CoDel (RFC 8289: drops at dequeue once packets
// have waited longer than a target for a whole interval), or unlimited.
// LinkPipe owns one; not thread-safe.

#ifndef TOOLS_NETEM_PACKET_QUEUE_H_
#define TOOLS_NETEM_PACKET_QUEUE_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace netem {

// One IP packet inside netem.
struct Packet {
  std::string data;
  int64_t arrival_ns = 0;  // when netem read it
};

struct QueueParams {
  enum class Kind { kUnlimited, kDropTailPackets, kDropTailBytes, kCoDel };
  Kind kind = Kind::kUnlimited;
  // Drop-tail: the limit (packets or bytes). CoDel: a packet limit too (as
  // Linux's codel qdisc, 1000 by default) so memory stays bounded.
  int64_t limit = 0;
  int64_t codel_target_ns = 5'000'000;      // RFC 8289's 5 ms
  int64_t codel_interval_ns = 100'000'000;  // and 100 ms
  // What unlimited means in memory: a queue never holds more than this many
  // bytes whatever the discipline (drops counted as queue drops).
  static constexpr int64_t kHardLimitBytes = 256 << 20;

  // Parses "unlimited", "droptail:N" (packets), "droptail:Nb" (bytes),
  // "codel" or "codel:TARGET_MS,INTERVAL_MS[,LIMIT]".
  [[nodiscard]] static absl::StatusOr<QueueParams> Parse(absl::string_view s);
  std::string ToString() const;
};

class PacketQueue {
 public:
  enum class DropReason { kNone, kTail, kCoDel };

  explicit PacketQueue(const QueueParams& params) : params_(params) {}

  // Adds |packet| (arrived at |now_ns|). Returns false, and drops it, when
  // the discipline's limit is reached.
  bool Enqueue(Packet packet, int64_t now_ns);

  // Takes the next packet to send at |now_ns|; CoDel may drop packets first
  // (counted in codel_drops(), their waiting times ignored). Empty when
  // nothing is left.
  std::optional<Packet> Dequeue(int64_t now_ns);

  bool empty() const { return packets_.empty(); }
  size_t packets() const { return packets_.size(); }
  int64_t bytes() const { return bytes_; }
  // When the head packet arrived; the queue must not be empty.
  int64_t head_arrival_ns() const { return packets_.front().arrival_ns; }
  // The bytes the head packet still has to send (LinkPipe's trace mode sends
  // a packet over several opportunities); the queue must not be empty.
  int64_t head_bytes() const { return packets_.front().data.size(); }

  uint64_t codel_drops() const { return codel_drops_; }
  const QueueParams& params() const { return params_; }

 private:
  struct DoDequeueResult {
    std::optional<Packet> packet;
    bool ok_to_drop = false;
  };
  DoDequeueResult DoDequeue(int64_t now_ns);
  std::optional<Packet> PopFront();
  int64_t ControlLaw(int64_t t_ns, uint32_t count) const;

  QueueParams params_;
  std::deque<Packet> packets_;
  int64_t bytes_ = 0;

  // CoDel's state (RFC 8289 section 5).
  int64_t first_above_time_ = 0;
  int64_t drop_next_ = 0;
  uint32_t count_ = 0;
  uint32_t last_count_ = 0;
  bool dropping_ = false;
  uint64_t codel_drops_ = 0;
};

}  // namespace netem

#endif  // TOOLS_NETEM_PACKET_QUEUE_H_
