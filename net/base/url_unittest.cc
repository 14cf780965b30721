#include "net/base/url.h"

#include <string>

#include "gtest/gtest.h"

namespace net {
namespace {

// SpecOf returns the spec of |text| parsed, or "error: <message>".
std::string SpecOf(absl::string_view text) {
  absl::StatusOr<Url> url = Url::Parse(text);
  if (!url.ok()) return "error: " + std::string(url.status().message());
  return url->spec();
}

// Lands returns where following `Location: |location|` from |base| lands, or
// "error: <message>".
std::string Lands(absl::string_view base, absl::string_view location) {
  absl::StatusOr<Url> from = Url::Parse(base);
  if (!from.ok()) return "bad base: " + std::string(from.status().message());
  absl::StatusOr<Url> to = from->Resolve(location);
  if (!to.ok()) return "error: " + std::string(to.status().message());
  return to->spec();
}

// ExpectRefused checks that |text| does not parse, with |reason| (a
// substring of the message) and the common "invalid URL" prefix.
void ExpectRefused(absl::string_view text, absl::string_view reason) {
  absl::StatusOr<Url> url = Url::Parse(text);
  ASSERT_FALSE(url.ok()) << text << " parsed as " << url->spec();
  EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument) << text;
  EXPECT_NE(url.status().message().find("invalid URL"), absl::string_view::npos)
      << url.status();
  EXPECT_NE(url.status().message().find(reason), absl::string_view::npos)
      << text << ": " << url.status() << " does not say " << reason;
}

TEST(UrlTest, ParsesHttpsWithDefaults) {
  auto url = Url::Parse("HTTPS://WWW.Example.test");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme(), "https");
  EXPECT_TRUE(url->SchemeIsCryptographic());
  EXPECT_EQ(url->host(), "www.example.test");
  EXPECT_EQ(url->port(), 443);
  EXPECT_FALSE(url->has_explicit_port());
  EXPECT_EQ(url->PathForRequest(), "/");
  EXPECT_EQ(url->HostHeader(), "www.example.test");
  EXPECT_EQ(url->spec(), "https://www.example.test/");
  EXPECT_EQ(url->GetOrigin().Serialize(), "https://www.example.test");
}

TEST(UrlTest, ParsesPortPathQueryAndDropsFragment) {
  auto url = Url::Parse("http://a.test:8080/x/y?q=1#frag");
  ASSERT_TRUE(url.ok());
  EXPECT_FALSE(url->SchemeIsCryptographic());
  EXPECT_EQ(url->port(), 8080);
  EXPECT_TRUE(url->has_explicit_port());
  EXPECT_EQ(url->PathForRequest(), "/x/y?q=1");
  EXPECT_EQ(url->HostHeader(), "a.test:8080");
  EXPECT_EQ(url->spec(), "http://a.test:8080/x/y?q=1");
  EXPECT_EQ(url->GetOrigin().HostPortKey(), "a.test:8080");
  EXPECT_EQ(url->GetOrigin().Serialize(), "http://a.test:8080");
}

TEST(UrlTest, DropsTheDefaultPort) {
  auto url = Url::Parse("http://a.test:80/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port(), 80);
  EXPECT_FALSE(url->has_explicit_port());
  EXPECT_EQ(url->spec(), "http://a.test/");
  EXPECT_EQ(url->HostHeader(), "a.test");
  EXPECT_EQ(SpecOf("https://a.test:0443/"), "https://a.test/");
  // 443 is not http's default.
  EXPECT_EQ(SpecOf("http://a.test:443/"), "http://a.test:443/");
}

TEST(UrlTest, KeepsAnEmptyQueryInTheRequestTarget) {
  // A browser sends "GET /p? HTTP/1.1" for this URL.
  auto url = Url::Parse("https://a.test/p?#f");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->PathForRequest(), "/p?");
  EXPECT_EQ(url->spec(), "https://a.test/p?");
}

TEST(UrlTest, ParsesIPv6LiteralsInCanonicalForm) {
  auto url = Url::Parse("https://[::1]:4433/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host(), "::1");
  EXPECT_EQ(url->HostHeader(), "[::1]:4433");
  EXPECT_EQ(url->GetOrigin().Serialize(), "https://[::1]:4433");

  auto long_form = Url::Parse("http://[2001:DB8:0:0:0:0:0:1]/");
  ASSERT_TRUE(long_form.ok());
  EXPECT_EQ(long_form->host(), "2001:db8::1");
  EXPECT_EQ(long_form->spec(), "http://[2001:db8::1]/");
  EXPECT_EQ(SpecOf("http://[::ffff:127.0.0.1]/"), "http://[::ffff:7f00:1]/");
  ExpectRefused("http://[::1::2]/", "not a valid URL");
}

TEST(UrlTest, ParsesIPv4NumberForms) {
  for (const char* text :
       {"http://127.0.0.1/", "http://0x7f.1/", "http://0177.0.0.1/",
        "http://2130706433/", "http://0x7F000001/", "http://127.1/"}) {
    auto url = Url::Parse(text);
    ASSERT_TRUE(url.ok()) << text << ": " << url.status();
    EXPECT_EQ(url->host(), "127.0.0.1") << text;
  }
  // A last part too large for the parts before it, and a host that ends in a
  // number without being an address.
  ExpectRefused("http://1.2.3.256/", "not a valid URL");
  ExpectRefused("http://a.test.1/", "not a valid URL");
}

TEST(UrlTest, MapsInternationalDomainNamesToPunycode) {
  auto url = Url::Parse(
      "https://B\xC3\x9C"
      "CHER.example/");  // "BÜCHER"
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host(), "xn--bcher-kva.example");
  // Full-width characters map to ASCII (UTS #46).
  EXPECT_EQ(SpecOf("http://\xEF\xBC\xA1.test/"), "http://a.test/");  // "Ａ"
}

