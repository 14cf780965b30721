#include "net/snap_start/tls12_record.h"

#include <openssl/bytestring.h>

#include "absl/strings/str_cat.h"

namespace net {

std::string SerializeRecord(uint8_t type, uint16_t version,
                            absl::string_view fragment) {
  std::string out;
  out.reserve(kTlsRecordHeaderSize + fragment.size());
  out.push_back(static_cast<char>(type));
  out.push_back(static_cast<char>(version >> 8));
  out.push_back(static_cast<char>(version & 0xff));
  out.push_back(static_cast<char>(fragment.size() >> 8));
  out.push_back(static_cast<char>(fragment.size() & 0xff));
  out.append(fragment.data(), fragment.size());
  return out;
}

std::string SerializeHandshakeRecords(absl::string_view messages) {
  std::string out;
  while (!messages.empty()) {
    absl::string_view chunk = messages.substr(0, kMaxPlaintextSize);
    messages.remove_prefix(chunk.size());
    out += SerializeRecord(kTlsHandshake, kRecordVersion, chunk);
  }
  return out;
}

absl::StatusOr<std::optional<TlsRecord>> RecordBuffer::Next() {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(buffer_.data()),
           buffer_.size());
  uint8_t type;
  uint16_t version, length;
  if (!CBS_get_u8(&cbs, &type) || !CBS_get_u16(&cbs, &version) ||
      !CBS_get_u16(&cbs, &length)) {
    return std::nullopt;
  }
  if (type < kTlsChangeCipherSpec || type > kTlsApplicationData) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown TLS record type ", type));
  }
  if ((version >> 8) != 3) {
    return absl::InvalidArgumentError("record version is not TLS");
  }
  if (length > kMaxCiphertextSize) {
    return absl::InvalidArgumentError("record too long");
  }
  CBS fragment;
  if (!CBS_get_bytes(&cbs, &fragment, length)) return std::nullopt;
  TlsRecord record;
  record.type = type;
  record.version = version;
  record.fragment.assign(reinterpret_cast<const char*>(CBS_data(&fragment)),
                         CBS_len(&fragment));
  buffer_.erase(0, kTlsRecordHeaderSize + length);
  return record;
}

absl::StatusOr<std::unique_ptr<RecordCipher>> RecordCipher::Create(
    absl::string_view key, absl::string_view fixed_iv) {
  if (fixed_iv.size() != 4) {
    return absl::InvalidArgumentError("AES-GCM implicit IV must be 4 bytes");
  }
  std::unique_ptr<RecordCipher> cipher(new RecordCipher);
  if (!EVP_AEAD_CTX_init(&cipher->ctx_, EVP_aead_aes_128_gcm(),
                         reinterpret_cast<const uint8_t*>(key.data()),
                         key.size(), EVP_AEAD_DEFAULT_TAG_LENGTH, nullptr)) {
    return absl::InvalidArgumentError("bad AES-128-GCM key");
  }
  cipher->initialized_ = true;
  cipher->fixed_iv_ = std::string(fixed_iv);
  return cipher;
}

RecordCipher::~RecordCipher() {
  if (initialized_) EVP_AEAD_CTX_cleanup(&ctx_);
}

void RecordCipher::Nonce(uint64_t explicit_nonce, uint8_t out[12]) const {
  memcpy(out, fixed_iv_.data(), 4);
  for (int i = 0; i < 8; ++i)
    out[4 + i] = static_cast<uint8_t>(explicit_nonce >> (56 - 8 * i));
}

namespace {

void AdditionalData(uint64_t seq, uint8_t type, uint16_t version, size_t length,
                    uint8_t out[13]) {
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<uint8_t>(seq >> (56 - 8 * i));
  out[8] = type;
  out[9] = static_cast<uint8_t>(version >> 8);
  out[10] = static_cast<uint8_t>(version & 0xff);
  out[11] = static_cast<uint8_t>(length >> 8);
  out[12] = static_cast<uint8_t>(length & 0xff);
}

}  // namespace

