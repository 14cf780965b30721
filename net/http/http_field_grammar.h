// The token and quoted-string rules of HTTP field values (RFC 9110 section
// 5.6), shared by every parser of a field here: the HTTP/1.1 header block
// and chunk extensions, Alt-Svc (RFC 7838) and the Structured Fields that
// DBSC reads (RFC 9651). Each Consume function advances |s| past what it
// recognised and leaves |s| alone when it recognised nothing. Pure
// functions; thread-safe.

#ifndef NET_HTTP_HTTP_FIELD_GRAMMAR_H_
#define NET_HTTP_HTTP_FIELD_GRAMMAR_H_

#include <string>

#include "absl/strings/string_view.h"

namespace net {

// tchar (RFC 9110 section 5.6.2).
bool IsTokenChar(char c);

// token = 1*tchar.
bool IsToken(absl::string_view s);

// OWS: any run of SP and HTAB.
void ConsumeOws(absl::string_view* s);

// The longest run of tchar at the front of |s| (possibly empty).
absl::string_view ConsumeToken(absl::string_view* s);

// quoted-string (RFC 9110 section 5.6.4): DQUOTE *( qdtext / quoted-pair )
// DQUOTE, where qdtext and the escaped octet are HTAB, SP, VCHAR or
// obs-text. Returns false, leaving |s| alone, when |s| does not start with
// a well-formed one; otherwise its unescaped content goes to |out| if given.
bool ConsumeQuotedString(absl::string_view* s, std::string* out = nullptr);

}  // namespace net

#endif  // NET_HTTP_HTTP_FIELD_GRAMMAR_H_
