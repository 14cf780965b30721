// fetch: a curl-like client for the networking stack. See kFetchUsage.
//
// A thin command line over net/context's NetworkContext, which builds and
// owns the stack. Runs every URL --repeat times; each repetition starts
// --parallel transactions per URL at once, and closes idle connections
// first, so repetitions after the first show TLS resumption. Streams the
// body of one successful response per URL to the output as it arrives, and
// prints the trace if asked.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "cert/obc/obc_types.h"
#include "dns/dns_prefetcher.h"
#include "net/base/event_loop.h"
#include "net/context/network_context.h"
#include "net/http/default_client_socket_factory.h"
#include "net/snap_start/snap_start_probe.h"
#include "net/ssl/cert_compression.h"
#include "net/timing/har.h"
#include "net/timing/load_timing.h"
#include "net/timing/waterfall.h"
#include "prefetch/bundle_source.h"
#include "prefetch/cert_prefetcher.h"
#include "tools/fetch/exit_codes.h"
#include "tools/fetch/fetch_options.h"

namespace net {
namespace {

// One transfer (a URL, its redirects followed) and what the run keeps of it.
struct Fetch {
  size_t url_index = 0;
  // The current hop.
  Url url;
  std::string method;
  std::string upload_body;
  std::unique_ptr<HttpNetworkTransaction> transaction;
  // Earlier hops: their timings (the trace has one entry per hop) and
  // transactions (kept until the round ends: a parser may hold the socket
  // it is returning to the idle pool).
  std::vector<LoadTiming> hops;
  std::vector<HarEntryExtras> hop_extras;  // --har only
  std::vector<std::unique_ptr<HttpNetworkTransaction>> finished;
  int redirects = 0;
  // The current hop is a redirect being drained; where it points.
  std::optional<Url> next_url;
  // The final response's Location when it was not followed.
  std::string redirect_url;
  std::shared_ptr<IOBuffer> buf;
  // This transfer streams its body to the output (one per URL).
  bool printing = false;
  // The start of the body, kept only for --prefetch-links.
  std::string link_body;
  int64_t body_bytes = 0;
  int64_t content_length = -1;
  TimeTicks body_start;
  TimeTicks progress_drawn;
  int result = ERR_IO_PENDING;
  LoadTiming timing;
  std::string error_detail;
  std::string headers;
  bool write_error = false;
  HarEntryExtras extras;  // the final hop's, --har only
};

class FetchRunner {
 public:
  explicit FetchRunner(const FetchOptions& options) : options_(options) {}

  // Compare mode: also hand each transfer's final trace entry to |sink|.
  void set_completed_sink(std::vector<LoadTiming>* sink) { completed_ = sink; }

  int Run() {
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
    absl::StatusOr<NetworkContextParams> params = MakeParams();
    if (!params.ok()) {
      std::cerr << "fetch: " << params.status().message() << "\n";
      return 2;
    }
    absl::StatusOr<std::unique_ptr<NetworkContext>> context =
        NetworkContext::Create(*std::move(params));
    if (!context.ok()) {
      std::cerr << "fetch: " << context.status().message() << "\n";
      return 2;
    }
    context_ = *std::move(context);
    if (needs_verifier && !context_->cert_verifier()) {
      std::cerr
          << "fetch: trust anchors: " << context_->trust_error()
          << " (give --trust-anchor FILE, --system-trust or --world FILE)\n";
      return 2;
    }
    prefetch_log_.verbose = options_.verbose;
    context_->dns_prefetcher()->AddObserver(&prefetch_log_);
    if (options_.obc_warm) Wait(context_->WaitForObcKeys(QuitCallback()));
    if (options_.snap_start_probe) return RunSnapStartProbes();

    if (!OpenOutputs()) return 23;

    // Startup list (the profile's most visited hosts), then explicit hosts.
    std::vector<std::string> startup = context_->StartupHosts(kStartupHosts);
    startup.insert(startup.end(), options_.prefetch_hosts.begin(),
                   options_.prefetch_hosts.end());
    RunPrefetch(startup, "startup/--prefetch");
    for (const std::string& host : options_.prevalidate_hosts) {
      if (!Prevalidate(host)) return 2;
    }

    int exit_code = 0;
    printed_.assign(urls_.size(), false);
    for (int round = 0; round < options_.repeat; ++round) {
      if (round > 0 && options_.repeat_interval > absl::ZeroDuration()) {
        loop_.PostDelayedTask(options_.repeat_interval,
                              [this] { loop_.Quit(); });
        loop_.Run();
      }
      // Each repetition opens new connections, so it shows resumption. The
      // first keeps what the prefetch phase opened (--preconnect).
      if (round > 0) context_->http_session()->CloseIdleSockets();
      // One URL after another; with --concurrent or --spdy all at once
      // (HTTP/1.1 requests queue for their origin's connections; SPDY
      // requests to one origin, or pooled origins, share a session).
      std::vector<std::vector<size_t>> batches;
      for (size_t u = 0; u < urls_.size(); ++u) {
        if ((options_.spdy || options_.concurrent) && !batches.empty()) {
          batches.back().push_back(u);
        } else {
          batches.push_back({u});
        }
      }
      for (const std::vector<size_t>& batch : batches) {
        const size_t u = batch[0];
        RunParallel(batch, round == 0 && options_.prefetch_links);
        for (Fetch& fetch : current_) {
          int code = Report(fetch, round);
          if (exit_code == 0) exit_code = code;
          if (!options_.write_out.empty()) WriteOut(fetch);
          if (completed_) completed_->push_back(fetch.timing);
          if (KeepsTraces()) {
            for (size_t h = 0; h < fetch.hops.size(); ++h) {
              all_timings_.push_back(std::move(fetch.hops[h]));
              if (!options_.har_file.empty())
                all_extras_.push_back(std::move(fetch.hop_extras[h]));
            }
            all_timings_.push_back(std::move(fetch.timing));
            if (!options_.har_file.empty())
              all_extras_.push_back(std::move(fetch.extras));
          }
          if (fetch.result >= 0) context_->RecordVisit(fetch.url.host());
        }
        if (options_.prefetch_links && round == 0 && current_[0].result >= 0) {
          RunPrefetch(ExtractLinkHosts(current_[0].link_body, urls_[u]),
                      "links of " + urls_[u].spec());
        }
        current_.clear();
      }
    }
    for (FILE*& out : outs_) {
      if (out && fclose(out) != 0 && exit_code == 0) exit_code = 23;
      out = nullptr;
    }
    // Work the visits started off the critical path (learning a Snap Start
    // orbit) finishes before the profile is saved.
    context_->WhenIdle([this] { loop_.Quit(); });
    loop_.Run();
    Wait(context_->FlushObcs(QuitCallback()));
    absl::Status saved = context_->SaveProfile();
    if (!saved.ok()) {
      std::cerr << "fetch: profile: " << saved.message() << "\n";
      if (exit_code == 0) exit_code = 23;
    }
    if (!WriteTraces()) return 23;
    return exit_code;
  }

