#include "tools/fetch/cookie_file.h"

#include "gtest/gtest.h"
#include "net/base/url.h"

namespace net {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

TEST(CookieFileTest, ReadsWhatCurlWritesAndWritesItBack) {
  const std::string file =
      "# Netscape HTTP Cookie File\n"
      "\n"
      "www.example.test\tFALSE\t/\tFALSE\t0\tsession\tone\n"
      ".example.test\tTRUE\t/app\tTRUE\t1802592000\tdomain\ttwo\n"
      "#HttpOnly_www.example.test\tFALSE\t/"
      "\tFALSE\t1802592000\thidden\tthree\r\n"
      "www.example.test\tFALSE\t/\tFALSE\t1700000000\texpired\tfour\n";
  CookieJar jar;
  std::vector<std::string> refused;
  auto stored = ReadNetscapeCookies(file, &jar, kNow, &refused);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(*stored, 3);
  EXPECT_TRUE(refused.empty());
  EXPECT_EQ(jar.CookieHeaderFor(*Url::Parse("http://www.example.test/"), kNow),
            "hidden=three; session=one");
  EXPECT_EQ(
      jar.CookieHeaderFor(*Url::Parse("https://a.example.test/app/x"), kNow),
      "domain=two");
  const std::string written = WriteNetscapeCookies(jar, kNow);
  EXPECT_NE(
      written.find("www.example.test\tFALSE\t/\tFALSE\t0\tsession\tone\n"),
      std::string::npos)
      << written;
  EXPECT_NE(written.find(
                ".example.test\tTRUE\t/app\tTRUE\t1802592000\tdomain\ttwo\n"),
            std::string::npos)
      << written;
  EXPECT_NE(written.find("#HttpOnly_www.example.test\tFALSE\t/\tFALSE\t"
                         "1802592000\thidden\tthree\n"),
            std::string::npos)
      << written;
  EXPECT_EQ(written.find("expired"), std::string::npos);
  // The written file reads back to the same jar.
  CookieJar again;
  ASSERT_TRUE(ReadNetscapeCookies(written, &again, kNow, nullptr).ok());
  EXPECT_EQ(WriteNetscapeCookies(again, kNow), written);
}

TEST(CookieFileTest, MalformedLinesAreNamed) {
  CookieJar jar;
  for (const char* bad : {"a.test\tFALSE\t/\tFALSE\t0\tname\n",  // six fields
                          "a.test\tMAYBE\t/\tFALSE\t0\tn\tv\n",  // flag
                          "a.test\tFALSE\tnoslash\tFALSE\t0\tn\tv\n",  // path
                          "a.test\tFALSE\t/\tFALSE\t-5\tn\tv\n",       // expiry
                          "a.test\tFALSE\t/\tFALSE\t0\tn;x\tv\n",      // name
                          "\tFALSE\t/\tFALSE\t0\tn\tv\n"}) {           // domain
    auto r = ReadNetscapeCookies(bad, &jar, kNow, nullptr);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("line 1"), std::string::npos);
  }
  EXPECT_EQ(jar.size(), 0u);
}

TEST(CookieFileTest, APublicSuffixDomainMakesNoSupercookie) {
  // The jar's own rule, as for a server's Domain=com: at most a cookie of
  // the host "com" itself, never one every .com site gets.
  CookieJar jar;
  std::vector<std::string> refused;
  auto r = ReadNetscapeCookies(".com\tTRUE\t/\tFALSE\t0\tn\tv\n", &jar, kNow,
                               &refused);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(jar.CookieHeaderFor(*Url::Parse("http://example.com/"), kNow), "");
}

}  // namespace
}  // namespace net
