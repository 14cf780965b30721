#include "net/base/url.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "net/base/ip_endpoint.h"

namespace net {
namespace {

bool IsValidHostChar(char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_';
}

absl::Status UrlError(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid URL '", text, "': ", why));
}

}  // namespace

std::string Origin::Serialize() const {
  std::string host = host_.find(':') != std::string::npos
                         ? absl::StrCat("[", host_, "]")
                         : host_;
  if (port_ == Url::DefaultPortForScheme(scheme_))
    return absl::StrCat(scheme_, "://", host);
  return absl::StrCat(scheme_, "://", host, ":", port_);
}

std::string Origin::HostPortKey() const {
  return absl::StrCat(host_, ":", port_);
}

uint16_t Url::DefaultPortForScheme(absl::string_view scheme) {
  if (scheme == "http") return 80;
  if (scheme == "https") return 443;
  return 0;
}

absl::StatusOr<Url> Url::Parse(absl::string_view text) {
  Url url;
  size_t scheme_end = text.find("://");
  if (scheme_end == absl::string_view::npos || scheme_end == 0)
    return UrlError(text, "missing scheme");
  url.scheme_ = absl::AsciiStrToLower(text.substr(0, scheme_end));
  if (url.scheme_ != "http" && url.scheme_ != "https")
    return UrlError(text,
                    absl::StrCat("unsupported scheme '", url.scheme_, "'"));

  absl::string_view rest = text.substr(scheme_end + 3);
  size_t fragment = rest.find('#');
  if (fragment != absl::string_view::npos) rest = rest.substr(0, fragment);
  size_t authority_end = rest.find_first_of("/?");
  absl::string_view authority = rest.substr(0, authority_end);
  absl::string_view path = authority_end == absl::string_view::npos
                               ? absl::string_view()
                               : rest.substr(authority_end);
  if (authority.find('@') != absl::string_view::npos)
    return UrlError(text, "userinfo is not supported");

  absl::string_view host = authority;
  absl::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == absl::string_view::npos) return UrlError(text, "unclosed [");
    host = authority.substr(1, close - 1);
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return UrlError(text, "junk after ]");
      port = after.substr(1);
      url.explicit_port_ = true;
    }
    std::optional<IPAddress> ip = IPAddress::Parse(host);
    if (!ip || !ip->IsIPv6()) return UrlError(text, "bad IPv6 literal");
  } else {
    size_t colon = authority.rfind(':');
    if (colon != absl::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      url.explicit_port_ = true;
    }
    for (char c : host) {
      if (!IsValidHostChar(c)) return UrlError(text, "bad character in host");
    }
  }
  if (host.empty()) return UrlError(text, "empty host");
  url.host_ = absl::AsciiStrToLower(host);

  if (url.explicit_port_) {
    uint32_t p;
    if (port.empty() || !absl::SimpleAtoi(port, &p) || p == 0 || p > 65535)
      return UrlError(text, "bad port");
    url.port_ = static_cast<uint16_t>(p);
  } else {
    url.port_ = DefaultPortForScheme(url.scheme_);
  }
  if (path.empty()) {
    url.path_ = "/";
  } else if (path.front() == '?') {
    url.path_ = absl::StrCat("/", path);
  } else {
    url.path_ = std::string(path);
  }
  for (char c : url.path_) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return UrlError(text, "control character or space in path");
  }
  return url;
}

std::string Url::HostHeader() const {
  std::string host = host_.find(':') != std::string::npos
                         ? absl::StrCat("[", host_, "]")
                         : host_;
  if (port_ == DefaultPortForScheme(scheme_)) return host;
  return absl::StrCat(host, ":", port_);
}

std::string Url::spec() const {
  return absl::StrCat(scheme_, "://", HostHeader(), path_);
}

absl::StatusOr<Url> Url::Resolve(absl::string_view reference) const {
  if (reference.find("://") != absl::string_view::npos) return Parse(reference);
  if (reference.substr(0, 2) == "//")
    return Parse(absl::StrCat(scheme_, ":", reference));
  std::string base = absl::StrCat(scheme_, "://", HostHeader());
  if (!reference.empty() && reference.front() == '/')
    return Parse(absl::StrCat(base, reference));
  std::string dir = path_.substr(0, path_.find('?'));
  dir = dir.substr(0, dir.rfind('/') + 1);
  return Parse(absl::StrCat(base, dir, reference));
}

}  // namespace net
