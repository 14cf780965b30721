#include "net/ssl/ssl_server_context.h"

#include <openssl/err.h>

#include <ctime>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "net/ssl/openssl_util.h"
#include "net/ssl/ssl_info.h"

namespace net {
namespace {

std::string LastSSLError() {
  char buf[256] = {};
  ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

// The SSL_CTX ex_data slot that points back at the SSLServerContext.
int ContextIndex() {
  static const int index =
      SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

absl::string_view SessionId(const SSL_SESSION* session) {
  unsigned len = 0;
  const uint8_t* id = SSL_SESSION_get_id(session, &len);
  return absl::string_view(reinterpret_cast<const char*>(id), len);
}

std::shared_ptr<SSL_SESSION> AdoptSession(SSL_SESSION* session_with_ref) {
  return std::shared_ptr<SSL_SESSION>(session_with_ref, SSL_SESSION_free);
}

}  // namespace

SSLServerContext::SSLServerContext(const SSLServerConfig& config)
    : config_(config),
      clock_(config.clock ? config.clock : DefaultTickClock::GetInstance()),
      ssl_ctx_(SSL_CTX_new(TLS_method())) {
  SSL_CTX_set_ex_data(ssl_ctx_.get(), ContextIndex(), this);
}

SSLServerContext::~SSLServerContext() = default;

absl::StatusOr<std::unique_ptr<SSLServerContext>> SSLServerContext::Create(
    const SSLServerConfig& config) {
  std::unique_ptr<SSLServerContext> context(new SSLServerContext(config));
  SSL_CTX* ctx = context->ssl_ctx_.get();
  if (!SSL_CTX_use_certificate_chain_file(ctx,
                                          config.cert_chain_file.c_str())) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load certificate chain ", config.cert_chain_file,
                     ": ", LastSSLError()));
  }
  if (!SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(),
                                   SSL_FILETYPE_PEM)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load key ", config.key_file, ": ", LastSSLError()));
  }
  if (!SSL_CTX_check_private_key(ctx)) {
    return absl::InvalidArgumentError(
        "private key does not match the certificate");
  }
  if (!SSL_CTX_set_min_proto_version(ctx, config.version_min) ||
      !SSL_CTX_set_max_proto_version(ctx, config.version_max)) {
    return absl::InvalidArgumentError("bad TLS version range");
  }
  if (!config.cipher_list.empty() &&
      !SSL_CTX_set_strict_cipher_list(ctx, config.cipher_list.c_str())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad cipher list '", config.cipher_list, "': ", LastSSLError()));
  }
  if (!config.alpn_protos.empty()) {
    SSL_CTX_set_alpn_select_cb(ctx, &SSLServerContext::SelectAlpn,
                               context.get());
  }
  if (!config.tickets) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  if (config.external_session_cache) {
    auto cache = ExternalSessionCache::Create(*config.external_session_cache);
    if (!cache.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("external session cache: ", cache.status().message()));
    }
    context->external_cache_ = std::move(*cache);
    // BoringSSL still generates session IDs and calls the callbacks; its own
    // table stays empty.
    SSL_CTX_set_session_cache_mode(
        ctx, SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_INTERNAL);
    SSL_CTX_sess_set_new_cb(ctx, &SSLServerContext::OnNewSession);
    SSL_CTX_sess_set_get_cb(ctx, &SSLServerContext::OnGetSession);
    SSL_CTX_sess_set_remove_cb(ctx, &SSLServerContext::OnRemoveSession);
  } else {
    SSL_CTX_set_session_cache_mode(
        ctx, config.session_cache ? SSL_SESS_CACHE_SERVER : SSL_SESS_CACHE_OFF);
  }
  static const uint8_t kSessionIdContext[] = "netstack-testserver";
  SSL_CTX_set_session_id_context(ctx, kSessionIdContext,
                                 sizeof(kSessionIdContext) - 1);
  SSL_CTX_set_num_tickets(ctx, config.tickets ? config.tls13_tickets : 0);
  if (config.early_data != SSLServerConfig::EarlyData::kOff) {
    SSL_CTX_set_early_data_enabled(ctx, 1);
    if (config.early_data == SSLServerConfig::EarlyData::kOn)
      context->anti_replay_ = std::make_unique<EarlyDataAntiReplay>();
    SSL_CTX_set_select_certificate_cb(ctx, &SSLServerContext::OnClientHello);
  }
  if (!AddCertCompressionAlgorithms(ctx, config.cert_compression)) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("bad certificate compression list ",
                     CertCompressionListToString(config.cert_compression)));
  }
  return context;
}

SSLServerContext* SSLServerContext::FromSSLCtx(const SSL_CTX* ctx) {
  return static_cast<SSLServerContext*>(
      SSL_CTX_get_ex_data(ctx, ContextIndex()));
}

std::optional<SessionIndex::PutOutcome> SSLServerContext::SetNextConnect(
    SSL_SESSION* session, absl::Duration from_now) {
  if (!external_cache_ || !session) return std::nullopt;
  absl::string_view id = SessionId(session);
  if (id.empty()) return std::nullopt;
  TimeTicks now = clock_->NowTicks();
  SSL_SESSION_up_ref(session);
  return external_cache_->Put(id, AdoptSession(session), now + from_now, now);
}

