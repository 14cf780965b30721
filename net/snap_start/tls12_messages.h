// TLS 1.2 handshake message bodies the Snap Start core sends and receives:
// ClientHello and ServerHello (with their extensions kept in wire order, so a
// message re-serializes to the same bytes), Certificate, NewSessionTicket,
// and the Snap Start extension payloads of draft-agl-tls-snapstart
// (extension 13174): the client's capability (empty) and attempt forms and the
// server's orbit + cipher suite.
//
// Parsers are on CBS and return absl::StatusOr; builders are on CBB. Plain
// value types.

#ifndef NET_SNAP_START_TLS12_MESSAGES_H_
#define NET_SNAP_START_TLS12_MESSAGES_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

enum TlsHandshakeType : uint8_t {
  kHelloRequestType = 0,
  kClientHelloType = 1,
  kServerHelloType = 2,
  kNewSessionTicketType = 4,
  kCertificateType = 11,
  kServerKeyExchangeType = 12,
  kCertificateRequestType = 13,
  kServerHelloDoneType = 14,
  kClientKeyExchangeType = 16,
  kFinishedType = 20,
};

inline constexpr uint16_t kServerNameExtension = 0;
inline constexpr uint16_t kSignatureAlgorithmsExtension = 13;
inline constexpr uint16_t kExtendedMasterSecretExtension = 23;  // RFC 7627
inline constexpr uint16_t kSessionTicketExtension = 35;
inline constexpr uint16_t kRenegotiationInfoExtension = 0xff01;
inline constexpr uint16_t kSnapStartExtension = 13174;
inline constexpr uint16_t kEmptyRenegotiationInfoScsv = 0x00ff;

inline constexpr size_t kRandomSize = 32;
inline constexpr size_t kOrbitSize = 8;
inline constexpr size_t kSnapStartRandomBytesSize = 20;
inline constexpr size_t kSnapStartAttemptHeaderSize = 36;

using Extension = std::pair<uint16_t, std::string>;

struct ClientHello {
  uint16_t version = 0;
  std::string random;      // 32 bytes
  std::string session_id;  // 0..32 bytes
  std::vector<uint16_t> cipher_suites;
  std::string compression_methods;
  bool has_extensions = false;
  std::vector<Extension> extensions;  // wire order

  const std::string* FindExtension(uint16_t type) const;
  bool OffersSuite(uint16_t suite) const;
};

absl::StatusOr<ClientHello> ParseClientHello(absl::string_view body);
std::string SerializeClientHello(const ClientHello& hello);

struct ServerHello {
  uint16_t version = 0;
  std::string random;
  std::string session_id;
  uint16_t cipher_suite = 0;
  uint8_t compression_method = 0;
  bool has_extensions = false;
  std::vector<Extension> extensions;

  const std::string* FindExtension(uint16_t type) const;
};

absl::StatusOr<ServerHello> ParseServerHello(absl::string_view body);
std::string SerializeServerHello(const ServerHello& hello);

// Certificate: a list of DER certificates, leaf first.
absl::StatusOr<std::vector<std::string>> ParseCertificate(
    absl::string_view body);
std::string SerializeCertificate(const std::vector<std::string>& chain_der);

struct NewSessionTicket {
  uint32_t lifetime_hint = 0;
  std::string ticket;
};
absl::StatusOr<NewSessionTicket> ParseNewSessionTicket(absl::string_view body);
std::string SerializeNewSessionTicket(const NewSessionTicket& ticket);

// ClientKeyExchange for RSA: the encrypted premaster behind a u16 length.
absl::StatusOr<std::string> ParseRsaClientKeyExchange(absl::string_view body);
std::string SerializeRsaClientKeyExchange(absl::string_view encrypted);

using Orbit = std::array<uint8_t, kOrbitSize>;

// The attempt form of the client's Snap Start extension.
struct SnapStartAttempt {
  Orbit orbit{};
  std::string random_bytes;  // 20 bytes: the tail of the suggested random
  std::array<uint8_t, 8> predicted_hash{};
  std::string records;  // raw TLS records: CKE, CCS, Finished, app data
};

// The client extension: nullopt for the empty (capability) form; an error for
// a payload of 1..35 bytes.
absl::StatusOr<std::optional<SnapStartAttempt>> ParseSnapStartClientExtension(
    absl::string_view payload);
std::string SerializeSnapStartAttempt(const SnapStartAttempt& attempt);

// The server extension: orbit then the suite it would pick, 10 bytes.
struct SnapStartServerInfo {
  Orbit orbit{};
  uint16_t cipher_suite = 0;
};
absl::StatusOr<SnapStartServerInfo> ParseSnapStartServerExtension(
    absl::string_view payload);
std::string SerializeSnapStartServerExtension(const SnapStartServerInfo& info);

// The server_name extension body naming |host| (RFC 6066).
std::string ServerNameExtension(absl::string_view host);

// The suggested server random: the client's gmt_unix_time (first 4 bytes of
// its random), the orbit, the 20 client-chosen bytes.
std::string SuggestedServerRandom(absl::string_view client_random,
                                  const Orbit& orbit,
                                  absl::string_view random_bytes);

// gmt_unix_time, big-endian, from the first 4 bytes of a random.
uint32_t RandomTime(absl::string_view random);

std::string OrbitToHex(const Orbit& orbit);
absl::StatusOr<Orbit> OrbitFromHex(absl::string_view hex);

}  // namespace net

#endif  // NET_SNAP_START_TLS12_MESSAGES_H_
