// fetch: a curl-like client for the networking stack. See kFetchUsage.
//
// A thin command line over net/context's NetworkContext and the URLRequests
// it makes (redirects, cookies and body limits are theirs). Runs every URL
// --repeat times; each repetition starts --parallel requests per URL at
// once, and closes idle connections first, so repetitions after the first
// show TLS resumption. Streams the body of one successful response per URL
// to the output as it arrives, and writes the traces if asked. The
// presentation (-v, -w, trace files, outputs, compare mode, probes) is in
// this folder's own files.

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "net/context/network_context.h"
#include "net/timing/har.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request.h"
#include "tools/fetch/compare.h"
#include "tools/fetch/cookie_file.h"
#include "tools/fetch/curl_flags.h"
#include "tools/fetch/exit_codes.h"
#include "tools/fetch/fetch_options.h"
#include "tools/fetch/fetch_params.h"
#include "tools/fetch/messages.h"
#include "tools/fetch/output_files.h"
#include "tools/fetch/prefetch_steps.h"
#include "tools/fetch/retry.h"
#include "tools/fetch/snap_start_probes.h"
#include "tools/fetch/trace_files.h"
#include "tools/fetch/transfer.h"
#include "tools/fetch/verbose_log.h"

namespace net {
namespace {

class FetchRunner {
 public:
  explicit FetchRunner(const FetchOptions& options)
      : options_(options),
        prefetch_log_(&std::cerr),
        header_dump_(options.dump_header_file) {}

  // Compare mode: also hand each transfer's final trace entry to |sink|.
  void set_completed_sink(std::vector<LoadTiming>* sink) { completed_ = sink; }

  int Run() {
    bool needs_verifier = false;
    for (const std::string& u : options_.urls) {
      absl::StatusOr<Url> url = Url::Parse(u);
      if (!url.ok()) return Error(url.status().message(), kExitBadUrl);
      needs_verifier |= url->SchemeIsCryptographic();
      urls_.push_back(*url);
    }
    absl::StatusOr<NetworkContextParams> params =
        MakeNetworkContextParams(options_, urls_);
    if (!params.ok()) return Error(params.status().message(), kExitUsage);
    absl::StatusOr<std::unique_ptr<NetworkContext>> context =
        NetworkContext::Create(*std::move(params));
    if (!context.ok()) return Error(context.status().message(), kExitUsage);
    context_ = *std::move(context);
    if (needs_verifier && !context_->cert_verifier() && !options_.insecure)
      return Error(absl::StrCat("trust anchors: ", context_->trust_error(),
                                " (give --cacert FILE, --system-trust, "
                                "--world FILE or -k)"),
                   kExitUsage);
    absl::Status cookies = LoadCookies();
    if (!cookies.ok()) return Error(cookies.message(), kExitUsage);
    prefetch_log_.verbose = options_.verbose;
    context_->dns_prefetcher()->AddObserver(&prefetch_log_);
    // The run is one thread blocking on one event loop, run until what it
    // waits for quits it.
    if (options_.obc_warm && context_->WaitForObcKeys([this](int) {
          loop_.Quit();
        }) == ERR_IO_PENDING)
      loop_.Run();
    if (options_.snap_start_probe)
      return RunSnapStartProbes(context_.get(), &loop_, urls_, Quiet());
    if (absl::optional<std::string> error = outputs_.Init(options_, urls_))
      return Error(*error, kExitWriteError);

    // Startup list (the profile's most visited hosts), then explicit hosts.
    std::vector<std::string> startup = context_->StartupHosts(kStartupHosts);
    startup.insert(startup.end(), options_.prefetch_hosts.begin(),
                   options_.prefetch_hosts.end());
    if (options_.preconnect && startup.empty() && !options_.prefetch_links)
      Warn(
          "--preconnect does nothing here: no host to prefetch (give "
          "--prefetch HOST, --prefetch-links, or a --profile that has one)");
    PrefetchAndWait(context_.get(), &loop_, startup, "startup/--prefetch",
                    options_.verbose);
    if (!options_.prevalidate_hosts.empty() && !context_->prevalidator())
      return Error("--prevalidate needs trust anchors", kExitUsage);
    for (const std::string& host : options_.prevalidate_hosts)
      PrevalidateAndWait(context_.get(), &loop_, host, urls_, options_.verbose,
                         Quiet());

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
        RunWithRetries(batch, round == 0 && options_.prefetch_links);
        for (const std::unique_ptr<Transfer>& fetch : current_) {
          int code = ReportTransfer(options_, *fetch, round,
                                    outputs_.Name(fetch->url_index));
          if (exit_code == 0) exit_code = code;
          if (!options_.write_out.empty()) {
            std::vector<std::string> unknown;
            const std::string out = WriteOutFor(options_, *fetch, &unknown);
            for (const std::string& name : unknown) {
              if (warned_variables_.insert(name).second)
                Error("unknown --write-out variable: '" + name + "'", 0);
            }
            fwrite(out.data(), 1, out.size(), stdout);
            fflush(stdout);
          }
          if (completed_) completed_->push_back(fetch->timing);
          if (!WantsTraces(options_)) continue;
          for (size_t h = 0; h < fetch->hops.size(); ++h) {
            all_timings_.push_back(std::move(fetch->hops[h]));
            if (!options_.har_file.empty())
              all_extras_.push_back(std::move(fetch->hop_extras[h]));
          }
          all_timings_.push_back(std::move(fetch->timing));
          if (!options_.har_file.empty())
            all_extras_.push_back(std::move(fetch->extras));
        }
        if (options_.prefetch_links && round == 0 && current_[0]->result >= 0) {
          const Url& page = urls_[batch[0]];
          std::vector<std::string> hosts = context_->PrefetchLinks(
              current_[0]->link_body, page, [this] { loop_.Quit(); });
          WaitForPrefetch(context_.get(), &loop_, hosts,
                          "links of " + page.spec(), options_.verbose);
        }
        current_.clear();
      }
    }
    if (!outputs_.CloseAll() && exit_code == 0) exit_code = kExitWriteError;
    if (!options_.cookie_jar_file.empty() && context_->cookie_jar()) {
      absl::Status saved =
          SaveCookieFile(options_.cookie_jar_file, *context_->cookie_jar());
      if (!saved.ok()) exit_code = Error(saved.message(), kExitWriteError);
    }
    // The context finishes what visits started off the critical path
    // (learning a Snap Start orbit), writes the OBCs, saves the profile.
    absl::Status shut_down;
    context_->Shutdown([&](absl::Status status) {
      shut_down = std::move(status);
      loop_.Quit();
    });
    loop_.Run();
    if (!shut_down.ok()) {
      int code = Error(shut_down.message(), kExitWriteError);
      if (exit_code == 0) exit_code = code;
    }
    AppendContextTraces(options_, context_.get(), &all_timings_, &all_extras_);
    if (!WriteTraceFiles(options_, all_timings_, all_extras_))
      return kExitWriteError;
    return exit_code;
  }

