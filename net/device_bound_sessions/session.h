// Session: one device bound session (draft section "Device bound session"):
// its identifier, refresh URL, scope, bound cookies ("session
// credentials"), the key pair it proves possession of, the challenge cached
// for its next proof, and when it expires. Plus the draft's matching
// algorithms over it: whether a URL is in its scope, whether a request may
// trigger its refresh, and whether a request lacks one of its bound cookies.
//
// A Session is owned by the SessionStore (session_store.h) of one profile;
// its private key never leaves it (the store writes it only into the
// profile's own file). Plain data with pure methods; network-thread affine
// like the store.

#ifndef NET_DEVICE_BOUND_SESSIONS_SESSION_H_
#define NET_DEVICE_BOUND_SESSIONS_SESSION_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/base/url.h"
#include "net/http/cookie_jar.h"

namespace net {

// SiteOf is the draft's "registrable domain" of |host| (eTLD+1 by the
// Public Suffix List), or the host itself when it has none (an IP address,
// localhost): the key of the session store.
std::string SiteOf(absl::string_view host);
// IsSameSite: schemeful same site (HTML): same scheme and same SiteOf.
bool IsSameSite(const Origin& a, const Origin& b);
// HostMatchesPattern is the draft's "Identify if a host matches a pattern":
// "*" matches everything, "*.example.com" the proper subdomains of
// example.com, anything else the host exactly.
bool HostMatchesPattern(absl::string_view host, absl::string_view pattern);

// SessionScopeRule is one scope specification (draft "Scope
// specification"): include or exclude |domain| (a pattern) and |path|.
struct SessionScopeRule {
  bool include = true;
  std::string domain = "*";
  std::string path = "/";
  bool operator==(const SessionScopeRule& o) const {
    return include == o.include && domain == o.domain && path == o.path;
  }
};

struct SessionScope {
  Origin origin;
  bool include_site = false;
  std::vector<SessionScopeRule> rules;
};

// SessionCredential is one bound cookie: the name and attributes the server
// configured, and the cookie those attributes describe under RFC 6265's
// storage model for the URL that configured the session (domain, host-only,
// path, Secure, HttpOnly). Max-Age and Expires do not count (draft, "JSON
// Session Credentials Format" example).
struct SessionCredential {
  std::string name;
  std::string attributes;
  std::string domain;
  bool host_only = true;
  std::string path = "/";
  bool secure = false;
  bool http_only = false;

  // WouldBeSentTo: a cookie with these attributes would be attached to a
  // request for |url| (RFC 6265 section 5.4: domain, path, Secure).
  bool WouldBeSentTo(const Url& url) const;
  // SatisfiedBy: |cookie| is this credential (name, and the Domain, Path,
  // Secure and HttpOnly attributes the draft compares; SameSite is not
  // modelled by the cookie jar).
  bool SatisfiedBy(const CanonicalCookie& cookie) const;
};

// MakeSessionCredential computes the credential's cookie as if a response
// from |set_by| carried "Set-Cookie: NAME=x; ATTRIBUTES". FailedPrecondition
// naming the reason when such a cookie could not be set by that response
// (the draft then skips the credential), InvalidArgument when the
// attributes carry Partitioned (the draft refuses such sessions).
[[nodiscard]] absl::StatusOr<SessionCredential> MakeSessionCredential(
    absl::string_view name, absl::string_view attributes, const Url& set_by);

class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // IncludesUrl is the draft's "Identify if a URL is in scope of a
  // session": same site (include_site) or same origin as the scope's
  // origin, never the refresh URL, then the scope rules from last to first
  // (the first that matches decides), else included.
  bool IncludesUrl(const Url& url) const;
  // AllowsRefreshFrom is "Identify if a request is allowed to refresh":
  // |initiator| is same site / same origin with the scope's origin, or its
  // host matches one of the allowed refresh initiators.
  bool AllowsRefreshFrom(const Origin& initiator) const;
  // MissingCredential is "Identify if missing session credential": the
  // name of the first credential that would be attached to a request for
  // |url| but is not among |cookies| (what the request carries), or
  // nullopt when nothing is missing.
  std::optional<std::string> MissingCredential(
      const Url& url, const std::vector<CanonicalCookie>& cookies) const;

  std::string id;
  // The registrable domain the session is stored under.
  std::string site;
  Url refresh_url;
  SessionScope scope;
  std::vector<SessionCredential> credentials;
  std::vector<std::string> allowed_refresh_initiators;
  // The session key pair (ECDSA P-256) and its PKCS#8 form for the
  // profile's file.
  bssl::UniquePtr<EVP_PKEY> key;
  std::string key_pkcs8;
  std::optional<std::string> cached_challenge;
  absl::Time creation;
  absl::Time expiry;
  absl::Time last_use;
};

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_SESSION_H_
