#include "net/cert_net/http_url_fetcher.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/url.h"
#include "net/url_request/url_request.h"

namespace net {
namespace {

// A fetch refused before it started: the callback runs from a task, unless
// the request is destroyed first (as any request's is, when its owner goes).
class RefusedRequest : public UrlFetcher::Request {
 public:
  RefusedRequest(UrlFetcher::Callback callback, int error, std::string why) {
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(),
                                    callback = std::move(callback), error,
                                    why = std::move(why)]() mutable {
      if (weak) std::move(callback)(error, std::move(why));
    });
  }

 private:
  WeakPtrFactory<RefusedRequest> weak_factory_{this};
};

}  // namespace

// RequestImpl: one fetch as a URLRequest that follows no redirect (a
// certificate names the URL its issuer serves; a redirect is a non-200
// answer like any other) and whose body is bounded.
class HttpUrlFetcher::RequestImpl : public UrlFetcher::Request,
                                    public URLRequest::Delegate {
 public:
  RequestImpl(const URLRequestContext* context, const Url& url,
              size_t max_body_bytes, Callback callback)
      : request_(context, url, this, Options(max_body_bytes)),
        callback_(std::move(callback)) {}

  void Start(const std::string& post_body, const std::string& content_type,
             absl::Duration timeout) {
    if (!post_body.empty()) {
      request_.set_method("POST");
      request_.set_upload_body(post_body);
      request_.AddExtraRequestHeader("Content-Type", content_type);
    }
    timer_.Start(timeout, [this] {
      request_.Cancel();
      Done(ERR_TIMED_OUT);
    });
    request_.Start();
  }

  // URLRequest::Delegate:
  void OnResponseStarted(URLRequest* request, int rv) override {
    if (rv != OK) return Done(rv);
    int status = request->response_headers()->status_code();
    if (status != 200) {
      status_ = status;
      request->Cancel();
      return Done(ERR_FAILED);
    }
    Read();
  }
  void OnReadCompleted(URLRequest* request, int rv) override {
    if (Append(rv)) Read();
  }

 private:
  static URLRequest::Options Options(size_t max_body_bytes) {
    URLRequest::Options options;
    options.follow_redirects = false;
    options.max_body_bytes = static_cast<int64_t>(max_body_bytes);
    return options;
  }

  void Read() {
    for (;;) {
      int rv = request_.Read(buf_, kReadSize);
      if (rv == ERR_IO_PENDING) return;
      if (!Append(rv)) return;
    }
  }
  // Takes one Read result; returns whether to read on.
  bool Append(int rv) {
    if (rv <= 0) {
      Done(rv);
      return false;
    }
    body_.append(buf_->data(), rv);
    return true;
  }

  void Done(int rv) {
    timer_.Stop();
    if (!callback_) return;
    Callback cb = std::move(callback_);
    callback_ = nullptr;
    std::move(cb)(rv, rv == OK ? std::move(body_)
                      : status_ != 0
                          ? absl::StrCat("(HTTP status ", status_, ")")
                          : std::string());
  }

  static constexpr int kReadSize = 16 * 1024;
  URLRequest request_;
  Callback callback_;
  std::shared_ptr<IOBuffer> buf_ = std::make_shared<IOBuffer>(kReadSize);
  std::string body_;
  int status_ = 0;
  OneShotTimer timer_;
};

HttpUrlFetcher::HttpUrlFetcher(HttpNetworkSession* session,
                               absl::Duration timeout, size_t max_body_bytes)
    : request_context_{session, /*cookie_jar=*/nullptr,
                       /*network_delegate=*/nullptr},
      timeout_(timeout),
      max_body_bytes_(max_body_bytes) {}

void HttpUrlFetcher::Fetch(const std::string& raw_url,
                           const std::string& post_body,
                           const std::string& content_type, Callback callback,
                           std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  ++fetch_count_;
  absl::StatusOr<Url> url = Url::Parse(raw_url);
  if (!url.ok() || url->SchemeIsCryptographic()) {
    // Plain HTTP only: revocation URLs are (RFC 5280: TLS would recurse),
    // and a bundle is verified on its own, so TLS would add nothing.
    *out_request = std::make_unique<RefusedRequest>(
        std::move(callback), ERR_INVALID_URL, "only http:// URLs are fetched");
    return;
  }
  auto impl = std::make_unique<RequestImpl>(
      &request_context_, *url, max_body_bytes_, std::move(callback));
  impl->Start(post_body, content_type, timeout_);
  *out_request = std::move(impl);
}

}  // namespace net
