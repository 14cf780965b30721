// HttpChunkedDecoder: a sans-I/O decoder for chunked transfer coding
// (RFC 9112 section 7.1). Feed it received bytes; it rewrites them in place
// to the decoded payload. Extensions are checked and skipped, trailers
// checked and discarded. Owned by its user (HttpStreamParser, per body).
//
// Strict where a lenient reading could frame the body differently from
// another parser: every chunk-size line, chunk-data terminator and trailer
// line ends in CRLF (a bare LF or a bare CR is an error); a chunk size is
// 1*HEXDIG (no sign, prefix or trailing whitespace); extensions follow the
// RFC's grammar (BWS ";" name [ "=" token / quoted-string ]); a trailer line
// is "name:" with a token name and no NUL.
//
// Everything it keeps or skips is bounded: a chunk-size or trailer line is
// at most kMaxLineBytes, the extensions of a body at most
// kMaxChunkExtensionBytes in all, the trailer section at most
// kMaxTrailerBytes, and a chunk at most kMaxChunkSize bytes (a larger size
// is an error, not a promise the caller could act on). Every failure is
// ERR_INVALID_CHUNKED_ENCODING, with error() saying why.

#ifndef NET_HTTP_HTTP_CHUNKED_DECODER_H_
#define NET_HTTP_HTTP_CHUNKED_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace net {

class HttpChunkedDecoder {
 public:
  // The largest chunk accepted: 1 TiB (2^40).
  static constexpr int64_t kMaxChunkSize = int64_t{1} << 40;
  // The longest chunk-size, chunk-data terminator or trailer line accepted,
  // CRLF included.
  static constexpr size_t kMaxLineBytes = 4096;
  // The largest trailer section accepted (as a response header block is
  // bounded; see HttpStreamParser::kMaxHeaderBytes).
  static constexpr size_t kMaxTrailerBytes = 64 * 1024;
  // The most chunk-extension bytes a body may carry, over all its chunks:
  // they are framing without payload, so they are bounded like trailers.
  static constexpr size_t kMaxChunkExtensionBytes = 64 * 1024;

  // FilterBuf decodes |buf[0..len)| in place and returns the number of
  // payload bytes now at the start of |buf|, or ERR_INVALID_CHUNKED_ENCODING.
  int FilterBuf(char* buf, int len);
  // reached_eof: the terminating chunk and trailers have been read.
  bool reached_eof() const { return reached_eof_; }
  // Bytes received after the end of the chunked body.
  int bytes_after_eof() const { return bytes_after_eof_; }
  // Why FilterBuf failed ("" before a failure).
  const char* error() const { return error_; }

 private:
  // Processes one line (without its CRLF) of chunk-size, chunk-data
  // terminator or trailer.
  int ParseLine(absl::string_view line);
  // Checks one non-empty trailer line.
  int ParseTrailerLine(absl::string_view line);
  // Records |why| and returns ERR_INVALID_CHUNKED_ENCODING.
  int Fail(const char* why);

  int64_t chunk_remaining_ = 0;
  bool chunk_terminator_remaining_ = false;  // CRLF after chunk data
  bool reached_last_chunk_ = false;
  bool reached_eof_ = false;
  int bytes_after_eof_ = 0;
  size_t trailer_bytes_ = 0;
  bool seen_trailer_field_ = false;
  size_t extension_bytes_ = 0;
  std::string line_buf_;
  const char* error_ = "";
};

}  // namespace net

#endif  // NET_HTTP_HTTP_CHUNKED_DECODER_H_