std::string RecordCipher::Seal(uint8_t type, absl::string_view plaintext) {
  uint8_t nonce[12];
  Nonce(seq_, nonce);
  uint8_t ad[13];
  AdditionalData(seq_, type, kRecordVersion, plaintext.size(), ad);
  std::string fragment(
      8 + plaintext.size() + EVP_AEAD_max_overhead(EVP_aead_aes_128_gcm()),
      '\0');
  memcpy(fragment.data(), nonce + 4, 8);
  size_t out_len = 0;
  EVP_AEAD_CTX_seal(&ctx_, reinterpret_cast<uint8_t*>(fragment.data()) + 8,
                    &out_len, fragment.size() - 8, nonce, sizeof(nonce),
                    reinterpret_cast<const uint8_t*>(plaintext.data()),
                    plaintext.size(), ad, sizeof(ad));
  fragment.resize(8 + out_len);
  ++seq_;
  return SerializeRecord(type, kRecordVersion, fragment);
}

std::string RecordCipher::SealAll(uint8_t type, absl::string_view plaintext) {
  std::string out;
  do {
    absl::string_view chunk = plaintext.substr(0, kMaxPlaintextSize);
    plaintext.remove_prefix(chunk.size());
    out += Seal(type, chunk);
  } while (!plaintext.empty());
  return out;
}

absl::StatusOr<std::string> RecordCipher::Open(const TlsRecord& record) {
  const size_t overhead = 8 + EVP_AEAD_max_overhead(EVP_aead_aes_128_gcm());
  if (record.fragment.size() < overhead) {
    return absl::InvalidArgumentError("encrypted record too short");
  }
  const size_t plaintext_len = record.fragment.size() - overhead;
  if (plaintext_len > kMaxPlaintextSize) {
    return absl::InvalidArgumentError("record plaintext too long");
  }
  uint8_t nonce[12];
  memcpy(nonce, fixed_iv_.data(), 4);
  memcpy(nonce + 4, record.fragment.data(), 8);
  uint8_t ad[13];
  AdditionalData(seq_, record.type, record.version, plaintext_len, ad);
  std::string out(plaintext_len, '\0');
  size_t out_len = 0;
  if (!EVP_AEAD_CTX_open(
          &ctx_, reinterpret_cast<uint8_t*>(out.data()), &out_len, out.size(),
          nonce, sizeof(nonce),
          reinterpret_cast<const uint8_t*>(record.fragment.data()) + 8,
          record.fragment.size() - 8, ad, sizeof(ad))) {
    return absl::InvalidArgumentError("bad record MAC");
  }
  out.resize(out_len);
  ++seq_;
  return out;
}

std::string SerializeHandshake(uint8_t type, absl::string_view body) {
  std::string out;
  out.reserve(4 + body.size());
  out.push_back(static_cast<char>(type));
  out.push_back(static_cast<char>((body.size() >> 16) & 0xff));
  out.push_back(static_cast<char>((body.size() >> 8) & 0xff));
  out.push_back(static_cast<char>(body.size() & 0xff));
  out.append(body.data(), body.size());
  return out;
}

absl::StatusOr<std::optional<HandshakeMessage>> HandshakeBuffer::Next() {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(buffer_.data()),
           buffer_.size());
  uint8_t type;
  uint32_t length;
  if (!CBS_get_u8(&cbs, &type) || !CBS_get_u24(&cbs, &length)) {
    return std::nullopt;
  }
  if (length > kMaxHandshakeMessageSize) {
    return absl::InvalidArgumentError("handshake message too long");
  }
  if (CBS_len(&cbs) < length) return std::nullopt;
  HandshakeMessage message;
  message.type = type;
  message.raw = buffer_.substr(0, 4 + length);
  message.body = buffer_.substr(4, length);
  buffer_.erase(0, 4 + length);
  return message;
}

}  // namespace net
