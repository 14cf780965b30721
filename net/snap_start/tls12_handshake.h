// TLS 1.2 handshake rules the Snap Start core's client, server and probe
// share: the ClientHello the client and the probe send, the checks each side
// applies to the other's hello (every extension the core understands must be
// well-formed, RFC 5246 section 7.4.1.4), and the server's Certificate as the
// client and the probe read it.
//
// Pure functions on the message types of tls12_messages.h; a check returns
// the net error, the fatal alert to send and a detail, or nullopt.

#ifndef NET_SNAP_START_TLS12_HANDSHAKE_H_
#define NET_SNAP_START_TLS12_HANDSHAKE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_record.h"

namespace net {

// HandshakeFailure is why a handshake must stop: the net error to report, the
// fatal alert to send and a detail for logs and the trace.
struct HandshakeFailure {
  int error = 0;
  TlsAlert alert = kAlertInternalError;
  std::string detail;
};

// NewClientHello returns the ClientHello of the core's client and probe,
// without the Snap Start extension: TLS 1.2, TLS_RSA_WITH_AES_128_GCM_SHA256
// and the renegotiation SCSV, null compression, then server_name (not for IP
// literals, RFC 6066 section 3), signature_algorithms, extended_master_secret
// (RFC 7627) and, when |ticket| is set, session_ticket carrying it (empty:
// "I support tickets").
ClientHello NewClientHello(absl::string_view host, std::string random,
                           std::string session_id,
                           std::optional<std::string> ticket);

// CheckClientHello is the server's check of a parsed ClientHello before it
// answers: TLS 1.2 offered (protocol_version), the core's suite with null
// compression (handshake_failure), every extension the core understands
// well-formed (decode_error), and no renegotiation_info with content in an
// initial handshake (handshake_failure, RFC 5746 section 3.6).
std::optional<HandshakeFailure> CheckClientHello(const ClientHello& hello);

// ParseAndCheckClientHello parses a ClientHello body into |out|
// (decode_error when malformed), then applies CheckClientHello.
std::optional<HandshakeFailure> ParseAndCheckClientHello(absl::string_view body,
                                                         ClientHello* out);

// CheckServerHello is the client's check of the server's answer to
// |offered|: TLS 1.2 (protocol_version), the offered suite with null
// compression (illegal_parameter), only extensions that were offered
// (unsupported_extension), each well-formed (decode_error), and an empty
// renegotiation_info (handshake_failure).
std::optional<HandshakeFailure> CheckServerHello(const ServerHello& hello,
                                                 const ClientHello& offered);

// ParseAndCheckServerHello parses a ServerHello body into |out|
// (decode_error when malformed), then applies CheckServerHello.
std::optional<HandshakeFailure> ParseAndCheckServerHello(
    absl::string_view body, const ClientHello& offered, ServerHello* out);

// ParseServerCertificate reads the server's Certificate message into
// |chain_der| (leaf first). A ServerKeyExchange or any other message in its
// place is unexpected_message; a malformed or empty list is
// ERR_SSL_SERVER_CERT_MISSING with decode_error.
std::optional<HandshakeFailure> ParseServerCertificate(
    const HandshakeMessage& message, std::vector<std::string>* chain_der);

}  // namespace net

#endif  // NET_SNAP_START_TLS12_HANDSHAKE_H_
