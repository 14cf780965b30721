// SessionIndex: the bookkeeping of one session cache shard — which keys are
// cached, in which slot, and which one goes next — with no values and no
// locking. SessionCache (session_cache.h) puts values beside the slots and a
// mutex around each SessionIndex.
//
// The shard is |sets| sets of |ways| slots; slot s belongs to set s / ways.
// The caller picks the set of a new key (SessionCache hashes the key). Each
// set runs the eviction policy on its own entries:
//   FIFO, LRU  an intrusive doubly linked list per set: O(1)
//   RR         a random slot of the (full) set: O(1)
//   PRED, OPT  two 4-ary heaps per set on (next-connect time, slot): a
//              max-heap for the farthest entry and a min-heap for the
//              earliest (PRED's grace rule). They are lazily invalidated: a
//              changed or evicted entry leaves its old items behind, which
//              are skipped when they reach the top, and a heap that grows
//              past twice the set's entries is rebuilt. Put and evict are
//              O(log ways) amortized; a next-connect update is one push per
//              heap, O(1) on average.
// Keys are found through one hash index over all slots: O(1).
//
// Not thread-safe. Owns its entries; keys are copied in.

#ifndef NET_SESSION_CACHE_SESSION_INDEX_H_
#define NET_SESSION_CACHE_SESSION_INDEX_H_

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"
#include "net/session_cache/session_cache_config.h"

namespace net {

// SessionCacheStats counts what a cache did; SessionCache sums its shards.
struct SessionCacheStats {
  uint64_t lookups = 0;
  uint64_t hits = 0;
  uint64_t inserts = 0;            // new keys admitted
  uint64_t updates = 0;            // Put of a key already cached
  uint64_t evictions = 0;          // entries pushed out by a newcomer
  uint64_t expired_evictions = 0;  // PRED: of those, past next-connect + grace
  uint64_t rejections = 0;         // PRED, OPT: newcomers not admitted
  uint64_t removals = 0;           // Remove() of a cached key

  SessionCacheStats& operator+=(const SessionCacheStats& o);
};

class SessionIndex {
 public:
  using Slot = uint32_t;
  static constexpr Slot kNoSlot = ~Slot{0};

  enum class PutOutcome {
    kInserted,  // a new key took a slot (maybe evicting another)
    kUpdated,   // the key was cached; its next-connect time was updated
    kRejected,  // PRED / OPT: the newcomer was the farthest; nothing changed
  };
  struct PutResult {
    PutOutcome outcome;
    Slot slot = kNoSlot;           // the key's slot unless rejected
    bool evicted = false;          // another key lost |slot| to this one
    bool evicted_expired = false;  // PRED: the victim was past next + grace
    std::string evicted_key;       // valid when |evicted|
  };

  // |sets| * |ways| slots; |seed| drives kRandom.
  SessionIndex(EvictionPolicy policy, size_t sets, size_t ways,
               absl::Duration grace, uint64_t seed);
  ~SessionIndex();
  SessionIndex(const SessionIndex&) = delete;
  SessionIndex& operator=(const SessionIndex&) = delete;

  // Lookup returns the key's slot, or kNoSlot; counts a lookup and a hit, and
  // under LRU makes the key the most recently used.
  Slot Lookup(absl::string_view key);
  // Find is Lookup without side effects.
  Slot Find(absl::string_view key) const;

  // Put stores |key| in set |set| (< sets()), or updates it if it is cached
  // already (next-connect time; LRU recency). |now| is only read by PRED
  // (the grace rule). A full set evicts by the policy; PRED and OPT may
  // reject the newcomer instead.
  PutResult Put(absl::string_view key, size_t set, TimeTicks next_connect,
                TimeTicks now);

  // Remove drops |key| and returns the slot it held, or kNoSlot.
  Slot Remove(absl::string_view key);

