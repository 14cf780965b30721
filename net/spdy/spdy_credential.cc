#include "net/spdy/spdy_credential.h"

#include <openssl/bytestring.h>
#include <openssl/digest.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/mem.h>
#include <openssl/nid.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace net {
namespace {

std::string HashCert(absl::string_view cert_der) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(cert_der.data()), cert_der.size(),
         digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

// The proof's algorithm for |key|, or 0 if the key type is not supported.
uint16_t AlgorithmForKey(const EVP_PKEY* key) {
  switch (EVP_PKEY_id(key)) {
    case EVP_PKEY_EC: {
      const EC_KEY* ec = EVP_PKEY_get0_EC_KEY(key);
      const EC_GROUP* group = ec ? EC_KEY_get0_group(ec) : nullptr;
      if (group && EC_GROUP_get_curve_name(group) == NID_X9_62_prime256v1)
        return kSpdyProofEcdsaSha256;
      return 0;
    }
    case EVP_PKEY_RSA:
      return kSpdyProofRsaPkcs1Sha256;
    case EVP_PKEY_ED25519:
      return kSpdyProofEd25519;
    default:
      return 0;
  }
}

// The digest to sign with (null for Ed25519, which hashes internally).
const EVP_MD* DigestForAlgorithm(uint16_t algorithm) {
  return algorithm == kSpdyProofEd25519 ? nullptr : EVP_sha256();
}

}  // namespace

absl::StatusOr<std::string> SignSpdyCredentialProof(absl::string_view secret,
                                                    EVP_PKEY* key) {
  if (!key) return absl::InvalidArgumentError("no private key");
  uint16_t algorithm = AlgorithmForKey(key);
  if (algorithm == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unsupported key type for a CREDENTIAL proof: ", EVP_PKEY_id(key)));
  }
  bssl::ScopedEVP_MD_CTX ctx;
  size_t sig_len = 0;
  if (!EVP_DigestSignInit(ctx.get(), nullptr, DigestForAlgorithm(algorithm),
                          nullptr, key) ||
      !EVP_DigestSign(ctx.get(), nullptr, &sig_len,
                      reinterpret_cast<const uint8_t*>(secret.data()),
                      secret.size())) {
    ERR_clear_error();
    return absl::InternalError("cannot start signing the CREDENTIAL proof");
  }
  std::string sig(sig_len, '\0');
  if (!EVP_DigestSign(ctx.get(), reinterpret_cast<uint8_t*>(sig.data()),
                      &sig_len, reinterpret_cast<const uint8_t*>(secret.data()),
                      secret.size())) {
    ERR_clear_error();
    return absl::InternalError("signing the CREDENTIAL proof failed");
  }
  sig.resize(sig_len);
  bssl::ScopedCBB cbb;
  CBB child;
  uint8_t* out = nullptr;
  size_t out_len = 0;
  if (!CBB_init(cbb.get(), 4 + sig.size()) ||
      !CBB_add_u16(cbb.get(), algorithm) ||
      !CBB_add_u16_length_prefixed(cbb.get(), &child) ||
      !CBB_add_bytes(&child, reinterpret_cast<const uint8_t*>(sig.data()),
                     sig.size()) ||
      !CBB_finish(cbb.get(), &out, &out_len)) {
    return absl::InternalError("cannot encode the CREDENTIAL proof");
  }
  std::string proof(reinterpret_cast<const char*>(out), out_len);
  OPENSSL_free(out);
  return proof;
}

absl::Status VerifySpdyCredentialProof(absl::string_view proof,
                                       absl::string_view secret,
                                       absl::string_view leaf_cert_der) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(leaf_cert_der.data());
  bssl::UniquePtr<X509> cert(d2i_X509(nullptr, &p, leaf_cert_der.size()));
  if (!cert || p != reinterpret_cast<const uint8_t*>(leaf_cert_der.data()) +
                        leaf_cert_der.size()) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        "the CREDENTIAL's leaf certificate does not parse as DER X.509");
  }
  bssl::UniquePtr<EVP_PKEY> key(X509_get_pubkey(cert.get()));
  if (!key) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        "the CREDENTIAL's certificate has an unusable public key");
  }
  CBS cbs, sig;
  uint16_t algorithm = 0;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(proof.data()), proof.size());
  if (!CBS_get_u16(&cbs, &algorithm) ||
      !CBS_get_u16_length_prefixed(&cbs, &sig) || CBS_len(&cbs) != 0 ||
      CBS_len(&sig) == 0) {
    return absl::InvalidArgumentError(
        "the CREDENTIAL proof is not a digitally-signed structure");
  }
  uint16_t expected = AlgorithmForKey(key.get());
  if (expected == 0 || algorithm != expected) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the CREDENTIAL proof's algorithm 0x%04x does not fit the "
        "certificate's key",
        algorithm));
  }
  bssl::ScopedEVP_MD_CTX ctx;
  if (!EVP_DigestVerifyInit(ctx.get(), nullptr, DigestForAlgorithm(algorithm),
                            nullptr, key.get()) ||
      !EVP_DigestVerify(ctx.get(), CBS_data(&sig), CBS_len(&sig),
                        reinterpret_cast<const uint8_t*>(secret.data()),
                        secret.size())) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        "the CREDENTIAL proof's signature does not verify");
  }
  return absl::OkStatus();
}

absl::StatusOr<SpdyCredentialIR> BuildSpdyCredentialFrame(
    uint16_t slot, absl::string_view secret,
    const std::vector<std::string>& cert_chain_der, EVP_PKEY* key) {
  if (slot == 0) return absl::InvalidArgumentError("CREDENTIAL slot 0");
  if (cert_chain_der.empty() || cert_chain_der.front().empty())
    return absl::InvalidArgumentError("CREDENTIAL without a certificate");
  absl::StatusOr<std::string> proof = SignSpdyCredentialProof(secret, key);
  if (!proof.ok()) return proof.status();
  SpdyCredentialIR frame;
  frame.slot = slot;
  frame.proof = std::move(*proof);
  frame.certificates = cert_chain_der;
  return frame;
}

SpdyCredentialState::SpdyCredentialState(size_t num_slots) {
  Resize(num_slots);
}

void SpdyCredentialState::SetHandshakeCertificate(absl::string_view cert_der) {
  if (slots_.empty() || cert_der.empty()) return;
  slots_[0].cert_hash = HashCert(cert_der);
  slots_[0].last_used = ++clock_;
}

size_t SpdyCredentialState::FindSlot(absl::string_view cert_der) {
  std::string hash = HashCert(cert_der);
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].cert_hash == hash) {
      slots_[i].last_used = ++clock_;
      return i + 1;
    }
  }
  return 0;
}

size_t SpdyCredentialState::Assign(absl::string_view cert_der) {
  if (slots_.empty()) return 0;
  size_t victim = 0;
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].cert_hash.empty()) {
      victim = i;
      break;
    }
    if (slots_[i].last_used < slots_[victim].last_used) victim = i;
  }
  slots_[victim].cert_hash = HashCert(cert_der);
  slots_[victim].last_used = ++clock_;
  return victim + 1;
}

void SpdyCredentialState::Release(size_t slot) {
  if (slot >= 1 && slot <= slots_.size()) slots_[slot - 1] = Slot();
}

void SpdyCredentialState::Resize(size_t num_slots) {
  slots_.resize(std::min(num_slots, kSpdyMaxCredentialSlots));
}

size_t SpdyCredentialState::used_slots() const {
  return std::count_if(slots_.begin(), slots_.end(),
                       [](const Slot& s) { return !s.cert_hash.empty(); });
}

}  // namespace net
