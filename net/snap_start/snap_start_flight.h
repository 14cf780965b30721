// The one implementation of what a Snap Start client predicts and a Snap
// Start server checks (SPECS.md section 1.4): the server's first flight —
// ServerHello, then, in a full handshake, Certificate and ServerHelloDone —
// as handshake messages with their 4-byte headers, and its FNV-1a-64 hash.
// The server builds its real flight with BuildServerFlight (both to send it
// and to compare its hash with the client's prediction); the client builds
// its prediction with PredictServerHello + BuildServerFlight; the probe checks
// with BuildServerFlight that what it read predicts byte for byte.
//
// Also SnapStartOutcome, the result of Snap Start on one connection as the
// client, the server and the trace name it.

#ifndef NET_SNAP_START_SNAP_START_FLIGHT_H_
#define NET_SNAP_START_SNAP_START_FLIGHT_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/snap_start/tls12_messages.h"
#include "net/ssl/ssl_info.h"

namespace net {

// ServerFlight is a server's first flight as handshake messages.
struct ServerFlight {
  std::string server_hello;       // with its 4-byte header
  std::string certificate;        // empty in an abbreviated handshake
  std::string server_hello_done;  // empty in an abbreviated handshake

  // Messages is the flight as the transcript hashes it and the wire carries
  // it (inside handshake records).
  std::string Messages() const;
  // Hash is the FNV-1a-64 of Messages(), big-endian: what the Snap Start
  // extension's predicted_hash carries.
  std::array<uint8_t, 8> Hash() const;
};

// BuildServerFlight serializes |hello| and, when |chain_der| is non-null (a
// full handshake), the Certificate carrying it and an empty ServerHelloDone.
ServerFlight BuildServerFlight(const ServerHello& hello,
                               const std::vector<std::string>* chain_der);

// PredictServerHello is the client's prediction of the ServerHello a Snap
// Start server will send: the saved ServerHello |template_body| with the
// suggested random and the session ID the client offers; in the resumption
// form (|resuming|) without server_name and session_ticket, which a resuming
// server omits. InvalidArgument if the template does not parse.
absl::StatusOr<ServerHello> PredictServerHello(
    absl::string_view template_body, absl::string_view suggested_random,
    absl::string_view session_id, bool resuming);

}  // namespace net

#endif  // NET_SNAP_START_SNAP_START_FLIGHT_H_
