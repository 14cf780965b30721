#include "net/http/http_network_session.h"

namespace net {

HttpNetworkSession::HttpNetworkSession(const HttpNetworkSessionParams& params,
                                       HostResolver* resolver,
                                       ClientSocketFactory* socket_factory,
                                       CertVerifier* verifier)
    : params_(params),
      resolver_(resolver),
      socket_factory_(socket_factory),
      ssl_context_(verifier) {}

HttpNetworkSession::~HttpNetworkSession() = default;

std::unique_ptr<StreamSocket> HttpNetworkSession::TakeIdleSocket(
    const std::string& key) {
  auto it = idle_.find(key);
  if (it == idle_.end()) return nullptr;
  auto& sockets = it->second;
  while (!sockets.empty()) {
    std::unique_ptr<StreamSocket> socket = std::move(sockets.back());
    sockets.pop_back();
    // A socket the server closed (or sent stray bytes on) is not reusable.
    if (socket->IsConnectedAndIdle()) return socket;
  }
  return nullptr;
}

void HttpNetworkSession::ReturnIdleSocket(
    const std::string& key, std::unique_ptr<StreamSocket> socket) {
  if (!params_.enable_connection_reuse) return;
  auto& sockets = idle_[key];
  if (sockets.size() >= params_.max_idle_per_origin) return;
  sockets.push_back(std::move(socket));
}

size_t HttpNetworkSession::idle_socket_count() const {
  size_t n = 0;
  for (const auto& [key, sockets] : idle_) n += sockets.size();
  return n;
}

}  // namespace net
