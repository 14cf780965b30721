#include "net/snap_start/tls12_messages.h"

#include <openssl/bytestring.h>
#include <openssl/mem.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace net {
namespace {

std::string ToString(const CBS& cbs) {
  return std::string(reinterpret_cast<const char*>(CBS_data(&cbs)),
                     CBS_len(&cbs));
}

const uint8_t* Bytes(absl::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// Finish |cbb| into a string; empty on failure (callers build from
// validated values, so failure is a programming error caught by tests).
std::string Finish(CBB* cbb) {
  uint8_t* data = nullptr;
  size_t len = 0;
  if (!CBB_finish(cbb, &data, &len)) {
    CBB_cleanup(cbb);
    return std::string();
  }
  std::string out(reinterpret_cast<char*>(data), len);
  OPENSSL_free(data);
  return out;
}

absl::Status ParseExtensions(CBS* cbs, bool* has_extensions,
                             std::vector<Extension>* out) {
  *has_extensions = false;
  out->clear();
  if (CBS_len(cbs) == 0) return absl::OkStatus();
  CBS extensions;
  if (!CBS_get_u16_length_prefixed(cbs, &extensions) || CBS_len(cbs) != 0) {
    return absl::InvalidArgumentError("malformed extensions block");
  }
  *has_extensions = true;
  while (CBS_len(&extensions) > 0) {
    uint16_t type;
    CBS data;
    if (!CBS_get_u16(&extensions, &type) ||
        !CBS_get_u16_length_prefixed(&extensions, &data)) {
      return absl::InvalidArgumentError("malformed extension");
    }
    for (const Extension& seen : *out) {
      if (seen.first == type) {
        return absl::InvalidArgumentError(
            absl::StrCat("duplicate extension ", type));
      }
    }
    out->emplace_back(type, ToString(data));
  }
  return absl::OkStatus();
}

bool AddExtensions(CBB* cbb, bool has_extensions,
                   const std::vector<Extension>& extensions) {
  if (!has_extensions) return true;
  CBB block;
  if (!CBB_add_u16_length_prefixed(cbb, &block)) return false;
  for (const Extension& ext : extensions) {
    CBB data;
    if (!CBB_add_u16(&block, ext.first) ||
        !CBB_add_u16_length_prefixed(&block, &data) ||
        !CBB_add_bytes(&data, Bytes(ext.second), ext.second.size())) {
      return false;
    }
  }
  return CBB_flush(cbb);
}

const std::string* Find(const std::vector<Extension>& extensions,
                        uint16_t type) {
  for (const Extension& ext : extensions) {
    if (ext.first == type) return &ext.second;
  }
  return nullptr;
}

}  // namespace

const std::string* ClientHello::FindExtension(uint16_t type) const {
  return Find(extensions, type);
}

bool ClientHello::OffersSuite(uint16_t suite) const {
  for (uint16_t s : cipher_suites) {
    if (s == suite) return true;
  }
  return false;
}

const std::string* ServerHello::FindExtension(uint16_t type) const {
  return Find(extensions, type);
}

absl::StatusOr<ClientHello> ParseClientHello(absl::string_view body) {
  CBS cbs, random, session_id, suites, compression;
  CBS_init(&cbs, Bytes(body), body.size());
  ClientHello hello;
  if (!CBS_get_u16(&cbs, &hello.version) ||
      !CBS_get_bytes(&cbs, &random, kRandomSize) ||
      !CBS_get_u8_length_prefixed(&cbs, &session_id) ||
      CBS_len(&session_id) > 32 ||
      !CBS_get_u16_length_prefixed(&cbs, &suites) || CBS_len(&suites) == 0 ||
      CBS_len(&suites) % 2 != 0 ||
      !CBS_get_u8_length_prefixed(&cbs, &compression) ||
      CBS_len(&compression) == 0) {
    return absl::InvalidArgumentError("malformed ClientHello");
  }
  hello.random = ToString(random);
  hello.session_id = ToString(session_id);
  while (CBS_len(&suites) > 0) {
    uint16_t suite;
    CBS_get_u16(&suites, &suite);
    hello.cipher_suites.push_back(suite);
  }
  hello.compression_methods = ToString(compression);
  absl::Status status =
      ParseExtensions(&cbs, &hello.has_extensions, &hello.extensions);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ClientHello: ", status.message()));
  }
  return hello;
}

