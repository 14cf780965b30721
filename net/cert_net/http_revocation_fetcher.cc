#include "net/cert_net/http_revocation_fetcher.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/url.h"
#include "net/http/http_network_transaction.h"

namespace net {

class HttpRevocationFetcher::RequestImpl : public RevocationFetcher::Request {
 public:
  RequestImpl(HttpNetworkSession* session, Callback callback)
      : transaction_(session), callback_(std::move(callback)) {}

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
        if (rv > 0) {
          body_.append(buf->data(), rv);
          Read();
        } else {
          Done(rv);
        }
      });
      if (rv == ERR_IO_PENDING) return;
      if (rv <= 0) return Done(rv);
      body_.append(buf->data(), rv);
      if (body_.size() > 4 * 1024 * 1024) return Done(ERR_FILE_TOO_BIG);
    }
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
  Callback callback_;
  std::string body_;
  int status_ = 0;
  OneShotTimer timer_;
  WeakPtrFactory<RequestImpl> weak_factory_{this};
};

HttpRevocationFetcher::HttpRevocationFetcher(
    HttpNetworkSession* session, absl::Duration timeout,
    std::map<std::string, std::string> url_rewrites)
    : session_(session),
      timeout_(timeout),
      url_rewrites_(std::move(url_rewrites)) {}

std::string HttpRevocationFetcher::Rewrite(const std::string& url) const {
  for (const auto& [from, to] : url_rewrites_) {
    if (absl::StartsWith(url, from)) return to + url.substr(from.size());
  }
  return url;
}

void HttpRevocationFetcher::Fetch(const std::string& raw_url,
                                  const std::string& post_body,
                                  const std::string& content_type,
                                  Callback callback,
                                  std::unique_ptr<Request>* out_request) {
  ++fetch_count_;
  absl::StatusOr<Url> url = Url::Parse(Rewrite(raw_url));
  if (!url.ok() || url->SchemeIsCryptographic()) {
    // Revocation URLs are plain HTTP (RFC 5280: no TLS, which would recurse).
    EventLoop::Current()->PostTask([callback = std::move(callback)]() mutable {
      std::move(callback)(ERR_INVALID_URL, "revocation URLs must be http://");
    });
    return;
  }
  HttpRequestInfo request;
  request.url = *url;
  if (!post_body.empty()) {
    request.method = "POST";
    request.upload_body = post_body;
    request.extra_headers.emplace_back("Content-Type", content_type);
  }
  auto impl = std::make_unique<RequestImpl>(session_, std::move(callback));
  impl->Start(request, timeout_);
  *out_request = std::move(impl);
}

}  // namespace net
