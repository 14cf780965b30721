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
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "net/context/network_context.h"
#include "net/timing/har.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request.h"
#include "tools/fetch/compare.h"
#include "tools/fetch/fetch_options.h"
#include "tools/fetch/fetch_params.h"
#include "tools/fetch/output_files.h"
#include "tools/fetch/snap_start_probes.h"
#include "tools/fetch/trace_files.h"
#include "tools/fetch/transfer.h"
#include "tools/fetch/verbose_log.h"

namespace net {
namespace {

class FetchRunner {
 public:
  explicit FetchRunner(const FetchOptions& options)
      : options_(options), prefetch_log_(&std::cerr) {}

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
    absl::StatusOr<NetworkContextParams> params =
        MakeNetworkContextParams(options_, urls_);
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
    if (options_.snap_start_probe)
      return RunSnapStartProbes(context_.get(), &loop_, urls_);
    if (absl::optional<std::string> error = outputs_.Init(options_, urls_)) {
      Error(*error);
      return 23;
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
        RunBatch(batch, round == 0 && options_.prefetch_links);
        for (const std::unique_ptr<Transfer>& fetch : current_) {
          int code = ReportTransfer(options_, *fetch, round,
                                    outputs_.Name(fetch->url_index));
          if (exit_code == 0) exit_code = code;
          if (!options_.write_out.empty()) {
            const std::string out = WriteOutFor(options_, *fetch);
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
          WaitForPrefetch(hosts, "links of " + page.spec());
        }
        current_.clear();
      }
    }
    if (!outputs_.CloseAll() && exit_code == 0) exit_code = 23;
    // The context finishes what visits started off the critical path
    // (learning a Snap Start orbit), writes the OBCs, saves the profile.
    absl::Status shut_down;
    context_->Shutdown([&](absl::Status status) {
      shut_down = std::move(status);
      loop_.Quit();
    });
    loop_.Run();
    if (!shut_down.ok()) {
      std::cerr << "fetch: " << shut_down.message() << "\n";
      if (exit_code == 0) exit_code = 23;
    }
    if (!WriteTraceFiles(options_, all_timings_, all_extras_)) return 23;
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

  // --prevalidate HOST: the context learns HOST's chain with a probe
  // handshake, then verifies it and checks revocation off the critical
  // path. False on a usage error; a failed prevalidation only means the
  // fetch checks on its own.
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
    context_->Prefetch(hosts, [this] { loop_.Quit(); });
    WaitForPrefetch(hosts, why);
  }
  // Runs the loop until the prefetch of |hosts| (started, its callback
  // quitting the loop) is done; says what it did when verbose.
  void WaitForPrefetch(const std::vector<std::string>& hosts,
                       const std::string& why) {
    if (hosts.empty()) return;
    if (options_.verbose)
      std::cerr << "* prefetching " << hosts.size() << " host(s): " << why
                << "\n";
    loop_.Run();
    if (options_.verbose) PrintBundleRecords(std::cerr, context_.get(), hosts);
  }

  // Error messages go to stderr unless -s (and not -S).
  void Error(const std::string& message) {
    if (options_.silent && !options_.show_error) return;
    std::cerr << "fetch: " << message << "\n";
  }

  void OnResponseStarted(Transfer* f, int rv) {
    if (rv != OK) return Done(f, rv);
    const HttpResponseHeaders* h = f->request->response_headers();
    // The first final response of a URL to arrive is the one printed.
    if (!printed_[f->url_index]) {
      printed_[f->url_index] = true;
      f->printing = true;
      if (options_.head && !outputs_.Write(f->url_index, h->raw()))
        return Done(f, ERR_FAILED, /*write_error=*/true);
    }
    f->progress = std::make_unique<ProgressMeter>(
        f->printing && !options_.silent, h->content_length());
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
  std::vector<std::unique_ptr<Transfer>> current_;
  int batch_ = 0;  // which batch current_ holds
  std::vector<bool> printed_;
  bool keep_links_ = false;
  int pending_ = 0;
  int wait_result_ = OK;
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
  }
  absl::StatusOr<net::FetchOptions> options = net::ParseFetchOptions(args);
  if (!options.ok()) {
    std::cerr << "fetch: " << options.status().message() << "\n"
              << net::kFetchUsage;
    return 2;
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
