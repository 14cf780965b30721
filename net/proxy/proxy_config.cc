#include "net/proxy/proxy_config.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace net {
namespace {

// The text with the password of its userinfo (if any) replaced by "***", for
// error messages.
std::string Redacted(absl::string_view text) {
  size_t start = text.find("://");
  start = start == absl::string_view::npos ? 0 : start + 3;
  absl::string_view rest = text.substr(start);
  const size_t slash = rest.find('/');
  const size_t at = rest.substr(0, slash).rfind('@');
  if (at == absl::string_view::npos) return std::string(text);
  const size_t colon = rest.substr(0, at).find(':');
  if (colon == absl::string_view::npos) return std::string(text);
  return absl::StrCat(text.substr(0, start), rest.substr(0, colon + 1), "***",
                      rest.substr(at));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes |in|; nullopt for a '%' not followed by two hex digits.
std::optional<std::string> PercentDecode(absl::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return std::nullopt;  // Not two digits after.
    const int hi = HexValue(in[i + 1]);
    const int lo = HexValue(in[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Parses a decimal port 1..65535 (digits only).
std::optional<uint16_t> ParsePort(absl::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  for (char c : text)
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
  uint32_t port = 0;
  if (!absl::SimpleAtoi(text, &port) || port == 0 || port > 65535)
    return std::nullopt;
  return static_cast<uint16_t>(port);
}

// Canonicalizes a host as a URL host (lower case, IDNA, IPv4 forms, IPv6
// compressed); |host| is bracketed for IPv6. Error: why.
absl::StatusOr<std::string> CanonicalHost(absl::string_view host) {
  if (host.empty()) return absl::InvalidArgumentError("empty host");
  for (char c : host) {
    // The URL parser would take these as delimiters or drop them.
    if (c == '/' || c == '?' || c == '#' || c == '@' || c == '\\' ||
        static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid host '", absl::CHexEscape(host), "'"));
    }
  }
  absl::StatusOr<Url> url = Url::Parse(absl::StrCat("http://", host, "/"));
  if (!url.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid host '", absl::CHexEscape(host), "'"));
  }
  return url->host();
}

std::string BracketIfIPv6(const std::string& host) {
  return host.find(':') != std::string::npos ? absl::StrCat("[", host, "]")
                                             : host;
}

// Whether the first |bits| bits of |a| and |b| (same family) agree.
bool PrefixMatches(const IPAddress& a, const IPAddress& b, int bits) {
  if (a.size() != b.size()) return false;
  int full = bits / 8;
  for (int i = 0; i < full; ++i)
    if (a.bytes()[i] != b.bytes()[i]) return false;
  const int rest = bits % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a.bytes()[full] & mask) == (b.bytes()[full] & mask);
}

// A getenv value, empty counting as unset (curl_getenv's rule).
std::optional<std::string> Env(ProxyConfig::GetEnv getenv, const char* name) {
  const char* value = getenv(name);
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  return std::string(value);
}

// The first of |names| that is set, and its name.
std::optional<std::pair<const char*, std::string>> FirstEnv(
    ProxyConfig::GetEnv getenv, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (std::optional<std::string> v = Env(getenv, name))
      return std::make_pair(name, *std::move(v));
  }
  return std::nullopt;
}

absl::Status Prefixed(absl::string_view what, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(what, ": ", status.message()));
}

}  // namespace

// ProxyServer ---------------------------------------------------------------

absl::StatusOr<ProxyServer> ProxyServer::Parse(absl::string_view text) {
  const std::string quoted = absl::StrCat("proxy '", Redacted(text), "'");
  auto invalid = [&quoted](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(quoted, ": ", why));
  };
  absl::string_view rest = absl::StripAsciiWhitespace(text);
  if (rest.empty()) return invalid("empty");
  const size_t sep = rest.find("://");
  if (sep != absl::string_view::npos) {
    const std::string scheme = absl::AsciiStrToLower(rest.substr(0, sep));
    rest.remove_prefix(sep + 3);
    if (scheme == "https") {
      return absl::UnimplementedError(absl::StrCat(
          quoted,
          ": HTTPS proxies (TLS to the proxy) are not supported; use an "
          "http:// proxy (https URLs still get TLS end to end through its "
          "CONNECT tunnel)"));
    }
    if (scheme == "socks4" || scheme == "socks4a" || scheme == "socks5" ||
        scheme == "socks5h") {
      return absl::UnimplementedError(absl::StrCat(
          quoted, ": SOCKS proxies are not supported; only http:// proxies"));
    }
    if (scheme != "http") {
      return invalid(absl::StrCat("unknown proxy scheme '",
                                  absl::CHexEscape(scheme),
                                  "' (only http:// is supported)"));
    }
  }
  // A trailing "/" is allowed (curl's examples carry one); nothing else
  // after the authority.
  const size_t end = rest.find_first_of("/?#");
  if (end != absl::string_view::npos) {
    if (rest.substr(end) != "/")
      return invalid("a proxy has no path, query or fragment");
    rest = rest.substr(0, end);
  }
  ProxyServer proxy;
  const size_t at = rest.rfind('@');
  if (at != absl::string_view::npos) {
    absl::string_view userinfo = rest.substr(0, at);
    rest.remove_prefix(at + 1);
    const size_t colon = userinfo.find(':');
    std::optional<std::string> user = PercentDecode(userinfo.substr(0, colon));
    std::optional<std::string> password =
        colon == absl::string_view::npos
            ? std::string()
            : PercentDecode(userinfo.substr(colon + 1));
    if (!user || !password)
      return invalid("malformed percent-encoding in the credentials");
    if (user->empty()) return invalid("empty user name before '@'");
    proxy.username_ = *std::move(user);
    proxy.password_ = *std::move(password);
    proxy.has_credentials_ = true;
  }
  absl::string_view host = rest;
  absl::string_view port_text;
  bool has_port = false;
  if (absl::StartsWith(rest, "[")) {
    const size_t close = rest.find(']');
    if (close == absl::string_view::npos) return invalid("unclosed '['");
    host = rest.substr(0, close + 1);
    absl::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return invalid("junk after ']'");
      port_text = after.substr(1);
      has_port = true;
    }
  } else {
    const size_t colon = rest.find(':');
    if (colon != absl::string_view::npos) {
      if (rest.find(':', colon + 1) != absl::string_view::npos)
        return invalid("an IPv6 address must be in brackets: [::1]:3128");
      host = rest.substr(0, colon);
      port_text = rest.substr(colon + 1);
      has_port = true;
    }
  }
  if (has_port) {
    std::optional<uint16_t> port = ParsePort(port_text);
    if (!port) {
      return invalid(absl::StrCat("bad port '", absl::CHexEscape(port_text),
                                  "' (1 to 65535)"));
    }
    proxy.port_ = *port;
  }
  absl::StatusOr<std::string> canonical = CanonicalHost(host);
  if (!canonical.ok()) return invalid(canonical.status().message());
  proxy.host_ = *std::move(canonical);
  return proxy;
}

