#include "net/ssl/openssl_util.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "net/base/net_errors.h"

namespace net {

int MapOpenSSLError(int ssl_error, int transport_error, bool transport_eof,
                    bool in_handshake, std::string* detail) {
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
    default:
      return ERR_SSL_PROTOCOL_ERROR;
  }
  if (ERR_GET_LIB(packed) != ERR_LIB_SSL) {
    if (transport_error != OK) return transport_error;
    return ERR_SSL_PROTOCOL_ERROR;
  }
  switch (ERR_GET_REASON(packed)) {
    case SSL_R_NO_SHARED_CIPHER:
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_NO_SUPPORTED_VERSIONS_ENABLED:
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
    case SSL_R_TLSV1_ALERT_INSUFFICIENT_SECURITY:
    case SSL_R_WRONG_VERSION_NUMBER:
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
    default:
      return ERR_SSL_PROTOCOL_ERROR;
  }
}

}  // namespace net
