// Maps BoringSSL's error queue to net errors, in one place; and the SSLInfo
// a socket attaches to its SSL for BoringSSL's callbacks.

#ifndef NET_SSL_OPENSSL_UTIL_H_
#define NET_SSL_OPENSSL_UTIL_H_

#include <openssl/ssl.h>

#include <string>

#include "absl/strings/string_view.h"

namespace net {

struct SSLInfo;

// MapOpenSSLError maps the result of SSL_get_error and the error queue to a
// net error, filling |detail| with BoringSSL's reason. Clears the queue.
// |transport_error| is the transport's error or OK; |transport_eof| says
// whether the transport reached end of stream.
//
// |peer_first_bytes| are the first bytes the peer sent (if known). A
// handshake that failed on bytes that are not TLS records at all (BoringSSL's
// WRONG_VERSION_NUMBER, HTTP_REQUEST, ...; or any failure when the first
// bytes are no TLS record header) is ERR_SSL_PROTOCOL_ERROR with the detail
// "peer does not speak TLS (first bytes ...)", not a version or cipher
// mismatch.
int MapOpenSSLError(int ssl_error, int transport_error, bool transport_eof,
                    bool in_handshake, std::string* detail,
                    absl::string_view peer_first_bytes = {});

// DescribeNonTlsPeer is that detail for |first_bytes|: printable bytes
// quoted, others in hex, and a hint when they look like plain HTTP.
std::string DescribeNonTlsPeer(absl::string_view first_bytes);

// The SSLInfo of the socket that owns |ssl|, where BoringSSL's callbacks
// record what they did (certificate compression sizes, the server's early
// data verdict). A socket attaches its own right after SSL_new; it must
// outlive |ssl|. AttachedSSLInfo is null when none was attached.
void AttachSSLInfo(SSL* ssl, SSLInfo* info);
SSLInfo* AttachedSSLInfo(const SSL* ssl);

}  // namespace net

#endif  // NET_SSL_OPENSSL_UTIL_H_
