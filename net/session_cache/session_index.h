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
//   PRED, OPT  4-ary heaps per set: a max-heap on next-connect time for
//              the farthest entry (ties: the older stamp, below); PRED also
//              a min-heap on next-connect time, from which entries move to a
//              third heap, on recency, once their next connect plus the grace
//              period has passed (PRED's rule 1, below). The heaps are
//              lazily invalidated: a changed or evicted entry leaves its old
//              items behind, which are skipped when they reach the top (an
//              overdue entry used since is requeued there instead), and a
//              heap that grows past twice the set's entries is rebuilt. Put
//              and evict are O(log ways) amortized; a next-connect update is
//              one push per heap, O(1) on average; a PRED lookup is O(1)
//              (plus one such push for an entry without an announcement).
// Keys are found through one hash index over all slots: O(1).
//
// PRED (Stevens & Chen, Algorithm 1) in a full set:
//   (1) if some entry is overdue — its announced next connect plus the grace
//       period has passed and the client did not come back — evict an
//       overdue entry: the least recently used one (looked up or stored
//       longest ago). Algorithm 1 says "a" session whose time has passed;
//       once a client is overdue, its announcement has proven wrong and says
//       no more than "the client stopped", so recency is what is left to go
//       by. It is also what LRU goes by: given the same entries, whenever
//       LRU's victim is overdue, PRED evicts that entry too.
//   (2) otherwise evict the entry announced farthest in the future, unless
//       the newcomer's announcement is at least as far: then the newcomer is
//       not admitted. Entries without an announcement (kNoNextConnect) are
//       the farthest, and among them the least recently used goes first;
//       among equal announced times, the one announced first.
// An entry stays overdue until its next-connect time changes, even if a
// later call passes an earlier |now| (threads may read the clock in either
// order before taking the shard's lock).
//
// OPT (Belady's MIN with bypass) is rule (2) alone, ties broken by the
// order of announcement.
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
  // under LRU and PRED makes the key the most recently used.
  Slot Lookup(absl::string_view key);
  // Find is Lookup without side effects.
  Slot Find(absl::string_view key) const;

  // Put stores |key| in set |set| (< sets()), or updates it if it is cached
  // already (next-connect time; LRU and PRED recency). |now| is only read by
  // PRED (the grace rule). A full set evicts by the policy; PRED and OPT may
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
    // The use clock at the entry's last use: PRED, its last Lookup hit or
    // Put (recency); OPT, its last Put that changed it.
    uint64_t used_seq = 0;
    // PRED / OPT: the stamp of the entry's live heap items, which breaks
    // ties in the farthest heap: the low 32 bits of |used_seq| when the
    // entry was announced, or (PRED, no announcement) last used.
    uint32_t stamp = 0;
    Slot prev = kNoSlot;  // FIFO/LRU list; free list (next) when unused
    Slot next = kNoSlot;
    bool used = false;
    bool overdue = false;  // PRED: moved to Set::overdue (rule 1)
  };
  // (next-connect us, slot) in the farthest and earliest heaps. 16 bytes.
  struct HeapItem {
    int64_t next_us;
    Slot slot;
    uint32_t stamp;  // Entry::stamp when pushed; older goes first on a tie
  };
  // (recency, slot) in PRED's heap of overdue entries.
  struct OverdueItem {
    uint64_t used_seq;
    Slot slot;
  };
  // Heap orders: |before(a, b)| when a belongs above b.
  struct FartherFirst {  // the farthest; on a tie, the older stamp
    bool operator()(const HeapItem& a, const HeapItem& b) const {
      if (a.next_us != b.next_us) return a.next_us > b.next_us;
      if (a.stamp != b.stamp) return a.stamp < b.stamp;
      return a.slot < b.slot;
    }
  };
  struct EarlierFirst {
    bool operator()(const HeapItem& a, const HeapItem& b) const {
      return a.next_us != b.next_us ? a.next_us < b.next_us : a.slot < b.slot;
    }
  };
  struct LessRecentFirst {
    bool operator()(const OverdueItem& a, const OverdueItem& b) const {
      return a.used_seq < b.used_seq;
    }
  };
  struct Set {
    Slot head = kNoSlot;  // FIFO/LRU: first victim
    Slot tail = kNoSlot;  // most recent
    Slot free = kNoSlot;  // unused slots, linked through Entry::next
    uint32_t size = 0;
    // PRED / OPT heaps; see the file comment.
    std::vector<HeapItem> farthest;    // FartherFirst: every entry
    std::vector<HeapItem> earliest;    // EarlierFirst (PRED): not overdue
    std::vector<OverdueItem> overdue;  // LessRecentFirst (PRED)
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
  // Where a victim came from, so that its replacement can take its place:
  // FIFO / LRU / RR (or no victim), the top of the farthest heap (PRED's
  // rule 2, OPT), the top of the overdue heap or, when it was the only
  // overdue entry, of the earliest heap (PRED's rule 1).
  enum class VictimSource { kList, kFarthest, kOverdue, kEarliest };

  Slot ChooseVictim(Set& set, size_t set_index, int64_t newcomer_next_us,
                    TimeTicks now, VictimSource* source);
  void Link(Set& set, Slot slot);    // policy structures, as the newest
  void Unlink(Set& set, Slot slot);  // policy structures
  void Touch(Set& set, Slot slot);   // LRU: move to the tail
  // PRED: a Lookup hit or a Put of a cached key with an unchanged
  // next-connect time makes it the most recently used (and, if it has no
  // announcement, requeues it behind the other unannounced entries).
  void TouchPred(Set& set, size_t set_index, Slot slot) {
    Entry& e = entries_[slot];
    // An overdue entry's item in the overdue heap is requeued when it
    // reaches the top (LeastRecentOverdue), so a use costs nothing more.
    e.used_seq = ++use_clock_;
    if (!e.overdue && e.next_us == kNoNextConnect.ToMicroseconds())
      RequeueUnannounced(set, set_index, slot);
  }
  void RequeueUnannounced(Set& set, size_t set_index, Slot slot);
  // PRED / OPT heaps.
  bool IsCurrent(const HeapItem& item) const {
    const Entry& e = entries_[item.slot];
    return e.used && e.next_us == item.next_us && e.stamp == item.stamp;
  }
  HeapItem ItemOf(Slot slot) const {
    return {entries_[slot].next_us, slot, entries_[slot].stamp};
  }
  // PRED: moves the entries of |set| whose next connect is before
  // |cutoff_us| (now - grace) from the earliest heap to the overdue heap.
  void CollectOverdue(Set& set, int64_t cutoff_us);
  // Whether no item of a min-heap but its top is before |cutoff_us|.
  static bool OnlyTopBefore(const std::vector<HeapItem>& heap,
                            int64_t cutoff_us);
  void PushHeaps(Set& set, size_t set_index, Slot slot);
  // The newcomer in |slot| replaces the victim taken from |source|'s top.
  void ReplaceVictim(Set& set, size_t set_index, Slot slot,
                     VictimSource source);
  // Stale items pile up with every update; rebuilding costs O(ways) and
  // happens after at least |set.size| + 16 pushes, so O(1) amortized.
  void MaybeRebuildHeaps(Set& set, size_t set_index) {
    const size_t limit = 2 * size_t{set.size} + 16;
    if (set.farthest.size() > limit || set.earliest.size() > limit ||
        set.overdue.size() > limit) {
      RebuildHeaps(set, set_index);
    }
  }
  void RebuildHeaps(Set& set, size_t set_index);
  // The current top of the farthest or earliest heap after dropping stale
  // items; null if empty.
  template <typename Before>
  const HeapItem* Top(std::vector<HeapItem>& heap, Before before);
  // PRED: the least recently used overdue entry's item, or null. Each
  // overdue entry has an item whose recency is at most the entry's (a use
  // does not touch the heap); an outdated item is requeued when it reaches
  // the top, and one of an entry no longer overdue is dropped.
  const OverdueItem* LeastRecentOverdue(Set& set);
  Set& SetOf(Slot slot) { return sets_[slot / ways_]; }

  const EvictionPolicy policy_;
  const size_t ways_;
  const int64_t grace_us_;
  std::vector<Entry> entries_;
  std::vector<Set> sets_;
  absl::flat_hash_set<Slot, SlotHash, SlotEq> index_;
  std::mt19937_64 rng_;
  uint64_t use_clock_ = 0;  // PRED / OPT: ticks on every use (Entry::used_seq)
  SessionCacheStats stats_;
};

}  // namespace net

#endif  // NET_SESSION_CACHE_SESSION_INDEX_H_
