// CookieJar: an HTTP client's cookies, a subset of RFC 6265 (sections 5.3
// and 5.4) with the Secure rules of RFC 6265bis. It stores what
// Set-Cookie headers say (ParsedCookie, then the storage model: host-only
// unless a Domain attribute names a parent domain that is not a public
// suffix, default path, Secure only from https, Max-Age over Expires, at most
// 400 days) and answers the Cookie header for a request (domain-, path- and
// secure-match; longest path first). SameSite and the non-HTTP API are not
// implemented: every cookie is treated as HttpOnly-capable since there is no
// script here.
//
// Persistence (<profile>/cookies.pb, cookie_jar.proto): Load checks a framed
// protobuf (magic, version, SHA-256, canonical encoding, every record) and
// reports any damage as DataLoss naming the file, which it never modifies;
// Save replaces the file atomically (net/base/file_util.h). Session cookies
// (no Expires or Max-Age) are saved too, as curl's cookie jar does: a fetch
// run is not a browser session.
//
// Owned by the embedder (the Profile), one per profile; URLRequestContext
// points at it (not owned) and URLRequests read and write it on the network
// thread. Not thread-safe. Time is always passed in, so tests are exact.
// A value (Parse and Load return it by value), so it has no ThreadChecker:
// the URLRequests and NetworkContext that use it check their thread.

#ifndef NET_HTTP_COOKIE_JAR_H_
#define NET_HTTP_COOKIE_JAR_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/base/url.h"

namespace net {

// CanonicalCookie is one stored cookie.
struct CanonicalCookie {
  std::string name;
  std::string value;
  // The request host (host_only) or the Domain attribute's domain; lower
  // case, no leading dot.
  std::string domain;
  bool host_only = true;
  std::string path;
  bool secure = false;
  bool http_only = false;
  // A session cookie has no expiry (absl::InfiniteFuture()).
  bool persistent = false;
  absl::Time expiry = absl::InfiniteFuture();
  absl::Time creation;
  absl::Time last_access;

  bool IsExpired(absl::Time now) const { return persistent && expiry <= now; }
  // IncludedIn: whether a request to |url| carries this cookie (domain-match
  // or same host, path-match, Secure only over https). Expiry not checked.
  bool IncludedIn(const Url& url) const;
};

// DomainMatches is RFC 6265 5.1.3: |host| equals |domain|, or ends with
// "." + |domain| and is not an IP address. Both lower case.
bool DomainMatches(absl::string_view host, absl::string_view domain);
// PathMatches is RFC 6265 5.1.4.
bool PathMatches(absl::string_view request_path, absl::string_view cookie_path);
// DefaultCookiePath is RFC 6265 5.1.4's default-path of |url|'s path.
std::string DefaultCookiePath(const Url& url);

// CookieJarLimits: at most |max_per_site| cookies per registrable domain
// and |max_total| in all (RFC 6265 6.1 asks for at least 50 and 3000); the
// least recently used go first.
struct CookieJarLimits {
  size_t max_per_site = 50;
  size_t max_total = 3000;
};

class CookieJar {
 public:
  static constexpr char kFileName[] = "cookies.pb";
  static constexpr uint32_t kMagic = 0x314a4b43;  // "CKJ1"
  static constexpr uint32_t kVersion = 1;

  using Limits = CookieJarLimits;

  CookieJar() = default;
  explicit CookieJar(Limits limits) : limits_(limits) {}
  CookieJar(CookieJar&&) = default;
  CookieJar& operator=(CookieJar&&) = default;

  // SetCookie processes one Set-Cookie header value received at |now| in
  // the response to |url|. OK when the cookie was stored, or when it expired
  // an existing one (Max-Age <= 0, Expires in the past). InvalidArgument,
  // naming the reason, when it is ignored: unparsable (ParsedCookie), a
  // Domain the host does not domain-match or that is a public suffix, Secure
  // from http, or an http response overwriting a Secure cookie.
  absl::Status SetCookie(const Url& url, absl::string_view set_cookie,
                         absl::Time now);

  // CookieHeaderFor returns the Cookie header value for a request to |url|
  // at |now| ("" if no cookie applies), and marks those cookies used.
  std::string CookieHeaderFor(const Url& url, absl::Time now);

  // GetCookies returns the unexpired cookies for |url| in Cookie-header
  // order (longest path first, then oldest), without marking them used.
  std::vector<CanonicalCookie> GetCookies(const Url& url, absl::Time now) const;
  // AllCookies returns every stored cookie (expired ones included until they
  // are purged), ordered by domain, path, name.
  std::vector<CanonicalCookie> AllCookies() const;
  size_t size() const { return cookies_.size(); }
  void DeleteAll();

  // changed is whether anything (a cookie, a last-access time, a purge)
  // changed since construction, Parse/Load or the last successful Save.
  bool changed() const { return changed_; }

  // Serialize returns the file bytes (expired cookies left out).
  std::string Serialize(absl::Time now) const;
  // Parse is Load on bytes; |name| is used in error messages. Expired
  // cookies are dropped (changed() is then true).
  [[nodiscard]] static absl::StatusOr<CookieJar> Parse(const std::string& bytes,
                                                       const std::string& name,
                                                       absl::Time now,
                                                       Limits limits = {});
  // Load reads |path|; a missing file is an empty jar. DataLoss if the file
  // is damaged in any way (the message names the file and the reason and
  // says it was left untouched); other I/O errors as ReadFileToString.
  [[nodiscard]] static absl::StatusOr<CookieJar> Load(const std::string& path,
                                                      absl::Time now,
                                                      Limits limits = {});
  // Save atomically replaces |path| (mode 0600) with Serialize(now). On
  // error the old file is untouched and changed() stays true.
  absl::Status Save(const std::string& path, absl::Time now);

 private:
  // (domain, path, name): RFC 6265's identity of a cookie.
  using Key = std::tuple<std::string, std::string, std::string>;

  // Calls |fn| on every stored cookie whose domain could match |host|.
  template <typename Fn>
  void ForEachCandidate(const std::string& host, Fn fn) const;
  void Evict(const std::string& site, absl::Time now);

  Limits limits_;
  std::map<Key, CanonicalCookie> cookies_;
  bool changed_ = false;
};

}  // namespace net

#endif  // NET_HTTP_COOKIE_JAR_H_
