#include "net/snap_start/tls12_handshake.h"

#include <openssl/bytestring.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"
#include "net/snap_start/tls12_crypto.h"

namespace net {
namespace {

HandshakeFailure Failure(int error, TlsAlert alert, std::string detail) {
  return HandshakeFailure{error, alert, std::move(detail)};
}

HandshakeFailure Malformed(uint16_t type, absl::string_view what) {
  return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertDecodeError,
                 absl::StrCat("malformed extension ", type, ": ", what));
}

void InitCbs(CBS* cbs, absl::string_view bytes) {
  CBS_init(cbs, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// server_name in a ClientHello (RFC 6066 section 3): a non-empty list of
// (name_type, u16-length name); a host_name is non-empty.
bool ValidServerNameList(absl::string_view body) {
  CBS cbs, list;
  InitCbs(&cbs, body);
  if (!CBS_get_u16_length_prefixed(&cbs, &list) || CBS_len(&cbs) != 0 ||
      CBS_len(&list) == 0) {
    return false;
  }
  while (CBS_len(&list) > 0) {
    uint8_t name_type;
    CBS name;
    if (!CBS_get_u8(&list, &name_type) ||
        !CBS_get_u16_length_prefixed(&list, &name) ||
        (name_type == 0 && CBS_len(&name) == 0)) {
      return false;
    }
  }
  return true;
}

// signature_algorithms (RFC 5246 section 7.4.1.4.1): a non-empty list of u16.
bool ValidSignatureAlgorithms(absl::string_view body) {
  CBS cbs, list;
  InitCbs(&cbs, body);
  return CBS_get_u16_length_prefixed(&cbs, &list) && CBS_len(&cbs) == 0 &&
         CBS_len(&list) > 0 && CBS_len(&list) % 2 == 0;
}

// renegotiation_info (RFC 5746 section 3.2): a u8-length renegotiated
// connection. Returns its content, or nullopt when malformed.
std::optional<absl::string_view> RenegotiatedConnection(
    absl::string_view body) {
  CBS cbs, content;
  InitCbs(&cbs, body);
  if (!CBS_get_u8_length_prefixed(&cbs, &content) || CBS_len(&cbs) != 0) {
    return std::nullopt;
  }
  return absl::string_view(reinterpret_cast<const char*>(CBS_data(&content)),
                           CBS_len(&content));
}

// The checks both hellos share for renegotiation_info in an initial
// handshake.
std::optional<HandshakeFailure> CheckRenegotiationInfo(absl::string_view body) {
  std::optional<absl::string_view> content = RenegotiatedConnection(body);
  if (!content) return Malformed(kRenegotiationInfoExtension, "bad length");
  if (!content->empty()) {
    return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertHandshakeFailure,
                   "renegotiation_info is not empty in an initial handshake");
  }
  return std::nullopt;
}

}  // namespace

ClientHello NewClientHello(absl::string_view host, std::string random,
                           std::string session_id,
                           std::optional<std::string> ticket) {
  ClientHello hello;
  hello.version = kTls12Version;
  hello.random = std::move(random);
  hello.session_id = std::move(session_id);
  hello.cipher_suites = {kTlsRsaWithAes128GcmSha256,
                         kEmptyRenegotiationInfoScsv};
  hello.compression_methods = std::string(1, '\0');
  hello.has_extensions = true;
  if (!IPAddress::Parse(host)) {
    hello.extensions.emplace_back(kServerNameExtension,
                                  ServerNameExtension(host));
  }
  // rsa_pkcs1_sha256, rsa_pss_rsae_sha256, ecdsa_secp256r1_sha256: unused by
  // static RSA, but servers choose certificates by them.
  hello.extensions.emplace_back(
      kSignatureAlgorithmsExtension,
      std::string("\x00\x06\x04\x01\x08\x04\x04\x03", 8));
  hello.extensions.emplace_back(kExtendedMasterSecretExtension, std::string());
  if (ticket) {
    hello.extensions.emplace_back(kSessionTicketExtension, std::move(*ticket));
  }
  return hello;
}

std::optional<HandshakeFailure> CheckClientHello(const ClientHello& hello) {
  if (hello.version < kTls12Version) {
    return Failure(ERR_SSL_VERSION_OR_CIPHER_MISMATCH, kAlertProtocolVersion,
                   "client offers no TLS 1.2");
  }
  if (!hello.OffersSuite(kTlsRsaWithAes128GcmSha256) ||
      hello.compression_methods.find('\0') == std::string::npos) {
    return Failure(ERR_SSL_VERSION_OR_CIPHER_MISMATCH, kAlertHandshakeFailure,
                   "client does not offer TLS_RSA_WITH_AES_128_GCM_SHA256 "
                   "with null compression");
  }
  for (const auto& [type, body] : hello.extensions) {
    switch (type) {
      case kServerNameExtension:
        if (!ValidServerNameList(body)) {
          return Malformed(type, "bad server_name list");
        }
        break;
      case kSignatureAlgorithmsExtension:
        if (!ValidSignatureAlgorithms(body)) {
          return Malformed(type, "bad signature_algorithms list");
        }
        break;
      case kExtendedMasterSecretExtension:
        if (!body.empty()) return Malformed(type, "body must be empty");
        break;
      case kRenegotiationInfoExtension:
        if (auto failure = CheckRenegotiationInfo(body)) return failure;
        break;
      case kSnapStartExtension:
        if (!ParseSnapStartClientExtension(body).ok()) {
          return Malformed(type, "Snap Start extension of 1..35 bytes");
        }
        break;
      default:
        // session_ticket takes any bytes; unknown extensions are ignored.
        break;
    }
  }
  return std::nullopt;
}

std::optional<HandshakeFailure> ParseAndCheckClientHello(absl::string_view body,
                                                         ClientHello* out) {
  absl::StatusOr<ClientHello> hello = ParseClientHello(body);
  if (!hello.ok()) {
    return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertDecodeError,
                   std::string(hello.status().message()));
  }
  if (auto failure = CheckClientHello(*hello)) return failure;
  *out = std::move(*hello);
  return std::nullopt;
}

