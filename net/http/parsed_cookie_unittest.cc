// ParsedCookie::Parse (RFC 6265 5.2) and ParseCookieDate (5.1.1).

#include "net/http/parsed_cookie.h"

#include <string>

#include "gtest/gtest.h"

namespace net {
namespace {

absl::Time Utc(int y, int mo, int d, int h, int mi, int s) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s),
                         absl::UTCTimeZone());
}

TEST(ParsedCookieTest, NameValueAndEveryAttribute) {
  auto c = ParsedCookie::Parse(
      "SID=31d4d96e407aad42; Path=/docs; Domain=.Example.COM; Secure; "
      "HttpOnly; Max-Age=3600; Expires=Wed, 21 Oct 2015 07:28:00 GMT; "
      "SameSite=Lax");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->name, "SID");
  EXPECT_EQ(c->value, "31d4d96e407aad42");
  EXPECT_EQ(c->path, "/docs");
  EXPECT_EQ(c->domain, "example.com");
  EXPECT_TRUE(c->secure);
  EXPECT_TRUE(c->http_only);
  EXPECT_EQ(c->max_age_seconds, 3600);
  EXPECT_EQ(c->expires, Utc(2015, 10, 21, 7, 28, 0));
}

TEST(ParsedCookieTest, MinimalCookieHasNoAttributes) {
  auto c = ParsedCookie::Parse("a=b");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "a");
  EXPECT_EQ(c->value, "b");
  EXPECT_FALSE(c->domain.has_value());
  EXPECT_FALSE(c->path.has_value());
  EXPECT_FALSE(c->secure);
  EXPECT_FALSE(c->http_only);
  EXPECT_FALSE(c->max_age_seconds.has_value());
  EXPECT_FALSE(c->expires.has_value());
}

TEST(ParsedCookieTest, TrimsWhitespaceAndKeepsQuotesAndEquals) {
  auto c = ParsedCookie::Parse(" \tname \t=  \"a=b c\"  ;  secure ");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "name");
  EXPECT_EQ(c->value, "\"a=b c\"");
  EXPECT_TRUE(c->secure);
  c = ParsedCookie::Parse("token=abc==");  // base64 padding
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->value, "abc==");
  c = ParsedCookie::Parse("empty=");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->value, "");
}

TEST(ParsedCookieTest, RejectsWhatTheAlgorithmIgnores) {
  for (const char* bad :
       {"", "novalue", "noequals; Path=/", "=value", " =value", ";a=b"}) {
    auto c = ParsedCookie::Parse(bad);
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  for (std::string bad :
       {std::string("a=b\0c", 5), std::string("a=b\rc"),
        std::string("a=b\nSet-Cookie: x=y"), std::string("a=b\x7f"),
        std::string("a=b; Path=/\x01")}) {
    auto c = ParsedCookie::Parse(bad);
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find("control character"),
              absl::string_view::npos);
  }
  EXPECT_TRUE(ParsedCookie::Parse("a=b\tc").ok());  // Tab is allowed.
}

TEST(ParsedCookieTest, SizeLimits) {
  std::string name(10, 'n');
  std::string value(ParsedCookie::kMaxNameValueBytes - name.size(), 'v');
  EXPECT_TRUE(ParsedCookie::Parse(name + "=" + value).ok());
  EXPECT_EQ(ParsedCookie::Parse(name + "=" + value + "v").status().code(),
            absl::StatusCode::kInvalidArgument);
  // An oversized attribute value is ignored, not the cookie.
  std::string long_path =
      "/" + std::string(ParsedCookie::kMaxAttributeValueBytes, 'p');
  auto c = ParsedCookie::Parse("a=b; Path=/short; Path=" + long_path);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->path, "/short");
}

TEST(ParsedCookieTest, MaxAge) {
  auto max_age = [](const std::string& v) {
    return ParsedCookie::Parse("a=b; Max-Age=" + v)->max_age_seconds;
  };
  EXPECT_EQ(max_age("100"), 100);
  EXPECT_EQ(max_age("0"), 0);
  EXPECT_EQ(max_age("-5"), -5);
  EXPECT_EQ(max_age(""), std::nullopt);
  EXPECT_EQ(max_age("abc"), std::nullopt);
  EXPECT_EQ(max_age("1a"), std::nullopt);
  EXPECT_EQ(max_age("+1"), std::nullopt);
  EXPECT_EQ(max_age("-"), std::nullopt);
  // Saturates instead of overflowing.
  EXPECT_EQ(max_age("99999999999999999999999999"), int64_t{1} << 40);
  EXPECT_EQ(max_age("-99999999999999999999999999"), -(int64_t{1} << 40));
  // The last valid one wins; an invalid one leaves the earlier value.
  EXPECT_EQ(ParsedCookie::Parse("a=b; max-age=1; MAX-AGE=2")->max_age_seconds,
            2);
  EXPECT_EQ(ParsedCookie::Parse("a=b; max-age=1; max-age=x")->max_age_seconds,
            1);
}

