#include "net/session_cache/session_index.h"

#include <algorithm>

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
  if (policy_ == EvictionPolicy::kLru) {
    Touch(SetOf(slot), slot);
  } else if (policy_ == EvictionPolicy::kPred) {
    TouchPred(SetOf(slot), slot / ways_, slot);
  }
  return slot;
}

SessionIndex::PutResult SessionIndex::Put(absl::string_view key,
                                          size_t set_index,
                                          TimeTicks next_connect,
                                          TimeTicks now) {
  const int64_t next_us = next_connect.ToMicroseconds();
  const bool heaps =
      policy_ == EvictionPolicy::kPred || policy_ == EvictionPolicy::kBelady;
  PutResult result;
  auto it = index_.find(key);
  if (it != index_.end()) {
    Slot slot = *it;
    Entry& e = entries_[slot];
    Set& set = SetOf(slot);
    if (e.next_us != next_us) {
      e.next_us = next_us;  // Old heap items become stale.
      if (heaps) {
        e.used_seq = ++use_clock_;
        e.stamp = static_cast<uint32_t>(e.used_seq);
        e.overdue = false;  // A new announcement: judged afresh.
        PushHeaps(set, slot / ways_, slot);
      }
    } else if (policy_ == EvictionPolicy::kPred) {
      TouchPred(set, slot / ways_, slot);
    }
    if (policy_ == EvictionPolicy::kLru) Touch(set, slot);
    ++stats_.updates;
    result.outcome = PutOutcome::kUpdated;
    result.slot = slot;
    return result;
  }

  Set& set = sets_[set_index];
  Slot slot = set.free;
  VictimSource source = VictimSource::kList;
  if (slot != kNoSlot) {
    set.free = entries_[slot].next;
  } else {
    slot = ChooseVictim(set, set_index, next_us, now, &source);
    if (slot == kNoSlot) {
      ++stats_.rejections;
      result.outcome = PutOutcome::kRejected;
      return result;
    }
    const bool expired =
        source == VictimSource::kOverdue || source == VictimSource::kEarliest;
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
  e.overdue = false;
  Link(set, slot);
  if (heaps) {
    e.used_seq = ++use_clock_;
    e.stamp = static_cast<uint32_t>(e.used_seq);
    if (source == VictimSource::kList) {
      PushHeaps(set, set_index, slot);
    } else {
      ReplaceVictim(set, set_index, slot, source);
    }
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
  e.overdue = false;
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
                                              TimeTicks now,
                                              VictimSource* source) {
  switch (policy_) {
    case EvictionPolicy::kFifo:
    case EvictionPolicy::kLru:
      return set.head;
    case EvictionPolicy::kRandom:
      // Only called on a full set, so every slot of it is in use.
      return static_cast<Slot>(set_index * ways_ + rng_() % ways_);
    case EvictionPolicy::kPred: {
      // Algorithm 1, first rule: a session whose client should have come
      // back (next connect + grace) and did not; of those, the least
      // recently used.
      const int64_t cutoff_us = now.ToMicroseconds() - grace_us_;
      const HeapItem* first = Top(set.earliest, EarlierFirst());
      const bool falls_due = first && first->next_us < cutoff_us;
      if (falls_due && set.overdue.empty() &&
          OnlyTopBefore(set.earliest, cutoff_us)) {
        // The common case of one entry falling due at a time: it is the
        // only overdue entry, so the least recently used one. It is taken
        // from the earliest heap directly, as if moved and taken back.
        *source = VictimSource::kEarliest;
        return first->slot;
      }
      if (falls_due) CollectOverdue(set, cutoff_us);
      if (!set.overdue.empty()) {
        if (const OverdueItem* late = LeastRecentOverdue(set)) {
          *source = VictimSource::kOverdue;
          return late->slot;
        }
      }
      [[fallthrough]];
    }
    case EvictionPolicy::kBelady: {
      // Second rule (and Belady's): the farthest next connect goes, unless
      // the newcomer's is at least as far; then the newcomer is not admitted.
      const HeapItem* last = Top(set.farthest, FartherFirst());
      if (newcomer_next_us >= last->next_us) return kNoSlot;
      *source = VictimSource::kFarthest;
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

void SessionIndex::RequeueUnannounced(Set& set, size_t set_index, Slot slot) {
  // Unannounced entries tie as the farthest; recency orders them. (Their
  // earliest-heap item goes stale: they can never be overdue.)
  Entry& e = entries_[slot];
  e.stamp = static_cast<uint32_t>(e.used_seq);
  HeapPush(set.farthest, ItemOf(slot), FartherFirst());
  MaybeRebuildHeaps(set, set_index);
}

const SessionIndex::OverdueItem* SessionIndex::LeastRecentOverdue(Set& set) {
  std::vector<OverdueItem>& heap = set.overdue;
  while (!heap.empty()) {
    OverdueItem& top = heap.front();
    const Entry& e = entries_[top.slot];
    if (!e.used || !e.overdue) {
      HeapPop(heap, LessRecentFirst());  // evicted, removed or re-announced
    } else if (e.used_seq != top.used_seq) {
      // Used since it fell due: it goes where its last use puts it. Items
      // only ever move down, so the top is the least recent once current.
      top.used_seq = e.used_seq;
      SiftDown(heap, 0, LessRecentFirst());
    } else {
      return &top;
    }
  }
  return nullptr;
}

bool SessionIndex::OnlyTopBefore(const std::vector<HeapItem>& heap,
                                 int64_t cutoff_us) {
  // In a min-heap every item below the top is at least one of the top's
  // children; stale children count too (they may hide a current entry).
  for (size_t i = 1; i <= kArity && i < heap.size(); ++i) {
    if (heap[i].next_us < cutoff_us) return false;
  }
  return true;
}

void SessionIndex::CollectOverdue(Set& set, int64_t cutoff_us) {
  while (const HeapItem* first = Top(set.earliest, EarlierFirst())) {
    if (first->next_us >= cutoff_us) break;
    const Slot slot = first->slot;
    HeapPop(set.earliest, EarlierFirst());
    Entry& e = entries_[slot];
    if (!e.overdue) {
      e.overdue = true;
      HeapPush(set.overdue, OverdueItem{e.used_seq, slot}, LessRecentFirst());
    }
  }
}

void SessionIndex::PushHeaps(Set& set, size_t set_index, Slot slot) {
  HeapPush(set.farthest, ItemOf(slot), FartherFirst());
  // Only PRED's grace rule asks for the earliest entry.
  if (policy_ == EvictionPolicy::kPred)
    HeapPush(set.earliest, ItemOf(slot), EarlierFirst());
  MaybeRebuildHeaps(set, set_index);
}

void SessionIndex::ReplaceVictim(Set& set, size_t set_index, Slot slot,
                                 VictimSource source) {
  switch (source) {
    case VictimSource::kFarthest:
      // The newcomer takes the victim's place at the top (one sift-down
      // instead of a pop and a push).
      set.farthest.front() = ItemOf(slot);
      SiftDown(set.farthest, 0, FartherFirst());
      if (policy_ == EvictionPolicy::kPred)
        HeapPush(set.earliest, ItemOf(slot), EarlierFirst());
      MaybeRebuildHeaps(set, set_index);
      break;
    case VictimSource::kEarliest:
      set.earliest.front() = ItemOf(slot);
      SiftDown(set.earliest, 0, EarlierFirst());
      HeapPush(set.farthest, ItemOf(slot), FartherFirst());
      MaybeRebuildHeaps(set, set_index);
      break;
    case VictimSource::kOverdue:
      // The newcomer is not overdue: it joins the other two heaps.
      HeapPop(set.overdue, LessRecentFirst());
      PushHeaps(set, set_index, slot);
      break;
    case VictimSource::kList:
      PushHeaps(set, set_index, slot);
      break;
  }
}

void SessionIndex::RebuildHeaps(Set& set, size_t set_index) {
  set.farthest.clear();
  set.overdue.clear();
  for (size_t i = 0; i < ways_; ++i) {
    Slot s = static_cast<Slot>(set_index * ways_ + i);
    const Entry& e = entries_[s];
    if (!e.used) continue;
    set.farthest.push_back(ItemOf(s));
    if (e.overdue) set.overdue.push_back({e.used_seq, s});
  }
  if (policy_ == EvictionPolicy::kPred) {
    // The earliest heap holds the entries not overdue.
    set.earliest = set.farthest;
    if (!set.overdue.empty()) {
      set.earliest.erase(
          std::remove_if(set.earliest.begin(), set.earliest.end(),
                         [this](const HeapItem& item) {
                           return entries_[item.slot].overdue;
                         }),
          set.earliest.end());
    }
    HeapMake(set.earliest, EarlierFirst());
    HeapMake(set.overdue, LessRecentFirst());
  }
  HeapMake(set.farthest, FartherFirst());
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
      // PRED first takes the overdue entries, least recently used first;
      // then both take the farthest remaining one.
      std::vector<OverdueItem> overdue;
      std::vector<HeapItem> rest;
      for (size_t i = 0; i < ways_; ++i) {
        Slot s = static_cast<Slot>(set_index * ways_ + i);
        const Entry& e = entries_[s];
        if (!e.used) continue;
        if (policy_ == EvictionPolicy::kPred &&
            (e.overdue || e.next_us < now.ToMicroseconds() - grace_us_)) {
          overdue.push_back({e.used_seq, s});
        } else {
          rest.push_back(ItemOf(s));
        }
      }
      std::sort(overdue.begin(), overdue.end(), LessRecentFirst());
      std::sort(rest.begin(), rest.end(), FartherFirst());
      for (const OverdueItem& item : overdue)
        order.push_back(entries_[item.slot].key);
      for (const HeapItem& item : rest)
        order.push_back(entries_[item.slot].key);
      break;
    }
  }
  return order;
}

}  // namespace net
