#include "net/base/url.h"

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(UrlTest, ParsesHttpsWithDefaults) {
  auto url = Url::Parse("HTTPS://WWW.Example.test");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme(), "https");
  EXPECT_EQ(url->host(), "www.example.test");
  EXPECT_EQ(url->port(), 443);
  EXPECT_EQ(url->PathForRequest(), "/");
  EXPECT_EQ(url->HostHeader(), "www.example.test");
  EXPECT_EQ(url->GetOrigin().Serialize(), "https://www.example.test");
}

TEST(UrlTest, ParsesPortPathQueryAndDropsFragment) {
  auto url = Url::Parse("http://a.test:8080/x/y?q=1#frag");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port(), 8080);
  EXPECT_EQ(url->PathForRequest(), "/x/y?q=1");
  EXPECT_EQ(url->HostHeader(), "a.test:8080");
  EXPECT_EQ(url->GetOrigin().HostPortKey(), "a.test:8080");
}

TEST(UrlTest, ParsesIPv6Literal) {
  auto url = Url::Parse("https://[::1]:4433/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host(), "::1");
  EXPECT_EQ(url->HostHeader(), "[::1]:4433");
}

TEST(UrlTest, RejectsBadInput) {
  for (const char* bad :
       {"", "www.example.test", "ftp://a.test/", "https://",
        "https://a.test:0/", "https://a.test:99999/", "https://user@a.test/",
        "https://a b.test/", "https://[::1/", "https://a.test/has space",
        "https://a.test:x/"}) {
    EXPECT_FALSE(Url::Parse(bad).ok()) << bad;
  }
}

TEST(UrlTest, ResolvesReferences) {
  Url base = *Url::Parse("https://a.test/dir/page.html?x");
  EXPECT_EQ(base.Resolve("other.html")->spec(),
            "https://a.test/dir/other.html");
  EXPECT_EQ(base.Resolve("/root")->spec(), "https://a.test/root");
  EXPECT_EQ(base.Resolve("//b.test/p")->spec(), "https://b.test/p");
  EXPECT_EQ(base.Resolve("http://c.test:81/")->spec(), "http://c.test:81/");
}

}  // namespace
}  // namespace net
