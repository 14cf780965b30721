#include "net/http/alt_svc.h"

#include <string>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(AltSvcTest, ParsesRfc7838Forms) {
  auto h = ParseAltSvc("h3=\":443\"; ma=2592000, h3-29=\":443\"; ma=2592000");
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->entries.size(), 2u);
  EXPECT_EQ(h->entries[0].alpn, "h3");
  EXPECT_EQ(h->entries[0].host, "");
  EXPECT_EQ(h->entries[0].port, 443);
  EXPECT_EQ(h->entries[0].max_age, absl::Seconds(2592000));
  EXPECT_EQ(h->entries[1].alpn, "h3-29");

  h = ParseAltSvc("h2=\"alt.example.com:8000\", h3=\"[::1]:4433\";persist=1");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->entries[0].host, "alt.example.com");
  EXPECT_EQ(h->entries[0].port, 8000);
  EXPECT_EQ(h->entries[0].max_age, absl::Hours(24));  // the default
  EXPECT_EQ(h->entries[1].host, "[::1]");
  EXPECT_EQ(h->entries[1].port, 4433);

  // Percent-encoded protocol-id, quoted parameter value, escapes, OWS.
  h = ParseAltSvc("  w%3Dx%3Ay=\"a\\.b:1\" ;  ma=\"60\" ; x=y ,");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->entries[0].alpn, "w=x:y");
  EXPECT_EQ(h->entries[0].host, "a.b");
  EXPECT_EQ(h->entries[0].max_age, absl::Seconds(60));

  h = ParseAltSvc("clear");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->clear);
  // A huge ma saturates at a year.
  h = ParseAltSvc("h3=\":1\"; ma=99999999999999999999");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->entries[0].max_age, absl::Hours(24 * 365));
}

TEST(AltSvcTest, RejectsMalformedValuesByName) {
  for (const char* bad :
       {"", "h3", "h3=", "h3=:443", "h3=\":443", "h3=\"443\"", "h3=\":0\"",
        "h3=\":65536\"", "h3=\":44a\"", "h3=\"a b:1\"", "h3=\":1\"; ma=-1",
        "h3=\":1\"; ma", "h3=\":1\"; =1", "h3=\":1\" h2=\":2\"", "CLEAR",
        "h3=\":1\"; ma=1x", "%4=\":1\"", "h3=\"[::1:1\"", "h3=\"\x01:1\""}) {
    EXPECT_FALSE(ParseAltSvc(bad).ok()) << bad;
  }
  std::string many;
  for (int i = 0; i < 33; ++i) many += "h3=\":1\",";
  EXPECT_FALSE(ParseAltSvc(many).ok());
  EXPECT_FALSE(ParseAltSvc(std::string(9000, ' ') + "h3=\":1\"").ok());
}

TEST(AltSvcTest, CacheKeepsTheFirstH3UntilMaxAge) {
  AltSvcCache cache(2);
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  const Origin a("https", "a.test", 443), b("https", "b.test", 443),
      c("https", "c.test", 443);
  cache.OnHeader(a, "h2=\":8443\", h3=\":4433\"; ma=60", t0);
  auto alt = cache.GetHttp3(a, t0 + absl::Seconds(59));
  ASSERT_TRUE(alt.has_value());
  EXPECT_EQ(alt->port, 4433);
  EXPECT_EQ(alt->host, "");
  EXPECT_FALSE(cache.GetHttp3(a, t0 + absl::Seconds(60)).has_value());
  EXPECT_EQ(cache.size(), 0u);  // expired entries go

  // A malformed header changes nothing; "clear" and ma=0 forget.
  cache.OnHeader(a, "h3=\":4433\"", t0);
  cache.OnHeader(a, "h3=\":", t0);
  EXPECT_TRUE(cache.GetHttp3(a, t0).has_value());
  cache.OnHeader(a, "clear", t0);
  EXPECT_FALSE(cache.GetHttp3(a, t0).has_value());
  cache.OnHeader(a, "h3=\":4433\"", t0);
  cache.OnHeader(a, "h3=\":4433\"; ma=0", t0);
  EXPECT_FALSE(cache.GetHttp3(a, t0).has_value());

  // Bounded: a third origin replaces the one that expires first.
  cache.OnHeader(a, "h3=\":1\"; ma=100", t0);
  cache.OnHeader(b, "h3=\":2\"; ma=10", t0);
  cache.OnHeader(c, "h3=\":3\"; ma=50", t0);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.GetHttp3(a, t0).has_value());
  EXPECT_FALSE(cache.GetHttp3(b, t0).has_value());
  EXPECT_TRUE(cache.GetHttp3(c, t0).has_value());
  cache.Forget(a);
  EXPECT_FALSE(cache.GetHttp3(a, t0).has_value());
}

}  // namespace
}  // namespace net
