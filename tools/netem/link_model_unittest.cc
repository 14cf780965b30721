#include "tools/netem/link_model.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace netem {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(LinkModelTest, NoImpairmentDeliversAtReadTime) {
  LinkModel link(LinkParams{});
  int64_t last = 0;
  EXPECT_EQ(link.Schedule(Direction::kUp, 5 * kMs, 1000, &last), 5 * kMs);
  EXPECT_EQ(link.max_segment_bytes(), SIZE_MAX);
}

TEST(LinkModelTest, DelayIsPerDirection) {
  LinkParams params;
  params.up_delay_ns = 15 * kMs;
  params.down_delay_ns = 5 * kMs;
  LinkModel link(params);
  int64_t up = 0, down = 0;
  EXPECT_EQ(link.Schedule(Direction::kUp, 100 * kMs, 10, &up), 115 * kMs);
  EXPECT_EQ(link.Schedule(Direction::kDown, 100 * kMs, 10, &down), 105 * kMs);
  EXPECT_EQ(up, 115 * kMs);
  EXPECT_EQ(down, 105 * kMs);
}

TEST(LinkModelTest, JitterStaysInRangeAndNeverReorders) {
  LinkParams params;
  params.up_delay_ns = 10 * kMs;
  params.jitter_ns = 5 * kMs;
  LinkModel link(params);
  int64_t last = 0;
  int64_t previous = 0;
  int64_t min_extra = INT64_MAX, max_extra = 0;
  for (int i = 0; i < 1000; ++i) {
    int64_t now = i * kMs / 10;  // reads 0.1 ms apart, far below the jitter
    int64_t due = link.Schedule(Direction::kUp, now, 100, &last);
    EXPECT_GE(due, previous) << "reordered at chunk " << i;
    EXPECT_GE(due, now + 10 * kMs);
    EXPECT_LE(due, now + 15 * kMs);
    min_extra = std::min(min_extra, due - now - 10 * kMs);
    max_extra = std::max(max_extra, due - now - 10 * kMs);
    previous = due;
  }
  // The jitter really varies.
  EXPECT_LT(min_extra, 1 * kMs);
  EXPECT_GT(max_extra, 4 * kMs);
}

TEST(LinkModelTest, SameSeedSameJitter) {
  LinkParams params;
  params.jitter_ns = 5 * kMs;
  params.seed = 42;
  LinkModel a(params), b(params);
  for (int i = 0; i < 100; ++i) {
    int64_t la = 0, lb = 0;
    EXPECT_EQ(a.Schedule(Direction::kUp, 0, 1, &la),
              b.Schedule(Direction::kUp, 0, 1, &lb));
  }
}

TEST(LinkModelTest, RateSerializesChunksOnASharedLink) {
  LinkParams params;
  params.rate_bps = 8000;  // 1000 bytes per second
  params.up_delay_ns = 10 * kMs;
  LinkModel link(params);
  int64_t flow_a = 0, flow_b = 0;
  // 500 bytes take 0.5 s on the wire, then the 10 ms delay.
  EXPECT_EQ(link.Schedule(Direction::kUp, 0, 500, &flow_a), 510 * kMs);
  // Another flow read at the same moment waits for the link.
  EXPECT_EQ(link.Schedule(Direction::kUp, 0, 500, &flow_b), 1010 * kMs);
  // The other direction has its own link.
  int64_t down = 0;
  EXPECT_EQ(link.Schedule(Direction::kDown, 0, 1000, &down), 1000 * kMs);
  // After an idle gap the link starts again at the read time.
  EXPECT_EQ(link.Schedule(Direction::kUp, 5000 * kMs, 1, &flow_a), 5011 * kMs);
  EXPECT_EQ(link.max_segment_bytes(), LinkModel::kRateSegmentBytes);
}

TEST(LinkModelTest, FinTakesNoLinkTimeButFollowsData) {
  LinkParams params;
  params.rate_bps = 8000;
  LinkModel link(params);
  int64_t flow = 0;
  EXPECT_EQ(link.Schedule(Direction::kUp, 0, 1000, &flow), 1000 * kMs);
  EXPECT_EQ(link.Schedule(Direction::kUp, 0, 0, &flow), 1000 * kMs);
}

TEST(LinkModelTest, FlowBufferFollowsBandwidthDelayProduct) {
  EXPECT_EQ(LinkModel(LinkParams{}).flow_buffer_bytes(), 4u << 20);
  LinkParams slow;
  slow.rate_bps = 1'600'000;
  EXPECT_EQ(LinkModel(slow).flow_buffer_bytes(), 64u << 10);
  slow.up_delay_ns = 50 * kMs;
  slow.down_delay_ns = 50 * kMs;
  // 200 kB/s * 0.1 s = 20 kB; twice that plus 64 KiB.
  EXPECT_EQ(LinkModel(slow).flow_buffer_bytes(), 40'000u + (64u << 10));
}

}  // namespace
}  // namespace netem
