// Transfer: one of fetch's requests — a URLRequest made from the command
// line (method, body, headers, redirects, --max-filesize), the state of its
// body on the way to the output, and, once it ends, what the run keeps and
// reports of it: every hop's trace entry (and HAR extras), the response
// head, the error and its detail. Owned by fetch's runner, one per URL and
// --parallel copy of a batch; the request's events go to the runner through
// the two callbacks.

#ifndef TOOLS_FETCH_TRANSFER_H_
#define TOOLS_FETCH_TRANSFER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "net/timing/har.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request.h"
#include "tools/fetch/fetch_options.h"
#include "tools/fetch/output_files.h"

namespace net {

// RequestOptionsFor: the URLRequest options of fetch's requests: -L,
// --max-redirs, --max-filesize, and a navigation (each counts as a visit).
URLRequest::Options RequestOptionsFor(const FetchOptions& options);
// ConfigureRequest sets -X/-I/-d's method, -d's body (form-encoded unless
// -H says otherwise) and the -H headers on |request|.
void ConfigureRequest(const FetchOptions& options, URLRequest* request);

struct Transfer : public URLRequest::Delegate {
  void OnResponseStarted(URLRequest* request, int net_error) override {
    on_response_started(this, net_error);
  }
  void OnReadCompleted(URLRequest* request, int bytes_read) override {
    on_read_completed(this, bytes_read);
  }

  // RecordOutcome keeps what the run reports of the ended request: the
  // result |rv| (with |write_error|, the output failed), the trace of every
  // hop (without the certificates' bytes), HAR extras with --har, the
  // response head, where an unfollowed redirect pointed, the error detail.
  void RecordOutcome(const FetchOptions& options, int rv, bool write_error);

  absl::AnyInvocable<void(Transfer*, int)> on_response_started;
  absl::AnyInvocable<void(Transfer*, int)> on_read_completed;
  size_t index = 0;  // in the batch
  size_t url_index = 0;
  std::unique_ptr<URLRequest> request;
  std::shared_ptr<IOBuffer> buf;
  bool printing = false;  // this transfer streams its URL's body
  std::string link_body;  // the page's start, for --prefetch-links
  int64_t body_bytes = 0;
  std::unique_ptr<ProgressMeter> progress;

  // The outcome.
  int result = ERR_IO_PENDING;
  bool write_error = false;
  std::string error_detail;
  std::string headers;       // the final response head
  std::string redirect_url;  // where it redirected to, not followed
  LoadTiming timing;         // the final hop's
  std::vector<LoadTiming> hops;
  std::vector<HarEntryExtras> hop_extras;  // --har only
  HarEntryExtras extras;                   // the final hop's, --har only
};

// ReportTransfer says what happened to |transfer| on stderr (-v, and its
// error unless -s) and returns its exit code (exit_codes.h; 22 for --fail,
// 23 for a write error). |output| names its output in messages.
int ReportTransfer(const FetchOptions& options, const Transfer& transfer,
                   int round, const std::string& output);

// ResponseHeads: every response head of |request| so far, redirects first
// (what -i and -D print, as curl with -L).
std::string ResponseHeads(const URLRequest& request);

// WriteOutFor is -w's text for |transfer|.
// Variables it does not know go to |*unknown|.
std::string WriteOutFor(const FetchOptions& options, const Transfer& transfer,
                        std::vector<std::string>* unknown);

}  // namespace net

#endif  // TOOLS_FETCH_TRANSFER_H_