TEST(ParsedCookieTest, DomainAndPathAttributes) {
  EXPECT_EQ(ParsedCookie::Parse("a=b; Domain=..x.test")->domain, ".x.test");
  EXPECT_EQ(ParsedCookie::Parse("a=b; Domain=")->domain, std::nullopt);
  EXPECT_EQ(ParsedCookie::Parse("a=b; Domain=.")->domain, std::nullopt);
  EXPECT_EQ(ParsedCookie::Parse("a=b; domain=a.test; DOMAIN=B.test")->domain,
            "b.test");
  EXPECT_EQ(ParsedCookie::Parse("a=b; Path=/x/y")->path, "/x/y");
  EXPECT_EQ(ParsedCookie::Parse("a=b; Path=relative")->path, std::nullopt);
  EXPECT_EQ(ParsedCookie::Parse("a=b; Path=")->path, std::nullopt);
  // A later invalid Path resets to the default path.
  EXPECT_EQ(ParsedCookie::Parse("a=b; Path=/x; Path=y")->path, std::nullopt);
}

TEST(ParsedCookieTest, FlagsAndUnknownAttributes) {
  auto c =
      ParsedCookie::Parse("a=b;;  ;SECURE=no; httpONLY; Priority=High; =x");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->secure);
  EXPECT_TRUE(c->http_only);
  EXPECT_FALSE(c->path.has_value());
}

TEST(ParsedCookieTest, EveryPrefixIsHandled) {
  const std::string full =
      "n=v; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=5; Domain=x.test; "
      "Path=/p; Secure; HttpOnly";
  for (size_t i = 0; i <= full.size(); ++i) {
    auto c = ParsedCookie::Parse(absl::string_view(full).substr(0, i));
    EXPECT_EQ(c.ok(), i >= 2) << i;  // "n=" is the shortest valid prefix.
  }
}

TEST(CookieDateTest, CommonFormats) {
  EXPECT_EQ(*ParseCookieDate("Wed, 21 Oct 2015 07:28:00 GMT"),
            Utc(2015, 10, 21, 7, 28, 0));
  // RFC 850 with a two-digit year, and asctime.
  EXPECT_EQ(*ParseCookieDate("Sunday, 06-Nov-94 08:49:37 GMT"),
            Utc(1994, 11, 6, 8, 49, 37));
  EXPECT_EQ(*ParseCookieDate("Sun Nov  6 08:49:37 1994"),
            Utc(1994, 11, 6, 8, 49, 37));
  EXPECT_EQ(*ParseCookieDate("Thu, 01-Jan-1970 00:00:01 GMT"),
            Utc(1970, 1, 1, 0, 0, 1));
  // Month names are matched by their first three letters, any case.
  EXPECT_EQ(*ParseCookieDate("1 OCTOBER 2030 1:2:3"),
            Utc(2030, 10, 1, 1, 2, 3));
  EXPECT_EQ(*ParseCookieDate("29 Feb 2024 00:00:00"),
            Utc(2024, 2, 29, 0, 0, 0));
}

TEST(CookieDateTest, TwoDigitYears) {
  EXPECT_EQ(*ParseCookieDate("1 Jan 69 00:00:00"), Utc(2069, 1, 1, 0, 0, 0));
  EXPECT_EQ(*ParseCookieDate("1 Jan 70 00:00:00"), Utc(1970, 1, 1, 0, 0, 0));
  EXPECT_EQ(*ParseCookieDate("1 Jan 99 00:00:00"), Utc(1999, 1, 1, 0, 0, 0));
}

TEST(CookieDateTest, Rejects) {
  for (const char* bad : {
           "",
           "Wed, 21 Oct 2015",           // no time
           "Wed, Oct 2015 07:28:00",     // no day (four digits are a year)
           "Wed, 21 2015 07:28:00 GMT",  // no month
           "Wed, 21 Oct 07:28:00 GMT",   // no year
           "30 Feb 2015 00:00:00",       // no such day
           "31 Apr 2015 00:00:00", "29 Feb 2023 00:00:00",
           "0 Jan 2015 00:00:00", "32 Jan 2015 00:00:00", "1 Jan 1600 00:00:00",
           "1 Jan 2015 24:00:00", "1 Jan 2015 23:60:00", "1 Jan 2015 23:59:60",
           "1 Jan 2015 123:00:00",  // three-digit hour
           "1 Jan 12345 00:00:00",  // five-digit year
       }) {
    EXPECT_FALSE(ParseCookieDate(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace net
