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
#include <set>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/event_loop.h"
#include "net/base/tick_clock.h"
#include "net/socket/client_socket_factory.h"
#include "net/spdy/spdy_session_pool.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_config.h"

namespace net {

class CookieJar;
class SnapStartClientContext;
struct LoadTiming;

// TlsHandshakeObserver hears about every TLS handshake a transaction ends,
// on the network thread, with the request's LoadTiming so far (its ssl
// facts filled in). It may add facts to the trace (net/context fills in
// what certificate-bundle prefetching did) and start work off the critical
// path (learning a server's Snap Start orbit); it must not block or call
// back into the transaction.
class TlsHandshakeObserver {
 public:
  virtual ~TlsHandshakeObserver() = default;
  // |result| is OK or the handshake's error. A Snap Start attempt's outcome
  // is known only once the server answers: it is reported again then.
  virtual void OnTlsHandshakeDone(const std::string& host, uint16_t port,
                                  int result, LoadTiming* timing) = 0;
};

struct HttpNetworkSessionParams {
  absl::Duration connect_timeout = absl::Seconds(10);
  // Whole-request deadline (resolve to last body byte); zero = none.
  absl::Duration request_timeout = absl::Seconds(60);
  SSLConfig ssl_config;
  // Reuse idle keep-alive connections.
  bool enable_connection_reuse = true;
  size_t max_idle_per_origin = 6;
  // A preconnected socket no request took is closed after this.
  absl::Duration unused_idle_timeout = absl::Seconds(10);
  // Cookies: transactions send the jar's Cookie header and store the
  // response's Set-Cookie headers. Null: no cookies. Not owned; must outlive
  // the session.
  CookieJar* cookie_jar = nullptr;
  // TLS Snap Start: when set, an https connection to a server the context
  // knows (an orbit learned earlier or from a prefetched bundle) uses
  // net/snap_start's TLS 1.2 core and attempts Snap Start; any other server
  // gets the normal BoringSSL handshake (TLS 1.3, or 1.2 with False Start),
  // so Snap Start never makes a visit slower. Learning a server's orbit is
  // the TlsHandshakeObserver's business, off the critical path. Not owned;
  // must outlive the session.
  SnapStartClientContext* snap_start_context = nullptr;
  // Learn orbits in-band instead: every https connection goes through the
  // TLS 1.2 core, whose full handshake offers the empty extension (static
  // RSA, no False Start: slower; for testing the core against other TLS
  // stacks).
  bool snap_start_learn_in_handshake = false;
  // Told about every TLS handshake. Not owned; must outlive the session.
  TlsHandshakeObserver* tls_observer = nullptr;
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

  // Idle pool, keyed by "scheme://host:port". |preconnected| marks a socket
  // opened (and handshaked) ahead of any request: TakeIdleSocket says so,
  // and such a socket nobody used is closed |unused_timeout| after it was
  // returned (Chromium's unused idle socket timeout).
  std::unique_ptr<StreamSocket> TakeIdleSocket(const std::string& key,
                                               bool* preconnected = nullptr);
  void ReturnIdleSocket(const std::string& key,
                        std::unique_ptr<StreamSocket> socket,
                        bool preconnected = false);
  void CloseIdleSockets();
  size_t idle_socket_count() const;
  // Preconnected sockets waiting, for |key| or in all.
  size_t preconnected_socket_count(const std::string& key) const;
  size_t preconnected_socket_count() const;

  // SPDY (issue 13 items 3-4): on when the SSLConfig offers ALPN "spdy/3".
  // The pool holds the open SPDY sessions by origin and pools a new origin
  // onto one whose peer address it resolves to and whose verified leaf
  // certificate covers its host (CertificateCoversHost).
  bool spdy_enabled() const;
  SpdySessionPool* spdy_session_pool() { return spdy_pool_.get(); }
  // One new https connection per origin at a time while SPDY is on, so the
  // requests that arrive while it is being made share its session (as
  // Chromium's SpdySessionPool does): BeginSpdyConnect returns true for the
  // first caller for |key|; the others WaitForSpdyConnect and are called
  // back (from a posted task) when EndSpdyConnect runs, to look again.
  bool BeginSpdyConnect(const std::string& key);
  void WaitForSpdyConnect(const std::string& key,
                          absl::AnyInvocable<void()> cb);
  void EndSpdyConnect(const std::string& key);
  // |key|'s server chose HTTP/1.1: its requests no longer wait on each
  // other's connections.
  void NoteNoSpdy(const std::string& key) { no_spdy_.insert(key); }
  bool KnownNoSpdy(const std::string& key) const {
    return no_spdy_.count(key) > 0;
  }

 private:
  struct IdleSocket {
    std::unique_ptr<StreamSocket> socket;
    bool preconnected = false;
    TimeTicks since;
  };
  // Closes preconnected sockets past their timeout; re-arms the sweep.
  void SweepUnused();

  HttpNetworkSessionParams params_;
  HostResolver* const resolver_;
  ClientSocketFactory* const socket_factory_;
  SSLClientContext ssl_context_;
  std::map<std::string, std::vector<IdleSocket>> idle_;
  OneShotTimer sweep_timer_;
  std::unique_ptr<SpdySessionPool> spdy_pool_;
  // Origins with a connection being made, and who waits on each.
  std::map<std::string, std::vector<absl::AnyInvocable<void()>>>
      spdy_connecting_;
  std::set<std::string> no_spdy_;
};

}  // namespace net

#endif  // NET_HTTP_HTTP_NETWORK_SESSION_H_
