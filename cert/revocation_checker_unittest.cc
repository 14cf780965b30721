// OcspCrlRevocationChecker over a scripted fetcher: parallel checks of every
// chain element, revoked, soft- and hard-fail, the cache, CRL fallback.

#include "cert/revocation_checker.h"

#include <openssl/mem.h>
#include <sys/stat.h>

#include <fstream>
#include <map>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "cert/ocsp_test_util.h"
#include "cert/revocation_test_util.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

class RevocationCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    result_.verified_chain_der = chain_.Der();
    chain_.RegisterGood(&fetcher_);
  }

  void SetOcsp(const std::string& url, X509* cert, X509* issuer,
               EVP_PKEY* issuer_key, OcspCertStatus status) {
    TestChain::SetOcsp(&fetcher_, url, cert, issuer, issuer_key, status);
  }

  int Check(RevocationPolicy::Mode mode) {
    RevocationPolicy policy;
    policy.mode = mode;
    OcspCrlRevocationChecker checker(policy, &fetcher_, &cache_, &pool_);
    CertVerifyParams params;
    result_.revocation_checks.clear();
    std::unique_ptr<CertVerifier::Request> request;
    TestCompletionCallback cb;
    return cb.GetResult(
        checker.Check(params, &result_, cb.callback(), &request));
  }

  EventLoop loop_;
  WorkerPool pool_{2};
  ScriptedRevocationFetcher fetcher_;
  RevocationCache cache_;
  TestChain chain_;
  CertVerifyResult result_;
};

TEST_F(RevocationCheckerTest, ChecksEveryElementConcurrently) {
  ASSERT_EQ(OK, Check(RevocationPolicy::Mode::kSoftFail));
  ASSERT_EQ(result_.revocation_checks.size(),
            3u);  // leaf, inter 2, inter 1; not the anchor
  TimeTicks latest_start, earliest_end;
  for (const RevocationCheck& c : result_.revocation_checks) {
    EXPECT_EQ(c.outcome, RevocationOutcome::kGood)
        << c.depth << " " << c.detail;
    EXPECT_EQ(c.method, "ocsp");
    if (latest_start.is_null() || c.start > latest_start)
      latest_start = c.start;
    if (earliest_end.is_null() || c.end < earliest_end) earliest_end = c.end;
  }
  // All three 50 ms fetches were in flight together.
  EXPECT_LT(latest_start, earliest_end);
  EXPECT_LT(result_.revocation_duration, absl::Milliseconds(140));
  EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kGood);
  EXPECT_EQ(result_.revocation_source, RevocationSource::kFresh);
  EXPECT_EQ(fetcher_.fetch_count(), 3);

  // The second time everything comes from the cache: no fetch.
  ASSERT_EQ(OK, Check(RevocationPolicy::Mode::kSoftFail));
  EXPECT_EQ(fetcher_.fetch_count(), 3);
  EXPECT_EQ(result_.revocation_source, RevocationSource::kCache);
}

TEST_F(RevocationCheckerTest, RevokedIsAlwaysAnError) {
  SetOcsp("http://ocsp.test/leaf", chain_.leaf.get(), chain_.i2.get(),
          chain_.i2_key.get(), OcspCertStatus::kRevoked);
  for (auto mode :
       {RevocationPolicy::Mode::kSoftFail, RevocationPolicy::Mode::kHardFail}) {
    cache_.Clear();
    EXPECT_EQ(ERR_CERT_REVOKED, Check(mode));
    EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kRevoked);
  }
}

TEST_F(RevocationCheckerTest, UnreachableResponderSoftFailsOrHardFails) {
  fetcher_.answers.erase("http://ocsp.test/leaf");
  EXPECT_EQ(OK, Check(RevocationPolicy::Mode::kSoftFail));
  EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kSoftFailed);
  EXPECT_EQ(ERR_CERT_UNABLE_TO_CHECK_REVOCATION,
            Check(RevocationPolicy::Mode::kHardFail));
  // A forged answer is as good as none.
  SetOcsp("http://ocsp.test/leaf", chain_.leaf.get(), chain_.i2.get(),
          chain_.i1_key.get(), OcspCertStatus::kGood);
  EXPECT_EQ(ERR_CERT_UNABLE_TO_CHECK_REVOCATION,
            Check(RevocationPolicy::Mode::kHardFail));
  EXPECT_NE(result_.detail.find("bad signature"), std::string::npos)
      << result_.detail;
}