std::string ProxyServer::HostPort() const {
  return absl::StrCat(BracketIfIPv6(host_), ":", port_);
}

std::string ProxyServer::ToString() const {
  return absl::StrCat("http://", HostPort());
}

std::string ProxyServer::BasicAuthorization() const {
  if (!has_credentials_) return "";
  return absl::StrCat(
      "Basic ", absl::Base64Escape(absl::StrCat(username_, ":", password_)));
}

// ProxyBypassRules ----------------------------------------------------------

absl::StatusOr<ProxyBypassRules::Rule> ProxyBypassRules::ParseRule(
    absl::string_view entry) {
  auto invalid = [entry](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("no_proxy entry '", absl::CHexEscape(entry), "': ", why));
  };
  Rule rule;
  absl::string_view rest = entry;
  // "[v6]", "[v6]:port", "[v6]/bits".
  if (absl::StartsWith(rest, "[")) {
    const size_t close = rest.find(']');
    if (close == absl::string_view::npos) return invalid("unclosed '['");
    std::optional<IPAddress> address =
        IPAddress::Parse(rest.substr(1, close - 1));
    if (!address || !address->IsIPv6())
      return invalid("not an IPv6 address in brackets");
    rule.address = address;
    rule.prefix_bits = 128;
    rest = rest.substr(close + 1);
    if (absl::StartsWith(rest, ":")) {
      std::optional<uint16_t> port = ParsePort(rest.substr(1));
      if (!port) return invalid("bad port (1 to 65535)");
      rule.port = port;
      return rule;
    }
    if (rest.empty()) return rule;
    if (!absl::StartsWith(rest, "/")) return invalid("junk after ']'");
    // The prefix length is read below.
  } else if (std::count(rest.begin(), rest.end(), ':') >= 2) {
    // A bare IPv6 address, maybe with /bits (no port: it would be
    // ambiguous).
    const size_t slash = rest.find('/');
    std::optional<IPAddress> address = IPAddress::Parse(rest.substr(0, slash));
    if (!address || !address->IsIPv6()) return invalid("not an IPv6 address");
    rule.address = address;
    rule.prefix_bits = 128;
    rest = slash == absl::string_view::npos ? absl::string_view()
                                            : rest.substr(slash);
    if (rest.empty()) return rule;
  } else {
    // name[:port], a.b.c.d[:port] or a.b.c.d/bits.
    absl::string_view host = rest;
    const size_t slash = rest.find('/');
    const size_t colon = rest.find(':');
    if (slash != absl::string_view::npos) {
      host = rest.substr(0, slash);
      rest = rest.substr(slash);
      std::optional<IPAddress> address = IPAddress::Parse(host);
      if (!address || !address->IsIPv4())
        return invalid("a /prefix length needs an IP address before it");
      rule.address = address;
      rule.prefix_bits = 32;
    } else {
      if (colon != absl::string_view::npos) {
        host = rest.substr(0, colon);
        std::optional<uint16_t> port = ParsePort(rest.substr(colon + 1));
        if (!port) return invalid("bad port (1 to 65535)");
        rule.port = port;
      }
      // curl ignores a leading dot (".example.com" is a suffix as
      // "example.com" is) and a trailing one.
      if (absl::StartsWith(host, ".")) host.remove_prefix(1);
      if (absl::EndsWith(host, ".")) host.remove_suffix(1);
      if (host.empty()) return invalid("empty host");
      // One leading and one trailing dot are curl's; "..example.com" or
      // "example.com.." has an empty label (and would print as a rule that
      // reparses to another: the fuzzer's find).
      if (absl::StartsWith(host, ".") || absl::EndsWith(host, "."))
        return invalid("empty label");
      if (host == "*") return invalid("'*' must be the whole list");
      if (host.find('*') != absl::string_view::npos) {
        // curl takes "*.example.com" literally: it never matches. Refused
        // rather than silently never bypassing anything.
        return invalid(
            "no wildcards but a lone '*' (write '.example.com' for a domain "
            "and every host under it)");
      }
      // curl compares names as written: no percent-decoding.
      if (host.find('%') != absl::string_view::npos)
        return invalid("'%' in a host name");
      absl::StatusOr<std::string> canonical = CanonicalHost(host);
      if (!canonical.ok()) return invalid(canonical.status().message());
      // What the canonical form may not hold: the list's own syntax (IDNA
      // maps a fullwidth comma to ','), or it would print as another list.
      if (canonical->find_first_of(",; \t*/%[]") != std::string::npos ||
          absl::StartsWith(*canonical, "."))
        return invalid("not a host name");
      if (std::optional<IPAddress> address = IPAddress::Parse(*canonical)) {
        rule.address = address;
        rule.prefix_bits = address->IsIPv4() ? 32 : 128;
      } else {
        rule.name = *std::move(canonical);
        if (absl::EndsWith(rule.name, "."))
          rule.name.pop_back();  // The URL parser keeps a trailing dot.
        // Labels IDNA emptied (soft hyphens map to nothing) leave "a..":
        // an empty label, which would print as a rule that reparses to
        // another.
        if (rule.name.empty() || absl::EndsWith(rule.name, ".") ||
            absl::StrContains(rule.name, ".."))
          return invalid("empty label");
      }
      return rule;
    }
  }
  // rest is "/bits".
  const int max_bits = rule.address->IsIPv4() ? 32 : 128;
  absl::string_view bits_text = rest.substr(1);
  int bits = -1;
  if (bits_text.empty() || bits_text.size() > 3 ||
      !std::all_of(bits_text.begin(), bits_text.end(),
                   [](char c) {
                     return absl::ascii_isdigit(static_cast<unsigned char>(c));
                   }) ||
      !absl::SimpleAtoi(bits_text, &bits) || bits > max_bits) {
    return invalid(absl::StrCat("bad prefix length (0 to ", max_bits, ")"));
  }
  rule.prefix_bits = bits;
  return rule;
}