 private:
  static constexpr size_t kStartupHosts = 10;
  // What --prefetch-links looks at of a page.
  static constexpr size_t kMaxLinkBody = 1 << 20;
  static constexpr int kReadSize = 32 * 1024;
  // Synchronous reads in a row before the read loop yields to the event
  // loop, so timers (--max-time) run while a body streams in.
  static constexpr int kReadsPerTurn = 16;

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

  // The command line, as the context's parameters.
  absl::StatusOr<NetworkContextParams> MakeParams() {
    NetworkContextParams params;
    params.trust_anchor_files = options_.trust_anchors;
    params.system_trust_store = options_.system_trust_store;
    params.dns_servers = options_.dns_servers;
    params.edns = options_.edns;
    params.dns_attempt_timeout = options_.dns_timeout;
    params.resolve_overrides = options_.resolve;
    params.session.connect_timeout = options_.connect_timeout;
    params.session.request_timeout = options_.max_time;
    params.session.max_sockets_per_group =
        static_cast<size_t>(options_.max_conns_per_host);
    params.session.ssl_config.version_min = options_.tls_min;
    params.session.ssl_config.version_max = options_.tls_max;
    params.session.ssl_config.false_start_enabled = options_.false_start;
    params.session.ssl_config.coalesce_handshakes =
        options_.coalesce_handshakes;
    params.session.ssl_config.cipher_list = options_.ciphers;
    params.session.ssl_config.early_data_enabled = options_.early_data;
    params.session.tcp_fast_open = options_.tcp_fast_open;
    if (options_.spdy)
      params.session.ssl_config.alpn_protos = {"spdy/3", "http/1.1"};
    absl::StatusOr<std::vector<CertCompressionAlgorithm>> cert_compression =
        ParseCertCompressionList(options_.cert_compression);
    if (!cert_compression.ok()) return cert_compression.status();
    params.session.ssl_config.cert_compression = *cert_compression;
    std::optional<RevocationPolicy::Mode> mode =
        ParseRevocationMode(options_.revocation);
    if (!mode)
      return absl::InvalidArgumentError(
          absl::StrCat("--revocation: unknown mode ", options_.revocation));
    params.revocation = *mode;
    params.url_rewrites = options_.url_rewrites;
    if (options_.obc != "off") {
      std::optional<KeyAlgorithm> algorithm = ParseKeyAlgorithm(options_.obc);
      std::optional<ScopeMode> scope = ParseScopeMode(options_.obc_scope);
      if (!algorithm)
        return absl::InvalidArgumentError(
            absl::StrCat("--obc: unknown algorithm ", options_.obc));
      if (!scope)
        return absl::InvalidArgumentError(
            absl::StrCat("--obc-scope: unknown scope ", options_.obc_scope));
      params.obc_algorithm = *algorithm;
      params.obc_scope = *scope;
      params.obc_pool_depth = options_.obc_pool;
    }
    if (!options_.bundle_sources.empty()) {
      absl::StatusOr<std::vector<BundleSourceType>> sources =
          ParseBundleSourceList(options_.bundle_sources);
      if (!sources.ok())
        return absl::InvalidArgumentError(
            absl::StrCat("--bundle-sources: ", sources.status().message()));
      params.bundle_sources = *sources;
    }
    params.bundle_cdns = options_.bundle_cdns;
    params.bundle_prevalidate = options_.bundle_prevalidation;
    params.prefetch_ports = options_.prefetch_ports;
    for (const Url& url : urls_) {
      if (url.SchemeIsCryptographic())
        params.prefetch_ports.emplace(url.host(), url.port());
    }
    params.preconnect = options_.preconnect;
    params.snap_start = options_.snap_start;
    params.snap_start_learn_in_handshake =
        options_.snap_start_learn_in_handshake;
    params.profile_dir = options_.profile_dir;
    params.private_profile = options_.private_profile;
    params.cookies = options_.cookies;
    return params;
  }

