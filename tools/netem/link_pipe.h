// LinkPipe is one direction of an emulated link at the packet level, as pure
// logic over caller-supplied monotonic nanosecond timestamps:
//
//   arrival -> MTU check -> random loss -> queue (drop-tail or CoDel)
//           -> the link's rate (a constant bit rate, or a recorded trace of
//              delivery opportunities) -> one-way delay + jitter -> delivery
//
// Jitter never reorders packets unless `reorder` is set. The I/O side
// (PacketForwarder) calls Enqueue when it reads a packet, NextEventNs to arm
// its timer and Deliver when that timer fires. Statistics are kept per pipe.
// Not thread-safe; PacketForwarder owns one per path and direction.

#ifndef TOOLS_NETEM_LINK_PIPE_H_
#define TOOLS_NETEM_LINK_PIPE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "tools/netem/delivery_trace.h"
#include "tools/netem/loss_model.h"
#include "tools/netem/packet_queue.h"

namespace netem {

struct PipeParams {
  int64_t delay_ns = 0;   // one way
  int64_t jitter_ns = 0;  // extra delay drawn uniformly from [0, jitter]
  bool reorder = false;   // let jitter reorder packets
  double rate_bps = 0;    // 0: unlimited (unless a trace is set)
  std::optional<DeliveryTrace> trace;  // Mahimahi delivery opportunities
  LossParams loss;
  QueueParams queue;
  int mtu = 1500;  // larger packets are dropped (counted as mtu drops)
  uint64_t seed = 1;
  // The most bytes on the wire (sent, not yet delivered) at once: a flood
  // into a long delay stays bounded in memory. Beyond it packets are dropped
  // and counted as queue drops.
  int64_t max_in_flight_bytes = QueueParams::kHardLimitBytes;
  // A middlebox's view of TCP Fast Open (RFC 7413): drop every TCP SYN that
  // carries data (as some middleboxes did, which made browsers give Fast
  // Open up), and/or deliver a copy of each such SYN again this long after
  // the original (an attacker replaying it); negative: no copy. The copy
  // comes from the next source port (checksum adjusted), so that it opens a
  // connection of its own at the server whatever became of the original's
  // (a TIME_WAIT there would swallow a copy from the same port).
  bool drop_syn_data = false;
  int64_t duplicate_syn_data_after_ns = -1;
};

// Whether |packet| (an IPv4 or IPv6 packet, no extension headers) is a TCP
// SYN without ACK whose segment carries data. Bounds-checked: anything
// shorter than its headers say is not.
bool IsTcpSynWithData(const std::string& packet);

// The TCP source port of a |packet| IsTcpSynWithData accepted.
uint16_t TcpSourcePort(const std::string& packet);
// Sets the TCP source port of an IPv4 or IPv6 |packet| that IsTcpSynWithData
// accepted to |port|, updating the TCP checksum (RFC 1624).
void SetTcpSourcePort(std::string* packet, uint16_t port);

// What a pipe counted. Queue delay is the time a packet waited before the
// link began sending it.
struct PipeStats {
  uint64_t packets_in = 0, bytes_in = 0;
  uint64_t packets_out = 0, bytes_out = 0;
  uint64_t drops_loss = 0, drops_queue = 0, drops_codel = 0, drops_mtu = 0;
  uint64_t drops_syn_data = 0, duplicated_syn_data = 0;
  uint64_t max_queue_packets = 0, max_queue_bytes = 0;
  // A bounded sample of queue delays (reservoir sampling beyond the cap).
  std::vector<int64_t> queue_delay_sample_ns;
  uint64_t queue_delays_seen = 0;
  static constexpr size_t kMaxSamples = 1 << 20;

  // The |q|-quantile (0..1) of the sampled queue delays, in ms; 0 if none.
  double QueueDelayQuantileMs(double q) const;
  // {"packets_in":..., ..., "drops":{...}, "queue_delay_ms":{p50,p90,p99,max}}
  std::string ToJson() const;
};

class LinkPipe {
 public:
  explicit LinkPipe(PipeParams params, int64_t start_ns = 0);

  LinkPipe(const LinkPipe&) = delete;
  LinkPipe& operator=(const LinkPipe&) = delete;

  // Takes a packet read at |now_ns|; it may be dropped at once (MTU, loss,
  // a full queue), which the stats record.
  void Enqueue(std::string packet, int64_t now_ns);

  // The earliest time at which Deliver has something to do, or nullopt when
  // the pipe is idle.
  std::optional<int64_t> NextEventNs() const;

  // Moves the link forward to |now_ns| and hands every packet due by then to
  // |deliver|, in delivery order.
  void Deliver(int64_t now_ns,
               absl::FunctionRef<void(const std::string&)> deliver);

  const PipeStats& stats() const { return stats_; }
  const PipeParams& params() const { return params_; }

 private:
  struct InFlight {
    int64_t due_ns;
    uint64_t seq;
    std::string data;
    bool operator>(const InFlight& o) const {
      return due_ns != o.due_ns ? due_ns > o.due_ns : seq > o.seq;
    }
  };

  // Sends what the link can send by |now_ns| into the delay line.
  void ServeLink(int64_t now_ns);
  // Hands |packet|, whose last bit left the link at |sent_ns|, to the delay
  // line.
  void Propagate(std::string packet, int64_t sent_ns);
  void RecordQueueDelay(int64_t ns);

  PipeParams params_;
  const int64_t start_ns_;  // the trace's time zero
  PacketQueue queue_;
  LossModel loss_;
  std::mt19937_64 rng_;
  PipeStats stats_;

  // Constant rate: when the link finishes its current packet.
  int64_t link_free_ns_ = 0;
  // Trace: the next unused opportunity, and the packet being sent across
  // opportunities with the bytes of it already sent.
  DeliveryTrace::Cursor cursor_;
  std::optional<Packet> current_;
  int64_t current_sent_bytes_ = 0;

  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>>
      in_flight_;
  int64_t last_due_ns_ = 0;
  uint64_t next_seq_ = 0;
  int64_t in_flight_bytes_ = 0;
};

}  // namespace netem

#endif  // TOOLS_NETEM_LINK_PIPE_H_
