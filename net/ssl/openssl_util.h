// Maps BoringSSL's error queue to net errors, in one place.

#ifndef NET_SSL_OPENSSL_UTIL_H_
#define NET_SSL_OPENSSL_UTIL_H_

#include <string>

namespace net {

// MapOpenSSLError maps the result of SSL_get_error and the error queue to a
// net error, filling |detail| with BoringSSL's reason. Clears the queue.
// |transport_error| is the transport's error or OK; |transport_eof| says
// whether the transport reached end of stream.
int MapOpenSSLError(int ssl_error, int transport_error, bool transport_eof,
                    bool in_handshake, std::string* detail);

}  // namespace net

#endif  // NET_SSL_OPENSSL_UTIL_H_
