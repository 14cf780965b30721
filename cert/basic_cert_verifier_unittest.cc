#include "cert/basic_cert_verifier.h"

#include "cert/x509_util.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

constexpr char kDir[] = "cert/testdata/";

absl::Time VerifyTime() {
  return absl::FromCivil(absl::CivilSecond(2026, 6, 1, 0, 0, 0),
                         absl::UTCTimeZone());
}

struct Case {
  const char* chain_file;
  const char* host;
  int expected;
};

class BasicCertVerifierTest : public ::testing::TestWithParam<Case> {};

TEST_P(BasicCertVerifierTest, VerifiesByOutcome) {
  const Case& c = GetParam();
  auto verifier =
      BasicCertVerifier::Create({std::string(kDir) + "good_root.pem"}, false);
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  auto chain = LoadPemCertificatesFromFile(std::string(kDir) + c.chain_file);
  ASSERT_TRUE(chain.ok()) << chain.status();
  CertVerifyParams params{*chain, c.host, VerifyTime(), ""};
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  int rv = (*verifier)->Verify(
      params, &result, [](int) { FAIL(); }, &request);
  EXPECT_EQ(rv, c.expected) << ErrorToString(rv) << " " << result.detail;
  EXPECT_EQ(result.error, c.expected);
  if (rv == OK) {
    EXPECT_EQ(result.verified_chain_der.size(),
              3u);  // leaf, intermediate, root
  } else {
    EXPECT_FALSE(result.detail.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BasicCertVerifierTest,
    ::testing::Values(
        Case{"good_leaf_chain.pem", "www.example.test", OK},
        Case{"good_leaf_chain.pem", "WWW.example.test", OK},
        Case{"good_leaf_chain.pem", "127.0.0.1", OK},
        Case{"good_ecdsa_leaf_chain.pem", "localhost", OK},
        Case{"good_leaf_chain.pem", "evil.example.test",
             ERR_CERT_COMMON_NAME_INVALID},
        Case{"good_leaf_chain.pem", "127.0.0.2", ERR_CERT_COMMON_NAME_INVALID},
        Case{"bad_name_leaf_chain.pem", "www.example.test",
             ERR_CERT_COMMON_NAME_INVALID},
        Case{"expired_leaf_chain.pem", "www.example.test",
             ERR_CERT_DATE_INVALID},
        Case{"untrusted_leaf_chain.pem", "www.example.test",
             ERR_CERT_AUTHORITY_INVALID},
        // The leaf alone cannot reach the root without its intermediate.
        Case{"good_leaf.pem", "www.example.test", ERR_CERT_AUTHORITY_INVALID}));

TEST(BasicCertVerifierStandaloneTest, TimeIsAnInput) {
  auto verifier =
      BasicCertVerifier::Create({std::string(kDir) + "good_root.pem"}, false);
  ASSERT_TRUE(verifier.ok());
  auto chain =
      LoadPemCertificatesFromFile(std::string(kDir) + "good_leaf_chain.pem");
  ASSERT_TRUE(chain.ok());
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  CertVerifyParams params{*chain, "www.example.test", VerifyTime(), ""};
  EXPECT_EQ(OK, (*verifier)->Verify(
                    params, &result, [](int) {}, &request));
  // The same chain, verified after it expires.
  params.now = absl::FromCivil(absl::CivilSecond(2050, 1, 1, 0, 0, 0),
                               absl::UTCTimeZone());
  EXPECT_EQ(ERR_CERT_DATE_INVALID, (*verifier)->Verify(
                                       params, &result, [](int) {}, &request));
}

TEST(BasicCertVerifierStandaloneTest, CachesByChainHostAndTimeBucket) {
  auto verifier =
      BasicCertVerifier::Create({std::string(kDir) + "good_root.pem"}, false);
  ASSERT_TRUE(verifier.ok());
  auto chain =
      LoadPemCertificatesFromFile(std::string(kDir) + "good_leaf_chain.pem");
  CertVerifyParams params{*chain, "www.example.test", VerifyTime(), ""};
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  EXPECT_EQ(OK, (*verifier)->Verify(
                    params, &result, [](int) {}, &request));
  EXPECT_EQ(OK, (*verifier)->Verify(
                    params, &result, [](int) {}, &request));
  EXPECT_EQ((*verifier)->cache_hits(), 1u);
  params.hostname = "evil.example.test";  // another host: no hit
  EXPECT_EQ(ERR_CERT_COMMON_NAME_INVALID,
            (*verifier)->Verify(
                params, &result, [](int) {}, &request));
  params.hostname = "www.example.test";
  params.now += absl::Minutes(2);  // another time bucket
  EXPECT_EQ(OK, (*verifier)->Verify(
                    params, &result, [](int) {}, &request));
  EXPECT_EQ((*verifier)->cache_hits(), 1u);
}

TEST(BasicCertVerifierStandaloneTest, BuildsPathsOnTheWorkerPool) {
  EventLoop loop;
  WorkerPool pool(1);
  auto verifier =
      BasicCertVerifier::Create({std::string(kDir) + "good_root.pem"}, false);
  ASSERT_TRUE(verifier.ok());
  (*verifier)->set_worker_pool(&pool);
  auto chain =
      LoadPemCertificatesFromFile(std::string(kDir) + "good_leaf_chain.pem");
  CertVerifyParams params{*chain, "www.example.test", VerifyTime(), ""};
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(ERR_IO_PENDING,
            (*verifier)->Verify(params, &result, cb.callback(), &request));
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_EQ(result.verified_chain_der.size(), 3u);
  // Now cached: answered at once.
  EXPECT_EQ(OK, (*verifier)->Verify(params, &result, cb.callback(), &request));
  // A cancelled request never calls back.
  params.hostname = "evil.example.test";
  bool called = false;
  ASSERT_EQ(ERR_IO_PENDING,
            (*verifier)->Verify(
                params, &result, [&](int) { called = true; }, &request));
  request.reset();
  loop.PostDelayedTask(absl::Milliseconds(50), [&] { loop.Quit(); });
  loop.Run();
  EXPECT_FALSE(called);
}

TEST(BasicCertVerifierStandaloneTest, RejectsGarbage) {
  auto verifier =
      BasicCertVerifier::Create({std::string(kDir) + "good_root.pem"}, false);
  ASSERT_TRUE(verifier.ok());
  CertVerifyParams params{
      {"not a certificate"}, "www.example.test", VerifyTime(), ""};
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  EXPECT_EQ(ERR_CERT_CONTAINS_ERRORS,
            (*verifier)->Verify(
                params, &result, [](int) {}, &request));
  params.chain_der.clear();
  EXPECT_EQ(ERR_SSL_SERVER_CERT_MISSING,
            (*verifier)->Verify(
                params, &result, [](int) {}, &request));
}

TEST(BasicCertVerifierStandaloneTest, BadAnchorFilesAreClearErrors) {
  auto missing = BasicCertVerifier::Create({"/nonexistent/root.pem"}, false);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/root.pem"),
            std::string::npos);
  auto none = BasicCertVerifier::Create({}, false);
  EXPECT_FALSE(none.ok());
  auto not_pem =
      BasicCertVerifier::Create({std::string(kDir) + "good_leaf.key"}, false);
  EXPECT_FALSE(not_pem.ok());
}

// SPDY IP pooling's name check (CertificateCoversHost over X509_check_host).
TEST(CertificateCoversHostTest, NamesAndAddressesOfTheLeaf) {
  auto good = LoadPemCertificatesFromFile("cert/testdata/good_leaf.pem");
  ASSERT_TRUE(good.ok()) << good.status();
  const std::string& leaf = good->front();
  EXPECT_TRUE(CertificateCoversHost(leaf, "www.example.test"));
  EXPECT_TRUE(CertificateCoversHost(leaf, "WWW.Example.Test"));
  EXPECT_TRUE(CertificateCoversHost(leaf, "localhost"));
  EXPECT_TRUE(CertificateCoversHost(leaf, "127.0.0.1"));
  EXPECT_FALSE(CertificateCoversHost(leaf, "127.0.0.2"));
  EXPECT_FALSE(CertificateCoversHost(leaf, "other.example.test"));
  EXPECT_FALSE(CertificateCoversHost(leaf, "example.test"));
  EXPECT_FALSE(CertificateCoversHost(leaf, "a.www.example.test"));
  EXPECT_FALSE(CertificateCoversHost(leaf, ""));
  EXPECT_FALSE(CertificateCoversHost("not a certificate", "localhost"));
  auto other = LoadPemCertificatesFromFile("cert/testdata/bad_name_leaf.pem");
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_TRUE(CertificateCoversHost(other->front(), "other.example.test"));
  EXPECT_FALSE(CertificateCoversHost(other->front(), "www.example.test"));
}

}  // namespace
}  // namespace net
