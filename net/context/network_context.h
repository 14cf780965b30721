// NetworkContext: the composition root an embedder creates — a browser, a
// headless client, the fetch tool. From one NetworkContextParams it builds
// and owns the whole client stack: the worker pool, the host resolver (c-ares
// or the system's) and the DNS prefetcher, the certificate verifier with its
// revocation checker (OCSP/CRL over a plain-HTTP session of its own), the
// prevalidator, the origin-bound certificate key pool and store, the cookie
// jar, the Snap Start state, the HTTP session, and the Profile that loads and
// saves every per-profile store (memory only for a private profile).
// Requests are URLRequests (net/url_request): redirects, the profile's
// cookies, content decoding, body limits; a completed navigation counts as a
// visit in the profile's host history.
//
//   EventLoop loop;                            // the network thread's loop
//   NetworkContextParams params;
//   params.trust_anchor_files = {"root.pem"};
//   params.profile_dir = "/tmp/profile";
//   auto context = NetworkContext::Create(std::move(params));
//   auto request = (*context)->CreateRequest(url, &delegate);
//   request->Start();                          // the delegate hears the rest
//   ...
//   (*context)->Shutdown(done);                // background work, then save
//
// Created, used and destroyed on the network thread, whose EventLoop must
// exist first and outlive the context. Requests and jobs the context hands
// out must be destroyed before it.

#ifndef NET_CONTEXT_NETWORK_CONTEXT_H_
#define NET_CONTEXT_NETWORK_CONTEXT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cert/ignore_cert_errors_verifier.h"
#include "cert/obc/obc_types.h"
#include "cert/revocation_checker.h"
#include "dns/host_resolver.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/context/profile.h"
#include "net/http/http_network_session.h"
#include "net/proxy/proxy_config.h"
#include "net/url_request/url_request.h"
#include "net/url_request/url_request_context.h"
#include "prefetch/bundle_source.h"

namespace net {

class BasicCertVerifier;
class CertPrefetcher;
class HttpUrlFetcher;
class PrefetchCache;
class Preconnector;
class ServerRttProber;
class CertVerifier;
class ClientSocketFactory;
class DnsPrefetcher;
class KeyPool;
class ObcClientCertProvider;
class OcspCrlRevocationChecker;
class OriginBoundCertStore;
class PrevalidatedCertVerifier;
class Prevalidator;
class SessionFetcher;
class SessionService;
class SnapStartClientContext;
class StreamSocket;
class WorkerPool;

struct NetworkContextParams {
  // Trust: PEM files of trust anchors, and/or the system store
  // (/etc/ssl/certs). Without either, https requests cannot be verified and
  // the context has no cert_verifier().
  std::vector<std::string> trust_anchor_files;
  bool system_trust_store = false;

  // DNS: c-ares against |dns_servers| ("addr:port"), or the system resolver
  // when empty. |resolve_overrides| (curl's --resolve) win over both.
  std::vector<std::string> dns_servers;
  bool edns = true;
  absl::Duration dns_attempt_timeout = absl::Seconds(2);
  // DNS HTTPS records (RFC 9460), asked for beside A/AAAA for every https
  // origin and prefetch (c-ares only: getaddrinfo cannot ask): their port,
  // target, ALPN set and ECH configuration (session.ssl_config.ech_mode says
  // what TLS does with it). On by default, as in Chrome: asked in parallel
  // with A/AAAA, a late answer waited for only briefly (CaresHostResolver).
  bool https_records = true;
  // With https_records: a record whose ALPN set has h3 sends the origin's
  // requests over HTTP/3 (HttpNetworkSessionParams::h3_https_rr; Chrome's
  // discovery of HTTP/3 by DNS), the resolver counting h3 as compatible.
  // Off by default, as Alt-Svc discovery (alt_svc_h3) is: QUIC is not yet
  // raced against TCP, so a path that drops UDP would cost every such
  // origin the QUIC handshake timeout before its TCP fallback.
  // fetch --h3-https-rr turns it on (not with --http1.1).
  bool h3_from_https_records = false;
  std::vector<ResolveOverride> resolve_overrides;

  // Connections and TLS. |session| carries timeouts, the SSLConfig and
  // connection reuse; its cookie jar, Snap Start context, client certificate
  // provider, verifier and proxy are filled in by the context.
  HttpNetworkSessionParams session;
  // Transport sockets come from here (tests and link emulation substitute
  // one). Not owned; must outlive the context. Null: the default factory.
  ClientSocketFactory* socket_factory = nullptr;
  // The HTTP proxy, by URL (net/proxy: ProxyConfig::FromEnvironment or
  // FromCurlOptions read curl's variables and flags); direct by default.
  // Every request the context makes goes by it: URLRequests, preconnects,
  // and the plain-HTTP fetches of OCSP, CRLs and bundle files. It replaces
  // session.proxy. (Probes that make their own connections outside the
  // sessions, the truncated-handshake bundle source and the prevalidation
  // and Snap Start learning handshakes, still connect directly.)
  ProxyConfig proxy;

