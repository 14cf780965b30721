#include "net/device_bound_sessions/session_store.h"

#include <openssl/bytestring.h>
#include <openssl/ec_key.h>
#include <openssl/mem.h>
#include <openssl/nid.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "net/base/test_file_util.h"

namespace net {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1'750'000'000);

std::unique_ptr<Session> MakeSession(const std::string& host,
                                     const std::string& id,
                                     absl::Time last_use = kNow) {
  auto s = std::make_unique<Session>();
  s->id = id;
  s->site = SiteOf(host);
  s->refresh_url = *Url::Parse(absl::StrCat("https://", host, "/refresh"));
  s->scope.origin = s->refresh_url.GetOrigin();
  s->scope.rules = {{false, "*", "/static"}};
  s->credentials.push_back(*MakeSessionCredential(
      "auth", "Path=/; Secure; HttpOnly", s->refresh_url));
  s->allowed_refresh_initiators = {"*.example.test"};
  bssl::UniquePtr<EC_KEY> ec(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  EC_KEY_generate_key(ec.get());
  s->key.reset(EVP_PKEY_new());
  EVP_PKEY_set1_EC_KEY(s->key.get(), ec.get());
  bssl::ScopedCBB cbb;
  uint8_t* der;
  size_t len;
  CBB_init(cbb.get(), 256);
  EVP_marshal_private_key(cbb.get(), s->key.get());
  CBB_finish(cbb.get(), &der, &len);
  s->key_pkcs8.assign(reinterpret_cast<char*>(der), len);
  OPENSSL_free(der);
  s->cached_challenge = "c-" + id;
  s->creation = kNow - absl::Hours(1);
  s->expiry = kNow + absl::Hours(24 * 400);
  s->last_use = last_use;
  return s;
}

class SessionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dbsc_store_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/" + SessionStore::kFileName;
  }
  void TearDown() override {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  std::string dir_;
  std::string path_;
};

TEST_F(SessionStoreTest, RoundTripKeepsEverythingAndTheKey) {
  SessionStore store;
  ASSERT_TRUE(store.Add(MakeSession("www.example.test", "s1")).ok());
  ASSERT_TRUE(store.Add(MakeSession("www.example.test", "s2")).ok());
  ASSERT_TRUE(store.Add(MakeSession("other.test", "s1")).ok());
  EXPECT_TRUE(store.changed());
  ASSERT_TRUE(store.Save(path_, kNow).ok());
  EXPECT_FALSE(store.changed());
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  absl::StatusOr<SessionStore> loaded = SessionStore::Load(path_, kNow);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->size(), 3u);
  Session* a = store.Find("example.test", "s2");
  Session* b = loaded->Find("example.test", "s2");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(b->refresh_url.spec(), a->refresh_url.spec());
  EXPECT_EQ(b->scope.origin, a->scope.origin);
  EXPECT_EQ(b->scope.rules, a->scope.rules);
  EXPECT_EQ(b->credentials[0].domain, "www.example.test");
  EXPECT_TRUE(b->credentials[0].secure);
  EXPECT_EQ(b->allowed_refresh_initiators, a->allowed_refresh_initiators);
  EXPECT_EQ(b->cached_challenge, "c-s2");
  EXPECT_EQ(b->expiry, a->expiry);
  EXPECT_EQ(b->key_pkcs8, a->key_pkcs8);
  EXPECT_EQ(EVP_PKEY_cmp(b->key.get(), a->key.get()), 1);
  EXPECT_EQ(loaded->SessionsForSite("example.test").size(), 2u);
  EXPECT_EQ(loaded->SessionsForSite("other.test").size(), 1u);
  EXPECT_TRUE(loaded->SessionsForSite("nope.test").empty());
  // A missing file is an empty store.
  unlink(path_.c_str());
  EXPECT_EQ(SessionStore::Load(path_, kNow)->size(), 0u);
}

