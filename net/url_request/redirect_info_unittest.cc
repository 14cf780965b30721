// RedirectInfo: RFC 9110 15.4's method rules for each status and method,
// the headers that go with a method change or an origin change, and
// Location resolution (relative, unsafe schemes, not a URL).

#include "net/url_request/redirect_info.h"

#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

struct MethodCase {
  int status;
  const char* method;
  const char* new_method;
};

TEST(RedirectInfoTest, MethodRules) {
  const MethodCase cases[] = {
      {301, "POST", "GET"},  {302, "POST", "GET"},    {303, "POST", "GET"},
      {303, "PUT", "GET"},   {303, "DELETE", "GET"},  {303, "GET", "GET"},
      {303, "HEAD", "HEAD"}, {301, "PUT", "PUT"},     {302, "DELETE", "DELETE"},
      {301, "HEAD", "HEAD"}, {307, "POST", "POST"},   {308, "POST", "POST"},
      {307, "PUT", "PUT"},   {308, "PATCH", "PATCH"},
  };
  const Url from = *Url::Parse("https://a.test/x");
  const Url to = *Url::Parse("https://a.test/y");
  for (const MethodCase& c : cases) {
    RedirectInfo info = RedirectInfo::Compute(from, c.method, c.status, to);
    EXPECT_EQ(info.new_method, c.new_method) << c.status << " " << c.method;
    EXPECT_EQ(info.method_changed, std::string(c.method) != c.new_method);
    EXPECT_EQ(info.status_code, c.status);
    EXPECT_EQ(info.new_url.spec(), to.spec());
    EXPECT_FALSE(info.cross_origin);
  }
}

TEST(RedirectInfoTest, MethodChangeDropsTheBodyAndItsHeaders) {
  RedirectInfo info =
      RedirectInfo::Compute(*Url::Parse("http://a.test/"), "POST", 303,
                            *Url::Parse("http://a.test/done"));
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "text/plain"}, {"X-Keep", "1"},
      {"content-encoding", "gzip"},   {"Content-Language", "en"},
      {"Content-Location", "/x"},     {"Authorization", "Basic eA=="}};
  std::string body = "a=1";
  info.UpdateRequest(&headers, &body);
  EXPECT_EQ(body, "");
  // Same origin: the credentials stay.
  EXPECT_EQ(headers, (std::vector<std::pair<std::string, std::string>>{
                         {"X-Keep", "1"}, {"Authorization", "Basic eA=="}}));
}

TEST(RedirectInfoTest, KeptMethodKeepsTheBody) {
  RedirectInfo info =
      RedirectInfo::Compute(*Url::Parse("http://a.test/"), "POST", 307,
                            *Url::Parse("http://a.test/b"));
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Content-Type", "text/plain"}};
  std::string body = "a=1";
  info.UpdateRequest(&headers, &body);
  EXPECT_EQ(body, "a=1");
  EXPECT_EQ(headers.size(), 1u);
}

TEST(RedirectInfoTest, AnotherOriginLosesCredentials) {
  for (const char* to :
       {"http://b.test/", "https://a.test/", "http://a.test:8080/"}) {
    RedirectInfo info = RedirectInfo::Compute(*Url::Parse("http://a.test/"),
                                              "GET", 302, *Url::Parse(to));
    EXPECT_TRUE(info.cross_origin) << to;
    std::vector<std::pair<std::string, std::string>> headers = {
        {"authorization", "Bearer t"}, {"Cookie", "mine=1"}, {"X-A", "1"}};
    std::string body;
    info.UpdateRequest(&headers, &body);
    EXPECT_EQ(headers,
              (std::vector<std::pair<std::string, std::string>>{{"X-A", "1"}}))
        << to;
  }
}

TEST(RedirectInfoTest, ResolvesLocation) {
  const Url base = *Url::Parse("https://a.test/dir/page?q=1");
  Url out;
  std::string detail;
  EXPECT_EQ(OK, ResolveRedirectLocation(base, "other", &out, &detail));
  EXPECT_EQ(out.spec(), "https://a.test/dir/other");
  EXPECT_EQ(OK, ResolveRedirectLocation(base, "/root", &out, &detail));
  EXPECT_EQ(out.spec(), "https://a.test/root");
  EXPECT_EQ(OK, ResolveRedirectLocation(base, "//b.test/x", &out, &detail));
  EXPECT_EQ(out.spec(), "https://b.test/x");
  EXPECT_EQ(OK, ResolveRedirectLocation(base, "HTTP://c.test/", &out, &detail));
  EXPECT_EQ(out.host(), "c.test");
}

TEST(RedirectInfoTest, RefusesOtherSchemesAndNonUrls) {
  const Url base = *Url::Parse("https://a.test/");
  for (const char* location :
       {"ftp://a.test/file", "javascript:alert(1)", "data:text/html,x",
        "file:///etc/passwd", " mailto:x@a.test"}) {
    Url out;
    std::string detail;
    EXPECT_EQ(ERR_UNSAFE_REDIRECT,
              ResolveRedirectLocation(base, location, &out, &detail))
        << location;
    EXPECT_FALSE(detail.empty());
  }
  Url out;
  std::string detail;
  EXPECT_EQ(ERR_INVALID_REDIRECT,
            ResolveRedirectLocation(base, "http://", &out, &detail));
  EXPECT_FALSE(detail.empty());
}

TEST(RedirectInfoTest, RedirectStatuses) {
  for (int status : {301, 302, 303, 307, 308})
    EXPECT_TRUE(IsRedirectStatus(status));
  for (int status : {200, 300, 304, 305, 306, 309, 400})
    EXPECT_FALSE(IsRedirectStatus(status));
}

}  // namespace
}  // namespace net