std::string SerializeClientHello(const ClientHello& hello) {
  CBB cbb, child;
  CBB_init(&cbb, 256);
  bool ok =
      CBB_add_u16(&cbb, hello.version) &&
      CBB_add_bytes(&cbb, Bytes(hello.random), hello.random.size()) &&
      CBB_add_u8_length_prefixed(&cbb, &child) &&
      CBB_add_bytes(&child, Bytes(hello.session_id), hello.session_id.size()) &&
      CBB_add_u16_length_prefixed(&cbb, &child);
  for (uint16_t suite : hello.cipher_suites)
    ok = ok && CBB_add_u16(&child, suite);
  ok = ok && CBB_add_u8_length_prefixed(&cbb, &child) &&
       CBB_add_bytes(&child, Bytes(hello.compression_methods),
                     hello.compression_methods.size()) &&
       AddExtensions(&cbb, hello.has_extensions, hello.extensions);
  if (!ok) {
    CBB_cleanup(&cbb);
    return std::string();
  }
  return Finish(&cbb);
}

absl::StatusOr<ServerHello> ParseServerHello(absl::string_view body) {
  CBS cbs, random, session_id;
  CBS_init(&cbs, Bytes(body), body.size());
  ServerHello hello;
  if (!CBS_get_u16(&cbs, &hello.version) ||
      !CBS_get_bytes(&cbs, &random, kRandomSize) ||
      !CBS_get_u8_length_prefixed(&cbs, &session_id) ||
      CBS_len(&session_id) > 32 || !CBS_get_u16(&cbs, &hello.cipher_suite) ||
      !CBS_get_u8(&cbs, &hello.compression_method)) {
    return absl::InvalidArgumentError("malformed ServerHello");
  }
  hello.random = ToString(random);
  hello.session_id = ToString(session_id);
  absl::Status status =
      ParseExtensions(&cbs, &hello.has_extensions, &hello.extensions);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ServerHello: ", status.message()));
  }
  return hello;
}

std::string SerializeServerHello(const ServerHello& hello) {
  CBB cbb, child;
  CBB_init(&cbb, 128);
  bool ok =
      CBB_add_u16(&cbb, hello.version) &&
      CBB_add_bytes(&cbb, Bytes(hello.random), hello.random.size()) &&
      CBB_add_u8_length_prefixed(&cbb, &child) &&
      CBB_add_bytes(&child, Bytes(hello.session_id), hello.session_id.size()) &&
      CBB_add_u16(&cbb, hello.cipher_suite) &&
      CBB_add_u8(&cbb, hello.compression_method) &&
      AddExtensions(&cbb, hello.has_extensions, hello.extensions);
  if (!ok) {
    CBB_cleanup(&cbb);
    return std::string();
  }
  return Finish(&cbb);
}

absl::StatusOr<std::vector<std::string>> ParseCertificate(
    absl::string_view body) {
  CBS cbs, list;
  CBS_init(&cbs, Bytes(body), body.size());
  if (!CBS_get_u24_length_prefixed(&cbs, &list) || CBS_len(&cbs) != 0) {
    return absl::InvalidArgumentError("malformed Certificate message");
  }
  std::vector<std::string> chain;
  while (CBS_len(&list) > 0) {
    CBS cert;
    if (!CBS_get_u24_length_prefixed(&list, &cert) || CBS_len(&cert) == 0) {
      return absl::InvalidArgumentError("malformed certificate entry");
    }
    chain.push_back(ToString(cert));
  }
  return chain;
}

std::string SerializeCertificate(const std::vector<std::string>& chain_der) {
  CBB cbb, list, cert;
  CBB_init(&cbb, 4096);
  bool ok = CBB_add_u24_length_prefixed(&cbb, &list);
  for (const std::string& der : chain_der) {
    ok = ok && CBB_add_u24_length_prefixed(&list, &cert) &&
         CBB_add_bytes(&cert, Bytes(der), der.size());
  }
  if (!ok) {
    CBB_cleanup(&cbb);
    return std::string();
  }
  return Finish(&cbb);
}

absl::StatusOr<NewSessionTicket> ParseNewSessionTicket(absl::string_view body) {
  CBS cbs, ticket;
  CBS_init(&cbs, Bytes(body), body.size());
  NewSessionTicket out;
  if (!CBS_get_u32(&cbs, &out.lifetime_hint) ||
      !CBS_get_u16_length_prefixed(&cbs, &ticket) || CBS_len(&cbs) != 0) {
    return absl::InvalidArgumentError("malformed NewSessionTicket");
  }
  out.ticket = ToString(ticket);
  return out;
}

std::string SerializeNewSessionTicket(const NewSessionTicket& ticket) {
  CBB cbb, child;
  CBB_init(&cbb, 16 + ticket.ticket.size());
  if (!CBB_add_u32(&cbb, ticket.lifetime_hint) ||
      !CBB_add_u16_length_prefixed(&cbb, &child) ||
      !CBB_add_bytes(&child, Bytes(ticket.ticket), ticket.ticket.size())) {
    CBB_cleanup(&cbb);
    return std::string();
  }
  return Finish(&cbb);
}

