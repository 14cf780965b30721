// fetch: a curl-like client for the networking stack. See kFetchUsage.
//
// Runs every URL --repeat times; each repetition starts --parallel
// transactions per URL at once, and closes idle connections first, so
// repetitions after the first show TLS resumption. Prints the body of the
// first successful response per URL, and the trace if asked.

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/origin_bound_cert_store.h"
#include "cert/prevalidator.h"
#include "cert/revocation_checker.h"
#include "dns/cares_host_resolver.h"
#include "dns/dns_prefetcher.h"
#include "dns/host_history.h"
#include "dns/host_resolver.h"
#include "net/base/event_loop.h"
#include "net/base/worker_pool.h"
#include "net/http/cookie_jar.h"
#include "net/http/http_network_session.h"
#include "net/http/http_network_transaction.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/snap_start/snap_start_probe.h"
#include "net/ssl/ssl_client_socket.h"
#include "net/timing/load_timing.h"
#include "tools/fetch/fetch_options.h"
#include "tools/netem/connect_delay_socket_factory.h"

namespace net {
namespace {

int ExitCodeForError(int error) {
  switch (error) {
    case OK:
      return 0;
    case ERR_INVALID_URL:
    case ERR_UNKNOWN_URL_SCHEME:
      return 3;
    case ERR_NAME_NOT_RESOLVED:
    case ERR_DNS_TIMED_OUT:
    case ERR_DNS_SERVER_FAILED:
    case ERR_DNS_MALFORMED_RESPONSE:
      return 6;
    case ERR_CONNECTION_REFUSED:
    case ERR_CONNECTION_FAILED:
    case ERR_ADDRESS_UNREACHABLE:
    case ERR_ADDRESS_INVALID:
      return 7;
    case ERR_INVALID_HTTP_RESPONSE:
    case ERR_RESPONSE_HEADERS_TOO_BIG:
    case ERR_INVALID_CHUNKED_ENCODING:
    case ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH:
      return 8;
    case ERR_CONTENT_LENGTH_MISMATCH:
    case ERR_INCOMPLETE_CHUNKED_ENCODING:
      return 18;
    case ERR_TIMED_OUT:
    case ERR_CONNECTION_TIMED_OUT:
      return 28;
    case ERR_EMPTY_RESPONSE:
      return 52;
    default:
      break;
  }
  if (error <= -200 && error > -300) return 60;  // Certificate errors.
  if (error <= -500 && error > -600) return 35;  // TLS.
  if (error == ERR_SSL_PROTOCOL_ERROR ||
      error == ERR_SSL_VERSION_OR_CIPHER_MISMATCH ||
      error == ERR_SSL_HANDSHAKE_CLOSED ||
      error == ERR_SSL_BAD_RECORD_MAC_ALERT ||
      error == ERR_SSL_CLIENT_AUTH_CERT_NEEDED)
    return 35;
  return 1;
}

// One transaction and what it read.
struct Fetch {
  size_t url_index = 0;
  std::unique_ptr<HttpNetworkTransaction> transaction;
  std::string body;
  int result = ERR_IO_PENDING;
  LoadTiming timing;
  std::string error_detail;
  std::string headers;
};

class FetchRunner {
 public:
  explicit FetchRunner(const FetchOptions& options)
      : options_(options), pool_(2) {}

