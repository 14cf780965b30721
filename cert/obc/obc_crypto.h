// Key generation and certificate minting for origin-bound certificates, on
// BoringSSL.
//
// Stateless: callers own what these functions return (keys in
// bssl::UniquePtr). Every function is thread-safe and synchronous.
// GenerateKey and MakeKeyMaterial are CPU-heavy (RSA-2048 takes tens to
// hundreds of milliseconds) and belong on the worker pool, never on the
// network thread; KeyPool is the only production caller.
//
// The certificate carries nothing that identifies the user or links two
// scopes: a fixed subject and issuer (CN=anonymous.invalid), a fresh 127-bit
// random serial, validity rounded to whole UTC days (one day back-dated, one
// year forward), no scope name. So the certificate does not depend on the
// scope and the pool can mint it together with the key, off the critical
// path; what distinguishes two scopes is only their independent keys.

#ifndef CERT_OBC_OBC_CRYPTO_H_
#define CERT_OBC_OBC_CRYPTO_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cert/obc/obc_types.h"

namespace net {

// kObcSubjectCommonName is the subject and issuer CN of every OBC.
inline constexpr char kObcSubjectCommonName[] = "anonymous.invalid";
// kObcValidity is how long a minted certificate is valid after its notBefore.
inline constexpr absl::Duration kObcValidity = absl::Hours(24 * 366);

// ObcKeyMaterial is a fresh key pair with its self-signed certificate: what
// the key pool hands out and the store binds to a scope.
struct ObcKeyMaterial {
  KeyAlgorithm algorithm = KeyAlgorithm::kEcdsaP256;
  bssl::UniquePtr<EVP_PKEY> key;
  // The self-signed certificate, DER.
  std::string cert_der;
  // The private key as PKCS#8 PrivateKeyInfo DER, for persistence.
  std::string key_pkcs8;
  // Wall time spent generating the key and minting the certificate.
  absl::Duration generation_time = absl::ZeroDuration();
};

// GenerateKey returns a fresh key pair of |algorithm|, or an Internal error.
[[nodiscard]] absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> GenerateKey(
    KeyAlgorithm algorithm);

// MintCertificate returns a self-signed X.509 v3 certificate (DER) for |key|:
// subject = issuer = CN=anonymous.invalid, random serial, notBefore = start
// of |now|'s UTC day minus one day, notAfter = notBefore + kObcValidity,
// basicConstraints CA:FALSE, keyUsage digitalSignature, extendedKeyUsage
// clientAuth. Signed with SHA-256 (ECDSA, RSA PKCS#1 v1.5) or Ed25519.
[[nodiscard]] absl::StatusOr<std::string> MintCertificate(EVP_PKEY* key,
                                                          absl::Time now);

// MakeKeyMaterial generates a key, mints its certificate and serializes the
// private key, timing the whole.
[[nodiscard]] absl::StatusOr<ObcKeyMaterial> MakeKeyMaterial(
    KeyAlgorithm algorithm, absl::Time now);

// MarshalPrivateKey returns |key| as PKCS#8 PrivateKeyInfo DER.
[[nodiscard]] absl::StatusOr<std::string> MarshalPrivateKey(
    const EVP_PKEY* key);
// ParsePrivateKey parses PKCS#8 PrivateKeyInfo DER; trailing bytes are an
// error.
[[nodiscard]] absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> ParsePrivateKey(
    absl::string_view der);

// KeyAlgorithmOf returns which KeyAlgorithm |key| is, or nullopt for other
// key types and sizes.
std::optional<KeyAlgorithm> KeyAlgorithmOf(const EVP_PKEY* key);

// CheckCertificateForKey parses |cert_der| (no trailing bytes) and checks
// its public key is |key|'s and, if |verify_signature|, that |key| signed
// it. DataLoss on any mismatch. (Loading a store skips the signature: the
// file's checksum already catches damage, and verifying thousands of
// signatures would slow every profile start.)
absl::Status CheckCertificateForKey(absl::string_view cert_der, EVP_PKEY* key,
                                    bool verify_signature = true);

// CertificateNotAfter returns |cert_der|'s notAfter, or InvalidArgument.
[[nodiscard]] absl::StatusOr<absl::Time> CertificateNotAfter(
    absl::string_view cert_der);

// SpkiSha256 returns the SHA-256 of |cert_der|'s SubjectPublicKeyInfo (the
// value channel-bound cookies bind to), or InvalidArgument.
[[nodiscard]] absl::StatusOr<std::string> SpkiSha256(
    absl::string_view cert_der);
// Sha256 returns the SHA-256 of |data| (32 raw bytes).
std::string Sha256(absl::string_view data);

}  // namespace net

#endif  // CERT_OBC_OBC_CRYPTO_H_
