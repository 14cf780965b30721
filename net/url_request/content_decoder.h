// ContentDecoder: streaming decoding of a response body's Content-Encoding
// (RFC 9110 8.4): gzip and deflate through zlib, br through brotli's
// decoder. Sans-I/O: encoded bytes in, decoded bytes out, into the caller's
// buffer, so memory stays bounded (zlib's 32 KB window, brotli's window, and
// a fixed buffer between the stages of a chain) however large the body.
//
//   gzip     inflate with windowBits 15+32 (a gzip or a zlib header)
//   deflate  RFC 1950's zlib format, or, when the first two bytes are no
//            zlib header, raw RFC 1951 deflate (servers that send it
//            anyway; every browser accepts it)
//   br       RFC 7932
//
// Input after a coding's end is ignored (Chromium does the same). A coding
// that is not at its end when the input ends is truncated:
// ERR_CONTENT_DECODING_FAILED, as is a corrupt stream.
//
// Owned by URLRequest, one chain per response. Not thread-safe.

#ifndef NET_URL_REQUEST_CONTENT_DECODER_H_
#define NET_URL_REQUEST_CONTENT_DECODER_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace net {

enum class ContentCoding { kGzip, kDeflate, kBrotli };

// ContentCodingName: "gzip", "deflate", "br".
const char* ContentCodingName(ContentCoding coding);

// ParseContentEncoding returns the codings of a Content-Encoding header
// value in the order they were applied ("identity" and empty members
// skipped; x-gzip is gzip), or nullopt if any is one this decoder does not
// know: such a body is handed on as it came, as Chromium does.
std::optional<std::vector<ContentCoding>> ParseContentEncoding(
    absl::string_view value);

// The Accept-Encoding a request that asks for decoding sends.
inline constexpr char kAcceptEncodingDecoded[] = "gzip, deflate, br";

class ContentDecoder {
 public:
  static std::unique_ptr<ContentDecoder> Create(ContentCoding coding);
  virtual ~ContentDecoder() = default;

  // Decode consumes what it can of |*input| (advancing it) and writes at
  // most |out_len| decoded bytes to |out|. Returns the count written; 0
  // when it needs more input (all of |*input| was taken) or the coding has
  // ended (finished(); the rest of |*input| is dropped); or
  // ERR_CONTENT_DECODING_FAILED (error_detail() says why).
  virtual int Decode(absl::string_view* input, char* out, size_t out_len) = 0;
  // finished: the coding's end marker was decoded.
  virtual bool finished() const = 0;
  const std::string& error_detail() const { return error_detail_; }

 protected:
  std::string error_detail_;
};

// ContentDecoderChain decodes a response's codings, the last applied first,
// with a bounded buffer between stages.
class ContentDecoderChain {
 public:
  // |codings| in the order applied, as ParseContentEncoding returns them.
  explicit ContentDecoderChain(const std::vector<ContentCoding>& codings);
  ~ContentDecoderChain();
  ContentDecoderChain(const ContentDecoderChain&) = delete;
  ContentDecoderChain& operator=(const ContentDecoderChain&) = delete;

  // Decode is ContentDecoder::Decode through every stage: a count, 0 (more
  // input needed, or the codings ended), or ERR_CONTENT_DECODING_FAILED.
  int Decode(absl::string_view* input, char* out, size_t out_len);
  // Finish is called once the encoded input has ended and Decode with no
  // input returned 0: OK if every coding reached its end,
  // ERR_CONTENT_DECODING_FAILED (truncated) otherwise.
  int Finish();
  const std::string& error_detail() const { return error_detail_; }

  // Bytes buffered between two stages, at most.
  static constexpr size_t kStageBufferSize = 16 * 1024;
  // After a coding's end, the codings before it still run to their own ends
  // (an outer gzip's trailer, say) and their output is dropped: at most this
  // much of it, or a bomb placed after the inner stream's end would be
  // decompressed to nothing on the network thread, past every body limit.
  static constexpr size_t kMaxDroppedAfterEnd = 64 * 1024;

 private:
  struct Stage;
  int Pull(size_t stage, absl::string_view* input, char* out, size_t out_len);

  // Decoding order: stages_[0] takes the encoded input.
  std::vector<Stage> stages_;
  std::string error_detail_;
};

}  // namespace net

#endif  // NET_URL_REQUEST_CONTENT_DECODER_H_