  int Run() {
    auto verifier = BasicCertVerifier::Create(options_.trust_anchors,
                                              options_.system_trust_store);
    bool needs_verifier = false;
    for (const std::string& u : options_.urls) {
      absl::StatusOr<Url> url = Url::Parse(u);
      if (!url.ok()) {
        std::cerr << "fetch: " << url.status().message() << "\n";
        return 3;
      }
      needs_verifier |= url->SchemeIsCryptographic();
      urls_.push_back(*url);
    }
    if (!verifier.ok()) {
      if (needs_verifier) {
        std::cerr
            << "fetch: trust anchors: " << verifier.status().message()
            << " (give --trust-anchor FILE, --system-trust or --world FILE)\n";
        return 2;
      }
    } else {
      verifier_ = std::move(*verifier);
    }
    if (!SetUpResolver()) return 2;

    HttpNetworkSessionParams params;
    params.connect_timeout = options_.connect_timeout;
    params.request_timeout = options_.max_time;
    params.ssl_config.version_min = options_.tls_min;
    params.ssl_config.version_max = options_.tls_max;
    params.ssl_config.false_start_enabled = options_.false_start;
    params.ssl_config.coalesce_handshakes = options_.coalesce_handshakes;
    params.ssl_config.cipher_list = options_.ciphers;
    socket_factory_ = std::make_unique<ConnectDelaySocketFactory>(
        ClientSocketFactory::GetDefaultFactory());
    if (options_.emulate_connect_rtt) {
      for (const WorldLink& link : options_.links) {
        std::optional<IPAddress> ip = IPAddress::Parse(link.address);
        if (ip)
          socket_factory_->AddLink(IPEndPoint(*ip, link.port),
                                   absl::Milliseconds(link.rtt_ms));
      }
    }
    SetUpRevocation(params);
    if (!SetUpCookies(&params)) return 2;
    if (!SetUpObc(&params)) return 2;
    if (verifier_) {
      verifier_->set_worker_pool(&pool_);
      prevalidator_ = std::make_unique<Prevalidator>(verifier_.get());
      session_verifier_ = std::make_unique<PrevalidatedCertVerifier>(
          prevalidator_.get(), verifier_.get());
    }
    if (options_.snap_start_probe) return RunSnapStartProbes();
    if (!SetUpSnapStart(&params)) return 2;
    session_ = std::make_unique<HttpNetworkSession>(params, resolver_.get(),
                                                    socket_factory_.get(),
                                                    session_verifier_.get());

    if (!options_.output_file.empty()) {
      out_ = fopen(options_.output_file.c_str(), "wb");
      if (!out_) {
        std::cerr << "fetch: cannot write " << options_.output_file << "\n";
        return 23;
      }
    }

    HostHistory history;
    std::string history_path;
    if (!options_.profile_dir.empty()) {
      history_path = options_.profile_dir + "/" + HostHistory::kFileName;
      if (!options_.private_profile) mkdir(options_.profile_dir.c_str(), 0700);
      absl::StatusOr<HostHistory> loaded = HostHistory::Load(history_path);
      if (!loaded.ok()) {
        std::cerr << "fetch: profile: " << loaded.status().message() << "\n";
        return 2;
      }
      history = std::move(*loaded);
      revocation_cache_path_ = options_.profile_dir + "/revocation_cache";
      absl::StatusOr<RevocationCache> cache =
          RevocationCache::Load(revocation_cache_path_);
      if (!cache.ok()) {
        std::cerr << "fetch: profile: " << cache.status().message() << "\n";
        return 2;
      }
      revocation_cache_ = std::move(*cache);
    }
    prefetcher_ = std::make_unique<DnsPrefetcher>(resolver_.get());
    prefetcher_->AddObserver(&prefetch_log_);
    // Startup list (the profile's most visited hosts), then explicit hosts.
    std::vector<std::string> startup = history.TopHosts(kStartupHosts);
    startup.insert(startup.end(), options_.prefetch_hosts.begin(),
                   options_.prefetch_hosts.end());
    RunPrefetch(startup, "startup/--prefetch");
    for (const std::string& host : options_.prevalidate_hosts) {
      if (!Prevalidate(host)) return 2;
    }

    int exit_code = 0;
    std::vector<bool> printed(urls_.size(), false);
    for (int round = 0; round < options_.repeat; ++round) {
      if (round > 0 && options_.repeat_interval > absl::ZeroDuration()) {
        loop_.PostDelayedTask(options_.repeat_interval,
                              [this] { loop_.Quit(); });
        loop_.Run();
      }
      // Each repetition opens new connections, so it shows resumption.
      session_->CloseIdleSockets();
      for (size_t u = 0; u < urls_.size(); ++u) {
        RunParallel(u);
        for (Fetch& fetch : current_) {
          int code = Report(fetch, round, &printed);
          if (exit_code == 0) exit_code = code;
          all_timings_.push_back(fetch.timing);
          if (fetch.result >= 0)
            history.RecordVisit(urls_[u].host(), absl::Now());
        }
        if (options_.prefetch_links && round == 0 && current_[0].result >= 0) {
          RunPrefetch(ExtractLinkHosts(current_[0].body, urls_[u]),
                      "links of " + urls_[u].spec());
        }
        current_.clear();
      }
    }
    if (out_) fclose(out_);
    FlushObcs();
    if (!history_path.empty() && !options_.private_profile) {
      absl::Status saved = history.Save(history_path);
      if (saved.ok() && revocation_checker_)
        saved = revocation_cache_.Save(revocation_cache_path_);
      if (saved.ok() && cookie_jar_ && !cookie_path_.empty() &&
          cookie_jar_->changed())
        saved = cookie_jar_->Save(cookie_path_, absl::Now());
      if (!saved.ok()) {
        std::cerr << "fetch: profile: " << saved.message() << "\n";
        if (exit_code == 0) exit_code = 23;
      }
    }
    if (!WriteTraces()) return 23;
    return exit_code;
  }

