// Revoked answers must stay revoked wherever they come from: the memory
// cache, the profile's saved cache, and a CRL. Each test here fails if the
// checker reads a cached "revoked" as good, if the saved cache loses the
// revoked bit, or if a CRL that lists the certificate is taken as good.

#include <openssl/mem.h>
#include <openssl/x509.h>

#include <string>

#include "absl/time/clock.h"
#include "cert/ocsp_test_util.h"
#include "cert/revocation_checker.h"
#include "cert/revocation_test_util.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

// A CRL by |issuer| listing |revoked|'s serial (none if null), valid for an
// hour.
std::string MakeCrl(X509* issuer, EVP_PKEY* key, X509* revoked) {
  bssl::UniquePtr<X509_CRL> crl(X509_CRL_new());
  X509_CRL_set_version(crl.get(), X509_CRL_VERSION_2);
  X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(issuer));
  bssl::UniquePtr<ASN1_TIME> t(
      ASN1_TIME_set(nullptr, absl::ToTimeT(absl::Now()) - 60));
  X509_CRL_set1_lastUpdate(crl.get(), t.get());
  t.reset(ASN1_TIME_set(nullptr, absl::ToTimeT(absl::Now()) + 3600));
  X509_CRL_set1_nextUpdate(crl.get(), t.get());
  if (revoked) {
    X509_REVOKED* entry = X509_REVOKED_new();
    X509_REVOKED_set_serialNumber(entry, X509_get_serialNumber(revoked));
    bssl::UniquePtr<ASN1_TIME> when(
        ASN1_TIME_set(nullptr, absl::ToTimeT(absl::Now()) - 60));
    X509_REVOKED_set_revocationDate(entry, when.get());
    X509_CRL_add0_revoked(crl.get(), entry);
  }
  X509_CRL_sort(crl.get());
  X509_CRL_sign(crl.get(), key, EVP_sha256());
  uint8_t* der = nullptr;
  int len = i2d_X509_CRL(crl.get(), &der);
  std::string s(reinterpret_cast<char*>(der), len);
  OPENSSL_free(der);
  return s;
}

class RevocationAnswersTest : public ::testing::Test {
 protected:
  void SetUp() override { chain_.RegisterGood(&fetcher_); }

  // One check of the chain with |cache|, under hard-fail (so an element
  // that could not be checked is an error, never a silent good).
  int Check(RevocationCache* cache, CertVerifyResult* result,
            ScriptedRevocationFetcher* fetcher = nullptr) {
    RevocationPolicy policy;
    policy.mode = RevocationPolicy::Mode::kHardFail;
    OcspCrlRevocationChecker checker(policy, fetcher ? fetcher : &fetcher_,
                                     cache, &pool_);
    *result = CertVerifyResult();
    result->verified_chain_der = chain_.Der();
    std::unique_ptr<CertVerifier::Request> request;
    TestCompletionCallback cb;
    return cb.GetResult(
        checker.Check(CertVerifyParams(), result, cb.callback(), &request));
  }

  static const RevocationCheck& Leaf(const CertVerifyResult& result) {
    return result.revocation_checks[0];
  }

  void RevokeLeafByOcsp() {
    TestChain::SetOcsp(&fetcher_, "http://ocsp.test/leaf", chain_.leaf.get(),
                       chain_.i2.get(), chain_.i2_key.get(),
                       OcspCertStatus::kRevoked);
  }

  EventLoop loop_;
  WorkerPool pool_{2};
  ScriptedRevocationFetcher fetcher_;
  TestChain chain_;
};

