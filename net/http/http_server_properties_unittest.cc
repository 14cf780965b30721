#include "net/http/http_server_properties.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace net {
namespace {

using Multiplexing = HttpServerProperties::Multiplexing;

TEST(HttpServerPropertiesTest, RemembersEachFactPerServer) {
  HttpServerProperties props;
  const std::string a = "https://a.test:443", b = "https://b.test:443";
  EXPECT_FALSE(props.RequiresHttp11(a));
  EXPECT_EQ(props.GetMultiplexing(a), Multiplexing::kUnknown);
  props.SetHttp11Required(a);
  props.SetMultiplexing(b, true);
  EXPECT_TRUE(props.RequiresHttp11(a));
  EXPECT_FALSE(props.RequiresHttp11(b));
  EXPECT_EQ(props.GetMultiplexing(a), Multiplexing::kUnknown);
  EXPECT_EQ(props.GetMultiplexing(b), Multiplexing::kYes);
  props.SetMultiplexing(b, false);
  EXPECT_EQ(props.GetMultiplexing(b), Multiplexing::kNo);
  // A server known through a proxy is another server.
  EXPECT_FALSE(props.RequiresHttp11(a + " via http://p.test:3128"));
  EXPECT_EQ(props.size(), 2u);
}

// Bounded: the least recently changed server goes first; reading does not
// count as a change, writing does.
TEST(HttpServerPropertiesTest, ForgetsTheLeastRecentlyChangedPastTheBound) {
  HttpServerProperties props(3);
  props.SetHttp11Required("s1");
  props.SetHttp11Required("s2");
  props.SetHttp11Required("s3");
  props.SetMultiplexing("s1", true);  // s1 is now the most recent
  props.SetHttp11Required("s4");      // s2 goes
  EXPECT_EQ(props.size(), 3u);
  EXPECT_TRUE(props.RequiresHttp11("s1"));
  EXPECT_FALSE(props.RequiresHttp11("s2"));
  EXPECT_TRUE(props.RequiresHttp11("s3"));
  EXPECT_TRUE(props.RequiresHttp11("s4"));
  for (int i = 0; i < 10000; ++i)
    props.SetMultiplexing(absl::StrCat("https://h", i, ".test:443"), false);
  EXPECT_EQ(props.size(), 3u);
  EXPECT_FALSE(props.RequiresHttp11("s4"));
  EXPECT_EQ(props.GetMultiplexing("https://h9999.test:443"), Multiplexing::kNo);
  EXPECT_EQ(props.GetMultiplexing("https://h9996.test:443"),
            Multiplexing::kUnknown);
}

TEST(HttpServerPropertiesTest, AZeroBoundKeepsOne) {
  HttpServerProperties props(0);
  EXPECT_EQ(props.max_entries(), 1u);
  props.SetHttp11Required("a");
  props.SetHttp11Required("b");
  EXPECT_EQ(props.size(), 1u);
  EXPECT_TRUE(props.RequiresHttp11("b"));
}

}  // namespace
}  // namespace net
