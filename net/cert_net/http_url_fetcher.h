// HttpUrlFetcher: net/base's UrlFetcher over net/url_request — OCSP GETs and
// POSTs, CRL downloads, certificate-bundle files — as URLRequests on a plain
// HTTP session of their own (no cookies, no redirects followed), with a
// per-fetch timeout, a body-size bound (ERR_FILE_TOO_BIG) and the local
// world's URL rewrites. Only http:// URLs (fetching what a TLS connection
// needs over TLS would recurse).
//
// Lives in net/cert_net rather than cert/ so that cert/ stays below
// net/http (Chromium's net/cert_net does the same). Network-thread affine;
// the session is not owned.

#ifndef NET_CERT_NET_HTTP_URL_FETCHER_H_
#define NET_CERT_NET_HTTP_URL_FETCHER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "net/base/thread_checker.h"
#include "net/base/url_fetcher.h"
#include "net/url_request/url_request_context.h"

namespace net {

class HttpNetworkSession;

class HttpUrlFetcher : public UrlFetcher {
 public:
  // |session| is not owned; it must not itself check revocation (no
  // recursion), and must outlive the fetcher. Where a URL's server is
  // actually reached is the session's business (its connect-to rules).
  HttpUrlFetcher(HttpNetworkSession* session, absl::Duration timeout,
                 size_t max_body_bytes = 4 * 1024 * 1024);
  void Fetch(const std::string& url, const std::string& post_body,
             const std::string& content_type, Callback callback,
             std::unique_ptr<Request>* out_request) override;

 private:
  class RequestImpl;
  // The session, and no cookie jar: nothing the stack fetches for itself
  // carries or sets cookies.
  const URLRequestContext request_context_;
  const absl::Duration timeout_;
  const size_t max_body_bytes_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_CERT_NET_HTTP_URL_FETCHER_H_
