#include "net/base/url.h"

#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "third_party/ada/ada.h"

namespace net {
namespace {

// Quoted returns |text| for an error message: quoted, with control and
// non-ASCII bytes escaped, and cut after 200 bytes (a URL can be 2 MiB).
std::string Quoted(absl::string_view text) {
  constexpr size_t kShown = 200;
  std::string shown =
      absl::StrCat("'", absl::CHexEscape(text.substr(0, kShown)), "'");
  if (text.size() > kShown) absl::StrAppend(&shown, "...");
  return shown;
}

// ada speaks std::string_view; Debian's abseil has its own string_view.
std::string_view ToStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}
absl::string_view FromStd(std::string_view s) {
  return absl::string_view(s.data(), s.size());
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
  return ParseWithBase(text, nullptr);
}

absl::StatusOr<Url> Url::Resolve(absl::string_view reference) const {
  return ParseWithBase(reference, this);
}

absl::StatusOr<Url> Url::ParseWithBase(absl::string_view text,
                                       const Url* base) {
  auto error = [&](absl::string_view why) {
    if (base == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid URL ", Quoted(text), ": ", why));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("invalid URL ", Quoted(text), " (relative to ",
                     Quoted(base->spec_), "): ", why));
  };
  if (text.size() > kMaxLength)
    return error(absl::StrCat("longer than ", kMaxLength, " bytes"));

  // ada resolves against a parsed base; ours is kept as its canonical text
  // (Url stays a plain value), which parses back to the same URL. A base's
  // fragment never matters to resolution, so its absence does not either.
  std::optional<ada::url_aggregator> ada_base;
  if (base != nullptr) {
    ada::result<ada::url_aggregator> parsed_base =
        ada::parse<ada::url_aggregator>(ToStd(base->spec_));
    if (!parsed_base) return error("the base URL does not parse");
    ada_base = std::move(*parsed_base);
  }
  ada::result<ada::url_aggregator> parsed = ada::parse<ada::url_aggregator>(
      ToStd(text), ada_base ? &*ada_base : nullptr);
  if (!parsed) return error("not a valid URL (WHATWG URL Standard)");
  // ada 2.9.2 can leave a "." segment behind an empty one ("http:Q//.:/./"
  // keeps "//.:/./"), which parsing its href again removes (url_fuzzer
  // found it): parse again until the href is a fixed point, so that spec()
  // always parses to the same URL.
  for (int i = 0; i < 2; ++i) {
    ada::result<ada::url_aggregator> again =
        ada::parse<ada::url_aggregator>(std::string(parsed->get_href()));
    if (!again || again->get_href() == parsed->get_href()) break;
    parsed = std::move(again);
  }

  // The policy: what this stack fetches.
  std::string_view protocol = parsed->get_protocol();  // "https:"
  if (protocol.empty() || protocol.back() != ':')
    return error("no scheme");  // ada always gives one; kept as a guard
  std::string_view scheme = protocol.substr(0, protocol.size() - 1);
  if (scheme != "http" && scheme != "https") {
    return error(absl::StrCat("unsupported scheme ", Quoted(FromStd(scheme)),
                              " (only http and https)"));
  }
  if (parsed->has_credentials())
    return error("userinfo (user:password@) is not supported");

  Url url;
  url.scheme_ = std::string(scheme);
  url.port_ = DefaultPortForScheme(url.scheme_);
  std::string_view port = parsed->get_port();  // empty for a default port
  if (!port.empty()) {
    uint32_t value = 0;
    if (!absl::SimpleAtoi(FromStd(port), &value) || value > 65535)
      return error("bad port");  // ada checks this; kept as a guard
    if (value == 0) return error("port 0 cannot be fetched");
    url.port_ = static_cast<uint16_t>(value);
    url.explicit_port_ = true;
  }
  std::string_view host = parsed->get_hostname();
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) return error("empty host");
  url.host_ = std::string(host);

  // The canonical href, cut before the fragment: spec, and from the path on,
  // the request target.
  std::string_view href = parsed->get_href();
  const ada::url_components& parts = parsed->get_components();
  size_t end = parts.hash_start == ada::url_components::omitted
                   ? href.size()
                   : parts.hash_start;
  if (end > href.size() || parts.pathname_start >= end ||
      href[parts.pathname_start] != '/')
    return error("no path");  // never for http(s); kept as a guard
  if (end > kMaxLength)
    return error(absl::StrCat("longer than ", kMaxLength,
                              " bytes once percent-encoded"));
  url.spec_ = std::string(href.substr(0, end));
  url.path_ = std::string(
      href.substr(parts.pathname_start, end - parts.pathname_start));
  return url;
}

std::string Url::HostHeader() const {
  std::string host = host_.find(':') != std::string::npos
                         ? absl::StrCat("[", host_, "]")
                         : host_;
  if (port_ == DefaultPortForScheme(scheme_)) return host;
  return absl::StrCat(host, ":", port_);
}

}  // namespace net
