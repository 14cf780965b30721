#include "cert/obc/obc_scope.h"

#include <libpsl.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/ip_endpoint.h"

namespace net {
namespace {

const psl_ctx_t* PslContext() {
  // psl_latest picks the newer of the distribution's list and libpsl's
  // built-in one. Loaded once; intentionally never freed.
  static const psl_ctx_t* const context = [] {
    const psl_ctx_t* latest = psl_latest(nullptr);
    return latest != nullptr ? latest : psl_builtin();
  }();
  return context;
}

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

// LooksNumeric: the last label is all digits (or 0x-hex). Such a host is an
// IPv4 address in some spelling, never a name under a TLD, and libpsl would
// happily call "0.1" the registrable domain of 127.0.0.1.
bool LastLabelLooksNumeric(absl::string_view name) {
  size_t dot = name.rfind('.');
  absl::string_view last =
      dot == absl::string_view::npos ? name : name.substr(dot + 1);
  if (last.empty()) return false;
  if (absl::StartsWith(last, "0x")) return true;
  for (char c : last) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
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

std::optional<std::string> RegistrableDomain(absl::string_view host) {
  if (IsIpLiteral(host)) return std::nullopt;
  absl::string_view name = host;
  if (absl::EndsWith(name, ".")) name.remove_suffix(1);
  if (name.empty() || LastLabelLooksNumeric(name)) return std::nullopt;
  std::string copy(name);
  const char* domain = psl_registrable_domain(PslContext(), copy.c_str());
  if (domain == nullptr) return std::nullopt;
  return std::string(domain);
}

std::string PublicSuffixListInfo() {
  const psl_ctx_t* context = PslContext();
  return absl::StrCat(
      context == psl_builtin() ? "libpsl builtin list" : psl_dist_filename(),
      " (libpsl ", psl_get_version(), ", ", psl_suffix_count(context),
      " suffixes)");
}

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
