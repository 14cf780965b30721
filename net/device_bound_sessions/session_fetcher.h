// SessionFetcher: how the SessionService sends its registration and refresh
// POSTs (draft "Send request": method POST, redirects followed, the
// request's cookies sent and the response's stored), and the production one
// over URLRequest. The interface is the seam unit tests replace with a
// scripted fetcher (session_service_unittest.cc).
//
// UrlRequestSessionFetcher runs URLRequests on a URLRequestContext that has
// the browsing session and the profile's cookie jar but no
// DeviceBoundSessionDelegate (the service's own POSTs are never deferred),
// with a per-POST timeout and a bound on the body it keeps; redirects are
// followed within the site only (a proof is for the site that asked; a
// cross-site redirect is ERR_UNSAFE_REDIRECT). The context is
// not owned and must outlive the fetcher; requests cancel on destruction.
// Network-thread affine.

#ifndef NET_DEVICE_BOUND_SESSIONS_SESSION_FETCHER_H_
#define NET_DEVICE_BOUND_SESSIONS_SESSION_FETCHER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "net/base/url.h"
#include "net/http/http_response_headers.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request.h"
#include "net/url_request/url_request_context.h"

namespace net {

// SessionFetchResult: what one POST came back with.
struct SessionFetchResult {
  // OK when a response arrived (whatever its status), else the error
  // (ERR_TIMED_OUT after the fetcher's timeout, ERR_FILE_TOO_BIG for a
  // body past its bound, a connection error...).
  int net_error = OK;
  std::string error_detail;
  // The final response's head (after redirects); absent on error.
  std::optional<HttpResponseHeaders> headers;
  std::string body;
  // The final URL.
  Url url;
  // The final hop's trace.
  LoadTiming timing;
};

class SessionFetcher {
 public:
  class Request {
   public:
    virtual ~Request() = default;
  };
  using Callback = absl::AnyInvocable<void(SessionFetchResult)>;

  virtual ~SessionFetcher() = default;
  // Post sends an empty-bodied POST to |url| with |headers|; |callback|
  // runs once with the result, never from inside Post. Destroying
  // |*out_request| cancels (the callback then never runs).
  virtual void Post(const Url& url, HttpHeaderList headers, Callback callback,
                    std::unique_ptr<Request>* out_request) = 0;
};

class UrlRequestSessionFetcher : public SessionFetcher {
 public:
  // |context| (not owned) must have no device_bound_sessions.
  UrlRequestSessionFetcher(const URLRequestContext* context,
                           absl::Duration timeout, int64_t max_body_bytes);
  void Post(const Url& url, HttpHeaderList headers, Callback callback,
            std::unique_ptr<Request>* out_request) override;

 private:
  class RequestImpl;
  const URLRequestContext* const context_;
  const absl::Duration timeout_;
  const int64_t max_body_bytes_;
};

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_SESSION_FETCHER_H_
