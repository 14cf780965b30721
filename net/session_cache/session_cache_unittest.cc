// SessionCache: values, spec parsing, layouts and sharding, thread safety.

#include "net/session_cache/session_cache.h"

#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "net/session_cache/trace_replay.h"

namespace net {
namespace {

using Outcome = SessionIndex::PutOutcome;

TimeTicks T(int64_t seconds) {
  return TimeTicks::FromMicroseconds(seconds * 1'000'000);
}

std::unique_ptr<SessionCache<std::shared_ptr<int>>> Make(
    const SessionCacheConfig& config) {
  auto cache = SessionCache<std::shared_ptr<int>>::Create(config);
  EXPECT_TRUE(cache.ok()) << cache.status();
  return std::move(*cache);
}

TEST(SessionCacheConfigTest, ParsesSpecs) {
  auto c = ParseSessionCacheSpec("pred:1000");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(EvictionPolicy::kPred, c->policy);
  EXPECT_EQ(1000u, c->capacity);
  EXPECT_EQ(0u, c->ways);
  c = ParseSessionCacheSpec("lru:1024,4");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(EvictionPolicy::kLru, c->policy);
  EXPECT_EQ(256u, c->sets());
  EXPECT_EQ(4u, c->ways_per_set());
  EXPECT_EQ(EvictionPolicy::kRandom, ParseSessionCacheSpec("rr:8")->policy);
  EXPECT_EQ(EvictionPolicy::kFifo, ParseSessionCacheSpec("fifo:8")->policy);
  EXPECT_EQ(EvictionPolicy::kBelady, ParseSessionCacheSpec("opt:8")->policy);
  for (const char* bad : {"pred", "pred:", "pred:0", "pred:-1", "mru:8",
                          "lru:10,3", "lru:8,0", "lru:8,2,1", "lru:x"}) {
    EXPECT_EQ(absl::StatusCode::kInvalidArgument,
              ParseSessionCacheSpec(bad).status().code())
        << bad;
  }
  for (EvictionPolicy p :
       {EvictionPolicy::kFifo, EvictionPolicy::kLru, EvictionPolicy::kRandom,
        EvictionPolicy::kPred, EvictionPolicy::kBelady}) {
    auto round_trip =
        ParseSessionCacheSpec(std::string(EvictionPolicyName(p)) + ":4");
    ASSERT_TRUE(round_trip.ok());
    EXPECT_EQ(p, round_trip->policy);
  }
}

TEST(SessionCacheTest, StoresReplacesAndReleasesValues) {
  SessionCacheConfig config;
  config.policy = EvictionPolicy::kLru;
  config.capacity = 2;
  auto cache = Make(config);
  auto a = std::make_shared<int>(1);
  std::weak_ptr<int> weak_a = a;
  EXPECT_EQ(Outcome::kInserted,
            cache->Put("a", std::move(a), kNoNextConnect, T(0)));
  EXPECT_EQ(1, **cache->Lookup("a"));
  EXPECT_EQ(Outcome::kUpdated,
            cache->Put("a", std::make_shared<int>(2), T(5), T(0)));
  EXPECT_EQ(2, **cache->Lookup("a"));
  EXPECT_TRUE(weak_a.expired());  // the replaced value was released
  auto b = std::make_shared<int>(3);
  std::weak_ptr<int> weak_b = b;
  cache->Put("b", std::move(b), kNoNextConnect, T(0));
  cache->Lookup("a");
  cache->Put("c", std::make_shared<int>(4), kNoNextConnect, T(0));  // evicts b
  EXPECT_FALSE(cache->Lookup("b").has_value());
  EXPECT_TRUE(weak_b.expired());
  EXPECT_TRUE(cache->Remove("c"));
  EXPECT_FALSE(cache->Remove("c"));
  EXPECT_EQ(1u, cache->size());
  SessionCacheStats stats = cache->stats();
  EXPECT_EQ(4u, stats.lookups);
  EXPECT_EQ(3u, stats.hits);
  EXPECT_EQ(1u, stats.evictions);
  EXPECT_EQ(1u, stats.removals);
}

TEST(SessionCacheTest, PredRejectionDropsTheValueAndSetNextConnectReorders) {
  SessionCacheConfig config;
  config.policy = EvictionPolicy::kPred;
  config.capacity = 1;
  auto cache = Make(config);
  cache->Put("a", std::make_shared<int>(1), T(10), T(0));
  auto b = std::make_shared<int>(2);
  std::weak_ptr<int> weak_b = b;
  EXPECT_EQ(Outcome::kRejected, cache->Put("b", std::move(b), T(20), T(0)));
  EXPECT_TRUE(weak_b.expired());
  EXPECT_FALSE(cache->SetNextConnect("b", T(1), T(0)));
  EXPECT_TRUE(cache->SetNextConnect("a", T(30), T(0)));
  EXPECT_EQ(Outcome::kInserted,
            cache->Put("b", std::make_shared<int>(2), T(20), T(0)));
  EXPECT_FALSE(cache->Lookup("a").has_value());
}

TEST(SessionCacheTest, StableHashIsPinned) {
  // Set placement must not change between runs or builds: the simulator's
  // set-associative results depend on it.
  EXPECT_EQ(session_cache_internal::StableHash("abc"),
            session_cache_internal::StableHash(std::string("abc")));
  EXPECT_NE(session_cache_internal::StableHash("abc"),
            session_cache_internal::StableHash("abd"));
  EXPECT_EQ(0xac9ee362833c31a7ull, session_cache_internal::StableHash(""));
}

// A random trace over 300 clients.
std::vector<TraceRequest> RandomTrace() {
  std::mt19937_64 rng(11);
  std::vector<TraceRequest> trace;
  for (int i = 0; i < 20000; ++i) {
    TimeTicks t = T(i);
    trace.push_back({t, static_cast<uint32_t>(rng() % 300),
                     t + absl::Seconds(rng() % 400)});
  }
  return trace;
}

TEST(SessionCacheTest, ShardingASetAssociativeCacheChangesNothing) {
  std::vector<TraceRequest> trace = RandomTrace();
  for (EvictionPolicy p :
       {EvictionPolicy::kFifo, EvictionPolicy::kLru, EvictionPolicy::kRandom,
        EvictionPolicy::kPred, EvictionPolicy::kBelady}) {
    SessionCacheConfig config;
    config.policy = p;
    config.capacity = 128;
    config.ways = 4;
    auto one = Replay(trace, config);
    config.shards = 8;
    auto eight = Replay(trace, config);
    ASSERT_TRUE(one.ok() && eight.ok());
    if (p !=
        EvictionPolicy::kRandom) {  // RR draws from one generator per shard
      EXPECT_EQ(one->hits, eight->hits) << EvictionPolicyName(p);
    }
    EXPECT_GT(one->hits, 0u);
  }
}

TEST(SessionCacheTest, LayoutSplitsCapacity) {
  SessionCacheConfig config;
  config.capacity = 10;
  config.shards = 4;
  auto full = Make(config);
  EXPECT_EQ(4u, full->shard_count());
  EXPECT_EQ(4u, full->set_count());
  config.capacity = 96;
  config.ways = 8;  // 12 sets over gcd(12, 8) = 4 shards
  config.shards = 8;
  auto assoc = Make(config);
  EXPECT_EQ(4u, assoc->shard_count());
  EXPECT_EQ(12u, assoc->set_count());
  // Every slot is usable: fill with many keys, the cache ends up full.
  for (int i = 0; i < 5000; ++i) {
    assoc->Put("k" + std::to_string(i), std::make_shared<int>(i),
               kNoNextConnect, T(0));
  }
  EXPECT_EQ(96u, assoc->size());
}

TEST(SessionCacheTest, ConcurrentUseFromSeveralThreads) {
  for (EvictionPolicy p : {EvictionPolicy::kLru, EvictionPolicy::kPred}) {
    SessionCacheConfig config;
    config.policy = p;
    config.capacity = 256;
    config.shards = 4;
    auto cache = Make(config);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&cache, t] {
        std::mt19937_64 rng(t);
        for (int i = 0; i < 20000; ++i) {
          std::string key = "id" + std::to_string(rng() % 1000);
          switch (rng() % 4) {
            case 0:
              cache->Remove(key);
              break;
            case 1:
              cache->SetNextConnect(key, T(i + 5), T(i));
              break;
            default:
              if (auto v = cache->Lookup(key)) {
                EXPECT_TRUE(*v);
              } else {
                cache->Put(key, std::make_shared<int>(i), T(i + rng() % 100),
                           T(i));
              }
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_LE(cache->size(), 256u);
    SessionCacheStats s = cache->stats();
    EXPECT_GT(s.hits, 0u);
    EXPECT_EQ(s.inserts - s.evictions - s.removals, cache->size());
  }
}

}  // namespace
}  // namespace net
