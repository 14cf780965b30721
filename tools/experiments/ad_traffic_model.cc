#include "tools/experiments/ad_traffic_model.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace net {
namespace {

constexpr int64_t kSampleUs = 100'000;  // statistics every 100 ms

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  int64_t ExponentialUs(absl::Duration mean) {
    return static_cast<int64_t>(-absl::ToDoubleMicroseconds(mean) *
                                std::log1p(-Uniform()));
  }

 private:
  std::mt19937_64 engine_;
};

// Adds +1 on [start_us, end_us) to a per-sample difference array.
void AddInterval(std::vector<int64_t>& diff, int64_t start_us, int64_t end_us) {
  int64_t n = static_cast<int64_t>(diff.size()) - 1;
  int64_t a = std::clamp<int64_t>((start_us + kSampleUs - 1) / kSampleUs, 0, n);
  int64_t b = std::clamp<int64_t>((end_us + kSampleUs - 1) / kSampleUs, 0, n);
  if (a < b) {
    ++diff[a];
    --diff[b];
  }
}

}  // namespace

AdTraffic GenerateAdTraffic(const AdTrafficParams& params) {
  AdTraffic out;
  Rng rng(params.seed);
  const int64_t t_end = absl::ToInt64Microseconds(params.duration);
  const int64_t grace = absl::ToInt64Microseconds(params.grace);
  const double p_run =
      absl::FDivDuration(params.mean_run, params.mean_run + params.mean_wait);
  int total_apps = 0;
  for (const auto& p : params.periods) total_apps += p.apps;

  const size_t samples = static_cast<size_t>(t_end / kSampleUs);
  std::vector<int64_t> running(samples + 1, 0);
  std::vector<int64_t> in_use(samples + 1, 0);

  for (uint32_t device = 0; device < params.clients; ++device) {
    // The device's app and its refresh period.
    int pick = static_cast<int>(rng.Uniform() * total_apps);
    absl::Duration period_d = params.periods.back().period;
    for (const auto& p : params.periods) {
      if (pick < p.apps) {
        period_d = p.period;
        break;
      }
      pick -= p.apps;
    }
    const int64_t period = absl::ToInt64Microseconds(period_d);

    bool first = true;
    int64_t in_use_start = -1, in_use_end = -1;  // merged in-use interval
    auto run = [&](int64_t run_start, int64_t run_end, int64_t first_request) {
      AddInterval(running, std::max<int64_t>(run_start, 0),
                  std::min(run_end, t_end));
      int64_t last = -1;
      for (int64_t t = first_request; t < run_end && t < t_end; t += period) {
        TimeTicks at = kAdTrafficEpoch + absl::Microseconds(t);
        out.trace.push_back({at, device, at + period_d, !first});
        first = false;
        last = t;
      }
      if (last < 0) return;
      int64_t use_end = last + period + grace;
      if (in_use_end >= run_start) {
        in_use_end =
            std::max(in_use_end, use_end);  // back before its session expired
      } else {
        if (in_use_start >= 0) AddInterval(in_use, in_use_start, in_use_end);
        in_use_start = run_start;
        in_use_end = use_end;
      }
    };

    int64_t t;
    if (rng.Uniform() < p_run) {
      // Running at t = 0 since some time: the remaining run is exponential
      // again, the next ad comes at a random phase of the period.
      int64_t remaining = rng.ExponentialUs(params.mean_run);
      int64_t phase = static_cast<int64_t>(rng.Uniform() * period);
      run(0, remaining, phase);
      t = remaining;
    } else {
      t = 0;
    }
    for (;;) {
      t += rng.ExponentialUs(params.mean_wait);
      if (t >= t_end) break;
      int64_t length = rng.ExponentialUs(params.mean_run);
      run(t, t + length, t);
      t += length;
    }
    if (in_use_start >= 0) AddInterval(in_use, in_use_start, in_use_end);
    if (!first) ++out.stats.devices_seen;
  }

  std::sort(out.trace.begin(), out.trace.end(),
            [](const TraceRequest& a, const TraceRequest& b) {
              return a.time != b.time ? a.time < b.time : a.client < b.client;
            });
  out.stats.requests = out.trace.size();
  for (const TraceRequest& r : out.trace) out.stats.counted += r.counted;

  // Integrate the difference arrays into per-sample counts.
  const double c = std::max<uint32_t>(1, params.clients);
  double sum = 0, sum_sq = 0, use_sum = 0;
  int64_t run_now = 0, use_now = 0, run_peak = 0, use_peak = 0;
  for (size_t i = 0; i < samples; ++i) {
    run_now += running[i];
    use_now += in_use[i];
    sum += run_now;
    sum_sq += static_cast<double>(run_now) * run_now;
    use_sum += use_now;
    run_peak = std::max(run_peak, run_now);
    use_peak = std::max(use_peak, use_now);
  }
  if (samples > 0) {
    double mean = sum / samples;
    out.stats.running_mean = mean / c;
    out.stats.running_sd =
        std::sqrt(std::max(0.0, sum_sq / samples - mean * mean)) / c;
    out.stats.running_peak = run_peak / c;
    out.stats.in_use_mean = use_sum / samples / c;
    out.stats.in_use_peak = use_peak / c;
  }
  return out;
}

}  // namespace net
