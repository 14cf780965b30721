#include "net/http/http_network_session.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "cert/obc/client_cert_provider.h"
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
      tcp_fast_open_hints_(params.tcp_fast_open,
                           params.tcp_fast_open_fallback_delay, params.clock),
      quic_context_(verifier),
      http3_session_pool_(params.clock),
      spdy_pool_(std::make_unique<SpdySessionPool>(
          [direct = params.proxy.is_direct()](const SpdySession& session,
                                              const Origin& origin) {
            // No IP pooling with a proxy configured: a tunnel's peer
            // address is the proxy's, not the origin's, and the client
            // never learns the origin's addresses.
            if (!direct) return false;
            // Chromium's rule: the session's verified server certificate
            // must cover the new origin's host.
            const SSLInfo* info =
                session.socket() ? session.socket()->GetSSLInfo() : nullptr;
            if (!info || info->cert_verify.verified_chain_der.empty())
              return false;
            return CertificateCoversHost(
                info->cert_verify.verified_chain_der.front(), origin.host());
          })),
      http2_pool_(std::make_unique<Http2SessionPool>(
          [provider = params.ssl_config.client_cert_provider](
              const Http2Session& session, const Origin& origin) {
            return CanCoalesceHttp2(provider, session, origin);
          })),
      server_properties_(params.max_server_properties) {}

const char* ConnectWaitPolicyToString(ConnectWaitPolicy policy) {
  switch (policy) {
    case ConnectWaitPolicy::kAlways:
      return "always";
    case ConnectWaitPolicy::kKnownMultiplexed:
      return "known";
  }
  return "unknown";
}

// static
std::string HttpNetworkSession::CanCoalesceHttp2(ClientCertProvider* provider,
                                                 const Http2Session& session,
                                                 const Origin& origin) {
  // Chromium's rule (SpdySession::CanPool): the certificate the session's
  // handshake verified, with no error, must be valid for the new host too.
  // A connection whose verification failed and was ignored (-k) has no
  // verified chain, nor has a resumed one: neither carries another origin.
  const SSLInfo* info =
      session.socket() ? session.socket()->GetSSLInfo() : nullptr;
  if (!info || info->cert_verify.error != OK ||
      info->cert_verify.verified_chain_der.empty() ||
      !CertificateCoversHost(info->cert_verify.verified_chain_der.front(),
                             origin.host()))
    return "certificate";
  // HTTP/2 has no CREDENTIAL frame: a session that presented an
  // origin-bound certificate carries only origins bound to that same one.
  if (!info->client_cert_der.empty()) {
    std::string der;
    if (!provider || !provider->LookupClientCert(origin, &der) ||
        der != info->client_cert_der)
      return "obc";
  }
  return "";
}

bool HttpNetworkSession::ShouldWaitForMultiplexedConnect(
    const std::string& key) const {
  const HttpServerProperties::Multiplexing known =
      server_properties_.GetMultiplexing(key);
  if (known == HttpServerProperties::Multiplexing::kNo) return false;
  if (params_.connect_wait == ConnectWaitPolicy::kAlways) return true;
  return known == HttpServerProperties::Multiplexing::kYes;
}

Http3Stream::Params HttpNetworkSession::Http3StreamParams() {
  Http3Stream::Params params;
  params.clock = params_.clock;
  params.resolver = resolver_;
  params.socket_factory = socket_factory_;
  params.quic_context = &quic_context_;
  params.pool = &http3_session_pool_;
  params.connect_to = &params_.connect_to;
  params.quic = params_.quic;
  if (params_.connect_timeout > absl::ZeroDuration() &&
      params_.connect_timeout < params.quic.handshake_timeout)
    params.quic.handshake_timeout = params_.connect_timeout;
  params.http3 = params_.http3_session;
  params.tls_observer = params_.tls_observer;
  return params;
}

bool HttpNetworkSession::Http3FromHttpsRecordAllowed() const {
  return params_.h3_https_rr &&
         params_.ssl_config.client_cert_provider == nullptr &&
         params_.snap_start_context == nullptr;
}

