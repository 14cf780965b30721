#include "net/context/network_context.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/origin_bound_cert_store.h"
#include "cert/prevalidator.h"
#include "dns/cares_host_resolver.h"
#include "dns/dns_prefetcher.h"
#include "net/base/event_loop.h"
#include "net/base/weak_ptr.h"
#include "net/base/worker_pool.h"
#include "net/cert_net/http_url_fetcher.h"
#include "net/context/preconnector.h"
#include "net/context/prevalidate_job.h"
#include "net/context/server_rtt_prober.h"
#include "net/device_bound_sessions/session_fetcher.h"
#include "net/device_bound_sessions/session_service.h"
#include "net/http/default_client_socket_factory.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/transport_connect_job.h"
#include "net/ssl/ssl_client_context.h"
#include "net/timing/cert_bundle_annotation.h"
#include "net/timing/load_timing.h"
#include "prefetch/cert_prefetcher.h"
#include "prefetch/dns_bundle_source.h"
#include "prefetch/http_bundle_sources.h"
#include "prefetch/prefetch_cache.h"
#include "prefetch/snap_start_from_bundle.h"
#include "prefetch/truncated_bundle_source.h"

namespace net {

// ConnectJob: a TransportConnectJob the embedder can cancel.
class NetworkContext::ConnectJob : public NetworkContext::Request {
 public:
  ConnectJob(NetworkContext* context, std::string host, uint16_t port)
      : job_(context->host_resolver(), context->socket_factory(),
             std::move(host), port, context->params().session.connect_timeout) {
  }
  int Start(CompletionOnceCallback callback) {
    return job_.Connect(std::move(callback));
  }
  std::unique_ptr<StreamSocket> TakeSocket() { return job_.TakeSocket(); }
  const std::string& error_detail() const { return job_.error_detail(); }

 private:
  TransportConnectJob job_;
};

// PrevalidateRequest: a PrevalidateJob the embedder can cancel.
class NetworkContext::PrevalidateRequest : public NetworkContext::Request {
 public:
  PrevalidateRequest(NetworkContext* context, std::string host, uint16_t port,
                     std::string* error_detail)
      : job_(context->host_resolver(), context->socket_factory(),
             context->prevalidator(), std::move(host), port,
             context->params().session.connect_timeout, error_detail) {}
  int Start(CompletionOnceCallback callback) {
    return job_.Start(std::move(callback));
  }

