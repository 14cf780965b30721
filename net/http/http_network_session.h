// HttpNetworkSession: what every HTTP transaction in one client shares — the
// host resolver, the socket factory, the TLS client context and an idle
// connection pool for keep-alive reuse.
//
// Owned by the embedder (the fetch tool); outlives its transactions. The
// resolver, socket factory and cert verifier it is given are not owned.

#ifndef NET_HTTP_HTTP_NETWORK_SESSION_H_
#define NET_HTTP_HTTP_NETWORK_SESSION_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/tick_clock.h"
#include "net/socket/client_socket_factory.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_config.h"

namespace net {

class CookieJar;
class SnapStartClientContext;

struct HttpNetworkSessionParams {
  absl::Duration connect_timeout = absl::Seconds(10);
  // Whole-request deadline (resolve to last body byte); zero = none.
  absl::Duration request_timeout = absl::Seconds(60);
  SSLConfig ssl_config;
  // Reuse idle keep-alive connections.
  bool enable_connection_reuse = true;
  size_t max_idle_per_origin = 6;
  // Cookies: transactions send the jar's Cookie header and store the
  // response's Set-Cookie headers. Null: no cookies. Not owned; must outlive
  // the session.
  CookieJar* cookie_jar = nullptr;
  // TLS Snap Start: when set, https connections use net/snap_start's TLS 1.2
  // core (static RSA; Snap Start when the context knows the server, else a
  // handshake that learns its orbit). Not owned; must outlive the session.
  SnapStartClientContext* snap_start_context = nullptr;
  // The clock every trace timestamp is read from; tests substitute a
  // SimpleTestTickClock. Not owned; must outlive the session.
  const TickClock* clock = DefaultTickClock::GetInstance();
};

class HttpNetworkSession {
 public:
  HttpNetworkSession(const HttpNetworkSessionParams& params,
                     HostResolver* resolver,
                     ClientSocketFactory* socket_factory,
                     CertVerifier* verifier);
  ~HttpNetworkSession();

  const HttpNetworkSessionParams& params() const { return params_; }
  HostResolver* host_resolver() { return resolver_; }
  const TickClock* clock() const { return params_.clock; }
  CookieJar* cookie_jar() { return params_.cookie_jar; }
  ClientSocketFactory* socket_factory() { return socket_factory_; }
  SSLClientContext* ssl_client_context() { return &ssl_context_; }

  // Idle pool, keyed by "scheme://host:port".
  std::unique_ptr<StreamSocket> TakeIdleSocket(const std::string& key);
  void ReturnIdleSocket(const std::string& key,
                        std::unique_ptr<StreamSocket> socket);
  void CloseIdleSockets() { idle_.clear(); }
  size_t idle_socket_count() const;

 private:
  HttpNetworkSessionParams params_;
  HostResolver* const resolver_;
  ClientSocketFactory* const socket_factory_;
  SSLClientContext ssl_context_;
  std::map<std::string, std::vector<std::unique_ptr<StreamSocket>>> idle_;
};

}  // namespace net

#endif  // NET_HTTP_HTTP_NETWORK_SESSION_H_
