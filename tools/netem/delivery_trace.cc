#include "tools/netem/delivery_trace.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace netem {

absl::StatusOr<DeliveryTrace> DeliveryTrace::Parse(absl::string_view text) {
  DeliveryTrace trace;
  int line_number = 0;
  int64_t last_ms = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    size_t hash = line.find('#');
    if (hash != absl::string_view::npos) line = line.substr(0, hash);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    int64_t ms = 0;
    // An hour of trace at most per period: far beyond any recording, and
    // the nanosecond arithmetic stays well inside int64.
    if (!absl::SimpleAtoi(line, &ms) || ms < 0 || ms > 3'600'000) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trace line ", line_number,
          ": want a millisecond timestamp (0 to 3600000), got '", line, "'"));
    }
    if (ms < last_ms) {
      return absl::InvalidArgumentError(
          absl::StrCat("trace line ", line_number, ": timestamp ", ms,
                       " is before the previous one (", last_ms, ")"));
    }
    if (trace.times_ns_.size() >= kMaxOpportunities) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trace has more than ", kMaxOpportunities, " opportunities"));
    }
    last_ms = ms;
    trace.times_ns_.push_back(ms * 1'000'000);
  }
  if (trace.times_ns_.empty()) {
    return absl::InvalidArgumentError("trace has no delivery opportunity");
  }
  if (last_ms == 0) {
    return absl::InvalidArgumentError(
        "trace's last timestamp must be positive (it is the period)");
  }
  trace.period_ns_ = last_ms * 1'000'000;
  return trace;
}

absl::StatusOr<DeliveryTrace> DeliveryTrace::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<DeliveryTrace> trace = Parse(text.str());
  if (!trace.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", trace.status().message()));
  }
  return trace;
}

DeliveryTrace::Cursor DeliveryTrace::FirstAtOrAfter(int64_t t_ns) const {
  if (t_ns < 0) t_ns = 0;
  Cursor c;
  c.cycle = t_ns / period_ns_;
  int64_t within = t_ns - c.cycle * period_ns_;
  // Mahimahi's period: an opportunity at timestamp P (the last) belongs to
  // time P of the cycle, which equals time 0 of the next; both exist.
  auto it = std::lower_bound(times_ns_.begin(), times_ns_.end(), within);
  if (it == times_ns_.end()) {
    ++c.cycle;
    c.index = 0;
  } else {
    c.index = it - times_ns_.begin();
  }
  return c;
}

DeliveryTrace::Cursor DeliveryTrace::Next(Cursor c) const {
  if (++c.index == times_ns_.size()) {
    c.index = 0;
    ++c.cycle;
  }
  return c;
}

int64_t DeliveryTrace::TimeOf(Cursor c) const {
  return c.cycle * period_ns_ + times_ns_[c.index];
}

double DeliveryTrace::mean_rate_bps() const {
  return static_cast<double>(times_ns_.size()) * kBytesPerOpportunity * 8 /
         (static_cast<double>(period_ns_) / 1e9);
}

}  // namespace netem
