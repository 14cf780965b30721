// Trace replay and Belady: next-request times, and the paper's example — a
// cache of 2 and three clients sharing one period: FIFO and LRU never hit,
// OPT (and PRED) hit two requests in three.

#include "net/session_cache/trace_replay.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace net {
namespace {

using ::testing::ElementsAre;

TimeTicks T(int64_t seconds) {
  return TimeTicks::FromMicroseconds(seconds * 1'000'000);
}

TEST(TraceReplayTest, NextRequestTimes) {
  std::vector<TraceRequest> trace = {
      {T(1), 7}, {T(2), 8}, {T(3), 7}, {T(4), 7}};
  EXPECT_THAT(NextRequestTimes(trace),
              ElementsAre(T(3), kNoNextConnect, T(4), kNoNextConnect));
}

// Three clients, one period P = 3 s, staggered by 1 s; each announces its
// next connect (t + P) truthfully. The first request of each is not counted.
std::vector<TraceRequest> ThreeClientsOnePeriod(int rounds) {
  std::vector<TraceRequest> trace;
  for (int round = 0; round < rounds; ++round) {
    for (uint32_t c = 0; c < 3; ++c) {
      TimeTicks t = T(1 + 3 * round + c);
      trace.push_back({t, c, t + absl::Seconds(3), round > 0});
    }
  }
  return trace;
}

double HitRate(EvictionPolicy policy, const std::vector<TraceRequest>& trace,
               size_t capacity = 2) {
  SessionCacheConfig config;
  config.policy = policy;
  config.capacity = capacity;
  auto r = Replay(trace, config);
  EXPECT_TRUE(r.ok()) << r.status();
  return r->hit_rate();
}

TEST(TraceReplayTest, PaperExampleCacheOfTwoThreeClients) {
  std::vector<TraceRequest> trace = ThreeClientsOnePeriod(30);
  EXPECT_EQ(0.0, HitRate(EvictionPolicy::kFifo, trace));
  EXPECT_EQ(0.0, HitRate(EvictionPolicy::kLru, trace));
  EXPECT_DOUBLE_EQ(2.0 / 3, HitRate(EvictionPolicy::kBelady, trace));
  // PRED with truthful announcements matches OPT here: the newcomer is always
  // the farthest and is not admitted, so the two cached clients keep hitting.
  EXPECT_DOUBLE_EQ(2.0 / 3, HitRate(EvictionPolicy::kPred, trace));
  // Random replacement lands in between.
  double rr = HitRate(EvictionPolicy::kRandom, trace);
  EXPECT_GT(rr, 0.0);
  EXPECT_LT(rr, 2.0 / 3);
  // A cache as large as the client population hits everything.
  for (EvictionPolicy p :
       {EvictionPolicy::kFifo, EvictionPolicy::kLru, EvictionPolicy::kRandom,
        EvictionPolicy::kPred, EvictionPolicy::kBelady}) {
    EXPECT_EQ(1.0, HitRate(p, trace, 3)) << EvictionPolicyName(p);
  }
}

TEST(TraceReplayTest, CountsOnlyCountedRequests) {
  std::vector<TraceRequest> trace = ThreeClientsOnePeriod(2);
  SessionCacheConfig config;
  config.capacity = 3;
  auto r = Replay(trace, config);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(6u, r->requests);
  EXPECT_EQ(3u, r->counted);
  EXPECT_EQ(3u, r->hits);
  EXPECT_EQ(3u, r->stats.inserts);
  EXPECT_EQ(6u, r->stats.lookups);
}

TEST(TraceReplayTest, PredUsesAnnouncementsAndOptTheTruth) {
  // Client 0 announces it will be back at t=2 but never returns; client 1
  // comes back at t=10 and 20. With one slot, PRED keeps 0 until its
  // announcement + grace has passed; OPT knows better at once.
  std::vector<TraceRequest> trace = {
      {T(1), 0, T(2), false},
      {T(3), 1, T(10),
       false},  // 0 is not late yet and 1 is farther: not admitted
      {T(10), 1, T(20), true},  // 0 is late now: 1 replaces it
      {T(20), 1, T(30), true},
  };
  SessionCacheConfig config;
  config.capacity = 1;
  config.policy = EvictionPolicy::kPred;
  auto pred = Replay(trace, config);
  ASSERT_TRUE(pred.ok());
  EXPECT_EQ(1u, pred->hits);
  EXPECT_EQ(1u, pred->stats.expired_evictions);
  config.policy = EvictionPolicy::kBelady;
  auto opt = Replay(trace, config);
  ASSERT_TRUE(opt.ok());
  EXPECT_EQ(2u, opt->hits);
}

TEST(TraceReplayTest, BadConfigIsAnError) {
  SessionCacheConfig config;
  config.capacity = 0;
  EXPECT_EQ(absl::StatusCode::kInvalidArgument,
            Replay({}, config).status().code());
}

}  // namespace
}  // namespace net
