#include "cert/obc/obc_scope.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/ip_endpoint.h"

namespace net {
namespace {

bool IsHostChar(char c) {
  return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-' ||
         c == '_' || c == '.';
}

// ValidateDomain checks |host| is a lower-case DNS-style name: 1..253 chars,
// no empty label except one trailing dot.
absl::Status ValidateDomain(absl::string_view host) {
  if (host.empty()) return absl::InvalidArgumentError("empty host");
  if (host.size() > 254) return absl::InvalidArgumentError("host too long");
  absl::string_view name = host;
  if (absl::EndsWith(name, ".")) name.remove_suffix(1);
  if (name.empty()) return absl::InvalidArgumentError("host is only a dot");
  for (char c : name) {
    if (!IsHostChar(c))
      return absl::InvalidArgumentError(
          absl::StrCat("bad character in host '", host, "'"));
  }
  for (absl::string_view label : absl::StrSplit(name, '.')) {
    if (label.empty())
      return absl::InvalidArgumentError(
          absl::StrCat("empty label in '", host, "'"));
    if (label.size() > 63)
      return absl::InvalidArgumentError(
          absl::StrCat("label too long in '", host, "'"));
  }
  return absl::OkStatus();
}

bool IsIpLiteral(absl::string_view host) {
  return IPAddress::Parse(host).has_value();
}

absl::Status ValidateScheme(absl::string_view scheme) {
  if (scheme.empty()) return absl::InvalidArgumentError("empty scheme");
  for (char c : scheme) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '+' &&
        c != '-' && c != '.')
      return absl::InvalidArgumentError(
          absl::StrCat("bad scheme '", scheme, "'"));
  }
  return absl::OkStatus();
}

std::string OriginKey(const Origin& origin) {
  const std::string& host = origin.host();
  if (host.find(':') != std::string::npos)
    return absl::StrCat(origin.scheme(), "://[", host, "]:", origin.port());
  return absl::StrCat(origin.scheme(), "://", host, ":", origin.port());
}

}  // namespace

absl::StatusOr<ObcScope> ObcScope::ForOrigin(const Origin& origin,
                                             ScopeMode mode) {
  if (absl::Status s = ValidateScheme(origin.scheme()); !s.ok()) return s;
  if (origin.port() == 0) return absl::InvalidArgumentError("port 0");
  const std::string& host = origin.host();
  if (host != absl::AsciiStrToLower(host))
    return absl::InvalidArgumentError(
        absl::StrCat("host '", host, "' is not lower case"));
  if (IsIpLiteral(host)) return ObcScope(ScopeMode::kOrigin, OriginKey(origin));
  if (absl::Status s = ValidateDomain(host); !s.ok()) return s;
  if (mode == ScopeMode::kOrigin)
    return ObcScope(ScopeMode::kOrigin, OriginKey(origin));

  absl::string_view name = host;
  if (absl::EndsWith(name, ".")) name.remove_suffix(1);
  if (LastLabelLooksNumeric(name))
    return ObcScope(ScopeMode::kOrigin, OriginKey(origin));
  std::optional<std::string> domain = RegistrableDomain(name);
  // A host that is itself a public suffix (github.io, localhost) has no
  // registrable domain; like cookies, it is its own site.
  return ObcScope(ScopeMode::kRegistrableDomain,
                  domain.has_value() ? *domain : std::string(name));
}

absl::StatusOr<ObcScope> ObcScope::ForInput(absl::string_view input,
                                            ScopeMode mode) {
  std::string text(input);
  if (text.find("://") == std::string::npos)
    text = absl::StrCat("https://", text);
  absl::StatusOr<Url> url = Url::Parse(text);
  if (!url.ok()) return url.status();
  return ForOrigin(url->GetOrigin(), mode);
}

absl::StatusOr<ObcScope> ObcScope::FromStorage(ScopeMode mode,
                                               absl::string_view key) {
  if (mode == ScopeMode::kOrigin) {
    absl::StatusOr<Url> url = Url::Parse(key);
    if (!url.ok()) return url.status();
    absl::StatusOr<ObcScope> scope =
        ForOrigin(url->GetOrigin(), ScopeMode::kOrigin);
    if (!scope.ok()) return scope.status();
    if (scope->key() != key)
      return absl::InvalidArgumentError(
          absl::StrCat("origin scope '", key, "' is not canonical"));
    return scope;
  }
  if (mode != ScopeMode::kRegistrableDomain)
    return absl::InvalidArgumentError("unknown scope mode");
  if (absl::Status s = ValidateDomain(key); !s.ok()) return s;
  if (absl::EndsWith(key, ".") || IsIpLiteral(key) ||
      LastLabelLooksNumeric(key))
    return absl::InvalidArgumentError(
        absl::StrCat("'", key, "' cannot be an eTLD+1 scope"));
  return ObcScope(ScopeMode::kRegistrableDomain, std::string(key));
}

std::string ObcScope::ToString() const {
  return absl::StrCat(ScopeModeToString(mode_), ":", key_);
}

}  // namespace net
