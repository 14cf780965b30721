#include "net/ssl/ech_config.h"

#include <openssl/bytestring.h>

#include "absl/strings/str_cat.h"

namespace net {
namespace {

constexpr uint16_t kKemX25519HkdfSha256 = 0x0020;
constexpr uint16_t kKdfHkdfSha256 = 0x0001;
constexpr uint16_t kAeadAes128Gcm = 0x0001;
constexpr uint16_t kAeadAes256Gcm = 0x0002;
constexpr uint16_t kAeadChaCha20Poly1305 = 0x0003;

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed ECHConfigList: ", why));
}

absl::Status ParseContents(CBS contents, EchConfigSummary* out) {
  CBS public_key, suites, public_name, extensions;
  if (!CBS_get_u8(&contents, &out->config_id) ||
      !CBS_get_u16(&contents, &out->kem_id) ||
      !CBS_get_u16_length_prefixed(&contents, &public_key) ||
      CBS_len(&public_key) == 0 ||
      !CBS_get_u16_length_prefixed(&contents, &suites) ||
      CBS_len(&suites) == 0 || CBS_len(&suites) % 4 != 0 ||
      !CBS_get_u8(&contents, &out->maximum_name_length) ||
      !CBS_get_u8_length_prefixed(&contents, &public_name) ||
      CBS_len(&public_name) == 0 ||
      !CBS_get_u16_length_prefixed(&contents, &extensions) ||
      CBS_len(&contents) != 0) {
    return Malformed("an ECHConfig's contents do not parse");
  }
  while (CBS_len(&suites) > 0) {
    uint16_t kdf, aead;
    CBS_get_u16(&suites, &kdf);
    CBS_get_u16(&suites, &aead);
    out->cipher_suites.emplace_back(kdf, aead);
  }
  out->public_name.assign(reinterpret_cast<const char*>(CBS_data(&public_name)),
                          CBS_len(&public_name));
  return absl::OkStatus();
}

bool Usable(const EchConfigSummary& c) {
  if (c.version != kEchConfigVersionDraft13 || c.kem_id != kKemX25519HkdfSha256)
    return false;
  for (const auto& [kdf, aead] : c.cipher_suites) {
    if (kdf == kKdfHkdfSha256 &&
        (aead == kAeadAes128Gcm || aead == kAeadAes256Gcm ||
         aead == kAeadChaCha20Poly1305))
      return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<EchConfigSummary>> ParseEchConfigList(
    absl::string_view bytes) {
  CBS cbs, list;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!CBS_get_u16_length_prefixed(&cbs, &list) || CBS_len(&cbs) != 0)
    return Malformed("the length prefix does not match");
  if (CBS_len(&list) == 0) return Malformed("no ECHConfig");
  std::vector<EchConfigSummary> configs;
  while (CBS_len(&list) > 0) {
    EchConfigSummary config;
    CBS contents;
    if (!CBS_get_u16(&list, &config.version) ||
        !CBS_get_u16_length_prefixed(&list, &contents))
      return Malformed("an ECHConfig runs past the end");
    if (config.version == kEchConfigVersionDraft13) {
      absl::Status status = ParseContents(contents, &config);
      if (!status.ok()) return status;
    }
    configs.push_back(std::move(config));
  }
  return configs;
}

std::optional<std::string> EchOuterServerName(absl::string_view list) {
  absl::StatusOr<std::vector<EchConfigSummary>> configs =
      ParseEchConfigList(list);
  if (!configs.ok()) return std::nullopt;
  for (const EchConfigSummary& c : *configs) {
    if (Usable(c)) return c.public_name;
  }
  return std::nullopt;
}

}  // namespace net