  // curl's --insecure: the browsing session's connections go on whatever
  // their certificates say (the trace's cert detail names what was
  // ignored). Prefetched bundles and prevalidation are still verified.
  bool ignore_certificate_errors = false;

  // Revocation checking of every verified chain (off, soft-fail, hard-fail,
  // filter: soft-fail behind a revocation filter that must be there).
  RevocationPolicy::Mode revocation = RevocationPolicy::Mode::kSoftFail;
  // A CRLite revocation filter (cert/revocation_filter.h; made by
  // tools/revocation_filter) and stashes on top of it, installed in the
  // profile at Create — saved in its directory for the next run, or held in
  // memory only by a private profile; a filter older than the profile's is
  // refused — and consulted before any staple, cache, OCSP or CRL request
  // under every mode but off. Each file is read with a bound
  // (RevocationFilterStore::kMaxFilterBytes, kMaxStashBytes).
  std::string revocation_filter_file;
  std::vector<std::string> revocation_stash_files;

  // Certificate-bundle prefetching (prefetch/): off when empty, else the
  // sources tried, in order, for every host the DNS prefetcher resolves.
  std::vector<BundleSourceType> bundle_sources;
  // CDN base URLs for the cdn source ("http://cdn.example/bundles").
  std::vector<std::string> bundle_cdns;
  // Verify and check revocation of a bundle as soon as it arrives (off: the
  // connection verifies it on the critical path).
  bool bundle_prevalidate = true;
  // The port each prefetched host is prefetched for (default 443).
  std::map<std::string, uint16_t> prefetch_ports;
  // Preconnect: for every host the DNS prefetcher resolves, open and
  // handshake an https connection ahead and keep it warm in the session's
  // pool (at most |preconnect_per_host| per host and |preconnect_total| in
  // all; closed when unused for session.unused_idle_timeout).
  bool preconnect = false;
  size_t preconnect_per_host = 1;
  size_t preconnect_total = 6;
  // A preconnect not finished by then (DNS, TCP and TLS) is abandoned.
  absl::Duration preconnect_timeout = absl::Seconds(10);

  // Origin-bound certificates: presented as TLS client certificates when
  // set; scoped per origin or per eTLD+1; |obc_pool_depth| keys of the
  // algorithm kept ready (-1: 4 for ECDSA, 2 for RSA).
  std::optional<KeyAlgorithm> obc_algorithm;
  ScopeMode obc_scope = ScopeMode::kOrigin;
  int obc_pool_depth = -1;

  // TLS Snap Start through net/snap_start's TLS 1.2 core (needs trust): for
  // servers whose orbit is known (learned, or from a prefetched bundle);
  // others get the normal handshake and their orbit is learned afterwards
  // with a truncated handshake, off the critical path. With
  // |snap_start_learn_in_handshake| every connection uses the core and
  // learns in-band (slower; for testing the core).
  bool snap_start = false;
  bool snap_start_learn_in_handshake = false;

  // The profile (see Profile): its directory ("" = memory only), private.
  std::string profile_dir;
  bool private_profile = false;
  bool cookies = true;

  // Device Bound Session Credentials (net/device_bound_sessions, the W3C
  // DBSC draft): a response's Secure-Session-Registration registers a
  // session (a P-256 key from the key pool, pre-generated off the critical
  // path), kept in the profile; a request in its scope whose bound cookie
  // is missing waits for the session's refresh. On, as Chrome ships it: a
  // server has to ask. Needs cookies.
  bool device_bound_sessions = true;
  // Each registration or refresh POST gives up after this long (or after
  // session.request_timeout, if shorter).
  absl::Duration dbsc_fetch_timeout = absl::Seconds(10);

  // Worker threads for key generation, chain building and OCSP/CRL checks.
  int worker_threads = 2;
  // Lookups the DNS prefetcher runs at once.
  size_t max_concurrent_prefetches = 8;
};

class NetworkContext {
 public:
  // Create builds the stack. Errors name what failed (a trust anchor file,
  // a DNS server, a damaged or locked profile file).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<NetworkContext>> Create(
      NetworkContextParams params);
  ~NetworkContext();
  NetworkContext(const NetworkContext&) = delete;
  NetworkContext& operator=(const NetworkContext&) = delete;

