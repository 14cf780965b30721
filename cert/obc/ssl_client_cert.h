// Glue between a ClientCert and a BoringSSL client connection: what net/ssl
// calls from its SSL_set_cert_cb callback once the provider has answered.
//
// BoringSSL calls the cert callback on a client only when the server sent a
// CertificateRequest (TLS 1.2 and 1.3). The callback asks the
// ClientCertProvider; on OK it installs the certificate with
// InstallClientCert and returns 1; on ERR_IO_PENDING it returns -1, so
// SSL_do_handshake fails with SSL_ERROR_WANT_X509_LOOKUP, and the socket
// resumes the handshake when the provider's callback has run (the cert
// callback is then called again and installs the now-ready certificate).
// Returning 1 without installing anything sends an empty Certificate
// message ("OBC off").
//
// Stateless functions; the caller owns the SSL.

#ifndef CERT_OBC_SSL_CLIENT_CERT_H_
#define CERT_OBC_SSL_CLIENT_CERT_H_

#include <openssl/ssl.h>

#include "absl/status/status.h"
#include "cert/obc/client_cert_provider.h"

namespace net {

// InstallClientCert makes |ssl| present |cert| (leaf only, no chain) and
// sign with its key. InvalidArgument if the key does not match the
// certificate or BoringSSL refuses them.
absl::Status InstallClientCert(SSL* ssl, const ClientCert& cert);

// PeerLeafSpkiSha256 returns the SHA-256 of the peer's leaf certificate's
// SubjectPublicKeyInfo (the OBC's identity, what a server binds cookies to),
// or NotFound if the peer sent no certificate. For the test server.
absl::StatusOr<std::string> PeerLeafSpkiSha256(const SSL* ssl);

// PeerLeafSpkiSha256FromSession is the same for an established session
// (SSL_get_session on a server after its handshake, new or resumed: a
// resumed session keeps the certificate the client sent when it was made).
// NotFound if |session| is null or holds no peer certificate.
absl::StatusOr<std::string> PeerLeafSpkiSha256FromSession(
    const SSL_SESSION* session);

}  // namespace net

#endif  // CERT_OBC_SSL_CLIENT_CERT_H_