 private:
  static constexpr size_t kStartupHosts = 10;

  // Logs prefetch outcomes in verbose mode.
  class PrefetchLog : public DnsPrefetcher::Observer {
   public:
    bool verbose = false;
    void OnHostPrefetched(const std::string& host, int result,
                          const HostResolveResult& answer) override {
      if (!verbose) return;
      std::cerr << "* prefetched " << host << ": "
                << (result == OK ? "OK" : ErrorToShortString(result)) << " ("
                << answer.source << ")\n";
    }
  };

  // Revocation: a plain-HTTP session of its own (so fetching an OCSP
  // response never itself needs a revocation check), a per-profile cache in
  // memory, and the checker behind the verifier.
  void SetUpRevocation(const HttpNetworkSessionParams& params) {
    std::optional<RevocationPolicy::Mode> mode =
        ParseRevocationMode(options_.revocation);
    if (!verifier_ || !mode || *mode == RevocationPolicy::Mode::kOff) return;
    RevocationPolicy policy;
    policy.mode = *mode;
    HttpNetworkSessionParams plain = params;
    plain.request_timeout = absl::Seconds(10);
    plain.cookie_jar = nullptr;  // OCSP and CRL fetches carry no cookies.
    revocation_session_ = std::make_unique<HttpNetworkSession>(
        plain, resolver_.get(), socket_factory_.get(), verifier_.get());
    revocation_fetcher_ = std::make_unique<HttpRevocationFetcher>(
        revocation_session_.get(), absl::Seconds(5), options_.url_rewrites);
    revocation_checker_ = std::make_unique<OcspCrlRevocationChecker>(
        policy, revocation_fetcher_.get(), &revocation_cache_, &pool_);
    verifier_->set_revocation_checker(revocation_checker_.get());
  }

  // Snap Start: one client context per run; its server information persists
  // in <profile>/snap_start unless the profile is private. Chains loaded from
  // disk are re-verified before a socket predicts with them.
  bool SetUpSnapStart(HttpNetworkSessionParams* params) {
    if (!options_.snap_start) return true;
    if (!session_verifier_) {
      std::cerr << "fetch: --snap-start needs certificate verification\n";
      return false;
    }
    SnapStartClientOptions snap_options;
    if (!options_.profile_dir.empty() && !options_.private_profile) {
      mkdir(options_.profile_dir.c_str(), 0700);
      snap_options.state_file = options_.profile_dir + "/snap_start";
    }
    absl::StatusOr<std::unique_ptr<SnapStartClientContext>> context =
        SnapStartClientContext::Create(session_verifier_.get(), snap_options);
    if (!context.ok()) {
      std::cerr << "fetch: snap start: " << context.status().message() << "\n";
      return false;
    }
    snap_start_context_ = std::move(*context);
    params->snap_start_context = snap_start_context_.get();
    return true;
  }

