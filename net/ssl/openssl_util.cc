#include "net/ssl/openssl_util.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

// Whether |bytes| can start a TLS record: a known content type
// (change_cipher_spec .. heartbeat) and major version 3, or an SSLv2-format
// ClientHello (length with the high bit set, CLIENT-HELLO, version 3.x),
// which BoringSSL servers still accept.
bool LooksLikeTlsRecord(absl::string_view bytes) {
  if (bytes.empty()) return true;  // Nothing to judge by.
  uint8_t type = static_cast<uint8_t>(bytes[0]);
  if ((type & 0x80) && bytes.size() >= 4 && bytes[2] == 1 && bytes[3] == 3)
    return true;
  if (type < 20 || type > 24) return false;
  return bytes.size() < 2 || static_cast<uint8_t>(bytes[1]) == 3;
}

// BoringSSL's reasons for bytes that are no TLS record.
bool IsNotTlsReason(int reason) {
  switch (reason) {
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_HTTP_REQUEST:
    case SSL_R_HTTPS_PROXY_REQUEST:
    case SSL_R_ENCRYPTED_LENGTH_TOO_LONG:
#ifdef SSL_R_PACKET_LENGTH_TOO_LONG
    case SSL_R_PACKET_LENGTH_TOO_LONG:
#endif
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string DescribeNonTlsPeer(absl::string_view first_bytes) {
  if (first_bytes.empty()) return "peer does not speak TLS";
  bool printable = true;
  for (char c : first_bytes) {
    if (!absl::ascii_isprint(c) && c != '\r' && c != '\n' && c != '\t')
      printable = false;
  }
  std::string shown;
  if (printable) {
    shown = absl::StrCat("\"", absl::CEscape(first_bytes), "\"");
  } else {
    for (size_t i = 0; i < first_bytes.size() && i < 8; ++i) {
      absl::StrAppend(
          &shown, i ? " " : "",
          absl::Hex(static_cast<uint8_t>(first_bytes[i]), absl::kZeroPad2));
    }
  }
  std::string hint;
  if (absl::StartsWith(first_bytes, "HTTP/")) {
    hint = "; it answered in plain HTTP: is this an http:// port?";
  } else if (absl::StartsWith(first_bytes, "GET ") ||
             absl::StartsWith(first_bytes, "POST ") ||
             absl::StartsWith(first_bytes, "HEAD ")) {
    hint = "; it sent a plain HTTP request";
  }
  return absl::StrCat("peer does not speak TLS (first bytes: ", shown, hint,
                      ")");
}

int MapOpenSSLError(int ssl_error, int transport_error, bool transport_eof,
                    bool in_handshake, std::string* detail,
                    absl::string_view peer_first_bytes) {
  uint32_t packed = ERR_peek_error();
  char buf[256] = {};
  if (packed != 0) ERR_error_string_n(packed, buf, sizeof(buf));
  ERR_clear_error();
  if (detail) *detail = buf;

  switch (ssl_error) {
    case SSL_ERROR_ZERO_RETURN:
      return in_handshake ? ERR_SSL_HANDSHAKE_CLOSED : ERR_CONNECTION_CLOSED;
    case SSL_ERROR_SYSCALL:
      if (transport_error != OK) return transport_error;
      if (transport_eof || packed == 0) {
        if (detail && detail->empty()) *detail = "peer closed the connection";
        return in_handshake ? ERR_SSL_HANDSHAKE_CLOSED : ERR_CONNECTION_CLOSED;
      }
      return ERR_SSL_PROTOCOL_ERROR;
    case SSL_ERROR_SSL:
      break;
    case SSL_ERROR_EARLY_DATA_REJECTED:
      if (detail) *detail = "the server rejected the TLS 1.3 early data";
      return ERR_EARLY_DATA_REJECTED;
    default:
      return ERR_SSL_PROTOCOL_ERROR;
  }
  if (ERR_GET_LIB(packed) != ERR_LIB_SSL) {
    if (transport_error != OK) return transport_error;
    return ERR_SSL_PROTOCOL_ERROR;
  }
  // Garbage, plain HTTP or another protocol where the peer's first TLS
  // record should be is not a version or cipher mismatch: say so, with the
  // bytes (a TLS peer's version mismatch arrives as a protocol_version alert
  // or an unsupported ServerHello version instead).
  if (in_handshake && (IsNotTlsReason(ERR_GET_REASON(packed)) ||
                       !LooksLikeTlsRecord(peer_first_bytes))) {
    if (detail) {
      *detail = LooksLikeTlsRecord(peer_first_bytes)
                    ? absl::StrCat("malformed TLS record (", buf, ")")
                    : DescribeNonTlsPeer(peer_first_bytes);
    }
    return ERR_SSL_PROTOCOL_ERROR;
  }
  switch (ERR_GET_REASON(packed)) {
    case SSL_R_NO_SHARED_CIPHER:
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_NO_SUPPORTED_VERSIONS_ENABLED:
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
    case SSL_R_TLSV1_ALERT_INSUFFICIENT_SECURITY:
      return ERR_SSL_VERSION_OR_CIPHER_MISMATCH;
    case SSL_R_SSLV3_ALERT_BAD_RECORD_MAC:
    case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
      return ERR_SSL_BAD_RECORD_MAC_ALERT;
    case SSL_R_TLSV1_ALERT_ACCESS_DENIED:
    case SSL_R_TLSV1_ALERT_DECODE_ERROR:
    case SSL_R_TLSV1_ALERT_INTERNAL_ERROR:
    case SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
      return ERR_SSL_PEER_ALERT;
    case SSL_R_TLSV1_ALERT_CERTIFICATE_REQUIRED:
      return ERR_SSL_CLIENT_AUTH_CERT_NEEDED;
    case SSL_R_WRONG_VERSION_ON_EARLY_DATA:
      return ERR_WRONG_VERSION_ON_EARLY_DATA;
    case SSL_R_CERT_DECOMPRESSION_FAILED:
      return ERR_SSL_CERT_DECOMPRESSION_FAILED;
    // The server could not use the ECH configuration and authenticated the
    // rejection with a certificate for its public name (the client socket
    // keeps the retry configurations).
    case SSL_R_ECH_REJECTED:
      return ERR_ECH_NOT_NEGOTIATED;
    default:
      return ERR_SSL_PROTOCOL_ERROR;
  }
}

namespace {

int SSLInfoIndex() {
  static const int index =
      SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

}  // namespace

void AttachSSLInfo(SSL* ssl, SSLInfo* info) {
  SSL_set_ex_data(ssl, SSLInfoIndex(), info);
}

SSLInfo* AttachedSSLInfo(const SSL* ssl) {
  return static_cast<SSLInfo*>(SSL_get_ex_data(ssl, SSLInfoIndex()));
}

}  // namespace net
