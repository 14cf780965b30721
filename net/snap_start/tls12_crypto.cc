#include "net/snap_start/tls12_crypto.h"

#include <openssl/bytestring.h>
#include <openssl/err.h>
#include <openssl/hmac.h>
#include <openssl/mem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace net {
namespace {

std::string HmacSha256(absl::string_view key, absl::string_view a,
                       absl::string_view b) {
  HMAC_CTX ctx;
  HMAC_CTX_init(&ctx);
  HMAC_Init_ex(&ctx, key.data(), key.size(), EVP_sha256(), nullptr);
  HMAC_Update(&ctx, reinterpret_cast<const uint8_t*>(a.data()), a.size());
  HMAC_Update(&ctx, reinterpret_cast<const uint8_t*>(b.data()), b.size());
  uint8_t out[EVP_MAX_MD_SIZE];
  unsigned out_len = 0;
  HMAC_Final(&ctx, out, &out_len);
  HMAC_CTX_cleanup(&ctx);
  return std::string(reinterpret_cast<char*>(out), out_len);
}

}  // namespace

std::string Tls12Prf(absl::string_view secret, absl::string_view label,
                     absl::string_view seed, size_t out_len) {
  // P_SHA256(secret, label + seed): A(i) = HMAC(secret, A(i-1)),
  // output = HMAC(secret, A(1) + seed') + HMAC(secret, A(2) + seed') + ...
  const std::string full_seed = absl::StrCat(label, seed);
  std::string a = HmacSha256(secret, full_seed, "");
  std::string out;
  while (out.size() < out_len) {
    out += HmacSha256(secret, a, full_seed);
    a = HmacSha256(secret, a, "");
  }
  out.resize(out_len);
  return out;
}

std::string Tls12MasterSecret(absl::string_view premaster,
                              absl::string_view client_random,
                              absl::string_view server_random) {
  return Tls12Prf(premaster, "master secret",
                  absl::StrCat(client_random, server_random),
                  kMasterSecretSize);
}

std::string Tls12ExtendedMasterSecret(absl::string_view premaster,
                                      absl::string_view session_hash) {
  return Tls12Prf(premaster, "extended master secret", session_hash,
                  kMasterSecretSize);
}

Tls12KeyBlock Tls12DeriveKeys(absl::string_view master_secret,
                              absl::string_view client_random,
                              absl::string_view server_random) {
  const size_t total = 2 * (kAes128GcmKeySize + kAes128GcmFixedIvSize);
  const std::string block =
      Tls12Prf(master_secret, "key expansion",
               absl::StrCat(server_random, client_random), total);
  Tls12KeyBlock keys;
  size_t at = 0;
  keys.client_write_key = block.substr(at, kAes128GcmKeySize);
  at += kAes128GcmKeySize;
  keys.server_write_key = block.substr(at, kAes128GcmKeySize);
  at += kAes128GcmKeySize;
  keys.client_write_iv = block.substr(at, kAes128GcmFixedIvSize);
  at += kAes128GcmFixedIvSize;
  keys.server_write_iv = block.substr(at, kAes128GcmFixedIvSize);
  return keys;
}

std::string Tls12FinishedVerifyData(absl::string_view master_secret,
                                    bool from_server,
                                    absl::string_view transcript_hash) {
  return Tls12Prf(master_secret,
                  from_server ? "server finished" : "client finished",
                  transcript_hash, kFinishedSize);
}

std::string Tls12FinishedMessage(absl::string_view master_secret,
                                 bool from_server,
                                 absl::string_view transcript_hash) {
  const std::string verify_data =
      Tls12FinishedVerifyData(master_secret, from_server, transcript_hash);
  // Handshake type 20 (finished), u24 length 12.
  return absl::StrCat(absl::string_view("\x14\x00\x00\x0c", 4), verify_data);
}

bool FinishedMatches(absl::string_view received, absl::string_view expected) {
  return received.size() == expected.size() &&
         CRYPTO_memcmp(received.data(), expected.data(), expected.size()) == 0;
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  RAND_bytes(reinterpret_cast<uint8_t*>(out.data()), n);
  return out;
}

std::string NewHelloRandom(absl::Time now) {
  const uint32_t seconds = static_cast<uint32_t>(absl::ToUnixSeconds(now));
  std::string out = RandomBytes(32);
  for (int i = 0; i < 4; ++i) {
    out[i] = static_cast<char>(seconds >> (24 - 8 * i));
  }
  return out;
}

std::string NewPremasterSecret(uint16_t client_version) {
  std::string premaster(kPremasterSecretSize, '\0');
  premaster[0] = static_cast<char>(client_version >> 8);
  premaster[1] = static_cast<char>(client_version & 0xff);
  RAND_bytes(reinterpret_cast<uint8_t*>(&premaster[2]), premaster.size() - 2);
  return premaster;
}

