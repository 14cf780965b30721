#include "net/session_cache/session_index.h"

#include <algorithm>
#include <functional>

#include "absl/hash/hash.h"

namespace net {

SessionCacheStats& SessionCacheStats::operator+=(const SessionCacheStats& o) {
  lookups += o.lookups;
  hits += o.hits;
  inserts += o.inserts;
  updates += o.updates;
  evictions += o.evictions;
  expired_evictions += o.expired_evictions;
  rejections += o.rejections;
  removals += o.removals;
  return *this;
}

namespace {

// A 4-ary heap on a vector: half the depth of a binary heap, and a node's
// four children share a cache line. |before(a, b)|: a belongs above b.
constexpr size_t kArity = 4;

template <typename T, typename Before>
void SiftDown(std::vector<T>& v, size_t i, Before before) {
  T x = v[i];
  const size_t n = v.size();
  for (;;) {
    size_t c = kArity * i + 1;
    if (c >= n) break;
    size_t best = c;
    for (size_t k = c + 1; k < std::min(c + kArity, n); ++k) {
      if (before(v[k], v[best])) best = k;
    }
    if (!before(v[best], x)) break;
    v[i] = v[best];
    i = best;
  }
  v[i] = x;
}

template <typename T, typename Before>
void HeapPush(std::vector<T>& v, const T& x, Before before) {
  v.push_back(x);
  size_t i = v.size() - 1;
  while (i > 0) {
    size_t parent = (i - 1) / kArity;
    if (!before(x, v[parent])) break;
    v[i] = v[parent];
    i = parent;
  }
  v[i] = x;
}

template <typename T, typename Before>
void HeapPop(std::vector<T>& v, Before before) {
  v.front() = v.back();
  v.pop_back();
  if (!v.empty()) SiftDown(v, 0, before);
}

template <typename T, typename Before>
void HeapMake(std::vector<T>& v, Before before) {
  if (v.size() < 2) return;
  for (size_t i = (v.size() - 2) / kArity + 1; i-- > 0;) SiftDown(v, i, before);
}

}  // namespace

size_t SessionIndex::SlotHash::operator()(absl::string_view k) const {
  return absl::Hash<absl::string_view>{}(k);
}

SessionIndex::SessionIndex(EvictionPolicy policy, size_t sets, size_t ways,
                           absl::Duration grace, uint64_t seed)
    : policy_(policy),
      ways_(ways),
      grace_us_(absl::ToInt64Microseconds(grace)),
      entries_(sets * ways),
      sets_(sets),
      index_(0, SlotHash{&entries_}, SlotEq{&entries_}),
      rng_(seed) {
  index_.reserve(entries_.size());
  for (size_t s = 0; s < sets; ++s) {
    Slot base = static_cast<Slot>(s * ways);
    sets_[s].free = base;
    for (size_t i = 0; i < ways; ++i) {
      entries_[base + i].next =
          i + 1 < ways ? static_cast<Slot>(base + i + 1) : kNoSlot;
    }
  }
}

SessionIndex::~SessionIndex() = default;

SessionIndex::Slot SessionIndex::Find(absl::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? kNoSlot : *it;
}

SessionIndex::Slot SessionIndex::Lookup(absl::string_view key) {
  ++stats_.lookups;
  auto it = index_.find(key);
  if (it == index_.end()) return kNoSlot;
  ++stats_.hits;
  Slot slot = *it;
  if (policy_ == EvictionPolicy::kLru) Touch(SetOf(slot), slot);
  return slot;
}

SessionIndex::PutResult SessionIndex::Put(absl::string_view key,
                                          size_t set_index,
                                          TimeTicks next_connect,
                                          TimeTicks now) {
  const int64_t next_us = next_connect.ToMicroseconds();
  PutResult result;
  auto it = index_.find(key);
  if (it != index_.end()) {
    Slot slot = *it;
    Entry& e = entries_[slot];
    Set& set = SetOf(slot);
    if (e.next_us != next_us) {
      e.next_us = next_us;  // Old heap items become stale.
      if (policy_ == EvictionPolicy::kPred ||
          policy_ == EvictionPolicy::kBelady) {
        PushHeaps(set, slot / ways_, slot);
      }
    }
    if (policy_ == EvictionPolicy::kLru) Touch(set, slot);
    ++stats_.updates;
    result.outcome = PutOutcome::kUpdated;
    result.slot = slot;
    return result;
  }

  Set& set = sets_[set_index];
  Slot slot = set.free;
  bool from_heap_top = false;  // PRED / OPT: the victim is a heap's top
  bool expired = false;
  if (slot != kNoSlot) {
    set.free = entries_[slot].next;
  } else {
    slot = ChooseVictim(set, set_index, next_us, now, &expired);
    from_heap_top = slot != kNoSlot && (policy_ == EvictionPolicy::kPred ||
                                        policy_ == EvictionPolicy::kBelady);
    if (slot == kNoSlot) {
      ++stats_.rejections;
      result.outcome = PutOutcome::kRejected;
      return result;
    }
    Unlink(set, slot);
    index_.erase(slot);  // Before the key changes: the index hashes it.
    --set.size;
    result.evicted = true;
    result.evicted_expired = expired;
    result.evicted_key.swap(entries_[slot].key);
    ++stats_.evictions;
    if (expired) ++stats_.expired_evictions;
  }
  Entry& e = entries_[slot];
  e.key.assign(key.data(), key.size());
  e.next_us = next_us;
  e.used = true;
  Link(set, slot);
  if (from_heap_top) {
    // The newcomer takes the victim's place at the top of the heap it was
    // chosen from (one sift-down instead of a pop and a push).
    ReplaceTopAndPush(set, set_index, slot, expired);
  } else if (policy_ == EvictionPolicy::kPred ||
             policy_ == EvictionPolicy::kBelady) {
    PushHeaps(set, set_index, slot);
  }
  index_.insert(slot);
  ++set.size;
  ++stats_.inserts;
  result.outcome = PutOutcome::kInserted;
  result.slot = slot;
  return result;
}

SessionIndex::Slot SessionIndex::Remove(absl::string_view key) {
  auto it = index_.find(key);
  if (it == index_.end()) return kNoSlot;
  Slot slot = *it;
  index_.erase(it);
  Set& set = SetOf(slot);
  Unlink(set, slot);
  Entry& e = entries_[slot];
  e.used = false;
  e.key.clear();
  e.next = set.free;
  set.free = slot;
  --set.size;
  ++stats_.removals;
  return slot;
}

TimeTicks SessionIndex::next_connect(Slot slot) const {
  return TimeTicks::FromMicroseconds(entries_[slot].next_us);
}

SessionIndex::Slot SessionIndex::ChooseVictim(Set& set, size_t set_index,
                                              int64_t newcomer_next_us,
                                              TimeTicks now, bool* expired) {
  switch (policy_) {
    case EvictionPolicy::kFifo:
    case EvictionPolicy::kLru:
      return set.head;
    case EvictionPolicy::kRandom:
      // Only called on a full set, so every slot of it is in use.
      return static_cast<Slot>(set_index * ways_ + rng_() % ways_);
    case EvictionPolicy::kPred: {
      // Algorithm 1, first rule: a session whose client should have come
      // back (next connect + grace) and did not. The earliest one is it if
      // any is.
      const HeapItem* first = Top(set.earliest, std::less<HeapItem>());
      if (first->next_us < now.ToMicroseconds() - grace_us_) {
        *expired = true;
        return first->slot;
      }
      [[fallthrough]];
    }
    case EvictionPolicy::kBelady: {
      // Second rule (and Belady's): the farthest next connect goes, unless
      // the newcomer's is at least as far; then the newcomer is not admitted.
      const HeapItem* last = Top(set.farthest, std::greater<HeapItem>());
      if (newcomer_next_us >= last->next_us) return kNoSlot;
      return last->slot;
    }
  }
  return kNoSlot;
}

void SessionIndex::Link(Set& set, Slot slot) {
  Entry& e = entries_[slot];
  switch (policy_) {
    case EvictionPolicy::kFifo:
    case EvictionPolicy::kLru:
      e.prev = set.tail;
      e.next = kNoSlot;
      if (set.tail != kNoSlot) {
        entries_[set.tail].next = slot;
      } else {
        set.head = slot;
      }
      set.tail = slot;
      break;
    case EvictionPolicy::kRandom:
    case EvictionPolicy::kPred:    // Put pushes heap items;
    case EvictionPolicy::kBelady:  // they go stale on their own.
      break;
  }
}

void SessionIndex::Unlink(Set& set, Slot slot) {
  Entry& e = entries_[slot];
  switch (policy_) {
    case EvictionPolicy::kFifo:
    case EvictionPolicy::kLru:
      if (e.prev != kNoSlot) {
        entries_[e.prev].next = e.next;
      } else {
        set.head = e.next;
      }
      if (e.next != kNoSlot) {
        entries_[e.next].prev = e.prev;
      } else {
        set.tail = e.prev;
      }
      e.prev = e.next = kNoSlot;
      break;
    case EvictionPolicy::kRandom:
    case EvictionPolicy::kPred:
    case EvictionPolicy::kBelady:
      break;
  }
}

void SessionIndex::Touch(Set& set, Slot slot) {
  if (set.tail == slot) return;
  Unlink(set, slot);
  Link(set, slot);
}

void SessionIndex::PushHeaps(Set& set, size_t set_index, Slot slot) {
  HeapItem item{entries_[slot].next_us, slot};
  HeapPush(set.farthest, item, std::greater<HeapItem>());
  // Only PRED's grace rule asks for the earliest entry.
  if (policy_ == EvictionPolicy::kPred)
    HeapPush(set.earliest, item, std::less<HeapItem>());
  // Stale items pile up with every update; rebuilding costs O(ways) and
  // happens after at least |set.size| + 16 pushes, so O(1) amortized.
  if (set.farthest.size() > 2 * size_t{set.size} + 16)
    RebuildHeaps(set, set_index);
}

void SessionIndex::ReplaceTopAndPush(Set& set, size_t set_index, Slot slot,
                                     bool from_earliest) {
  HeapItem item{entries_[slot].next_us, slot};
  if (from_earliest) {
    set.earliest.front() = item;
    SiftDown(set.earliest, 0, std::less<HeapItem>());
    HeapPush(set.farthest, item, std::greater<HeapItem>());
  } else {
    set.farthest.front() = item;
    SiftDown(set.farthest, 0, std::greater<HeapItem>());
    if (policy_ == EvictionPolicy::kPred) {
      HeapPush(set.earliest, item, std::less<HeapItem>());
    }
  }
  MaybeRebuildHeaps(set, set_index);
}

void SessionIndex::MaybeRebuildHeaps(Set& set, size_t set_index) {
  // Stale items pile up with every update; rebuilding costs O(ways) and
  // happens after at least |set.size| + 16 pushes, so O(1) amortized.
  size_t limit = 2 * size_t{set.size} + 16;
  if (set.farthest.size() > limit || set.earliest.size() > limit) {
    RebuildHeaps(set, set_index);
  }
}

void SessionIndex::RebuildHeaps(Set& set, size_t set_index) {
  set.farthest.clear();
  for (size_t i = 0; i < ways_; ++i) {
    Slot s = static_cast<Slot>(set_index * ways_ + i);
    if (entries_[s].used) set.farthest.push_back({entries_[s].next_us, s});
  }
  if (policy_ == EvictionPolicy::kPred) {
    set.earliest = set.farthest;
    HeapMake(set.earliest, std::less<HeapItem>());
  }
  HeapMake(set.farthest, std::greater<HeapItem>());
}

template <typename Before>
const SessionIndex::HeapItem* SessionIndex::Top(std::vector<HeapItem>& heap,
                                                Before before) {
  while (!heap.empty() && !IsCurrent(heap.front())) HeapPop(heap, before);
  return heap.empty() ? nullptr : &heap.front();
}

std::vector<std::string> SessionIndex::EvictionOrderForTesting(
    size_t set_index, TimeTicks now) const {
  const Set& set = sets_[set_index];
  std::vector<std::string> order;
  switch (policy_) {
    case EvictionPolicy::kFifo:
    case EvictionPolicy::kLru:
      for (Slot s = set.head; s != kNoSlot; s = entries_[s].next) {
        order.push_back(entries_[s].key);
      }
      break;
    case EvictionPolicy::kRandom:
      for (size_t i = 0; i < ways_; ++i) {
        const Entry& e = entries_[set_index * ways_ + i];
        if (e.used) order.push_back(e.key);
      }
      break;
    case EvictionPolicy::kPred:
    case EvictionPolicy::kBelady: {
      // PRED first takes the expired entries, earliest first; then both
      // take the farthest remaining one.
      std::vector<HeapItem> items;
      for (size_t i = 0; i < ways_; ++i) {
        Slot s = static_cast<Slot>(set_index * ways_ + i);
        if (entries_[s].used) items.push_back({entries_[s].next_us, s});
      }
      std::sort(items.begin(), items.end());
      auto it = items.begin();
      if (policy_ == EvictionPolicy::kPred) {
        for (; it != items.end() &&
               it->next_us < now.ToMicroseconds() - grace_us_;
             ++it) {
          order.push_back(entries_[it->slot].key);
        }
      }
      size_t expired = order.size();
      for (; it != items.end(); ++it) order.push_back(entries_[it->slot].key);
      std::reverse(order.begin() + expired, order.end());
      break;
    }
  }
  return order;
}

}  // namespace net
