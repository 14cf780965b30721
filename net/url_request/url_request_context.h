// URLRequestContext: what a URLRequest runs on — the HTTP session its
// transactions use, the cookie jar it reads and writes, the network
// delegate that hears when a request ends, and the device bound sessions
// that may hold a request until its cookie is refreshed (Chromium's
// URLRequestContext and NetworkDelegate, cut down). A plain struct of pointers,
// none owned: the owner (NetworkContext, or HttpUrlFetcher for its plain-HTTP
// session) keeps everything alive longer than the requests made on it.

#ifndef NET_URL_REQUEST_URL_REQUEST_CONTEXT_H_
#define NET_URL_REQUEST_URL_REQUEST_CONTEXT_H_

namespace net {

class CookieJar;
class DeviceBoundSessionDelegate;
class HttpNetworkSession;
class URLRequest;

// NetworkDelegate: the embedder's ear on every request of a context.
class NetworkDelegate {
 public:
  virtual ~NetworkDelegate() = default;
  // OnCompleted: |request| ended — its body read to the end (OK), or it
  // failed or was cancelled (the error). Runs at most once per request
  // (never for one destroyed before it ended), before the request's own
  // delegate hears of the end. Must not destroy the request.
  virtual void OnCompleted(URLRequest* request, int net_error) = 0;
};

struct URLRequestContext {
  HttpNetworkSession* http_session = nullptr;   // required
  CookieJar* cookie_jar = nullptr;              // null: no cookies
  NetworkDelegate* network_delegate = nullptr;  // optional
  // Device Bound Session Credentials (device_bound_session_delegate.h);
  // null: off. Used only with a cookie jar.
  DeviceBoundSessionDelegate* device_bound_sessions = nullptr;
};

}  // namespace net

#endif  // NET_URL_REQUEST_URL_REQUEST_CONTEXT_H_