std::optional<HandshakeFailure> ParseAndCheckServerHello(
    absl::string_view body, const ClientHello& offered, ServerHello* out) {
  absl::StatusOr<ServerHello> hello = ParseServerHello(body);
  if (!hello.ok()) {
    return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertDecodeError,
                   std::string(hello.status().message()));
  }
  if (auto failure = CheckServerHello(*hello, offered)) return failure;
  *out = std::move(*hello);
  return std::nullopt;
}

std::optional<HandshakeFailure> CheckServerHello(const ServerHello& hello,
                                                 const ClientHello& offered) {
  if (hello.version != kTls12Version) {
    return Failure(
        ERR_SSL_VERSION_OR_CIPHER_MISMATCH, kAlertProtocolVersion,
        absl::StrCat("server chose version 0x", absl::Hex(hello.version),
                     "; the Snap Start core speaks TLS 1.2 only"));
  }
  if (hello.cipher_suite != kTlsRsaWithAes128GcmSha256 ||
      !offered.OffersSuite(hello.cipher_suite) ||
      hello.compression_method != 0) {
    return Failure(ERR_SSL_VERSION_OR_CIPHER_MISMATCH, kAlertIllegalParameter,
                   "server chose a cipher suite or compression not offered");
  }
  for (const auto& [type, body] : hello.extensions) {
    const bool offered_it = offered.FindExtension(type) != nullptr ||
                            (type == kRenegotiationInfoExtension &&
                             offered.OffersSuite(kEmptyRenegotiationInfoScsv));
    if (!offered_it) {
      return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertUnsupportedExtension,
                     absl::StrCat("server sent extension ", type,
                                  " that was not offered"));
    }
    switch (type) {
      case kRenegotiationInfoExtension:
        if (auto failure = CheckRenegotiationInfo(body)) return failure;
        break;
      case kServerNameExtension:
      case kSessionTicketExtension:
      case kExtendedMasterSecretExtension:
        if (!body.empty()) return Malformed(type, "body must be empty");
        break;
      case kSnapStartExtension:
        if (!ParseSnapStartServerExtension(body).ok()) {
          return Malformed(type, "server Snap Start extension is not 10 bytes");
        }
        break;
      default:
        return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertUnsupportedExtension,
                       absl::StrCat("server sent extension ", type,
                                    ", which a server may not send"));
    }
  }
  return std::nullopt;
}

std::optional<HandshakeFailure> ParseServerCertificate(
    const HandshakeMessage& message, std::vector<std::string>* chain_der) {
  if (message.type == kServerKeyExchangeType) {
    return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertUnexpectedMessage,
                   "server sent a ServerKeyExchange: not static RSA");
  }
  if (message.type != kCertificateType) {
    return Failure(ERR_SSL_PROTOCOL_ERROR, kAlertUnexpectedMessage,
                   "expected Certificate");
  }
  absl::StatusOr<std::vector<std::string>> chain =
      ParseCertificate(message.body);
  if (!chain.ok() || chain->empty()) {
    return Failure(ERR_SSL_SERVER_CERT_MISSING, kAlertDecodeError,
                   chain.ok() ? "server sent no certificate"
                              : std::string(chain.status().message()));
  }
  *chain_der = std::move(*chain);
  return std::nullopt;
}

}  // namespace net