TEST_F(RevocationCheckerTest, StapledResponseAnswersForTheLeaf) {
  CertVerifyParams params;
  params.stapled_ocsp_response = fetcher_.answers["http://ocsp.test/leaf"].body;
  fetcher_.answers.erase("http://ocsp.test/leaf");
  OcspCrlRevocationChecker checker(
      RevocationPolicy{RevocationPolicy::Mode::kHardFail}, &fetcher_, &cache_,
      &pool_);
  std::unique_ptr<CertVerifier::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(
                    checker.Check(params, &result_, cb.callback(), &request)));
  EXPECT_EQ(result_.revocation_checks[0].source, RevocationSource::kStapled);
  EXPECT_EQ(fetcher_.fetch_count(), 2);  // only the intermediates
}

TEST_F(RevocationCheckerTest, StapleForAnotherCertificateIsIgnored) {
  // A good answer from the leaf's issuer, for another serial: the leaf is
  // checked as if nothing had been stapled (the cache, then OCSP), and the
  // check's detail says why the staple was not used.
  OcspResponseSpec spec;
  spec.cert_id = *BuildOcspCertId(X509ToDer(chain_.leaf.get()),
                                  X509ToDer(chain_.i2.get()));
  spec.cert_id.serial.back() ^= 0x01;
  spec.status = OcspCertStatus::kGood;
  spec.produced_at = spec.this_update = absl::Now() - absl::Minutes(1);
  spec.next_update = absl::Now() + absl::Hours(1);
  spec.signer_key = chain_.i2_key.get();
  spec.responder = chain_.i2.get();
  CertVerifyParams params;
  params.stapled_ocsp_response = BuildOcspResponse(spec);
  OcspCrlRevocationChecker checker(
      RevocationPolicy{RevocationPolicy::Mode::kHardFail}, &fetcher_, &cache_,
      &pool_);
  auto check = [&] {
    result_.revocation_checks.clear();
    std::unique_ptr<CertVerifier::Request> request;
    TestCompletionCallback cb;
    return cb.GetResult(
        checker.Check(params, &result_, cb.callback(), &request));
  };
  ASSERT_EQ(OK, check());
  ASSERT_EQ(result_.revocation_checks.size(), 3u);
  const RevocationCheck& leaf = result_.revocation_checks[0];
  EXPECT_EQ(leaf.depth, 0);
  EXPECT_EQ(leaf.source, RevocationSource::kFresh);
  EXPECT_EQ(leaf.method, "ocsp");
  EXPECT_TRUE(absl::StrContains(leaf.detail, "stapled: ")) << leaf.detail;
  EXPECT_TRUE(absl::StrContains(leaf.detail, "another certificate"))
      << leaf.detail;
  EXPECT_EQ(fetcher_.fetch_count(), 3);
  // The next time the ignored staple is followed by the cache: no fetch.
  ASSERT_EQ(OK, check());
  EXPECT_EQ(result_.revocation_checks[0].source, RevocationSource::kCache);
  EXPECT_EQ(result_.revocation_source, RevocationSource::kCache);
  EXPECT_EQ(fetcher_.fetch_count(), 3);
}

TEST_F(RevocationCheckerTest, DeadlineTurnsSlowAnswersIntoUnable) {
  fetcher_.delay = absl::Seconds(5);
  RevocationPolicy policy{RevocationPolicy::Mode::kHardFail};
  policy.deadline = absl::Milliseconds(100);
  OcspCrlRevocationChecker checker(policy, &fetcher_, &cache_, &pool_);
  CertVerifyParams params;
  std::unique_ptr<CertVerifier::Request> request;
  TestCompletionCallback cb;
  TimeTicks start = TimeTicks::Now();
  EXPECT_EQ(
      ERR_CERT_UNABLE_TO_CHECK_REVOCATION,
      cb.GetResult(checker.Check(params, &result_, cb.callback(), &request)));
  EXPECT_LT(TimeTicks::Now() - start, absl::Seconds(2));
  EXPECT_NE(result_.detail.find("deadline"), std::string::npos)
      << result_.detail;
}

