#include "net/http/parsed_cookie.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace net {
namespace {

// Strips RFC 5234 WSP (space and horizontal tab) from both ends.
absl::string_view TrimWsp(absl::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// RFC 6265bis: a control character other than tab anywhere makes the whole
// Set-Cookie value ignored (a NUL or bare CR must not split a cookie).
bool HasForbiddenControl(absl::string_view s) {
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7f) return true;
  }
  return false;
}

// Takes the text up to (not including) the first |delim| from |*rest|, and
// leaves |*rest| positioned at that delimiter (or empty).
absl::string_view TakeUntil(absl::string_view* rest, char delim) {
  size_t pos = rest->find(delim);
  absl::string_view head = rest->substr(0, pos);
  rest->remove_prefix(head.size());
  return head;
}

// Max-Age (RFC 6265 5.2.2): an optional '-' then digits, nothing else.
// Saturates far beyond any useful lifetime instead of overflowing.
std::optional<int64_t> ParseMaxAge(absl::string_view v) {
  constexpr int64_t kLimit = int64_t{1} << 40;  // ~35,000 years
  bool negative = false;
  if (!v.empty() && v.front() == '-') {
    negative = true;
    v.remove_prefix(1);
  }
  if (v.empty()) return std::nullopt;
  int64_t n = 0;
  for (char c : v) {
    if (!absl::ascii_isdigit(c)) return std::nullopt;
    if (n < kLimit) n = n * 10 + (c - '0');
  }
  if (n > kLimit) n = kLimit;
  return negative ? -n : n;
}

// Cookie-date delimiters (RFC 6265 5.1.1).
bool IsDateDelimiter(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u == 0x09 || (u >= 0x20 && u <= 0x2f) || (u >= 0x3b && u <= 0x40) ||
         (u >= 0x5b && u <= 0x60) || (u >= 0x7b && u <= 0x7e);
}

// Reads min..max leading digits of |*s| into |*out| and consumes them.
// Fails if there are fewer than |min| or more than |max| digits.
bool TakeDigits(absl::string_view* s, size_t min, size_t max, int* out) {
  size_t n = 0;
  int value = 0;
  while (n < s->size() && absl::ascii_isdigit((*s)[n])) {
    if (n == max) return false;  // One digit too many.
    value = value * 10 + ((*s)[n] - '0');
    ++n;
  }
  if (n < min) return false;
  s->remove_prefix(n);
  *out = value;
  return true;
}

// hms-time [ non-digit *OCTET ]
bool MatchTime(absl::string_view token, int* h, int* m, int* s) {
  return TakeDigits(&token, 1, 2, h) && absl::ConsumePrefix(&token, ":") &&
         TakeDigits(&token, 1, 2, m) && absl::ConsumePrefix(&token, ":") &&
         TakeDigits(&token, 1, 2, s);
}

// 1*2DIGIT / 2*4DIGIT, then [ non-digit *OCTET ] (TakeDigits already stops
// at the first non-digit and fails on one digit too many).
bool MatchNumber(absl::string_view token, size_t min, size_t max, int* out) {
  return TakeDigits(&token, min, max, out);
}

