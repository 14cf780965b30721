// HttpNetworkSession: what every HTTP transaction in one client shares — the
// host resolver, the socket factory, the TLS client context and an idle
// connection pool for keep-alive reuse.
//
// Owned by the embedder (the fetch tool); outlives its transactions. The
// resolver, socket factory and cert verifier it is given are not owned.

#ifndef NET_HTTP_HTTP_NETWORK_SESSION_H_
#define NET_HTTP_HTTP_NETWORK_SESSION_H_

#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "dns/host_resolver.h"
#include "net/base/event_loop.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/http/alt_svc.h"
#include "net/http/http3_stream.h"
#include "net/http/http_server_properties.h"
#include "net/http2/http2_session.h"
#include "net/http2/http2_session_pool.h"
#include "net/proxy/proxy_config.h"
#include "net/quic/http3_session_pool.h"
#include "net/quic/quic_client_context.h"
#include "net/quic/quic_session.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/connect_to.h"
#include "net/spdy/spdy_session_pool.h"
#include "net/ssl/ssl_client_context.h"
#include "net/ssl/ssl_config.h"

namespace net {

class SnapStartClientContext;
struct LoadTiming;

// TlsHandshakeObserver hears about every TLS handshake a transaction ends,
// on the network thread, with the request's LoadTiming so far (its ssl
// facts filled in). A QUIC connection's handshake is one too (Http3Stream:
// once per connection, OK or its error, timing->quic.session kNew). It may add
// facts to the trace (net/context fills in what certificate-bundle prefetching
// did) and start work off the critical path (learning a server's Snap Start
// orbit); it must not block or call back into the transaction.
class TlsHandshakeObserver {
 public:
  virtual ~TlsHandshakeObserver() = default;
  // |result| is OK or the handshake's error. A Snap Start attempt's outcome
  // is known only once the server answers: it is reported again then.
  virtual void OnTlsHandshakeDone(const std::string& host, uint16_t port,
                                  int result, LoadTiming* timing) = 0;
};

// ConnectWaitPolicy: whether a request waits for another request's
// connection to its origin (or to the address its origin resolves to), to
// share its HTTP/2 or SPDY session instead of opening one of its own.
enum class ConnectWaitPolicy {
  // Until the server is known to speak HTTP/1.1: a new h2 server gets one
  // session, and on first contact with an HTTP/1.1-only server the other
  // requests pay about one handshake, waiting.
  kAlways,
  // Chromium's: only for servers known to have spoken h2 or SPDY
  // (HttpServerProperties); others connect in parallel, and when several of
  // those connections negotiate h2, the first session carries the requests
  // and the later connections are closed.
  kKnownMultiplexed,
};
// "always" or "known".
const char* ConnectWaitPolicyToString(ConnectWaitPolicy policy);

struct HttpNetworkSessionParams {
  absl::Duration connect_timeout = absl::Seconds(10);
  // TCP Fast Open (RFC 7413) for new connections: the TLS ClientHello (and
  // a Snap Start request, or 0-RTT data, written with it) or an idempotent
  // plain-HTTP request rides in the SYN when the kernel holds a cookie for
  // the server or its bundle says it needs none (TcpFastOpenHints).
  bool tcp_fast_open = false;
  // A SYN with data unanswered this long is raced by one without (a path
  // that drops such SYNs); the kernel's own retry would come a second
  // later. RFC 8305's connection attempt delay. For a server whose RTT the
  // session measured, about one RTT instead, never more than this
  // (TcpFastOpenHints::FallbackDelay).
  absl::Duration tcp_fast_open_fallback_delay = absl::Milliseconds(250);
  // curl's --connect-to: requests to HOST1:PORT1 resolve and connect to
  // HOST2:PORT2; TLS, Host and pooling keep the origin.
  ConnectToRules connect_to;
  // Whole-request deadline (resolve to last body byte); zero = none.
  absl::Duration request_timeout = absl::Seconds(60);
  SSLConfig ssl_config;
  // Reuse idle keep-alive connections.
  bool enable_connection_reuse = true;
  size_t max_idle_per_origin = 6;
  // HTTP/1.1 connections per group ("scheme://host:port") at most: those a
  // transaction holds (connecting or in use) plus the idle ones. Requests
  // beyond it wait, first come first served, for a connection another
  // request releases (reused if it can be) or for a free slot. Chromium's
  // max_sockets_per_group, 6. Zero: no limit. SPDY sessions hold no slot.
  size_t max_sockets_per_group = 6;
  // A preconnected socket no request took is closed after this.
  absl::Duration unused_idle_timeout = absl::Seconds(10);
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
  // The HTTP proxy each request goes through (ProxyConfig::ProxyFor), or
  // none: direct by default. http URLs are sent to the proxy in absolute
  // form; https URLs get a CONNECT tunnel and TLS through it
  // (net/proxy/README.md). Connections through a proxy are pooled apart
  // from direct ones (GroupKey).
  ProxyConfig proxy;
  // HTTP/2 sessions (when the SSLConfig offers "h2"): windows, header list
  // limit, the server's SETTINGS timeout, PING and idle timeouts. The origin
  // and clock are filled in per session.
  Http2SessionParams http2;
  // Whether requests wait for another request's connection to share its
  // HTTP/2 or SPDY session (above).
  ConnectWaitPolicy connect_wait = ConnectWaitPolicy::kAlways;
  // How many servers HttpServerProperties remembers.
  size_t max_server_properties = HttpServerProperties::kDefaultMaxEntries;
  // HTTP/3 over QUIC (issue 25, step 1): https requests go over HTTP/3
  // (net/quic; fetch --http3), straight to QUIC with no discovery; a QUIC
  // failure before the request left (no UDP answer within the handshake
  // timeout, ICMP refused, a failed handshake) falls back to TCP with the
  // reason in the trace's quic.fallback, and the origin is marked broken
  // for QUIC for 5 minutes. Not through a proxy (HTTP proxies carry TCP).
  bool http3 = false;
  // HTTP/3 discovery by Alt-Svc (RFC 7838): an https response's Alt-Svc
  // that offers h3 is remembered (in memory, per origin, until its ma, at
  // most 256 origins) and the origin's later requests go over HTTP/3 to
  // that alternative, with the same fallback; fetch --h3-alt-svc.
  bool alt_svc_h3 = false;
  // HTTP/3 discovery by DNS (RFC 9460 7.1.2, as Chromium): when the lookup
  // of an https origin's connection brings an HTTPS record that applies and
  // whose ALPN set has h3, the request goes over HTTP/3 to the record's
  // endpoint (its target's addresses, its port) instead of TCP, with the
  // same fallback; the origin's open HTTP/3 session carries its later
  // requests. The resolver must count h3 as compatible (net/context adds
  // it). A record whose ALPN set has no protocol TCP speaks (alpn=h3
  // no-default-alpn) is not used for a TCP connection (a fallback, or a
  // QUIC-broken origin): TCP goes to the origin's own addresses and port,
  // without the record (net/quic/README.md). NetworkContextParams::
  // https_records turns it on (fetch --https-rr).
  bool h3_https_rr = false;
  // QUIC connections: the handshake timeout (capped by connect_timeout),
  // the idle timeout, flow-control windows. Host, port and clock are
  // filled in per connection.
  QuicSessionParams quic;
  Http3SessionParams http3_session;
  // The clock every trace timestamp is read from; tests substitute a
  // SimpleTestTickClock. Not owned; must outlive the session.
  const TickClock* clock = DefaultTickClock::GetInstance();
};

class HttpNetworkSession {
 public:
  class SocketSlot;

