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

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "cert/cert_verifier.h"
#include "cert/obc/obc_types.h"

namespace net {

// Certificate compression (RFC 8879, TLS 1.3): the server's Certificate
// message before and after compression, as the client's decompression (or
// the server's compression) callback saw it.
struct CertCompressionInfo {
  // "zlib" or "brotli"; empty when the Certificate message was not
  // compressed (not offered, not supported by the server, or TLS 1.2).
  std::string algorithm;
  // The CompressedCertificate message's compressed_certificate_message.
  int64_t compressed_bytes = 0;
  // The Certificate message body it decompresses to (uncompressed_length).
  int64_t uncompressed_bytes = 0;
};

// SnapStartOutcome is what Snap Start (net/snap_start) did on one
// connection.
enum class SnapStartOutcome {
  kNone,       // no Snap Start extension involved
  kLearned,    // a normal handshake that offered the empty extension
  kAttempted,  // client: the attempt is ready or sent, outcome not known yet
  kAccepted,   // the attempt was accepted: no extra round trip
  kRecovered,  // the server answered with a normal handshake
  kRejected,   // client: an alert or a close answered the attempt
};

// The trace's name for |outcome|: "", "learned", "attempted", "accepted",
// "recovered" or "rejected".
const char* SnapStartOutcomeToString(SnapStartOutcome outcome);

// TLS 1.3 early data (0-RTT) on one connection: not offered (early data
// off, a request that is not idempotent, no 0-RTT-capable ticket, ...),
// offered (client: while the handshake is still in early data; server: the
// ClientHello offered it, not yet decided), accepted or rejected.
enum class EarlyDataState { kNotOffered, kOffered, kAccepted, kRejected };

// The trace's name for |state|: "not_offered", "offered", "accepted" or
// "rejected".
const char* EarlyDataStateToString(EarlyDataState state);

// Encrypted ClientHello (ECH) on one connection, as the trace's tls.ech
// reports it: kNone (not offered: off, TLS 1.2, no configuration and GREASE
// off, a Snap Start handshake), kGrease (a GREASE ECH extension: it hides
// nothing, the real name is in the ClientHello), kAccepted (the server
// decrypted the inner ClientHello: only the configuration's public name went
// in the clear), kRejected (the server could not use the configuration
// offered; the retry's outcome is in EchRetry).
enum class EchOutcome { kNone, kGrease, kAccepted, kRejected };

// The trace's name for |outcome|: "none", "grease", "accepted", "rejected".
const char* EchOutcomeToString(EchOutcome outcome);

// After a rejection, what the one retry on a new connection did: kNone (no
// retry: ECH was not rejected), kAccepted (retried with the server's retry
// configurations, accepted), kRejected (retried, rejected again: the
// request fails with ERR_ECH_NOT_NEGOTIATED), kWithoutEch (the server sent
// no retry configurations, authenticating that it rolled ECH back: retried
// without ECH, the name in the clear), kFailed (the retry failed otherwise).
enum class EchRetry { kNone, kAccepted, kRejected, kWithoutEch, kFailed };

// The trace's name for |retry|: "" (none), "accepted", "rejected",
// "without_ech", "failed".
const char* EchRetryToString(EchRetry retry);

// HandshakeChoice: which TLS handshake a connection chose among those it
// could run (SSLConnectJob), by cost — the round trips from connectStart to
// the response's first byte, TCP's own included (one less when TCP Fast
// Open carries the first flight, for every candidate alike) — and the next
// best. Candidates: "tls13_0rtt" (2: a ticket that allows early data, an
// idempotent request), "snap_start" (2: the server's orbit known, from a
// bundle or learned), "tls_resumption" (3), "tls_full" (3). A tie goes to
// TLS 1.3 early data (forward secrecy; Snap Start's static RSA has none).
struct HandshakeChoice {
  std::string chosen;  // empty: no choice recorded (not an https connect)
  int rtts = 0;
  std::string runner_up;  // empty: there was no other candidate
  int runner_up_rtts = 0;
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
  // Client side: the OBC presented (source kNone if none was asked for),
  // and the certificate itself (DER; empty if none): an HTTP/2 session
  // carries another origin only if that origin's OBC is this one.
  ObcFacts obc;
  std::string client_cert_der;
  // Snap Start (net/snap_start); the detail says why.
  SnapStartOutcome snap_start = SnapStartOutcome::kNone;
  std::string snap_start_detail;
  // TLS 1.3 early data (0-RTT). The reason is BoringSSL's
  // (SSL_early_data_reason_string: "accepted", "disabled",
  // "unsupported_for_session", "peer_declined", ...) or ours ("replayed
  // ticket", "POST is not idempotent", ...).
  EarlyDataState early_data = EarlyDataState::kNotOffered;
  std::string early_data_reason;
  CertCompressionInfo cert_compression;
  // Encrypted ClientHello, and in words what it did or why not ("rejected:
  // ...; retried with the server's retry configurations"). A server's
  // socket reports kAccepted when it decrypted an inner ClientHello.
  EchOutcome ech = EchOutcome::kNone;
  EchRetry ech_retry = EchRetry::kNone;
  std::string ech_detail;
  // What the ClientHello carried in the clear as server_name: the ECH
  // configuration's public name when a configuration was offered, the host
  // otherwise (GREASE hides nothing; nor do Snap Start and the prefetched
  // bundle), empty for an IP literal (no SNI). Client side.
  std::string sni_on_wire;
  // Client, after a rejection: the server's retry configurations (an
  // ECHConfigList, empty when it sent none), for the retry. Not traced.
  std::string ech_retry_configs;
  // Connect() completed before the server answered (a Snap Start attempt,
  // or a TLS 1.3 client in early data: the handshake travels with the first
  // Write). These facts are final only
  // once the server's first response has been read; the caller asks again
  // then.
  bool awaiting_server_response = false;
};

}  // namespace net

#endif  // NET_SSL_SSL_INFO_H_
