#include "net/device_bound_sessions/session_fetcher.h"

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/base/event_loop.h"
#include "net/base/io_buffer.h"
#include "net/base/weak_ptr.h"
#include "net/device_bound_sessions/session.h"

namespace net {

// RequestImpl: one URLRequest, read to its end, with a timer over the
// whole of it.
class UrlRequestSessionFetcher::RequestImpl : public SessionFetcher::Request,
                                              public URLRequest::Delegate {
 public:
  RequestImpl(const URLRequestContext* context, const Url& url,
              HttpHeaderList headers, int64_t max_body_bytes, Callback callback)
      : callback_(std::move(callback)) {
    URLRequest::Options options;
    options.max_body_bytes = max_body_bytes;
    request_ = std::make_unique<URLRequest>(context, url, this, options);
    request_->set_method("POST");
    request_->SetExtraRequestHeaders(std::move(headers));
  }

  void Start(absl::Duration timeout) {
    timer_.Start(timeout, [this, timeout] {
      request_->Cancel();
      Finish(ERR_TIMED_OUT,
             absl::StrCat("no answer within ", absl::FormatDuration(timeout)));
    });
    request_->Start();
  }

  // The draft follows redirects, but a proof and a session id are for the
  // site that asked: a redirect to another site ends the POST instead.
  void OnReceivedRedirect(URLRequest* request, const RedirectInfo& redirect,
                          bool* defer_redirect) override {
    if (IsSameSite(redirect.new_url.GetOrigin(),
                   request->original_url().GetOrigin()))
      return;
    *defer_redirect = true;
    request->Cancel();
    Finish(ERR_UNSAFE_REDIRECT, absl::StrCat("a redirect to another site: ",
                                             redirect.new_url.spec()));
  }

  void OnResponseStarted(URLRequest* request, int net_error) override {
    if (net_error != OK) return Finish(net_error, request->error_detail());
    ReadAll();
  }
  void OnReadCompleted(URLRequest* request, int bytes_read) override {
    if (bytes_read <= 0) return Finish(bytes_read, request->error_detail());
    body_.append(buf_->data(), bytes_read);
    ReadAll();
  }

 private:
  static constexpr int kReadSize = 16 * 1024;

  void ReadAll() {
    for (;;) {
      int rv = request_->Read(buf_, kReadSize);
      if (rv == ERR_IO_PENDING) return;
      if (rv <= 0) return Finish(rv, request_->error_detail());
      body_.append(buf_->data(), rv);
    }
  }

  // Ends the fetch: the callback runs from a task, so that it never runs
  // inside the URLRequest's own delegate call (and may destroy this).
  void Finish(int rv, std::string detail) {
    if (finished_) return;
    finished_ = true;
    timer_.Stop();
    SessionFetchResult result;
    result.net_error = rv;
    result.error_detail = rv == OK ? "" : std::move(detail);
    if (const HttpResponseHeaders* headers = request_->response_headers())
      result.headers = *headers;
    if (rv != OK) result.headers.reset();
    result.body = std::move(body_);
    result.url = request_->url();
    result.timing = request_->load_timing();
    result.timing.net_error = rv;
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(),
                                    result = std::move(result)]() mutable {
      if (!weak) return;
      // The callback may destroy this request: it is moved out first.
      Callback callback = std::move(weak->callback_);
      std::move(callback)(std::move(result));
    });
  }

  Callback callback_;
  std::unique_ptr<URLRequest> request_;
  std::shared_ptr<IOBuffer> buf_ = std::make_shared<IOBuffer>(kReadSize);
  std::string body_;
  OneShotTimer timer_;
  bool finished_ = false;
  WeakPtrFactory<RequestImpl> weak_factory_{this};
};

UrlRequestSessionFetcher::UrlRequestSessionFetcher(
    const URLRequestContext* context, absl::Duration timeout,
    int64_t max_body_bytes)
    : context_(context), timeout_(timeout), max_body_bytes_(max_body_bytes) {
  NET_DCHECK(context_->device_bound_sessions == nullptr);
}

void UrlRequestSessionFetcher::Post(const Url& url, HttpHeaderList headers,
                                    Callback callback,
                                    std::unique_ptr<Request>* out_request) {
  auto request = std::make_unique<RequestImpl>(
      context_, url, std::move(headers), max_body_bytes_, std::move(callback));
  request->Start(timeout_);
  *out_request = std::move(request);
}

}  // namespace net
