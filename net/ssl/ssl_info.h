// SSLInfo: the facts a finished TLS handshake reports for the trace, from
// BoringSSL's sockets (net/ssl) and from the Snap Start core
// (net/snap_start) alike. StreamSocket::GetSSLInfo() returns it.
//
// A header of plain values: it needs only the certificate verification
// result (cert:cert_verifier_interface) and the OBC facts
// (cert/obc:obc_types), neither of which links BoringSSL, so the trace
// (net/timing) and the Snap Start core can use it without net/ssl.

#ifndef NET_SSL_SSL_INFO_H_
#define NET_SSL_SSL_INFO_H_

#include <string>

#include "absl/time/time.h"
#include "cert/cert_verifier.h"
#include "cert/obc/obc_types.h"

namespace net {

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
  // Connect() completed before the server answered (a Snap Start attempt:
  // the handshake travels with the first Write). These facts are final only
  // once the server's first response has been read; the caller asks again
  // then.
  bool awaiting_server_response = false;
};

}  // namespace net

#endif  // NET_SSL_SSL_INFO_H_
