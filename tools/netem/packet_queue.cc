#include "tools/netem/packet_queue.h"

#include <cmath>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace netem {
namespace {

// The size CoDel compares the backlog with (RFC 8289's maxpacket): one
// Ethernet MTU.
constexpr int64_t kMaxPacketBytes = 1500;
constexpr int64_t kDefaultCoDelLimit = 1000;

bool ParseMs(absl::string_view s, int64_t* ns) {
  double ms = 0;
  if (!absl::SimpleAtod(s, &ms) || !std::isfinite(ms) || ms <= 0 ||
      ms > 60'000) {
    return false;
  }
  *ns = std::llround(ms * 1e6);
  return true;
}

}  // namespace

absl::StatusOr<QueueParams> QueueParams::Parse(absl::string_view s) {
  QueueParams q;
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--queue wants unlimited, droptail:PACKETS, droptail:BYTESb or "
        "codel[:TARGET_MS,INTERVAL_MS[,LIMIT]] (",
        why, "), got '", s, "'"));
  };
  if (s == "unlimited") return q;
  if (absl::StartsWith(s, "droptail:")) {
    absl::string_view n = s.substr(9);
    q.kind = Kind::kDropTailPackets;
    if (absl::EndsWith(n, "b")) {
      q.kind = Kind::kDropTailBytes;
      n.remove_suffix(1);
    }
    if (!absl::SimpleAtoi(n, &q.limit) || q.limit <= 0 ||
        q.limit >
            (q.kind == Kind::kDropTailBytes ? kHardLimitBytes : 1'000'000)) {
      return bad("the limit must be a positive number");
    }
    if (q.kind == Kind::kDropTailBytes && q.limit < kMaxPacketBytes) {
      return bad("a byte limit below 1500 could not hold one full packet");
    }
    return q;
  }
  if (s == "codel" || absl::StartsWith(s, "codel:")) {
    q.kind = Kind::kCoDel;
    q.limit = kDefaultCoDelLimit;
    if (s == "codel") return q;
    std::vector<absl::string_view> parts = absl::StrSplit(s.substr(6), ',');
    if (parts.size() < 2 || parts.size() > 3 ||
        !ParseMs(parts[0], &q.codel_target_ns) ||
        !ParseMs(parts[1], &q.codel_interval_ns)) {
      return bad("target and interval are positive milliseconds");
    }
    if (parts.size() == 3 && (!absl::SimpleAtoi(parts[2], &q.limit) ||
                              q.limit <= 0 || q.limit > 1'000'000)) {
      return bad("the limit must be a positive number of packets");
    }
    return q;
  }
  return bad("unknown discipline");
}

std::string QueueParams::ToString() const {
  switch (kind) {
    case Kind::kUnlimited:
      return "unlimited";
    case Kind::kDropTailPackets:
      return absl::StrCat("droptail:", limit);
    case Kind::kDropTailBytes:
      return absl::StrCat("droptail:", limit, "b");
    case Kind::kCoDel:
      return absl::StrCat("codel:", codel_target_ns / 1e6, ",",
                          codel_interval_ns / 1e6, ",", limit);
  }
  return "?";
}

bool PacketQueue::Enqueue(Packet packet, int64_t now_ns) {
  const int64_t size = packet.data.size();
  if (bytes_ + size > QueueParams::kHardLimitBytes) return false;
  switch (params_.kind) {
    case QueueParams::Kind::kUnlimited:
      break;
    case QueueParams::Kind::kDropTailPackets:
    case QueueParams::Kind::kCoDel:
      if (static_cast<int64_t>(packets_.size()) >= params_.limit) return false;
      break;
    case QueueParams::Kind::kDropTailBytes:
      if (bytes_ + size > params_.limit) return false;
      break;
  }
  packet.arrival_ns = now_ns;
  bytes_ += size;
  packets_.push_back(std::move(packet));
  return true;
}

std::optional<Packet> PacketQueue::PopFront() {
  if (packets_.empty()) return std::nullopt;
  Packet p = std::move(packets_.front());
  packets_.pop_front();
  bytes_ -= p.data.size();
  return p;
}

int64_t PacketQueue::ControlLaw(int64_t t_ns, uint32_t count) const {
  return t_ns + static_cast<int64_t>(params_.codel_interval_ns /
                                     std::sqrt(static_cast<double>(count)));
}

PacketQueue::DoDequeueResult PacketQueue::DoDequeue(int64_t now_ns) {
  DoDequeueResult r;
  r.packet = PopFront();
  if (!r.packet) {
    first_above_time_ = 0;
    return r;
  }
  const int64_t sojourn = now_ns - r.packet->arrival_ns;
  if (sojourn < params_.codel_target_ns || bytes_ <= kMaxPacketBytes) {
    first_above_time_ = 0;
  } else if (first_above_time_ == 0) {
    first_above_time_ = now_ns + params_.codel_interval_ns;
  } else if (now_ns >= first_above_time_) {
    r.ok_to_drop = true;
  }
  return r;
}

std::optional<Packet> PacketQueue::Dequeue(int64_t now_ns) {
  if (params_.kind != QueueParams::Kind::kCoDel) return PopFront();
  // RFC 8289 section 5.6, with drops counted instead of freed silently.
  DoDequeueResult r = DoDequeue(now_ns);
  if (!r.packet) {
    dropping_ = false;
    return std::nullopt;
  }
  if (dropping_) {
    if (!r.ok_to_drop) {
      dropping_ = false;
    }
    while (dropping_ && now_ns >= drop_next_) {
      ++codel_drops_;
      ++count_;
      r = DoDequeue(now_ns);
      if (!r.packet || !r.ok_to_drop) {
        dropping_ = false;
      } else {
        drop_next_ = ControlLaw(drop_next_, count_);
      }
    }
  } else if (r.ok_to_drop) {
    ++codel_drops_;
    r = DoDequeue(now_ns);
    dropping_ = true;
    const uint32_t delta = count_ - last_count_;
    count_ = 1;
    if (delta > 1 && now_ns - drop_next_ < 16 * params_.codel_interval_ns) {
      count_ = delta;
    }
    drop_next_ = ControlLaw(now_ns, count_);
    last_count_ = count_;
  }
  return std::move(r.packet);
}

}  // namespace netem
