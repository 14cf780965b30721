// LinkModel decides when a chunk of bytes read from one side of the relay is
// delivered to the other side: one-way delay per direction, random jitter
// that never reorders a flow, and optional serialization at a fixed bit rate
// on a link shared by every flow going the same direction. It is pure logic
// over caller-supplied monotonic nanosecond timestamps. The relay's event
// loop owns one LinkModel; it is not thread-safe.

#ifndef TOOLS_NETEM_LINK_MODEL_H_
#define TOOLS_NETEM_LINK_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <random>

namespace netem {

// The link parameters. All durations in nanoseconds.
struct LinkParams {
  int64_t up_delay_ns = 0;    // client -> target, one way
  int64_t down_delay_ns = 0;  // target -> client, one way
  int64_t jitter_ns = 0;      // extra delay drawn uniformly from [0, jitter]
  double rate_bps = 0;        // bits per second per direction; 0 = unlimited
  uint64_t seed = 1;          // seeds the jitter generator
};

enum class Direction { kUp = 0, kDown = 1 };

class LinkModel {
 public:
  // Payload bytes per scheduled segment when a rate is set: roughly one TCP
  // segment, so a large read is released gradually as the link would.
  static constexpr size_t kRateSegmentBytes = 1448;

  explicit LinkModel(const LinkParams& params);

  LinkModel(const LinkModel&) = delete;
  LinkModel& operator=(const LinkModel&) = delete;

  const LinkParams& params() const { return params_; }

  // Returns the time at which `bytes` read at `now_ns` going `direction`
  // should be delivered:
  //   transmitted = max(now, link free) + bytes * 8 / rate   (rate set)
  //   due         = transmitted + delay + U[0, jitter]
  //   due         = max(due, *flow_last_due_ns)              (no reordering)
  // and stores the result in `*flow_last_due_ns`, which the caller keeps per
  // flow and direction (initialised to 0). `bytes` may be 0 for a FIN or a
  // reset, which then takes no link time.
  int64_t Schedule(Direction direction, int64_t now_ns, size_t bytes,
                   int64_t* flow_last_due_ns);

  // The largest chunk that should be scheduled as one unit: kRateSegmentBytes
  // when a rate is set, otherwise unlimited (SIZE_MAX).
  size_t max_segment_bytes() const;

  // How many bytes one flow may have queued in one direction before the relay
  // stops reading from its source: generous without a rate, about twice the
  // bandwidth-delay product (at least 64 KiB) with one, so that a slow link
  // pushes back on the sender instead of buffering seconds of data.
  size_t flow_buffer_bytes() const;

 private:
  LinkParams params_;
  int64_t link_free_ns_[2] = {0, 0};
  std::mt19937_64 rng_;
};

}  // namespace netem

#endif  // TOOLS_NETEM_LINK_MODEL_H_