TEST_F(RevocationCheckerTest, CacheSurvivesSaveAndLoadAndCorruptionIsReported) {
  ASSERT_EQ(OK, Check(RevocationPolicy::Mode::kSoftFail));
  std::string path = ::testing::TempDir() + "/revocation_cache";
  ASSERT_TRUE(cache_.Save(path).ok());
  auto loaded = RevocationCache::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->size(), 3u);
  std::ofstream(path) << "garbage\n";
  absl::StatusOr<RevocationCache> garbage = RevocationCache::Load(path);
  EXPECT_TRUE(absl::IsDataLoss(garbage.status())) << garbage.status();
  EXPECT_NE(garbage.status().message().find(path + " is corrupt"),
            std::string::npos)
      << garbage.status();
}

RevocationCache SomeEntries() {
  RevocationCache cache;
  const absl::Time t = absl::FromUnixSeconds(1'800'000'000);
  cache.Put(std::string("\x01\x02\x03", 3), {false, t});
  cache.Put("serial-and-issuer-key-hash", {true, t + absl::Hours(1)});
  return cache;
}

TEST(RevocationCacheFileTest, EveryTruncationIsDetectedAndTheFileKept) {
  std::string path = ::testing::TempDir() + "/revocation_cache_truncated";
  const std::string good = SomeEntries().Serialize();
  absl::StatusOr<RevocationCache> whole = RevocationCache::Parse(good, "f");
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->size(), 2u);
  for (size_t n = 0; n < good.size(); ++n) {
    const std::string cut = good.substr(0, n);
    ASSERT_TRUE(WriteFileAtomically(path, cut).ok());
    absl::StatusOr<RevocationCache> loaded = RevocationCache::Load(path);
    ASSERT_TRUE(absl::IsDataLoss(loaded.status()))
        << "cut to " << n << " of " << good.size() << ": " << loaded.status();
    ASSERT_EQ(*ReadFileToString(path), cut);
  }
  EXPECT_TRUE(
      absl::IsDataLoss(RevocationCache::Parse(good + "\n", "f").status()));
}

TEST(RevocationCacheFileTest, EveryFlippedByteIsDetected) {
  const std::string good = SomeEntries().Serialize();
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] ^= static_cast<char>(mask);
      ASSERT_TRUE(absl::IsDataLoss(RevocationCache::Parse(bad, "f").status()))
          << "byte " << i << " ^ " << int(mask);
    }
  }
}

TEST(RevocationCacheFileTest, OldFormatAndBadEntriesAreRejected) {
  absl::StatusOr<RevocationCache> old = RevocationCache::Parse(
      "netstack-revocation-cache 1\n0102 0 1800000000\n", "rc");
  ASSERT_TRUE(absl::IsDataLoss(old.status()));
  EXPECT_NE(old.status().message().find("older version"), std::string::npos)
      << old.status();
  auto framed = [](absl::string_view text) {
    return FrameFileContents(RevocationCache::kMagic, RevocationCache::kVersion,
                             text);
  };
  ASSERT_TRUE(RevocationCache::Parse(framed("0102 1 5\n"), "f").ok());
  for (const char* bad :
       {"0102 1 5", "0102 2 5\n", "010 1 5\n", "zz 1 5\n", "0102 1\n",
        "0102 1 x\n", "0102 1 5\n0102 0 6\n", " 1 5\n"}) {
    EXPECT_TRUE(
        absl::IsDataLoss(RevocationCache::Parse(framed(bad), "f").status()))
        << bad;
  }
  // A missing file is an empty cache; an unreadable one is an error.
  std::string dir = ::testing::TempDir() + "/revocation_cache_dir";
  mkdir(dir.c_str(), 0700);
  EXPECT_EQ(RevocationCache::Load(dir + "/missing")->size(), 0u);
  EXPECT_FALSE(RevocationCache::Load(dir).ok());
}

TEST_F(RevocationCheckerTest, OffChecksNothing) {
  EXPECT_EQ(OK, Check(RevocationPolicy::Mode::kOff));
  EXPECT_EQ(fetcher_.fetch_count(), 0);
  EXPECT_TRUE(result_.revocation_checks.empty());
}