 private:
  PrevalidateJob job_;
};

// Observer: the context's ear on the connection layer and the prefetchers.
//  - After each TLS handshake (TCP's, or a QUIC connection's): fills the
//  trace's cert.bundle from the
//    prefetcher's record, and, with Snap Start on, learns the orbit of a
//    server it has no information for with a truncated handshake off the
//    critical path.
//  - When a bundle is ready: hands a bundle with an orbit to the Snap Start
//    state, so the first visit runs Snap Start.
//  - When a truncated-handshake probe measured a server's round trip: tells
//    the HTTP session's TCP Fast Open hints (the race's delay).
class NetworkContext::Observer : public TlsHandshakeObserver,
                                 public CertPrefetcher::Observer,
                                 public ServerRttObserver {
 public:
  explicit Observer(NetworkContext* context) : context_(context) {}

  void OnServerRttSample(const std::string& host, absl::Duration rtt) override {
    // Probes may run before the session exists (none yet) or after.
    if (HttpNetworkSession* session = context_->http_session())
      session->tcp_fast_open_hints()->NoteRtt(host, rtt,
                                              RttSampleSource::kBundleProbe);
  }

  void OnTlsHandshakeDone(const std::string& host, uint16_t port, int result,
                          LoadTiming* timing) override {
    Annotate(host, port, timing);
    SnapStartClientContext* snap = context_->snap_start_context();
    // (Not after a QUIC handshake: Snap Start is TCP's; the origin's
    // requests go over HTTP/3.)
    if (result == OK && snap && context_->orbit_learner_ &&
        timing->quic.session == SessionUse::kNone &&
        timing->ssl.snap_start == SnapStartOutcome::kNone &&
        !snap->GetInfo(absl::StrCat(host, ":", port))) {
      context_->orbit_learner_->Prefetch(host, port);
    }
  }

  void OnBundleReady(const PrefetchRecord& record) override {
    const std::string key = absl::StrCat(record.host, ":", record.port);
    // The server takes SYN data without a cookie: a first connection may
    // put its first flight in the SYN. (Not covered by the chain's
    // signature, like the orbit; a false claim costs at most the fallback:
    // the data is sent again after the handshake.)
    if (record.fetched.bundle.tcp_fast_open_no_cookie &&
        context_->http_session()) {
      context_->http_session()->tcp_fast_open_hints()->NoteNoCookie(key);
      // A SYN with data is about to go there: learn the server's RTT now,
      // so a path that drops it costs about one RTT, not the configured
      // delay (no other connection may have measured it: a bundle from
      // DNS, a well-known path or a CDN).
      if (ServerRttProber* prober = context_->rtt_prober())
        prober->MaybeProbe(record.host, record.port);
    }
    SnapStartClientContext* snap = context_->snap_start_context();
    if (!snap || !record.fetched.bundle.orbit) return;
    absl::StatusOr<SnapStartInfo> info = SnapStartInfoFromBundle(
        record.fetched, snap->options().tickets, record.prevalidated);
    if (!info.ok()) return;
    // Information from a real handshake (learned in a recovery) is better
    // than a synthesized template for the same chain and orbit.
    const SnapStartInfo* known = snap->GetInfo(key);
    if (known && known->chain_der == info->chain_der &&
        known->orbit == info->orbit && record.fetched.server_hello.empty())
      return;
    snap->PutInfo(key, *std::move(info));
  }

 private:
  // The trace's cert_bundle facts: the prefetcher's record, the Snap
  // Start state and the prevalidator's answer, to AnnotateCertBundle.
  void Annotate(const std::string& host, uint16_t port, LoadTiming* timing) {
    const CertPrefetcher* prefetcher = context_->cert_prefetcher();
    const PrefetchRecord* record =
        prefetcher ? prefetcher->Record(host, port) : nullptr;
    if (!record) return;
    PrefetchedBundleFacts facts;
    facts.state = record->state == PrefetchRecord::State::kReady
                      ? PrefetchedBundleFacts::State::kReady
                  : record->state == PrefetchRecord::State::kRunning
                      ? PrefetchedBundleFacts::State::kRunning
                      : PrefetchedBundleFacts::State::kFailed;
    facts.rejected = record->rejected;
    facts.started = record->started;
    facts.received = record->bundle_received;
    facts.ready = record->ready;
    const FetchedBundle& fetched = record->fetched;
    if (facts.state == PrefetchedBundleFacts::State::kReady) {
      facts.source = BundleSourceTypeToString(fetched.source);
      facts.via = fetched.via;
      facts.bytes = static_cast<int64_t>(fetched.bytes);
      facts.from_cache = record->from_cache;
      facts.prevalidated = record->prevalidated;
      facts.fetched_at = record->fetched_at;
      facts.chain_der = fetched.bundle.chain;
      facts.has_orbit = fetched.bundle.orbit.has_value();
      facts.snap_start_info_from_bundle =
          facts.has_orbit && SnapStartUsedBundle(host, port, fetched);
    }
    AnnotateCertBundle(
        facts,
        [&](CertVerifyResult* result) {
          CertVerifyParams params;
          params.chain_der = fetched.bundle.chain;
          params.hostname = host;
          params.now = absl::Now();
          return context_->session_verifier_ &&
                 context_->session_verifier_->LookupPrevalidated(params,
                                                                 result);
        },
        timing);
  }

  // SnapStartUsedBundle: the Snap Start information for host:port predicts
  // with the bundle's chain and orbit.
  bool SnapStartUsedBundle(const std::string& host, uint16_t port,
                           const FetchedBundle& fetched) const {
    SnapStartClientContext* snap = context_->snap_start_context();
    const SnapStartInfo* info =
        snap ? snap->GetInfo(absl::StrCat(host, ":", port)) : nullptr;
    return info && info->chain_der == fetched.bundle.chain &&
           std::string(info->orbit.begin(), info->orbit.end()) ==
               *fetched.bundle.orbit;
  }

  NetworkContext* const context_;
};

// VisitRecorder: the network delegate of the context's requests. A
// navigation that completed counts as a visit to its final host (the
// profile's startup list is made of them).
class NetworkContext::VisitRecorder : public NetworkDelegate {
 public:
  explicit VisitRecorder(NetworkContext* context) : context_(context) {}
  void OnCompleted(URLRequest* request, int net_error) override {
    if (net_error == OK && request->options().navigation)
      context_->RecordVisit(request->url().host());
  }