  // --snap-start-probe: per URL, resolve, connect, run the truncated
  // handshake and print one JSON object. Exit 0 if every probe succeeded.
  int RunSnapStartProbes() {
    int exit_code = 0;
    for (const Url& url : urls_) {
      int rv = ERR_IO_PENDING;
      auto done = [this, &rv](int result) {
        rv = result;
        loop_.Quit();
      };
      HostResolveResult resolved;
      std::unique_ptr<HostResolver::Request> request;
      int r =
          resolver_->Resolve(url.host(), url.port(), &resolved, done, &request);
      if (r == ERR_IO_PENDING) {
        loop_.Run();
        r = rv;
      }
      std::string detail;
      SnapStartProbeResult result;
      if (r == OK && resolved.addresses.empty()) r = ERR_NAME_NOT_RESOLVED;
      if (r == OK) {
        std::unique_ptr<StreamSocket> tcp =
            socket_factory_->CreateTransportClientSocket(
                IPEndPoint(resolved.addresses[0], url.port()),
                options_.connect_timeout);
        rv = ERR_IO_PENDING;
        r = tcp->Connect(done);
        if (r == ERR_IO_PENDING) {
          loop_.Run();
          r = rv;
        }
        if (r == OK) {
          SnapStartProbe probe(std::move(tcp), url.host());
          rv = ERR_IO_PENDING;
          r = probe.Run(done);
          if (r == ERR_IO_PENDING) {
            loop_.Run();
            r = rv;
          }
          detail = probe.error_detail();
          result = probe.result();
        }
      }
      std::string json =
          absl::StrCat("{\"url\":\"", JsonEscape(url.spec()),
                       "\",\"result\":\"", ErrorToShortString(r), "\"");
      if (r == OK) {
        absl::StrAppend(&json, ",\"chain_length\":", result.chain_der.size(),
                        absl::StrFormat(",\"cipher_suite\":\"0x%04x\"",
                                        result.cipher_suite));
        if (result.orbit)
          absl::StrAppend(&json, ",\"orbit\":\"", OrbitToHex(*result.orbit),
                          "\"");
      } else {
        absl::StrAppend(&json, ",\"detail\":\"", JsonEscape(detail), "\"");
        std::cerr << "fetch: probe " << url.spec() << ": "
                  << ErrorToShortString(r) << " " << detail << "\n";
        exit_code = 35;
      }
      std::cout << json << "}\n";
    }
    return exit_code;
  }

  // Cookies: the profile's jar, read from <profile>/cookies.pb and written
  // back at exit; in memory only for --private or without --profile; none
  // with --no-cookies. A damaged file stops the run (exit 2) and is left as
  // it is, as the OBC store does.
  bool SetUpCookies(HttpNetworkSessionParams* params) {
    if (!options_.cookies) return true;
    if (!options_.profile_dir.empty() && !options_.private_profile) {
      cookie_path_ = options_.profile_dir + "/" + CookieJar::kFileName;
      absl::StatusOr<CookieJar> jar =
          CookieJar::Load(cookie_path_, absl::Now());
      if (!jar.ok()) {
        std::cerr << "fetch: cookies: " << jar.status().message() << "\n";
        return false;
      }
      cookie_jar_ = std::make_unique<CookieJar>(*std::move(jar));
    } else {
      cookie_jar_ = std::make_unique<CookieJar>();
    }
    params->cookie_jar = cookie_jar_.get();
    return true;
  }

  // OBCs: one key pool per process, one store per profile (memory only for
  // --private or without --profile), a provider in the TLS config.
  bool SetUpObc(HttpNetworkSessionParams* params) {
    if (options_.obc == "off") return true;
    std::optional<KeyAlgorithm> algorithm = ParseKeyAlgorithm(options_.obc);
    std::optional<ScopeMode> mode = ParseScopeMode(options_.obc_scope);
    if (!algorithm || !mode) return false;
    KeyPool::Options pool_options;
    // Replacing the key a page load just took must not compete with that
    // page load for the CPU (an RSA-2048 key is tens of ms): the refill
    // starts a second after the last key was taken, on a thread of its own
    // at background priority (nice 10, as Chromium's background threads;
    // raising one's own niceness needs no privilege, and if it fails
    // refills just run at normal priority). A request that finds the pool
    // empty still gets its key made at once on the normal workers.
    refill_pool_ = std::make_unique<WorkerPool>(1);
    refill_pool_->PostTask([] {
      setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
    });
    pool_options.refill_workers = refill_pool_.get();
    pool_options.refill_delay = absl::Seconds(1);
    pool_options.target_depth = {0, 0, 0, 0};
    pool_options.target_depth[static_cast<size_t>(*algorithm)] =
        options_.obc_pool >= 0                   ? options_.obc_pool
        : *algorithm == KeyAlgorithm::kEcdsaP256 ? 4
                                                 : 2;
    key_pool_ = std::make_unique<KeyPool>(&pool_, pool_options);
    OriginBoundCertStore::Options store_options;
    store_options.private_profile =
        options_.private_profile || options_.profile_dir.empty();
    store_options.profile_dir = options_.profile_dir;
    store_options.scope_mode = *mode;
    if (!store_options.private_profile)
      mkdir(options_.profile_dir.c_str(), 0700);
    auto store =
        OriginBoundCertStore::Open(store_options, key_pool_.get(), &pool_);
    if (!store.ok()) {
      std::cerr << "fetch: origin-bound certificates: "
                << store.status().message() << "\n";
      return false;
    }
    obc_store_ = std::move(*store);
    obc_provider_ =
        std::make_unique<ObcClientCertProvider>(obc_store_.get(), *algorithm);
    params->ssl_config.client_cert_provider = obc_provider_.get();
    if (options_.obc_warm) {
      if (key_pool_->WaitUntilFull([this](int) { loop_.Quit(); }) ==
          ERR_IO_PENDING)
        loop_.Run();
    }
    return true;
  }

