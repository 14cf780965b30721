#include "cert/obc/ssl_client_cert.h"

#include <openssl/mem.h>
#include <openssl/pool.h>

#include "absl/strings/string_view.h"
#include "cert/obc/obc_crypto.h"

namespace net {

absl::Status InstallClientCert(SSL* ssl, const ClientCert& cert) {
  if (cert.key == nullptr || cert.cert_der.empty())
    return absl::InvalidArgumentError("empty client certificate");
  bssl::UniquePtr<CRYPTO_BUFFER> buffer(
      CRYPTO_BUFFER_new(reinterpret_cast<const uint8_t*>(cert.cert_der.data()),
                        cert.cert_der.size(), nullptr));
  if (!buffer) return absl::ResourceExhaustedError("CRYPTO_BUFFER_new");
  CRYPTO_BUFFER* chain[] = {buffer.get()};
  // SSL_set_chain_and_key checks that the key matches the certificate.
  if (!SSL_set_chain_and_key(ssl, chain, 1, cert.key.get(), nullptr))
    return absl::InvalidArgumentError(
        "BoringSSL refused the client certificate and key");
  return absl::OkStatus();
}

namespace {

absl::StatusOr<std::string> LeafSpkiSha256(const STACK_OF(CRYPTO_BUFFER) *
                                           chain) {
  if (chain == nullptr || sk_CRYPTO_BUFFER_num(chain) == 0)
    return absl::NotFoundError("the peer sent no certificate");
  const CRYPTO_BUFFER* leaf = sk_CRYPTO_BUFFER_value(chain, 0);
  return SpkiSha256(
      absl::string_view(reinterpret_cast<const char*>(CRYPTO_BUFFER_data(leaf)),
                        CRYPTO_BUFFER_len(leaf)));
}

}  // namespace

absl::StatusOr<std::string> PeerLeafSpkiSha256(const SSL* ssl) {
  return LeafSpkiSha256(SSL_get0_peer_certificates(ssl));
}

absl::StatusOr<std::string> PeerLeafSpkiSha256FromSession(
    const SSL_SESSION* session) {
  if (session == nullptr) return absl::NotFoundError("no session");
  return LeafSpkiSha256(SSL_SESSION_get0_peer_certificates(session));
}

}  // namespace net
