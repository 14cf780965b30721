// OcspCrlRevocationChecker with a revocation filter in front of OCSP/CRL:
// covered certificates are answered with no request (revoked, good, from a
// stash), uncovered ones go to OCSP, staples still revoke, "off" ignores the
// filter, hard-fail behind a filter, and the Prevalidator through it.

#include <openssl/pem.h>

#include <cstdio>

#include "absl/time/clock.h"
#include "cert/prevalidator.h"
#include "cert/revocation_checker.h"
#include "cert/revocation_filter_builder.h"
#include "cert/revocation_filter_store.h"
#include "cert/revocation_test_util.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

using Mode = RevocationPolicy::Mode;

class RevocationFilterCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chain_.RegisterGood(&fetcher_);
    result_.verified_chain_der = chain_.Der();
    const auto der = chain_.Der();  // leaf, i2, i1, root
    for (int i = 0; i < 3; ++i)
      facts_[i] = *GetCertificateFilterFacts(der[i], der[i + 1]);
  }

  // A filter over the issuers of the chain elements in |covered| (0 leaf, 1
  // i2, 2 i1), with the elements in |revoked| revoked, among other
  // certificates of those issuers.
  void Install(std::vector<int> covered, std::vector<int> revoked_elements,
               absl::Time created = absl::Now()) {
    RevocationFilterBuildOptions options;
    options.created = created;
    options.coverage = created;
    std::vector<RevocationFilterKey> revoked, valid;
    for (int i : covered) {
      const std::string& issuer = facts_[i].key.issuer_spki_sha256;
      options.issuers.push_back({issuer, ""});
      bool is_revoked =
          std::find(revoked_elements.begin(), revoked_elements.end(), i) !=
          revoked_elements.end();
      (is_revoked ? revoked : valid).push_back(facts_[i].key);
      for (int n = 0; n < 40; ++n) {
        RevocationFilterKey other{
            issuer, std::string(1, 'A' + n % 26) + std::to_string(n)};
        (n % 4 == 0 ? revoked : valid).push_back(other);
      }
    }
    auto filter = BuildRevocationFilter(revoked, valid, options);
    ASSERT_TRUE(filter.ok()) << filter.status();
    store_ = RevocationFilterStore();
    ASSERT_TRUE(store_.SetFilter(*std::move(filter)).ok());
  }

  int Check(Mode mode, const std::string& staple = "") {
    RevocationPolicy policy;
    policy.mode = mode;
    OcspCrlRevocationChecker checker(policy, &fetcher_, &cache_, &pool_,
                                     &store_);
    CertVerifyParams params;
    params.stapled_ocsp_response = staple;
    result_.revocation_checks.clear();
    std::unique_ptr<CertVerifier::Request> request;
    TestCompletionCallback cb;
    return cb.GetResult(
        checker.Check(params, &result_, cb.callback(), &request));
  }

  const RevocationCheck& Element(int depth) {
    for (const RevocationCheck& c : result_.revocation_checks) {
      if (c.depth == depth) return c;
    }
    ADD_FAILURE() << "no check at depth " << depth;
    return result_.revocation_checks[0];
  }

  EventLoop loop_;
  WorkerPool pool_{2};
  ScriptedRevocationFetcher fetcher_;
  RevocationCache cache_;
  RevocationFilterStore store_;
  TestChain chain_;
  CertVerifyResult result_;
  CertificateFilterFacts facts_[3];
};

TEST_F(RevocationFilterCheckerTest, CoveredChainIsAnsweredWithNoRequest) {
  Install({0, 1, 2}, {});
  for (Mode mode : {Mode::kFilter, Mode::kSoftFail, Mode::kHardFail}) {
    ASSERT_EQ(OK, Check(mode));
    EXPECT_EQ(fetcher_.fetch_count(), 0);
    EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kGood);
    EXPECT_EQ(result_.revocation_source, RevocationSource::kFilter);
    ASSERT_EQ(result_.revocation_checks.size(), 3u);
    for (const RevocationCheck& c : result_.revocation_checks) {
      EXPECT_EQ(c.method, "filter");
      EXPECT_EQ(c.source, RevocationSource::kFilter);
      EXPECT_EQ(c.outcome, RevocationOutcome::kGood);
      EXPECT_NE(c.detail.find("not revoked"), std::string::npos) << c.detail;
    }
  }
  // Nothing was cached: the filter is its own cache.
  EXPECT_EQ(cache_.size(), 0u);
}