  // Makes sure every OBC made in this run is on disk before exit.
  void FlushObcs() {
    if (!obc_store_) return;
    if (obc_store_->Flush([this](int) { loop_.Quit(); }) == ERR_IO_PENDING)
      loop_.Run();
  }

  bool SetUpResolver() {
    if (!options_.dns_servers.empty()) {
      CaresResolverConfig config;
      config.servers = options_.dns_servers;
      config.edns = options_.edns;
      config.attempt_timeout = options_.dns_timeout;
      absl::StatusOr<std::unique_ptr<CaresHostResolver>> cares =
          CaresHostResolver::Create(config);
      if (!cares.ok()) {
        std::cerr << "fetch: " << cares.status().message() << "\n";
        return false;
      }
      for (const ResolveOverride& entry : options_.resolve)
        (*cares)->AddOverride(entry);
      resolver_ = std::move(*cares);
    } else {
      auto system = std::make_unique<SystemHostResolver>(&pool_);
      // Explicit --resolve entries come first and win over the world's.
      for (const ResolveOverride& entry : options_.resolve)
        system->AddOverride(entry);
      resolver_ = std::move(system);
    }
    prefetch_log_.verbose = options_.verbose;
    return true;
  }

  // Records the server's chain without judging it: the probe connection of
  // --prevalidate, which only learns what the Prevalidator should check.
  class ChainRecorder : public CertVerifier {
   public:
    std::vector<std::string> chain;
    int Verify(const CertVerifyParams& params, CertVerifyResult* result,
               CompletionOnceCallback, std::unique_ptr<Request>*) override {
      chain = params.chain_der;
      result->error = OK;
      return OK;
    }
  };

  // --prevalidate HOST: learn HOST's chain with a probe handshake (its own
  // session cache, so the real fetch does a full handshake), then verify
  // and check revocation off the critical path. Returns false on a usage
  // error; a failed prevalidation only means the fetch checks on its own.
  bool Prevalidate(const std::string& host) {
    if (!prevalidator_) {
      std::cerr << "fetch: --prevalidate needs trust anchors\n";
      return false;
    }
    uint16_t port = 443;
    for (const Url& u : urls_) {
      if (u.host() == host && u.SchemeIsCryptographic()) port = u.port();
    }
    ChainRecorder recorder;
    SSLClientContext probe_context(&recorder);
    HostResolveResult resolved;
    std::unique_ptr<HostResolver::Request> resolve_request;
    std::unique_ptr<StreamSocket> socket;
    int result = ERR_IO_PENDING;
    auto done = [&](int rv) {
      result = rv;
      loop_.Quit();
    };
    auto wait = [&](int rv) {
      if (rv == ERR_IO_PENDING) {
        result = ERR_IO_PENDING;
        loop_.Run();
        return result;
      }
      return rv;
    };
    int rv =
        wait(resolver_->Resolve(host, port, &resolved, done, &resolve_request));
    if (rv == OK && resolved.addresses.empty()) rv = ERR_NAME_NOT_RESOLVED;
    if (rv == OK) {
      socket = socket_factory_->CreateTransportClientSocket(
          IPEndPoint(resolved.addresses[0], port), options_.connect_timeout);
      rv = wait(socket->Connect(done));
    }
    if (rv == OK) {
      SSLConfig config;
      config.session_resumption_enabled = false;
      socket = std::make_unique<SSLClientSocket>(std::move(socket), host, port,
                                                 config, &probe_context);
      rv = wait(socket->Connect(done));
    }
    socket.reset();
    if (rv != OK || recorder.chain.empty()) {
      std::cerr << "fetch: --prevalidate " << host
                << ": probe failed: " << ErrorToShortString(rv) << "\n";
      return true;
    }
    TimeTicks start = TimeTicks::Now();
    prevalidator_->Prevalidate(recorder.chain, host, done);
    rv = wait(ERR_IO_PENDING);
    if (options_.verbose || rv != OK) {
      std::cerr << "* prevalidated " << host << ": " << ErrorToShortString(rv)
                << " in "
                << absl::ToDoubleMilliseconds(TimeTicks::Now() - start)
                << " ms\n";
    }
    return true;
  }

