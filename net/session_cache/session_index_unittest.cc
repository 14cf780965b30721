// SessionIndex: each policy's eviction order, PRED's three rules, Belady,
// set-associative isolation, removal and slot reuse.

#include "net/session_cache/session_index.h"

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

TEST(SessionIndexTest, PredUnannouncedSessionsGoFirstAndHintsReorder) {
  SessionIndex index = Full(EvictionPolicy::kPred, 3);
  index.Put("a", 0, kNoNextConnect, T(0));  // no hint yet
  index.Put("b", 0, T(20), T(0));
  index.Put("c", 0, T(30), T(0));
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)),
              ElementsAre("a", "c", "b"));
  // a's hint arrives (the X-Next-Connect header after the handshake).
  EXPECT_EQ(Outcome::kUpdated, index.Put("a", 0, T(5), T(0)).outcome);
  EXPECT_EQ(T(5), index.next_connect(index.Find("a")));
  EXPECT_THAT(index.EvictionOrderForTesting(0, T(0)),
              ElementsAre("c", "b", "a"));
  // Lookups do not reorder PRED.
  index.Lookup("c");
  EXPECT_EQ("c", index.Put("d", 0, T(6), T(0)).evicted_key);
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