bool MatchMonth(absl::string_view token, int* month) {
  static constexpr std::array<absl::string_view, 12> kMonths = {
      "jan", "feb", "mar", "apr", "may", "jun",
      "jul", "aug", "sep", "oct", "nov", "dec"};
  if (token.size() < 3) return false;
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (absl::EqualsIgnoreCase(token.substr(0, 3), kMonths[i])) {
      *month = static_cast<int>(i) + 1;
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<absl::Time> ParseCookieDate(absl::string_view text) {
  bool have_time = false, have_day = false, have_month = false,
       have_year = false;
  int hour = 0, minute = 0, second = 0, day = 0, month = 0, year = 0;
  while (!text.empty()) {
    while (!text.empty() && IsDateDelimiter(text.front()))
      text.remove_prefix(1);
    size_t n = 0;
    while (n < text.size() && !IsDateDelimiter(text[n])) ++n;
    absl::string_view token = text.substr(0, n);
    text.remove_prefix(n);
    if (token.empty()) continue;
    if (!have_time && MatchTime(token, &hour, &minute, &second)) {
      have_time = true;
    } else if (!have_day && MatchNumber(token, 1, 2, &day)) {
      have_day = true;
    } else if (!have_month && MatchMonth(token, &month)) {
      have_month = true;
    } else if (!have_year && MatchNumber(token, 2, 4, &year)) {
      have_year = true;
    }
  }
  if (!have_time || !have_day || !have_month || !have_year)
    return absl::InvalidArgumentError(
        "cookie date lacks a time, day, month or year");
  if (year >= 70 && year <= 99) year += 1900;
  if (year >= 0 && year <= 69) year += 2000;
  if (day < 1 || day > 31 || year < 1601 || hour > 23 || minute > 59 ||
      second > 59)
    return absl::InvalidArgumentError("cookie date out of range");
  absl::CivilDay civil_day(year, month, day);
  if (civil_day.day() != day)  // February 30th normalises to March.
    return absl::InvalidArgumentError(
        "cookie date names a day that does not exist");
  return absl::FromCivil(
      absl::CivilSecond(year, month, day, hour, minute, second),
      absl::UTCTimeZone());
}

absl::StatusOr<ParsedCookie> ParsedCookie::Parse(absl::string_view set_cookie) {
  if (HasForbiddenControl(set_cookie))
    return absl::InvalidArgumentError("cookie contains a control character");
  absl::string_view rest = set_cookie;
  absl::string_view name_value = TakeUntil(&rest, ';');
  size_t eq = name_value.find('=');
  if (eq == absl::string_view::npos)
    return absl::InvalidArgumentError(
        "cookie has no '=' in its name-value pair");
  ParsedCookie cookie;
  absl::string_view name = TrimWsp(name_value.substr(0, eq));
  absl::string_view value = TrimWsp(name_value.substr(eq + 1));
  if (name.empty())
    return absl::InvalidArgumentError("cookie has an empty name");
  if (name.size() + value.size() > kMaxNameValueBytes)
    return absl::InvalidArgumentError(absl::StrCat(
        "cookie name and value exceed ", kMaxNameValueBytes, " bytes"));
  cookie.name = std::string(name);
  cookie.value = std::string(value);

  // |rest| is empty or starts at a ';'.
  while (absl::ConsumePrefix(&rest, ";")) {
    absl::string_view av = TakeUntil(&rest, ';');
    size_t av_eq = av.find('=');
    absl::string_view attr = TrimWsp(av.substr(0, av_eq));
    absl::string_view attr_value = av_eq == absl::string_view::npos
                                       ? absl::string_view()
                                       : TrimWsp(av.substr(av_eq + 1));
    if (attr_value.size() > kMaxAttributeValueBytes) continue;
    if (absl::EqualsIgnoreCase(attr, "expires")) {
      absl::StatusOr<absl::Time> when = ParseCookieDate(attr_value);
      if (when.ok()) cookie.expires = *when;
    } else if (absl::EqualsIgnoreCase(attr, "max-age")) {
      std::optional<int64_t> seconds = ParseMaxAge(attr_value);
      if (seconds.has_value()) cookie.max_age_seconds = seconds;
    } else if (absl::EqualsIgnoreCase(attr, "domain")) {
      absl::string_view domain = attr_value;
      absl::ConsumePrefix(&domain, ".");
      // An empty Domain is ignored (RFC 6265bis), not "every domain".
      if (!domain.empty()) cookie.domain = absl::AsciiStrToLower(domain);
    } else if (absl::EqualsIgnoreCase(attr, "path")) {
      if (attr_value.empty() || attr_value.front() != '/') {
        cookie.path.reset();  // The default path.
      } else {
        cookie.path = std::string(attr_value);
      }
    } else if (absl::EqualsIgnoreCase(attr, "secure")) {
      cookie.secure = true;
    } else if (absl::EqualsIgnoreCase(attr, "httponly")) {
      cookie.http_only = true;
    }
  }
  return cookie;
}

}  // namespace net