// static
int SSLServerContext::OnNewSession(SSL* ssl, SSL_SESSION* session) {
  SSLServerContext* self = FromSSLCtx(SSL_get_SSL_CTX(ssl));
  absl::string_view id = SessionId(session);
  if (!self || !self->external_cache_ || id.empty()) return 0;
  // The client has not announced its next connect yet (that comes with its
  // first request): store the session as unannounced. PRED keeps it if
  // there is room or an expired entry, and SetNextConnect offers it again.
  // Returning 1 takes BoringSSL's reference, which the cache now owns (or
  // has already released if it did not admit the session).
  TimeTicks now = self->clock_->NowTicks();
  self->external_cache_->Put(id, AdoptSession(session), kNoNextConnect, now);
  return 1;
}

// static
SSL_SESSION* SSLServerContext::OnGetSession(SSL* ssl, const uint8_t* id,
                                            int id_len, int* out_copy) {
  *out_copy = 0;  // We return a new reference.
  SSLServerContext* self = FromSSLCtx(SSL_get_SSL_CTX(ssl));
  if (!self || !self->external_cache_ || id_len <= 0) return nullptr;
  absl::string_view key(reinterpret_cast<const char*>(id), id_len);
  std::optional<std::shared_ptr<SSL_SESSION>> found =
      self->external_cache_->Lookup(key);
  if (!found || !*found) return nullptr;
  SSL_SESSION* session = found->get();
  // BoringSSL would refuse an expired session itself; dropping it here also
  // frees its slot.
  uint64_t expires =
      SSL_SESSION_get_time(session) + SSL_SESSION_get_timeout(session);
  if (expires < static_cast<uint64_t>(time(nullptr))) {
    self->external_cache_->Remove(key);
    return nullptr;
  }
  SSL_SESSION_up_ref(session);
  return session;
}

// static
void SSLServerContext::OnRemoveSession(SSL_CTX* ctx, SSL_SESSION* session) {
  // BoringSSL calls this for sessions leaving its internal table, which
  // SSL_SESS_CACHE_NO_INTERNAL keeps empty; registered so that an explicit
  // SSL_CTX_remove_session (or a BoringSSL that reports invalidated sessions
  // here) also drops the session from the external cache.
  SSLServerContext* self = FromSSLCtx(ctx);
  absl::string_view id = SessionId(session);
  if (self && self->external_cache_ && !id.empty())
    self->external_cache_->Remove(id);
}

// static
ssl_select_cert_result_t SSLServerContext::OnClientHello(
    const SSL_CLIENT_HELLO* hello) {
  SSL* ssl = hello->ssl;
  SSLServerContext* self = FromSSLCtx(SSL_get_SSL_CTX(ssl));
  const uint8_t* data = nullptr;
  size_t len = 0;
  if (!self || !SSL_early_callback_ctx_extension_get(
                   hello, TLSEXT_TYPE_early_data, &data, &len)) {
    return ssl_select_cert_success;  // No early data offered.
  }
  SSLInfo* info = AttachedSSLInfo(ssl);
  if (info) info->early_data = EarlyDataState::kOffered;
  std::string refused;
  if (self->config_.early_data == SSLServerConfig::EarlyData::kReject) {
    refused = "rejected_by_server_configuration";
  } else if (self->anti_replay_ &&
             SSL_early_callback_ctx_extension_get(
                 hello, TLSEXT_TYPE_pre_shared_key, &data, &len)) {
    // PreSharedKeyExtension: identities<7..2^16-1>, each
    // {opaque identity<1..2^16-1>; uint32 obfuscated_ticket_age}. BoringSSL
    // resumes only with the first. A malformed extension fails the
    // handshake later; offer it no 0-RTT meanwhile.
    CBS ext, identities, identity;
    CBS_init(&ext, data, len);
    if (!CBS_get_u16_length_prefixed(&ext, &identities) ||
        !CBS_get_u16_length_prefixed(&identities, &identity)) {
      refused = "malformed_pre_shared_key";
    } else {
      EarlyDataAntiReplay::Verdict verdict = self->anti_replay_->Admit(
          absl::string_view(reinterpret_cast<const char*>(CBS_data(&identity)),
                            CBS_len(&identity)));
      if (verdict != EarlyDataAntiReplay::Verdict::kAdmitted)
        refused = EarlyDataVerdictToString(verdict);
    }
  }
  if (!refused.empty()) {
    SSL_set_early_data_enabled(ssl, 0);
    if (info) info->early_data_reason = refused;
  }
  return ssl_select_cert_success;
}

int SSLServerContext::SelectAlpn(SSL* ssl, const uint8_t** out,
                                 uint8_t* out_len, const uint8_t* in,
                                 unsigned in_len, void* arg) {
  auto* self = static_cast<SSLServerContext*>(arg);
  // Server preference: the first of ours that the client offers.
  for (const std::string& ours : self->config_.alpn_protos) {
    CBS offered;
    CBS_init(&offered, in, in_len);
    while (CBS_len(&offered) > 0) {
      CBS proto;
      if (!CBS_get_u8_length_prefixed(&offered, &proto))
        return SSL_TLSEXT_ERR_ALERT_FATAL;
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
