#include "net/quic/quic_client_context.h"

#include <ngtcp2/ngtcp2_crypto_boringssl.h>

namespace net {

QuicClientContext::QuicClientContext(CertVerifier* verifier)
    : verifier_(verifier) {
  bssl::UniquePtr<SSL_CTX> ctx(SSL_CTX_new(TLS_method()));
  if (!ctx) return;
  // QUIC is TLS 1.3 only (RFC 9001 4.2).
  if (!SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) ||
      !SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION)) {
    return;
  }
  if (ngtcp2_crypto_boringssl_configure_client_context(ctx.get()) != 0) return;
  ssl_ctx_ = std::move(ctx);
}

QuicClientContext::~QuicClientContext() = default;

}  // namespace net
