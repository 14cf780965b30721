// AdTrafficModel: the Android in-app advertising workload of Stevens & Chen
// ("Predictive Eviction", Globecom 2015), as a connection trace for
// net/session_cache's Replay().
//
// c devices each alternate between running an ad-supported app and not:
// exponential run and wait times (real means 120 s and 2760 s; simulated 6x
// faster: 20 s and 460 s over T = 600 s). While the app runs it fetches an
// ad when it starts and then every refresh period — 60 s for 23 of the
// surveyed apps, 30 s for 13, 15 s for 2, divided by the speed-up — and each
// request announces the next one (t + period). Each device runs one app (its
// period is drawn once). At t = 0 each device is running with the stationary
// probability run / (run + wait), with its remaining run or wait time drawn
// afresh (memorylessness) and, if running, a uniformly random phase within
// its period. The first request of each device is not counted.
//
// Deterministic for a seed: its own generator and exponential sampling, no
// std::*_distribution (whose algorithms differ between libraries).
//
// GenerateAdTraffic returns the trace by value; nothing is kept.

#ifndef TOOLS_EXPERIMENTS_AD_TRAFFIC_MODEL_H_
#define TOOLS_EXPERIMENTS_AD_TRAFFIC_MODEL_H_

#include <cstdint>
#include <vector>

#include "absl/time/time.h"
#include "net/session_cache/trace_replay.h"

namespace net {

struct AdTrafficParams {
  uint32_t clients = 20000;
  absl::Duration mean_run = absl::Seconds(20);    // 120 s / 6
  absl::Duration mean_wait = absl::Seconds(460);  // 2760 s / 6
  absl::Duration duration = absl::Seconds(600);   // T
  struct Period {
    absl::Duration period;
    int apps;  // how many surveyed apps use it (the weight)
  };
  std::vector<Period> periods = {{absl::Seconds(10), 23},         // 60 s / 6
                                 {absl::Seconds(5), 13},          // 30 s / 6
                                 {absl::Milliseconds(2500), 2}};  // 15 s / 6
  absl::Duration grace = absl::Seconds(2);  // PRED's; also "sessions in use"
  uint64_t seed = 1;
};

// The trace's own checks against the paper: how many devices run at once
// and how many sessions are in use (a device's session is in use from its
// run's first request until its last announced next connect plus the grace
// period), sampled every 100 ms over [0, T), as fractions of c.
struct AdTrafficStats {
  double running_mean = 0;
  double running_sd = 0;
  double running_peak = 0;
  double in_use_mean = 0;
  double in_use_peak = 0;
  uint64_t requests = 0;
  uint64_t counted = 0;  // requests after each device's first
  uint64_t devices_seen = 0;
};

struct AdTraffic {
  std::vector<TraceRequest> trace;  // sorted by time, then client
  AdTrafficStats stats;
};

// GenerateAdTraffic builds the trace and its statistics. Times start at
// TimeTicks 1 s (t = 0 of the model).
AdTraffic GenerateAdTraffic(const AdTrafficParams& params);

// The model's start, t = 0.
inline constexpr TimeTicks kAdTrafficEpoch =
    TimeTicks::FromMicroseconds(1'000'000);

}  // namespace net

#endif  // TOOLS_EXPERIMENTS_AD_TRAFFIC_MODEL_H_
