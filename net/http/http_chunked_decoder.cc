#include "net/http/http_chunked_decoder.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "net/base/net_errors.h"
#include "net/http/http_field_grammar.h"

namespace net {
namespace {

// chunk-ext (RFC 9112 7.1.1):
//   *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
// with chunk-ext-name a token and chunk-ext-val a token or quoted-string.
bool IsValidChunkExtension(absl::string_view s) {
  while (!s.empty()) {
    ConsumeOws(&s);
    if (!absl::ConsumePrefix(&s, ";")) return false;
    ConsumeOws(&s);
    if (ConsumeToken(&s).empty()) return false;
    absl::string_view after_name = s;
    ConsumeOws(&s);
    if (absl::ConsumePrefix(&s, "=")) {
      ConsumeOws(&s);
      if (ConsumeToken(&s).empty() && !ConsumeQuotedString(&s)) return false;
    } else {
      // Whitespace only counts before ";" or "=": the loop wants a ";" next.
      s = after_name;
    }
  }
  return true;
}

}  // namespace

int HttpChunkedDecoder::Fail(const char* why) {
  error_ = why;
  return ERR_INVALID_CHUNKED_ENCODING;
}

int HttpChunkedDecoder::ParseTrailerLine(absl::string_view line) {
  trailer_bytes_ += line.size() + 2;
  if (trailer_bytes_ > kMaxTrailerBytes)
    return Fail("the trailer section exceeds 64 KB");
  if (line.front() == ' ' || line.front() == '\t') {
    // obs-fold: continues the previous trailer field (discarded anyway);
    // whitespace before the first one is invalid (RFC 9112 2.2).
    if (!seen_trailer_field_)
      return Fail("whitespace before the first trailer");
    return OK;
  }
  // field-line = field-name ":" OWS field-value OWS, the value without NUL
  // (RFC 9110 5.5; CR and LF cannot be in a line here).
  size_t colon = line.find(':');
  if (colon == absl::string_view::npos)
    return Fail("trailer line without colon");
  absl::string_view name = line.substr(0, colon);
  if (ConsumeToken(&name).empty() || !name.empty())
    return Fail("bad trailer name");
  if (line.find('\0') != absl::string_view::npos)
    return Fail("NUL in a trailer value");
  seen_trailer_field_ = true;
  return OK;
}

int HttpChunkedDecoder::ParseLine(absl::string_view line) {
  if (reached_last_chunk_) {
    // Trailer section: an empty line ends it.
    if (line.empty()) {
      reached_eof_ = true;
      return OK;
    }
    return ParseTrailerLine(line);
  }
  if (chunk_terminator_remaining_) {
    if (!line.empty()) return Fail("no CRLF after the chunk data");
    chunk_terminator_remaining_ = false;
    return OK;
  }
  // chunk-size = 1*HEXDIG, then chunk-ext (RFC 9112 7.1).
  size_t digits = 0;
  while (digits < line.size() && absl::ascii_isxdigit(line[digits])) ++digits;
  if (digits == 0) {
    return Fail(line.empty() ? "empty chunk size"
                             : "chunk size is not hexadecimal");
  }
  absl::string_view size_text = line.substr(0, digits);
  absl::string_view extension = line.substr(digits);
  if (!IsValidChunkExtension(extension))
    return Fail("malformed chunk size or extension");
  extension_bytes_ += extension.size();
  if (extension_bytes_ > kMaxChunkExtensionBytes)
    return Fail("chunk extensions exceed 64 KB");
  // Leading zeros are allowed and do not count; past 11 significant hex
  // digits the size is over kMaxChunkSize anyway (and could overflow).
  while (size_text.size() > 1 && size_text.front() == '0')
    size_text.remove_prefix(1);
  if (size_text.size() > 11) return Fail("chunk size over the 2^40-byte limit");
  int64_t size = 0;
  for (char c : size_text) {
    size =
        size * 16 +
        (absl::ascii_isdigit(c) ? c - '0' : absl::ascii_tolower(c) - 'a' + 10);
  }
  if (size > kMaxChunkSize) return Fail("chunk size over the 2^40-byte limit");
  if (size == 0) {
    reached_last_chunk_ = true;
  } else {
    chunk_remaining_ = size;
  }
  return OK;
}

int HttpChunkedDecoder::FilterBuf(char* buf, int len) {
  int out = 0;
  int pos = 0;
  while (pos < len) {
    if (reached_eof_) {
      bytes_after_eof_ += len - pos;
      break;
    }
    if (chunk_remaining_ > 0) {
      int n = static_cast<int>(std::min<int64_t>(chunk_remaining_, len - pos));
      std::memmove(buf + out, buf + pos, n);
      out += n;
      pos += n;
      chunk_remaining_ -= n;
      if (chunk_remaining_ == 0) chunk_terminator_remaining_ = true;
      continue;
    }
    // Accumulate a line up to LF.
    const char* lf =
        static_cast<const char*>(std::memchr(buf + pos, '\n', len - pos));
    int take = lf ? static_cast<int>(lf - (buf + pos)) : len - pos;
    line_buf_.append(buf + pos, take);
    if (line_buf_.size() + 1 > kMaxLineBytes)
      return Fail("a chunk-size or trailer line exceeds 4096 bytes");
    pos += take;
    if (!lf) break;
    pos += 1;  // The LF.
    // Every line of the chunked framing ends in CRLF (RFC 9112 7.1): a
    // bare LF, or a CR anywhere else, would let two parsers disagree on
    // where a chunk starts.
    absl::string_view line = line_buf_;
    if (!absl::ConsumeSuffix(&line, "\r"))
      return Fail("a chunk line ends in a bare LF");
    if (line.find('\r') != absl::string_view::npos)
      return Fail("bare CR in a chunk line");
    int rv = ParseLine(line);
    line_buf_.clear();
    if (rv != OK) return rv;
  }
  return out;
}

}  // namespace net
