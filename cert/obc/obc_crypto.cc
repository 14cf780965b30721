#include "cert/obc/obc_crypto.h"

#include <openssl/bn.h>
#include <openssl/bytestring.h>
#include <openssl/curve25519.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/mem.h>
#include <openssl/nid.h>
#include <openssl/obj.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "absl/strings/str_cat.h"
#include "net/base/tick_clock.h"

namespace net {
namespace {

absl::Status CryptoError(absl::string_view what) {
  return absl::InternalError(absl::StrCat("BoringSSL: ", what, " failed"));
}

const uint8_t* Bytes(absl::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// ParseCertificate parses exactly one DER certificate.
bssl::UniquePtr<X509> ParseCertificate(absl::string_view der) {
  const uint8_t* p = Bytes(der);
  bssl::UniquePtr<X509> cert(d2i_X509(nullptr, &p, der.size()));
  if (!cert || p != Bytes(der) + der.size()) return nullptr;
  return cert;
}

bssl::UniquePtr<EVP_PKEY> GenerateRsa(int bits) {
  bssl::UniquePtr<RSA> rsa(RSA_new());
  bssl::UniquePtr<BIGNUM> e(BN_new());
  if (!rsa || !e || !BN_set_word(e.get(), RSA_F4) ||
      !RSA_generate_key_ex(rsa.get(), bits, e.get(), nullptr))
    return nullptr;
  bssl::UniquePtr<EVP_PKEY> pkey(EVP_PKEY_new());
  if (!pkey || !EVP_PKEY_assign_RSA(pkey.get(), rsa.release())) return nullptr;
  return pkey;
}

bssl::UniquePtr<EVP_PKEY> GenerateP256() {
  bssl::UniquePtr<EC_KEY> ec(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  if (!ec || !EC_KEY_generate_key(ec.get())) return nullptr;
  bssl::UniquePtr<EVP_PKEY> pkey(EVP_PKEY_new());
  if (!pkey || !EVP_PKEY_assign_EC_KEY(pkey.get(), ec.release()))
    return nullptr;
  return pkey;
}

bssl::UniquePtr<EVP_PKEY> GenerateEd25519() {
  bssl::UniquePtr<EVP_PKEY_CTX> ctx(
      EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || !EVP_PKEY_keygen_init(ctx.get()) ||
      !EVP_PKEY_keygen(ctx.get(), &raw))
    return nullptr;
  return bssl::UniquePtr<EVP_PKEY>(raw);
}

// RandomSerial returns a positive, non-zero 127-bit serial: fresh randomness
// per certificate, so serials follow no pattern that could link two scopes.
bssl::UniquePtr<ASN1_INTEGER> RandomSerial() {
  uint8_t bytes[16];
  RAND_bytes(bytes, sizeof(bytes));
  bytes[0] &= 0x7f;
  bytes[0] |= 0x40;  // Non-zero, and always 16 bytes long: no length pattern.
  bssl::UniquePtr<BIGNUM> bn(BN_bin2bn(bytes, sizeof(bytes), nullptr));
  if (!bn) return nullptr;
  return bssl::UniquePtr<ASN1_INTEGER>(BN_to_ASN1_INTEGER(bn.get(), nullptr));
}

bool AddExtensions(X509* x509) {
  bssl::UniquePtr<BASIC_CONSTRAINTS> bc(BASIC_CONSTRAINTS_new());
  if (!bc) return false;
  bc->ca = 0;
  if (!X509_add1_ext_i2d(x509, NID_basic_constraints, bc.get(), /*crit=*/1,
                         X509V3_ADD_DEFAULT))
    return false;

  bssl::UniquePtr<ASN1_BIT_STRING> usage(ASN1_BIT_STRING_new());
  if (!usage ||
      !ASN1_BIT_STRING_set_bit(usage.get(), 0 /*digitalSignature*/, 1) ||
      !X509_add1_ext_i2d(x509, NID_key_usage, usage.get(), /*crit=*/1,
                         X509V3_ADD_DEFAULT))
    return false;

  bssl::UniquePtr<EXTENDED_KEY_USAGE> eku(sk_ASN1_OBJECT_new_null());
  ASN1_OBJECT* client_auth = OBJ_nid2obj(NID_client_auth);
  if (!eku || client_auth == nullptr ||
      !sk_ASN1_OBJECT_push(eku.get(), client_auth))
    return false;
  bool ok = X509_add1_ext_i2d(x509, NID_ext_key_usage, eku.get(), /*crit=*/0,
                              X509V3_ADD_DEFAULT);
  // OBJ_nid2obj returns a static object; do not let the stack free it.
  sk_ASN1_OBJECT_pop(eku.get());
  return ok;
}

}  // namespace

absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> GenerateKey(KeyAlgorithm algorithm) {
  bssl::UniquePtr<EVP_PKEY> key;
  switch (algorithm) {
    case KeyAlgorithm::kEcdsaP256:
      key = GenerateP256();
      break;
    case KeyAlgorithm::kRsa1024:
      key = GenerateRsa(1024);
      break;
    case KeyAlgorithm::kRsa2048:
      key = GenerateRsa(2048);
      break;
    case KeyAlgorithm::kEd25519:
      key = GenerateEd25519();
      break;
  }
  if (!key)
    return CryptoError(
        absl::StrCat(KeyAlgorithmToString(algorithm), " key generation"));
  return key;
}

absl::StatusOr<std::string> MintCertificate(EVP_PKEY* key, absl::Time now) {
  std::optional<KeyAlgorithm> algorithm = KeyAlgorithmOf(key);
  if (!algorithm.has_value())
    return absl::InvalidArgumentError("unsupported key type");

  // Whole UTC days: the validity then says nothing finer about when this
  // key was made than the day before, shared by everyone minting that day.
  int64_t day = absl::ToUnixSeconds(now) / 86400;
  time_t not_before = static_cast<time_t>((day - 1) * 86400);
  time_t not_after = not_before + absl::ToInt64Seconds(kObcValidity);

  bssl::UniquePtr<X509> x509(X509_new());
  bssl::UniquePtr<ASN1_INTEGER> serial = RandomSerial();
  bssl::UniquePtr<X509_NAME> name(X509_NAME_new());
  bssl::UniquePtr<ASN1_TIME> start(ASN1_TIME_set(nullptr, not_before));
  bssl::UniquePtr<ASN1_TIME> end(ASN1_TIME_set(nullptr, not_after));
  if (!x509 || !serial || !name || !start || !end)
    return CryptoError("allocation");
  if (!X509_set_version(x509.get(), X509_VERSION_3) ||
      !X509_set_serialNumber(x509.get(), serial.get()) ||
      !X509_NAME_add_entry_by_txt(
          name.get(), "CN", MBSTRING_UTF8,
          reinterpret_cast<const uint8_t*>(kObcSubjectCommonName), -1, -1, 0) ||
      !X509_set_subject_name(x509.get(), name.get()) ||
      !X509_set_issuer_name(x509.get(), name.get()) ||
      !X509_set1_notBefore(x509.get(), start.get()) ||
      !X509_set1_notAfter(x509.get(), end.get()) ||
      !X509_set_pubkey(x509.get(), key) || !AddExtensions(x509.get()))
    return CryptoError("certificate assembly");
  const EVP_MD* digest =
      *algorithm == KeyAlgorithm::kEd25519 ? nullptr : EVP_sha256();
  if (!X509_sign(x509.get(), key, digest))
    return CryptoError("certificate signing");

  uint8_t* der = nullptr;
  int len = i2d_X509(x509.get(), &der);
  if (len <= 0) return CryptoError("certificate encoding");
  std::string out(reinterpret_cast<const char*>(der), len);
  OPENSSL_free(der);
  return out;
}

absl::StatusOr<ObcKeyMaterial> MakeKeyMaterial(KeyAlgorithm algorithm,
                                               absl::Time now) {
  TimeTicks start = TimeTicks::Now();
  ObcKeyMaterial material;
  material.algorithm = algorithm;
  absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> key = GenerateKey(algorithm);
  if (!key.ok()) return key.status();
  material.key = std::move(*key);
  absl::StatusOr<std::string> cert = MintCertificate(material.key.get(), now);
  if (!cert.ok()) return cert.status();
  material.cert_der = std::move(*cert);
  absl::StatusOr<std::string> pkcs8 = MarshalPrivateKey(material.key.get());
  if (!pkcs8.ok()) return pkcs8.status();
  material.key_pkcs8 = std::move(*pkcs8);
  material.generation_time = TimeTicks::Now() - start;
  return material;
}

absl::StatusOr<std::string> MarshalPrivateKey(const EVP_PKEY* key) {
  bssl::ScopedCBB cbb;
  uint8_t* data = nullptr;
  size_t len = 0;
  if (!CBB_init(cbb.get(), 256) || !EVP_marshal_private_key(cbb.get(), key) ||
      !CBB_finish(cbb.get(), &data, &len))
    return CryptoError("private key encoding");
  std::string out(reinterpret_cast<const char*>(data), len);
  OPENSSL_free(data);
  return out;
}

absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> ParsePrivateKey(
    absl::string_view der) {
  CBS cbs;
  CBS_init(&cbs, Bytes(der), der.size());
  bssl::UniquePtr<EVP_PKEY> key(EVP_parse_private_key(&cbs));
  if (!key || CBS_len(&cbs) != 0)
    return absl::DataLossError("private key is not one PKCS#8 PrivateKeyInfo");
  return key;
}

std::optional<KeyAlgorithm> KeyAlgorithmOf(const EVP_PKEY* key) {
  if (key == nullptr) return std::nullopt;
  switch (EVP_PKEY_id(key)) {
    case EVP_PKEY_EC: {
      const EC_KEY* ec = EVP_PKEY_get0_EC_KEY(const_cast<EVP_PKEY*>(key));
      if (ec != nullptr && EC_GROUP_get_curve_name(EC_KEY_get0_group(ec)) ==
                               NID_X9_62_prime256v1)
        return KeyAlgorithm::kEcdsaP256;
      return std::nullopt;
    }
    case EVP_PKEY_RSA:
      if (EVP_PKEY_bits(key) == 1024) return KeyAlgorithm::kRsa1024;
      if (EVP_PKEY_bits(key) == 2048) return KeyAlgorithm::kRsa2048;
      return std::nullopt;
    case EVP_PKEY_ED25519:
      return KeyAlgorithm::kEd25519;
  }
  return std::nullopt;
}

absl::Status CheckCertificateForKey(absl::string_view cert_der, EVP_PKEY* key,
                                    bool verify_signature) {
  bssl::UniquePtr<X509> cert = ParseCertificate(cert_der);
  if (!cert) return absl::DataLossError("certificate does not parse");
  bssl::UniquePtr<EVP_PKEY> cert_key(X509_get_pubkey(cert.get()));
  if (!cert_key || EVP_PKEY_cmp(cert_key.get(), key) != 1)
    return absl::DataLossError("certificate is not for the stored key");
  if (verify_signature && X509_verify(cert.get(), key) != 1)
    return absl::DataLossError("certificate signature does not verify");
  return absl::OkStatus();
}

absl::StatusOr<absl::Time> CertificateNotAfter(absl::string_view cert_der) {
  bssl::UniquePtr<X509> cert = ParseCertificate(cert_der);
  if (!cert) return absl::InvalidArgumentError("certificate does not parse");
  bssl::UniquePtr<ASN1_TIME> epoch(ASN1_TIME_set(nullptr, 0));
  int days = 0, seconds = 0;
  if (!epoch || !ASN1_TIME_diff(&days, &seconds, epoch.get(),
                                X509_get0_notAfter(cert.get())))
    return absl::InvalidArgumentError("certificate has a bad notAfter");
  return absl::FromUnixSeconds(int64_t{days} * 86400 + seconds);
}

absl::StatusOr<std::string> SpkiSha256(absl::string_view cert_der) {
  bssl::UniquePtr<X509> cert = ParseCertificate(cert_der);
  if (!cert) return absl::InvalidArgumentError("certificate does not parse");
  uint8_t* spki = nullptr;
  int len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert.get()), &spki);
  if (len <= 0) return CryptoError("SubjectPublicKeyInfo encoding");
  std::string hash =
      Sha256(absl::string_view(reinterpret_cast<char*>(spki), len));
  OPENSSL_free(spki);
  return hash;
}

std::string Sha256(absl::string_view data) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(Bytes(data), data.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

}  // namespace net
