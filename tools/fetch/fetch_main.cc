// fetch: a curl-like client for the networking stack. See kFetchUsage.
//
// A thin command line over net/context's NetworkContext, which builds and
// owns the stack. Runs every URL --repeat times; each repetition starts
// --parallel transactions per URL at once, and closes idle connections
// first, so repetitions after the first show TLS resumption. Streams the
// body of one successful response per URL to the output as it arrives, and
// prints the trace if asked.

#include <signal.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "cert/obc/obc_types.h"
#include "dns/dns_prefetcher.h"
#include "net/base/event_loop.h"
#include "net/context/network_context.h"
#include "net/snap_start/snap_start_probe.h"
#include "net/timing/load_timing.h"
#include "prefetch/bundle_source.h"
#include "prefetch/cert_prefetcher.h"
#include "tools/fetch/fetch_options.h"
#include "tools/netem/connect_delay_socket_factory.h"

namespace net {
namespace {

// curl's exit code for --max-filesize.
constexpr int kExitFileTooBig = 63;

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
    case ERR_INVALID_CONTENT_LENGTH:
      return 8;
    case ERR_CONTENT_LENGTH_MISMATCH:
    case ERR_INCOMPLETE_CHUNKED_ENCODING:
      return 18;
    case ERR_TIMED_OUT:
    case ERR_CONNECTION_TIMED_OUT:
      return 28;
    case ERR_EMPTY_RESPONSE:
      return 52;
    case ERR_FILE_TOO_BIG:
      return kExitFileTooBig;
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

// One transaction and what the run keeps of it.
struct Fetch {
  size_t url_index = 0;
  std::unique_ptr<HttpNetworkTransaction> transaction;
  std::shared_ptr<IOBuffer> buf;
  // This fetch streams its body to the output (one per URL).
  bool printing = false;
  // The start of the body, kept only for --prefetch-links.
  std::string link_body;
  int64_t body_bytes = 0;
  int result = ERR_IO_PENDING;
  LoadTiming timing;
  std::string error_detail;
  std::string headers;
  bool write_error = false;
};

class FetchRunner {
 public:
  explicit FetchRunner(const FetchOptions& options) : options_(options) {}

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

    if (!options_.output_file.empty()) {
      out_ = fopen(options_.output_file.c_str(), "wb");
      if (!out_) {
        std::cerr << "fetch: cannot write " << options_.output_file << "\n";
        return 23;
      }
    }

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
      // Each repetition opens new connections, so it shows resumption.
      context_->http_session()->CloseIdleSockets();
      for (size_t u = 0; u < urls_.size(); ++u) {
        RunParallel(u, round == 0 && options_.prefetch_links);
        for (Fetch& fetch : current_) {
          int code = Report(fetch, round);
          if (exit_code == 0) exit_code = code;
          if (KeepsTraces()) all_timings_.push_back(std::move(fetch.timing));
          if (fetch.result >= 0) context_->RecordVisit(urls_[u].host());
        }
        if (options_.prefetch_links && round == 0 && current_[0].result >= 0) {
          RunPrefetch(ExtractLinkHosts(current_[0].link_body, urls_[u]),
                      "links of " + urls_[u].spec());
        }
        current_.clear();
      }
    }
    if (out_ && fclose(out_) != 0 && exit_code == 0) exit_code = 23;
    out_ = nullptr;
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
    params.session.ssl_config.version_min = options_.tls_min;
    params.session.ssl_config.version_max = options_.tls_max;
    params.session.ssl_config.false_start_enabled = options_.false_start;
    params.session.ssl_config.coalesce_handshakes =
        options_.coalesce_handshakes;
    params.session.ssl_config.cipher_list = options_.ciphers;
    // The world's slowed origins: fetch emulates their SYN round trip.
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
    params.socket_factory = socket_factory_.get();
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
           !options_.trace_events_file.empty();
  }

  void RunParallel(size_t url_index, bool keep_links) {
    pending_ = options_.parallel;
    current_.resize(options_.parallel);
    for (Fetch& fetch : current_) {
      fetch.url_index = url_index;
      fetch.transaction = context_->CreateTransaction();
      keep_links_ = keep_links;
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
    const HttpResponseHeaders* h = f->transaction->response_headers();
    if (h) f->headers = h->raw();
    if (options_.max_filesize >= 0 && h &&
        h->content_length() > options_.max_filesize) {
      Done(f, ERR_FILE_TOO_BIG);
      return;
    }
    // The first response of a URL to arrive is the one printed.
    if (!printed_[f->url_index]) {
      printed_[f->url_index] = true;
      f->printing = true;
      if (options_.head && !Output(f->headers)) {
        Done(f, ERR_FAILED, /*write_error=*/true);
        return;
      }
    }
    f->buf = std::make_shared<IOBuffer>(kReadSize);
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
    if (rv <= 0) {
      Done(f, rv);
      return false;
    }
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
    if (f->printing && !options_.head && !Output(chunk)) {
      Done(f, ERR_FAILED, /*write_error=*/true);
      return false;
    }
    return true;
  }

  bool Output(absl::string_view bytes) {
    FILE* out = out_ ? out_ : stdout;
    if (fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size())
      return false;
    return fflush(out) == 0;
  }

  void Done(Fetch* f, int rv, bool write_error = false) {
    f->result = rv;
    f->write_error = write_error;
    f->timing = f->transaction->load_timing();
    f->timing.net_error = rv;
    // The verified chain is the certificates' bytes: the trace does not
    // print it, and a long run must not keep a copy per request.
    f->timing.ssl.cert_verify.verified_chain_der.clear();
    f->timing.ssl.cert_verify.verified_chain_der.shrink_to_fit();
    f->error_detail = rv == ERR_FILE_TOO_BIG
                          ? absl::StrCat("the body exceeds --max-filesize ",
                                         options_.max_filesize, " bytes")
                          : f->transaction->error_detail();
    f->buf.reset();
    // Keep the transaction until the round ends: the parser may hold the
    // socket it is returning to the idle pool.
    if (--pending_ == 0) loop_.Quit();
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
    if (f.write_error) {
      // Reported below, with its own exit code.
    } else if (f.result < 0) {
      std::cerr << "fetch: " << t.url << ": " << ErrorToShortString(f.result)
                << " (" << f.result << ")"
                << (f.error_detail.empty() ? "" : ": ") << f.error_detail
                << "\n";
      return ExitCodeForError(f.result);
    }
    if (f.write_error) {
      std::cerr << "fetch: " << t.url << ": cannot write the output\n";
      return 23;
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
  std::vector<Url> urls_;
  std::unique_ptr<ConnectDelaySocketFactory> socket_factory_;
  std::unique_ptr<NetworkContext> context_;
  PrefetchLog prefetch_log_;
  std::vector<Fetch> current_;
  std::vector<bool> printed_;
  bool keep_links_ = false;
  int pending_ = 0;
  int wait_result_ = OK;
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