  HttpNetworkSession(const HttpNetworkSessionParams& params,
                     HostResolver* resolver,
                     ClientSocketFactory* socket_factory,
                     CertVerifier* verifier);
  ~HttpNetworkSession();

  const HttpNetworkSessionParams& params() const { return params_; }
  HostResolver* host_resolver() { return resolver_; }
  const TickClock* clock() const { return params_.clock; }
  ClientSocketFactory* socket_factory() { return socket_factory_; }
  SSLClientContext* ssl_client_context() { return &ssl_context_; }
  TcpFastOpenHints* tcp_fast_open_hints() { return &tcp_fast_open_hints_; }
  // HTTP/3: the QUIC TLS context (the same verifier as TCP's) and the
  // origins' sessions.
  QuicClientContext* quic_client_context() { return &quic_context_; }
  Http3SessionPool* http3_session_pool() { return &http3_session_pool_; }
  AltSvcCache* alt_svc_cache() { return &alt_svc_cache_; }
  // The session's part of every new HTTP/3 connection's Http3Stream::Params
  // (a request adds its trace and any Alt-Svc alternative): the resolver,
  // socket factory, QUIC context and pool, --connect-to, the TLS observer,
  // and the QUIC parameters with connect_timeout capping the handshake (a
  // new connection's handshake is its request's connect).
  Http3Stream::Params Http3StreamParams();
  // HTTP/3 from DNS HTTPS records (h3_https_rr), the session's side: on,
  // and no connection of the session must carry what QUIC here does not
  // (an origin-bound certificate, Snap Start).
  bool Http3FromHttpsRecordAllowed() const;
  // Whether Encrypted ClientHello applies to a connection whose lookup
  // brought |https|: a mode that offers configurations (on or hard, not
  // GREASE), with one from the record or the SSLConfig. QUIC here has no
  // ECH, so TCP then keeps the name hidden.
  bool EchApplies(const HttpsRecordInfo& https) const;