 private:
  NetworkContext* const context_;
};

NetworkContext::NetworkContext(NetworkContextParams params)
    : params_(std::move(params)) {}

NetworkContext::~NetworkContext() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // Users of the session and resolver go first, in reverse order of
  // construction.
  dns_prefetcher_.reset();
  preconnector_.reset();
  rtt_prober_.reset();
  // DBSC's jobs use the session, the jar and the key pools.
  request_context_.device_bound_sessions = nullptr;
  dbsc_service_.reset();
  dbsc_fetcher_.reset();
  dbsc_key_pool_.reset();
  visit_recorder_.reset();
  http_session_.reset();
  orbit_learner_.reset();
  cert_prefetcher_.reset();
  learner_cache_.reset();
  observer_.reset();
  bundle_sources_.clear();
  snap_start_context_.reset();
  obc_provider_.reset();
  obc_store_.reset();
  key_pool_.reset();
  insecure_verifier_.reset();
  session_verifier_.reset();
  prevalidator_.reset();
  if (verifier_) verifier_->set_revocation_checker(nullptr);
  revocation_checker_.reset();
  bundle_fetcher_.reset();
  revocation_fetcher_.reset();
  plain_session_.reset();
  verifier_.reset();
  resolver_.reset();
  // Worker threads join here, after everything that posts to them.
  refill_pool_.reset();
  worker_pool_.reset();
}

absl::StatusOr<std::unique_ptr<NetworkContext>> NetworkContext::Create(
    NetworkContextParams params) {
  if (EventLoop::Current() == nullptr)
    return absl::FailedPreconditionError(
        "NetworkContext needs an EventLoop on the calling thread");
  std::unique_ptr<NetworkContext> context(
      new NetworkContext(std::move(params)));
  absl::Status status = context->Init();
  if (!status.ok()) return status;
  return context;
}

