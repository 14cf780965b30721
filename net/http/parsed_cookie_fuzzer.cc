// Fuzzes ParsedCookie::Parse and ParseCookieDate with arbitrary bytes, and
// checks what a parsed cookie promises (the jar relies on it).

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "net/http/parsed_cookie.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<net::ParsedCookie> cookie = net::ParsedCookie::Parse(input);
  if (cookie.ok()) {
    if (cookie->name.empty() ||
        cookie->name.size() + cookie->value.size() >
            net::ParsedCookie::kMaxNameValueBytes ||
        cookie->name.find_first_of(";=") != std::string::npos ||
        cookie->value.find(';') != std::string::npos)
      abort();
    if (cookie->domain.has_value() &&
        (cookie->domain->empty() ||
         *cookie->domain != absl::AsciiStrToLower(*cookie->domain)))
      abort();
    if (cookie->path.has_value() &&
        (cookie->path->empty() || (*cookie->path)[0] != '/'))
      abort();
  }
  absl::StatusOr<absl::Time> date = net::ParseCookieDate(input);
  if (date.ok() && *date < absl::FromCivil(absl::CivilSecond(1601, 1, 1),
                                           absl::UTCTimeZone()))
    abort();
  return 0;
}