  // GroupKey is the key of a connection group (the idle pool, the
  // per-group limit, the SPDY connection bookkeeping):
  // "scheme://host:port", and " via http://proxy:port" through a proxy.
  static std::string GroupKey(const std::string& scheme,
                              const std::string& host, uint16_t port,
                              const ProxyServer* proxy);

  // Idle pool, keyed by GroupKey ("scheme://host:port ..."). |preconnected|
  // marks a socket opened (and handshaked) ahead of any request: TakeIdleSocket
  // says so, and such a socket nobody used is closed |unused_timeout| after it
  // was returned (Chromium's unused idle socket timeout).
  std::unique_ptr<StreamSocket> TakeIdleSocket(const std::string& key,
                                               bool* preconnected = nullptr);
  void ReturnIdleSocket(const std::string& key,
                        std::unique_ptr<StreamSocket> socket,
                        bool preconnected = false);
  void CloseIdleSockets();
  size_t idle_socket_count() const;

  // The per-group connection limit (params().max_sockets_per_group). A
  // transaction that needs an HTTP/1.1 connection to the group |key| calls
  // RequestSocketSlot and keeps the returned slot while it uses the
  // connection. A granted() slot may carry an idle connection of the group
  // (SocketSlot::TakeSocket); without one, the caller connects a new one
  // under the slot. A slot that is not granted waits in the group's queue;
  // |on_granted| runs (from a posted task, never re-entrantly, and not after
  // the slot is destroyed) once it is, with the connection another request
  // released or none. Destroying a waiting slot takes it out of the queue;
  // destroying a granted one frees it for the next waiter.
  std::unique_ptr<SocketSlot> RequestSocketSlot(
      const std::string& key, absl::AnyInvocable<void()> on_granted);
  // The holder of |slot| is done with |socket|, a keep-alive connection of
  // the group: it goes to the first waiter, or to the idle pool. Frees the
  // slot.
  void ReleaseSocketSlot(std::unique_ptr<SocketSlot> slot,
                         std::unique_ptr<StreamSocket> socket,
                         bool preconnected = false);
  // A slot for a new connection to |key| if the group has room now (no
  // request waiting, under the limit), else null: never queued, never an
  // idle connection. For preconnects, which count against the limit while
  // they connect like any other connection.
  std::unique_ptr<SocketSlot> TryReserveSocketSlot(const std::string& key);
  // Slots granted for |key| (connecting or in use), and requests waiting.
  size_t active_socket_count(const std::string& key) const;
  size_t waiting_request_count(const std::string& key) const;
  // Preconnected sockets waiting, for |key| or in all.
  size_t preconnected_socket_count(const std::string& key) const;
  size_t preconnected_socket_count() const;

  // SPDY (issue 13 items 3-4): on when the SSLConfig offers ALPN "spdy/3".
  // The pool holds the open SPDY sessions by origin and pools a new origin
  // onto one whose peer address it resolves to and whose verified leaf
  // certificate covers its host (CertificateCoversHost).
  bool spdy_enabled() const;
  SpdySessionPool* spdy_session_pool() { return spdy_pool_.get(); }
  // HTTP/2 (issue 24): on when the SSLConfig offers ALPN "h2" (the
  // default). The pool holds the open HTTP/2 sessions by origin and route,
  // and coalesces another origin onto a direct session (by DNS or its
  // ORIGIN frames) when CanCoalesceHttp2 accepts.
  bool h2_enabled() const;
  Http2SessionPool* http2_session_pool() { return http2_pool_.get(); }
  // CanCoalesceHttp2: "" if |session| may carry |origin| as far as its TLS
  // connection goes — its verified certificate (a clean verification, not
  // one whose errors were ignored, nor a resumed session's, which carries
  // none) covers |origin|'s host, and it presented no origin-bound
  // certificate or the very one |origin| would present
  // (ClientCertProvider::LookupClientCert) — else "certificate" or "obc".
  static std::string CanCoalesceHttp2(ClientCertProvider* provider,
                                      const Http2Session& session,
                                      const Origin& origin);
  // What the session learned of servers (HTTP/1.1 required, multiplexing).
  HttpServerProperties* server_properties() { return &server_properties_; }
  // Connections a request made and closed because, once its handshake chose
  // h2, another request's session to the origin already existed
  // (ConnectWaitPolicy::kKnownMultiplexed's extra connections).
  uint64_t redundant_multiplexed_connections() const {
    return redundant_multiplexed_connections_;
  }
  void NoteRedundantMultiplexedConnection() {
    ++redundant_multiplexed_connections_;
  }
  // One new https connection per origin at a time while SPDY or HTTP/2 is
  // on, so the
  // requests that arrive while it is being made share its session (as
  // Chromium's SpdySessionPool does): BeginSpdyConnect returns true for the
  // first caller for |key|; the others WaitForSpdyConnect and are called
  // back (from a posted task) when EndSpdyConnect runs, to look again.
  bool BeginSpdyConnect(const std::string& key);
  void WaitForSpdyConnect(const std::string& key,
                          absl::AnyInvocable<void()> cb);
  void EndSpdyConnect(const std::string& key);
  // Whether a request for |key| (a group, or an "ip:" address key) should
  // wait for another request's connection to it, by the ConnectWaitPolicy
  // and what server_properties() says of |key|: never once it chose
  // HTTP/1.1.
  bool ShouldWaitForMultiplexedConnect(const std::string& key) const;

