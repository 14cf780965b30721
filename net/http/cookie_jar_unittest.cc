// CookieJar: the RFC 6265 storage model (domain, path, Secure, expiry,
// limits), the Cookie header, and the profile file (round trip, every kind
// of damage reported as DataLoss and left untouched).

#include "net/http/cookie_jar.h"

#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "net/base/file_util.h"
#include "net/http/cookie_jar.pb.h"

namespace net {
namespace {

namespace pb = ::netstack::net::http;

const absl::Time kNow = absl::FromUnixSeconds(1700000000);

Url U(absl::string_view spec) { return *Url::Parse(spec); }

class CookieJarTest : public ::testing::Test {
 protected:
  void Set(absl::string_view url, absl::string_view line,
           absl::Time now = kNow) {
    absl::Status s = jar_.SetCookie(U(url), line, now);
    ASSERT_TRUE(s.ok()) << line << ": " << s;
  }
  absl::Status TrySet(absl::string_view url, absl::string_view line,
                      absl::Time now = kNow) {
    return jar_.SetCookie(U(url), line, now);
  }
  std::string Header(absl::string_view url, absl::Time now = kNow) {
    return jar_.CookieHeaderFor(U(url), now);
  }

  CookieJar jar_;
};

TEST_F(CookieJarTest, HostOnlyByDefault) {
  Set("https://www.example.test/", "a=1");
  EXPECT_EQ(Header("https://www.example.test/"), "a=1");
  EXPECT_EQ(Header("https://www.example.test:8443/x"), "a=1");  // Any port.
  EXPECT_EQ(Header("http://www.example.test/"), "a=1");         // Not Secure.
  EXPECT_EQ(Header("https://foo.www.example.test/"), "");
  EXPECT_EQ(Header("https://example.test/"), "");
  EXPECT_EQ(Header("https://other.example.test/"), "");
  ASSERT_EQ(jar_.size(), 1u);
  CanonicalCookie c = jar_.AllCookies()[0];
  EXPECT_TRUE(c.host_only);
  EXPECT_EQ(c.domain, "www.example.test");
  EXPECT_FALSE(c.persistent);
  EXPECT_EQ(c.creation, kNow);
}

TEST_F(CookieJarTest, DomainAttributeCoversSubdomains) {
  Set("https://www.example.test/", "a=1; Domain=.Example.test");
  EXPECT_EQ(Header("https://example.test/"), "a=1");
  EXPECT_EQ(Header("https://deep.sub.example.test/"), "a=1");
  EXPECT_EQ(Header("https://notexample.test/"), "");
  EXPECT_EQ(Header("https://example2.test/"), "");
  EXPECT_FALSE(jar_.AllCookies()[0].host_only);
  // A Domain equal to the host is still a domain cookie (RFC 6265 5.3).
  Set("https://www.example.test/", "b=2; Domain=www.example.test");
  EXPECT_EQ(Header("https://x.www.example.test/"), "b=2; a=1");
}

TEST_F(CookieJarTest, DomainMustDomainMatchAndNotBeAPublicSuffix) {
  EXPECT_EQ(
      TrySet("https://www.example.test/", "a=1; Domain=other.test").code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      TrySet("https://www.example.test/", "a=1; Domain=sub.www.example.test")
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      TrySet("https://www.example.test/", "a=1; Domain=ample.test").code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      TrySet("https://www.example.test/", "a=1; Domain=..example.test").code(),
      absl::StatusCode::kInvalidArgument);
  // Public suffixes, ICANN and private (the implicit * rule makes "test" one).
  for (auto [url, domain] : std::vector<std::pair<const char*, const char*>>{
           {"https://www.example.test/", "test"},
           {"https://www.example.co.uk/", "co.uk"},
           {"https://foo.github.io/", "github.io"},
           {"https://a.b.com/", "com"}}) {
    absl::Status s = TrySet(url, absl::StrCat("a=1; Domain=", domain));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << domain;
    EXPECT_NE(s.message().find("public suffix"), absl::string_view::npos);
  }
  EXPECT_EQ(jar_.size(), 0u);
  // A host that is itself a public suffix may name itself: host-only.
  Set("https://github.io/", "a=1; Domain=github.io");
  EXPECT_TRUE(jar_.AllCookies()[0].host_only);
  EXPECT_EQ(Header("https://foo.github.io/"), "");
}

TEST_F(CookieJarTest, IpAddressesAreExactOnly) {
  Set("https://127.0.0.1:8443/", "a=1; Domain=127.0.0.1");
  EXPECT_TRUE(jar_.AllCookies()[0].host_only);
  EXPECT_EQ(Header("https://127.0.0.1/"), "a=1");
  EXPECT_EQ(Header("https://27.0.0.1/"), "");
  EXPECT_EQ(TrySet("https://127.0.0.1/", "b=1; Domain=0.0.1").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TrySet("https://127.0.0.1/", "b=1; Domain=127.0.0.2").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(DomainMatches("127.0.0.1", "0.0.1"));
  Set("https://[::1]/", "c=1");
  EXPECT_EQ(Header("https://[::1]:9/"), "c=1");
}

TEST_F(CookieJarTest, DefaultPathAndPathMatch) {
  EXPECT_EQ(DefaultCookiePath(U("https://h.test")), "/");
  EXPECT_EQ(DefaultCookiePath(U("https://h.test/a")), "/");
  EXPECT_EQ(DefaultCookiePath(U("https://h.test/a/b/c?x=/y/z")), "/a/b");
  EXPECT_EQ(DefaultCookiePath(U("https://h.test/a/b/")), "/a/b");
  EXPECT_TRUE(PathMatches("/a", "/a"));
  EXPECT_TRUE(PathMatches("/a/", "/a"));
  EXPECT_TRUE(PathMatches("/a/x", "/a"));
  EXPECT_TRUE(PathMatches("/a/x", "/a/"));
  EXPECT_FALSE(PathMatches("/ab", "/a"));
  EXPECT_FALSE(PathMatches("/", "/a"));

  Set("https://h.test/a/b/page", "deflt=1");  // Path /a/b
  Set("https://h.test/", "root=1; Path=/");
  Set("https://h.test/", "ab=1; Path=/a/b/");
  EXPECT_EQ(Header("https://h.test/a/b/c"), "ab=1; deflt=1; root=1");
  EXPECT_EQ(Header("https://h.test/a/b?q"), "deflt=1; root=1");
  EXPECT_EQ(Header("https://h.test/a/bc"), "root=1");
}

TEST_F(CookieJarTest, OrderIsLongestPathThenOldest) {
  Set("https://h.test/", "late=1; Path=/", kNow + absl::Seconds(2));
  Set("https://h.test/", "early=1; Path=/", kNow + absl::Seconds(1));
  Set("https://h.test/", "deep=1; Path=/x", kNow + absl::Seconds(3));
  EXPECT_EQ(Header("https://h.test/x", kNow + absl::Seconds(4)),
            "deep=1; early=1; late=1");
}

TEST_F(CookieJarTest, SecureCookies) {
  EXPECT_EQ(TrySet("http://h.test/", "s=1; Secure").code(),
            absl::StatusCode::kInvalidArgument);
  Set("https://h.test/", "s=1; Secure", kNow);
  Set("https://h.test/", "plain=1", kNow + absl::Seconds(1));
  EXPECT_EQ(Header("https://h.test/"), "s=1; plain=1");
  EXPECT_EQ(Header("http://h.test/"), "plain=1");
  // http cannot overwrite or shadow a Secure cookie, even on a subpath or
  // from a subdomain; https can.
  EXPECT_EQ(TrySet("http://h.test/", "s=evil").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TrySet("http://h.test/", "s=evil; Path=/deeper").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TrySet("http://sub.h.test/", "s=evil; Domain=h.test").code(),
            absl::StatusCode::kInvalidArgument);
  Set("https://h.test/", "s=2; Secure");  // Keeps its creation time.
  EXPECT_EQ(Header("https://h.test/"), "s=2; plain=1");
}

TEST_F(CookieJarTest, HttpOnlyIsStoredAndSent) {
  Set("https://h.test/", "h=1; HttpOnly");
  EXPECT_TRUE(jar_.AllCookies()[0].http_only);
  EXPECT_EQ(Header("https://h.test/"), "h=1");
}

TEST_F(CookieJarTest, ExpiryMaxAgeWinsOverExpires) {
  Set("https://h.test/",
      "m=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=60");
  CanonicalCookie c = jar_.AllCookies()[0];
  EXPECT_TRUE(c.persistent);
  EXPECT_EQ(c.expiry, kNow + absl::Seconds(60));
  EXPECT_EQ(Header("https://h.test/", kNow + absl::Seconds(59)), "m=1");
  EXPECT_EQ(Header("https://h.test/", kNow + absl::Seconds(60)), "");
  // Expires alone, in the future.
  Set("https://h.test/", "e=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT");
  // Clamped to 400 days.
  EXPECT_EQ(jar_.GetCookies(U("https://h.test/"), kNow)[0].expiry,
            kNow + absl::Hours(24 * 400));
  // An unparsable Expires leaves a session cookie.
  Set("https://h.test/", "s=1; Expires=never");
  EXPECT_FALSE(jar_.GetCookies(U("https://h.test/"), kNow).back().persistent);
}

TEST_F(CookieJarTest, ExpiringDeletes) {
  Set("https://h.test/", "a=1");
  Set("https://h.test/", "b=1");
  Set("https://h.test/", "c=1");
  Set("https://h.test/", "a=gone; Max-Age=0");
  Set("https://h.test/", "b=gone; Expires=Thu, 01 Jan 1970 00:00:01 GMT");
  EXPECT_EQ(Header("https://h.test/"), "c=1");
  EXPECT_EQ(jar_.size(), 1u);
  // Deleting an absent cookie is not an error and stores nothing.
  Set("https://h.test/", "zz=1; Max-Age=-1");
  EXPECT_EQ(jar_.size(), 1u);
  // Only the same (domain, path, name) is deleted.
  Set("https://h.test/", "c=x; Max-Age=0; Path=/other");
  EXPECT_EQ(Header("https://h.test/"), "c=1");
}

TEST_F(CookieJarTest, ReplaceKeepsCreationTime) {
  Set("https://h.test/", "a=1", kNow);
  Set("https://h.test/", "a=2; HttpOnly", kNow + absl::Seconds(5));
  ASSERT_EQ(jar_.size(), 1u);
  CanonicalCookie c = jar_.AllCookies()[0];
  EXPECT_EQ(c.value, "2");
  EXPECT_TRUE(c.http_only);
  EXPECT_EQ(c.creation, kNow);
  EXPECT_EQ(c.last_access, kNow + absl::Seconds(5));
  // Same name on another path is another cookie.
  Set("https://h.test/", "a=3; Path=/p");
  EXPECT_EQ(jar_.size(), 2u);
}

TEST_F(CookieJarTest, RejectsUnparsable) {
  EXPECT_FALSE(TrySet("https://h.test/", "novalue").ok());
  EXPECT_FALSE(TrySet("https://h.test/", std::string("a=b\0c", 5)).ok());
  EXPECT_EQ(jar_.size(), 0u);
}

TEST(CookieJarLimitsTest, LeastRecentlyUsedGoFirst) {
  CookieJar jar(CookieJar::Limits{3, 5});
  absl::Time t = kNow;
  auto set = [&](const char* url, const std::string& line) {
    t += absl::Seconds(1);
    ASSERT_TRUE(jar.SetCookie(U(url), line, t).ok());
  };
  set("https://a.example.test/", "a1=1");
  set("https://b.example.test/", "a2=1");  // Same site: example.test.
  set("https://example.test/", "a3=1");
  t += absl::Seconds(1);
  // Using a1 makes a2 the least recently used of the site.
  EXPECT_EQ(jar.CookieHeaderFor(U("https://a.example.test/"), t), "a1=1");
  set("https://a.example.test/", "a4=1");
  EXPECT_EQ(jar.size(), 3u);
  EXPECT_EQ(jar.CookieHeaderFor(U("https://b.example.test/"), t), "");
  // The total limit spans sites.
  set("https://other.test/", "o1=1");
  set("https://other.test/", "o2=1");
  set("https://third.test/", "t1=1");
  EXPECT_EQ(jar.size(), 5u);
  // a3 was the least recently used of all.
  EXPECT_EQ(jar.CookieHeaderFor(U("https://example.test/"), t), "");
  EXPECT_EQ(jar.CookieHeaderFor(U("https://third.test/"), t), "t1=1");
}

TEST(CookieJarFileTest, RoundTripKeepsEveryField) {
  CookieJar jar;
  ASSERT_TRUE(jar.SetCookie(U("https://www.example.test/app/x"),
                            "s=v1; Secure; HttpOnly; Domain=example.test; "
                            "Max-Age=100",
                            kNow)
                  .ok());
  ASSERT_TRUE(jar.SetCookie(U("http://h.test/"), "session=\"q\"", kNow).ok());
  jar.CookieHeaderFor(U("https://www.example.test/app"),
                      kNow + absl::Seconds(7));
  std::string bytes = jar.Serialize(kNow);
  absl::StatusOr<CookieJar> back = CookieJar::Parse(bytes, "f", kNow);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->changed());
  std::vector<CanonicalCookie> a = jar.AllCookies(), b = back->AllCookies();
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].value, b[i].value);
    EXPECT_EQ(a[i].domain, b[i].domain);
    EXPECT_EQ(a[i].host_only, b[i].host_only);
    EXPECT_EQ(a[i].path, b[i].path);
    EXPECT_EQ(a[i].secure, b[i].secure);
    EXPECT_EQ(a[i].http_only, b[i].http_only);
    EXPECT_EQ(a[i].persistent, b[i].persistent);
    EXPECT_EQ(a[i].expiry, b[i].expiry);
    EXPECT_EQ(a[i].creation, b[i].creation);
    EXPECT_EQ(a[i].last_access, b[i].last_access);
  }
  EXPECT_EQ(back->Serialize(kNow), bytes);
  // Expired cookies are dropped at load, which counts as a change.
  absl::StatusOr<CookieJar> later =
      CookieJar::Parse(bytes, "f", kNow + absl::Seconds(100));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->size(), 1u);
  EXPECT_TRUE(later->changed());
}

