#include "net/http/cookie_jar.h"

#include <errno.h>
#include <sys/stat.h>

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"
#include "net/base/ip_endpoint.h"
#include "net/base/registry_controlled_domain.h"
#include "net/http/cookie_jar.pb.h"
#include "net/http/parsed_cookie.h"

namespace net {
namespace {

namespace pb = ::netstack::net::http;

// RFC 6265bis 5.5: no cookie outlives this, whatever Expires or Max-Age say.
constexpr absl::Duration kMaxLifetime = absl::Hours(24 * 400);

bool IsIpAddress(absl::string_view host) {
  return IPAddress::Parse(host).has_value();
}

// The unit of the per-site limit: the registrable domain (eTLD+1), or the
// domain itself when it has none (an IP address, a public suffix).
std::string SiteOf(const std::string& domain) {
  return RegistrableDomain(domain).value_or(domain);
}

absl::string_view PathOf(const Url& url) {
  absl::string_view path = url.PathForRequest();
  return path.substr(0, path.find('?'));
}

int64_t ToMicros(absl::Time t) { return absl::ToUnixMicros(t); }
absl::Time FromMicros(int64_t us) { return absl::FromUnixMicros(us); }

bool HasControlOr(absl::string_view s, absl::string_view also_forbidden) {
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7f) return true;
    if (also_forbidden.find(c) != absl::string_view::npos) return true;
  }
  return false;
}

// Checks one record from the file: it must be something SetCookie could
// have stored.
absl::StatusOr<CanonicalCookie> FromProto(const pb::StoredCookie& p) {
  CanonicalCookie c;
  c.name = p.name();
  c.value = p.value();
  c.domain = p.domain();
  c.host_only = p.host_only();
  c.path = p.path();
  c.secure = p.secure();
  c.http_only = p.http_only();
  c.persistent = p.persistent();
  c.creation = FromMicros(p.creation_unix_micros());
  c.last_access = FromMicros(p.last_access_unix_micros());
  std::string where =
      absl::StrCat("cookie '", absl::CHexEscape(c.name.substr(0, 64)), "' for ",
                   absl::CHexEscape(c.domain.substr(0, 128)), ": ");
  if (c.name.empty() || HasControlOr(c.name, ";=") ||
      HasControlOr(c.value, ";") ||
      c.name.size() + c.value.size() > ParsedCookie::kMaxNameValueBytes)
    return absl::InvalidArgumentError(absl::StrCat(where, "bad name or value"));
  if (c.domain.empty() || c.domain.front() == '.' ||
      c.domain != absl::AsciiStrToLower(c.domain) ||
      HasControlOr(c.domain, " ;/"))
    return absl::InvalidArgumentError(absl::StrCat(where, "bad domain"));
  if (c.path.empty() || c.path.front() != '/' || HasControlOr(c.path, ";"))
    return absl::InvalidArgumentError(absl::StrCat(where, "bad path"));
  if (c.persistent) {
    c.expiry = FromMicros(p.expiry_unix_micros());
    if (p.expiry_unix_micros() == 0)
      return absl::InvalidArgumentError(
          absl::StrCat(where, "persistent cookie without an expiry"));
  } else if (p.expiry_unix_micros() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "session cookie with an expiry"));
  }
  return c;
}

}  // namespace

bool DomainMatches(absl::string_view host, absl::string_view domain) {
  if (host == domain) return true;
  return host.size() > domain.size() && absl::EndsWith(host, domain) &&
         host[host.size() - domain.size() - 1] == '.' && !IsIpAddress(host);
}

bool PathMatches(absl::string_view request_path,
                 absl::string_view cookie_path) {
  if (!absl::StartsWith(request_path, cookie_path)) return false;
  if (request_path.size() == cookie_path.size()) return true;
  return absl::EndsWith(cookie_path, "/") ||
         request_path[cookie_path.size()] == '/';
}

std::string DefaultCookiePath(const Url& url) {
  absl::string_view path = PathOf(url);
  if (path.empty() || path.front() != '/') return "/";
  size_t last_slash = path.rfind('/');
  if (last_slash == 0) return "/";
  return std::string(path.substr(0, last_slash));
}

bool CanonicalCookie::IncludedIn(const Url& url) const {
  if (host_only ? url.host() != domain : !DomainMatches(url.host(), domain))
    return false;
  if (!PathMatches(PathOf(url), path)) return false;
  return !secure || url.SchemeIsCryptographic();
}

template <typename Fn>
void CookieJar::ForEachCandidate(const std::string& host, Fn fn) const {
  // A cookie can match only if its domain is the host or a parent domain of
  // it: walk the host's suffixes instead of the whole jar.
  absl::string_view candidate = host;
  bool ip = IsIpAddress(host);
  for (;;) {
    std::string domain(candidate);
    for (auto it = cookies_.lower_bound(Key(domain, "", ""));
         it != cookies_.end() && std::get<0>(it->first) == domain; ++it) {
      fn(it->first, it->second);
    }
    size_t dot = candidate.find('.');
    if (ip || dot == absl::string_view::npos) break;
    candidate.remove_prefix(dot + 1);
  }
}

