#include "net/base/ip_endpoint.h"

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(IPEndPointTest, ParsesV4AndV6) {
  auto v4 = IPEndPoint::Parse("127.0.0.11:443");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->ToString(), "127.0.0.11:443");
  auto v6 = IPEndPoint::Parse("[::1]:8443");
  ASSERT_TRUE(v6.ok());
  EXPECT_TRUE(v6->address().IsIPv6());
  EXPECT_EQ(v6->ToString(), "[::1]:8443");
}

TEST(IPEndPointTest, RejectsMalformed) {
  for (const char* bad : {"", "127.0.0.1", "127.0.0.1:", "127.0.0.1:70000",
                          "1.2.3:80", "[::1:80", "host:80", "[::1]80"}) {
    EXPECT_FALSE(IPEndPoint::Parse(bad).ok()) << bad;
  }
}

TEST(IPEndPointTest, SockAddrRoundTrip) {
  IPEndPoint ep = *IPEndPoint::Parse("[2001:db8::5]:99");
  sockaddr_storage storage;
  socklen_t len = ep.ToSockAddr(&storage);
  IPEndPoint back;
  ASSERT_TRUE(back.FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len));
  EXPECT_EQ(back, ep);
}

}  // namespace
}  // namespace net
