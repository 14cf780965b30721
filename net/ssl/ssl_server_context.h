// SSLServerContext: the server-side SSL_CTX for the test server — the
// certificate chain and key, versions, cipher list, ALPN selection, session
// tickets and the session cache.
//
// Owned by the server; outlives every SSLServerSocket made from it.

#ifndef NET_SSL_SSL_SERVER_CONTEXT_H_
#define NET_SSL_SSL_SERVER_CONTEXT_H_

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace net {

struct SSLServerConfig {
  std::string cert_chain_file;  // PEM, leaf first
  std::string key_file;         // PEM private key
  uint16_t version_min = TLS1_2_VERSION;
  uint16_t version_max = TLS1_3_VERSION;
  std::string cipher_list;  // OpenSSL syntax, TLS 1.2 only; empty: defaults
  // ALPN protocols the server accepts, in its preference order. Empty: the
  // server does not negotiate ALPN.
  std::vector<std::string> alpn_protos = {"http/1.1"};
  bool tickets = true;        // RFC 5077 / TLS 1.3 tickets
  bool session_cache = true;  // BoringSSL's built-in session-ID cache
  // TLS 1.3 tickets sent after each handshake (BoringSSL caps it).
  size_t tls13_tickets = 4;
};

class SSLServerContext {
 public:
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SSLServerContext>> Create(
      const SSLServerConfig& config);
  ~SSLServerContext();

  SSL_CTX* ssl_ctx() { return ssl_ctx_.get(); }
  const SSLServerConfig& config() const { return config_; }

 private:
  explicit SSLServerContext(const SSLServerConfig& config);
  static int SelectAlpn(SSL* ssl, const uint8_t** out, uint8_t* out_len,
                        const uint8_t* in, unsigned in_len, void* arg);

  SSLServerConfig config_;
  bssl::UniquePtr<SSL_CTX> ssl_ctx_;
};

}  // namespace net

#endif  // NET_SSL_SSL_SERVER_CONTEXT_H_
