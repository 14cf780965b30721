// DeviceBoundSessionDelegate: how a URLRequest takes part in Device Bound
// Session Credentials (the W3C DBSC draft's changes to Fetch, section
// "Changes to the Fetch specification"): before a hop's request goes out it
// asks whether a session in whose scope the URL lies is missing its bound
// cookie, and if so waits until that session's refresh ended; after a
// response head arrives it hands over the Secure-Session-Registration and
// Secure-Session-Challenge headers.
//
// An interface here, implemented by net/device_bound_sessions'
// SessionService (which itself makes URLRequests for its registration and
// refresh POSTs, on a context without a delegate), so that url_request does
// not depend on it. The URLRequestContext points at it (not owned); the
// owner (NetworkContext) keeps it alive longer than every request.

#ifndef NET_URL_REQUEST_DEVICE_BOUND_SESSION_DELEGATE_H_
#define NET_URL_REQUEST_DEVICE_BOUND_SESSION_DELEGATE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/base/net_errors.h"
#include "net/base/url.h"
#include "net/timing/load_timing.h"

namespace net {

class HttpResponseHeaders;

// DeviceBoundSessionRequestState: what one URLRequest carries for DBSC
// across its hops and deferrals. Owned by the request.
struct DeviceBoundSessionRequestState {
  // The sessions (site, identifier) that deferred this request already: the
  // draft's "deferred device bound session ids". A request waits at most
  // once per session, so a refresh that brought no cookie cannot hold it
  // forever.
  std::vector<std::pair<std::string, std::string>> deferred_sessions;
  // Secure-Session-Skipped list members for the next attempt (draft "Add
  // debug header"), e.g. unreachable;session_identifier="s1".
  std::vector<std::string> skipped;
  // What the trace says (LoadTiming::dbsc of each hop).
  DbscTrace trace;
};

class DeviceBoundSessionDelegate {
 public:
  // Deferral is a request's wait for a refresh; destroying it stops the
  // wait (the refresh itself goes on for any other waiter).
  class Deferral {
   public:
    virtual ~Deferral() = default;
  };

  virtual ~DeviceBoundSessionDelegate() = default;

  // MaybeDeferRequest runs before a hop's request is built (before the
  // cookie jar is read). OK: send it now. ERR_IO_PENDING: a session this
  // request needs is being refreshed; |callback| runs later with OK, never
  // from inside this call, and the caller then asks again (a session
  // defers a request once: |state| remembers it). |initiator| is the
  // origin the load was started from. |state| and |*out_deferral| belong to
  // the request; |state| must stay valid until the callback ran or the
  // deferral was destroyed.
  virtual int MaybeDeferRequest(const Url& url, const Origin& initiator,
                                DeviceBoundSessionRequestState* state,
                                CompletionOnceCallback callback,
                                std::unique_ptr<Deferral>* out_deferral) = 0;

  // OnResponseHeaders runs when a hop's response head arrived, after its
  // Set-Cookie headers were stored: registrations start (asynchronously:
  // the request goes on at once), challenges are cached. May update
  // |state|'s trace.
  virtual void OnResponseHeaders(const Url& url, const Origin& initiator,
                                 const HttpResponseHeaders& headers,
                                 DeviceBoundSessionRequestState* state) = 0;
};

}  // namespace net

#endif  // NET_URL_REQUEST_DEVICE_BOUND_SESSION_DELEGATE_H_