bool HttpNetworkSession::EchApplies(const HttpsRecordInfo& https) const {
  const SSLConfig& ssl = params_.ssl_config;
  return OffersEchConfiguration(ssl.ech_mode) &&
         (!https.ech_config_list.empty() || !ssl.ech_config_list.empty());
}

// static
std::string HttpNetworkSession::GroupKey(const std::string& scheme,
                                         const std::string& host, uint16_t port,
                                         const ProxyServer* proxy) {
  std::string key = absl::StrCat(scheme, "://", host, ":", port);
  if (proxy) absl::StrAppend(&key, " via ", proxy->ToString());
  return key;
}

HttpNetworkSession::~HttpNetworkSession() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // Sessions go before the idle sockets and the TLS context they use.
  spdy_pool_.reset();
  http2_pool_.reset();
}

bool HttpNetworkSession::spdy_enabled() const {
  const auto& alpn = params_.ssl_config.alpn_protos;
  return std::find(alpn.begin(), alpn.end(), "spdy/3") != alpn.end();
}

bool HttpNetworkSession::h2_enabled() const {
  const auto& alpn = params_.ssl_config.alpn_protos;
  return std::find(alpn.begin(), alpn.end(), "h2") != alpn.end();
}

bool HttpNetworkSession::BeginSpdyConnect(const std::string& key) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return spdy_connecting_
      .emplace(key, std::vector<absl::AnyInvocable<void()>>())
      .second;
}

void HttpNetworkSession::WaitForSpdyConnect(const std::string& key,
                                            absl::AnyInvocable<void()> cb) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  spdy_connecting_[key].push_back(std::move(cb));
}

void HttpNetworkSession::EndSpdyConnect(const std::string& key) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = spdy_connecting_.find(key);
  if (it == spdy_connecting_.end()) return;
  std::vector<absl::AnyInvocable<void()>> waiters = std::move(it->second);
  spdy_connecting_.erase(it);
  for (auto& cb : waiters) EventLoop::Current()->PostTask(std::move(cb));
}

std::unique_ptr<StreamSocket> HttpNetworkSession::TakeIdleSocket(
    const std::string& key, bool* preconnected) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
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
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!params_.enable_connection_reuse) return;
  // A request waiting for a connection of the group takes it at once.
  auto group = groups_.find(key);
  if (group != groups_.end() && !group->second.waiting.empty()) {
    SocketSlot* next = group->second.waiting.front();
    group->second.waiting.pop_front();
    GrantWaiter(next, std::move(socket), preconnected);
    return;
  }
  AddIdleSocket(key, std::move(socket), preconnected);
}

void HttpNetworkSession::AddIdleSocket(const std::string& key,
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
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  idle_.clear();
  sweep_timer_.Stop();
  // HTTP/3 sessions with no request on them close too.
  http3_session_pool()->CloseIdleSessions();
  // Closed idle connections leave room for waiting requests.
  std::vector<std::string> keys;
  for (const auto& [key, group] : groups_) keys.push_back(key);
  for (const std::string& key : keys) OnSlotFreed(key);
}

// The per-group limit -----------------------------------------------------

HttpNetworkSession::SocketSlot::SocketSlot(HttpNetworkSession* session,
                                           std::string key)
    : session_(session), key_(std::move(key)) {}

HttpNetworkSession::SocketSlot::~SocketSlot() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(session_->thread_checker_);
  if (granted_) {
    granted_ = false;
    // A connection handed to this slot and never taken is still good.
    session_->FreeSlot(key_, std::move(socket_), preconnected_);
  } else if (queued_) {
    session_->CancelWaiter(this);
  }
}

std::unique_ptr<StreamSocket> HttpNetworkSession::SocketSlot::TakeSocket(
    bool* preconnected) {
  if (preconnected) *preconnected = preconnected_;
  preconnected_ = false;
  return std::move(socket_);
}

size_t HttpNetworkSession::IdleCount(const std::string& key) const {
  auto it = idle_.find(key);
  return it == idle_.end() ? 0 : it->second.size();
}

bool HttpNetworkSession::GroupHasRoom(const std::string& key) const {
  const size_t limit = params_.max_sockets_per_group;
  if (limit == 0) return true;
  auto it = groups_.find(key);
  const size_t active = it == groups_.end() ? 0 : it->second.active;
  return active + IdleCount(key) < limit;
}