TEST(UrlTest, PercentEncodesPathAndQueryAndDecodesNothing) {
  EXPECT_EQ(SpecOf("https://a.test/has space?q=a b\"<>"),
            "https://a.test/has%20space?q=a%20b%22%3C%3E");
  EXPECT_EQ(SpecOf("https://a.test/\xC3\xA9?\xC3\xA9"),
            "https://a.test/%C3%A9?%C3%A9");
  EXPECT_EQ(SpecOf("https://a.test/%41%zz"), "https://a.test/%41%zz");
  // A host is percent-decoded before it is checked.
  EXPECT_EQ(SpecOf("https://%61.test/"), "https://a.test/");
}

TEST(UrlTest, RemovesWhitespaceAndTreatsBackslashesAsSlashes) {
  EXPECT_EQ(SpecOf("  https://a.test/x\t/y\n  "), "https://a.test/x/y");
  EXPECT_EQ(SpecOf("https:\\\\a.test\\x\\y"), "https://a.test/x/y");
  EXPECT_EQ(SpecOf("https:a.test/x"), "https://a.test/x");
}

TEST(UrlTest, RemovesDotSegments) {
  EXPECT_EQ(SpecOf("https://a.test/a/./b/../c"), "https://a.test/a/c");
  EXPECT_EQ(SpecOf("https://a.test/a/b/%2e%2E/c"), "https://a.test/a/c");
  EXPECT_EQ(SpecOf("https://a.test/../../x"), "https://a.test/x");
  EXPECT_EQ(SpecOf("https://a.test/a/.."), "https://a.test/");
}

TEST(UrlTest, RejectsBadInputSayingWhy) {
  ExpectRefused("", "not a valid URL");
  ExpectRefused("www.example.test", "not a valid URL");
  ExpectRefused("https://", "not a valid URL");
  ExpectRefused("https://a.test:99999/", "not a valid URL");
  ExpectRefused("https://a.test:x/", "not a valid URL");
  ExpectRefused("https://a b.test/", "not a valid URL");
  ExpectRefused("https://[::1/", "not a valid URL");
  ExpectRefused("https://a.test%00/", "not a valid URL");
  ExpectRefused("ftp://a.test/", "unsupported scheme 'ftp'");
  ExpectRefused("wss://a.test/", "unsupported scheme 'wss'");
  ExpectRefused("file:///etc/passwd", "unsupported scheme 'file'");
  ExpectRefused("javascript:alert(1)", "unsupported scheme 'javascript'");
  ExpectRefused("https://user@a.test/", "userinfo");
  ExpectRefused("https://user:pw@a.test/", "userinfo");
  ExpectRefused("https://:pw@a.test/", "userinfo");
  ExpectRefused("https://a.test:0/", "port 0");
  // An empty userinfo is no userinfo: the canonical URL has none.
  EXPECT_EQ(SpecOf("https://:@a.test/"), "https://a.test/");
}

TEST(UrlTest, ErrorMessagesQuoteTheInputSafely) {
  absl::StatusOr<Url> url =
      Url::Parse(std::string("ftp://a\x01\n/") + std::string(1000, 'x'));
  ASSERT_FALSE(url.ok());
  std::string message(url.status().message());
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find("\\x01"), std::string::npos) << message;
  EXPECT_LT(message.size(), 400u) << message;
}

TEST(UrlTest, BoundsTheLength) {
  const std::string path(Url::kMaxLength - 20, 'a');
  EXPECT_TRUE(Url::Parse("https://a.test/" + path).ok());
  ExpectRefused("https://a.test/" + path + std::string(20, 'a'), "longer than");
  // Short enough as text, too long once its spaces are %20.
  ExpectRefused("https://a.test/" + std::string(Url::kMaxLength / 2, ' ') + "x",
                "once percent-encoded");
}

