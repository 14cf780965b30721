#include "cert/prevalidator.h"

#include <openssl/pem.h>

#include <cstdio>

#include "cert/revocation_checker.h"
#include "cert/revocation_test_util.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

class PrevalidatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chain_.RegisterGood(&fetcher_);
    std::string root_pem = ::testing::TempDir() + "/prevalidator_root.pem";
    FILE* f = fopen(root_pem.c_str(), "w");
    PEM_write_X509(f, chain_.root.get());
    fclose(f);
    verifier_ = std::move(*BasicCertVerifier::Create({root_pem}, false));
    checker_ = std::make_unique<OcspCrlRevocationChecker>(
        RevocationPolicy(), &fetcher_, &cache_, &pool_);
    verifier_->set_revocation_checker(checker_.get());
    verifier_->set_worker_pool(&pool_);
    prevalidator_ = std::make_unique<Prevalidator>(verifier_.get());
    // The server sends everything but the root.
    sent_chain_ = chain_.Der();
    sent_chain_.pop_back();
  }

  EventLoop loop_;
  WorkerPool pool_{2};
  ScriptedRevocationFetcher fetcher_;
  RevocationCache cache_;
  TestChain chain_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<OcspCrlRevocationChecker> checker_;
  std::unique_ptr<Prevalidator> prevalidator_;
  std::vector<std::string> sent_chain_;
};

TEST_F(PrevalidatorTest, PrevalidatedResultCostsNothingOnTheCriticalPath) {
  TestCompletionCallback a, b;
  prevalidator_->Prevalidate(sent_chain_, "www.example.test", a.callback());
  prevalidator_->Prevalidate(sent_chain_, "www.example.test",
                             b.callback());  // joins
  EXPECT_EQ(OK, a.WaitForResult());
  EXPECT_EQ(OK, b.GetResult(ERR_IO_PENDING));
  EXPECT_EQ(prevalidator_->jobs_started(), 1u);
  EXPECT_EQ(prevalidator_->coalesced(), 1u);
  int fetches = fetcher_.fetch_count();
  EXPECT_EQ(fetches, 3);  // leaf, i2, i1 in parallel

  PrevalidatedCertVerifier verifier(prevalidator_.get(), verifier_.get());
  CertVerifyParams params{sent_chain_, "www.example.test", absl::Now(), ""};
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  EXPECT_EQ(OK, verifier.Verify(
                    params, &result, [](int) {}, &request));
  EXPECT_EQ(result.revocation_source, RevocationSource::kPrevalidated);
  EXPECT_EQ(result.revocation_duration, absl::ZeroDuration());
  EXPECT_EQ(fetcher_.fetch_count(), fetches);  // no request during the "fetch"
  EXPECT_EQ(verifier.prevalidated_hits(), 1u);

  // Another host, or another chain, is not covered.
  params.hostname = "other.example.test";
  TestCompletionCallback cb;
  EXPECT_EQ(
      ERR_CERT_COMMON_NAME_INVALID,
      cb.GetResult(verifier.Verify(params, &result, cb.callback(), &request)));
}

TEST_F(PrevalidatorTest, WithoutPrevalidationTheCheckIsOnTheCriticalPath) {
  PrevalidatedCertVerifier verifier(prevalidator_.get(), verifier_.get());
  CertVerifyParams params{sent_chain_, "www.example.test", absl::Now(), ""};
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(
                    verifier.Verify(params, &result, cb.callback(), &request)));
  EXPECT_EQ(result.revocation_source, RevocationSource::kFresh);
  EXPECT_GE(result.revocation_duration, absl::Milliseconds(50));
}

TEST_F(PrevalidatorTest, FailuresAreNotKept) {
  TestChain::SetOcsp(&fetcher_, "http://ocsp.test/leaf", chain_.leaf.get(),
                     chain_.i2.get(), chain_.i2_key.get(),
                     OcspCertStatus::kRevoked);
  TestCompletionCallback cb;
  prevalidator_->Prevalidate(sent_chain_, "www.example.test", cb.callback());
  EXPECT_EQ(ERR_CERT_REVOKED, cb.WaitForResult());
  EXPECT_EQ(prevalidator_->Lookup(sent_chain_, "www.example.test"), nullptr);
}

}  // namespace
}  // namespace net
