// EchKeys: the test server's Encrypted ClientHello key and configuration
// (draft-13 as BoringSSL speaks it: DHKEM(X25519, HKDF-SHA256)) — the
// SSL_ECH_KEYS its SSL_CTX decrypts inner ClientHellos with
// (SSL_CTX_set1_ech_keys; also handed to clients as retry configurations
// after a rejection), and the ECHConfigList that a DNS HTTPS record's
// "ech" parameter publishes (testserver --ech-config-out). The key persists
// in a file (--ech-key) so that the published configuration survives a
// restart; a world makes a stale configuration by writing one for a key
// its server never loads (--ech-config-only).
//
// Also ClientHelloServerName: the server_name of a raw ClientHello, for the
// log line's outer SNI (BoringSSL reports the inner one once it decrypted).
//
// Immutable once made; shared (std::shared_ptr) by the server's config.

#ifndef TOOLS_TESTSERVER_ECH_KEYS_H_
#define TOOLS_TESTSERVER_ECH_KEYS_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

class EchKeys {
 public:
  // The configuration's public name (the outer ClientHello's server_name,
  // which a rejection is authenticated as: the server's certificate must
  // cover it) and config_id.
  struct Options {
    std::string public_name = "public.example.test";
    uint8_t config_id = 1;
  };

  // Generate makes a fresh key in memory.
  [[nodiscard]] static absl::StatusOr<std::shared_ptr<const EchKeys>> Generate(
      const Options& options);
  // LoadOrCreate reads |path| (a key this class wrote: the public name and
  // config id come from the file, not |options|) or, when it does not exist,
  // generates one and writes it there (mode 0600). Errors name the file and
  // what is wrong with it.
  [[nodiscard]] static absl::StatusOr<std::shared_ptr<const EchKeys>>
  LoadOrCreate(const std::string& path, const Options& options);

  SSL_ECH_KEYS* keys() const { return keys_.get(); }
  // The ECHConfigList (wire form, its length prefix included).
  const std::string& config_list() const { return config_list_; }
  // The same in base64: what a zone file's ech="..." wants.
  std::string ConfigListBase64() const;
  const std::string& public_name() const { return public_name_; }
  uint8_t config_id() const { return config_id_; }
  // WriteConfigList writes ConfigListBase64() and a newline to |path|.
  absl::Status WriteConfigList(const std::string& path) const;

 private:
  EchKeys() = default;
  static absl::StatusOr<std::shared_ptr<const EchKeys>> FromPrivateKey(
      const std::string& private_key, const std::string& public_name,
      uint8_t config_id);

  bssl::UniquePtr<SSL_ECH_KEYS> keys_;
  std::string config_list_;
  std::string private_key_;  // 32 bytes
  std::string public_name_;
  uint8_t config_id_ = 0;
};

// ClientHelloServerName returns the host_name in the server_name extension
// of the ClientHello that starts |first_bytes| (the first TLS records a
// client sent: a handshake record, ClientHello, possibly spanning records of
// at most what was read), or "" when there is none or it does not parse.
std::string ClientHelloServerName(absl::string_view first_bytes);

}  // namespace net

#endif  // TOOLS_TESTSERVER_ECH_KEYS_H_
