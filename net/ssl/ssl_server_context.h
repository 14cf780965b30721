// SSLServerContext: the server-side SSL_CTX for the test server — the
// certificate chain and key, versions, cipher list, ALPN selection, session
// tickets and the session cache: BoringSSL's built-in one, or an external
// net/session_cache (FIFO, LRU, RR, PRED; fully or set associative) hooked in
// through BoringSSL's new/get/remove session callbacks, which keys sessions
// by session ID (TLS 1.3 resumes only with tickets) and learns each
// client's announced next connect through SetNextConnect(); TLS 1.3 early
// data with a replay defence (early_data_anti_replay.h); certificate
// compression (cert_compression.h).
//
// Owned by the server; outlives every SSLServerSocket made from it. The
// external cache is thread-safe, so the context may serve several threads.

#ifndef NET_SSL_SSL_SERVER_CONTEXT_H_
#define NET_SSL_SSL_SERVER_CONTEXT_H_

#include <openssl/ssl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"
#include "net/session_cache/session_cache.h"
#include "net/ssl/cert_compression.h"
#include "net/ssl/early_data_anti_replay.h"

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
  // When set, session IDs are cached in this net/session_cache instead of
  // the built-in cache (|session_cache| is then ignored). Tickets still take
  // precedence with clients that offer them: turn |tickets| off to make every
  // resumption go through this cache.
  std::optional<SessionCacheConfig> external_session_cache;
  // The external cache's clock for next-connect times; null: the default.
  // Must outlive the context.
  const TickClock* clock = nullptr;
  // TLS 1.3 tickets sent after each handshake (BoringSSL caps it).
  size_t tls13_tickets = 4;
  // Send them as soon as the handshake is done (as nginx does), so a client
  // that preconnects, or whose parallel connections wait for this one's
  // session, gets them without a request. false: BoringSSL's default, with
  // the first application data the server writes.
  bool tls13_tickets_at_handshake = true;
  // TLS 1.3 early data (0-RTT). kOff: tickets carry no 0-RTT permission, so
  // clients never try. kOn: tickets allow it and resumptions accept it,
  // unless the strike register (EarlyDataAntiReplay) has seen the ticket
  // offer early data before (then 0-RTT is rejected and the connection
  // resumes in 1-RTT). kReject: tickets allow it but every attempt is
  // rejected (to test clients' fallback). A rejected connection's own new
  // tickets carry no 0-RTT permission (BoringSSL issues them under the
  // connection's setting). Needs |tickets|.
  enum class EarlyData { kOff, kOn, kReject };
  EarlyData early_data = EarlyData::kOff;
  // RFC 8879 certificate compression: the algorithms the server compresses
  // its Certificate message with, in preference order (the first the client
  // offers wins). Empty: never compressed.
  std::vector<CertCompressionAlgorithm> cert_compression;
};

class SSLServerContext {
 public:
  // Sessions in the external cache, each holding one reference.
  using ExternalSessionCache = SessionCache<std::shared_ptr<SSL_SESSION>>;

  // Create loads the certificate chain and key and configures the SSL_CTX.
  // Errors (unreadable files, mismatched key, bad versions, ciphers or
  // external cache config) are InvalidArgument naming the problem.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SSLServerContext>> Create(
      const SSLServerConfig& config);
  ~SSLServerContext();

  SSL_CTX* ssl_ctx() { return ssl_ctx_.get(); }
  const SSLServerConfig& config() const { return config_; }

  // The early-data strike register; null unless early_data is kOn.
  EarlyDataAntiReplay* early_data_anti_replay() { return anti_replay_.get(); }

  // The external session cache, or null if the config has none.
  ExternalSessionCache* external_session_cache() {
    return external_cache_.get();
  }

  // SetNextConnect records that the client that holds |session| (the
  // connection's established session) announced its next connection
  // |from_now| (the X-Next-Connect request header). The session is stored
  // again with that time, so a session the cache did not admit when it was
  // created (PRED's newcomer rule with no announcement yet) gets a second
  // chance. Returns the cache's outcome, or nullopt without an external
  // cache or for a session without an ID (TLS 1.3, tickets).
  std::optional<SessionIndex::PutOutcome> SetNextConnect(
      SSL_SESSION* session, absl::Duration from_now);

 private:
  explicit SSLServerContext(const SSLServerConfig& config);
  static SSLServerContext* FromSSLCtx(const SSL_CTX* ctx);
  static int SelectAlpn(SSL* ssl, const uint8_t** out, uint8_t* out_len,
                        const uint8_t* in, unsigned in_len, void* arg);
  // Early data: before the session is chosen, rejects 0-RTT for replayed
  // tickets (and in kReject mode), noting it in the socket's SSLInfo.
  static ssl_select_cert_result_t OnClientHello(const SSL_CLIENT_HELLO* hello);
  // BoringSSL's external session cache callbacks.
  static int OnNewSession(SSL* ssl, SSL_SESSION* session);
  static SSL_SESSION* OnGetSession(SSL* ssl, const uint8_t* id, int id_len,
                                   int* out_copy);
  static void OnRemoveSession(SSL_CTX* ctx, SSL_SESSION* session);

  SSLServerConfig config_;
  const TickClock* clock_;
  std::unique_ptr<ExternalSessionCache> external_cache_;
  std::unique_ptr<EarlyDataAntiReplay> anti_replay_;
  bssl::UniquePtr<SSL_CTX> ssl_ctx_;
};

}  // namespace net

#endif  // NET_SSL_SSL_SERVER_CONTEXT_H_