  // Prefetches |hosts| and waits until every lookup has finished.
  void RunPrefetch(const std::vector<std::string>& hosts,
                   const std::string& why) {
    if (hosts.empty()) return;
    if (options_.verbose)
      std::cerr << "* prefetching " << hosts.size() << " host(s): " << why
                << "\n";
    prefetcher_->Prefetch(hosts);
    prefetcher_->WhenIdle([this] { loop_.Quit(); });
    loop_.Run();
  }

  void RunParallel(size_t url_index) {
    pending_ = options_.parallel;
    current_.resize(options_.parallel);
    for (Fetch& fetch : current_) {
      fetch.url_index = url_index;
      fetch.transaction =
          std::make_unique<HttpNetworkTransaction>(session_.get());
      HttpRequestInfo request;
      request.url = urls_[url_index];
      request.method = options_.head ? "HEAD" : "GET";
      request.extra_headers = options_.headers;
      Fetch* f = &fetch;
      int rv = fetch.transaction->Start(
          request, [this, f](int rv) { OnStarted(f, rv); });
      if (rv != ERR_IO_PENDING) OnStarted(f, rv);
    }
    if (pending_ > 0) loop_.Run();
  }

  void OnStarted(Fetch* f, int rv) {
    if (rv != OK) {
      Done(f, rv);
      return;
    }
    if (const HttpResponseHeaders* h = f->transaction->response_headers())
      f->headers = h->raw();
    ReadBody(f);
  }

  void ReadBody(Fetch* f) {
    for (;;) {
      auto buf = std::make_shared<IOBuffer>(32 * 1024);
      int rv = f->transaction->Read(buf, 32 * 1024, [this, f, buf](int rv) {
        if (rv > 0) {
          f->body.append(buf->data(), rv);
          ReadBody(f);
        } else {
          Done(f, rv);
        }
      });
      if (rv == ERR_IO_PENDING) return;
      if (rv <= 0) {
        Done(f, rv);
        return;
      }
      f->body.append(buf->data(), rv);
    }
  }

  void Done(Fetch* f, int rv) {
    f->result = rv;
    f->timing = f->transaction->load_timing();
    f->timing.net_error = rv;
    f->error_detail = f->transaction->error_detail();
    // Keep the transaction until the round ends: the parser may hold the
    // socket it is returning to the idle pool.
    if (--pending_ == 0) loop_.Quit();
  }