TEST_F(SessionStoreTest, ExpiredSessionsAreDropped) {
  SessionStore store;
  std::unique_ptr<Session> old = MakeSession("www.example.test", "old");
  old->expiry = kNow + absl::Seconds(1);
  ASSERT_TRUE(store.Add(std::move(old)).ok());
  ASSERT_TRUE(store.Add(MakeSession("www.example.test", "new")).ok());
  ASSERT_TRUE(store.Save(path_, kNow).ok());
  absl::StatusOr<SessionStore> later =
      SessionStore::Load(path_, kNow + absl::Seconds(2));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->size(), 1u);
  EXPECT_TRUE(later->changed());  // the next save drops it from the file
  store.RemoveExpired(kNow + absl::Seconds(2));
  EXPECT_EQ(store.Find("example.test", "old"), nullptr);
}

TEST_F(SessionStoreTest, LimitsPerSiteAndInAll) {
  SessionStore::Limits limits;
  limits.max_per_site = 2;
  limits.max_total = 3;
  SessionStore store(limits);
  ASSERT_TRUE(store.Add(MakeSession("a.one.test", "1", kNow)).ok());
  ASSERT_TRUE(
      store.Add(MakeSession("b.one.test", "2", kNow + absl::Seconds(1))).ok());
  absl::Status third = store.Add(MakeSession("c.one.test", "3"));
  EXPECT_EQ(third.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.message(), HasSubstr("one.test already has 2"));
  // Replacing a session of a full site is fine.
  EXPECT_TRUE(
      store.Add(MakeSession("a.one.test", "2", kNow + absl::Seconds(1))).ok());
  ASSERT_TRUE(
      store.Add(MakeSession("two.test", "x", kNow + absl::Seconds(5))).ok());
  EXPECT_EQ(store.size(), 3u);
  // A fourth evicts the least recently used (one.test's "1").
  ASSERT_TRUE(
      store.Add(MakeSession("three.test", "y", kNow + absl::Seconds(6))).ok());
  EXPECT_EQ(store.size(), 3u);
  EXPECT_EQ(store.Find("one.test", "1"), nullptr);
  EXPECT_NE(store.Find("one.test", "2"), nullptr);
  EXPECT_TRUE(store.Remove("one.test", "2"));
  EXPECT_FALSE(store.Remove("one.test", "2"));
}

TEST_F(SessionStoreTest, EveryDamageIsDetectedAndTheFileKept) {
  SessionStore store;
  ASSERT_TRUE(store.Add(MakeSession("www.example.test", "s1")).ok());
  const std::string good = store.Serialize(kNow);
  ASSERT_TRUE(SessionStore::Parse(good, "f", kNow).ok());
  // Every truncation, and a flipped bit in every byte.
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_FALSE(SessionStore::Parse(good.substr(0, n), "f", kNow).ok()) << n;
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x10;
    EXPECT_FALSE(SessionStore::Parse(bad, "f", kNow).ok()) << i;
  }
  EXPECT_FALSE(SessionStore::Parse(good + "x", "f", kNow).ok());
  {
    std::ofstream out(path_, std::ios::binary);
    out << good.substr(0, good.size() / 2);
  }
  absl::StatusOr<SessionStore> loaded = SessionStore::Load(path_, kNow);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path_));
  EXPECT_THAT(loaded.status().message(), HasSubstr("left untouched"));
  std::ifstream in(path_, std::ios::binary);
  std::stringstream kept;
  kept << in.rdbuf();
  EXPECT_EQ(kept.str(), good.substr(0, good.size() / 2));
}

TEST_F(SessionStoreTest, InconsistentRecordsAreRefused) {
  // A well-framed file whose record could not have been stored: the key is
  // not P-256, or the site does not match the scope.
  SessionStore store;
  std::unique_ptr<Session> s = MakeSession("www.example.test", "s1");
  s->key_pkcs8 = "not a key";
  ASSERT_TRUE(store.Add(std::move(s)).ok());
  EXPECT_THAT(
      SessionStore::Parse(store.Serialize(kNow), "f", kNow).status().message(),
      HasSubstr("not a PKCS#8 ECDSA P-256 key"));
  SessionStore store2;
  s = MakeSession("www.example.test", "s1");
  s->site = "other.test";
  ASSERT_TRUE(store2.Add(std::move(s)).ok());
  EXPECT_THAT(
      SessionStore::Parse(store2.Serialize(kNow), "f", kNow).status().message(),
      HasSubstr("site does not match"));
}

}  // namespace
}  // namespace net