  // CreateRequest returns a request for |url| on the context's HTTP
  // session and cookie jar; |delegate| (not owned) must outlive it. With
  // options.navigation, a request that completes (its body read to the
  // end) counts as a visit to its final URL's host (RecordVisit).
  std::unique_ptr<URLRequest> CreateRequest(
      const Url& url, URLRequest::Delegate* delegate,
      URLRequest::Options options = URLRequest::Options());

  // Prefetch resolves |hosts| ahead of use (the DNS prefetcher, which
  // de-duplicates and bounds concurrency) and, with bundle sources
  // configured, fetches, verifies and prevalidates each host's certificate
  // bundle; |done| runs from a posted task once nothing is queued or in
  // flight (orbit learning included).
  void Prefetch(const std::vector<std::string>& hosts,
                absl::AnyInvocable<void()> done);

  // StartupHosts is the profile's |n| most visited hosts, most visited first:
  // what a browser prefetches at startup.
  std::vector<std::string> StartupHosts(size_t n) const;
  // RecordVisit counts a successful visit to |host| in the profile.
  void RecordVisit(const std::string& host);

  // PrefetchLinks is what a browser does with a page it loaded: the hosts
  // of the http(s) links in |page| (the start of the body of |page_url|)
  // are prefetched like Prefetch's; returns them (none: |done| is not
  // called). |done| runs once everything the context prefetches is idle.
  std::vector<std::string> PrefetchLinks(absl::string_view page,
                                         const Url& page_url,
                                         absl::AnyInvocable<void()> done);

  // A request the context runs on the embedder's behalf; destroying it
  // cancels.
  class Request {
   public:
    virtual ~Request() = default;
  };

  // ConnectTransport resolves |host| and connects a transport socket to its
  // addresses in turn through the context's socket factory, for probes that
  // speak their own protocol on it. OK, a net error, or ERR_IO_PENDING.
  int ConnectTransport(const std::string& host, uint16_t port,
                       std::unique_ptr<StreamSocket>* out_socket,
                       CompletionOnceCallback callback,
                       std::unique_ptr<Request>* out_request);

  // PrevalidateHost learns |host|'s chain with a probe handshake (a session
  // cache of its own, so the next real connection is a full handshake) and
  // hands it to the prevalidator: chain building and revocation checks off
  // the critical path. OK once prevalidated; the error otherwise (a failed
  // prevalidation only means the later fetch verifies on its own).
  // |error_detail| (optional) says which step failed.
  int PrevalidateHost(const std::string& host, uint16_t port,
                      CompletionOnceCallback callback,
                      std::unique_ptr<Request>* out_request,
                      std::string* error_detail = nullptr);

  // WhenIdle runs |done| (from a task) once no prefetch, bundle or orbit
  // learning job runs or waits: what a tool waits for before exiting.
  void WhenIdle(absl::AnyInvocable<void()> done);

  // WaitForObcKeys returns OK once the OBC key pool holds its target depth
  // (or there is none), else ERR_IO_PENDING and runs |callback| then.
  int WaitForObcKeys(CompletionOnceCallback callback);

  // FlushObcs returns OK once every origin-bound certificate made so far is
  // on disk (always, for a private profile), else ERR_IO_PENDING.
  int FlushObcs(CompletionOnceCallback callback);
  // SaveProfile writes the profile's stores (see Profile::Save).
  absl::Status SaveProfile();

  // TakeDeviceBoundSessionTraces hands over the traces of the registration
  // and refresh POSTs the context made so far (each with its dbsc object),
  // in the order they ended: what fetch writes after its own requests.
  std::vector<LoadTiming> TakeDeviceBoundSessionTraces();

  // Shutdown is what an embedder does before it destroys the context, in
  // the order that loses nothing: wait until the work visits started off
  // the critical path is done (WhenIdle: prefetches, bundles, Snap Start
  // orbit learning), flush the origin-bound certificates to disk, then save
  // the profile. |done| runs from a task with OK, or an error naming what
  // was not saved ("origin-bound certificates: ...", "profile: ...").
  // Requests should have ended first; the context may be destroyed once
  // |done| ran.
  void Shutdown(absl::AnyInvocable<void(absl::Status)> done);