 private:
  struct IdleSocket {
    std::unique_ptr<StreamSocket> socket;
    bool preconnected = false;
    TimeTicks since;
  };
  // The limit's bookkeeping per group.
  struct Group {
    size_t active = 0;               // granted slots
    std::list<SocketSlot*> waiting;  // first come, first served
  };
  // Closes preconnected sockets past their timeout; re-arms the sweep.
  void SweepUnused();
  size_t IdleCount(const std::string& key) const;
  // Whether |key|'s group may open another connection.
  bool GroupHasRoom(const std::string& key) const;
  // Grants |slot| (taken off the queue) with |socket| (may be null) and
  // posts its callback.
  void GrantWaiter(SocketSlot* slot, std::unique_ptr<StreamSocket> socket,
                   bool preconnected);
  // A slot of |key| was freed (or an idle connection closed): grants
  // waiters while the group has room.
  void OnSlotFreed(const std::string& key);
  // A queued slot is destroyed.
  void CancelWaiter(SocketSlot* slot);
  // A granted slot of |key| ends; |socket|, if any, is a keep-alive
  // connection for the next waiter or the idle pool.
  void FreeSlot(const std::string& key, std::unique_ptr<StreamSocket> socket,
                bool preconnected);
  // Puts |socket| in the idle pool (or drops it); no slot bookkeeping.
  void AddIdleSocket(const std::string& key,
                     std::unique_ptr<StreamSocket> socket, bool preconnected);

  HttpNetworkSessionParams params_;
  HostResolver* const resolver_;
  ClientSocketFactory* const socket_factory_;
  SSLClientContext ssl_context_;
  TcpFastOpenHints tcp_fast_open_hints_;
  // HTTP/3 (the pool's sessions use the context: declared after it, so
  // destroyed before it).
  QuicClientContext quic_context_;
  Http3SessionPool http3_session_pool_;
  AltSvcCache alt_svc_cache_;
  std::map<std::string, std::vector<IdleSocket>> idle_;
  std::map<std::string, Group> groups_;
  OneShotTimer sweep_timer_;
  std::unique_ptr<SpdySessionPool> spdy_pool_;
  std::unique_ptr<Http2SessionPool> http2_pool_;
  // Origins with a connection being made, and who waits on each.
  std::map<std::string, std::vector<absl::AnyInvocable<void()>>>
      spdy_connecting_;
  HttpServerProperties server_properties_;
  uint64_t redundant_multiplexed_connections_ = 0;
  ThreadChecker thread_checker_;
};

// SocketSlot: one of a group's connection slots under the per-group limit
// (or a place in its queue). Made by HttpNetworkSession::RequestSocketSlot,
// owned by the transaction that asked for it, which must destroy it before
// the session. Destroying it releases the slot (or leaves the queue); a
// connection it was handed and never taken goes back to the pool.
class HttpNetworkSession::SocketSlot {
 public:
  SocketSlot(const SocketSlot&) = delete;
  SocketSlot& operator=(const SocketSlot&) = delete;
  ~SocketSlot();

  bool granted() const { return granted_; }
  const std::string& key() const { return key_; }
  // The idle connection this slot was granted with, if any (once).
  std::unique_ptr<StreamSocket> TakeSocket(bool* preconnected = nullptr);

 private:
  friend class HttpNetworkSession;
  SocketSlot(HttpNetworkSession* session, std::string key);

  HttpNetworkSession* const session_;
  const std::string key_;
  bool granted_ = false;
  bool queued_ = false;
  std::unique_ptr<StreamSocket> socket_;
  bool preconnected_ = false;
  absl::AnyInvocable<void()> on_granted_;
  WeakPtrFactory<SocketSlot> weak_factory_{this};
};

}  // namespace net

#endif  // NET_HTTP_HTTP_NETWORK_SESSION_H_