TEST_F(RevocationFilterCheckerTest, RevokedInTheFilterIsRevokedWithNoRequest) {
  Install({0, 1, 2}, {0});
  for (Mode mode : {Mode::kFilter, Mode::kSoftFail, Mode::kHardFail}) {
    EXPECT_EQ(ERR_CERT_REVOKED, Check(mode));
    EXPECT_EQ(fetcher_.fetch_count(), 0);
    EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kRevoked);
    EXPECT_EQ(result_.revocation_source, RevocationSource::kFilter);
    EXPECT_EQ(Element(0).method, "filter");
    EXPECT_EQ(Element(0).outcome, RevocationOutcome::kRevoked);
    EXPECT_EQ(Element(0).detail, "filter 1: revoked");
  }
  // A revoked intermediate likewise.
  Install({0, 1, 2}, {2});
  EXPECT_EQ(ERR_CERT_REVOKED, Check(Mode::kFilter));
  EXPECT_EQ(Element(2).outcome, RevocationOutcome::kRevoked);
  EXPECT_EQ(fetcher_.fetch_count(), 0);
}

TEST_F(RevocationFilterCheckerTest, UncoveredIssuerFallsBackToOcsp) {
  // The leaf's issuer (i2) is not covered: the leaf goes to OCSP, the rest
  // is the filter's.
  Install({1, 2}, {});
  ASSERT_EQ(OK, Check(Mode::kFilter));
  EXPECT_EQ(fetcher_.fetch_count(), 1);
  EXPECT_EQ(Element(0).method, "ocsp");
  EXPECT_EQ(Element(0).source, RevocationSource::kFresh);
  EXPECT_NE(Element(0).detail.find("not covered by filter 1"),
            std::string::npos)
      << Element(0).detail;
  EXPECT_EQ(Element(1).method, "filter");
  EXPECT_EQ(Element(2).method, "filter");
  EXPECT_EQ(result_.revocation_source, RevocationSource::kFresh);
  // OCSP says revoked for the uncovered leaf: revoked.
  TestChain::SetOcsp(&fetcher_, "http://ocsp.test/leaf", chain_.leaf.get(),
                     chain_.i2.get(), chain_.i2_key.get(),
                     OcspCertStatus::kRevoked);
  cache_.Clear();
  EXPECT_EQ(ERR_CERT_REVOKED, Check(Mode::kFilter));
  EXPECT_EQ(Element(0).method, "ocsp");
}

TEST_F(RevocationFilterCheckerTest, HardFailBehindAFilter) {
  // No responder answers anything.
  fetcher_.answers.clear();
  Install({0, 1, 2}, {});
  EXPECT_EQ(OK, Check(Mode::kHardFail));  // the filter answers for everyone
  EXPECT_EQ(fetcher_.fetch_count(), 0);
  Install({1, 2}, {});
  EXPECT_EQ(ERR_CERT_UNABLE_TO_CHECK_REVOCATION, Check(Mode::kHardFail));
  EXPECT_EQ(OK, Check(Mode::kFilter));  // soft behind the filter
  EXPECT_EQ(result_.revocation_outcome, RevocationOutcome::kSoftFailed);
}

TEST_F(RevocationFilterCheckerTest, StaleFilterAnswersForNothing) {
  // Last updated 11 days ago: its "not revoked" could hide any revocation
  // since, so every element goes to the responders (none answers here).
  fetcher_.answers.clear();
  Install({0, 1, 2}, {},
          absl::Now() - RevocationFilterStore::kMaxAge - absl::Hours(24));
  EXPECT_EQ(ERR_CERT_UNABLE_TO_CHECK_REVOCATION, Check(Mode::kHardFail));
  EXPECT_GT(fetcher_.fetch_count(), 0);
  EXPECT_NE(Element(0).detail.find("stale, last updated"), std::string::npos)
      << Element(0).detail;
  // Within the age it answers for everyone, with no request.
  const int before = fetcher_.fetch_count();
  Install({0, 1, 2}, {});
  EXPECT_EQ(OK, Check(Mode::kHardFail));
  EXPECT_EQ(fetcher_.fetch_count(), before);
}

TEST_F(RevocationFilterCheckerTest, StashRevokesOnTopOfTheFilter) {
  Install({0, 1, 2}, {});
  auto stash = RevocationStash::Create({1, 1, absl::Now(), {facts_[0].key}});
  ASSERT_TRUE(store_.AddStash(*stash).ok());
  EXPECT_EQ(ERR_CERT_REVOKED, Check(Mode::kFilter));
  EXPECT_EQ(fetcher_.fetch_count(), 0);
  EXPECT_EQ(result_.revocation_source, RevocationSource::kFilterStash);
  EXPECT_EQ(Element(0).method, "filter_stash");
  EXPECT_EQ(Element(0).source, RevocationSource::kFilterStash);
  EXPECT_EQ(Element(0).detail, "stash 1 of filter 1: revoked");
  EXPECT_EQ(Element(1).source, RevocationSource::kFilter);
}