  // The run is one thread blocking on one event loop: Wait runs the loop
  // until a pending operation's QuitCallback() fires.
  CompletionOnceCallback QuitCallback() {
    return [this](int rv) {
      wait_result_ = rv;
      loop_.Quit();
    };
  }
  int Wait(int rv) {
    if (rv != ERR_IO_PENDING) return rv;
    loop_.Run();
    return wait_result_;
  }

  // --snap-start-probe: per URL, resolve, connect, run the truncated
  // handshake and print one JSON object. Exit 0 if every probe succeeded.
  int RunSnapStartProbes() {
    int exit_code = 0;
    for (const Url& url : urls_) {
      std::unique_ptr<StreamSocket> tcp;
      std::unique_ptr<NetworkContext::Request> request;
      int r = Wait(context_->ConnectTransport(url.host(), url.port(), &tcp,
                                              QuitCallback(), &request));
      std::string detail;
      SnapStartProbeResult result;
      if (r == OK) {
        SnapStartProbe probe(std::move(tcp), url.host());
        r = Wait(probe.Run(QuitCallback()));
        detail = probe.error_detail();
        result = probe.result();
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

  // --prevalidate HOST: the context learns HOST's chain with a probe
  // handshake, then verifies it and checks revocation off the critical
  // path. Returns false on a usage error; a failed prevalidation only means
  // the fetch checks on its own.
  bool Prevalidate(const std::string& host) {
    if (!context_->prevalidator()) {
      std::cerr << "fetch: --prevalidate needs trust anchors\n";
      return false;
    }
    uint16_t port = 443;
    for (const Url& u : urls_) {
      if (u.host() == host && u.SchemeIsCryptographic()) port = u.port();
    }
    std::unique_ptr<NetworkContext::Request> request;
    std::string detail;
    TimeTicks start = TimeTicks::Now();
    int rv = Wait(context_->PrevalidateHost(host, port, QuitCallback(),
                                            &request, &detail));
    if (options_.verbose || rv != OK) {
      std::cerr << "* prevalidated " << host << ": " << ErrorToShortString(rv)
                << " in "
                << absl::ToDoubleMilliseconds(TimeTicks::Now() - start) << " ms"
                << (detail.empty() ? "" : ": ") << detail << "\n";
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
    context_->Prefetch(hosts, [this] { loop_.Quit(); });
    loop_.Run();
    if (options_.verbose && context_->cert_prefetcher()) {
      for (const std::string& host : hosts) {
        const auto& ports = context_->params().prefetch_ports;
        auto port = ports.find(host);
        const PrefetchRecord* record = context_->cert_prefetcher()->Record(
            host, port != ports.end() ? port->second : 443);
        if (!record) continue;
        std::cerr << "* bundle for " << record->host << ":" << record->port
                  << ": "
                  << (record->state == PrefetchRecord::State::kReady
                          ? absl::StrCat(
                                BundleSourceTypeToString(
                                    record->fetched.source),
                                " ", record->fetched.via,
                                record->prevalidated ? ", prevalidated" : "")
                          : std::string("none usable"))
                  << "\n";
        for (const std::string& why : record->rejected)
          std::cerr << "*   rejected: " << why << "\n";
      }
    }
  }

  bool KeepsTraces() const {
    return !options_.trace_json_file.empty() ||
           !options_.trace_events_file.empty() || !options_.har_file.empty() ||
           !options_.waterfall_file.empty();
  }

  // What HAR needs beyond the trace: the request and response heads.
  HarEntryExtras HarExtras(const Fetch& f) const {
    HarEntryExtras extras;
    const HttpNetworkTransaction& t = *f.transaction;
    extras.request_headers.emplace_back("Host", f.url.HostHeader());
    for (const auto& [name, value] : options_.headers)
      extras.request_headers.emplace_back(name, value);
    if (!t.cookie_header_sent().empty())
      extras.request_headers.emplace_back("Cookie", t.cookie_header_sent());
    extras.request_body = f.upload_body;
    if (!f.upload_body.empty())
      extras.request_body_mime_type = "application/x-www-form-urlencoded";
    if (const HttpResponseHeaders* h = t.response_headers())
      extras.response_headers_raw = h->raw();
    return extras;
  }

  // -o FILE per URL, or -O (the last segment of the URL's path), else
  // stdout (null).
  bool OpenOutputs() {
    outs_.assign(urls_.size(), nullptr);
    out_names_.assign(urls_.size(), std::string());
    out_in_flight_.assign(urls_.size(), 0);
    for (size_t u = 0; u < urls_.size(); ++u) {
      std::string name;
      if (u < options_.output_files.size()) {
        name = options_.output_files[u];
      } else if (options_.remote_name) {
        std::string path = urls_[u].PathForRequest();
        path = path.substr(0, path.find('?'));
        name = path.substr(path.rfind('/') + 1);
        if (name.empty()) {
          Error(absl::StrCat(urls_[u].spec(),
                             ": -O: the URL names no file (its path ends "
                             "in '/')"));
          return false;
        }
      }
      if (name.empty() || name == "-") continue;
      // Opened when its body starts: a run of 1,000 URLs does not hold
      // 1,000 open files (and their buffers) from the start.
      out_names_[u] = name;
    }
    return true;
  }

  // Error messages go to stderr unless -s (and not -S).
  void Error(const std::string& message) {
    if (options_.silent && !options_.show_error) return;
    std::cerr << "fetch: " << message << "\n";
  }

  void RunParallel(const std::vector<size_t>& url_indexes, bool keep_links) {
    pending_ = options_.parallel * static_cast<int>(url_indexes.size());
    current_.resize(pending_);
    keep_links_ = keep_links;
    for (size_t i = 0; i < current_.size(); ++i) {
      Fetch& fetch = current_[i];
      const size_t url_index = url_indexes[i / options_.parallel];
      fetch.url_index = url_index;
      ++out_in_flight_[url_index];
      fetch.url = urls_[url_index];
      fetch.method = !options_.method.empty() ? options_.method
                     : options_.head          ? "HEAD"
                     : options_.data          ? "POST"
                                              : "GET";
      if (options_.data) fetch.upload_body = *options_.data;
      StartHop(&fetch);
    }
    if (pending_ > 0) loop_.Run();
  }

  void StartHop(Fetch* f) {
    f->transaction = context_->CreateTransaction();
    HttpRequestInfo request;
    request.url = f->url;
    request.method = f->method;
    request.extra_headers = options_.headers;
    request.upload_body = f->upload_body;
    if (!f->upload_body.empty() && !HasHeader("content-type")) {
      request.extra_headers.emplace_back("Content-Type",
                                         "application/x-www-form-urlencoded");
    }
    int rv =
        f->transaction->Start(request, [this, f](int rv) { OnStarted(f, rv); });
    if (rv != ERR_IO_PENDING) OnStarted(f, rv);
  }

  bool HasHeader(absl::string_view name) const {
    for (const auto& [n, v] : options_.headers) {
      if (absl::EqualsIgnoreCase(n, name)) return true;
    }
    return false;
  }

  // The redirect target of a 3xx response with a Location, or nullopt.
  std::optional<Url> RedirectTarget(Fetch* f, const HttpResponseHeaders& h) {
    const int status = h.status_code();
    if (status != 301 && status != 302 && status != 303 && status != 307 &&
        status != 308)
      return std::nullopt;
    std::optional<std::string> location = h.GetHeader("location");
    if (!location) return std::nullopt;
    absl::StatusOr<Url> target = f->url.Resolve(*location);
    if (!target.ok()) return std::nullopt;
    return *target;
  }

  void OnStarted(Fetch* f, int rv) {
    if (rv != OK) {
      Done(f, rv);
      return;
    }
    const HttpResponseHeaders* h = f->transaction->response_headers();
    if (h) f->headers = h->raw();
    f->next_url.reset();
    f->redirect_url.clear();
    if (h) {
      std::optional<Url> target = RedirectTarget(f, *h);
      if (target && options_.follow_redirects) {
        if (f->redirects >= options_.max_redirs) {
          f->error_detail =
              absl::StrCat("maximum (", options_.max_redirs,
                           ") redirects followed; next: ", target->spec());
          Done(f, ERR_TOO_MANY_REDIRECTS);
          return;
        }
        f->next_url = *target;  // drain this hop's body, then follow
      } else if (target) {
        f->redirect_url = target->spec();
      }
    }
    if (!f->next_url) {
      f->content_length = h ? h->content_length() : -1;
      if (options_.max_filesize >= 0 &&
          f->content_length > options_.max_filesize) {
        Done(f, ERR_FILE_TOO_BIG);
        return;
      }
      // The first final response of a URL to arrive is the one printed.
      if (!printed_[f->url_index]) {
        printed_[f->url_index] = true;
        f->printing = true;
        if (options_.head && !Output(f, f->headers)) {
          Done(f, ERR_FAILED, /*write_error=*/true);
          return;
        }
      }
    }
    f->buf = std::make_shared<IOBuffer>(kReadSize);
    f->body_start = TimeTicks::Now();
    ReadBody(f);
  }

  // Reads until the body ends, fails or would block; yields to the event
  // loop every kReadsPerTurn synchronous reads.
  void ReadBody(Fetch* f) {
    for (int i = 0; i < kReadsPerTurn; ++i) {
      int rv = f->transaction->Read(f->buf, kReadSize,
                                    [this, f](int rv) { OnBodyRead(f, rv); });
      if (rv == ERR_IO_PENDING) return;
      if (!HandleBodyBytes(f, rv)) return;
    }
    loop_.PostTask([this, f, weak = f->transaction.get()] {
      if (f->transaction.get() == weak && f->result == ERR_IO_PENDING)
        ReadBody(f);
    });
  }

  void OnBodyRead(Fetch* f, int rv) {
    if (HandleBodyBytes(f, rv)) ReadBody(f);
  }

  // Takes one Read result; returns whether to read on.
  bool HandleBodyBytes(Fetch* f, int rv) {
    if (rv == 0 && f->next_url) {
      FollowRedirect(f);
      return false;
    }
    if (rv <= 0) {
      Done(f, rv);
      return false;
    }
    if (f->next_url) return true;  // a redirect's body is not output
    f->body_bytes += rv;
    if (options_.max_filesize >= 0 && f->body_bytes > options_.max_filesize) {
      Done(f, ERR_FILE_TOO_BIG);
      return false;
    }
    absl::string_view chunk(f->buf->data(), rv);
    if (keep_links_ && f->link_body.size() < kMaxLinkBody)
      f->link_body.append(
          chunk.data(),
          std::min(chunk.size(), kMaxLinkBody - f->link_body.size()));
    if (f->printing && !options_.head && !Output(f, chunk)) {
      Done(f, ERR_FAILED, /*write_error=*/true);
      return false;
    }
    if (f->printing) DrawProgress(f, /*done=*/false);
    return true;
  }

  // The hop was a redirect: keep its trace entry and follow it (RFC 9110
  // 15.4: 301 and 302 turn a POST into a GET, as browsers and curl do; 303
  // turns anything but HEAD into GET; 307 and 308 keep method and body). A
  // redirect to another origin gets its own connection, and with it its own
  // OBC scope.
  void FollowRedirect(Fetch* f) {
    if (!options_.har_file.empty()) f->hop_extras.push_back(HarExtras(*f));
    LoadTiming timing = f->transaction->load_timing();
    timing.ssl.cert_verify.verified_chain_der.clear();
    f->hops.push_back(std::move(timing));
    f->finished.push_back(std::move(f->transaction));
    const int status = f->hops.back().status_code;
    if ((status == 303 && f->method != "HEAD") ||
        ((status == 301 || status == 302) && f->method == "POST")) {
      f->method = "GET";
      f->upload_body.clear();
    }
    f->url = *f->next_url;
    f->next_url.reset();
    ++f->redirects;
    loop_.PostTask([this, f] { StartHop(f); });
  }

  // curl's -# look on a terminal, for bodies that take over a second.
  void DrawProgress(Fetch* f, bool done) {
    if (options_.silent || !isatty(STDERR_FILENO)) return;
    const TimeTicks now = TimeTicks::Now();
    if (!done && (now - f->body_start < absl::Seconds(1) ||
                  now - f->progress_drawn < absl::Milliseconds(100)))
      return;
    if (done && f->progress_drawn.is_null()) return;
    f->progress_drawn = now;
    constexpr int kWidth = 60;
    std::string line;
    if (f->content_length > 0) {
      double fraction =
          std::min(1.0, static_cast<double>(f->body_bytes) / f->content_length);
      line =
          absl::StrFormat("\r%-*s %5.1f%%", kWidth,
                          std::string(static_cast<int>(fraction * kWidth), '#'),
                          fraction * 100);
    } else {
      line = absl::StrFormat("\r%s %lld bytes",
                             std::string(f->body_bytes / 65536 % kWidth, '#'),
                             static_cast<long long>(f->body_bytes));
    }
    std::cerr << line << (done ? "\n" : "") << std::flush;
  }

  bool Output(Fetch* f, absl::string_view bytes) {
    FILE*& file = outs_[f->url_index];
    const std::string& name = out_names_[f->url_index];
    if (!file && !name.empty()) {
      file = fopen(name.c_str(), "wb");
      if (!file) return false;
    }
    FILE* out = file ? file : stdout;
    if (fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size())
      return false;
    return fflush(out) == 0;
  }

  void Done(Fetch* f, int rv, bool write_error = false) {
    if (!options_.har_file.empty()) f->extras = HarExtras(*f);
    f->result = rv;
    f->write_error = write_error;
    f->timing = f->transaction->load_timing();
    f->timing.net_error = rv;
    // The verified chain is the certificates' bytes: the trace does not
    // print it, and a long run must not keep a copy per request.
    f->timing.ssl.cert_verify.verified_chain_der.clear();
    f->timing.ssl.cert_verify.verified_chain_der.shrink_to_fit();
    if (rv == ERR_FILE_TOO_BIG) {
      f->error_detail = absl::StrCat("the body exceeds --max-filesize ",
                                     options_.max_filesize, " bytes");
    } else if (f->error_detail.empty()) {
      f->error_detail = f->transaction->error_detail();
    }
    if (f->printing) DrawProgress(f, /*done=*/true);
    // An empty body still makes its -o file, as curl does.
    if (f->printing && rv >= 0 && !write_error && !Output(f, "")) {
      write_error = true;
      f->write_error = true;
    }
    f->buf.reset();
    // The URL's last fetch in flight closes its file (a close that fails,
    // e.g. on a full disk, is a write error: exit 23).
    if (--out_in_flight_[f->url_index] == 0) {
      FILE*& file = outs_[f->url_index];
      if (file && fclose(file) != 0) f->write_error = true;
      file = nullptr;
    }
    // Keep the transaction until the round ends: the parser may hold the
    // socket it is returning to the idle pool.
    if (--pending_ == 0) loop_.Quit();
  }

  // -w/--write-out: curl's variables and meanings (times in seconds from
  // the start of the transfer, redirects included), plus this stack's own.
  void WriteOut(const Fetch& f) {
    const LoadTiming& t = f.timing;
    const TimeTicks start = f.hops.empty() ? t.start : f.hops.front().start;
    auto secs = [&](TimeTicks v) {
      return v.is_null()
                 ? std::string("0.000000")
                 : absl::StrFormat("%.6f", absl::ToDoubleSeconds(v - start));
    };
    int connects = t.socket_reused || t.connect_start.is_null() ? 0 : 1;
    for (const LoadTiming& hop : f.hops)
      connects += hop.socket_reused || hop.connect_start.is_null() ? 0 : 1;
    const std::string remote_ip =
        t.remote_address.substr(0, t.remote_address.rfind(':'));
    const std::string remote_port =
        t.remote_address.rfind(':') == std::string::npos
            ? ""
            : t.remote_address.substr(t.remote_address.rfind(':') + 1);
    const TimeTicks tcp_done =
        t.https && !t.ssl_start.is_null() ? t.ssl_start : t.connect_end;
    std::vector<std::pair<std::string, std::string>> vars = {
        {"http_code", absl::StrFormat("%03d", t.status_code)},
        {"response_code", absl::StrFormat("%03d", t.status_code)},
        {"time_namelookup", secs(t.dns_end)},
        {"time_connect", secs(tcp_done)},
        {"time_appconnect", t.https ? secs(t.connect_end) : "0.000000"},
        {"time_pretransfer", secs(t.request_start)},
        {"time_starttransfer", secs(t.response_start)},
        {"time_redirect", f.hops.empty() ? "0.000000" : secs(t.start)},
        {"time_total",
         secs(!t.response_end.is_null() ? t.response_end : t.failed_at)},
        {"size_download", absl::StrCat(t.body_bytes)},
        {"size_header", absl::StrCat(t.header_bytes)},
        {"num_connects", absl::StrCat(connects)},
        {"num_redirects", absl::StrCat(f.redirects)},
        {"url_effective", f.url.spec()},
        {"redirect_url", f.redirect_url},
        {"remote_ip", remote_ip},
        {"remote_port", remote_port},
        {"ssl_verify_result",
         t.https && t.ssl.cert_verify.error != OK && !t.ssl.resumed ? "1"
                                                                    : "0"},
        {"errormsg", f.result < 0 ? f.error_detail : ""},
        {"exitcode",
         absl::StrCat(f.result < 0 ? ExitCodeForError(f.result) : 0)},
        // This stack's own.
        {"snap_start", t.ssl.snap_start.empty() ? "none" : t.ssl.snap_start},
        {"cert_source", !t.https             ? "none"
                        : t.cert_bundle.used ? "prefetch"
                        : t.ssl.resumed      ? "session"
                                             : "handshake"},
        {"cert_bundle_source",
         t.cert_bundle.used ? t.cert_bundle.source : "none"},
        {"revocation_source",
         t.https ? RevocationSourceToString(t.ssl.cert_verify.revocation_source)
                 : "none"},
        {"obc_source", ObcSourceToString(t.ssl.obc.source)},
        {"tls_version", t.ssl.version},
        {"early_data", t.https ? t.ssl.early_data : "none"},
        {"tcp_fast_open", TcpFastOpenOutcomeToString(t.tcp_fast_open.outcome)},
        {"cert_compression", t.ssl.cert_compression.algorithm.empty()
                                 ? "none"
                                 : t.ssl.cert_compression.algorithm},
    };
    std::string out;
    const std::string& format = options_.write_out;
    for (size_t i = 0; i < format.size(); ++i) {
      if (format[i] == '\\' && i + 1 < format.size()) {
        char c = format[++i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        continue;
      }
      if (format.compare(i, 2, "%{") == 0) {
        size_t end = format.find('}', i);
        if (end != std::string::npos) {
          std::string name = format.substr(i + 2, end - i - 2);
          if (name == "json") {
            out += "{";
            for (size_t v = 0; v < vars.size(); ++v)
              absl::StrAppend(&out, v ? "," : "", "\"", vars[v].first, "\":\"",
                              JsonEscape(vars[v].second), "\"");
            out += "}";
          } else {
            for (const auto& [var, value] : vars) {
              if (var == name) out += value;
            }
          }
          i = end;
          continue;
        }
      }
      if (format.compare(i, 2, "%%") == 0) ++i;
      out += format[i];
    }
    fwrite(out.data(), 1, out.size(), stdout);
    fflush(stdout);
  }

  int Report(const Fetch& f, int round) {
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
                  << (t.ssl.early_data != "not_offered"
                          ? " early-data=" + t.ssl.early_data
                          : "")
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
      if (t.spdy.used) {
        std::cerr << "* SPDY stream " << t.spdy.stream_id << " on session "
                  << t.spdy.session_id << " (" << t.spdy.session
                  << "), credential slot " << t.spdy.credential_slot
                  << (t.spdy.credential_sent ? " (CREDENTIAL sent)" : "")
                  << "\n";
        if (!t.spdy.retry.empty())
          std::cerr << "* SPDY retry: " << t.spdy.retry << "\n";
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
    if (f.write_error) {
      const std::string& name = out_names_[f.url_index];
      Error(absl::StrCat(t.url, ": cannot write ",
                         name.empty() ? std::string("the output") : name));
      return 23;
    }
    if (f.result < 0) {
      Error(absl::StrCat(t.url, ": ", ErrorToShortString(f.result), " (",
                         f.result, ")", f.error_detail.empty() ? "" : ": ",
                         f.error_detail));
      return ExitCodeForError(f.result);
    }
    if (options_.fail_on_http_error && t.status_code >= 400) {
      Error(absl::StrCat(t.url, ": HTTP status ", t.status_code));
      return 22;
    }
    return 0;
  }

  bool WriteFile(const std::string& path, const std::string& text) {
    std::ofstream file(path);
    file << text;
    if (!file) Error(absl::StrCat("cannot write ", path));
    return static_cast<bool>(file);
  }

  bool WriteTraces() {
    if (!options_.har_file.empty()) {
      HarOptions har;
      har.extras = all_extras_;
      if (!WriteFile(options_.har_file, LoadTimingsToHar(all_timings_, har)))
        return false;
    }
    if (!options_.waterfall_file.empty() &&
        !WriteFile(options_.waterfall_file,
                   LoadTimingsToWaterfallSvg(all_timings_)))
      return false;
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
  std::vector<Url> urls_;
  std::unique_ptr<NetworkContext> context_;
  PrefetchLog prefetch_log_;
  std::vector<Fetch> current_;
  std::vector<bool> printed_;
  bool keep_links_ = false;
  int pending_ = 0;
  int wait_result_ = OK;
  std::vector<LoadTiming>* completed_ = nullptr;
  std::vector<LoadTiming> all_timings_;
  std::vector<HarEntryExtras> all_extras_;  // parallel to all_timings_, --har
  std::vector<std::string> out_names_;      // per URL; "": stdout
  std::vector<FILE*> outs_;                 // per URL; null: stdout/closed
  // Per URL, its fetches in flight (--parallel copies). The one fetch that
  // prints a URL's body (printed_) opens its -o file when the body starts,
  // and the URL's last fetch in flight closes it: 1,000 URLs do not hold
  // 1,000 FILE buffers, and glibc's list of open streams (walked by every
  // fopen and fclose) stays short.
  std::vector<int> out_in_flight_;
};

// SplitFlags splits a --compare flag string like a shell would for simple
// cases: whitespace separates, single and double quotes group.
absl::StatusOr<std::vector<std::string>> SplitFlags(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        current += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(current));
      current.clear();
      in_word = false;
    } else {
      current += c;
      in_word = true;
    }
  }
  if (quote)
    return absl::InvalidArgumentError(
        absl::StrCat("unbalanced quote in '", text, "'"));
  if (in_word) out.push_back(std::move(current));
  return out;
}

struct Phase {
  const char* name;
  // Milliseconds of this phase in |t|, or -1 when it did not happen.
  double (*ms)(const LoadTiming& t);
};

double Span(TimeTicks from, TimeTicks to) {
  if (from.is_null() || to.is_null()) return -1;
  return absl::ToDoubleMilliseconds(to - from);
}

const Phase kPhases[] = {
    {"dns", [](const LoadTiming& t) { return Span(t.dns_start, t.dns_end); }},
    {"tcp",
     [](const LoadTiming& t) {
       return Span(t.connect_start, t.https && !t.ssl_start.is_null()
                                        ? t.ssl_start
                                        : t.connect_end);
     }},
    {"tls",
     [](const LoadTiming& t) {
       return t.https ? Span(t.ssl_start, t.connect_end) : -1.0;
     }},
    {"request_to_first_byte",
     [](const LoadTiming& t) {
       return Span(t.request_start, t.response_start);
     }},
    {"download",
     [](const LoadTiming& t) {
       return Span(t.response_start, t.response_end);
     }},
    {"total",
     [](const LoadTiming& t) { return Span(t.start, t.response_end); }},
};

struct Stats {
  int n = 0;
  double median = 0, min = 0, max = 0;
};

Stats Summarize(std::vector<double> v) {
  Stats s;
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return x < 0; }),
          v.end());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = static_cast<int>(v.size());
  s.median = v.size() % 2 ? v[v.size() / 2]
                          : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

// --compare 'FLAGS A' 'FLAGS B' [--runs N] [--compare-out FILE.csv] URL...:
// runs A and B alternately, each run a fresh NetworkContext (nothing
// carried over unless a flag such as --profile asks), and prints per
// Resource Timing phase the median and min-max of each side and B/A.
int RunCompare(const FetchOptions& options,
               const std::vector<std::string>& args) {
  std::vector<std::string> common;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--compare") {
      i += 2;
    } else if (args[i] == "--runs" || args[i] == "--compare-out") {
      ++i;
    } else {
      common.push_back(args[i]);
    }
  }
  std::vector<std::vector<std::string>> sides;
  for (const std::string& flags : options.compare) {
    absl::StatusOr<std::vector<std::string>> split = SplitFlags(flags);
    if (!split.ok()) {
      std::cerr << "fetch: --compare: " << split.status().message() << "\n";
      return 2;
    }
    std::vector<std::string> side = *split;
    side.insert(side.end(), common.begin(), common.end());
    // The bodies are not the point; errors still print.
    side.insert(side.end(), {"-s", "-S"});
    for (size_t u = 0; u < options.urls.size(); ++u)
      side.insert(side.end(), {"-o", "/dev/null"});
    absl::StatusOr<FetchOptions> parsed = ParseFetchOptions(side);
    if (!parsed.ok()) {
      std::cerr << "fetch: --compare '" << flags
                << "': " << parsed.status().message() << "\n";
      return 2;
    }
    sides.push_back(side);
  }
  std::vector<LoadTiming> results[2];
  int failures[2] = {0, 0};
  for (int run = 0; run < options.compare_runs; ++run) {
    for (int side = 0; side < 2; ++side) {
      FetchOptions parsed = *ParseFetchOptions(sides[side]);
      std::vector<LoadTiming> completed;
      int rc;
      {
        FetchRunner runner(parsed);
        runner.set_completed_sink(&completed);
        rc = runner.Run();
      }
      if (rc != 0 || completed.empty()) {
        ++failures[side];
        continue;
      }
      // The last transfer of the run: with --repeat, the warm one.
      results[side].push_back(completed.back());
    }
  }
  std::cout << absl::StrFormat("%-22s %28s %28s %8s\n", "phase (ms)",
                               "A: median (min-max)", "B: median (min-max)",
                               "B/A");
  std::string csv =
      "phase,a_runs,a_median_ms,a_min_ms,a_max_ms,b_runs,b_median_ms,"
      "b_min_ms,b_max_ms,ratio_b_over_a\n";
  for (const Phase& phase : kPhases) {
    Stats stats[2];
    for (int side = 0; side < 2; ++side) {
      std::vector<double> values;
      for (const LoadTiming& t : results[side]) values.push_back(phase.ms(t));
      stats[side] = Summarize(values);
    }
    if (stats[0].n == 0 && stats[1].n == 0) continue;
    auto cell = [](const Stats& s) {
      return s.n == 0
                 ? std::string("-")
                 : absl::StrFormat("%.1f (%.1f-%.1f)", s.median, s.min, s.max);
    };
    std::string ratio =
        stats[0].n && stats[1].n && stats[0].median > 0
            ? absl::StrFormat("%.2f", stats[1].median / stats[0].median)
            : "-";
    std::cout << absl::StrFormat("%-22s %28s %28s %8s\n", phase.name,
                                 cell(stats[0]), cell(stats[1]), ratio);
    absl::StrAppend(&csv, phase.name, ",", stats[0].n, ",",
                    absl::StrFormat("%.3f,%.3f,%.3f", stats[0].median,
                                    stats[0].min, stats[0].max),
                    ",", stats[1].n, ",",
                    absl::StrFormat("%.3f,%.3f,%.3f", stats[1].median,
                                    stats[1].min, stats[1].max),
                    ",", ratio == "-" ? "" : ratio, "\n");
  }
  std::cout << "A: " << options.compare[0] << "\nB: " << options.compare[1]
            << "\nruns: " << results[0].size() << " + " << results[1].size()
            << " (failed: " << failures[0] << " + " << failures[1] << ")\n";
  if (!options.compare_out.empty()) {
    std::ofstream file(options.compare_out);
    file << csv;
    if (!file) {
      std::cerr << "fetch: cannot write " << options.compare_out << "\n";
      return 23;
    }
  }
  return failures[0] + failures[1] == 0 ? 0 : 1;
}

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
  if (!options->compare.empty()) return net::RunCompare(*options, args);
  net::FetchRunner runner(*options);
  return runner.Run();
}
