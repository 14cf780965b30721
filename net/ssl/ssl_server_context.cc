#include "net/ssl/ssl_server_context.h"

#include <openssl/err.h>

#include "absl/strings/str_cat.h"

namespace net {
namespace {

std::string LastSSLError() {
  char buf[256] = {};
  ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

}  // namespace

SSLServerContext::SSLServerContext(const SSLServerConfig& config)
    : config_(config), ssl_ctx_(SSL_CTX_new(TLS_method())) {}

SSLServerContext::~SSLServerContext() = default;

absl::StatusOr<std::unique_ptr<SSLServerContext>> SSLServerContext::Create(
    const SSLServerConfig& config) {
  std::unique_ptr<SSLServerContext> context(new SSLServerContext(config));
  SSL_CTX* ctx = context->ssl_ctx_.get();
  if (!SSL_CTX_use_certificate_chain_file(ctx, config.cert_chain_file.c_str())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load certificate chain ", config.cert_chain_file, ": ", LastSSLError()));
  }
  if (!SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(), SSL_FILETYPE_PEM)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load key ", config.key_file, ": ", LastSSLError()));
  }
  if (!SSL_CTX_check_private_key(ctx)) {
    return absl::InvalidArgumentError("private key does not match the certificate");
  }
  if (!SSL_CTX_set_min_proto_version(ctx, config.version_min) ||
      !SSL_CTX_set_max_proto_version(ctx, config.version_max)) {
    return absl::InvalidArgumentError("bad TLS version range");
  }
  if (!config.cipher_list.empty() &&
      !SSL_CTX_set_strict_cipher_list(ctx, config.cipher_list.c_str())) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad cipher list '", config.cipher_list, "': ", LastSSLError()));
  }
  if (!config.alpn_protos.empty()) {
    SSL_CTX_set_alpn_select_cb(ctx, &SSLServerContext::SelectAlpn, context.get());
  }
  if (!config.tickets) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(
      ctx, config.session_cache ? SSL_SESS_CACHE_SERVER : SSL_SESS_CACHE_OFF);
  static const uint8_t kSessionIdContext[] = "netstack-testserver";
  SSL_CTX_set_session_id_context(ctx, kSessionIdContext, sizeof(kSessionIdContext) - 1);
  SSL_CTX_set_num_tickets(ctx, config.tickets ? config.tls13_tickets : 0);
  return context;
}

int SSLServerContext::SelectAlpn(SSL* ssl, const uint8_t** out, uint8_t* out_len,
                                 const uint8_t* in, unsigned in_len, void* arg) {
  auto* self = static_cast<SSLServerContext*>(arg);
  // Server preference: the first of ours that the client offers.
  for (const std::string& ours : self->config_.alpn_protos) {
    CBS offered;
    CBS_init(&offered, in, in_len);
    while (CBS_len(&offered) > 0) {
      CBS proto;
      if (!CBS_get_u8_length_prefixed(&offered, &proto)) return SSL_TLSEXT_ERR_ALERT_FATAL;
      if (CBS_len(&proto) == ours.size() &&
          memcmp(CBS_data(&proto), ours.data(), ours.size()) == 0) {
        *out = CBS_data(&proto);
        *out_len = static_cast<uint8_t>(CBS_len(&proto));
        return SSL_TLSEXT_ERR_OK;
      }
    }
  }
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace net