TEST(UrlTest, ResolvesReferences) {
  Url base = *Url::Parse("https://a.test/dir/page.html?x");
  EXPECT_EQ(base.Resolve("other.html")->spec(),
            "https://a.test/dir/other.html");
  EXPECT_EQ(base.Resolve("/root")->spec(), "https://a.test/root");
  EXPECT_EQ(base.Resolve("//b.test/p")->spec(), "https://b.test/p");
  EXPECT_EQ(base.Resolve("http://c.test:81/")->spec(), "http://c.test:81/");
}

// Where `Location: X` from https://a.example/dir/page?q=1 lands: where a
// browser lands (the WHATWG URL Standard's basic URL parser with the
// request's URL as base, as the Fetch Standard's redirect steps say).
TEST(UrlTest, LocationLandsWhereABrowserLands) {
  const char kBase[] = "https://a.example/dir/page?q=1";
  struct {
    const char* location;
    const char* lands;
  } cases[] = {
      // The four of issue 21: a query alone keeps the whole path; "../"
      // goes up from the directory; "//" keeps only the scheme; a backslash
      // is a slash in http(s).
      {"?page=2", "https://a.example/dir/page?page=2"},
      {"../x", "https://a.example/x"},
      {"//host/x", "https://host/x"},
      {"\\x", "https://a.example/x"},
      // And around them.
      {"x", "https://a.example/dir/x"},
      {"./x?y", "https://a.example/dir/x?y"},
      {"../../../../x", "https://a.example/x"},
      {"/x/../y/./z", "https://a.example/y/z"},
      {"", "https://a.example/dir/page?q=1"},
      {"#frag", "https://a.example/dir/page?q=1"},
      {"?", "https://a.example/dir/page?"},
      {"\\\\host\\x", "https://host/x"},
      {"//host:8443", "https://host:8443/"},
      {"https:x", "https://a.example/dir/x"},
      {"http:x", "http://x/"},
      {"HTTP://B.Example:80/p", "http://b.example/p"},
      {"  /x\t?a b\n ", "https://a.example/x?a%20b"},
      {"/caf\xC3\xA9", "https://a.example/caf%C3%A9"},
      {"//b\xC3\xBC"
       "cher.example/",
       "https://xn--bcher-kva.example/"},
      {"//0x7f.1/", "https://127.0.0.1/"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Lands(kBase, c.location), c.lands) << "Location: " << c.location;
  }
}

TEST(UrlTest, ResolveRefusesWhatParseRefuses) {
  Url base = *Url::Parse("https://a.example/dir/page?q=1");
  for (const auto& [reference, reason] :
       std::initializer_list<std::pair<const char*, const char*>>{
           {"ftp://a.example/", "unsupported scheme"},
           {"mailto:x@a.example", "unsupported scheme"},
           {"//user:pw@host/", "userinfo"},
           {"//host:0/", "port 0"},
           {"//a b/", "not a valid URL"},
           {"http://", "not a valid URL"},
       }) {
    absl::StatusOr<Url> url = base.Resolve(reference);
    ASSERT_FALSE(url.ok()) << reference << " -> " << url->spec();
    EXPECT_NE(url.status().message().find(reason), absl::string_view::npos)
        << url.status();
    EXPECT_NE(url.status().message().find("relative to "
                                          "'https://a.example/dir/page?q=1'"),
              absl::string_view::npos)
        << url.status();
  }
}

TEST(UrlTest, SpecIsAFixedPoint) {
  for (const char* text :
       {"HTTPS://A.test:0443/./a/../b?c d#e", "http://[0::1]:8080",
        "https://xn--bcher-kva.example/%7e?%zz", "http://0x7f.1/a\\b"}) {
    absl::StatusOr<Url> url = Url::Parse(text);
    ASSERT_TRUE(url.ok()) << text;
    absl::StatusOr<Url> again = Url::Parse(url->spec());
    ASSERT_TRUE(again.ok()) << url->spec();
    EXPECT_EQ(again->spec(), url->spec());
    EXPECT_EQ(again->GetOrigin(), url->GetOrigin());
    EXPECT_EQ(again->PathForRequest(), url->PathForRequest());
  }
}

}  // namespace
}  // namespace net

namespace net {
namespace {

// url_fuzzer's find: ada 2.9.2 left "/./" in this path and removed it when
// parsing its own href; Url parses until the href is a fixed point.
TEST(UrlTest, SpecIsAFixedPointWhereAdaIsNot) {
  const std::string input("http:Q//.:/./#Ytp\x04#Y\xff/#Y\xff/#Y", 28);
  absl::StatusOr<Url> url = Url::Parse(input);
  ASSERT_TRUE(url.ok()) << url.status();
  absl::StatusOr<Url> again = Url::Parse(url->spec());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->spec(), url->spec());
  absl::StatusOr<Url> resolved = url->Resolve(input.substr(14));
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  absl::StatusOr<Url> reparsed = Url::Parse(resolved->spec());
  ASSERT_TRUE(reparsed.ok());
  EXPECT_EQ(reparsed->spec(), resolved->spec());
  EXPECT_EQ(reparsed->PathForRequest(), resolved->PathForRequest());
}

}  // namespace
}  // namespace net
