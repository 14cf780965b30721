#include "net/device_bound_sessions/session.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace net {
namespace {

using ::testing::HasSubstr;

Url U(absl::string_view s) { return *Url::Parse(s); }

// A session registered at https://www.example.test/dbsc/register, refreshed
// at /dbsc/refresh, origin-scoped, with one bound cookie.
std::unique_ptr<Session> MakeSession() {
  auto s = std::make_unique<Session>();
  s->id = "s1";
  s->site = "example.test";
  s->refresh_url = U("https://www.example.test/dbsc/refresh");
  s->scope.origin = U("https://www.example.test/").GetOrigin();
  absl::StatusOr<SessionCredential> c =
      MakeSessionCredential("auth", "Path=/; Secure; HttpOnly",
                            U("https://www.example.test/dbsc/register"));
  EXPECT_TRUE(c.ok()) << c.status();
  s->credentials.push_back(*c);
  return s;
}

CanonicalCookie CookieLike(const SessionCredential& c) {
  CanonicalCookie cookie;
  cookie.name = c.name;
  cookie.value = "v";
  cookie.domain = c.domain;
  cookie.host_only = c.host_only;
  cookie.path = c.path;
  cookie.secure = c.secure;
  cookie.http_only = c.http_only;
  return cookie;
}

TEST(SessionTest, SiteAndPatterns) {
  EXPECT_EQ(SiteOf("www.example.test"), "example.test");
  EXPECT_EQ(SiteOf("a.b.example.co.uk"), "example.co.uk");
  EXPECT_EQ(SiteOf("127.0.0.1"), "127.0.0.1");
  EXPECT_TRUE(IsSameSite(U("https://a.example.test/").GetOrigin(),
                         U("https://b.example.test:8443/").GetOrigin()));
  EXPECT_FALSE(IsSameSite(U("https://a.example.test/").GetOrigin(),
                          U("http://a.example.test/").GetOrigin()));
  EXPECT_FALSE(IsSameSite(U("https://a.example.test/").GetOrigin(),
                          U("https://a.other.test/").GetOrigin()));
  // The draft's examples.
  EXPECT_TRUE(HostMatchesPattern("example.com", "*"));
  EXPECT_TRUE(HostMatchesPattern("example.com", "example.com"));
  EXPECT_FALSE(HostMatchesPattern("example.com", "*.example.com"));
  EXPECT_TRUE(HostMatchesPattern("subdomain.example.com", "*.example.com"));
  EXPECT_FALSE(HostMatchesPattern("subdomain.example.com", "*example.com"));
  EXPECT_FALSE(HostMatchesPattern("badexample.com", "*.example.com"));
  EXPECT_FALSE(HostMatchesPattern("10.0.0.1", "*.0.0.1"));
  EXPECT_TRUE(HostMatchesPattern("10.0.0.1", "10.0.0.1"));
}

TEST(SessionTest, ScopeFollowsTheDraftsRules) {
  std::unique_ptr<Session> s = MakeSession();
  EXPECT_TRUE(s->IncludesUrl(U("https://www.example.test/")));
  EXPECT_TRUE(s->IncludesUrl(U("https://www.example.test/dbsc/protected?x")));
  // Another origin of the site, another scheme, another port: not in an
  // origin-scoped session.
  EXPECT_FALSE(s->IncludesUrl(U("https://api.example.test/")));
  EXPECT_FALSE(s->IncludesUrl(U("http://www.example.test/")));
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test:8443/")));
  // Never the refresh URL (its query ignored).
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/dbsc/refresh")));
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/dbsc/refresh?a")));
  EXPECT_TRUE(s->IncludesUrl(U("https://www.example.test/dbsc/refreshx")));

  // Rules are read from last to first; the first that matches decides.
  s->scope.rules = {{true, "www.example.test", "/static/keep"},
                    {false, "*", "/static/"}};
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/static/a.css")));
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/static/keep")));
  s->scope.rules = {{false, "*", "/static/"},
                    {true, "www.example.test", "/static/keep"}};
  EXPECT_TRUE(s->IncludesUrl(U("https://www.example.test/static/keep")));
  EXPECT_TRUE(s->IncludesUrl(U("https://www.example.test/static/keep/x")));
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/static/keepx")));
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/static/b")));
  // A path pattern without a trailing '/' covers the path and below.
  s->scope.rules = {{false, "*", "/login"}};
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/login")));
  EXPECT_FALSE(s->IncludesUrl(U("https://www.example.test/login/x")));
  EXPECT_TRUE(s->IncludesUrl(U("https://www.example.test/loginx")));

  // A site-scoped session covers the site's origins (same scheme).
  s->scope.rules.clear();
  s->scope.include_site = true;
  s->scope.origin = U("https://example.test/").GetOrigin();
  EXPECT_TRUE(s->IncludesUrl(U("https://api.example.test/")));
  EXPECT_FALSE(s->IncludesUrl(U("http://api.example.test/")));
  EXPECT_FALSE(s->IncludesUrl(U("https://example.org/")));
}

TEST(SessionTest, RefreshInitiators) {
  std::unique_ptr<Session> s = MakeSession();
  EXPECT_TRUE(s->AllowsRefreshFrom(U("https://www.example.test/").GetOrigin()));
  EXPECT_FALSE(s->AllowsRefreshFrom(U("https://evil.test/").GetOrigin()));
  EXPECT_FALSE(
      s->AllowsRefreshFrom(U("https://api.example.test/").GetOrigin()));
  s->allowed_refresh_initiators = {"*.example.test"};
  EXPECT_TRUE(s->AllowsRefreshFrom(U("https://api.example.test/").GetOrigin()));
  s->scope.include_site = true;
  EXPECT_TRUE(s->AllowsRefreshFrom(U("https://x.example.test/").GetOrigin()));
}

TEST(SessionTest, MissingCredential) {
  std::unique_ptr<Session> s = MakeSession();
  const SessionCredential& c = s->credentials[0];
  EXPECT_EQ(c.domain, "www.example.test");
  EXPECT_TRUE(c.host_only);
  EXPECT_EQ(c.path, "/");
  EXPECT_TRUE(c.secure);
  EXPECT_TRUE(c.http_only);
  const Url url = U("https://www.example.test/dbsc/protected");
  EXPECT_EQ(s->MissingCredential(url, {}), "auth");
  EXPECT_EQ(s->MissingCredential(url, {CookieLike(c)}), std::nullopt);
  // A cookie of that name with other attributes is not the bound cookie.
  CanonicalCookie not_secure = CookieLike(c);
  not_secure.secure = false;
  EXPECT_EQ(s->MissingCredential(url, {not_secure}), "auth");
  CanonicalCookie other_name = CookieLike(c);
  other_name.name = "authx";
  EXPECT_EQ(s->MissingCredential(url, {other_name}), "auth");
  // A request the cookie would not go to (plain http: Secure) misses
  // nothing.
  EXPECT_EQ(s->MissingCredential(U("http://www.example.test/"), {}),
            std::nullopt);
}

TEST(SessionTest, CredentialsFollowTheCookieStorageModel) {
  const Url from = U("https://www.example.test/dbsc/register");
  absl::StatusOr<SessionCredential> c =
      MakeSessionCredential("a", "Domain=example.test; Path=/app", from);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->domain, "example.test");
  EXPECT_FALSE(c->host_only);
  EXPECT_EQ(c->path, "/app");
  EXPECT_TRUE(c->WouldBeSentTo(U("http://api.example.test/app/x")));
  EXPECT_FALSE(c->WouldBeSentTo(U("http://api.example.test/other")));
  // No Path: the default path of the URL that configured it.
  EXPECT_EQ(MakeSessionCredential("a", "", from)->path, "/dbsc");
  // Max-Age and Expires do not count, even an expiring one.
  EXPECT_TRUE(MakeSessionCredential("a", "Max-Age=0; Path=/", from).ok());
  // What the response could not set.
  EXPECT_EQ(
      MakeSessionCredential("a", "Domain=other.test", from).status().code(),
      absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(MakeSessionCredential("a", "Secure",
                                     U("http://www.example.test/dbsc/register"))
                   .ok());
  EXPECT_FALSE(MakeSessionCredential("a", "Domain=test", from).ok());
  EXPECT_FALSE(MakeSessionCredential("a=b", "", from).ok());
  absl::StatusOr<SessionCredential> partitioned =
      MakeSessionCredential("a", "Secure; Partitioned", from);
  EXPECT_EQ(partitioned.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(partitioned.status().message(), HasSubstr("Partitioned"));
}

}  // namespace
}  // namespace net