  // The parts, for embedders and tools that need them directly. Null when
  // not configured (no trust: no verifier, prevalidator, revocation; no OBC
  // algorithm: no key pool or store; Snap Start off: no Snap Start context).
  Profile* profile() { return profile_.get(); }
  HostResolver* host_resolver() { return resolver_.get(); }
  DnsPrefetcher* dns_prefetcher() { return dns_prefetcher_.get(); }
  ClientSocketFactory* socket_factory() { return socket_factory_; }
  WorkerPool* worker_pool() { return worker_pool_.get(); }
  // The verifier sessions use: prevalidated answers first, then a full
  // verification with revocation.
  CertVerifier* cert_verifier();
  BasicCertVerifier* basic_cert_verifier() { return verifier_.get(); }
  Prevalidator* prevalidator() { return prevalidator_.get(); }
  OriginBoundCertStore* obc_store() { return obc_store_.get(); }
  KeyPool* key_pool() { return key_pool_.get(); }
  CookieJar* cookie_jar() { return profile_->cookie_jar(); }
  SnapStartClientContext* snap_start_context() {
    return snap_start_context_.get();
  }
  HttpNetworkSession* http_session() { return http_session_.get(); }
  // Null without bundle sources.
  CertPrefetcher* cert_prefetcher() { return cert_prefetcher_.get(); }
  // Null without preconnect.
  Preconnector* preconnector() { return preconnector_.get(); }
  // Null without TCP Fast Open (session.tcp_fast_open).
  ServerRttProber* rtt_prober() { return rtt_prober_.get(); }
  // Null when device bound sessions are off.
  SessionService* device_bound_sessions() { return dbsc_service_.get(); }
  const NetworkContextParams& params() const { return params_; }
  // Why the context has no verifier (empty if it has one).
  const std::string& trust_error() const { return trust_error_; }

 private:
  class ConnectJob;
  class PrevalidateRequest;
  class Observer;
  class VisitRecorder;

  explicit NetworkContext(NetworkContextParams params);
  absl::Status Init();
  absl::Status InitResolver();
  absl::Status InitRevocationFilter();
  void InitRevocation();
  absl::Status InitObc();
  absl::Status InitSnapStart();
  absl::Status InitBundlePrefetch();
  void InitDeviceBoundSessions();

  NetworkContextParams params_;
  std::unique_ptr<WorkerPool> worker_pool_;
  // Refills the OBC key pool at background priority; outlives key_pool_.
  std::unique_ptr<WorkerPool> refill_pool_;
  std::unique_ptr<Profile> profile_;
  std::unique_ptr<HostResolver> resolver_;
  ClientSocketFactory* socket_factory_ = nullptr;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::string trust_error_;
  // Plain HTTP for what the context fetches itself (OCSP, CRLs, bundles):
  // no cookies, no OBC, no revocation check of its own.
  std::unique_ptr<HttpNetworkSession> plain_session_;
  std::unique_ptr<HttpUrlFetcher> revocation_fetcher_;
  std::unique_ptr<HttpUrlFetcher> bundle_fetcher_;
  std::unique_ptr<OcspCrlRevocationChecker> revocation_checker_;
  std::unique_ptr<Prevalidator> prevalidator_;
  std::unique_ptr<PrevalidatedCertVerifier> session_verifier_;
  // ignore_certificate_errors: wraps the above for the browsing session.
  std::unique_ptr<IgnoreCertErrorsVerifier> insecure_verifier_;
  std::unique_ptr<KeyPool> key_pool_;
  std::unique_ptr<OriginBoundCertStore> obc_store_;
  std::unique_ptr<ObcClientCertProvider> obc_provider_;
  std::unique_ptr<SnapStartClientContext> snap_start_context_;
  std::unique_ptr<PrefetchCache> prefetch_cache_;
  std::unique_ptr<PrefetchCache> learner_cache_;
  std::vector<std::unique_ptr<BundleSource>> bundle_sources_;
  std::unique_ptr<CertPrefetcher> cert_prefetcher_;
  // Learns orbits off the critical path with the truncated handshake.
  std::unique_ptr<CertPrefetcher> orbit_learner_;
  std::unique_ptr<Observer> observer_;
  std::unique_ptr<HttpNetworkSession> http_session_;
  // What the context's URLRequests run on: the session, the profile's
  // cookie jar, and the visit recorder as their network delegate.
  std::unique_ptr<VisitRecorder> visit_recorder_;
  URLRequestContext request_context_;
  // Device bound sessions: a key pool of their own when OBCs are off, the
  // context their POSTs run on (the session and jar, no DBSC delegate), the
  // fetcher and the service the request context points at.
  std::unique_ptr<KeyPool> dbsc_key_pool_;
  URLRequestContext dbsc_request_context_;
  std::unique_ptr<SessionFetcher> dbsc_fetcher_;
  std::unique_ptr<SessionService> dbsc_service_;
  std::unique_ptr<Preconnector> preconnector_;
  // Measures the RTT of servers whose bundle invites SYN data (Fast Open).
  std::unique_ptr<ServerRttProber> rtt_prober_;
  std::unique_ptr<DnsPrefetcher> dns_prefetcher_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_CONTEXT_NETWORK_CONTEXT_H_
