// The ad-traffic model: deterministic for a seed, the paper's sanity figures
// at c = 20000, each device's first request left out, announcements at the
// surveyed periods.

#include "tools/experiments/ad_traffic_model.h"

#include <set>

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"
#include "tools/experiments/hit_rate_svg.h"

namespace net {
namespace {

TEST(AdTrafficModelTest, DeterministicForASeed) {
  AdTrafficParams params;
  params.clients = 2000;
  AdTraffic a = GenerateAdTraffic(params);
  AdTraffic b = GenerateAdTraffic(params);
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (size_t i = 0; i < a.trace.size(); ++i) {
    ASSERT_EQ(a.trace[i].time, b.trace[i].time);
    ASSERT_EQ(a.trace[i].client, b.trace[i].client);
  }
  params.seed = 2;
  EXPECT_NE(a.trace.size(), GenerateAdTraffic(params).trace.size());
}

TEST(AdTrafficModelTest, SanityFiguresAtTwentyThousandDevices) {
  AdTraffic t = GenerateAdTraffic(AdTrafficParams());
  // 20 / (20 + 460) = 0.0417 of the devices run at once; the sd over time of
  // a sum of c independent on/off devices is sqrt(p(1-p)/c) = 0.0014c.
  EXPECT_NEAR(0.0417, t.stats.running_mean, 0.002);
  EXPECT_NEAR(0.0014, t.stats.running_sd, 0.0006);
  // Sessions in use: a run plus the last period and the grace period.
  EXPECT_GT(t.stats.in_use_mean, t.stats.running_mean);
  EXPECT_NEAR(0.06, t.stats.in_use_peak, 0.008);
  EXPECT_GT(t.stats.requests, 50000u);
}

TEST(AdTrafficModelTest, FirstRequestOfEachDeviceIsNotCounted) {
  AdTrafficParams params;
  params.clients = 3000;
  AdTraffic t = GenerateAdTraffic(params);
  std::set<uint32_t> seen;
  absl::flat_hash_map<uint32_t, TimeTicks> announced;
  size_t on_time = 0;
  std::set<int64_t> periods_us;
  TimeTicks previous;
  for (const TraceRequest& r : t.trace) {
    EXPECT_LE(previous, r.time);
    previous = r.time;
    bool first = seen.insert(r.client).second;
    EXPECT_EQ(!first, r.counted);
    periods_us.insert((r.announced_next - r.time) / absl::Microseconds(1));
    EXPECT_LT(r.time, kAdTrafficEpoch + params.duration);
    EXPECT_GE(r.time, kAdTrafficEpoch);
    // Within a run each request comes exactly when the previous one said;
    // the first of a new run is unannounced (and may come at any time).
    auto it = announced.find(r.client);
    if (it != announced.end() && it->second == r.time) ++on_time;
    announced[r.client] = r.announced_next;
  }
  // Runs average 20 s and periods 2.5-10 s: most requests are announced.
  EXPECT_GT(on_time, t.stats.counted * 6 / 10);
  EXPECT_EQ(seen.size(), t.stats.devices_seen);
  EXPECT_EQ(t.stats.requests - seen.size(), t.stats.counted);
  EXPECT_EQ((std::set<int64_t>{2'500'000, 5'000'000, 10'000'000}), periods_us);
}

TEST(HitRateSvgTest, DrawsSeriesLegendAndMarkersEscaped) {
  std::string svg =
      HitRateSvg("a < b & c", "size",
                 {{"pred", "#d62728", false, {{0, 0.1}, {10, 0.9}}},
                  {"opt", "#555", true, {{0, 0.2}, {10, 1}}}},
                 {{5, "running"}});
  EXPECT_EQ(0u, svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_NE(std::string::npos, svg.find("a &lt; b &amp; c"));
  EXPECT_NE(std::string::npos, svg.find(">pred</text>"));
  EXPECT_NE(std::string::npos, svg.find(">running</text>"));
  EXPECT_NE(std::string::npos, svg.find("stroke-dasharray=\"6 4\""));
  size_t polylines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos;
       p = svg.find("<polyline", p + 1)) {
    ++polylines;
  }
  EXPECT_EQ(2u, polylines);
  EXPECT_EQ(svg.size() - 7, svg.rfind("</svg>\n"));
}

}  // namespace
}  // namespace net
