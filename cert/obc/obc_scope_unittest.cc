// ObcScope: the table of origin -> scope in both modes, and storage
// round trips.

#include "cert/obc/obc_scope.h"

#include "gtest/gtest.h"

namespace net {
namespace {

struct ScopeCase {
  const char* input;
  const char* origin_scope;  // ToString() in origin mode
  const char* etld_scope;    // ToString() in eTLD+1 mode
};

class ScopeTableTest : public testing::TestWithParam<ScopeCase> {};

TEST_P(ScopeTableTest, BothModes) {
  const ScopeCase& c = GetParam();
  absl::StatusOr<ObcScope> origin =
      ObcScope::ForInput(c.input, ScopeMode::kOrigin);
  ASSERT_TRUE(origin.ok()) << origin.status();
  EXPECT_EQ(origin->ToString(), c.origin_scope);
  absl::StatusOr<ObcScope> etld =
      ObcScope::ForInput(c.input, ScopeMode::kRegistrableDomain);
  ASSERT_TRUE(etld.ok()) << etld.status();
  EXPECT_EQ(etld->ToString(), c.etld_scope);
  // Whatever the mode, the scope survives storage.
  for (const ObcScope& scope : {*origin, *etld}) {
    absl::StatusOr<ObcScope> back =
        ObcScope::FromStorage(scope.mode(), scope.key());
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, scope);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ScopeTableTest,
    testing::Values(
        // .test is not on the list: the implicit "*" rule makes it a public
        // suffix, so subdomains share their eTLD+1 ...
        ScopeCase{"https://foo.example.test/",
                  "origin:https://foo.example.test:443", "etld:example.test"},
        ScopeCase{"https://bar.example.test/x?y",
                  "origin:https://bar.example.test:443", "etld:example.test"},
        ScopeCase{"https://a.b.c.example.test:8443",
                  "origin:https://a.b.c.example.test:8443",
                  "etld:example.test"},
        ScopeCase{"https://example.test", "origin:https://example.test:443",
                  "etld:example.test"},
        // ... and scheme and port do not matter for eTLD+1, as with cookies.
        ScopeCase{"http://www.example.test:8080",
                  "origin:http://www.example.test:8080", "etld:example.test"},
        // ... but a different registrable domain is a different scope.
        ScopeCase{"https://example2.test", "origin:https://example2.test:443",
                  "etld:example2.test"},
        ScopeCase{"https://www.example2.test",
                  "origin:https://www.example2.test:443", "etld:example2.test"},
        // Private registries are public suffixes.
        ScopeCase{"https://foo.github.io", "origin:https://foo.github.io:443",
                  "etld:foo.github.io"},
        ScopeCase{"https://bar.github.io", "origin:https://bar.github.io:443",
                  "etld:bar.github.io"},
        ScopeCase{"https://x.foo.github.io",
                  "origin:https://x.foo.github.io:443", "etld:foo.github.io"},
        ScopeCase{"https://github.io", "origin:https://github.io:443",
                  "etld:github.io"},
        ScopeCase{"https://a.b.blogspot.com",
                  "origin:https://a.b.blogspot.com:443", "etld:b.blogspot.com"},
        // Multi-label ICANN suffixes.
        ScopeCase{"https://www.example.co.uk",
                  "origin:https://www.example.co.uk:443", "etld:example.co.uk"},
        ScopeCase{"https://www.example.com",
                  "origin:https://www.example.com:443", "etld:example.com"},
        // Hosts that are public suffixes are their own scope.
        ScopeCase{"https://localhost:8443", "origin:https://localhost:8443",
                  "etld:localhost"},
        ScopeCase{"https://foo.localhost", "origin:https://foo.localhost:443",
                  "etld:foo.localhost"},
        // Upper case input is canonicalised.
        ScopeCase{"HTTPS://WWW.Example.TEST",
                  "origin:https://www.example.test:443", "etld:example.test"},
        // Bare host[:port] means https.
        ScopeCase{"shop.example.test:444",
                  "origin:https://shop.example.test:444", "etld:example.test"},
        // IP literals never get an eTLD+1 scope (libpsl would say "0.1").
        ScopeCase{"https://127.0.0.1", "origin:https://127.0.0.1:443",
                  "origin:https://127.0.0.1:443"},
        ScopeCase{"https://127.0.0.2:8443", "origin:https://127.0.0.2:8443",
                  "origin:https://127.0.0.2:8443"},
        ScopeCase{"https://[::1]:8443", "origin:https://[::1]:8443",
                  "origin:https://[::1]:8443"},
        ScopeCase{"https://[2001:db8::1]", "origin:https://[2001:db8::1]:443",
                  "origin:https://[2001:db8::1]:443"},
        // Numeric last labels are IPv4 in another spelling, not names: the
        // URL parser (WHATWG) writes the address canonically, so both
        // spellings share one scope. A name whose last label is a number
        // but is no address ("foo.0x7f") is refused, below.
        ScopeCase{"https://10.1", "origin:https://10.0.0.1:443",
                  "origin:https://10.0.0.1:443"},
        ScopeCase{"https://0x7f.1", "origin:https://127.0.0.1:443",
                  "origin:https://127.0.0.1:443"}));

TEST(ObcScopeTest, OriginsAreDistinguishedBySchemeHostAndPort) {
  auto scope = [](const char* url) {
    return ObcScope::ForInput(url, ScopeMode::kOrigin).value();
  };
  EXPECT_NE(scope("https://a.example.test"), scope("http://a.example.test"));
  EXPECT_NE(scope("https://a.example.test"),
            scope("https://a.example.test:444"));
  EXPECT_NE(scope("https://a.example.test"), scope("https://b.example.test"));
  EXPECT_EQ(scope("https://a.example.test"),
            scope("https://a.example.test:443/path"));
}

TEST(ObcScopeTest, ModesNeverCollide) {
  // "etld:example.test" and "origin:..." keys cannot be equal even for the
  // same text.
  ObcScope etld =
      ObcScope::FromStorage(ScopeMode::kRegistrableDomain, "example.test")
          .value();
  ObcScope origin =
      ObcScope::ForInput("https://example.test", ScopeMode::kOrigin).value();
  EXPECT_NE(etld, origin);
  EXPECT_NE(etld.ToString(), origin.ToString());
}

TEST(ObcScopeTest, TrailingDotIsItsOwnOriginButTheSameSite) {
  ObcScope dotted =
      ObcScope::ForInput("https://www.example.test.", ScopeMode::kOrigin)
          .value();
  EXPECT_EQ(dotted.key(), "https://www.example.test.:443");
  EXPECT_EQ(ObcScope::ForInput("https://www.example.test.",
                               ScopeMode::kRegistrableDomain)
                .value()
                .ToString(),
            "etld:example.test");
}

TEST(ObcScopeTest, RejectsMalformedHosts) {
  for (const char* bad :
       {"https://a..example.test", "https://.example.test", "https://.",
        "ftp://example.test", "https://exa mple.test", "https://:443",
        "https://foo.0x7f"}) {
    for (ScopeMode mode : {ScopeMode::kOrigin, ScopeMode::kRegistrableDomain}) {
      EXPECT_FALSE(ObcScope::ForInput(bad, mode).ok()) << bad;
    }
  }
  EXPECT_FALSE(ObcScope::ForOrigin(Origin("https", "example.test", 0),
                                   ScopeMode::kOrigin)
                   .ok());
  EXPECT_FALSE(ObcScope::ForOrigin(Origin("https", "Example.test", 443),
                                   ScopeMode::kOrigin)
                   .ok());
  EXPECT_FALSE(
      ObcScope::ForOrigin(Origin("", "example.test", 443), ScopeMode::kOrigin)
          .ok());
}

TEST(ObcScopeTest, FromStorageRejectsNonCanonicalKeys) {
  EXPECT_FALSE(
      ObcScope::FromStorage(ScopeMode::kOrigin, "https://example.test").ok());
  EXPECT_FALSE(
      ObcScope::FromStorage(ScopeMode::kOrigin, "https://EXAMPLE.test:443")
          .ok());
  EXPECT_FALSE(
      ObcScope::FromStorage(ScopeMode::kOrigin, "https://example.test:443/")
          .ok());
  EXPECT_FALSE(ObcScope::FromStorage(ScopeMode::kRegistrableDomain, "").ok());
  EXPECT_FALSE(
      ObcScope::FromStorage(ScopeMode::kRegistrableDomain, "127.0.0.1").ok());
  EXPECT_FALSE(
      ObcScope::FromStorage(ScopeMode::kRegistrableDomain, "Example.test")
          .ok());
  EXPECT_TRUE(
      ObcScope::FromStorage(ScopeMode::kOrigin, "https://[::1]:443").ok());
}

TEST(ObcScopeTest, RegistrableDomain) {
  EXPECT_EQ(RegistrableDomain("foo.example.test"), "example.test");
  EXPECT_EQ(RegistrableDomain("foo.example.test."), "example.test");
  EXPECT_EQ(RegistrableDomain("test"), std::nullopt);
  EXPECT_EQ(RegistrableDomain("github.io"), std::nullopt);
  EXPECT_EQ(RegistrableDomain("127.0.0.1"), std::nullopt);
  EXPECT_EQ(RegistrableDomain("::1"), std::nullopt);
  EXPECT_FALSE(PublicSuffixListInfo().empty());
}

}  // namespace
}  // namespace net
