#include "net/http/http_chunked_decoder.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

constexpr size_t kMaxLineLength = 4096;

}  // namespace

int HttpChunkedDecoder::Fail(const char* why) {
  error_ = why;
  return ERR_INVALID_CHUNKED_ENCODING;
}

int HttpChunkedDecoder::ParseLine(const std::string& line) {
  if (reached_last_chunk_) {
    // Trailer section: an empty line ends it.
    if (line.empty()) {
      reached_eof_ = true;
      return OK;
    }
    trailer_bytes_ += line.size() + 2;
    if (trailer_bytes_ > kMaxTrailerBytes)
      return Fail("the trailer section exceeds 64 KB");
    return OK;
  }
  if (chunk_terminator_remaining_) {
    if (!line.empty()) return Fail("no CRLF after the chunk data");
    chunk_terminator_remaining_ = false;
    return OK;
  }
  size_t end = line.find(';');
  std::string size_text = line.substr(0, end);
  while (!size_text.empty() &&
         (size_text.back() == ' ' || size_text.back() == '\t'))
    size_text.pop_back();
  if (size_text.empty()) return Fail("empty chunk size");
  for (char c : size_text) {
    if (!absl::ascii_isxdigit(c)) return Fail("chunk size is not hexadecimal");
  }
  // Leading zeros are allowed and do not count; past 11 significant hex
  // digits the size is over kMaxChunkSize anyway (and could overflow).
  size_t first = size_text.find_first_not_of('0');
  if (first == std::string::npos) first = size_text.size();
  if (size_text.size() - first > 11)
    return Fail("chunk size over the 2^40-byte limit");
  int64_t size = 0;
  for (size_t i = first; i < size_text.size(); ++i) {
    char c = size_text[i];
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
    if (line_buf_.size() > kMaxLineLength)
      return Fail("a chunk-size or trailer line exceeds 4096 bytes");
    pos += take;
    if (!lf) break;
    pos += 1;  // The LF.
    if (!line_buf_.empty() && line_buf_.back() == '\r') line_buf_.pop_back();
    int rv = ParseLine(line_buf_);
    line_buf_.clear();
    if (rv != OK) return rv;
  }
  return out;
}

}  // namespace net
