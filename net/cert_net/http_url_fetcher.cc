#include "net/cert_net/http_url_fetcher.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/url.h"
#include "net/http/http_network_transaction.h"

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

class HttpUrlFetcher::RequestImpl : public UrlFetcher::Request {
 public:
  RequestImpl(HttpNetworkSession* session, size_t max_body_bytes,
              Callback callback)
      : transaction_(session),
        max_body_bytes_(max_body_bytes),
        callback_(std::move(callback)) {}

  void Start(const HttpRequestInfo& request, absl::Duration timeout) {
    timer_.Start(timeout, [this] { Done(ERR_TIMED_OUT); });
    int rv = transaction_.Start(request, [this](int rv) { OnStarted(rv); });
    if (rv != ERR_IO_PENDING) {
      // Report from a task: never inside Fetch().
      EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), rv] {
        if (weak) weak->OnStarted(rv);
      });
    }
  }

 private:
  void OnStarted(int rv) {
    if (rv != OK) return Done(rv);
    int status = transaction_.response_headers()->status_code();
    if (status != 200) {
      status_ = status;
      return Done(ERR_FAILED);
    }
    Read();
  }
  void Read() {
    for (;;) {
      auto buf = std::make_shared<IOBuffer>(16 * 1024);
      int rv = transaction_.Read(buf, 16 * 1024, [this, buf](int rv) {
        if (Append(buf.get(), rv)) Read();
      });
      if (rv == ERR_IO_PENDING) return;
      if (!Append(buf.get(), rv)) return;
    }
  }
  // Takes one Read result; returns whether to read on.
  bool Append(IOBuffer* buf, int rv) {
    if (rv <= 0) {
      Done(rv);
      return false;
    }
    if (body_.size() + rv > max_body_bytes_) {
      Done(ERR_FILE_TOO_BIG);
      return false;
    }
    body_.append(buf->data(), rv);
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

  HttpNetworkTransaction transaction_;
  const size_t max_body_bytes_;
  Callback callback_;
  std::string body_;
  int status_ = 0;
  OneShotTimer timer_;
  WeakPtrFactory<RequestImpl> weak_factory_{this};
};

HttpUrlFetcher::HttpUrlFetcher(HttpNetworkSession* session,
                               absl::Duration timeout,
                               std::map<std::string, std::string> url_rewrites,
                               size_t max_body_bytes)
    : session_(session),
      timeout_(timeout),
      url_rewrites_(std::move(url_rewrites)),
      max_body_bytes_(max_body_bytes) {}

std::string HttpUrlFetcher::Rewrite(const std::string& url) const {
  for (const auto& [from, to] : url_rewrites_) {
    if (absl::StartsWith(url, from)) return to + url.substr(from.size());
  }
  return url;
}

void HttpUrlFetcher::Fetch(const std::string& raw_url,
                           const std::string& post_body,
                           const std::string& content_type, Callback callback,
                           std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  ++fetch_count_;
  absl::StatusOr<Url> url = Url::Parse(Rewrite(raw_url));
  if (!url.ok() || url->SchemeIsCryptographic()) {
    // Plain HTTP only: revocation URLs are (RFC 5280: TLS would recurse),
    // and a bundle is verified on its own, so TLS would add nothing.
    *out_request = std::make_unique<RefusedRequest>(
        std::move(callback), ERR_INVALID_URL, "only http:// URLs are fetched");
    return;
  }
  HttpRequestInfo request;
  request.url = *url;
  if (!post_body.empty()) {
    request.method = "POST";
    request.upload_body = post_body;
    request.extra_headers.emplace_back("Content-Type", content_type);
  }
  auto impl = std::make_unique<RequestImpl>(session_, max_body_bytes_,
                                            std::move(callback));
  impl->Start(request, timeout_);
  *out_request = std::move(impl);
}

}  // namespace net