std::unique_ptr<HttpNetworkSession::SocketSlot>
HttpNetworkSession::RequestSocketSlot(const std::string& key,
                                      absl::AnyInvocable<void()> on_granted) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  std::unique_ptr<SocketSlot> slot(new SocketSlot(this, key));
  Group& group = groups_[key];
  // Nobody overtakes a request already waiting.
  if (group.waiting.empty()) {
    bool preconnected = false;
    std::unique_ptr<StreamSocket> idle = TakeIdleSocket(key, &preconnected);
    if (idle || GroupHasRoom(key)) {
      ++group.active;
      slot->granted_ = true;
      slot->socket_ = std::move(idle);
      slot->preconnected_ = preconnected;
      return slot;
    }
  }
  slot->queued_ = true;
  slot->on_granted_ = std::move(on_granted);
  group.waiting.push_back(slot.get());
  return slot;
}

void HttpNetworkSession::ReleaseSocketSlot(std::unique_ptr<SocketSlot> slot,
                                           std::unique_ptr<StreamSocket> socket,
                                           bool preconnected) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!slot || !slot->granted_) return;
  slot->granted_ = false;
  FreeSlot(slot->key_, std::move(socket), preconnected);
}

std::unique_ptr<HttpNetworkSession::SocketSlot>
HttpNetworkSession::TryReserveSocketSlot(const std::string& key) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  auto it = groups_.find(key);
  if (it != groups_.end() && !it->second.waiting.empty()) return nullptr;
  if (!GroupHasRoom(key)) return nullptr;
  std::unique_ptr<SocketSlot> slot(new SocketSlot(this, key));
  ++groups_[key].active;
  slot->granted_ = true;
  return slot;
}

void HttpNetworkSession::GrantWaiter(SocketSlot* slot,
                                     std::unique_ptr<StreamSocket> socket,
                                     bool preconnected) {
  ++groups_[slot->key_].active;
  slot->queued_ = false;
  slot->granted_ = true;
  slot->socket_ = std::move(socket);
  slot->preconnected_ = preconnected;
  EventLoop::Current()->PostTask([weak = slot->weak_factory_.GetWeakPtr()] {
    if (!weak || !weak->on_granted_) return;
    absl::AnyInvocable<void()> cb = std::move(weak->on_granted_);
    weak->on_granted_ = nullptr;
    std::move(cb)();
  });
}

void HttpNetworkSession::FreeSlot(const std::string& key,
                                  std::unique_ptr<StreamSocket> socket,
                                  bool preconnected) {
  auto it = groups_.find(key);
  if (it != groups_.end() && it->second.active > 0) --it->second.active;
  // A keep-alive connection goes to the next waiter (or the idle pool);
  // without one, the freed slot lets a waiter connect anew.
  if (socket) ReturnIdleSocket(key, std::move(socket), preconnected);
  OnSlotFreed(key);
}

void HttpNetworkSession::OnSlotFreed(const std::string& key) {
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  Group& group = it->second;
  while (!group.waiting.empty()) {
    bool preconnected = false;
    std::unique_ptr<StreamSocket> idle = TakeIdleSocket(key, &preconnected);
    if (!idle && !GroupHasRoom(key)) break;
    SocketSlot* next = group.waiting.front();
    group.waiting.pop_front();
    GrantWaiter(next, std::move(idle), preconnected);
  }
  if (group.active == 0 && group.waiting.empty()) groups_.erase(it);
}

void HttpNetworkSession::CancelWaiter(SocketSlot* slot) {
  auto it = groups_.find(slot->key_);
  if (it == groups_.end()) return;
  it->second.waiting.remove(slot);
  slot->queued_ = false;
  if (it->second.active == 0 && it->second.waiting.empty()) groups_.erase(it);
}

size_t HttpNetworkSession::active_socket_count(const std::string& key) const {
  auto it = groups_.find(key);
  return it == groups_.end() ? 0 : it->second.active;
}

size_t HttpNetworkSession::waiting_request_count(const std::string& key) const {
  auto it = groups_.find(key);
  return it == groups_.end() ? 0 : it->second.waiting.size();
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
