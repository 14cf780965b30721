#include "net/http/http_network_session.h"

#include <algorithm>

#include "cert/x509_util.h"
#include "net/ssl/ssl_info.h"

namespace net {

HttpNetworkSession::HttpNetworkSession(const HttpNetworkSessionParams& params,
                                       HostResolver* resolver,
                                       ClientSocketFactory* socket_factory,
                                       CertVerifier* verifier)
    : params_(params),
      resolver_(resolver),
      socket_factory_(socket_factory),
      ssl_context_(verifier, params.ssl_config.cert_compression),
      spdy_pool_(std::make_unique<SpdySessionPool>(
          [](const SpdySession& session, const Origin& origin) {
            // Chromium's rule: the session's verified server certificate
            // must cover the new origin's host.
            const SSLInfo* info =
                session.socket() ? session.socket()->GetSSLInfo() : nullptr;
            if (!info || info->cert_verify.verified_chain_der.empty())
              return false;
            return CertificateCoversHost(
                info->cert_verify.verified_chain_der.front(), origin.host());
          })) {}

HttpNetworkSession::~HttpNetworkSession() {
  // Sessions go before the idle sockets and the TLS context they use.
  spdy_pool_.reset();
}

bool HttpNetworkSession::spdy_enabled() const {
  const auto& alpn = params_.ssl_config.alpn_protos;
  return std::find(alpn.begin(), alpn.end(), "spdy/3") != alpn.end();
}

bool HttpNetworkSession::BeginSpdyConnect(const std::string& key) {
  return spdy_connecting_
      .emplace(key, std::vector<absl::AnyInvocable<void()>>())
      .second;
}

void HttpNetworkSession::WaitForSpdyConnect(const std::string& key,
                                            absl::AnyInvocable<void()> cb) {
  spdy_connecting_[key].push_back(std::move(cb));
}

void HttpNetworkSession::EndSpdyConnect(const std::string& key) {
  auto it = spdy_connecting_.find(key);
  if (it == spdy_connecting_.end()) return;
  std::vector<absl::AnyInvocable<void()>> waiters = std::move(it->second);
  spdy_connecting_.erase(it);
  for (auto& cb : waiters) EventLoop::Current()->PostTask(std::move(cb));
}

std::unique_ptr<StreamSocket> HttpNetworkSession::TakeIdleSocket(
    const std::string& key, bool* preconnected) {
  auto it = idle_.find(key);
  if (it == idle_.end()) return nullptr;
  auto& sockets = it->second;
  while (!sockets.empty()) {
    IdleSocket idle = std::move(sockets.back());
    sockets.pop_back();
    // A socket the server closed (or sent stray bytes on) is not reusable.
    if (idle.socket->IsConnectedAndIdle()) {
      if (preconnected) *preconnected = idle.preconnected;
      return std::move(idle.socket);
    }
  }
  return nullptr;
}

void HttpNetworkSession::ReturnIdleSocket(const std::string& key,
                                          std::unique_ptr<StreamSocket> socket,
                                          bool preconnected) {
  if (!params_.enable_connection_reuse) return;
  auto& sockets = idle_[key];
  if (sockets.size() >= params_.max_idle_per_origin) return;
  sockets.push_back(
      IdleSocket{std::move(socket), preconnected, params_.clock->NowTicks()});
  if (preconnected && !sweep_timer_.IsRunning()) {
    sweep_timer_.Start(params_.unused_idle_timeout, [this] { SweepUnused(); });
  }
}

void HttpNetworkSession::SweepUnused() {
  const TimeTicks now = params_.clock->NowTicks();
  TimeTicks next;
  for (auto& [key, sockets] : idle_) {
    sockets.erase(std::remove_if(sockets.begin(), sockets.end(),
                                 [&](const IdleSocket& s) {
                                   return s.preconnected &&
                                          now - s.since >=
                                              params_.unused_idle_timeout;
                                 }),
                  sockets.end());
    for (const IdleSocket& s : sockets) {
      if (s.preconnected && (next.is_null() || s.since < next)) next = s.since;
    }
  }
  if (!next.is_null()) {
    sweep_timer_.Start(next + params_.unused_idle_timeout - now,
                       [this] { SweepUnused(); });
  }
}

void HttpNetworkSession::CloseIdleSockets() {
  idle_.clear();
  sweep_timer_.Stop();
}

size_t HttpNetworkSession::idle_socket_count() const {
  size_t n = 0;
  for (const auto& [key, sockets] : idle_) n += sockets.size();
  return n;
}

size_t HttpNetworkSession::preconnected_socket_count(
    const std::string& key) const {
  auto it = idle_.find(key);
  if (it == idle_.end()) return 0;
  size_t n = 0;
  for (const IdleSocket& s : it->second) n += s.preconnected;
  return n;
}

size_t HttpNetworkSession::preconnected_socket_count() const {
  size_t n = 0;
  for (const auto& [key, sockets] : idle_) {
    for (const IdleSocket& s : sockets) n += s.preconnected;
  }
  return n;
}

}  // namespace net
