// ParsedCookie: one Set-Cookie header value taken apart by the parsing
// algorithm of RFC 6265 section 5.2 (with the input limits of RFC 6265bis),
// and ParseCookieDate, the cookie-date algorithm of section 5.1.1. Syntax
// only: whether the cookie may be stored for a URL (domain, path, secure,
// public suffixes) is the CookieJar's decision (cookie_jar.h).
//
// Pure functions over absl::string_view with no I/O; a ParsedCookie is a
// plain value owned by its caller. Fuzzed by parsed_cookie_fuzzer.cc.

#ifndef NET_HTTP_PARSED_COOKIE_H_
#define NET_HTTP_PARSED_COOKIE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace net {

struct ParsedCookie {
  // Limits from RFC 6265bis: a name and value longer than this together are
  // rejected; a longer attribute value makes that attribute ignored.
  static constexpr size_t kMaxNameValueBytes = 4096;
  static constexpr size_t kMaxAttributeValueBytes = 1024;

  std::string name;
  std::string value;  // As sent, including any surrounding DQUOTEs.
  // Domain attribute, lower-cased, without its leading dot (one is removed,
  // as the RFC says); unset when absent or empty (last one wins).
  std::optional<std::string> domain;
  // Path attribute when present and starting with '/'; otherwise unset (the
  // jar uses the request's default path).
  std::optional<std::string> path;
  bool secure = false;
  bool http_only = false;
  // Max-Age in seconds (may be <= 0: "expire now"); takes precedence over
  // Expires.
  std::optional<int64_t> max_age_seconds;
  // Expires, when it parsed as a cookie date.
  std::optional<absl::Time> expires;

  // Parse runs RFC 6265 section 5.2 on |set_cookie| (the header value, not
  // the "Set-Cookie:" name). InvalidArgument, naming the reason, for a string
  // the algorithm ignores: no '=' in the name-value pair, an empty name, a
  // control character (other than tab) anywhere, or a name and value over
  // kMaxNameValueBytes. Unknown attributes and unparsable Expires or Max-Age
  // values are ignored, as the RFC says.
  [[nodiscard]] static absl::StatusOr<ParsedCookie> Parse(
      absl::string_view set_cookie);
};

// ParseCookieDate runs RFC 6265 section 5.1.1 on |text| (e.g. "Wed, 21 Oct
// 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37
// 1994"), interpreting it as UTC. InvalidArgument if a time, day of month,
// month or year is missing or out of range (including days the month does
// not have).
[[nodiscard]] absl::StatusOr<absl::Time> ParseCookieDate(
    absl::string_view text);

}  // namespace net

#endif  // NET_HTTP_PARSED_COOKIE_H_