TEST_F(RevocationFilterCheckerTest, StaplesStillRevokeButNeverFetch) {
  Install({0, 1, 2}, {});
  std::string good = fetcher_.answers["http://ocsp.test/leaf"].body;
  TestChain::SetOcsp(&fetcher_, "http://ocsp.test/leaf", chain_.leaf.get(),
                     chain_.i2.get(), chain_.i2_key.get(),
                     OcspCertStatus::kRevoked);
  std::string revoked = fetcher_.answers["http://ocsp.test/leaf"].body;
  // A revoked staple is newer news than the filter's "good".
  EXPECT_EQ(ERR_CERT_REVOKED, Check(Mode::kFilter, revoked));
  EXPECT_EQ(Element(0).source, RevocationSource::kStapled);
  // A good staple agrees with it; a staple for another certificate is
  // ignored; neither makes a request.
  EXPECT_EQ(OK, Check(Mode::kFilter, good));
  EXPECT_EQ(Element(0).source, RevocationSource::kFilter);
  std::string other = fetcher_.answers["http://ocsp.test/i2"].body;
  EXPECT_EQ(OK, Check(Mode::kFilter, other));
  EXPECT_EQ(Element(0).source, RevocationSource::kFilter);
  EXPECT_EQ(fetcher_.fetch_count(), 0);
}

TEST_F(RevocationFilterCheckerTest, OffIgnoresTheFilter) {
  Install({0, 1, 2}, {0});
  EXPECT_EQ(OK, Check(Mode::kOff));
  EXPECT_TRUE(result_.revocation_checks.empty());
  EXPECT_EQ(fetcher_.fetch_count(), 0);
}

TEST_F(RevocationFilterCheckerTest, ModeNames) {
  EXPECT_EQ(ParseRevocationMode("filter"), Mode::kFilter);
  EXPECT_STREQ(RevocationModeToString(Mode::kFilter), "filter");
  EXPECT_STREQ(RevocationSourceToString(RevocationSource::kFilter), "filter");
  EXPECT_STREQ(RevocationSourceToString(RevocationSource::kFilterStash),
               "filter_stash");
}

// The prevalidator verifies through the same checker: a prefetched chain is
// checked against the filter, with no request.
TEST_F(RevocationFilterCheckerTest, PrevalidatorUsesTheFilter) {
  Install({0, 1, 2}, {});
  std::string root_pem = ::testing::TempDir() + "/filter_checker_root.pem";
  FILE* f = fopen(root_pem.c_str(), "w");
  PEM_write_X509(f, chain_.root.get());
  fclose(f);
  auto verifier = std::move(*BasicCertVerifier::Create({root_pem}, false));
  RevocationPolicy policy;
  policy.mode = Mode::kFilter;
  OcspCrlRevocationChecker checker(policy, &fetcher_, &cache_, &pool_, &store_);
  verifier->set_revocation_checker(&checker);
  verifier->set_worker_pool(&pool_);
  Prevalidator prevalidator(verifier.get());
  std::vector<std::string> sent = chain_.Der();
  sent.pop_back();
  TestCompletionCallback cb;
  prevalidator.Prevalidate(sent, "www.example.test", cb.callback());
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_EQ(fetcher_.fetch_count(), 0);
  PrevalidatedCertVerifier session(&prevalidator, verifier.get());
  CertVerifyParams params{sent, "www.example.test", absl::Now(), ""};
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  EXPECT_EQ(OK, session.Verify(
                    params, &result, [](int) {}, &request));
  EXPECT_EQ(result.revocation_source, RevocationSource::kPrevalidated);
  EXPECT_EQ(fetcher_.fetch_count(), 0);
  // A revoked leaf never becomes a prevalidated result.
  Install({0, 1, 2}, {0});
  Prevalidator again(verifier.get());
  TestCompletionCallback revoked;
  again.Prevalidate(sent, "www.example.test", revoked.callback());
  EXPECT_EQ(ERR_CERT_REVOKED, revoked.WaitForResult());
  EXPECT_EQ(again.Lookup(sent, "www.example.test"), nullptr);
  EXPECT_EQ(fetcher_.fetch_count(), 0);
}

}  // namespace
}  // namespace net
