// SessionIndex: each policy's eviction order, PRED's rules (overdue entries
// least recently used first, then the farthest, rejection, unannounced
// entries) against examples and a reference model, Belady, set-associative
// isolation, removal and slot reuse.

#include "net/session_cache/session_index.h"

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace net {
namespace {

using ::testing::ElementsAre;
using Outcome = SessionIndex::PutOutcome;

TimeTicks T(int64_t seconds) {
  return TimeTicks::FromMicroseconds(seconds * 1'000'000);
}

// A fully associative index of |n| slots.
SessionIndex Full(EvictionPolicy policy, size_t n) {
  return SessionIndex(policy, 1, n, absl::Seconds(2), 42);
}

TEST(SessionIndexTest, FifoEvictsOldestInsertionIgnoringLookups) {
  SessionIndex index = Full(EvictionPolicy::kFifo, 3);
  for (const char* k : {"a", "b", "c"}) index.Put(k, 0, kNoNextConnect, T(0));
  EXPECT_NE(SessionIndex::kNoSlot, index.Lookup("a"));
  // Updating a cached key does not move it either.
  EXPECT_EQ(Outcome::kUpdated, index.Put("a", 0, T(5), T(1)).outcome);
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(1)),
              ElementsAre("a", "b", "c"));
  auto r = index.Put("d", 0, kNoNextConnect, T(1));
  EXPECT_EQ(Outcome::kInserted, r.outcome);
  EXPECT_TRUE(r.evicted);
  EXPECT_EQ("a", r.evicted_key);
  EXPECT_EQ("b", index.Put("e", 0, kNoNextConnect, T(1)).evicted_key);
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(1)),
              ElementsAre("c", "d", "e"));
  EXPECT_EQ(SessionIndex::kNoSlot, index.Lookup("a"));
  EXPECT_EQ(3u, index.size());
}

TEST(SessionIndexTest, LruEvictsLeastRecentlyUsed) {
  SessionIndex index = Full(EvictionPolicy::kLru, 3);
  for (const char* k : {"a", "b", "c"}) index.Put(k, 0, kNoNextConnect, T(0));
  index.Lookup("a");              // order b c a
  index.Put("b", 0, T(9), T(0));  // an update is a use: c a b
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)),
              ElementsAre("c", "a", "b"));
  EXPECT_EQ("c", index.Put("d", 0, kNoNextConnect, T(0)).evicted_key);
  index.Lookup("missing");  // a miss changes nothing
  EXPECT_EQ("a", index.Put("e", 0, kNoNextConnect, T(0)).evicted_key);
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)),
              ElementsAre("b", "d", "e"));
}

TEST(SessionIndexTest, RandomEvictsEverySlotSometimesAndIsSeeded) {
  auto victims = [](uint64_t seed) {
    SessionIndex index(EvictionPolicy::kRandom, 1, 4, absl::Seconds(2), seed);
    for (int i = 0; i < 4; ++i)
      index.Put("k" + std::to_string(i), 0, kNoNextConnect, T(0));
    std::vector<SessionIndex::Slot> slots;
    for (int i = 4; i < 200; ++i) {
      auto r = index.Put("k" + std::to_string(i), 0, kNoNextConnect, T(0));
      EXPECT_TRUE(r.evicted);
      slots.push_back(r.slot);
    }
    return slots;
  };
  std::vector<SessionIndex::Slot> a = victims(7);
  EXPECT_EQ(a, victims(7));  // deterministic for a seed
  EXPECT_NE(a, victims(8));
  EXPECT_EQ(4u, std::set<SessionIndex::Slot>(a.begin(), a.end()).size());
}

TEST(SessionIndexTest, PredEvictsExpiredBeforeFarthest) {
  // grace 2 s. a: next 10, b: next 20, c: next 30.
  SessionIndex index = Full(EvictionPolicy::kPred, 3);
  index.Put("a", 0, T(10), T(0));
  index.Put("b", 0, T(20), T(0));
  index.Put("c", 0, T(30), T(0));
  // At t=12 a is exactly at next + grace: not yet expired, so the farthest
  // (c) goes for a newcomer due at 15.
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(12)),
              ElementsAre("c", "b", "a"));
  auto r = index.Put("d", 0, T(15), T(12));
  EXPECT_EQ("c", r.evicted_key);
  EXPECT_FALSE(r.evicted_expired);
  // At t=13 a's client is late by more than the grace period: a goes first,
  // even for a newcomer announced farther away than everyone.
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(13)),
              ElementsAre("a", "b", "d"));
  r = index.Put("e", 0, T(100), T(13));
  EXPECT_EQ(Outcome::kInserted, r.outcome);
  EXPECT_EQ("a", r.evicted_key);
  EXPECT_TRUE(r.evicted_expired);
  EXPECT_EQ(1u, index.stats().expired_evictions);
}

