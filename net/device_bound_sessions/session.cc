#include "net/device_bound_sessions/session.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/ip_endpoint.h"
#include "net/base/registry_controlled_domain.h"

namespace net {
namespace {

absl::string_view PathOf(const Url& url) {
  absl::string_view path = url.PathForRequest();
  return path.substr(0, path.find('?'));
}

// The draft's path rule of "Identify if a URL is in scope of a session":
// the path is exactly the pattern, or the pattern ends in '/' and prefixes
// the path, or the pattern followed by '/' prefixes it.
bool PathMatchesRule(absl::string_view path, absl::string_view pattern) {
  if (path == pattern) return true;
  if (absl::EndsWith(pattern, "/") && absl::StartsWith(path, pattern))
    return true;
  return absl::StartsWith(path, pattern) && path.size() > pattern.size() &&
         path[pattern.size()] == '/';
}

}  // namespace

std::string SiteOf(absl::string_view host) {
  return RegistrableDomain(host).value_or(std::string(host));
}

bool IsSameSite(const Origin& a, const Origin& b) {
  return a.scheme() == b.scheme() && SiteOf(a.host()) == SiteOf(b.host());
}

bool HostMatchesPattern(absl::string_view host, absl::string_view pattern) {
  if (pattern == "*") return true;
  // A wildcard applies to domains only: an IP literal is compared as is.
  if (absl::StartsWith(pattern, "*") && !IPAddress::Parse(host).has_value()) {
    if (!absl::StartsWith(pattern, "*.")) return false;
    return absl::EndsWith(host, pattern.substr(1));
  }
  return host == pattern;
}

bool SessionCredential::WouldBeSentTo(const Url& url) const {
  CanonicalCookie cookie;
  cookie.domain = domain;
  cookie.host_only = host_only;
  cookie.path = path;
  cookie.secure = secure;
  return cookie.IncludedIn(url);
}

bool SessionCredential::SatisfiedBy(const CanonicalCookie& cookie) const {
  return cookie.name == name && cookie.domain == domain &&
         cookie.host_only == host_only && cookie.path == path &&
         cookie.secure == secure && cookie.http_only == http_only;
}

absl::StatusOr<SessionCredential> MakeSessionCredential(
    absl::string_view name, absl::string_view attributes, const Url& set_by) {
  for (absl::string_view attribute : absl::StrSplit(attributes, ';')) {
    absl::string_view attr_name =
        absl::StripAsciiWhitespace(attribute.substr(0, attribute.find('=')));
    if (absl::EqualsIgnoreCase(attr_name, "partitioned"))
      return absl::InvalidArgumentError(
          "a bound cookie must not be Partitioned");
  }
  // The jar's own storage model decides what these attributes mean for a
  // response from |set_by|; a Max-Age appended last overrides any lifetime
  // the attributes give (lifetimes do not count).
  CookieJar jar;
  const absl::Time now = absl::Now();
  absl::Status status = jar.SetCookie(
      set_by, absl::StrCat(name, "=dbsc; ", attributes, "; Max-Age=3600"), now);
  if (!status.ok())
    return absl::FailedPreconditionError(absl::StrCat(
        "the bound cookie ", name, " could not be set by a response from ",
        set_by.GetOrigin().Serialize(), ": ", status.message()));
  std::vector<CanonicalCookie> cookies = jar.AllCookies();
  if (cookies.size() != 1 || cookies[0].name != name)
    return absl::FailedPreconditionError(absl::StrCat(
        "the bound cookie name '", name, "' is not a cookie name"));
  SessionCredential credential;
  credential.name = std::string(name);
  credential.attributes = std::string(attributes);
  credential.domain = cookies[0].domain;
  credential.host_only = cookies[0].host_only;
  credential.path = cookies[0].path;
  credential.secure = cookies[0].secure;
  credential.http_only = cookies[0].http_only;
  return credential;
}

bool Session::IncludesUrl(const Url& url) const {
  const Origin origin = url.GetOrigin();
  if (scope.include_site ? !IsSameSite(origin, scope.origin)
                         : origin != scope.origin)
    return false;
  // The refresh endpoint itself is never deferred (it would wait for
  // itself).
  if (url.GetOrigin() == refresh_url.GetOrigin() &&
      PathOf(url) == PathOf(refresh_url))
    return false;
  const absl::string_view path = PathOf(url);
  for (auto it = scope.rules.rbegin(); it != scope.rules.rend(); ++it) {
    if (!HostMatchesPattern(url.host(), it->domain)) continue;
    if (PathMatchesRule(path, it->path)) return it->include;
  }
  return true;
}

bool Session::AllowsRefreshFrom(const Origin& initiator) const {
  if (scope.include_site ? IsSameSite(initiator, scope.origin)
                         : initiator == scope.origin)
    return true;
  for (const std::string& pattern : allowed_refresh_initiators) {
    if (HostMatchesPattern(initiator.host(), pattern)) return true;
  }
  return false;
}

std::optional<std::string> Session::MissingCredential(
    const Url& url, const std::vector<CanonicalCookie>& cookies) const {
  for (const SessionCredential& credential : credentials) {
    if (!credential.WouldBeSentTo(url)) continue;
    bool present = false;
    for (const CanonicalCookie& cookie : cookies) {
      if (credential.SatisfiedBy(cookie)) {
        present = true;
        break;
      }
    }
    if (!present) return credential.name;
  }
  return std::nullopt;
}

}  // namespace net
