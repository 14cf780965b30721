#include "prefetch/http_bundle_sources.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"
#include "net/base/weak_ptr.h"

namespace net {
namespace {

class FileRequest : public BundleSource::Request {
 public:
  std::unique_ptr<UrlFetcher::Request> fetch;
};

// Reports |status| from a task (a source never answers inside Fetch),
// unless the request is destroyed first.
class FailedRequest : public BundleSource::Request {
 public:
  FailedRequest(absl::Status status, BundleSource::Callback callback) {
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr(), status,
                                    callback = std::move(callback)]() mutable {
      if (weak) std::move(callback)(status);
    });
  }

 private:
  WeakPtrFactory<FailedRequest> weak_factory_{this};
};

}  // namespace

void FetchBundleFile(UrlFetcher* fetcher, const std::string& url,
                     const std::string& host, uint16_t port,
                     BundleSourceType type, BundleSource::Callback callback,
                     std::unique_ptr<BundleSource::Request>* out_request) {
  auto request = std::make_unique<FileRequest>();
  fetcher->Fetch(
      url, "", "",
      [url, host, port, type, callback = std::move(callback)](
          int error, std::string body) mutable {
        if (error != OK) {
          std::move(callback)(absl::UnavailableError(
              absl::StrCat("GET ", url, ": ", ErrorToShortString(error),
                           body.empty() ? "" : " ", body)));
          return;
        }
        absl::StatusOr<CertBundle> bundle = DecodeBundleFile(body);
        absl::Status status = bundle.status();
        if (status.ok())
          status = ValidateBundleShape(*bundle, host, port, absl::Now());
        if (!status.ok()) {
          std::move(callback)(absl::Status(
              status.code(), absl::StrCat(url, ": ", status.message())));
          return;
        }
        FetchedBundle fetched;
        fetched.bundle = *std::move(bundle);
        fetched.source = type;
        fetched.bytes = body.size();
        fetched.via = url;
        std::move(callback)(std::move(fetched));
      },
      &request->fetch);
  *out_request = std::move(request);
}

void WellKnownBundleSource::Fetch(const std::string& host, uint16_t port,
                                  Callback callback,
                                  std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  FetchBundleFile(fetcher_, absl::StrCat("http://", host, kBundleWellKnownPath),
                  host, port, type(), std::move(callback), out_request);
}

// RaceRequest: one GET per CDN; the first valid bundle wins and cancels the
// others; when all fail, one error lists every CDN's reason.
class CdnBundleSource::RaceRequest : public BundleSource::Request {
 public:
  RaceRequest(Callback callback, size_t count)
      : callback_(std::move(callback)), requests_(count), errors_(count) {}

  void Start(UrlFetcher* fetcher, const std::vector<std::string>& bases,
             const std::string& host, uint16_t port) {
    pending_ = bases.size();
    for (size_t i = 0; i < bases.size(); ++i) {
      std::string url =
          absl::StrCat(absl::StripSuffix(bases[i], "/"), "/", host, ".crt");
      FetchBundleFile(
          fetcher, url, host, port, BundleSourceType::kCdn,
          [this, i, weak = weak_factory_.GetWeakPtr()](
              absl::StatusOr<FetchedBundle> result) {
            if (weak) OnResult(i, std::move(result));
          },
          &requests_[i]);
    }
  }

 private:
  void OnResult(size_t i, absl::StatusOr<FetchedBundle> result) {
    // We are inside requests_[i]'s own callback: it is destroyed later.
    DestroySoon(std::move(requests_[i]));
    --pending_;
    if (!callback_) return;
    if (result.ok()) {
      // The winner: cancel the slower CDNs.
      for (auto& request : requests_) request.reset();
      Callback callback = std::move(callback_);
      std::move(callback)(std::move(result));
      return;
    }
    errors_[i] = std::string(result.status().message());
    if (pending_ == 0) {
      Callback callback = std::move(callback_);
      std::move(callback)(absl::NotFoundError(absl::StrCat(
          "no CDN had a valid bundle: ", absl::StrJoin(errors_, "; "))));
    }
  }

  static void DestroySoon(std::unique_ptr<BundleSource::Request> request) {
    if (!request) return;
    EventLoop::Current()->PostTask([request = std::move(request)]() {});
  }

  Callback callback_;
  std::vector<std::unique_ptr<BundleSource::Request>> requests_;
  std::vector<std::string> errors_;
  size_t pending_ = 0;
  WeakPtrFactory<RaceRequest> weak_factory_{this};
};

void CdnBundleSource::Fetch(const std::string& host, uint16_t port,
                            Callback callback,
                            std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (base_urls_.empty()) {
    *out_request = std::make_unique<FailedRequest>(
        absl::FailedPreconditionError("no CDN configured"),
        std::move(callback));
    return;
  }
  auto race =
      std::make_unique<RaceRequest>(std::move(callback), base_urls_.size());
  race->Start(fetcher_, base_urls_, host, port);
  *out_request = std::move(race);
}

}  // namespace net
