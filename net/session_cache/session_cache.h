// SessionCache<Value>: a thread-safe server-side TLS session cache keyed by
// session ID, with the eviction policy and layout of its SessionCacheConfig
// (FIFO, LRU, RR, PRED, OPT; fully or set associative). Each shard is a
// SessionIndex plus one Value per slot behind its own mutex; a key's shard
// and set come from a stable hash of the key, so runs are reproducible.
//
// Value is what the cache hands back (a session reference for BoringSSL,
// nothing at all for the simulator); it must be copyable, and Lookup copies
// it out under the shard's lock. The cache owns its values; an evicted or
// removed value is destroyed (released) under that lock.

#ifndef NET_SESSION_CACHE_SESSION_CACHE_H_
#define NET_SESSION_CACHE_SESSION_CACHE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/base/tick_clock.h"
#include "net/session_cache/session_cache_config.h"
#include "net/session_cache/session_index.h"

namespace net {

namespace session_cache_internal {

// StableHash is a 64-bit hash of |key| that is the same in every process
// (absl::Hash is seeded per process), for placing keys in shards and sets.
uint64_t StableHash(absl::string_view key);

// Layout splits a validated config into shards of sets.
struct Layout {
  struct Shard {
    size_t sets;
    size_t ways;
  };
  size_t global_sets;
  std::vector<Shard> shards;

  static Layout For(const SessionCacheConfig& config);
  // Where |key| lives: its shard and the set within that shard.
  std::pair<size_t, size_t> Locate(absl::string_view key) const {
    uint64_t g = StableHash(key) % global_sets;
    size_t k = shards.size();
    return {static_cast<size_t>(g % k), static_cast<size_t>(g / k)};
  }
};

}  // namespace session_cache_internal

template <typename Value>
class SessionCache {
 public:
  using PutOutcome = SessionIndex::PutOutcome;

  // Create validates |config| (InvalidArgument otherwise) and builds the
  // cache, allocating its slots up front.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SessionCache>> Create(
      const SessionCacheConfig& config) {
    absl::Status status = ValidateSessionCacheConfig(config);
    if (!status.ok()) return status;
    return std::unique_ptr<SessionCache>(new SessionCache(config));
  }
  SessionCache(const SessionCache&) = delete;
  SessionCache& operator=(const SessionCache&) = delete;

  // Lookup returns a copy of the value cached under |key|, or nullopt.
  // Counts a lookup (and a hit); under LRU and PRED the key becomes the most
  // recently used.
  std::optional<Value> Lookup(absl::string_view key) {
    auto [shard, set] = layout_.Locate(key);
    Shard& s = *shards_[shard];
    std::lock_guard<std::mutex> lock(s.mu);
    SessionIndex::Slot slot = s.index.Lookup(key);
    if (slot == SessionIndex::kNoSlot) return std::nullopt;
    return s.values[slot];
  }

  // Put caches |value| under |key| with the client's announced next-connect
  // time (kNoNextConnect if unknown), or replaces the value and time of a
  // cached key. Returns kInserted, kUpdated, or kRejected (PRED / OPT did
  // not admit it; |value| is dropped). |now| feeds PRED's grace rule.
  PutOutcome Put(absl::string_view key, Value value, TimeTicks next_connect,
                 TimeTicks now) {
    auto [shard, set] = layout_.Locate(key);
    Shard& s = *shards_[shard];
    std::lock_guard<std::mutex> lock(s.mu);
    SessionIndex::PutResult r = s.index.Put(key, set, next_connect, now);
    if (r.outcome != PutOutcome::kRejected) s.values[r.slot] = std::move(value);
    return r.outcome;
  }

  // SetNextConnect updates the next-connect time of a cached key and returns
  // true, or returns false if |key| is not cached.
  bool SetNextConnect(absl::string_view key, TimeTicks next_connect,
                      TimeTicks now) {
    auto [shard, set] = layout_.Locate(key);
    Shard& s = *shards_[shard];
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.index.Find(key) == SessionIndex::kNoSlot) return false;
    s.index.Put(key, set, next_connect, now);
    return true;
  }

  // Remove drops |key| (and releases its value); false if it was not cached.
  bool Remove(absl::string_view key) {
    auto [shard, set] = layout_.Locate(key);
    Shard& s = *shards_[shard];
    std::lock_guard<std::mutex> lock(s.mu);
    SessionIndex::Slot slot = s.index.Remove(key);
    if (slot == SessionIndex::kNoSlot) return false;
    s.values[slot] = Value();
    return true;
  }

  size_t size() const {
    size_t n = 0;
    for (const auto& s : shards_) {
      std::lock_guard<std::mutex> lock(s->mu);
      n += s->index.size();
    }
    return n;
  }
  SessionCacheStats stats() const {
    SessionCacheStats total;
    for (const auto& s : shards_) {
      std::lock_guard<std::mutex> lock(s->mu);
      total += s->index.stats();
    }
    return total;
  }
  const SessionCacheConfig& config() const { return config_; }
  size_t shard_count() const { return shards_.size(); }
  size_t set_count() const { return layout_.global_sets; }

 private:
  struct Shard {
    Shard(const SessionCacheConfig& config,
          const session_cache_internal::Layout::Shard& l, uint64_t seed)
        : index(config.policy, l.sets, l.ways, config.grace, seed),
          values(l.sets * l.ways) {}
    mutable std::mutex mu;
    SessionIndex index ABSL_GUARDED_BY(mu);
    std::vector<Value> values ABSL_GUARDED_BY(mu);
  };

  explicit SessionCache(const SessionCacheConfig& config)
      : config_(config), layout_(session_cache_internal::Layout::For(config)) {
    for (size_t i = 0; i < layout_.shards.size(); ++i) {
      shards_.push_back(std::make_unique<Shard>(
          config, layout_.shards[i], config.seed * 0x9E3779B97F4A7C15ull + i));
    }
  }

  const SessionCacheConfig config_;
  const session_cache_internal::Layout layout_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace net

#endif  // NET_SESSION_CACHE_SESSION_CACHE_H_