 private:
  static constexpr size_t kStartupHosts = 10;
  // What --prefetch-links looks at of a page.
  static constexpr size_t kMaxLinkBody = 1 << 20;
  static constexpr int kReadSize = 32 * 1024;
  // Synchronous reads in a row before the read loop yields to the event
  // loop, so timers and the other transfers run while a body streams in.
  static constexpr int kReadsPerTurn = 16;

  // The one error path (messages.h).
  int Error(absl::string_view message, int code) {
    return ReportError(options_, message, code);
  }
  void Warn(absl::string_view message) { ReportWarning(options_, message); }
  bool Quiet() const { return options_.silent && !options_.show_error; }

  // -b FILE (curl turns its cookie engine on) and -c FILE need the jar.
  absl::Status LoadCookies() {
    if (options_.cookie_files.empty() && options_.cookie_jar_file.empty())
      return absl::OkStatus();
    if (!context_->cookie_jar())
      return absl::InvalidArgumentError("-b FILE and -c need cookies on");
    std::vector<std::string> refused;
    absl::Status status = LoadCookieFiles(options_.cookie_files,
                                          context_->cookie_jar(), &refused);
    for (const std::string& r : refused) Warn("cookie file: " + r);
    return status;
  }

  // A batch, again while a lone transfer ends in curl's transient outcomes
  // (--retry); as curl, each attempt's body is written.
  void RunWithRetries(const std::vector<size_t>& batch, bool keep_links) {
    const TimeTicks start = TimeTicks::Now();
    for (int attempt = 0;; ++attempt) {
      RunBatch(batch, keep_links);
      if (current_.size() != 1) return;
      const Transfer& f = *current_[0];
      const HttpResponseHeaders* h = f.request->response_headers();
      std::string why;
      std::optional<absl::Duration> delay =
          RetryDelay(options_, f.result, f.timing.status_code,
                     h ? h->GetHeader("retry-after").value_or("") : "", attempt,
                     TimeTicks::Now() - start, &why);
      if (!delay) return;
      Warn(absl::StrCat("Problem : ", why, ". Will retry in ",
                        absl::ToInt64Seconds(*delay), " seconds. ",
                        options_.retry - attempt, " retries left."));
      loop_.PostDelayedTask(*delay, [this] { loop_.Quit(); });
      loop_.Run();
      current_.clear();
      printed_[batch[0]] = false;
    }
  }

  void OnResponseStarted(Transfer* f, int rv) {
    if (rv != OK) return Done(f, rv);
    const HttpResponseHeaders* h = f->request->response_headers();
    const int status = h->status_code();
    // Nothing of a response --fail fails on (curl writes none).
    const bool withheld = options_.fail_on_http_error && status >= 400;
    // The first final response of a URL to arrive is the one printed.
    if (!printed_[f->url_index] && !withheld) {
      printed_[f->url_index] = true;
      f->printing = true;
      const bool to_output = options_.head || options_.include_headers;
      if (to_output || !options_.dump_header_file.empty()) {
        const std::string heads = ResponseHeads(*f->request);
        if ((to_output && !outputs_.Write(f->url_index, heads)) ||
            !header_dump_.Write(heads))
          return Done(f, ERR_FAILED, /*write_error=*/true);
      }
    }
    f->progress = std::make_unique<ProgressMeter>(
        f->printing && !options_.silent && !options_.no_progress_meter,
        h->content_length());
    f->buf = std::make_shared<IOBuffer>(kReadSize);
    ReadBody(f);
  }

