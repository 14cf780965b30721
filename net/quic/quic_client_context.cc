#include "net/quic/quic_client_context.h"

#include <ngtcp2/ngtcp2_crypto_boringssl.h>

#include <utility>

#include "net/quic/quic_session.h"

namespace net {
namespace {

// The server's transport parameters ride on the SSL_SESSION they came
// with: a std::string in ex data, freed with the session.
constexpr size_t kMaxTransportParams = 4096;

void FreeTransportParams(void* parent, void* ptr, CRYPTO_EX_DATA* ad, int index,
                         long argl, void* argp) {
  delete static_cast<std::string*>(ptr);
}

int TransportParamsIndex() {
  static const int index = SSL_SESSION_get_ex_new_index(
      0, nullptr, nullptr, nullptr, &FreeTransportParams);
  return index;
}

}  // namespace

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
  // Tickets come to QuicSession's new-session callback, which hands them
  // here with the transport parameters; BoringSSL keeps none itself.
  SSL_CTX_set_session_cache_mode(
      ctx.get(), SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL);
  SSL_CTX_sess_set_new_cb(ctx.get(), &QuicSession::OnNewSessionTicket);
  if (TransportParamsIndex() < 0) return;
  ssl_ctx_ = std::move(ctx);
}

QuicClientContext::~QuicClientContext() = default;

void QuicClientContext::AddSession(const std::string& key,
                                   bssl::UniquePtr<SSL_SESSION> session,
                                   std::string transport_params) {
  if (!session) return;
  if (!transport_params.empty() &&
      transport_params.size() <= kMaxTransportParams) {
    auto* tp = new std::string(std::move(transport_params));
    if (!SSL_SESSION_set_ex_data(session.get(), TransportParamsIndex(), tp))
      delete tp;
  }
  session_cache_.Insert(key, std::move(session));
}

QuicResumption QuicClientContext::LookupSession(const std::string& key) {
  QuicResumption r;
  r.session = session_cache_.Lookup(key, absl::Now());
  if (!r.session) return r;
  if (auto* tp = static_cast<std::string*>(
          SSL_SESSION_get_ex_data(r.session.get(), TransportParamsIndex()))) {
    r.transport_params = *tp;
  }
  return r;
}

void QuicClientContext::AddToken(const std::string& key, std::string token,
                                 absl::Time now) {
  if (token.empty() || token.size() > kMaxTokenSize) return;
  auto it = tokens_.find(key);
  if (it == tokens_.end()) {
    if (tokens_.size() >= kMaxTokenServers) {
      auto oldest = tokens_.begin();
      for (auto i = tokens_.begin(); i != tokens_.end(); ++i) {
        if (i->second.last_added < oldest->second.last_added) oldest = i;
      }
      tokens_.erase(oldest);
    }
    it = tokens_.emplace(key, ServerTokens()).first;
  }
  ServerTokens& server = it->second;
  server.tokens.push_back(Token{std::move(token), now});
  while (server.tokens.size() > kMaxTokensPerServer) server.tokens.pop_front();
  server.last_added = ++token_seq_;
}

std::string QuicClientContext::TakeToken(const std::string& key,
                                         absl::Time now) {
  auto it = tokens_.find(key);
  if (it == tokens_.end()) return std::string();
  std::deque<Token>& tokens = it->second.tokens;
  while (!tokens.empty() && now - tokens.front().received > kMaxTokenAge)
    tokens.pop_front();
  std::string token;
  if (!tokens.empty()) {
    token = std::move(tokens.back().value);
    tokens.pop_back();
  }
  if (tokens.empty()) tokens_.erase(it);
  return token;
}

size_t QuicClientContext::TokenCount(const std::string& key) const {
  auto it = tokens_.find(key);
  return it == tokens_.end() ? 0 : it->second.tokens.size();
}

}  // namespace net