absl::StatusOr<std::string> ParseRsaClientKeyExchange(absl::string_view body) {
  CBS cbs, encrypted;
  CBS_init(&cbs, Bytes(body), body.size());
  if (!CBS_get_u16_length_prefixed(&cbs, &encrypted) || CBS_len(&cbs) != 0 ||
      CBS_len(&encrypted) == 0) {
    return absl::InvalidArgumentError("malformed ClientKeyExchange");
  }
  return ToString(encrypted);
}

std::string SerializeRsaClientKeyExchange(absl::string_view encrypted) {
  CBB cbb, child;
  CBB_init(&cbb, 2 + encrypted.size());
  if (!CBB_add_u16_length_prefixed(&cbb, &child) ||
      !CBB_add_bytes(&child, Bytes(encrypted), encrypted.size())) {
    CBB_cleanup(&cbb);
    return std::string();
  }
  return Finish(&cbb);
}

absl::StatusOr<std::optional<SnapStartAttempt>> ParseSnapStartClientExtension(
    absl::string_view payload) {
  if (payload.empty()) return std::nullopt;
  if (payload.size() < kSnapStartAttemptHeaderSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("Snap Start extension of ", payload.size(),
                     " bytes: neither empty nor an attempt (at least 36)"));
  }
  SnapStartAttempt attempt;
  memcpy(attempt.orbit.data(), payload.data(), kOrbitSize);
  attempt.random_bytes =
      std::string(payload.substr(kOrbitSize, kSnapStartRandomBytesSize));
  memcpy(attempt.predicted_hash.data(), payload.data() + 28, 8);
  attempt.records = std::string(payload.substr(kSnapStartAttemptHeaderSize));
  return attempt;
}

std::string SerializeSnapStartAttempt(const SnapStartAttempt& attempt) {
  std::string out;
  out.append(reinterpret_cast<const char*>(attempt.orbit.data()), kOrbitSize);
  out.append(attempt.random_bytes);
  out.append(reinterpret_cast<const char*>(attempt.predicted_hash.data()), 8);
  out.append(attempt.records);
  return out;
}

absl::StatusOr<SnapStartServerInfo> ParseSnapStartServerExtension(
    absl::string_view payload) {
  if (payload.size() != kOrbitSize + 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "server Snap Start extension of ", payload.size(), " bytes, not 10"));
  }
  SnapStartServerInfo info;
  memcpy(info.orbit.data(), payload.data(), kOrbitSize);
  info.cipher_suite =
      static_cast<uint16_t>((static_cast<uint8_t>(payload[8]) << 8) |
                            static_cast<uint8_t>(payload[9]));
  return info;
}

std::string SerializeSnapStartServerExtension(const SnapStartServerInfo& info) {
  std::string out(reinterpret_cast<const char*>(info.orbit.data()), kOrbitSize);
  out.push_back(static_cast<char>(info.cipher_suite >> 8));
  out.push_back(static_cast<char>(info.cipher_suite & 0xff));
  return out;
}

std::string ServerNameExtension(absl::string_view host) {
  CBB cbb, list, name;
  CBB_init(&cbb, host.size() + 5);
  if (!CBB_add_u16_length_prefixed(&cbb, &list) || !CBB_add_u8(&list, 0) ||
      !CBB_add_u16_length_prefixed(&list, &name) ||
      !CBB_add_bytes(&name, Bytes(host), host.size())) {
    CBB_cleanup(&cbb);
    return std::string();
  }
  return Finish(&cbb);
}

std::string SuggestedServerRandom(absl::string_view client_random,
                                  const Orbit& orbit,
                                  absl::string_view random_bytes) {
  std::string out(client_random.substr(0, 4));
  out.append(reinterpret_cast<const char*>(orbit.data()), kOrbitSize);
  out.append(random_bytes.data(), random_bytes.size());
  return out;
}

uint32_t RandomTime(absl::string_view random) {
  if (random.size() < 4) return 0;
  return (static_cast<uint32_t>(static_cast<uint8_t>(random[0])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(random[1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(random[2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(random[3]));
}

std::string OrbitToHex(const Orbit& orbit) {
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(orbit.data()), orbit.size()));
}

absl::StatusOr<Orbit> OrbitFromHex(absl::string_view hex) {
  if (hex.size() != 2 * kOrbitSize) {
    return absl::InvalidArgumentError("orbit must be 16 hex digits (8 bytes)");
  }
  for (char c : hex) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError("orbit is not hexadecimal");
    }
  }
  const std::string bytes = absl::HexStringToBytes(hex);
  Orbit orbit;
  memcpy(orbit.data(), bytes.data(), kOrbitSize);
  return orbit;
}

}  // namespace net