  void RunBatch(const std::vector<size_t>& url_indexes, bool keep_links) {
    pending_ = options_.parallel * static_cast<int>(url_indexes.size());
    keep_links_ = keep_links;
    ++batch_;
    for (int i = 0; i < pending_; ++i) {
      auto f = std::make_unique<Transfer>();
      f->on_response_started = [this](Transfer* t, int rv) {
        OnResponseStarted(t, rv);
      };
      f->on_read_completed = [this](Transfer* t, int rv) {
        if (HandleBodyBytes(t, rv)) ReadBody(t);
      };
      f->index = i;
      f->url_index = url_indexes[i / options_.parallel];
      outputs_.TransferStarted(f->url_index);
      f->request = context_->CreateRequest(urls_[f->url_index], f.get(),
                                           RequestOptionsFor(options_));
      ConfigureRequest(options_, f->request.get());
      current_.push_back(std::move(f));
    }
    for (const std::unique_ptr<Transfer>& f : current_) f->request->Start();
    if (pending_ > 0) loop_.Run();
  }

  // Reads until the body ends, fails or would block; yields to the event
  // loop every kReadsPerTurn synchronous reads.
  void ReadBody(Transfer* f) {
    for (int i = 0; i < kReadsPerTurn; ++i) {
      int rv = f->request->Read(f->buf, kReadSize);
      if (rv == ERR_IO_PENDING) return;
      if (!HandleBodyBytes(f, rv)) return;
    }
    loop_.PostTask([this, batch = batch_, i = f->index] {
      if (batch == batch_ && current_[i]->result == ERR_IO_PENDING)
        ReadBody(current_[i].get());
    });
  }

  // Takes one Read result; returns whether to read on.
  bool HandleBodyBytes(Transfer* f, int rv) {
    if (rv <= 0) {
      Done(f, rv);
      return false;
    }
    f->body_bytes += rv;
    absl::string_view chunk(f->buf->data(), rv);
    if (keep_links_ && f->index == 0 && f->link_body.size() < kMaxLinkBody)
      f->link_body.append(
          chunk.data(),
          std::min(chunk.size(), kMaxLinkBody - f->link_body.size()));
    if (f->printing && !options_.head && !outputs_.Write(f->url_index, chunk)) {
      Done(f, ERR_FAILED, /*write_error=*/true);
      return false;
    }
    f->progress->Update(f->body_bytes, /*done=*/false);
    return true;
  }

  void Done(Transfer* f, int rv, bool write_error = false) {
    if (write_error) f->request->Cancel();  // the rest is of no use
    f->RecordOutcome(options_, rv, write_error);
    if (f->progress) f->progress->Update(f->body_bytes, /*done=*/true);
    // An empty body still makes its -o file, as curl does.
    if (f->printing && rv >= 0 && !write_error &&
        !outputs_.Write(f->url_index, ""))
      f->write_error = true;
    f->buf.reset();
    // The URL's last transfer in flight closes its file (a close that
    // fails, e.g. on a full disk, is a write error: exit 23).
    if (!outputs_.TransferEnded(f->url_index)) f->write_error = true;
    if (--pending_ == 0) loop_.Quit();
  }

  const FetchOptions options_;
  EventLoop loop_;
  std::vector<Url> urls_;
  std::unique_ptr<NetworkContext> context_;
  PrefetchLog prefetch_log_;
  OutputFiles outputs_;
  HeaderDump header_dump_;
  std::set<std::string> warned_variables_;  // -w's unknown names, told once
  std::vector<std::unique_ptr<Transfer>> current_;
  int batch_ = 0;  // which batch current_ holds
  std::vector<bool> printed_;
  bool keep_links_ = false;
  int pending_ = 0;
  std::vector<LoadTiming>* completed_ = nullptr;
  std::vector<LoadTiming> all_timings_;
  std::vector<HarEntryExtras> all_extras_;  // parallel to all_timings_, --har
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
    if (a == "--version" || a == "-V") {
      std::cout << net::FetchVersion();
      return 0;
    }
  }
  absl::StatusOr<net::FetchOptions> options = net::ParseFetchOptions(args);
  if (!options.ok()) {
    // As curl: two lines, whatever -s says; the hint only for a flag.
    std::cerr << "fetch: " << options.status().message() << "\n"
              << (absl::IsInvalidArgument(options.status())
                      ? "fetch: try 'fetch --help' for more information\n"
                      : "");
    return net::kExitUsage;
  }
  if (!options->compare.empty()) {
    return net::RunCompare(
        *options, args,
        [](const net::FetchOptions& side,
           std::vector<net::LoadTiming>* completed) {
          net::FetchRunner runner(side);
          runner.set_completed_sink(completed);
          return runner.Run();
        },
        std::cout);
  }
  net::FetchRunner runner(*options);
  return runner.Run();
}