absl::StatusOr<ProxyBypassRules> ProxyBypassRules::Parse(
    absl::string_view list) {
  ProxyBypassRules rules;
  absl::string_view trimmed = absl::StripAsciiWhitespace(list);
  if (trimmed == "*") {
    rules.match_all_ = true;
    return rules;
  }
  for (absl::string_view entry :
       absl::StrSplit(trimmed, absl::ByAnyChar(", \t"), absl::SkipEmpty())) {
    absl::StatusOr<Rule> rule = ParseRule(entry);
    if (!rule.ok()) return rule.status();
    rules.rules_.push_back(*std::move(rule));
  }
  return rules;
}

bool ProxyBypassRules::Matches(const Url& url) const {
  return Matches(url.host(), url.port());
}

bool ProxyBypassRules::Matches(absl::string_view host, uint16_t port) const {
  if (match_all_) return true;
  std::string name = absl::AsciiStrToLower(host);
  if (absl::StartsWith(name, "[") && absl::EndsWith(name, "]"))
    name = name.substr(1, name.size() - 2);
  if (absl::EndsWith(name, ".")) name.pop_back();
  const std::optional<IPAddress> address = IPAddress::Parse(name);
  for (const Rule& rule : rules_) {
    if (rule.port && *rule.port != port) continue;
    if (rule.address) {
      if (address && PrefixMatches(*address, *rule.address, rule.prefix_bits))
        return true;
      continue;
    }
    if (address) continue;  // A name rule never matches an address.
    if (name == rule.name) return true;
    if (name.size() > rule.name.size() && absl::EndsWith(name, rule.name) &&
        name[name.size() - rule.name.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

std::string ProxyBypassRules::ToString() const {
  if (match_all_) return "*";
  std::vector<std::string> parts;
  for (const Rule& rule : rules_) {
    std::string s;
    if (rule.address) {
      s = rule.address->IsIPv6()
              ? absl::StrCat("[", rule.address->ToString(), "]")
              : rule.address->ToString();
      if (rule.prefix_bits != (rule.address->IsIPv4() ? 32 : 128))
        absl::StrAppend(&s, "/", rule.prefix_bits);
    } else {
      s = rule.name;
    }
    if (rule.port) absl::StrAppend(&s, ":", *rule.port);
    parts.push_back(std::move(s));
  }
  return absl::StrJoin(parts, ",");
}

// ProxyConfig ---------------------------------------------------------------

ProxyConfig ProxyConfig::ForAll(ProxyServer proxy) {
  ProxyConfig config;
  config.http_proxy = proxy;
  config.https_proxy = std::move(proxy);
  return config;
}

absl::StatusOr<ProxyConfig> ProxyConfig::FromEnvironment(GetEnv getenv) {
  return FromCurlOptions(std::nullopt, std::nullopt, getenv);
}

absl::StatusOr<ProxyConfig> ProxyConfig::FromCurlOptions(
    std::optional<absl::string_view> proxy_flag,
    std::optional<absl::string_view> noproxy_flag, GetEnv getenv) {
  ProxyConfig config;
  if (proxy_flag) {
    // --proxy "" turns every proxy off, the environment's too.
    if (proxy_flag->empty()) return config;
    absl::StatusOr<ProxyServer> proxy = ProxyServer::Parse(*proxy_flag);
    if (!proxy.ok()) return Prefixed("--proxy", proxy.status());
    config = ForAll(*std::move(proxy));
  } else {
    auto read = [](const std::pair<const char*, std::string>& var)
        -> absl::StatusOr<ProxyServer> {
      absl::StatusOr<ProxyServer> proxy = ProxyServer::Parse(var.second);
      if (!proxy.ok()) return Prefixed(var.first, proxy.status());
      return proxy;
    };
    // http_proxy in lower case only (httpoxy, see the header).
    if (auto var = FirstEnv(getenv, {"http_proxy"})) {
      absl::StatusOr<ProxyServer> proxy = read(*var);
      if (!proxy.ok()) return proxy.status();
      config.http_proxy = *std::move(proxy);
    }
    if (auto var = FirstEnv(getenv, {"https_proxy", "HTTPS_PROXY"})) {
      absl::StatusOr<ProxyServer> proxy = read(*var);
      if (!proxy.ok()) return proxy.status();
      config.https_proxy = *std::move(proxy);
    }
    if (!config.http_proxy || !config.https_proxy) {
      if (auto var = FirstEnv(getenv, {"all_proxy", "ALL_PROXY"})) {
        absl::StatusOr<ProxyServer> proxy = read(*var);
        if (!proxy.ok()) return proxy.status();
        if (!config.http_proxy) config.http_proxy = *proxy;
        if (!config.https_proxy) config.https_proxy = *proxy;
      }
    }
  }
  if (noproxy_flag) {
    absl::StatusOr<ProxyBypassRules> rules =
        ProxyBypassRules::Parse(*noproxy_flag);
    if (!rules.ok()) return Prefixed("--noproxy", rules.status());
    config.bypass = *std::move(rules);
  } else if (auto var = FirstEnv(getenv, {"no_proxy", "NO_PROXY"})) {
    absl::StatusOr<ProxyBypassRules> rules =
        ProxyBypassRules::Parse(var->second);
    if (!rules.ok()) return Prefixed(var->first, rules.status());
    config.bypass = *std::move(rules);
  }
  return config;
}

const ProxyServer* ProxyConfig::ProxyFor(const Url& url) const {
  const std::optional<ProxyServer>& proxy =
      url.SchemeIsCryptographic() ? https_proxy : http_proxy;
  if (!proxy || bypass.Matches(url)) return nullptr;
  return &*proxy;
}

std::string ProxyConfig::ToString() const {
  if (is_direct()) return "direct";
  std::string out = absl::StrCat(
      "http: ", http_proxy ? http_proxy->ToString() : "direct",
      ", https: ", https_proxy ? https_proxy->ToString() : "direct");
  if (!bypass.empty()) absl::StrAppend(&out, ", no_proxy: ", bypass.ToString());
  return out;
}

}  // namespace net
