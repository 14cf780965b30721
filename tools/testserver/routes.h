// routes.h: what the test server answers the same way over HTTP/1.1
// (test_server.cc) and SPDY/3 (spdy_server_session.cc): the generated body
// of /size/N and /chunked/N, files under the docroot, and channel-bound
// cookies with the /obc/login and /obc/whoami routes. One copy for both
// protocols, so that a fix to one (path traversal, a cookie check) cannot
// miss the other. Each protocol frames the answers its own way (status
// line or :status, headers, log fields).

#ifndef TOOLS_TESTSERVER_ROUTES_H_
#define TOOLS_TESTSERVER_ROUTES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tools/testserver/channel_bound_cookie.h"

namespace net {

// The largest generated body /size/N and /chunked/N serve.
inline constexpr int64_t kMaxGeneratedBody = int64_t{1} << 30;

// AppendGenerated appends bytes [offset, offset + n) of the generated body,
// whose byte i is a fixed line's byte i % its length.
void AppendGenerated(std::string* out, int64_t offset, size_t n);

// ParseGeneratedPath: for /size/N (|chunked| false) and /chunked/N (true)
// with 0 <= N <= kMaxGeneratedBody, sets |size| to N and returns true.
bool ParseGeneratedPath(const std::string& path, int64_t* size, bool* chunked);

// The Content-Type of a docroot file, from its name.
std::string ContentTypeFor(const std::string& path);

// The reason phrase of the statuses the routes answer with ("" for others).
const char* ReasonPhrase(int status);

// An answer, before a protocol frames it.
struct RouteResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  // A Set-Cookie value to send with it ("" for none).
  std::string set_cookie;
};

// ServeDocroot answers |path| (without its query) from |docroot|
// (non-empty): 403 for any path containing "..", a directory's index.html,
// 404 for what cannot be opened, else the whole file.
RouteResponse ServeDocroot(const std::string& docroot, const std::string& path);

// ServeNamedFile answers |path| when --serve-file named it: the file's
// bytes (read at each request, so it may be written after start-up), 404
// when it cannot be opened; nullopt for a path not named.
std::optional<RouteResponse> ServeNamedFile(
    const std::map<std::string, std::string>& files, const std::string& path);

// Channel-bound cookies (channel_bound_cookie.h) for one request.
struct ObcRequest {
  std::string path;           // without the query
  std::string cookie_header;  // the request's Cookie header(s), "; "-joined
  std::string spki;           // the request's OBC (SPKI SHA-256), "" if none
  // Whose OBC |spki| is, in messages ("this connection's OBC").
  std::string spki_owner;
  // The 403 body for /obc/login without an OBC.
  std::string login_without_obc;
};

struct ObcResult {
  // The cookie's verdict for logs and headers: "" (no cookie, or a route
  // that did not look at it), "invalid", "no_obc", "mismatch", "accepted"
  // or "issued".
  std::string cookie;
  // The SPKI hash (hex) a verified cookie is bound to, "" if none.
  std::string bound_to_hex;
  // The answer when the cookie check refused the request or an /obc/
  // route answered it; nullopt: route the request on.
  std::optional<RouteResponse> response;
};

// RouteChannelBound refuses a request whose obc_session cookie is invalid
// or bound to another OBC than the request's (403, whatever the path), and
// answers /obc/login (issues a cookie bound to the request's OBC; 403
// without one) and /obc/whoami (200 with the bound OBC; 401 without a
// cookie).
ObcResult RouteChannelBound(const ChannelBoundCookies& cookies,
                            const ObcRequest& request);

}  // namespace net

#endif  // TOOLS_TESTSERVER_ROUTES_H_
