#include "dns/host_cache.h"

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(HostCacheTest, ExpiresByTtlAndEvictsLeastRecentlyUsed) {
  SimpleTestTickClock clock;
  HostCache cache(2, &clock);
  HostCache::Entry entry;
  entry.addresses = {IPAddress::IPv4Localhost()};
  cache.Set("a", HostCache::Kind::kAddresses, entry, absl::Seconds(10));
  cache.Set("b", HostCache::Kind::kAddresses, entry, absl::Seconds(10));
  ASSERT_NE(cache.Lookup("a", HostCache::Kind::kAddresses),
            nullptr);  // a is now recent
  cache.Set("c", HostCache::Kind::kAddresses, entry, absl::Seconds(10));
  EXPECT_EQ(cache.Lookup("b", HostCache::Kind::kAddresses), nullptr);
  EXPECT_NE(cache.Lookup("a", HostCache::Kind::kAddresses), nullptr);
  EXPECT_EQ(cache.evictions(), 1u);
  clock.Advance(absl::Seconds(10));
  EXPECT_EQ(cache.Lookup("a", HostCache::Kind::kAddresses), nullptr);
}

TEST(HostCacheTest, NegativeTtlIsBoundedAndZeroTtlIsNotCached) {
  SimpleTestTickClock clock;
  HostCache cache(10, &clock, absl::Seconds(30));
  HostCache::Entry negative;
  negative.error = ERR_NAME_NOT_RESOLVED;
  cache.Set("nx", HostCache::Kind::kAddresses, negative, absl::Hours(1));
  clock.Advance(absl::Seconds(29));
  ASSERT_NE(cache.Lookup("nx", HostCache::Kind::kAddresses), nullptr);
  clock.Advance(absl::Seconds(2));
  EXPECT_EQ(cache.Lookup("nx", HostCache::Kind::kAddresses), nullptr);
  cache.Set("zero", HostCache::Kind::kAddresses, HostCache::Entry(),
            absl::ZeroDuration());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(HostCacheTest, KindsAreSeparateAndPrefetchTagIsReportedOnce) {
  SimpleTestTickClock clock;
  HostCache cache(10, &clock);
  HostCache::Entry entry;
  entry.from_prefetch = true;
  cache.Set("h", HostCache::Kind::kAddresses, entry, absl::Seconds(5));
  EXPECT_EQ(cache.Lookup("h", HostCache::Kind::kTxt), nullptr);
  bool prefetched = false;
  cache.Lookup("H", HostCache::Kind::kAddresses, &prefetched);
  EXPECT_TRUE(prefetched);
  cache.Lookup("h", HostCache::Kind::kAddresses, &prefetched);
  EXPECT_FALSE(prefetched);
}

}  // namespace
}  // namespace net