// A revoked answer in the memory cache is revoked: the second check asks no
// responder (the leaf's is gone) and still fails.
TEST_F(RevocationAnswersTest, RevokedFromTheMemoryCache) {
  RevokeLeafByOcsp();
  RevocationCache cache;
  CertVerifyResult result;
  ASSERT_EQ(ERR_CERT_REVOKED, Check(&cache, &result));
  ASSERT_EQ(Leaf(result).source, RevocationSource::kFresh);

  fetcher_.answers.erase("http://ocsp.test/leaf");
  const int fetches = fetcher_.fetch_count();
  EXPECT_EQ(ERR_CERT_REVOKED, Check(&cache, &result));
  EXPECT_EQ(fetcher_.fetch_count(), fetches) << "answered from the cache";
  EXPECT_EQ(Leaf(result).source, RevocationSource::kCache);
  EXPECT_EQ(Leaf(result).outcome, RevocationOutcome::kRevoked);
  EXPECT_EQ(result.revocation_outcome, RevocationOutcome::kRevoked);
}

// The profile's cache: saved after a revoked answer, loaded by a new run
// whose responders are all unreachable, it still says revoked (and the good
// intermediates stay good).
TEST_F(RevocationAnswersTest, RevokedFromTheProfileCache) {
  RevokeLeafByOcsp();
  RevocationCache cache;
  CertVerifyResult result;
  ASSERT_EQ(ERR_CERT_REVOKED, Check(&cache, &result));
  const std::string path = ::testing::TempDir() + "/revocation_answers_cache";
  ASSERT_TRUE(cache.Save(path).ok());

  absl::StatusOr<RevocationCache> loaded = RevocationCache::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ScriptedRevocationFetcher unreachable;  // every fetch is refused
  EXPECT_EQ(ERR_CERT_REVOKED, Check(&*loaded, &result, &unreachable));
  EXPECT_EQ(unreachable.fetch_count(), 0);
  EXPECT_EQ(Leaf(result).source, RevocationSource::kCache);
  EXPECT_EQ(Leaf(result).outcome, RevocationOutcome::kRevoked);
  for (size_t i = 1; i < result.revocation_checks.size(); ++i) {
    EXPECT_EQ(result.revocation_checks[i].outcome, RevocationOutcome::kGood)
        << "depth " << i;
  }

  // And a good answer saved is good: the revoked bit is per entry.
  RevocationCache good_cache;
  fetcher_.answers.clear();
  chain_.RegisterGood(&fetcher_);
  ASSERT_EQ(OK, Check(&good_cache, &result));
  ASSERT_TRUE(good_cache.Save(path).ok());
  loaded = RevocationCache::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(OK, Check(&*loaded, &result, &unreachable));
}

// A CRL that lists the certificate: revoked, answered by the CRL (the OCSP
// responder is unreachable), and cached as revoked.
TEST_F(RevocationAnswersTest, RevokedByTheCrl) {
  // Inter 1 has an OCSP URL (made to fail) and the CRL distribution point
  // http://crl.test/root.crl.
  fetcher_.answers.erase("http://ocsp.test/i1");
  fetcher_.answers["http://crl.test/root.crl"] = {
      OK, MakeCrl(chain_.root.get(), chain_.root_key.get(), chain_.i1.get())};
  RevocationCache cache;
  CertVerifyResult result;
  EXPECT_EQ(ERR_CERT_REVOKED, Check(&cache, &result)) << result.detail;
  ASSERT_EQ(result.revocation_checks.size(), 3u);
  EXPECT_EQ(result.revocation_checks[2].method, "crl");
  EXPECT_EQ(result.revocation_checks[2].outcome, RevocationOutcome::kRevoked);
  EXPECT_EQ(result.revocation_outcome, RevocationOutcome::kRevoked);

  // Cached: revoked again without the CRL.
  fetcher_.answers.erase("http://crl.test/root.crl");
  EXPECT_EQ(ERR_CERT_REVOKED, Check(&cache, &result));
  EXPECT_EQ(result.revocation_checks[2].source, RevocationSource::kCache);

  // The same CRL without the serial: good.
  fetcher_.answers["http://crl.test/root.crl"] = {
      OK, MakeCrl(chain_.root.get(), chain_.root_key.get(), nullptr)};
  RevocationCache fresh;
  EXPECT_EQ(OK, Check(&fresh, &result)) << result.detail;
  EXPECT_EQ(result.revocation_checks[2].method, "crl");
}

}  // namespace
}  // namespace net