absl::StatusOr<std::string> RsaEncryptPremaster(absl::string_view leaf_der,
                                                absl::string_view premaster) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(leaf_der.data());
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      d2i_X509(nullptr, &p, static_cast<long>(leaf_der.size())), X509_free);
  if (!cert || p != reinterpret_cast<const uint8_t*>(leaf_der.data()) +
                        leaf_der.size()) {
    return absl::InvalidArgumentError("leaf certificate does not parse");
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      X509_get_pubkey(cert.get()), EVP_PKEY_free);
  RSA* rsa = key ? EVP_PKEY_get0_RSA(key.get()) : nullptr;
  if (rsa == nullptr) {
    return absl::InvalidArgumentError(
        "leaf key is not RSA: static-RSA key exchange impossible");
  }
  std::string out(RSA_size(rsa), '\0');
  size_t out_len = 0;
  if (!RSA_encrypt(rsa, &out_len, reinterpret_cast<uint8_t*>(out.data()),
                   out.size(),
                   reinterpret_cast<const uint8_t*>(premaster.data()),
                   premaster.size(), RSA_PKCS1_PADDING)) {
    return absl::InternalError("RSA encryption of the premaster failed");
  }
  out.resize(out_len);
  return out;
}

namespace {

// Constant-time helpers in the manner of BoringSSL's crypto/internal.h (which
// Debian's package does not install). A mask is all ones (true) or all zeros
// (false); no helper branches on its inputs.

// ValueBarrier hides |a| from the optimizer, so that it cannot turn the mask
// arithmetic below back into a branch.
inline uint32_t ValueBarrier(uint32_t a) {
  __asm__("" : "+r"(a) : /* no inputs */);
  return a;
}

// All ones if the top bit of |a| is set.
inline uint32_t CtMsb(uint32_t a) { return 0u - (a >> 31); }

// All ones if |a| is zero: only for a == 0 do both ~a and a - 1 have the top
// bit set.
inline uint32_t CtIsZero(uint32_t a) { return CtMsb(~a & (a - 1)); }

inline uint32_t CtEq(uint32_t a, uint32_t b) { return CtIsZero(a ^ b); }

inline uint8_t CtSelect8(uint8_t mask, uint8_t a, uint8_t b) {
  const uint8_t m = static_cast<uint8_t>(ValueBarrier(mask));
  return static_cast<uint8_t>((m & a) | (static_cast<uint8_t>(~m) & b));
}

}  // namespace

std::string PremasterFromPkcs1Block(absl::string_view block,
                                    uint16_t client_version,
                                    absl::string_view random_premaster) {
  // Lengths are public (the modulus size); only the contents are secret.
  if (random_premaster.size() != kPremasterSecretSize ||
      block.size() < 11 + kPremasterSecretSize) {
    return std::string(random_premaster);
  }
  const uint8_t* b = reinterpret_cast<const uint8_t*>(block.data());
  // EM = 00 || 02 || PS (nonzero, at least 8 bytes) || 00 || M, with M the
  // 48-byte premaster (RFC 8017 section 7.2.2): so the separator must sit
  // exactly at |padding_len| - 1 and every byte before it from 2 on must be
  // nonzero.
  const size_t padding_len = block.size() - kPremasterSecretSize;
  uint32_t good = CtEq(b[0], 0) & CtEq(b[1], 2);
  for (size_t i = 2; i < padding_len - 1; ++i) {
    good &= ~CtIsZero(b[i]);
  }
  good &= CtIsZero(b[padding_len - 1]);
  // The premaster begins with the version the ClientHello offered (RFC 5246
  // section 7.4.7.1), checked in constant time as well (Klima, Pokorny and
  // Rosa, 2003).
  good &= CtEq(b[padding_len], client_version >> 8);
  good &= CtEq(b[padding_len + 1], client_version & 0xff);
  const uint8_t mask = static_cast<uint8_t>(good);
  std::string out(kPremasterSecretSize, '\0');
  for (size_t i = 0; i < kPremasterSecretSize; ++i) {
    out[i] = static_cast<char>(CtSelect8(
        mask, b[padding_len + i], static_cast<uint8_t>(random_premaster[i])));
  }
  return out;
}

std::string RsaDecryptPremaster(EVP_PKEY* key, absl::string_view encrypted,
                                uint16_t client_version) {
  // The fallback is drawn before decrypting and every failure uses it, so the
  // peer learns nothing until Finished, which then fails the same way for
  // every kind of bad ClientKeyExchange.
  const std::string random_premaster = RandomBytes(kPremasterSecretSize);
  RSA* rsa = key ? EVP_PKEY_get0_RSA(key) : nullptr;
  if (rsa == nullptr) return random_premaster;
  const size_t modulus_len = RSA_size(rsa);
  // Public facts (the key size and the ciphertext's length) may branch.
  if (modulus_len < 11 + kPremasterSecretSize ||
      encrypted.size() != modulus_len) {
    return random_premaster;
  }
  // Decrypt without padding: the padding is checked below, branch-free.
  std::string block(modulus_len, '\0');
  size_t block_len = 0;
  const bool decrypted =
      RSA_decrypt(rsa, &block_len, reinterpret_cast<uint8_t*>(block.data()),
                  block.size(),
                  reinterpret_cast<const uint8_t*>(encrypted.data()),
                  encrypted.size(), RSA_NO_PADDING) != 0;
  ERR_clear_error();
  // Fails only for a ciphertext not below the modulus: public too.
  if (!decrypted || block_len != modulus_len) {
    OPENSSL_cleanse(block.data(), block.size());
    return random_premaster;
  }
  std::string premaster =
      PremasterFromPkcs1Block(block, client_version, random_premaster);
  OPENSSL_cleanse(block.data(), block.size());
  return premaster;
}

std::string Transcript::Hash() const {
  SHA256_CTX copy = ctx_;
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256_Final(digest, &copy);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

}  // namespace net
