// Operations per second of SessionCache per policy (Google Benchmark):
//   bazel run -c opt //net/session_cache:session_cache_benchmark
//
// Keys are random 32-byte session IDs; values are shared pointers, as the TLS
// server stores them. Three workloads on a full cache of 16384 entries:
//   LookupHit  a Lookup of a cached key
//   PutEvict   a Put of a new key into the full cache (one eviction, or for
//              PRED/OPT possibly a rejection)
//   Request    what the server does per connection from a population of
//              twice the capacity: Lookup; on a miss Put the new session;
//              on a hit Put the client's new next-connect hint
// Request also runs on 2 threads against an 8-shard cache.

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "net/session_cache/session_cache.h"

namespace net {
namespace {

constexpr size_t kCapacity = 16384;

std::vector<std::string> SessionIds(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> ids(n);
  for (auto& id : ids) {
    id.resize(32);
    for (size_t i = 0; i < 32; i += 8) {
      uint64_t w = rng();
      memcpy(&id[i], &w, 8);
    }
  }
  return ids;
}

using Cache = SessionCache<std::shared_ptr<int>>;

std::unique_ptr<Cache> MakeCache(EvictionPolicy policy, size_t shards = 1) {
  SessionCacheConfig config;
  config.policy = policy;
  config.capacity = kCapacity;
  config.shards = shards;
  return std::move(*Cache::Create(config));
}

TimeTicks Us(int64_t us) { return TimeTicks::FromMicroseconds(us); }

// Next-connect hints: the ad periods of the simulator (2.5, 5, 10 s).
int64_t PeriodUs(uint64_t r) {
  static constexpr int64_t kPeriods[] = {2'500'000, 5'000'000, 10'000'000};
  return kPeriods[r % 3];
}

void BM_LookupHit(benchmark::State& state) {
  auto policy = static_cast<EvictionPolicy>(state.range(0));
  auto cache = MakeCache(policy);
  std::vector<std::string> ids = SessionIds(kCapacity, 1);
  auto value = std::make_shared<int>(1);
  for (size_t i = 0; i < ids.size(); ++i) {
    cache->Put(ids[i], value, Us(1'000'000 + PeriodUs(i) + i), Us(1'000'000));
  }
  std::mt19937_64 rng(2);
  for (auto _ : state) {
    auto v = cache->Lookup(ids[rng() % ids.size()]);
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(EvictionPolicyName(policy)));
}

void BM_PutEvict(benchmark::State& state) {
  auto policy = static_cast<EvictionPolicy>(state.range(0));
  auto cache = MakeCache(policy);
  std::vector<std::string> ids = SessionIds(8 * kCapacity, 3);
  auto value = std::make_shared<int>(1);
  std::mt19937_64 rng(4);
  int64_t now = 1'000'000;
  size_t i = 0;
  for (auto _ : state) {
    now += 100;
    auto outcome =
        cache->Put(ids[i], value, Us(now + PeriodUs(rng())), Us(now));
    benchmark::DoNotOptimize(outcome);
    if (++i == ids.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(EvictionPolicyName(policy)));
}

void BM_Request(benchmark::State& state) {
  auto policy = static_cast<EvictionPolicy>(state.range(0));
  static std::unique_ptr<Cache> cache;
  static std::vector<std::string> ids;
  if (state.thread_index() == 0) {
    cache = MakeCache(policy, state.threads() > 1 ? 8 : 1);
    ids = SessionIds(2 * kCapacity, 5);
  }
  // Google Benchmark starts timing only after every thread reached the loop,
  // and thread 0 built the cache before that.
  auto value = std::make_shared<int>(1);
  std::mt19937_64 rng(6 + state.thread_index());
  int64_t now = 1'000'000;
  uint64_t hits = 0;
  for (auto _ : state) {
    now += 100;
    const std::string& id = ids[rng() % ids.size()];
    TimeTicks next = Us(now + PeriodUs(rng()));
    if (cache->Lookup(id)) {
      ++hits;
      cache->Put(id, value, next, Us(now));  // the X-Next-Connect hint
    } else {
      cache->Put(id, value, next, Us(now));  // the new session
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = benchmark::Counter(
      static_cast<double>(hits) / std::max<int64_t>(1, state.iterations()),
      benchmark::Counter::kAvgThreads);
  state.SetLabel(std::string(EvictionPolicyName(policy)));
}

void Policies(benchmark::internal::Benchmark* b) {
  for (EvictionPolicy p :
       {EvictionPolicy::kFifo, EvictionPolicy::kLru, EvictionPolicy::kRandom,
        EvictionPolicy::kPred, EvictionPolicy::kBelady}) {
    b->Arg(static_cast<int>(p));
  }
}

BENCHMARK(BM_LookupHit)->Apply(Policies);
BENCHMARK(BM_PutEvict)->Apply(Policies);
BENCHMARK(BM_Request)->Apply(Policies);
BENCHMARK(BM_Request)->Apply(Policies)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace net

BENCHMARK_MAIN();