TEST(CookieJarFileTest, EveryFlipAndTruncationIsDataLoss) {
  CookieJar jar;
  ASSERT_TRUE(
      jar.SetCookie(U("https://h.test/"), "a=1; Max-Age=100", kNow).ok());
  ASSERT_TRUE(jar.SetCookie(U("https://h.test/"), "b=2", kNow).ok());
  const std::string good = jar.Serialize(kNow);
  int checked = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      auto parsed = CookieJar::Parse(bad, "cookies.pb", kNow);
      EXPECT_EQ(parsed.status().code(), absl::StatusCode::kDataLoss)
          << "byte " << i << " ^ " << int(mask);
      ++checked;
    }
  }
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_EQ(CookieJar::Parse(good.substr(0, n), "f", kNow).status().code(),
              absl::StatusCode::kDataLoss)
        << "truncated to " << n;
  }
  EXPECT_EQ(CookieJar::Parse(good + good, "f", kNow).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(CookieJar::Parse(good + "x", "f", kNow).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_GT(checked, 100);
}

// Records that parse and carry a valid checksum but could not have come
// from SetCookie.
std::string FileWith(const std::vector<pb::StoredCookie>& cookies) {
  pb::StoredCookies stored;
  for (const auto& c : cookies) *stored.add_cookies() = c;
  pb::CookieFile file;
  file.set_magic(CookieJar::kMagic);
  file.set_version(CookieJar::kVersion);
  stored.SerializeToString(file.mutable_payload());
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(file.payload().data()),
         file.payload().size(), digest);
  file.set_payload_sha256(std::string(reinterpret_cast<char*>(digest), 32));
  return file.SerializeAsString();
}