absl::Status CookieJar::SetCookie(const Url& url, absl::string_view set_cookie,
                                  absl::Time now) {
  absl::StatusOr<ParsedCookie> parsed = ParsedCookie::Parse(set_cookie);
  if (!parsed.ok()) return parsed.status();
  const std::string& host = url.host();
  bool secure_url = url.SchemeIsCryptographic();

  CanonicalCookie cookie;
  cookie.name = std::move(parsed->name);
  cookie.value = std::move(parsed->value);
  cookie.secure = parsed->secure;
  cookie.http_only = parsed->http_only;
  cookie.creation = now;
  cookie.last_access = now;
  if (parsed->max_age_seconds.has_value()) {
    cookie.persistent = true;
    cookie.expiry = *parsed->max_age_seconds <= 0
                        ? absl::InfinitePast()
                        : now + absl::Seconds(*parsed->max_age_seconds);
  } else if (parsed->expires.has_value()) {
    cookie.persistent = true;
    cookie.expiry = *parsed->expires;
  }
  if (cookie.persistent)
    cookie.expiry = std::min(cookie.expiry, now + kMaxLifetime);

  // Domain (RFC 6265 5.3 steps 4-6). Without the attribute, or when it
  // names a host that is an address or a public suffix itself, the cookie
  // is host-only.
  cookie.domain = host;
  cookie.host_only = true;
  if (parsed->domain.has_value()) {
    const std::string& domain = *parsed->domain;
    if (absl::StartsWith(domain, "."))  // "Domain=..x": an empty label.
      return absl::InvalidArgumentError(
          absl::StrCat("Domain=.", domain, " has an empty label"));
    bool suffix_or_address =
        IsIpAddress(host) || !RegistrableDomain(domain).has_value();
    if (suffix_or_address && domain != host)
      return absl::InvalidArgumentError(
          absl::StrCat("Domain=", domain, " is a public suffix or an address"));
    if (!DomainMatches(host, domain))
      return absl::InvalidArgumentError(absl::StrCat(
          "Domain=", domain, " does not domain-match the host ", host));
    if (!suffix_or_address) {
      cookie.domain = domain;
      cookie.host_only = false;
    }
  }
  cookie.path =
      parsed->path.has_value() ? *parsed->path : DefaultCookiePath(url);

  // Secure (RFC 6265bis 5.7 steps 14-16): only a secure origin sets a
  // Secure cookie, and an insecure one cannot shadow or replace one.
  if (cookie.secure && !secure_url)
    return absl::InvalidArgumentError("Secure cookie from an insecure origin");
  if (!secure_url) {
    for (const auto& [key, existing] : cookies_) {
      if (existing.secure && existing.name == cookie.name &&
          (DomainMatches(existing.domain, cookie.domain) ||
           DomainMatches(cookie.domain, existing.domain)) &&
          PathMatches(cookie.path, existing.path))
        return absl::InvalidArgumentError(
            "an insecure origin cannot overwrite a Secure cookie");
    }
  }

  Key key(cookie.domain, cookie.path, cookie.name);
  auto it = cookies_.find(key);
  if (cookie.IsExpired(now)) {
    // Expiring a cookie is how a server deletes it.
    if (it != cookies_.end()) {
      cookies_.erase(it);
      changed_ = true;
    }
    return absl::OkStatus();
  }
  if (it != cookies_.end()) {
    cookie.creation = it->second.creation;  // RFC 6265 5.3 step 11.3
    it->second = std::move(cookie);
  } else {
    cookies_.emplace(key, std::move(cookie));
  }
  changed_ = true;
  Evict(SiteOf(std::get<0>(key)), now);
  return absl::OkStatus();
}

void CookieJar::Evict(const std::string& site, absl::Time now) {
  // Expired cookies go first, then the least recently used of the site,
  // then of the jar.
  for (auto it = cookies_.begin(); it != cookies_.end();) {
    if (it->second.IsExpired(now)) {
      it = cookies_.erase(it);
      changed_ = true;
    } else {
      ++it;
    }
  }
  auto evict_lru = [&](auto in_scope, size_t limit) {
    std::vector<std::map<Key, CanonicalCookie>::iterator> scope;
    for (auto it = cookies_.begin(); it != cookies_.end(); ++it) {
      if (in_scope(it->first)) scope.push_back(it);
    }
    if (scope.size() <= limit) return;
    std::sort(scope.begin(), scope.end(), [](const auto& a, const auto& b) {
      return std::tie(a->second.last_access, a->second.creation) <
             std::tie(b->second.last_access, b->second.creation);
    });
    for (size_t i = 0; i < scope.size() - limit; ++i) cookies_.erase(scope[i]);
    changed_ = true;
  };
  evict_lru(
      [&](const Key& k) {
        // Only a domain ending in the site can belong to it: skip the Public
        // Suffix List lookup for the rest.
        const std::string& domain = std::get<0>(k);
        return absl::EndsWith(domain, site) && SiteOf(domain) == site;
      },
      limits_.max_per_site);
  evict_lru([](const Key&) { return true; }, limits_.max_total);
}