absl::Status NetworkContext::Init() {
  worker_pool_ = std::make_unique<WorkerPool>(
      params_.worker_threads > 0 ? params_.worker_threads : 1);
  socket_factory_ = params_.socket_factory ? params_.socket_factory
                                           : GetDefaultClientSocketFactory();

  Profile::Options profile_options;
  profile_options.dir = params_.profile_dir;
  profile_options.private_profile = params_.private_profile;
  profile_options.cookies = params_.cookies;
  profile_options.device_bound_sessions = params_.device_bound_sessions;
  absl::StatusOr<std::unique_ptr<Profile>> profile =
      Profile::Open(profile_options, absl::Now());
  if (!profile.ok()) return profile.status();
  profile_ = *std::move(profile);

  absl::Status status = InitRevocationFilter();
  if (!status.ok()) return status;
  status = InitResolver();
  if (!status.ok()) return status;

  absl::StatusOr<std::unique_ptr<BasicCertVerifier>> verifier =
      BasicCertVerifier::Create(params_.trust_anchor_files,
                                params_.system_trust_store);
  if (verifier.ok()) verifier_ = *std::move(verifier);
  HttpNetworkSessionParams plain = params_.session;
  plain.proxy = params_.proxy;
  plain.request_timeout = absl::Seconds(10);
  plain.snap_start_context = nullptr;
  plain.tls_observer = nullptr;
  plain.ssl_config.client_cert_provider = nullptr;
  plain_session_ = std::make_unique<HttpNetworkSession>(
      plain, resolver_.get(), socket_factory_, verifier_.get());
  if (verifier_) {
    verifier_->set_worker_pool(worker_pool_.get());
    InitRevocation();
    prevalidator_ = std::make_unique<Prevalidator>(verifier_.get());
    session_verifier_ = std::make_unique<PrevalidatedCertVerifier>(
        prevalidator_.get(), verifier_.get());
  } else if (!params_.trust_anchor_files.empty()) {
    // Anchors were asked for and are unusable: that is an error, not a
    // context that silently cannot verify.
    return absl::Status(
        verifier.status().code(),
        absl::StrCat("trust anchors: ", verifier.status().message()));
  } else {
    trust_error_ = std::string(verifier.status().message());
  }

  status = InitObc();
  if (!status.ok()) return status;
  status = InitSnapStart();
  if (!status.ok()) return status;
  status = InitBundlePrefetch();
  if (!status.ok()) return status;

  HttpNetworkSessionParams session_params = params_.session;
  session_params.proxy = params_.proxy;
  session_params.snap_start_context = snap_start_context_.get();
  session_params.tls_observer = observer_.get();
  session_params.h3_https_rr =
      params_.https_records && params_.h3_from_https_records;
  session_params.snap_start_learn_in_handshake =
      params_.snap_start_learn_in_handshake;
  if (obc_provider_)
    session_params.ssl_config.client_cert_provider = obc_provider_.get();
  CertVerifier* verifier_for_connections = cert_verifier();
  if (params_.ignore_certificate_errors) {
    insecure_verifier_ =
        std::make_unique<IgnoreCertErrorsVerifier>(verifier_for_connections);
    verifier_for_connections = insecure_verifier_.get();
  }
  http_session_ = std::make_unique<HttpNetworkSession>(
      session_params, resolver_.get(), socket_factory_,
      verifier_for_connections);
  visit_recorder_ = std::make_unique<VisitRecorder>(this);
  request_context_.http_session = http_session_.get();
  request_context_.cookie_jar = profile_->cookie_jar();
  request_context_.network_delegate = visit_recorder_.get();
  InitDeviceBoundSessions();
  dns_prefetcher_ = std::make_unique<DnsPrefetcher>(
      resolver_.get(), params_.max_concurrent_prefetches,
      params_.prefetch_ports);
  if (cert_prefetcher_) dns_prefetcher_->AddObserver(cert_prefetcher_.get());
  if (params_.preconnect) {
    Preconnector::Options options;
    options.max_per_host = params_.preconnect_per_host;
    options.max_total = params_.preconnect_total;
    options.ports = params_.prefetch_ports;
    options.timeout = params_.preconnect_timeout;
    preconnector_ =
        std::make_unique<Preconnector>(options, http_session_.get());
    dns_prefetcher_->AddObserver(preconnector_.get());
  }
  if (params_.session.tcp_fast_open)
    rtt_prober_ = std::make_unique<ServerRttProber>(http_session_.get());
  return absl::OkStatus();
}

absl::Status NetworkContext::InitResolver() {
  if (!params_.dns_servers.empty()) {
    CaresResolverConfig config;
    config.servers = params_.dns_servers;
    config.edns = params_.edns;
    config.attempt_timeout = params_.dns_attempt_timeout;
    // HTTPS records (RFC 9460), as Chrome asks for them; compatible records
    // are those whose ALPN set meets what this client offers over TLS.
    config.query_https = params_.https_records;
    config.https_tls_alpns = params_.session.ssl_config.alpn_protos;
    // An HTTP/3 client: h3 makes a record compatible too (RFC 9460 7.1.2;
    // a record offering only h3 is then not used for TCP: the transaction
    // ignores it there).
    if (params_.h3_from_https_records) config.https_tls_alpns.push_back("h3");
    absl::StatusOr<std::unique_ptr<CaresHostResolver>> cares =
        CaresHostResolver::Create(config);
    if (!cares.ok()) return cares.status();
    for (const ResolveOverride& entry : params_.resolve_overrides)
      (*cares)->AddOverride(entry);
    resolver_ = *std::move(cares);
    return absl::OkStatus();
  }
  auto system = std::make_unique<SystemHostResolver>(worker_pool_.get());
  for (const ResolveOverride& entry : params_.resolve_overrides)
    system->AddOverride(entry);
  resolver_ = std::move(system);
  return absl::OkStatus();
}

