// SSLConfig: per-connection TLS client settings, and SSLInfo: the facts a
// finished handshake reports for the trace.

#ifndef NET_SSL_SSL_CONFIG_H_
#define NET_SSL_SSL_CONFIG_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cert/cert_verifier.h"
#include "cert/obc/obc_types.h"

namespace net {

class ClientCertProvider;

struct SSLConfig {
  uint16_t version_min = TLS1_2_VERSION;
  uint16_t version_max = TLS1_3_VERSION;
  // ALPN protocols offered, in preference order.
  std::vector<std::string> alpn_protos = {"http/1.1"};
  // False Start under BoringSSL's rules (TLS 1.2, ECDHE, AEAD, ALPN).
  bool false_start_enabled = true;
  // Offer cached sessions and store new ones.
  bool session_resumption_enabled = true;
  // When several connections to one host start with no cached session, let
  // one do the full handshake and resume the others from its session.
  bool coalesce_handshakes = true;
  // Optional OpenSSL-syntax cipher list for TLS 1.2 (empty: defaults).
  std::string cipher_list;
  // Origin-bound certificates: when a server sends a CertificateRequest,
  // present the connection's origin's OBC from this provider. Null: OBC off
  // (an empty Certificate message). Not owned; outlives the sockets.
  ClientCertProvider* client_cert_provider = nullptr;
};

// SSLInfo describes a finished client or server handshake.
struct SSLInfo {
  std::string version;  // "TLSv1.3"
  std::string cipher;   // IANA name, "TLS_AES_128_GCM_SHA256"
  std::string group;    // key exchange group, "X25519"
  std::string alpn;     // negotiated protocol, or empty
  bool resumed = false;
  bool false_start = false;  // client: handshake completed in False Start
  // Handshake coalescing: this connection waited for another one's session.
  bool waited_for_session = false;
  absl::Duration session_wait = absl::ZeroDuration();
  int peer_cert_count = 0;
  CertVerifyResult cert_verify;  // client only; default when resumed
  // Client side: the OBC presented (source kNone if none was asked for).
  ObcFacts obc;
  // Snap Start (net/snap_start): "" when not used, else "learned" (a normal
  // handshake that offered the extension), "attempted", "accepted",
  // "recovered" or "rejected"; the detail says why.
  std::string snap_start;
  std::string snap_start_detail;
};

}  // namespace net

#endif  // NET_SSL_SSL_CONFIG_H_
