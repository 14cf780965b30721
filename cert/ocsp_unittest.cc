// OCSP request building and response verification, with crafted responses
// for every way a response must be refused.

#include "cert/ocsp.h"

#include <openssl/pem.h>

#include "cert/ocsp_test_util.h"
#include "cert/x509_util.h"
#include "gtest/gtest.h"

namespace net {
namespace {

constexpr char kDir[] = "cert/testdata/";

absl::Time Now() {
  return absl::FromCivil(absl::CivilSecond(2026, 6, 1, 12, 0, 0),
                         absl::UTCTimeZone());
}

class OcspTest : public ::testing::Test {
 protected:
  void SetUp() override {
    leaf_der_ =
        (*LoadPemCertificatesFromFile(std::string(kDir) + "good_leaf.pem"))[0];
    issuer_der_ = (*LoadPemCertificatesFromFile(std::string(kDir) +
                                                "good_intermediate.pem"))[0];
    other_der_ = (*LoadPemCertificatesFromFile(std::string(kDir) +
                                               "good_ecdsa_leaf.pem"))[0];
    issuer_ = DerToX509(issuer_der_);
    issuer_key_ = LoadPemKey(std::string(kDir) + "good_intermediate.key");
    ASSERT_TRUE(issuer_ && issuer_key_);
    spec_.cert_id = *BuildOcspCertId(leaf_der_, issuer_der_);
    spec_.produced_at = Now() - absl::Minutes(1);
    spec_.this_update = Now() - absl::Minutes(1);
    spec_.next_update = Now() + absl::Hours(1);
    spec_.signer_key = issuer_key_.get();
    spec_.responder = issuer_.get();
    options_.now = Now();
  }
  absl::StatusOr<OcspResult> Verify(const std::string& response) {
    return VerifyOcspResponse(response, leaf_der_, issuer_der_, options_);
  }
  void ExpectRejected(const std::string& response, const std::string& reason) {
    absl::StatusOr<OcspResult> r = Verify(response);
    ASSERT_FALSE(r.ok()) << "accepted; expected: " << reason;
    EXPECT_NE(r.status().message().find(reason), std::string::npos)
        << r.status();
  }

  std::string leaf_der_, issuer_der_, other_der_;
  bssl::UniquePtr<X509> issuer_;
  bssl::UniquePtr<EVP_PKEY> issuer_key_;
  OcspResponseSpec spec_;
  OcspVerifyOptions options_;
};

TEST_F(OcspTest, GoodRevokedAndUnknownFromTheIssuer) {
  auto good = Verify(BuildOcspResponse(spec_));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->status, OcspCertStatus::kGood);
  EXPECT_EQ(*good->next_update, Now() + absl::Hours(1));
  EXPECT_FALSE(good->signed_by_delegate);
  spec_.status = OcspCertStatus::kRevoked;
  auto revoked = Verify(BuildOcspResponse(spec_));
  ASSERT_TRUE(revoked.ok());
  EXPECT_EQ(revoked->status, OcspCertStatus::kRevoked);
  EXPECT_TRUE(revoked->revocation_time.has_value());
  spec_.status = OcspCertStatus::kUnknown;
  EXPECT_EQ(Verify(BuildOcspResponse(spec_))->status, OcspCertStatus::kUnknown);
}

TEST_F(OcspTest, Sha256CertIdAndNonce) {
  spec_.cert_id = *BuildOcspCertId(leaf_der_, issuer_der_, OcspHash::kSha256);
  spec_.nonce = "0123456789abcdef";
  options_.expected_nonce = "0123456789abcdef";
  EXPECT_TRUE(Verify(BuildOcspResponse(spec_)).ok());
  options_.expected_nonce = "something else!!";
  ExpectRejected(BuildOcspResponse(spec_), "nonce mismatch");
}

TEST_F(OcspTest, DelegatedResponderWithTheOcspSigningEku) {
  auto key = MakeP256Key();
  auto delegate =
      MakeCert("OCSP responder", key.get(), issuer_.get(), issuer_key_.get(),
               /*ocsp_signing_eku=*/true, Now() - absl::Hours(24),
               Now() + absl::Hours(24));
  spec_.signer_key = key.get();
  spec_.responder = delegate.get();
  spec_.certs = {delegate.get()};
  auto r = Verify(BuildOcspResponse(spec_));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->signed_by_delegate);
}