// The revocation filter: the files the params name go into the profile's
// store (which a persistent profile loaded its saved filter into).
absl::Status NetworkContext::InitRevocationFilter() {
  RevocationFilterStore* filters = profile_->revocation_filter();
  if (!params_.revocation_filter_file.empty()) {
    absl::Status status =
        filters->InstallFilterFile(params_.revocation_filter_file);
    if (!status.ok()) return status;
  }
  for (const std::string& path : params_.revocation_stash_files) {
    absl::Status status = filters->InstallStashFile(path);
    if (!status.ok()) return status;
  }
  if (params_.revocation == RevocationPolicy::Mode::kFilter &&
      !filters->has_filter()) {
    return absl::FailedPreconditionError(
        "revocation mode filter needs a revocation filter: none given "
        "(revocation_filter_file; fetch --revocation-filter FILE) and none "
        "saved in the profile");
  }
  return absl::OkStatus();
}

// Revocation: fetches on the plain-HTTP session (so fetching an OCSP
// response never itself needs a revocation check, and carries no cookies),
// the profile's cache and revocation filter, and the checker behind the
// verifier.
void NetworkContext::InitRevocation() {
  RevocationPolicy policy;
  policy.mode = params_.revocation;
  // Off: nothing fetched, but a stapled answer still counts (a revoked
  // staple is an error), so the checker runs without a fetcher.
  if (params_.revocation != RevocationPolicy::Mode::kOff) {
    revocation_fetcher_ = std::make_unique<HttpUrlFetcher>(plain_session_.get(),
                                                           absl::Seconds(5));
  }
  RevocationFilterStore* filters = profile_->revocation_filter();
  revocation_checker_ = std::make_unique<OcspCrlRevocationChecker>(
      policy, revocation_fetcher_.get(), profile_->revocation_cache(),
      worker_pool_.get(), filters->has_filter() ? filters : nullptr);
  verifier_->set_revocation_checker(revocation_checker_.get());
}

// OBCs: one key pool, one store per profile (memory only for a private
// profile), a provider in the TLS config.
absl::Status NetworkContext::InitObc() {
  if (!params_.obc_algorithm) return absl::OkStatus();
  const KeyAlgorithm algorithm = *params_.obc_algorithm;
  KeyPool::Options pool_options;
  // Replacing the key a page load just took must not compete with that page
  // load for the CPU (an RSA-2048 key is tens of ms): the refill starts a
  // second after the last key was taken, on a thread of its own at
  // background priority (nice 10, as Chromium's background threads; raising
  // one's own niceness needs no privilege, and if it fails refills just run
  // at normal priority). A request that finds the pool empty still gets its
  // key made at once on the normal workers.
  refill_pool_ = std::make_unique<WorkerPool>(1);
  refill_pool_->PostTask([] {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  });
  pool_options.refill_workers = refill_pool_.get();
  pool_options.refill_delay = absl::Seconds(1);
  pool_options.target_depth = {0, 0, 0, 0};
  pool_options.target_depth[static_cast<size_t>(algorithm)] =
      params_.obc_pool_depth >= 0             ? params_.obc_pool_depth
      : algorithm == KeyAlgorithm::kEcdsaP256 ? 4
                                              : 2;
  key_pool_ = std::make_unique<KeyPool>(worker_pool_.get(), pool_options);
  OriginBoundCertStore::Options store_options;
  store_options.private_profile = !profile_->persistent();
  store_options.profile_dir = profile_->dir();
  store_options.scope_mode = params_.obc_scope;
  absl::StatusOr<std::unique_ptr<OriginBoundCertStore>> store =
      OriginBoundCertStore::Open(store_options, key_pool_.get(),
                                 worker_pool_.get());
  if (!store.ok())
    return absl::Status(
        store.status().code(),
        absl::StrCat("origin-bound certificates: ", store.status().message()));
  obc_store_ = *std::move(store);
  obc_provider_ =
      std::make_unique<ObcClientCertProvider>(obc_store_.get(), algorithm);
  return absl::OkStatus();
}

