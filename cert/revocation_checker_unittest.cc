// OcspCrlRevocationChecker over a scripted fetcher: parallel checks of every
// chain element, revoked, soft- and hard-fail, the cache, CRL fallback.

#include "cert/revocation_checker.h"

#include <openssl/mem.h>

#include <fstream>
#include <map>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "cert/ocsp_test_util.h"
#include "cert/revocation_test_util.h"
#include "gtest/gtest.h"
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
  EXPECT_FALSE(RevocationCache::Load(path).ok());
}

TEST_F(RevocationCheckerTest, OffChecksNothing) {
  EXPECT_EQ(OK, Check(RevocationPolicy::Mode::kOff));
  EXPECT_EQ(fetcher_.fetch_count(), 0);
  EXPECT_TRUE(result_.revocation_checks.empty());
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
