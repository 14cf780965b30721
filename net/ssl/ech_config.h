// ECHConfigList reading (draft-ietf-tls-esni-13, the version BoringSSL here
// speaks): what a client needs to know about a list before offering it —
// which configuration BoringSSL will pick, and so which public name the
// outer ClientHello will carry in the clear (the trace's tls.sniOnWire), and
// what a server's log line says about a list. BoringSSL itself judges and
// uses the list (SSL_set1_ech_config_list); this only reads it, on CBS.
//
// Pure functions over bytes; no ownership.

#ifndef NET_SSL_ECH_CONFIG_H_
#define NET_SSL_ECH_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// ECHConfig.version of draft-13 (what BoringSSL implements).
inline constexpr uint16_t kEchConfigVersionDraft13 = 0xfe0d;

struct EchConfigSummary {
  uint16_t version = 0;
  // The fields below are read only for version kEchConfigVersionDraft13.
  uint8_t config_id = 0;
  uint16_t kem_id = 0;  // 0x0020: DHKEM(X25519, HKDF-SHA256)
  // (KDF, AEAD) pairs offered.
  std::vector<std::pair<uint16_t, uint16_t>> cipher_suites;
  uint8_t maximum_name_length = 0;
  std::string public_name;
};

// ParseEchConfigList reads every ECHConfig of a wire-form ECHConfigList
// (its 2-byte length prefix included). InvalidArgument when the list or a
// draft-13 configuration's contents are malformed; configurations of other
// versions are listed with their version only.
[[nodiscard]] absl::StatusOr<std::vector<EchConfigSummary>> ParseEchConfigList(
    absl::string_view list);

// EchOuterServerName: the public name BoringSSL puts in the outer
// ClientHello for |list| — that of the first draft-13 configuration with
// the X25519 KEM and a cipher suite it implements (HKDF-SHA256 with
// AES-128-GCM, AES-256-GCM or ChaCha20-Poly1305) — or nullopt when the list
// is malformed or has none it can use (BoringSSL then offers no ECH).
std::optional<std::string> EchOuterServerName(absl::string_view list);

}  // namespace net

#endif  // NET_SSL_ECH_CONFIG_H_