// With checking off nothing is fetched and no cache consulted, but the
// server's own stapled answer still counts for the leaf: revoked is an error
// (as Chromium honours staples with online checks off), good is reported as
// checked, and a staple that does not answer leaves the leaf unchecked.
TEST_F(RevocationCheckerTest, OffStillHonoursAStaple) {
  OcspCrlRevocationChecker checker(
      RevocationPolicy{RevocationPolicy::Mode::kOff}, /*fetcher=*/nullptr,
      &cache_, &pool_);
  auto check = [&](const std::string& staple) {
    CertVerifyParams params;
    params.stapled_ocsp_response = staple;
    result_ = CertVerifyResult();
    result_.verified_chain_der = chain_.Der();
    std::unique_ptr<CertVerifier::Request> request;
    TestCompletionCallback cb;
    return cb.GetResult(
        checker.Check(params, &result_, cb.callback(), &request));
  };
  SetOcsp("http://ocsp.test/leaf", chain_.leaf.get(), chain_.i2.get(),
          chain_.i2_key.get(), OcspCertStatus::kRevoked);
  const std::string revoked = fetcher_.answers["http://ocsp.test/leaf"].body;
  EXPECT_EQ(ERR_CERT_REVOKED, check(revoked));
  EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kRevoked);
  ASSERT_EQ(result_.revocation_checks.size(), 1u);  // the leaf only
  EXPECT_EQ(result_.revocation_checks[0].source, RevocationSource::kStapled);

  SetOcsp("http://ocsp.test/leaf", chain_.leaf.get(), chain_.i2.get(),
          chain_.i2_key.get(), OcspCertStatus::kGood);
  EXPECT_EQ(OK, check(fetcher_.answers["http://ocsp.test/leaf"].body));
  EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kGood);
  EXPECT_EQ(result_.revocation_source, RevocationSource::kStapled);

  // Forged (signed by the wrong key): ignored, nothing fetched instead.
  SetOcsp("http://ocsp.test/leaf", chain_.leaf.get(), chain_.i2.get(),
          chain_.i1_key.get(), OcspCertStatus::kRevoked);
  EXPECT_EQ(OK, check(fetcher_.answers["http://ocsp.test/leaf"].body));
  EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kNotChecked);
  EXPECT_TRUE(
      absl::StrContains(result_.revocation_checks[0].detail, "stapled: "))
      << result_.revocation_checks[0].detail;

  // No staple: nothing at all.
  EXPECT_EQ(OK, check(""));
  EXPECT_TRUE(result_.revocation_checks.empty());
  EXPECT_EQ(fetcher_.fetch_count(), 0);
}

TEST_F(RevocationCheckerTest, FallsBackToTheCrl) {
  // Inter 1 has an OCSP URL that fails and a CRL DP with an empty CRL.
  fetcher_.answers.erase("http://ocsp.test/i1");
  bssl::UniquePtr<X509_CRL> crl(X509_CRL_new());
  X509_CRL_set_version(crl.get(), X509_CRL_VERSION_2);
  X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(chain_.root.get()));
  bssl::UniquePtr<ASN1_TIME> t(
      ASN1_TIME_set(nullptr, absl::ToTimeT(absl::Now()) - 60));
  X509_CRL_set1_lastUpdate(crl.get(), t.get());
  t.reset(ASN1_TIME_set(nullptr, absl::ToTimeT(absl::Now()) + 3600));
  X509_CRL_set1_nextUpdate(crl.get(), t.get());
  X509_CRL_sign(crl.get(), chain_.root_key.get(), EVP_sha256());
  uint8_t* der = nullptr;
  int len = i2d_X509_CRL(crl.get(), &der);
  fetcher_.answers["http://crl.test/root.crl"] = {
      OK, std::string(reinterpret_cast<char*>(der), len)};
  OPENSSL_free(der);
  ASSERT_EQ(OK, Check(RevocationPolicy::Mode::kHardFail)) << result_.detail;
  EXPECT_EQ(result_.revocation_checks[2].method, "crl");
}

}  // namespace
}  // namespace net
