#include "net/session_cache/session_cache.h"

#include <cstring>
#include <numeric>

namespace net {
namespace session_cache_internal {
namespace {

// splitmix64's finalizer: a bijective mix with good avalanche.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

}  // namespace

uint64_t StableHash(absl::string_view key) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ key.size();
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    uint64_t w;
    memcpy(&w, key.data() + i, 8);
    h = Mix(h ^ w) + 0x9E3779B97F4A7C15ull;
  }
  uint64_t tail = 0;
  memcpy(&tail, key.data() + i, key.size() - i);
  return Mix(h ^ tail ^ (uint64_t{0xA5} << 56));
}

Layout Layout::For(const SessionCacheConfig& config) {
  Layout layout;
  if (config.ways == 0) {
    // Fully associative: each shard is one set holding its part.
    size_t k = std::max<size_t>(1, std::min(config.shards, config.capacity));
    layout.global_sets = k;
    for (size_t i = 0; i < k; ++i) {
      layout.shards.push_back(
          {1, config.capacity / k + (i < config.capacity % k ? 1 : 0)});
    }
  } else {
    // Whole sets per shard: set g lives in shard g % k as its set g / k, so
    // the cache behaves the same for any shard count.
    size_t sets = config.capacity / config.ways;
    size_t k = std::gcd(sets, config.shards);
    layout.global_sets = sets;
    for (size_t i = 0; i < k; ++i)
      layout.shards.push_back({sets / k, config.ways});
  }
  return layout;
}

}  // namespace session_cache_internal
}  // namespace net