  int Report(const Fetch& f, int round, std::vector<bool>* printed) {
    const LoadTiming& t = f.timing;
    if (options_.verbose) {
      std::cerr << "* " << t.url << " (round " << round + 1 << ")\n";
      if (!t.remote_address.empty())
        std::cerr << "* " << (t.socket_reused ? "Reusing" : "Connected to")
                  << " " << t.remote_address << " (dns: " << t.dns_source
                  << ")\n";
      if (t.https && !t.ssl.version.empty()) {
        std::cerr << "* TLS " << t.ssl.version << " " << t.ssl.cipher
                  << (t.ssl.group.empty() ? "" : " " + t.ssl.group)
                  << " alpn=" << (t.ssl.alpn.empty() ? "-" : t.ssl.alpn)
                  << (t.ssl.resumed ? " resumed" : " full-handshake")
                  << (t.ssl.false_start ? " false-start" : "")
                  << (t.ssl.waited_for_session
                          ? " (waited for a coalesced session)"
                          : "")
                  << "\n";
        if (t.ssl.obc.source != ObcSource::kNone) {
          std::cerr << "* OBC " << ObcSourceToString(t.ssl.obc.source) << " "
                    << KeyAlgorithmToString(t.ssl.obc.algorithm) << " "
                    << t.ssl.obc.ElapsedMs() << " ms\n";
        }
      }
      if (!f.transaction->cookie_header_sent().empty())
        std::cerr << "> Cookie: " << f.transaction->cookie_header_sent()
                  << "\n";
      if (!f.headers.empty())
        std::cerr << "< " << absl::StrReplaceAll(f.headers, {{"\n", "\n< "}})
                  << "\n";
      for (const std::string& why : f.transaction->rejected_cookies())
        std::cerr << "* cookie ignored: " << why << "\n";
      std::cerr << "* trace " << LoadTimingToJson(t) << "\n";
    }
    if (f.result < 0) {
      std::cerr << "fetch: " << t.url << ": " << ErrorToShortString(f.result)
                << " (" << f.result << ")"
                << (f.error_detail.empty() ? "" : ": ") << f.error_detail
                << "\n";
      return ExitCodeForError(f.result);
    }
    if (!(*printed)[f.url_index]) {
      (*printed)[f.url_index] = true;
      FILE* out = out_ ? out_ : stdout;
      const std::string& text = options_.head ? f.headers : f.body;
      if (fwrite(text.data(), 1, text.size(), out) != text.size()) return 23;
      fflush(out);
    }
    if (options_.fail_on_http_error && t.status_code >= 400) {
      std::cerr << "fetch: " << t.url << ": HTTP status " << t.status_code
                << "\n";
      return 22;
    }
    return 0;
  }

  bool WriteTraces() {
    if (!options_.trace_json_file.empty()) {
      std::string lines;
      for (const LoadTiming& t : all_timings_)
        lines += LoadTimingToJson(t) + "\n";
      if (options_.trace_json_file == "-") {
        std::cout << lines << std::flush;
      } else {
        std::ofstream file(options_.trace_json_file);
        file << lines;
        if (!file) {
          std::cerr << "fetch: cannot write " << options_.trace_json_file
                    << "\n";
          return false;
        }
      }
    }
    if (!options_.trace_events_file.empty()) {
      std::ofstream file(options_.trace_events_file);
      file << LoadTimingsToTraceEvents(all_timings_) << "\n";
      if (!file) {
        std::cerr << "fetch: cannot write " << options_.trace_events_file
                  << "\n";
        return false;
      }
    }
    return true;
  }

  const FetchOptions options_;
  EventLoop loop_;
  WorkerPool pool_;
  std::vector<Url> urls_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<HostResolver> resolver_;
  std::unique_ptr<DnsPrefetcher> prefetcher_;
  PrefetchLog prefetch_log_;
  std::unique_ptr<ConnectDelaySocketFactory> socket_factory_;
  std::unique_ptr<HttpNetworkSession> session_;
  std::unique_ptr<HttpNetworkSession> revocation_session_;
  std::unique_ptr<HttpRevocationFetcher> revocation_fetcher_;
  RevocationCache revocation_cache_;
  std::string revocation_cache_path_;
  std::unique_ptr<OcspCrlRevocationChecker> revocation_checker_;
  std::unique_ptr<Prevalidator> prevalidator_;
  std::unique_ptr<WorkerPool> refill_pool_;  // outlives key_pool_
  std::unique_ptr<KeyPool> key_pool_;
  std::unique_ptr<OriginBoundCertStore> obc_store_;
  std::unique_ptr<ObcClientCertProvider> obc_provider_;
  std::unique_ptr<CookieJar> cookie_jar_;
  std::unique_ptr<SnapStartClientContext> snap_start_context_;
  std::string cookie_path_;  // empty: the jar is not saved
  std::unique_ptr<PrevalidatedCertVerifier> session_verifier_;
  std::vector<Fetch> current_;
  int pending_ = 0;
  std::vector<LoadTiming> all_timings_;
  FILE* out_ = nullptr;
};

}  // namespace
}  // namespace net

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << net::kFetchUsage;
      return 0;
    }
  }
  absl::StatusOr<net::FetchOptions> options = net::ParseFetchOptions(args);
  if (!options.ok()) {
    std::cerr << "fetch: " << options.status().message() << "\n"
              << net::kFetchUsage;
    return 2;
  }
  net::FetchRunner runner(*options);
  return runner.Run();
}