TEST(CookieJarFileTest, InconsistentRecordsAreDataLoss) {
  pb::StoredCookie good;
  good.set_name("a");
  good.set_value("1");
  good.set_domain("h.test");
  good.set_host_only(true);
  good.set_path("/");
  good.set_creation_unix_micros(absl::ToUnixMicros(kNow));
  good.set_last_access_unix_micros(absl::ToUnixMicros(kNow));
  ASSERT_TRUE(CookieJar::Parse(FileWith({good}), "f", kNow).ok());

  std::vector<std::pair<std::string, pb::StoredCookie>> cases;
  auto add = [&](const char* what, auto mutate) {
    pb::StoredCookie c = good;
    mutate(&c);
    cases.emplace_back(what, c);
  };
  add("empty name", [](pb::StoredCookie* c) { c->set_name(""); });
  add("';' in name", [](pb::StoredCookie* c) { c->set_name("a;b"); });
  add("'=' in name", [](pb::StoredCookie* c) { c->set_name("a=b"); });
  add("control in value", [](pb::StoredCookie* c) { c->set_value("x\ny"); });
  add("';' in value", [](pb::StoredCookie* c) { c->set_value("x;y"); });
  add("oversized",
      [](pb::StoredCookie* c) { c->set_value(std::string(5000, 'v')); });
  add("empty domain", [](pb::StoredCookie* c) { c->set_domain(""); });
  add("upper-case domain",
      [](pb::StoredCookie* c) { c->set_domain("H.test"); });
  add("leading dot", [](pb::StoredCookie* c) { c->set_domain(".h.test"); });
  add("'/' in domain", [](pb::StoredCookie* c) { c->set_domain("h.test/x"); });
  add("relative path", [](pb::StoredCookie* c) { c->set_path("x"); });
  add("empty path", [](pb::StoredCookie* c) { c->set_path(""); });
  add("persistent, no expiry",
      [](pb::StoredCookie* c) { c->set_persistent(true); });
  add("session with expiry",
      [](pb::StoredCookie* c) { c->set_expiry_unix_micros(5); });
  for (const auto& [what, c] : cases) {
    auto parsed = CookieJar::Parse(FileWith({c}), "cookies.pb", kNow);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kDataLoss) << what;
    EXPECT_NE(parsed.status().message().find("cookies.pb is corrupt"),
              absl::string_view::npos)
        << parsed.status();
  }
  auto dup = CookieJar::Parse(FileWith({good, good}), "f", kNow);
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(dup.status().message().find("duplicate"), absl::string_view::npos);
  // Wrong magic or version with a valid checksum.
  pb::CookieFile file;
  ASSERT_TRUE(file.ParseFromString(FileWith({good})));
  file.set_version(2);
  EXPECT_NE(CookieJar::Parse(file.SerializeAsString(), "f", kNow)
                .status()
                .message()
                .find("unknown version 2"),
            absl::string_view::npos);
}