// Device bound sessions: the service over the profile's store and jar, its
// session keys from the OBC key pool (one of its own, a single P-256 key
// deep, when OBCs are off or their pool keeps no P-256 key ready), its POSTs as
// URLRequests on a context without the delegate (never deferred themselves) and
// without the visit recorder (not navigations).
void NetworkContext::InitDeviceBoundSessions() {
  if (!params_.device_bound_sessions || !profile_->cookie_jar() ||
      !profile_->device_bound_sessions())
    return;
  KeyPool* pool = key_pool_.get();
  // The OBC pool when it keeps P-256 keys ready; otherwise a pool of its own,
  // so an OBC pool the embedder sized (0: generate on demand) stays as asked.
  if (!pool || pool->target_depth(KeyAlgorithm::kEcdsaP256) < 1) {
    KeyPool::Options options;
    options.target_depth = {1, 0, 0, 0};
    dbsc_key_pool_ = std::make_unique<KeyPool>(worker_pool_.get(), options);
    pool = dbsc_key_pool_.get();
  }
  dbsc_request_context_.http_session = http_session_.get();
  dbsc_request_context_.cookie_jar = profile_->cookie_jar();
  // A request held for a refresh should not wait longer than the user
  // allowed any request (fetch -m).
  absl::Duration timeout = params_.dbsc_fetch_timeout;
  if (params_.session.request_timeout > absl::ZeroDuration())
    timeout = std::min(timeout, params_.session.request_timeout);
  dbsc_fetcher_ = std::make_unique<UrlRequestSessionFetcher>(
      &dbsc_request_context_, timeout,
      static_cast<int64_t>(kMaxInstructionsBytes));
  dbsc_service_ = std::make_unique<SessionService>(
      SessionServiceOptions(), profile_->device_bound_sessions(),
      profile_->cookie_jar(), pool, dbsc_fetcher_.get());
  request_context_.device_bound_sessions = dbsc_service_.get();
}

// Snap Start: one client context; its server information persists in the
// profile unless it is private. Chains loaded from disk are re-verified
// before a socket predicts with them.
absl::Status NetworkContext::InitSnapStart() {
  if (!params_.snap_start) return absl::OkStatus();
  if (!session_verifier_)
    return absl::FailedPreconditionError(
        "Snap Start needs certificate verification (trust anchors)");
  SnapStartClientOptions options;
  options.state_file = profile_->PathFor(Profile::kSnapStartFileName);
  absl::StatusOr<std::unique_ptr<SnapStartClientContext>> context =
      SnapStartClientContext::Create(session_verifier_.get(), options);
  if (!context.ok())
    return absl::Status(
        context.status().code(),
        absl::StrCat("snap start: ", context.status().message()));
  snap_start_context_ = *std::move(context);
  return absl::OkStatus();
}

