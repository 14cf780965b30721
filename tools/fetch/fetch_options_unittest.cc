#include "tools/fetch/fetch_options.h"

#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(FetchOptionsTest, ParsesFlags) {
  auto o = ParseFetchOptions({"-v", "-H", "X-A: b", "--resolve",
                              "a.test:443:127.0.0.1", "--tls-max", "1.2",
                              "--repeat", "3", "--parallel", "6",
                              "--no-false-start", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->verbose);
  EXPECT_EQ(o->headers[0].first, "X-A");
  EXPECT_EQ(o->headers[0].second, "b");
  EXPECT_EQ(o->tls_max, 0x0303);
  EXPECT_EQ(o->repeat, 3);
  EXPECT_EQ(o->parallel, 6);
  EXPECT_FALSE(o->false_start);
  EXPECT_EQ(o->urls.size(), 1u);
}

TEST(FetchOptionsTest, CookieAndObcPoolFlags) {
  auto o = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->cookies);
  EXPECT_EQ(o->obc_pool, -1);
  o = ParseFetchOptions({"--no-cookies", "--obc", "rsa2048", "--obc-pool", "0",
                         "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->cookies);
  EXPECT_EQ(o->obc, "rsa2048");
  EXPECT_EQ(o->obc_pool, 0);
}

TEST(FetchOptionsTest, RejectsBadFlagsWithTheirName) {
  struct Case {
    std::vector<std::string> args;
    const char* mentions;
  } cases[] = {
      {{"--tls-max", "1.1", "https://a/"}, "--tls-max"},
      {{"--repeat", "0", "https://a/"}, "--repeat"},
      {{"--bogus", "https://a/"}, "--bogus"},
      {{"-H", "NoColon", "https://a/"}, "-H"},
      {{"-H", "A: b\r\nInjected: x", "https://a/"}, "-H"},
      {{"--resolve", "a:1", "https://a/"}, "--resolve"},
      {{"--tls-min", "1.3", "--tls-max", "1.2", "https://a/"}, "--tls-min"},
      {{}, "no URL"},
      {{"-o"}, "-o"},
      {{"--obc-pool", "-1", "https://a/"}, "--obc-pool"},
      {{"--obc-pool", "x", "https://a/"}, "--obc-pool"},
  };
  for (const Case& c : cases) {
    auto o = ParseFetchOptions(c.args);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find(c.mentions), std::string::npos)
        << o.status();
  }
}

TEST(FetchOptionsTest, ReadsTheWorldFile) {
  std::string path = ::testing::TempDir() + "/world.json";
  std::ofstream(path) << R"({"dir":"/x","trust_anchors":"/x/pki/root.pem",
      "resolve":["www.example.test:4443:127.0.0.11"],"default_url":"https://www.example.test:4443/",
      "origins":{"www":{"port":4443}}})";
  auto o = ParseFetchOptions({"--world", path});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->trust_anchors.back(), "/x/pki/root.pem");
  EXPECT_EQ(o->resolve[0].port, 4443);
  EXPECT_EQ(o->urls[0], "https://www.example.test:4443/");

  std::ofstream(path) << "{not json";
  EXPECT_FALSE(ParseFetchOptions({"--world", path}).ok());
  EXPECT_FALSE(ParseFetchOptions({"--world", "/nonexistent.json"}).ok());
}

}  // namespace
}  // namespace net
