// The TLS 1.2 cryptography the Snap Start core needs, on BoringSSL's
// primitives: the SHA-256 PRF (RFC 5246 section 5), the master secret (classic
// and extended, RFC 7627), key block and Finished for
// TLS_RSA_WITH_AES_128_GCM_SHA256, the static-RSA premaster secret (RFC 5246
// section 7.4.7.1, with a constant-time Bleichenbacher countermeasure on the
// server), and the running handshake transcript hash.
//
// Static RSA is the only key exchange Snap Start can use (the client cannot
// predict an ephemeral ServerKeyExchange), so this path has no forward
// secrecy. Stateless functions plus a small value type.

#ifndef NET_SNAP_START_TLS12_CRYPTO_H_
#define NET_SNAP_START_TLS12_CRYPTO_H_

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace net {

inline constexpr uint16_t kTls12Version = 0x0303;
// TLS_RSA_WITH_AES_128_GCM_SHA256, the one suite of the core.
inline constexpr uint16_t kTlsRsaWithAes128GcmSha256 = 0x009c;
inline constexpr size_t kMasterSecretSize = 48;
inline constexpr size_t kPremasterSecretSize = 48;
inline constexpr size_t kFinishedSize = 12;
inline constexpr size_t kAes128GcmKeySize = 16;
inline constexpr size_t kAes128GcmFixedIvSize = 4;

// P_SHA256 PRF: |out_len| bytes of PRF(secret, label, seed).
std::string Tls12Prf(absl::string_view secret, absl::string_view label,
                     absl::string_view seed, size_t out_len);

// The classic master secret: PRF(premaster, "master secret", client_random +
// server_random).
std::string Tls12MasterSecret(absl::string_view premaster,
                              absl::string_view client_random,
                              absl::string_view server_random);

// The extended master secret (RFC 7627 section 4): PRF(premaster, "extended
// master secret", session_hash), where |session_hash| is the transcript hash
// of every handshake message up to and including the ClientKeyExchange.
std::string Tls12ExtendedMasterSecret(absl::string_view premaster,
                                      absl::string_view session_hash);

// The traffic keys for AES-128-GCM (no MAC keys).
struct Tls12KeyBlock {
  std::string client_write_key;
  std::string server_write_key;
  std::string client_write_iv;  // 4-byte implicit salt
  std::string server_write_iv;
};
Tls12KeyBlock Tls12DeriveKeys(absl::string_view master_secret,
                              absl::string_view client_random,
                              absl::string_view server_random);

// verify_data of a Finished message: 12 bytes.
std::string Tls12FinishedVerifyData(absl::string_view master_secret,
                                    bool from_server,
                                    absl::string_view transcript_hash);

// The whole Finished handshake message (4-byte header, then verify_data), as
// it is sealed into a record and fed to the transcript.
std::string Tls12FinishedMessage(absl::string_view master_secret,
                                 bool from_server,
                                 absl::string_view transcript_hash);

// Whether |received| equals |expected|, in time independent of where they
// differ (Finished messages).
bool FinishedMatches(absl::string_view received, absl::string_view expected);

// |n| bytes from the CSPRNG.
std::string RandomBytes(size_t n);

// A ClientHello/ServerHello random: gmt_unix_time of |now| (4 bytes,
// big-endian) then 28 random bytes.
std::string NewHelloRandom(absl::Time now);

// A fresh premaster secret: |client_version| (the version the ClientHello
// offered), then 46 random bytes.
std::string NewPremasterSecret(uint16_t client_version = kTls12Version);

// Client: encrypts |premaster| to the RSA key in the DER certificate
// |leaf_der| (PKCS #1 v1.5). InvalidArgument if the key is not RSA.
absl::StatusOr<std::string> RsaEncryptPremaster(absl::string_view leaf_der,
                                                absl::string_view premaster);

// Server: decrypts an encrypted premaster. Never fails visibly: a length,
// padding or version error yields a random premaster (RFC 5246 7.4.7.1), so
// the handshake fails later at Finished, indistinguishably. |client_version|
// is the version the client offered in its ClientHello. The RSA operation
// runs without padding; the PKCS #1 v1.5 check, the version check and the
// choice between the decrypted and the random premaster are branch-free
// (PremasterFromPkcs1Block).
std::string RsaDecryptPremaster(EVP_PKEY* key, absl::string_view encrypted,
                                uint16_t client_version);

// The constant-time core of RsaDecryptPremaster: |block| is the raw RSA
// output (as long as the modulus, at least 11 + 48 bytes). Returns the 48-byte
// premaster it carries if |block| is 00 02 || nonzero padding || 00 ||
// client_version || 46 bytes, else |random_premaster| (48 bytes). Neither the
// running time nor the memory accessed depends on which is returned.
std::string PremasterFromPkcs1Block(absl::string_view block,
                                    uint16_t client_version,
                                    absl::string_view random_premaster);

// Transcript is the running SHA-256 over handshake messages; Hash() does not
// disturb it.
class Transcript {
 public:
  Transcript() { SHA256_Init(&ctx_); }
  void Update(absl::string_view bytes) {
    SHA256_Update(&ctx_, bytes.data(), bytes.size());
  }
  std::string Hash() const;
  void Reset() { SHA256_Init(&ctx_); }

 private:
  SHA256_CTX ctx_;
};

}  // namespace net

#endif  // NET_SNAP_START_TLS12_CRYPTO_H_