// Certificate-bundle prefetching: the sources (plain-HTTP fetches through
// the world's rewrites, bounded to a bundle's size), the profile's cache,
// the prefetcher on the DNS prefetcher's observer list, and an orbit
// learner (truncated handshakes only) for Snap Start.
absl::Status NetworkContext::InitBundlePrefetch() {
  const bool prefetch = !params_.bundle_sources.empty();
  const bool learn = snap_start_context_ != nullptr;
  if (!prefetch && !learn) return absl::OkStatus();
  absl::StatusOr<PrefetchCache> cache = PrefetchCache::Load(
      profile_->PathFor(PrefetchCache::kFileName), absl::Now());
  if (!cache.ok())
    return absl::Status(cache.status().code(),
                        absl::StrCat("profile: ", cache.status().message()));
  prefetch_cache_ = std::make_unique<PrefetchCache>(*std::move(cache));
  bundle_fetcher_ = std::make_unique<HttpUrlFetcher>(
      plain_session_.get(), absl::Seconds(5), kMaxBundleFileBytes);
  observer_ = std::make_unique<Observer>(this);
  bundle_sources_.push_back(std::make_unique<DnsBundleSource>(
      resolver_.get(), bundle_fetcher_.get()));
  bundle_sources_.push_back(
      std::make_unique<WellKnownBundleSource>(bundle_fetcher_.get()));
  bundle_sources_.push_back(std::make_unique<CdnBundleSource>(
      bundle_fetcher_.get(), params_.bundle_cdns));
  bundle_sources_.push_back(std::make_unique<TruncatedBundleSource>(
      resolver_.get(), socket_factory_, params_.session.connect_timeout,
      params_.session.tcp_fast_open, &params_.session.connect_to,
      observer_.get()));
  std::vector<BundleSource*> sources;
  for (const auto& source : bundle_sources_) sources.push_back(source.get());
  if (prefetch) {
    CertPrefetcherOptions options;
    options.source_order = params_.bundle_sources;
    options.prevalidate = params_.bundle_prevalidate;
    cert_prefetcher_ = std::make_unique<CertPrefetcher>(
        options, sources, prevalidator_.get(), prefetch_cache_.get());
    for (const auto& [host, port] : params_.prefetch_ports)
      cert_prefetcher_->SetPort(host, port);
    cert_prefetcher_->set_observer(observer_.get());
  }
  if (learn) {
    // The learner's bundles are not the trace's prefetched ones: it writes
    // to a cache of its own (memory only) and only feeds Snap Start.
    CertPrefetcherOptions options;
    options.source_order = {BundleSourceType::kTruncated};
    options.prevalidate = true;
    learner_cache_ = std::make_unique<PrefetchCache>();
    orbit_learner_ = std::make_unique<CertPrefetcher>(
        options, sources, prevalidator_.get(), learner_cache_.get());
    orbit_learner_->set_observer(observer_.get());
  }
  return absl::OkStatus();
}

void NetworkContext::WhenIdle(absl::AnyInvocable<void()> done) {
  // DNS first (its completions start bundle jobs), then bundles (their
  // completions feed Snap Start), then orbit learning.
  dns_prefetcher_->WhenIdle([this, done = std::move(done)]() mutable {
    // Device bound session registrations and refreshes last: nothing
    // above starts them, and the profile is saved after them.
    auto after_probes = [this, done = std::move(done)]() mutable {
      if (!dbsc_service_) return std::move(done)();
      dbsc_service_->WhenIdle(std::move(done));
    };
    // Bundles' completions start RTT probes: those after the bundles.
    auto after_learning = [this, done = std::move(after_probes)]() mutable {
      if (!rtt_prober_) return std::move(done)();
      rtt_prober_->WhenIdle(std::move(done));
    };
    auto after_bundles = [this, done = std::move(after_learning)]() mutable {
      if (!orbit_learner_) return std::move(done)();
      orbit_learner_->WhenIdle(std::move(done));
    };
    auto after_preconnects = [this, after_bundles =
                                        std::move(after_bundles)]() mutable {
      if (!cert_prefetcher_) return after_bundles();
      cert_prefetcher_->WhenIdle(std::move(after_bundles));
    };
    if (!preconnector_) return after_preconnects();
    preconnector_->WhenIdle(std::move(after_preconnects));
  });
}

CertVerifier* NetworkContext::cert_verifier() {
  return session_verifier_.get();
}

std::unique_ptr<URLRequest> NetworkContext::CreateRequest(
    const Url& url, URLRequest::Delegate* delegate,
    URLRequest::Options options) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  return std::make_unique<URLRequest>(&request_context_, url, delegate,
                                      options);
}

void NetworkContext::Prefetch(const std::vector<std::string>& hosts,
                              absl::AnyInvocable<void()> done) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  dns_prefetcher_->Prefetch(hosts);
  WhenIdle(std::move(done));
}

std::vector<std::string> NetworkContext::StartupHosts(size_t n) const {
  return profile_->host_history()->TopHosts(n);
}

