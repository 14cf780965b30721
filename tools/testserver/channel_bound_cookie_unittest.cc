// ChannelBoundCookies: tokens verify to the SPKI hash they were issued for,
// and any change (a byte, the length, another secret) makes them invalid.

#include "tools/testserver/channel_bound_cookie.h"

#include <set>
#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace net {
namespace {

const std::string kSpkiA(32, 'a');
const std::string kSpkiB(32, 'b');

TEST(ChannelBoundCookiesTest, VerifyReturnsTheBoundHash) {
  ChannelBoundCookies cookies;
  std::string a = cookies.Issue(kSpkiA);
  std::string b = cookies.Issue(kSpkiB);
  EXPECT_EQ(cookies.Verify(a).value(), kSpkiA);
  EXPECT_EQ(cookies.Verify(b).value(), kSpkiB);
  // Cookie-safe characters only (base64url, no padding).
  EXPECT_EQ(a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr"
                                "stuvwxyz0123456789-_"),
            std::string::npos);
}

TEST(ChannelBoundCookiesTest, TokensAreFreshEachTime) {
  ChannelBoundCookies cookies;
  std::set<std::string> tokens;
  for (int i = 0; i < 100; ++i) tokens.insert(cookies.Issue(kSpkiA));
  EXPECT_EQ(tokens.size(), 100u);
}

TEST(ChannelBoundCookiesTest, AnyAlterationIsInvalid) {
  ChannelBoundCookies cookies(std::string(32, 's'));
  std::string token = cookies.Issue(kSpkiA);
  std::string raw;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(token, &raw));
  ASSERT_EQ(raw.size(), 80u);
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string bad = raw;
    bad[i] ^= 0x01;
    EXPECT_FALSE(cookies.Verify(absl::WebSafeBase64Escape(bad)).ok()) << i;
  }
  // Rebinding to another hash without the secret fails.
  std::string rebound = raw;
  rebound.replace(16, 32, kSpkiB);
  EXPECT_FALSE(cookies.Verify(absl::WebSafeBase64Escape(rebound)).ok());
  EXPECT_FALSE(cookies.Verify(token.substr(0, token.size() - 1)).ok());
  EXPECT_FALSE(cookies.Verify(token + "AA").ok());
  EXPECT_FALSE(cookies.Verify("").ok());
  EXPECT_FALSE(cookies.Verify("not base64!").ok());
  // Another server (secret) does not accept it.
  ChannelBoundCookies other(std::string(32, 't'));
  EXPECT_FALSE(other.Verify(token).ok());
}

TEST(FindCookieTest, FindsTheNamedCookie) {
  EXPECT_EQ(FindCookie("a=1; obc_session=tok; b=2", "obc_session"), "tok");
  EXPECT_EQ(FindCookie("obc_session=first; obc_session=second", "obc_session"),
            "first");
  EXPECT_EQ(FindCookie(" obc_session = spaced ", "obc_session"), "spaced");
  EXPECT_EQ(FindCookie("xobc_session=1; obc_sessionx=2", "obc_session"),
            std::nullopt);
  EXPECT_EQ(FindCookie("", "obc_session"), std::nullopt);
  EXPECT_EQ(FindCookie("novalue; ;", "obc_session"), std::nullopt);
}

TEST(HexEncodeTest, LowerCase) {
  EXPECT_EQ(HexEncode(std::string("\x00\xab\xff", 3)), "00abff");
}

}  // namespace
}  // namespace net
