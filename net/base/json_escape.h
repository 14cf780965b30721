// JsonEscape: a string's bytes as the inside of a JSON string literal
// (RFC 8259 section 7), for every JSON this project writes (traces, HAR,
// DBSC's registration and proof bodies, the tools' reports). Pure function;
// thread-safe.

#ifndef NET_BASE_JSON_ESCAPE_H_
#define NET_BASE_JSON_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace net {

// JsonEscape escapes '"', '\\', the control characters and DEL (\n, \r, \t
// by name, the others as \u00XX); other bytes, UTF-8 included, pass as they
// are. No quotes around the result.
std::string JsonEscape(absl::string_view s);

}  // namespace net

#endif  // NET_BASE_JSON_ESCAPE_H_
