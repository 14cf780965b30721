#include "net/snap_start/snap_start_flight.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/snap_start/fnv1a64.h"
#include "net/snap_start/tls12_record.h"

namespace net {

std::string ServerFlight::Messages() const {
  return absl::StrCat(server_hello, certificate, server_hello_done);
}

std::array<uint8_t, 8> ServerFlight::Hash() const {
  Fnv1a64 fnv;
  fnv.Update(server_hello);
  fnv.Update(certificate);
  fnv.Update(server_hello_done);
  return fnv.Digest();
}

ServerFlight BuildServerFlight(const ServerHello& hello,
                               const std::vector<std::string>* chain_der) {
  ServerFlight flight;
  flight.server_hello =
      SerializeHandshake(kServerHelloType, SerializeServerHello(hello));
  if (chain_der) {
    flight.certificate =
        SerializeHandshake(kCertificateType, SerializeCertificate(*chain_der));
    flight.server_hello_done = SerializeHandshake(kServerHelloDoneType, "");
  }
  return flight;
}

absl::StatusOr<ServerHello> PredictServerHello(
    absl::string_view template_body, absl::string_view suggested_random,
    absl::string_view session_id, bool resuming) {
  absl::StatusOr<ServerHello> hello = ParseServerHello(template_body);
  if (!hello.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ServerHello template does not parse: ", hello.status().message()));
  }
  hello->random = std::string(suggested_random);
  hello->session_id = std::string(session_id);
  if (resuming) {
    std::vector<Extension> kept;
    for (Extension& ext : hello->extensions) {
      if (ext.first != kServerNameExtension &&
          ext.first != kSessionTicketExtension) {
        kept.push_back(std::move(ext));
      }
    }
    hello->extensions = std::move(kept);
    // As the server serializes a ServerHello without extensions.
    if (hello->extensions.empty()) hello->has_extensions = false;
  }
  return hello;
}

}  // namespace net
