// SSLConfig: per-connection TLS client settings. SSLInfo (the facts a
// finished handshake reports) is in ssl_info.h, included here for callers
// that use both.

#ifndef NET_SSL_SSL_CONFIG_H_
#define NET_SSL_SSL_CONFIG_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "net/ssl/cert_compression.h"
#include "net/ssl/ssl_info.h"

namespace net {

class ClientCertProvider;

// What the client does with Encrypted ClientHello (ECH), curl's --ech
// spelling: kOff (false: no ECH, no GREASE), kGrease (grease: always a GREASE
// extension, never a real configuration), kOn (true, the default as in
// Chrome: the origin's configuration from its DNS HTTPS record, or
// |ech_config_list|; GREASE when there is none and |ech_grease|), kHard
// (hard: as kOn, but a connection without a configuration, or whose server
// rolled ECH back, fails with ERR_ECH_NOT_NEGOTIATED).
enum class EchMode { kOff, kGrease, kOn, kHard };

// Whether a connection in |mode| offers a real ECH configuration when it
// has one (kOn, kHard); kGrease never does, kOff offers nothing.
inline bool OffersEchConfiguration(EchMode mode) {
  return mode == EchMode::kOn || mode == EchMode::kHard;
}

struct SSLConfig {
  uint16_t version_min = TLS1_2_VERSION;
  uint16_t version_max = TLS1_3_VERSION;
  // ALPN protocols offered, in preference order: HTTP/2 before HTTP/1.1,
  // as every browser (spdy/3 only when a caller asks for it). The Snap
  // Start core offers no ALPN (HTTP/1.1) whatever this says.
  std::vector<std::string> alpn_protos = {"h2", "http/1.1"};
  // False Start under BoringSSL's rules (TLS 1.2, ECDHE, AEAD, ALPN).
  bool false_start_enabled = true;
  // Offer cached sessions and store new ones.
  bool session_resumption_enabled = true;
  // When several connections to one host start with no cached session, let
  // one do the full handshake and the others wait for its session and
  // resume. Off by default: it saves the server full handshakes but never
  // time — a TLS 1.3 or False Start TLS 1.2 resumption costs the round
  // trips a full handshake costs, so a waiter finishes one wait later
  // (spdy_page_load measured HTTP/1.1's page 18% slower at 100 ms with it).
  // Without it a connection still resumes whenever a session is already
  // cached, which is the saving that costs nothing.
  bool coalesce_handshakes = false;
  // Optional OpenSSL-syntax cipher list for TLS 1.2 (empty: defaults).
  std::string cipher_list;
  // Origin-bound certificates: when a server sends a CertificateRequest,
  // present the connection's origin's OBC from this provider. Null: OBC off
  // (an empty Certificate message). Not owned; outlives the sockets.
  ClientCertProvider* client_cert_provider = nullptr;
  // TLS 1.3 early data (0-RTT): on a resumption whose ticket allows it, the
  // first Write travels with the ClientHello (Connect completes at once).
  // Replayable by an attacker, so only for idempotent requests: the HTTP
  // transaction clears it for other methods, and after a rejection.
  bool early_data_enabled = false;
  // Certificate compression (RFC 8879) algorithms offered, in preference
  // order. Per client context, not per connection: SSLClientContext
  // registers them on its SSL_CTX when it is created (HttpNetworkSession
  // passes its SSLConfig's).
  std::vector<CertCompressionAlgorithm> cert_compression = {
      CertCompressionAlgorithm::kBrotli, CertCompressionAlgorithm::kZlib};
  // Encrypted ClientHello (draft-13, BoringSSL's). |ech_config_list| is the
  // ECHConfigList (wire form) the socket offers: set per connection by
  // SSLConnectJob from the origin's HTTPS record (or its server's retry
  // configurations), or for every connection by curl's --ech ecl:. Empty:
  // none; then |ech_grease| sends a GREASE ECH extension, so a connection
  // without ECH looks on the wire like one with it. ECH needs TLS 1.3:
  // nothing is offered when version_max is below it. SSLClientSocket obeys
  // the two fields; SSLConnectJob obeys |ech_mode|.
  EchMode ech_mode = EchMode::kOn;
  std::string ech_config_list;
  bool ech_grease = true;
};

}  // namespace net

#endif  // NET_SSL_SSL_CONFIG_H_
