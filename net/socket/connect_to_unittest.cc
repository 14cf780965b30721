#include "net/socket/connect_to.h"

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(ConnectToRuleTest, ParsesEveryPartAndRoundTrips) {
  auto rule = ConnectToRule::Parse("Example.COM:443:backend.test:8443");
  ASSERT_TRUE(rule.ok()) << rule.status();
  EXPECT_EQ(rule->from_host, "example.com");
  EXPECT_EQ(rule->from_port, 443);
  EXPECT_EQ(rule->to_host, "backend.test");
  EXPECT_EQ(rule->to_port, 8443);
  EXPECT_EQ(rule->ToString(), "example.com:443:backend.test:8443");
}

TEST(ConnectToRuleTest, EmptyPartsMeanAnyOrUnchanged) {
  auto rule = ConnectToRule::Parse("ocsp.example.test:80::41000");
  ASSERT_TRUE(rule.ok()) << rule.status();
  EXPECT_EQ(rule->to_host, "");
  EXPECT_EQ(rule->to_port, 41000);
  auto any = ConnectToRule::Parse(":::");
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ(any->ToString(), ":::");
}

TEST(ConnectToRuleTest, Ipv6LiteralsInBrackets) {
  auto rule = ConnectToRule::Parse("[::1]:443:[2001:db8::2]:8443");
  ASSERT_TRUE(rule.ok()) << rule.status();
  EXPECT_EQ(rule->from_host, "::1");
  EXPECT_EQ(rule->to_host, "2001:db8::2");
  EXPECT_EQ(rule->ToString(), "[::1]:443:[2001:db8::2]:8443");
}

TEST(ConnectToRuleTest, RefusesMalformedRules) {
  for (const char* bad : {"", "a", "a:1", "a:1:b", "a:1:b:2:3", "a:x:b:2",
                          "a:1:b:70000", "a:0:b:1", "[::1:443:b:1", "[]:1:b:2",
                          "a:1:[::2]", "a b:1:c:2", "a:-1:b:2"}) {
    EXPECT_FALSE(ConnectToRule::Parse(bad).ok()) << bad;
  }
}

TEST(ConnectToRulesTest, FirstMatchingRuleWins) {
  ConnectToRules rules;
  rules.Add(*ConnectToRule::Parse("a.test:80::8080"));
  rules.Add(*ConnectToRule::Parse("a.test::b.test:"));
  rules.Add(*ConnectToRule::Parse(":443:c.test:4443"));
  EXPECT_EQ(rules.Apply("A.test", 80),
            (std::pair<std::string, uint16_t>("A.test", 8080)));
  EXPECT_EQ(rules.Apply("a.test", 81),
            (std::pair<std::string, uint16_t>("b.test", 81)));
  EXPECT_EQ(rules.Apply("z.test", 443),
            (std::pair<std::string, uint16_t>("c.test", 4443)));
  EXPECT_EQ(rules.Apply("z.test", 80),
            (std::pair<std::string, uint16_t>("z.test", 80)));
  EXPECT_EQ(ConnectToRules().Apply("z.test", 80),
            (std::pair<std::string, uint16_t>("z.test", 80)));
}

}  // namespace
}  // namespace net