void NetworkContext::RecordVisit(const std::string& host) {
  profile_->host_history()->RecordVisit(host, absl::Now());
}

std::vector<std::string> NetworkContext::PrefetchLinks(
    absl::string_view page, const Url& page_url,
    absl::AnyInvocable<void()> done) {
  std::vector<std::string> hosts = ExtractLinkHosts(page, page_url);
  if (!hosts.empty()) Prefetch(hosts, std::move(done));
  return hosts;
}

int NetworkContext::ConnectTransport(const std::string& host, uint16_t port,
                                     std::unique_ptr<StreamSocket>* out_socket,
                                     CompletionOnceCallback callback,
                                     std::unique_ptr<Request>* out_request) {
  auto job = std::make_unique<ConnectJob>(this, host, port);
  ConnectJob* raw = job.get();
  int rv =
      raw->Start([raw, out_socket, cb = std::move(callback)](int rv) mutable {
        if (rv == OK) *out_socket = raw->TakeSocket();
        std::move(cb)(rv);
      });
  if (rv == OK) *out_socket = raw->TakeSocket();
  if (rv == ERR_IO_PENDING) *out_request = std::move(job);
  return rv;
}

int NetworkContext::PrevalidateHost(const std::string& host, uint16_t port,
                                    CompletionOnceCallback callback,
                                    std::unique_ptr<Request>* out_request,
                                    std::string* error_detail) {
  if (!prevalidator_) {
    if (error_detail)
      *error_detail = "prevalidation needs trust anchors: " + trust_error_;
    return ERR_CERT_AUTHORITY_INVALID;
  }
  auto job =
      std::make_unique<PrevalidateRequest>(this, host, port, error_detail);
  int rv = job->Start(std::move(callback));
  if (rv == ERR_IO_PENDING) *out_request = std::move(job);
  return rv;
}

int NetworkContext::WaitForObcKeys(CompletionOnceCallback callback) {
  if (!key_pool_) return OK;
  return key_pool_->WaitUntilFull(std::move(callback));
}

int NetworkContext::FlushObcs(CompletionOnceCallback callback) {
  if (!obc_store_) return OK;
  return obc_store_->Flush(std::move(callback));
}

void NetworkContext::Shutdown(absl::AnyInvocable<void(absl::Status)> done) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // Idle first: work still running (learning an orbit, a bundle job) may
  // change the stores about to be saved.
  WhenIdle([this, done = std::move(done)]() mutable {
    auto save = [this, done = std::move(done)](int flushed) mutable {
      absl::Status status;
      if (flushed != OK) {
        status = absl::Status(
            absl::StatusCode::kDataLoss,
            absl::StrCat("origin-bound certificates: ",
                         obc_store_->last_write_status().message()));
      }
      absl::Status saved = SaveProfile();
      if (!saved.ok()) {
        status =
            status.ok()
                ? absl::Status(saved.code(),
                               absl::StrCat("profile: ", saved.message()))
                : absl::Status(status.code(),
                               absl::StrCat(status.message(),
                                            "; profile: ", saved.message()));
      }
      std::move(done)(std::move(status));
    };
    // FlushObcs' callback shares this one's fate: the store is the
    // context's, and the context outlives what it runs.
    auto shared = std::make_shared<decltype(save)>(std::move(save));
    int rv = FlushObcs([shared](int rv) { (*shared)(rv); });
    if (rv != ERR_IO_PENDING) (*shared)(rv);
  });
}

std::vector<LoadTiming> NetworkContext::TakeDeviceBoundSessionTraces() {
  if (!dbsc_service_) return {};
  return dbsc_service_->TakeTraces();
}

absl::Status NetworkContext::SaveProfile() {
  absl::Status status = profile_->Save(absl::Now());
  if (prefetch_cache_) {
    absl::Status cache =
        prefetch_cache_->Save(profile_->PathFor(PrefetchCache::kFileName));
    if (!cache.ok())
      status = status.ok() ? cache
                           : absl::Status(status.code(),
                                          absl::StrCat(status.message(), "; ",
                                                       cache.message()));
  }
  return status;
}

}  // namespace net