TEST(SessionIndexTest, PredRejectsANewcomerThatIsTheFarthest) {
  SessionIndex index = Full(EvictionPolicy::kPred, 2);
  index.Put("a", 0, T(10), T(0));
  index.Put("b", 0, T(20), T(0));
  EXPECT_EQ(Outcome::kRejected, index.Put("c", 0, T(25), T(1)).outcome);
  EXPECT_EQ(Outcome::kRejected,
            index.Put("c", 0, T(20), T(1)).outcome);  // a tie
  EXPECT_EQ(Outcome::kRejected,
            index.Put("c", 0, kNoNextConnect, T(1)).outcome);
  EXPECT_EQ(SessionIndex::kNoSlot, index.Find("c"));
  EXPECT_EQ(3u, index.stats().rejections);
  // Nearer than the farthest: admitted, the farthest (b) goes.
  auto r = index.Put("c", 0, T(15), T(1));
  EXPECT_EQ(Outcome::kInserted, r.outcome);
  EXPECT_EQ("b", r.evicted_key);
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(1)), ElementsAre("c", "a"));
}

TEST(SessionIndexTest, PredEvictsTheLeastRecentlyUsedOverdueEntry) {
  SessionIndex index = Full(EvictionPolicy::kPred, 4);
  index.Put("a", 0, T(20), T(0));    // last heard of at 0, due at 20
  index.Put("b", 0, T(12), T(10));   // at 10, due at 12
  index.Put("c", 0, T(15), T(11));   // at 11, due at 15
  index.Put("d", 0, T(100), T(11));  // not due
  // At t=30 a, b and c are all overdue. b's announcement passed first, but
  // a's client was last heard of longest ago: a goes first, as under LRU.
  // (Evicting the earliest announcement would take b.)
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(30)),
              ElementsAre("a", "b", "c", "d"));
  // b's client resumes without a new announcement: b stays overdue, now the
  // most recently used of them.
  EXPECT_NE(SessionIndex::kNoSlot, index.Lookup("b"));
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(30)),
              ElementsAre("a", "c", "b", "d"));
  auto r = index.Put("e", 0, T(50), T(30));
  EXPECT_EQ("a", r.evicted_key);
  EXPECT_TRUE(r.evicted_expired);
  r = index.Put("f", 0, T(50), T(30));
  EXPECT_EQ("c", r.evicted_key);
  EXPECT_TRUE(r.evicted_expired);
  // A new announcement makes b current again. Nobody is overdue now: the
  // farthest goes (rule 2), and of the two due at 50, the one announced
  // first (e).
  EXPECT_EQ(Outcome::kUpdated, index.Put("b", 0, T(40), T(30)).outcome);
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(30)),
              ElementsAre("d", "e", "f", "b"));
  r = index.Put("g", 0, T(45), T(30));
  EXPECT_EQ("d", r.evicted_key);
  EXPECT_FALSE(r.evicted_expired);
  EXPECT_EQ("e", index.Put("h", 0, T(45), T(30)).evicted_key);
  EXPECT_EQ(2u, index.stats().expired_evictions);
}

TEST(SessionIndexTest, PredEntryFoundOverdueStaysOverdue) {
  // Threads read the clock before taking the shard's lock, so |now| can
  // step back a little between calls; an entry found overdue stays overdue
  // (until its client announces again, see above).
  SessionIndex index = Full(EvictionPolicy::kPred, 3);
  index.Put("a", 0, T(10), T(0));
  index.Put("x", 0, T(11), T(1));
  index.Put("b", 0, T(100), T(1));
  // At t=20 a and x are both overdue; a was used less recently.
  EXPECT_EQ("a", index.Put("c", 0, T(50), T(20)).evicted_key);
  // By t=12 x would not be overdue yet (11 + 2 > 12), but it was found so.
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(12)),
              ElementsAre("x", "b", "c"));
  auto r = index.Put("d", 0, T(60), T(12));
  EXPECT_EQ("x", r.evicted_key);
  EXPECT_TRUE(r.evicted_expired);
}