  // The next-connect time stored with |slot| (kNoNextConnect if none).
  TimeTicks next_connect(Slot slot) const;
  const std::string& key(Slot slot) const { return entries_[slot].key; }

  // Keys of |set| in the order the policy would evict them now, first
  // victim first (RR: slot order). For tests.
  std::vector<std::string> EvictionOrderForTesting(size_t set,
                                                   TimeTicks now) const;

  EvictionPolicy policy() const { return policy_; }
  size_t sets() const { return sets_.size(); }
  size_t ways() const { return ways_; }
  size_t capacity() const { return entries_.size(); }
  size_t size() const { return index_.size(); }
  const SessionCacheStats& stats() const { return stats_; }

 private:
  struct Entry {
    std::string key;
    int64_t next_us = 0;
    Slot prev = kNoSlot;  // FIFO/LRU list; free list (next) when unused
    Slot next = kNoSlot;
    bool used = false;
  };
  struct HeapItem {
    int64_t next_us;
    Slot slot;
    bool operator<(const HeapItem& o) const {
      return next_us != o.next_us ? next_us < o.next_us : slot < o.slot;
    }
    bool operator>(const HeapItem& o) const { return o < *this; }
  };
  struct Set {
    Slot head = kNoSlot;  // FIFO/LRU: first victim
    Slot tail = kNoSlot;  // most recent
    Slot free = kNoSlot;  // unused slots, linked through Entry::next
    uint32_t size = 0;
    // PRED / OPT: (next-connect us, slot) items; see the file comment.
    std::vector<HeapItem> farthest;  // max-heap
    std::vector<HeapItem> earliest;  // min-heap (PRED only)
  };
  // Hashes and compares slots by their key, and keys directly, so the index
  // holds 4-byte slots instead of a second copy of each key.
  struct SlotHash {
    using is_transparent = void;
    const std::vector<Entry>* entries;
    size_t operator()(Slot s) const {
      return (*this)(absl::string_view((*entries)[s].key));
    }
    size_t operator()(absl::string_view k) const;
  };
  struct SlotEq {
    using is_transparent = void;
    const std::vector<Entry>* entries;
    absl::string_view K(Slot s) const { return (*entries)[s].key; }
    absl::string_view K(absl::string_view k) const { return k; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return K(a) == K(b);
    }
  };

  Slot ChooseVictim(Set& set, size_t set_index, int64_t newcomer_next_us,
                    TimeTicks now, bool* expired);
  void Link(Set& set, Slot slot);    // policy structures, as the newest
  void Unlink(Set& set, Slot slot);  // policy structures
  void Touch(Set& set, Slot slot);   // LRU: move to the tail
  // PRED / OPT heaps.
  bool IsCurrent(const HeapItem& item) const {
    const Entry& e = entries_[item.slot];
    return e.used && e.next_us == item.next_us;
  }
  void PushHeaps(Set& set, size_t set_index, Slot slot);
  // The newcomer in |slot| replaces the evicted top of the earliest or the
  // farthest heap and is pushed onto the other.
  void ReplaceTopAndPush(Set& set, size_t set_index, Slot slot,
                         bool from_earliest);
  void MaybeRebuildHeaps(Set& set, size_t set_index);
  void RebuildHeaps(Set& set, size_t set_index);
  // The current top of a heap after dropping stale items; null if empty.
  // |before(a, b)|: a belongs above b.
  template <typename Before>
  const HeapItem* Top(std::vector<HeapItem>& heap, Before before);
  Set& SetOf(Slot slot) { return sets_[slot / ways_]; }

  const EvictionPolicy policy_;
  const size_t ways_;
  const int64_t grace_us_;
  std::vector<Entry> entries_;
  std::vector<Set> sets_;
  absl::flat_hash_set<Slot, SlotHash, SlotEq> index_;
  std::mt19937_64 rng_;
  SessionCacheStats stats_;
};

}  // namespace net

#endif  // NET_SESSION_CACHE_SESSION_INDEX_H_
