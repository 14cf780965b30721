// DeliveryTrace is a recorded link: the times at which the link could deliver
// one packet, in Mahimahi's trace format (Netravali et al., USENIX ATC 2015):
// one line per delivery opportunity, a millisecond timestamp, each
// opportunity carrying up to 1500 bytes; several lines with the same
// timestamp are several opportunities in that millisecond. The trace repeats
// with a period of its last timestamp. Immutable once parsed; LinkPipe holds
// one per direction.

#ifndef TOOLS_NETEM_DELIVERY_TRACE_H_
#define TOOLS_NETEM_DELIVERY_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace netem {

class DeliveryTrace {
 public:
  // Bytes one opportunity carries (Mahimahi's MTU-sized packet).
  static constexpr int64_t kBytesPerOpportunity = 1500;
  // A trace longer than this many opportunities is refused (about 40 minutes
  // of a 100 Mbit/s link): it stays bounded in memory.
  static constexpr size_t kMaxOpportunities = 20'000'000;

  // Parses trace text: one non-negative integer per line (blank lines and
  // '#' comments ignored), non-decreasing, the last one positive. Returns
  // InvalidArgument naming the line on anything else.
  [[nodiscard]] static absl::StatusOr<DeliveryTrace> Parse(
      absl::string_view text);
  // Reads and parses |path|; NotFound if it cannot be read.
  [[nodiscard]] static absl::StatusOr<DeliveryTrace> Load(
      const std::string& path);

  // The first opportunity at or after |t_ns| (nanoseconds from the trace's
  // start, >= 0), as an index that NextAfter and TimeOf understand.
  struct Cursor {
    int64_t cycle = 0;
    size_t index = 0;
  };
  Cursor FirstAtOrAfter(int64_t t_ns) const;
  // The opportunity after |c|.
  Cursor Next(Cursor c) const;
  // When |c| happens, in nanoseconds from the trace's start.
  int64_t TimeOf(Cursor c) const;

  // The trace's period in nanoseconds and its mean rate in bits per second.
  int64_t period_ns() const { return period_ns_; }
  double mean_rate_bps() const;
  size_t opportunities() const { return times_ns_.size(); }

 private:
  DeliveryTrace() = default;
  std::vector<int64_t> times_ns_;  // non-decreasing, within one period
  int64_t period_ns_ = 0;
};

}  // namespace netem

#endif  // TOOLS_NETEM_DELIVERY_TRACE_H_
