// UrlFetcher: how a component below net/http gets a small document by URL —
// an HTTP GET, or a POST with a body: OCSP responses and CRLs (cert/),
// certificate bundles (prefetch/). The implementation over net/http is
// net/cert_net's HttpUrlFetcher; tests substitute a scripted one.
//
// Fetch follows the async contract: the callback gets OK and the body, or a
// net error (HTTP errors are ERR_FAILED with the status in |detail|).
// Destroying |*out_request| cancels.

#ifndef NET_BASE_URL_FETCHER_H_
#define NET_BASE_URL_FETCHER_H_

#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"

namespace net {

class UrlFetcher {
 public:
  class Request {
   public:
    virtual ~Request() = default;
  };
  using Callback = absl::AnyInvocable<void(int error, std::string body)>;
  virtual ~UrlFetcher() = default;
  // Empty |post_body| means GET.
  virtual void Fetch(const std::string& url, const std::string& post_body,
                     const std::string& content_type, Callback callback,
                     std::unique_ptr<Request>* out_request) = 0;
  // Requests made so far (tests and traces read it).
  int fetch_count() const { return fetch_count_; }

 protected:
  int fetch_count_ = 0;
};

}  // namespace net

#endif  // NET_BASE_URL_FETCHER_H_
