#include "tools/testserver/ech_keys.h"

#include <openssl/bytestring.h>
#include <openssl/hpke.h>
#include <openssl/mem.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/file_util.h"

namespace net {
namespace {

constexpr char kKeyFileHeader[] = "netstack-ech-key 1";
// What a key file may weigh at most (it is four short lines).
constexpr size_t kMaxKeyFileBytes = 4096;
// The longest name of the configuration's anonymity set, which sizes the
// client's padding of the inner ClientHello.
constexpr size_t kMaxNameLength = 64;
constexpr size_t kX25519PrivateKeySize = 32;

constexpr uint8_t kRecordHandshake = 22;
constexpr uint8_t kClientHello = 1;
constexpr uint16_t kServerNameExtension = 0;
// A ClientHello larger than this is not looked into.
constexpr size_t kMaxClientHello = 64 * 1024;

}  // namespace

absl::StatusOr<std::shared_ptr<const EchKeys>> EchKeys::FromPrivateKey(
    const std::string& private_key, const std::string& public_name,
    uint8_t config_id) {
  bssl::ScopedEVP_HPKE_KEY key;
  if (!EVP_HPKE_KEY_init(key.get(), EVP_hpke_x25519_hkdf_sha256(),
                         reinterpret_cast<const uint8_t*>(private_key.data()),
                         private_key.size())) {
    return absl::InvalidArgumentError("not an X25519 private key");
  }
  uint8_t* config = nullptr;
  size_t config_len = 0;
  if (!SSL_marshal_ech_config(&config, &config_len, config_id, key.get(),
                              public_name.c_str(), kMaxNameLength)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no ECH configuration for the public name '", public_name,
        "' (BoringSSL wants a DNS name that is not an IP address)"));
  }
  bssl::UniquePtr<uint8_t> owned_config(config);
  std::shared_ptr<EchKeys> out(new EchKeys());
  out->keys_.reset(SSL_ECH_KEYS_new());
  // A retry configuration: sent to clients whose configuration the server
  // cannot use, so they can try again with this one.
  if (!out->keys_ || !SSL_ECH_KEYS_add(out->keys_.get(), /*is_retry_config=*/1,
                                       config, config_len, key.get())) {
    return absl::InternalError("SSL_ECH_KEYS_add failed");
  }
  uint8_t* list = nullptr;
  size_t list_len = 0;
  if (!SSL_ECH_KEYS_marshal_retry_configs(out->keys_.get(), &list, &list_len)) {
    return absl::InternalError("SSL_ECH_KEYS_marshal_retry_configs failed");
  }
  out->config_list_.assign(reinterpret_cast<const char*>(list), list_len);
  OPENSSL_free(list);
  out->private_key_ = private_key;
  out->public_name_ = public_name;
  out->config_id_ = config_id;
  return std::shared_ptr<const EchKeys>(std::move(out));
}

absl::StatusOr<std::shared_ptr<const EchKeys>> EchKeys::Generate(
    const Options& options) {
  bssl::ScopedEVP_HPKE_KEY key;
  if (!EVP_HPKE_KEY_generate(key.get(), EVP_hpke_x25519_hkdf_sha256()))
    return absl::InternalError("EVP_HPKE_KEY_generate failed");
  std::string private_key(kX25519PrivateKeySize, '\0');
  size_t len = 0;
  if (!EVP_HPKE_KEY_private_key(key.get(),
                                reinterpret_cast<uint8_t*>(private_key.data()),
                                &len, private_key.size()) ||
      len != kX25519PrivateKeySize) {
    return absl::InternalError("EVP_HPKE_KEY_private_key failed");
  }
  return FromPrivateKey(private_key, options.public_name, options.config_id);
}

