// RedirectInfo: what following one HTTP redirect changes about a request —
// the new URL, the new method, and whether the body and some headers go —
// per RFC 9110 section 15.4 and what browsers do (Chromium's
// net/url_request/redirect_info.h and redirect_util.h). Pure functions on
// values; URLRequest applies them at every hop.
//
//   301, 302  POST becomes GET (every browser and curl do; RFC 9110 allows it)
//   303       anything but GET and HEAD becomes GET
//   307, 308  method and body kept
//
// When the method changes, the body goes and so do the headers that
// describe it (Content-Type, Content-Length, Content-Encoding,
// Content-Language, Content-Location: the Fetch standard's request-body
// headers). When the origin changes, the caller's Authorization and Cookie
// headers go (credentials meant for one origin are not sent to another; the
// cookie jar answers for the new URL on its own).

#ifndef NET_URL_REQUEST_REDIRECT_INFO_H_
#define NET_URL_REQUEST_REDIRECT_INFO_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "net/base/url.h"

namespace net {

// IsRedirectStatus: 301, 302, 303, 307 or 308 (300 and 304 are not
// redirects a client follows on its own).
bool IsRedirectStatus(int status_code);

// ResolveRedirectLocation resolves a Location header value against the URL
// that answered with it (Url::Resolve). OK and |*out|; ERR_UNSAFE_REDIRECT
// when the target's scheme is not http or https; ERR_INVALID_REDIRECT when
// it is not a URL at all. |*detail| says why.
int ResolveRedirectLocation(const Url& base, absl::string_view location,
                            Url* out, std::string* detail);

struct RedirectInfo {
  // Compute: the redirect |status_code| answered a |method| request for
  // |url| with a Location that resolved to |new_url|.
  static RedirectInfo Compute(const Url& url, absl::string_view method,
                              int status_code, Url new_url);

  // UpdateRequest applies this redirect to the next hop's request: drops
  // |*upload_body| and the body headers if the method changed, and the
  // Authorization and Cookie headers if the origin changed.
  void UpdateRequest(
      std::vector<std::pair<std::string, std::string>>* extra_headers,
      std::string* upload_body) const;

  int status_code = 0;
  Url new_url;
  std::string new_method;
  // The method changed (so the body and its headers go).
  bool method_changed = false;
  // The new URL's origin differs from the old one's.
  bool cross_origin = false;
};

}  // namespace net

#endif  // NET_URL_REQUEST_REDIRECT_INFO_H_
