#include "cert/crl.h"

#include <openssl/mem.h>
#include <openssl/x509.h>

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

// Builds a CRL by |issuer|/|key| listing |revoked_cert|'s serial (if any).
std::string MakeCrl(X509* issuer, EVP_PKEY* key, X509* revoked_cert,
                    absl::Time this_update, absl::Time next_update) {
  bssl::UniquePtr<X509_CRL> crl(X509_CRL_new());
  X509_CRL_set_version(crl.get(), X509_CRL_VERSION_2);
  X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(issuer));
  bssl::UniquePtr<ASN1_TIME> t(
      ASN1_TIME_set(nullptr, absl::ToTimeT(this_update)));
  X509_CRL_set1_lastUpdate(crl.get(), t.get());
  t.reset(ASN1_TIME_set(nullptr, absl::ToTimeT(next_update)));
  X509_CRL_set1_nextUpdate(crl.get(), t.get());
  if (revoked_cert) {
    X509_REVOKED* entry = X509_REVOKED_new();
    X509_REVOKED_set_serialNumber(entry, X509_get_serialNumber(revoked_cert));
    bssl::UniquePtr<ASN1_TIME> when(
        ASN1_TIME_set(nullptr, absl::ToTimeT(this_update)));
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

class CrlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    leaf_der_ =
        (*LoadPemCertificatesFromFile(std::string(kDir) + "good_leaf.pem"))[0];
    other_der_ = (*LoadPemCertificatesFromFile(std::string(kDir) +
                                               "good_ecdsa_leaf.pem"))[0];
    issuer_der_ = (*LoadPemCertificatesFromFile(std::string(kDir) +
                                                "good_intermediate.pem"))[0];
    issuer_ = DerToX509(issuer_der_);
    leaf_ = DerToX509(leaf_der_);
    key_ = LoadPemKey(std::string(kDir) + "good_intermediate.key");
  }
  std::string leaf_der_, other_der_, issuer_der_;
  bssl::UniquePtr<X509> issuer_, leaf_;
  bssl::UniquePtr<EVP_PKEY> key_;
};

TEST_F(CrlTest, FindsRevokedSerialsOnly) {
  std::string crl = MakeCrl(issuer_.get(), key_.get(), leaf_.get(),
                            Now() - absl::Hours(1), Now() + absl::Hours(24));
  auto revoked = CheckCrl(crl, leaf_der_, issuer_der_, Now());
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_TRUE(revoked->revoked);
  EXPECT_EQ(*revoked->next_update, Now() + absl::Hours(24));
  auto other = CheckCrl(crl, other_der_, issuer_der_, Now());
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->revoked);
}

TEST_F(CrlTest, RejectsBadSignatureWrongIssuerExpiredAndGarbage) {
  auto rogue_key = MakeP256Key();
  std::string forged = MakeCrl(issuer_.get(), rogue_key.get(), leaf_.get(),
                               Now() - absl::Hours(1), Now() + absl::Hours(24));
  auto r = CheckCrl(forged, leaf_der_, issuer_der_, Now());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad signature"), std::string::npos);

  auto other_ca =
      MakeCert("Other CA", rogue_key.get(), nullptr, rogue_key.get(), false,
               Now() - absl::Hours(24), Now() + absl::Hours(24), true);
  std::string foreign =
      MakeCrl(other_ca.get(), rogue_key.get(), nullptr, Now() - absl::Hours(1),
              Now() + absl::Hours(24));
  r = CheckCrl(foreign, leaf_der_, issuer_der_, Now());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("someone else"), std::string::npos);

  std::string stale = MakeCrl(issuer_.get(), key_.get(), nullptr,
                              Now() - absl::Hours(48), Now() - absl::Hours(24));
  r = CheckCrl(stale, leaf_der_, issuer_der_, Now());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("expired"), std::string::npos);

  EXPECT_FALSE(CheckCrl("not a crl", leaf_der_, issuer_der_, Now()).ok());
  std::string good = MakeCrl(issuer_.get(), key_.get(), nullptr,
                             Now() - absl::Hours(1), Now() + absl::Hours(1));
  EXPECT_FALSE(
      CheckCrl(good.substr(0, good.size() - 3), leaf_der_, issuer_der_, Now())
          .ok());
}

}  // namespace
}  // namespace net
