#include "net/url_request/redirect_info.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

// The scheme of an absolute reference (RFC 3986 3.1: ALPHA *( ALPHA / DIGIT
// / "+" / "-" / "." ) ":"), lower-cased; "" for a relative reference.
std::string SchemeOf(absl::string_view reference) {
  reference = absl::StripLeadingAsciiWhitespace(reference);
  if (reference.empty() || !absl::ascii_isalpha(reference[0])) return "";
  for (size_t i = 1; i < reference.size(); ++i) {
    const char c = reference[i];
    if (c == ':') return absl::AsciiStrToLower(reference.substr(0, i));
    if (!absl::ascii_isalnum(c) && c != '+' && c != '-' && c != '.') break;
  }
  return "";
}

bool RemoveHeader(std::vector<std::pair<std::string, std::string>>* headers,
                  absl::string_view name) {
  auto end = std::remove_if(
      headers->begin(), headers->end(),
      [&](const auto& h) { return absl::EqualsIgnoreCase(h.first, name); });
  bool removed = end != headers->end();
  headers->erase(end, headers->end());
  return removed;
}

}  // namespace

bool IsRedirectStatus(int status_code) {
  return status_code == 301 || status_code == 302 || status_code == 303 ||
         status_code == 307 || status_code == 308;
}

int ResolveRedirectLocation(const Url& base, absl::string_view location,
                            Url* out, std::string* detail) {
  const std::string scheme = SchemeOf(location);
  if (!scheme.empty() && scheme != "http" && scheme != "https") {
    *detail = absl::StrCat("the redirect to '", location,
                           "' leaves http(s) (scheme ", scheme, ")");
    return ERR_UNSAFE_REDIRECT;
  }
  absl::StatusOr<Url> resolved = base.Resolve(location);
  if (!resolved.ok()) {
    *detail = absl::StrCat("the redirect's Location '", location,
                           "' is not a URL: ", resolved.status().message());
    return ERR_INVALID_REDIRECT;
  }
  // Url accepts only http and https; a resolver that accepted another
  // scheme must still not lead the request there.
  if (resolved->scheme() != "http" && resolved->scheme() != "https") {
    *detail =
        absl::StrCat("the redirect to '", resolved->spec(), "' leaves http(s)");
    return ERR_UNSAFE_REDIRECT;
  }
  *out = *std::move(resolved);
  return OK;
}

RedirectInfo RedirectInfo::Compute(const Url& url, absl::string_view method,
                                   int status_code, Url new_url) {
  RedirectInfo info;
  info.status_code = status_code;
  info.new_method = std::string(method);
  // RFC 9110 15.4.2-15.4.4: a user agent may change POST to GET on 301 and
  // 302 (all do); 303 means "GET the result" for anything but HEAD.
  if ((status_code == 303 && method != "HEAD" && method != "GET") ||
      ((status_code == 301 || status_code == 302) && method == "POST")) {
    info.new_method = "GET";
  }
  info.method_changed = info.new_method != method;
  info.cross_origin = url.GetOrigin() != new_url.GetOrigin();
  info.new_url = std::move(new_url);
  return info;
}

void RedirectInfo::UpdateRequest(
    std::vector<std::pair<std::string, std::string>>* extra_headers,
    std::string* upload_body) const {
  if (method_changed) {
    upload_body->clear();
    for (absl::string_view name :
         {"content-type", "content-length", "content-encoding",
          "content-language", "content-location"})
      RemoveHeader(extra_headers, name);
  }
  if (cross_origin) {
    RemoveHeader(extra_headers, "authorization");
    RemoveHeader(extra_headers, "cookie");
  }
}

}  // namespace net
