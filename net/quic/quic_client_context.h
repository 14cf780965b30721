// QuicClientContext: what every QUIC connection of one client shares — a
// BoringSSL SSL_CTX set up for QUIC (TLS 1.3 only, ngtcp2's BoringSSL
// crypto helper's SSL_QUIC_METHOD) and the certificate verifier every
// handshake asks, the same CertVerifier TCP's TLS uses (SSLClientContext),
// so a QUIC server's chain gets the same verification, revocation and
// prevalidation and the same cert.* trace.
//
// Its own SSL_CTX: a QUIC method on the TCP context would turn its TLS
// connections into QUIC ones. Owned by the HttpNetworkSession (or a test);
// outlives every QuicSession made with it. The verifier is not owned and
// must outlive it.

#ifndef NET_QUIC_QUIC_CLIENT_CONTEXT_H_
#define NET_QUIC_QUIC_CLIENT_CONTEXT_H_

#include <openssl/ssl.h>

#include "cert/cert_verifier.h"

namespace net {

class QuicClientContext {
 public:
  explicit QuicClientContext(CertVerifier* verifier);
  ~QuicClientContext();
  QuicClientContext(const QuicClientContext&) = delete;
  QuicClientContext& operator=(const QuicClientContext&) = delete;

  // Null if BoringSSL could not make or configure it (ok() false).
  SSL_CTX* ssl_ctx() { return ssl_ctx_.get(); }
  bool ok() const { return ssl_ctx_ != nullptr; }
  CertVerifier* cert_verifier() { return verifier_; }

 private:
  bssl::UniquePtr<SSL_CTX> ssl_ctx_;
  CertVerifier* const verifier_;
};

}  // namespace net

#endif  // NET_QUIC_QUIC_CLIENT_CONTEXT_H_
