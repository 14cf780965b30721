// RevocationFetcher: how the revocation checker gets OCSP responses and
// CRLs — an HTTP GET, or a POST with a body. HttpRevocationFetcher is the
// implementation over net/http; tests substitute a scripted one.
//
// Fetch follows the async contract: the callback gets OK and the body, or a
// net error (HTTP errors are ERR_FAILED with the status in |detail|).
// Destroying |*out_request| cancels.

#ifndef CERT_REVOCATION_FETCHER_H_
#define CERT_REVOCATION_FETCHER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"

namespace net {

class HttpNetworkSession;

class RevocationFetcher {
 public:
  class Request {
   public:
    virtual ~Request() = default;
  };
  using Callback = absl::AnyInvocable<void(int error, std::string body)>;
  virtual ~RevocationFetcher() = default;
  // Empty |post_body| means GET.
  virtual void Fetch(const std::string& url, const std::string& post_body,
                     const std::string& content_type, Callback callback,
                     std::unique_ptr<Request>* out_request) = 0;
  // Requests made so far (tests and traces read it).
  int fetch_count() const { return fetch_count_; }

 protected:
  int fetch_count_ = 0;
};

class HttpRevocationFetcher : public RevocationFetcher {
 public:
  // |session| is not owned; it must not itself check revocation (no
  // recursion), and must outlive the fetcher. |url_rewrites| maps URL
  // prefixes embedded in certificates to reachable ones (the local world).
  HttpRevocationFetcher(HttpNetworkSession* session, absl::Duration timeout,
                        std::map<std::string, std::string> url_rewrites = {});
  void Fetch(const std::string& url, const std::string& post_body,
             const std::string& content_type, Callback callback,
             std::unique_ptr<Request>* out_request) override;

  std::string Rewrite(const std::string& url) const;

 private:
  class RequestImpl;
  HttpNetworkSession* const session_;
  const absl::Duration timeout_;
  const std::map<std::string, std::string> url_rewrites_;
};

}  // namespace net

#endif  // CERT_REVOCATION_FETCHER_H_
