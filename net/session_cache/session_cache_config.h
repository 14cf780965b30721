// SessionCacheConfig: what a server-side TLS session cache is — its eviction
// policy (FIFO, LRU, random, PRED, or Belady's offline optimum), its size, its
// layout (fully associative, or sets x ways as in OpenSSL, NSS, JSSE, CyaSSL
// and PolarSSL), PRED's grace period, and how many lock shards it has.
//
// A plain value; ParseSessionCacheSpec reads the test server's
// `--session-cache POLICY:N[,WAYS]` syntax.

#ifndef NET_SESSION_CACHE_SESSION_CACHE_CONFIG_H_
#define NET_SESSION_CACHE_SESSION_CACHE_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"

namespace net {

enum class EvictionPolicy {
  kFifo,    // evict the oldest insertion
  kLru,     // evict the least recently looked up or stored
  kRandom,  // evict a uniformly random entry of the set ("rr")
  // PRED (Stevens & Chen, Algorithm 1): evict an entry whose announced next
  // connect plus the grace period has passed (the least recently used such
  // entry); otherwise the entry announced farthest in the future, unless the
  // newcomer is itself the farthest, in which case it is not admitted. See
  // session_index.h.
  kPred,
  // Belady's MIN with bypass: evict the entry whose next use is farthest,
  // unless that is the newcomer. Optimal when the "next connect" passed to
  // Put is the true next request time (an offline trace; see belady.h).
  kBelady,
};

// EvictionPolicyName returns the short name used in flags and CSV files:
// "fifo", "lru", "rr", "pred", "opt".
absl::string_view EvictionPolicyName(EvictionPolicy policy);

// The next-connect time of a session whose client announced none: later than
// every real time, so PRED and Belady treat it as the farthest.
inline constexpr TimeTicks kNoNextConnect =
    TimeTicks::FromMicroseconds(std::numeric_limits<int64_t>::max());

struct SessionCacheConfig {
  EvictionPolicy policy = EvictionPolicy::kLru;
  // Total number of sessions held.
  size_t capacity = 1024;
  // 0: fully associative (one set of |capacity|). Otherwise the cache is
  // |capacity / ways| sets of |ways| entries and a key competes only with the
  // keys of its set; |capacity| must be a multiple of |ways|.
  size_t ways = 0;
  // PRED: an entry becomes evictable once its next-connect time plus this
  // has passed.
  absl::Duration grace = absl::Seconds(2);
  // Seeds kRandom's generator (each shard derives its own).
  uint64_t seed = 1;
  // Independent locks. A set-associative cache distributes whole sets over
  // the shards, so its behaviour does not depend on the shard count; a fully
  // associative cache with N shards becomes N fully associative caches of
  // capacity / N (keys hashed to one), which is then a set-associative cache
  // with N large sets.
  size_t shards = 1;

  size_t sets() const { return ways == 0 ? 1 : capacity / ways; }
  size_t ways_per_set() const { return ways == 0 ? capacity : ways; }
};

// ValidateSessionCacheConfig returns OK or InvalidArgument naming the problem
// (zero capacity, capacity not a multiple of ways, zero shards, ...).
absl::Status ValidateSessionCacheConfig(const SessionCacheConfig& config);

// ParseSessionCacheSpec parses "POLICY:N" or "POLICY:N,WAYS" where POLICY is
// fifo, lru, rr (or random), pred or opt; e.g. "pred:1000", "lru:1024,4".
// Returns InvalidArgument with the reason on anything else.
[[nodiscard]] absl::StatusOr<SessionCacheConfig> ParseSessionCacheSpec(
    absl::string_view spec);

}  // namespace net

#endif  // NET_SESSION_CACHE_SESSION_CACHE_CONFIG_H_