TEST(SessionIndexTest, PredUnannouncedSessionsGoFirstLeastRecentFirst) {
  SessionIndex index = Full(EvictionPolicy::kPred, 4);
  index.Put("a", 0, kNoNextConnect, T(0));  // no hint yet
  index.Put("x", 0, kNoNextConnect, T(0));  // no hint yet either
  index.Put("b", 0, T(20), T(0));
  index.Put("c", 0, T(30), T(0));
  // Unannounced entries are the farthest; among them the least recently
  // used goes first (x, stored later, would go first by slot).
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)),
              ElementsAre("a", "x", "c", "b"));
  index.Lookup("a");  // a's client resumes, still without a hint
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)),
              ElementsAre("x", "a", "c", "b"));
  // a's hint arrives (the X-Next-Connect header after the handshake).
  EXPECT_EQ(Outcome::kUpdated, index.Put("a", 0, T(5), T(0)).outcome);
  EXPECT_EQ(T(5), index.next_connect(index.Find("a")));
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)),
              ElementsAre("x", "c", "b", "a"));
  EXPECT_EQ("x", index.Put("d", 0, T(6), T(0)).evicted_key);
  // Lookups do not reorder announced entries.
  index.Lookup("c");
  EXPECT_EQ("c", index.Put("e", 0, T(7), T(0)).evicted_key);
}

// PRED and OPT against a direct reading of their rules over a random
// workload (several sets, removals, ties, unannounced keys, time moving
// forward): every Put must admit, reject and evict exactly as the
// reference does.
TEST(SessionIndexTest, PredAndBeladyMatchAReferenceModel) {
  constexpr size_t kSets = 3, kWays = 6;
  constexpr int64_t kGraceUs = 2'000'000;
  for (EvictionPolicy p : {EvictionPolicy::kPred, EvictionPolicy::kBelady}) {
    SCOPED_TRACE(std::string(EvictionPolicyName(p)));
    const bool pred = p == EvictionPolicy::kPred;
    SessionIndex index(p, kSets, kWays, absl::Microseconds(kGraceUs), 1);
    struct Ref {
      int64_t next_us;
      uint64_t used;   // the use clock at the last use
      uint64_t stamp;  // ... at the last announcement (see the header)
    };
    std::vector<std::map<std::string, Ref>> sets(kSets);
    uint64_t clock = 0;
    std::mt19937_64 rng(17);
    int64_t now = 0;
    size_t expired = 0, rejected = 0, farthest = 0;
    for (int i = 0; i < 30000; ++i) {
      now += static_cast<int64_t>(rng() % 1'500'000);
      std::string key = "k" + std::to_string(rng() % 60);
      size_t set = std::hash<std::string>{}(key) % kSets;
      auto& ref = sets[set];
      auto found = ref.find(key);
      switch (rng() % 8) {
        case 0:  // Remove
          EXPECT_EQ(found != ref.end(),
                    index.Remove(key) != SessionIndex::kNoSlot);
          if (found != ref.end()) ref.erase(found);
          continue;
        case 1:
        case 2:  // Lookup
          ASSERT_EQ(found != ref.end(),
                    index.Lookup(key) != SessionIndex::kNoSlot);
          if (found != ref.end() && pred) {
            found->second.used = ++clock;
            if (found->second.next_us == kNoNextConnect.ToMicroseconds())
              found->second.stamp = clock;
          }
          continue;
        default:
          break;
      }
      // Put: whole seconds, so that announcements tie; sometimes none.
      int64_t next_us = rng() % 5 == 0
                            ? kNoNextConnect.ToMicroseconds()
                            : (now / 1'000'000 + rng() % 12) * 1'000'000;
      auto r = index.Put(key, set, TimeTicks::FromMicroseconds(next_us),
                         TimeTicks::FromMicroseconds(now));
      if (found != ref.end()) {
        ASSERT_EQ(Outcome::kUpdated, r.outcome);
        Ref& e = found->second;
        if (e.next_us != next_us) {
          e.next_us = next_us;
          e.used = e.stamp = ++clock;
        } else if (pred) {
          e.used = ++clock;
          if (next_us == kNoNextConnect.ToMicroseconds()) e.stamp = clock;
        }
        continue;
      }
      std::string victim;
      bool victim_expired = false;
      if (ref.size() == kWays) {
        const std::pair<const std::string, Ref>* best = nullptr;
        if (pred) {  // rule 1: the least recently used overdue entry
          for (const auto& kv : ref) {
            if (kv.second.next_us < now - kGraceUs &&
                (!best || kv.second.used < best->second.used)) {
              best = &kv;
            }
          }
          victim_expired = best != nullptr;
        }
        if (!best) {  // rule 2: the farthest, the older announcement first
          for (const auto& kv : ref) {
            if (!best || kv.second.next_us > best->second.next_us ||
                (kv.second.next_us == best->second.next_us &&
                 kv.second.stamp < best->second.stamp)) {
              best = &kv;
            }
          }
          if (next_us >= best->second.next_us) {
            ASSERT_EQ(Outcome::kRejected, r.outcome) << i;
            ++rejected;
            continue;
          }
          ++farthest;
        }
        victim = best->first;
      }
      ASSERT_EQ(Outcome::kInserted, r.outcome) << i;
      ASSERT_EQ(!victim.empty(), r.evicted) << i;
      if (r.evicted) {
        ASSERT_EQ(victim, r.evicted_key) << i;
        ASSERT_EQ(victim_expired, r.evicted_expired) << i;
        expired += victim_expired;
        ref.erase(victim);
      }
      ++clock;
      ref[key] = Ref{next_us, clock, clock};
    }
    // The workload reached every rule.
    EXPECT_GT(rejected, 100u);
    EXPECT_GT(farthest, 100u);
    if (pred) {
      EXPECT_GT(expired, 100u);
    }
  }
}