std::vector<CanonicalCookie> CookieJar::GetCookies(const Url& url,
                                                   absl::Time now) const {
  std::vector<CanonicalCookie> out;
  ForEachCandidate(url.host(), [&](const Key&, const CanonicalCookie& c) {
    if (!c.IsExpired(now) && c.IncludedIn(url)) out.push_back(c);
  });
  // RFC 6265 5.4 step 2: longer paths first, then earlier creation.
  std::stable_sort(out.begin(), out.end(),
                   [](const CanonicalCookie& a, const CanonicalCookie& b) {
                     if (a.path.size() != b.path.size())
                       return a.path.size() > b.path.size();
                     return a.creation < b.creation;
                   });
  return out;
}

std::string CookieJar::CookieHeaderFor(const Url& url, absl::Time now) {
  std::vector<CanonicalCookie> cookies = GetCookies(url, now);
  std::vector<std::string> pairs;
  pairs.reserve(cookies.size());
  for (const CanonicalCookie& c : cookies) {
    pairs.push_back(absl::StrCat(c.name, "=", c.value));
    auto it = cookies_.find(Key(c.domain, c.path, c.name));
    if (it != cookies_.end()) it->second.last_access = now;
  }
  if (!cookies.empty()) changed_ = true;
  return absl::StrJoin(pairs, "; ");
}

std::vector<CanonicalCookie> CookieJar::AllCookies() const {
  std::vector<CanonicalCookie> out;
  out.reserve(cookies_.size());
  for (const auto& [key, cookie] : cookies_) out.push_back(cookie);
  return out;
}

void CookieJar::DeleteAll() {
  if (!cookies_.empty()) changed_ = true;
  cookies_.clear();
}

std::string CookieJar::Serialize(absl::Time now) const {
  pb::StoredCookies stored;
  for (const auto& [key, c] : cookies_) {
    if (c.IsExpired(now)) continue;
    pb::StoredCookie* p = stored.add_cookies();
    p->set_name(c.name);
    p->set_value(c.value);
    p->set_domain(c.domain);
    p->set_host_only(c.host_only);
    p->set_path(c.path);
    p->set_secure(c.secure);
    p->set_http_only(c.http_only);
    p->set_persistent(c.persistent);
    p->set_expiry_unix_micros(c.persistent ? ToMicros(c.expiry) : 0);
    p->set_creation_unix_micros(ToMicros(c.creation));
    p->set_last_access_unix_micros(ToMicros(c.last_access));
  }
  return FrameFileContents(kMagic, kVersion, stored.SerializeAsString());
}

absl::StatusOr<CookieJar> CookieJar::Parse(const std::string& bytes,
                                           const std::string& name,
                                           absl::Time now, Limits limits) {
  auto corrupt = [&name](absl::string_view why) {
    return CorruptFileError(name, why, "move it away to start with no cookies");
  };
  absl::StatusOr<std::string> payload =
      UnframeFileContents(bytes, kMagic, kVersion);
  if (!payload.ok()) return corrupt(payload.status().message());
  pb::StoredCookies stored;
  if (!stored.ParseFromString(*payload))
    return corrupt("payload does not parse");

  CookieJar jar(limits);
  for (const pb::StoredCookie& p : stored.cookies()) {
    absl::StatusOr<CanonicalCookie> cookie = FromProto(p);
    if (!cookie.ok()) return corrupt(cookie.status().message());
    Key key(cookie->domain, cookie->path, cookie->name);
    if (jar.cookies_.count(key))
      return corrupt(absl::StrCat("duplicate cookie '", cookie->name, "' for ",
                                  cookie->domain, cookie->path));
    if (cookie->IsExpired(now)) {
      jar.changed_ = true;
      continue;
    }
    jar.cookies_.emplace(std::move(key), *std::move(cookie));
  }
  return jar;
}

absl::StatusOr<CookieJar> CookieJar::Load(const std::string& path,
                                          absl::Time now, Limits limits) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT) return CookieJar(limits);
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path, now, limits);
}

absl::Status CookieJar::Save(const std::string& path, absl::Time now) {
  absl::Status status = WriteFileAtomically(path, Serialize(now));
  if (status.ok()) changed_ = false;
  return status;
}

}  // namespace net