absl::StatusOr<std::shared_ptr<const EchKeys>> EchKeys::LoadOrCreate(
    const std::string& path, const Options& options) {
  absl::StatusOr<std::string> text = ReadFileToString(path, kMaxKeyFileBytes);
  if (absl::IsNotFound(text.status())) {
    absl::StatusOr<std::shared_ptr<const EchKeys>> keys = Generate(options);
    if (!keys.ok()) return keys.status();
    const std::string file =
        absl::StrCat(kKeyFileHeader, "\nconfig_id ", (*keys)->config_id_,
                     "\npublic_name ", (*keys)->public_name_, "\nprivate_key ",
                     absl::BytesToHexString((*keys)->private_key_), "\n");
    absl::Status written = WriteFileAtomically(path, file);
    if (!written.ok()) return written;
    return keys;
  }
  if (!text.ok()) return text.status();
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ech-key ", path, ": ", why));
  };
  std::vector<std::string> lines =
      absl::StrSplit(*text, '\n', absl::SkipEmpty());
  if (lines.size() != 4 || lines[0] != kKeyFileHeader)
    return bad(absl::StrCat("not a key file this server wrote (\"",
                            kKeyFileHeader, "\" and three lines)"));
  std::string values[3];
  const char* names[3] = {"config_id ", "public_name ", "private_key "};
  for (int i = 0; i < 3; ++i) {
    if (!absl::StartsWith(lines[i + 1], names[i]))
      return bad(
          absl::StrCat("line ", i + 2, " should start with '", names[i], "'"));
    values[i] = lines[i + 1].substr(strlen(names[i]));
  }
  uint32_t config_id;
  if (!absl::SimpleAtoi(values[0], &config_id) || config_id > 255)
    return bad("config_id is not a number from 0 to 255");
  const std::string& hex = values[2];
  if (hex.size() != 2 * kX25519PrivateKeySize ||
      !std::all_of(hex.begin(), hex.end(),
                   [](char c) { return absl::ascii_isxdigit(c); }))
    return bad("private_key is not 64 hex digits");
  absl::StatusOr<std::shared_ptr<const EchKeys>> keys = FromPrivateKey(
      absl::HexStringToBytes(hex), values[1], static_cast<uint8_t>(config_id));
  if (!keys.ok()) return bad(keys.status().message());
  return keys;
}

std::string EchKeys::ConfigListBase64() const {
  return absl::Base64Escape(config_list_);
}

absl::Status EchKeys::WriteConfigList(const std::string& path) const {
  return WriteFileAtomically(path, ConfigListBase64() + "\n");
}

std::string ClientHelloServerName(absl::string_view first_bytes) {
  // The handshake message, from as many handshake records as it spans.
  CBS records;
  CBS_init(&records, reinterpret_cast<const uint8_t*>(first_bytes.data()),
           first_bytes.size());
  std::string handshake;
  while (CBS_len(&records) > 0 && handshake.size() < kMaxClientHello) {
    uint8_t type;
    uint16_t version;
    CBS fragment;
    if (!CBS_get_u8(&records, &type) || !CBS_get_u16(&records, &version) ||
        !CBS_get_u16_length_prefixed(&records, &fragment) ||
        type != kRecordHandshake)
      break;
    handshake.append(reinterpret_cast<const char*>(CBS_data(&fragment)),
                     CBS_len(&fragment));
  }
  CBS msg, hello, ignored, extensions;
  CBS_init(&msg, reinterpret_cast<const uint8_t*>(handshake.data()),
           handshake.size());
  uint8_t msg_type;
  if (!CBS_get_u8(&msg, &msg_type) || msg_type != kClientHello ||
      !CBS_get_u24_length_prefixed(&msg, &hello) ||
      !CBS_skip(&hello, 2 + 32) ||                        // version, random
      !CBS_get_u8_length_prefixed(&hello, &ignored) ||    // session_id
      !CBS_get_u16_length_prefixed(&hello, &ignored) ||   // cipher_suites
      !CBS_get_u8_length_prefixed(&hello, &ignored) ||    // compression
      !CBS_get_u16_length_prefixed(&hello, &extensions))  // extensions
    return "";
  while (CBS_len(&extensions) > 0) {
    uint16_t type;
    CBS body;
    if (!CBS_get_u16(&extensions, &type) ||
        !CBS_get_u16_length_prefixed(&extensions, &body))
      return "";
    if (type != kServerNameExtension) continue;
    // RFC 6066 3: a list of (name_type, name); host_name is type 0.
    CBS list;
    if (!CBS_get_u16_length_prefixed(&body, &list)) return "";
    while (CBS_len(&list) > 0) {
      uint8_t name_type;
      CBS name;
      if (!CBS_get_u8(&list, &name_type) ||
          !CBS_get_u16_length_prefixed(&list, &name))
        return "";
      if (name_type == 0)
        return std::string(reinterpret_cast<const char*>(CBS_data(&name)),
                           CBS_len(&name));
    }
    return "";
  }
  return "";
}

}  // namespace net
