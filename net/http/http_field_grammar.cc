#include "net/http/http_field_grammar.h"

#include "absl/strings/ascii.h"

namespace net {
namespace {

// HTAB, SP, VCHAR and obs-text: what qdtext and quoted-pair may carry
// (besides the DQUOTE and backslash qdtext leaves out).
bool IsQuotableOctet(unsigned char c) {
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

}  // namespace

bool IsTokenChar(char c) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

void ConsumeOws(absl::string_view* s) {
  size_t n = 0;
  while (n < s->size() && ((*s)[n] == ' ' || (*s)[n] == '\t')) ++n;
  s->remove_prefix(n);
}

absl::string_view ConsumeToken(absl::string_view* s) {
  size_t n = 0;
  while (n < s->size() && IsTokenChar((*s)[n])) ++n;
  absl::string_view token = s->substr(0, n);
  s->remove_prefix(n);
  return token;
}

bool ConsumeQuotedString(absl::string_view* s, std::string* out) {
  if (s->empty() || s->front() != '"') return false;
  std::string content;
  for (size_t i = 1; i < s->size(); ++i) {
    unsigned char c = static_cast<unsigned char>((*s)[i]);
    if (c == '"') {
      s->remove_prefix(i + 1);
      if (out) *out = std::move(content);
      return true;
    }
    if (c == '\\') {
      if (++i == s->size()) return false;
      c = static_cast<unsigned char>((*s)[i]);
    }
    if (!IsQuotableOctet(c)) return false;
    if (out) content.push_back(static_cast<char>(c));
  }
  return false;  // no closing DQUOTE
}

}  // namespace net
