#include "cert/ignore_cert_errors_verifier.h"

#include "gtest/gtest.h"

namespace net {
namespace {

// Answers every Verify with |rv|, at once or (async) when Finish() runs.
class FixedVerifier : public CertVerifier {
 public:
  FixedVerifier(int rv, bool async) : rv_(rv), async_(async) {}
  int Verify(const CertVerifyParams&, CertVerifyResult* result,
             CompletionOnceCallback callback,
             std::unique_ptr<Request>*) override {
    result->error = rv_;
    result->detail = "the chain ends at an unknown root";
    if (!async_) return rv_;
    pending_ = std::move(callback);
    return ERR_IO_PENDING;
  }
  void Finish() { std::move(pending_)(rv_); }

 private:
  const int rv_;
  const bool async_;
  CompletionOnceCallback pending_;
};

TEST(IgnoreCertErrorsVerifierTest, CertificateErrorsBecomeOkAndAreNamed) {
  FixedVerifier wrapped(ERR_CERT_AUTHORITY_INVALID, /*async=*/false);
  IgnoreCertErrorsVerifier verifier(&wrapped);
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  EXPECT_EQ(OK, verifier.Verify(
                    {}, &result, [](int) { FAIL(); }, &request));
  EXPECT_EQ(OK, result.error);
  EXPECT_EQ(result.detail,
            "ignored (insecure): ERR_CERT_AUTHORITY_INVALID: the chain ends at "
            "an unknown root");
}

TEST(IgnoreCertErrorsVerifierTest, AsyncResultsToo) {
  FixedVerifier wrapped(ERR_CERT_DATE_INVALID, /*async=*/true);
  IgnoreCertErrorsVerifier verifier(&wrapped);
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  int got = 1;
  EXPECT_EQ(ERR_IO_PENDING,
            verifier.Verify(
                {}, &result, [&](int rv) { got = rv; }, &request));
  wrapped.Finish();
  EXPECT_EQ(OK, got);
  EXPECT_NE(result.detail.find("ERR_CERT_DATE_INVALID"), std::string::npos);
}

TEST(IgnoreCertErrorsVerifierTest, OtherErrorsPassThrough) {
  FixedVerifier wrapped(ERR_FAILED, /*async=*/false);
  IgnoreCertErrorsVerifier verifier(&wrapped);
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  EXPECT_EQ(ERR_FAILED, verifier.Verify(
                            {}, &result, [](int) {}, &request));
  EXPECT_FALSE(IgnoreCertErrorsVerifier::IsIgnored(ERR_CONNECTION_REFUSED));
  EXPECT_TRUE(
      IgnoreCertErrorsVerifier::IsIgnored(ERR_CERT_COMMON_NAME_INVALID));
}

TEST(IgnoreCertErrorsVerifierTest, NoWrappedVerifierAcceptsAndSaysSo) {
  IgnoreCertErrorsVerifier verifier(nullptr);
  CertVerifyResult result;
  std::unique_ptr<CertVerifier::Request> request;
  EXPECT_EQ(OK, verifier.Verify(
                    {}, &result, [](int) {}, &request));
  EXPECT_NE(result.detail.find("not verified"), std::string::npos);
}

}  // namespace
}  // namespace net
