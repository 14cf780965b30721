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
#include "absl/time/clock.h"

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

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  RAND_bytes(reinterpret_cast<uint8_t*>(out.data()), n);
  return out;
}

std::string NewHelloRandom() {
  const uint32_t now = static_cast<uint32_t>(absl::ToUnixSeconds(absl::Now()));
  std::string out = RandomBytes(32);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(now >> (24 - 8 * i));
  return out;
}

std::string NewPremasterSecret() {
  std::string premaster(kPremasterSecretSize, '\0');
  premaster[0] = static_cast<char>(kTls12Version >> 8);
  premaster[1] = static_cast<char>(kTls12Version & 0xff);
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

std::string RsaDecryptPremaster(EVP_PKEY* key, absl::string_view encrypted) {
  // The fallback is chosen before decrypting, and used on every failure, so
  // the outcome does not branch on padding validity in a way the peer sees.
  std::string fallback = NewPremasterSecret();
  RSA* rsa = EVP_PKEY_get0_RSA(key);
  if (rsa == nullptr) return fallback;
  std::vector<uint8_t> out(RSA_size(rsa));
  size_t out_len = 0;
  ERR_clear_error();
  const bool ok =
      RSA_decrypt(rsa, &out_len, out.data(), out.size(),
                  reinterpret_cast<const uint8_t*>(encrypted.data()),
                  encrypted.size(), RSA_PKCS1_PADDING) != 0;
  ERR_clear_error();
  if (!ok || out_len != kPremasterSecretSize ||
      out[0] != (kTls12Version >> 8) || out[1] != (kTls12Version & 0xff)) {
    return fallback;
  }
  return std::string(reinterpret_cast<char*>(out.data()), out_len);
}

std::string Transcript::Hash() const {
  SHA256_CTX copy = ctx_;
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256_Final(digest, &copy);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

}  // namespace net