TEST(CookieJarFileTest, SaveAndLoadOnDisk) {
  std::string dir = ::testing::TempDir() + "/cookie_jar_disk";
  mkdir(dir.c_str(), 0700);
  std::string path = dir + "/" + CookieJar::kFileName;
  unlink(path.c_str());

  absl::StatusOr<CookieJar> missing = CookieJar::Load(path, kNow);
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->size(), 0u);
  EXPECT_FALSE(missing->changed());

  CookieJar jar;
  ASSERT_TRUE(jar.SetCookie(U("https://h.test/"), "a=1", kNow).ok());
  EXPECT_TRUE(jar.changed());
  ASSERT_TRUE(jar.Save(path, kNow).ok());
  EXPECT_FALSE(jar.changed());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  absl::StatusOr<CookieJar> loaded = CookieJar::Load(path, kNow);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->CookieHeaderFor(U("https://h.test/"), kNow), "a=1");

  // A damaged file is reported with its name and left exactly as it was.
  std::string bytes = *ReadFileToString(path);
  bytes[bytes.size() / 2] ^= 0x20;
  ASSERT_TRUE(WriteFileAtomically(path, bytes).ok());
  absl::StatusOr<CookieJar> corrupt = CookieJar::Load(path, kNow);
  EXPECT_EQ(corrupt.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(corrupt.status().message().find(path), absl::string_view::npos);
  EXPECT_NE(corrupt.status().message().find("left untouched"),
            absl::string_view::npos);
  EXPECT_EQ(*ReadFileToString(path), bytes);

  // A failed save keeps changed() set.
  ASSERT_TRUE(jar.SetCookie(U("https://h.test/"), "b=1", kNow).ok());
  EXPECT_FALSE(jar.Save(dir + "/no/such/dir/cookies.pb", kNow).ok());
  EXPECT_TRUE(jar.changed());
}

TEST(CookieJarFileTest, ChangedTracksEveryMutation) {
  CookieJar jar;
  EXPECT_FALSE(jar.changed());
  ASSERT_TRUE(
      jar.Save(::testing::TempDir() + "/changed_cookies.pb", kNow).ok());
  EXPECT_EQ(jar.CookieHeaderFor(U("https://h.test/"), kNow), "");
  EXPECT_FALSE(jar.changed());  // Nothing was sent.
  EXPECT_FALSE(jar.SetCookie(U("https://h.test/"), "bad", kNow).ok());
  EXPECT_FALSE(jar.changed());  // Nothing was stored.
  ASSERT_TRUE(jar.SetCookie(U("https://h.test/"), "a=1", kNow).ok());
  EXPECT_TRUE(jar.changed());
}

}  // namespace
}  // namespace net
