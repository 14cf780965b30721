// Key generation and OBC minting: every algorithm, the certificate's
// contents (nothing identifying, random serials, day-rounded validity),
// PKCS#8 round trips, and mismatch detection.

#include "cert/obc/obc_crypto.h"

#include <openssl/bn.h>
#include <openssl/mem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace net {
namespace {

bssl::UniquePtr<X509> Parse(const std::string& der) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(der.data());
  return bssl::UniquePtr<X509>(d2i_X509(nullptr, &p, der.size()));
}

std::string NameToString(const X509_NAME* name) {
  char buf[256];
  X509_NAME_oneline(name, buf, sizeof(buf));
  return buf;
}

std::string Serial(X509* cert) {
  bssl::UniquePtr<BIGNUM> bn(
      ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr));
  char* hex = BN_bn2hex(bn.get());
  std::string out(hex);
  OPENSSL_free(hex);
  return out;
}

class ObcCryptoTest : public testing::TestWithParam<KeyAlgorithm> {};

TEST_P(ObcCryptoTest, MakesAValidSelfSignedCertificate) {
  const absl::Time now =
      absl::FromUnixSeconds(1700000000);  // 2023-11-14 22:13:20 UTC
  absl::StatusOr<ObcKeyMaterial> material = MakeKeyMaterial(GetParam(), now);
  ASSERT_TRUE(material.ok()) << material.status();
  EXPECT_EQ(material->algorithm, GetParam());
  EXPECT_EQ(KeyAlgorithmOf(material->key.get()), GetParam());
  EXPECT_GT(material->generation_time, absl::ZeroDuration());
  EXPECT_TRUE(
      CheckCertificateForKey(material->cert_der, material->key.get()).ok());

  bssl::UniquePtr<X509> cert = Parse(material->cert_der);
  ASSERT_TRUE(cert);
  EXPECT_EQ(X509_get_version(cert.get()), X509_VERSION_3);
  EXPECT_EQ(NameToString(X509_get_subject_name(cert.get())),
            "/CN=anonymous.invalid");
  EXPECT_EQ(NameToString(X509_get_issuer_name(cert.get())),
            "/CN=anonymous.invalid");
  // notBefore is the start of the previous UTC day; a year and a day later
  // it expires.
  time_t expected_start = (1700000000 / 86400 - 1) * 86400;
  time_t just_before = expected_start - 1;
  EXPECT_GT(X509_cmp_time(X509_get0_notBefore(cert.get()), &just_before), 0);
  EXPECT_LE(X509_cmp_time(X509_get0_notBefore(cert.get()), &expected_start), 0);
  EXPECT_EQ(CertificateNotAfter(material->cert_der).value(),
            absl::FromUnixSeconds(expected_start) + kObcValidity);
  // Only the three generic extensions.
  EXPECT_EQ(X509_get_ext_count(cert.get()), 3);
  EXPECT_GE(X509_get_ext_by_NID(cert.get(), NID_basic_constraints, -1), 0);
  EXPECT_GE(X509_get_ext_by_NID(cert.get(), NID_key_usage, -1), 0);
  EXPECT_GE(X509_get_ext_by_NID(cert.get(), NID_ext_key_usage, -1), 0);
  EXPECT_EQ(X509_check_ca(cert.get()), 0);

  // PKCS#8 round trip.
  absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> parsed =
      ParsePrivateKey(material->key_pkcs8);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(EVP_PKEY_cmp(parsed->get(), material->key.get()), 1);
  EXPECT_FALSE(ParsePrivateKey(material->key_pkcs8 + "x").ok());
  EXPECT_FALSE(ParsePrivateKey(material->key_pkcs8.substr(1)).ok());
}

TEST_P(ObcCryptoTest, CertificateForAnotherKeyIsRejected) {
  absl::Time now = absl::Now();
  ObcKeyMaterial a = MakeKeyMaterial(GetParam(), now).value();
  ObcKeyMaterial b = MakeKeyMaterial(GetParam(), now).value();
  EXPECT_TRUE(
      absl::IsDataLoss(CheckCertificateForKey(a.cert_der, b.key.get())));
  std::string flipped = a.cert_der;
  flipped[flipped.size() - 5] ^= 0x01;  // Inside the signature.
  EXPECT_FALSE(CheckCertificateForKey(flipped, a.key.get()).ok());
  EXPECT_FALSE(CheckCertificateForKey(a.cert_der + "x", a.key.get()).ok());
}

INSTANTIATE_TEST_SUITE_P(AllAlgorithms, ObcCryptoTest,
                         testing::ValuesIn(kAllKeyAlgorithms),
                         [](const testing::TestParamInfo<KeyAlgorithm>& info) {
                           return std::string(KeyAlgorithmToString(info.param));
                         });

TEST(ObcCryptoTest, SerialsAreRandomAndKeysIndependent) {
  absl::flat_hash_set<std::string> serials, spkis;
  const absl::Time now = absl::Now();
  for (int i = 0; i < 200; ++i) {
    ObcKeyMaterial m = MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, now).value();
    bssl::UniquePtr<X509> cert = Parse(m.cert_der);
    std::string serial = Serial(cert.get());
    EXPECT_EQ(serial.size(), 32u)
        << serial;  // Always 16 bytes: no length pattern.
    EXPECT_TRUE(serials.insert(serial).second);
    EXPECT_TRUE(spkis.insert(SpkiSha256(m.cert_der).value()).second);
  }
}

TEST(ObcCryptoTest, CertificatesOfOneDayDifferOnlyInKeySerialAndSignature) {
  // Two certificates minted the same day share subject, issuer, validity and
  // extensions: nothing in them but the key tells them apart.
  absl::Time morning = absl::FromUnixSeconds(1700000000 / 86400 * 86400 + 60);
  absl::Time evening = morning + absl::Hours(23);
  ObcKeyMaterial a = MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, morning).value();
  ObcKeyMaterial b = MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, evening).value();
  bssl::UniquePtr<X509> ca = Parse(a.cert_der), cb = Parse(b.cert_der);
  EXPECT_EQ(NameToString(X509_get_subject_name(ca.get())),
            NameToString(X509_get_subject_name(cb.get())));
  int days = 1, secs = 1;
  ASSERT_TRUE(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(ca.get()),
                             X509_get0_notBefore(cb.get())));
  EXPECT_EQ(days, 0);
  EXPECT_EQ(secs, 0);
  ASSERT_TRUE(ASN1_TIME_diff(&days, &secs, X509_get0_notAfter(ca.get()),
                             X509_get0_notAfter(cb.get())));
  EXPECT_EQ(days, 0);
  EXPECT_EQ(secs, 0);
}

TEST(ObcTypesTest, NamesRoundTrip) {
  for (KeyAlgorithm a : kAllKeyAlgorithms)
    EXPECT_EQ(ParseKeyAlgorithm(KeyAlgorithmToString(a)), a);
  EXPECT_EQ(ParseKeyAlgorithm("RSA2048"), KeyAlgorithm::kRsa2048);
  EXPECT_EQ(ParseKeyAlgorithm("dsa"), std::nullopt);
  EXPECT_EQ(ParseScopeMode("origin"), ScopeMode::kOrigin);
  EXPECT_EQ(ParseScopeMode("etld"), ScopeMode::kRegistrableDomain);
  EXPECT_EQ(ParseScopeMode("etld+1"), ScopeMode::kRegistrableDomain);
  EXPECT_EQ(ParseScopeMode("host"), std::nullopt);
  EXPECT_STREQ(ObcSourceToString(ObcSource::kPooledKey), "pooled_key");
}

}  // namespace
}  // namespace net