TEST(SessionIndexTest, BeladyEvictsFarthestWithoutGraceRule) {
  SessionIndex index = Full(EvictionPolicy::kBelady, 2);
  index.Put("a", 0, T(10), T(0));
  index.Put("b", 0, T(20), T(0));
  // At t=100 a's time has long passed; OPT has no grace rule (with true next
  // request times nothing is ever in the past).
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(100)), ElementsAre("b", "a"));
  EXPECT_EQ(Outcome::kRejected, index.Put("c", 0, T(20), T(100)).outcome);
  EXPECT_EQ("b", index.Put("c", 0, T(15), T(100)).evicted_key);
}

TEST(SessionIndexTest, SetAssociativeSetsAreIndependent) {
  // 2 sets x 2 ways under LRU.
  SessionIndex index(EvictionPolicy::kLru, 2, 2, absl::Seconds(2), 1);
  index.Put("a", 0, kNoNextConnect, T(0));
  index.Put("b", 0, kNoNextConnect, T(0));
  index.Put("x", 1, kNoNextConnect, T(0));
  // Set 0 is full while set 1 has a free slot: a newcomer of set 0 evicts
  // within set 0.
  auto r = index.Put("c", 0, kNoNextConnect, T(0));
  EXPECT_EQ("a", r.evicted_key);
  EXPECT_LT(r.slot, 2u);
  r = index.Put("y", 1, kNoNextConnect, T(0));
  EXPECT_FALSE(r.evicted);
  EXPECT_GE(r.slot, 2u);
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)), ElementsAre("b", "c"));
  EXPECT_THAT(index.EvictionOrderForTesting(1, T(0)), ElementsAre("x", "y"));
  EXPECT_EQ(4u, index.size());
}

TEST(SessionIndexTest, RemoveFreesTheSlotForTheNextInsert) {
  for (EvictionPolicy p :
       {EvictionPolicy::kFifo, EvictionPolicy::kLru, EvictionPolicy::kRandom,
        EvictionPolicy::kPred, EvictionPolicy::kBelady}) {
    SCOPED_TRACE(std::string(EvictionPolicyName(p)));
    SessionIndex index = Full(p, 2);
    index.Put("a", 0, T(10), T(0));
    index.Put("b", 0, T(20), T(0));
    SessionIndex::Slot a = index.Find("a");
    EXPECT_EQ(a, index.Remove("a"));
    EXPECT_EQ(SessionIndex::kNoSlot, index.Remove("a"));
    EXPECT_EQ(1u, index.size());
    auto r = index.Put("c", 0, T(30), T(0));
    EXPECT_EQ(Outcome::kInserted, r.outcome);
    EXPECT_FALSE(r.evicted);
    EXPECT_EQ(a, r.slot);
    EXPECT_EQ(2u, index.size());
    EXPECT_EQ(2u, index.EvictionOrderForTesting(0, T(0)).size());
  }
}

TEST(SessionIndexTest, LongKeysAndManyEvictionsKeepTheIndexConsistent) {
  for (EvictionPolicy p :
       {EvictionPolicy::kFifo, EvictionPolicy::kLru, EvictionPolicy::kRandom,
        EvictionPolicy::kPred, EvictionPolicy::kBelady}) {
    SCOPED_TRACE(std::string(EvictionPolicyName(p)));
    SessionIndex index(p, 4, 8, absl::Seconds(2), 3);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 20000; ++i) {
      std::string key =
          "session-id-0123456789abcdef-" + std::to_string(rng() % 200);
      size_t set = std::hash<std::string>{}(key) % 4;
      TimeTicks now = T(i);
      if (rng() % 4 == 0) {
        index.Remove(key);
      } else if (index.Lookup(key) == SessionIndex::kNoSlot || rng() % 2) {
        auto r = index.Put(key, set, T(i + rng() % 50), now);
        if (r.outcome != Outcome::kRejected) {
          EXPECT_EQ(key, index.key(r.slot));
          EXPECT_EQ(set, r.slot / 8);
        }
      }
      ASSERT_LE(index.size(), 32u);
    }
    size_t listed = 0;
    for (size_t s = 0; s < 4; ++s)
      listed += index.EvictionOrderForTesting(s, T(0)).size();
    EXPECT_EQ(index.size(), listed);
  }
}

}  // namespace
}  // namespace net