TEST_F(OcspTest, RejectsUnauthorisedSigners) {
  auto key = MakeP256Key();
  // A delegate without the EKU.
  auto no_eku =
      MakeCert("no eku", key.get(), issuer_.get(), issuer_key_.get(), false,
               Now() - absl::Hours(24), Now() + absl::Hours(24));
  spec_.signer_key = key.get();
  spec_.responder = no_eku.get();
  spec_.certs = {no_eku.get()};
  ExpectRejected(BuildOcspResponse(spec_), "OCSP-signing EKU");
  // A delegate with the EKU but issued by someone else.
  auto rogue_ca_key = MakeP256Key();
  auto rogue_ca =
      MakeCert("Rogue CA", rogue_ca_key.get(), nullptr, rogue_ca_key.get(),
               false, Now() - absl::Hours(24), Now() + absl::Hours(24), true);
  auto rogue =
      MakeCert("rogue responder", key.get(), rogue_ca.get(), rogue_ca_key.get(),
               true, Now() - absl::Hours(24), Now() + absl::Hours(24));
  spec_.responder = rogue.get();
  spec_.certs = {rogue.get()};
  ExpectRejected(BuildOcspResponse(spec_),
                 "not issued by the certificate's issuer");
  // An expired delegate.
  auto old =
      MakeCert("old responder", key.get(), issuer_.get(), issuer_key_.get(),
               true, Now() - absl::Hours(48), Now() - absl::Hours(24));
  spec_.responder = old.get();
  spec_.certs = {old.get()};
  ExpectRejected(BuildOcspResponse(spec_), "not valid now");
  // Names the issuer but signed with another key.
  spec_.responder = issuer_.get();
  spec_.certs = {};
  ExpectRejected(BuildOcspResponse(spec_), "bad signature");
  // Nobody we know.
  spec_.responder = rogue_ca.get();
  ExpectRejected(BuildOcspResponse(spec_), "unknown or unauthorised responder");
}

TEST_F(OcspTest, RejectsStaleFutureAndForeignResponses) {
  OcspResponseSpec s = spec_;
  s.next_update = Now() - absl::Minutes(1);
  ExpectRejected(BuildOcspResponse(s), "expired");
  s = spec_;
  s.next_update.reset();
  s.this_update = Now() - absl::Hours(8 * 24);
  ExpectRejected(BuildOcspResponse(s), "too old");
  s = spec_;
  s.this_update = Now() + absl::Hours(1);
  ExpectRejected(BuildOcspResponse(s), "thisUpdate is in the future");
  s = spec_;
  s.cert_id = *BuildOcspCertId(other_der_, issuer_der_);
  ExpectRejected(BuildOcspResponse(s), "another certificate");
  s = spec_;
  s.critical_single_extension = true;
  ExpectRejected(BuildOcspResponse(s), "critical extension");
  s = spec_;
  s.corrupt_signature = true;
  ExpectRejected(BuildOcspResponse(s), "bad signature");
  s = spec_;
  s.response_status = 2;  // internalError
  ExpectRejected(BuildOcspResponse(s), "responder status 2");
}

TEST_F(OcspTest, RejectsMalformedDer) {
  std::string good = BuildOcspResponse(spec_);
  for (size_t cut :
       {size_t{0}, size_t{1}, size_t{5}, good.size() / 2, good.size() - 1}) {
    EXPECT_FALSE(Verify(good.substr(0, cut)).ok()) << cut;
  }
  ExpectRejected("\x30\x03\x0a\x01", "malformed");
  EXPECT_FALSE(Verify(good + "x").ok());  // trailing data
}

TEST_F(OcspTest, RequestAndGetUrl) {
  OcspCertId id = *BuildOcspCertId(leaf_der_, issuer_der_);
  EXPECT_EQ(id.issuer_name_hash.size(), 20u);
  auto request = BuildOcspRequest(id);
  ASSERT_TRUE(request.ok());
  auto url = OcspGetUrl("http://ocsp.example.test:8888", *request);
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->rfind("http://ocsp.example.test:8888/ME", 0), 0u) << *url;
  EXPECT_EQ(url->find('+'), std::string::npos);
  // A long request (big nonce) must be POSTed.
  auto big = BuildOcspRequest(id, std::string(200, 'n'));
  EXPECT_FALSE(OcspGetUrl("http://o.test/", *big).has_value());
}

TEST(GeneralizedTimeTest, Parses) {
  EXPECT_EQ(*ParseGeneralizedTime("20260601120000Z"), Now());
  for (const char* bad :
       {"", "2026060112000Z", "20261301120000Z", "20260230120000Z",
        "2026060112000xZ", "20260601120000"}) {
    EXPECT_FALSE(ParseGeneralizedTime(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace net
