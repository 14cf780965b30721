#include "tools/netem/link_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace netem {

LinkModel::LinkModel(const LinkParams& params)
    : params_(params), rng_(params.seed) {}

int64_t LinkModel::Schedule(Direction direction, int64_t now_ns, size_t bytes,
                            int64_t* flow_last_due_ns) {
  const int d = static_cast<int>(direction);
  int64_t sent_ns = now_ns;
  if (params_.rate_bps > 0) {
    // The link is a single FIFO server per direction: a chunk starts
    // transmitting when the previous one (of any flow) has finished.
    int64_t start_ns = std::max(now_ns, link_free_ns_[d]);
    int64_t tx_ns = static_cast<int64_t>(std::llround(
        static_cast<double>(bytes) * 8.0 * 1e9 / params_.rate_bps));
    sent_ns = start_ns + tx_ns;
    link_free_ns_[d] = sent_ns;
  }
  int64_t due_ns =
      sent_ns + (direction == Direction::kUp ? params_.up_delay_ns
                                             : params_.down_delay_ns);
  if (params_.jitter_ns > 0) {
    std::uniform_int_distribution<int64_t> jitter(0, params_.jitter_ns);
    due_ns += jitter(rng_);
  }
  // Jitter must not reorder a byte stream (or a flow's datagrams): a chunk
  // that drew a small delay waits for the one before it.
  due_ns = std::max(due_ns, *flow_last_due_ns);
  *flow_last_due_ns = due_ns;
  return due_ns;
}

size_t LinkModel::max_segment_bytes() const {
  return params_.rate_bps > 0 ? kRateSegmentBytes : SIZE_MAX;
}

size_t LinkModel::flow_buffer_bytes() const {
  constexpr size_t kUnlimited = 4 << 20;
  constexpr size_t kMinimum = 64 << 10;
  if (params_.rate_bps <= 0) return kUnlimited;
  double delay_s =
      static_cast<double>(params_.up_delay_ns + params_.down_delay_ns +
                          params_.jitter_ns) /
      1e9;
  double bdp = params_.rate_bps / 8.0 * delay_s;
  return std::clamp(static_cast<size_t>(2 * bdp) + kMinimum, kMinimum,
                    kUnlimited);
}

}  // namespace netem
