// zlib compression of SPDY/3 name/value header blocks (draft 3, 2.6.10.1).
//
// A connection has one zlib stream per direction, primed with the SPDY/3
// dictionary and sync-flushed after every frame's block, so every block
// depends on all earlier ones. SpdyHeaderCompressor is the stream for what
// we send (SpdyFramer owns one); SpdyHeaderDecompressor the stream for what
// we receive (SpdyDeframer owns one). Either one, once it has failed, stays
// failed: its stream is out of step with the peer's, and only a new
// connection can recover.

#ifndef NET_SPDY_SPDY_HEADER_COMPRESSION_H_
#define NET_SPDY_SPDY_HEADER_COMPRESSION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct z_stream_s;

namespace net {

// The SPDY/3 header compression dictionary: 1423 bytes, byte for byte the
// draft's SPDY_dictionary_txt (checked against the draft text and two
// implementations; see README.md). Its zlib dictionary id (Adler-32) is
// kSpdy3DictionaryId.
extern const uint8_t kSpdy3Dictionary[];
inline constexpr size_t kSpdy3DictionarySize = 1423;
inline constexpr uint32_t kSpdy3DictionaryId = 0xe3c6a7c2;

// The compressing side: window 2 KB (11 bits, as the draft suggests and
// Chromium, spdylay and node-spdy use), memory level 1, default level.
class SpdyHeaderCompressor {
 public:
  SpdyHeaderCompressor();
  ~SpdyHeaderCompressor();
  SpdyHeaderCompressor(const SpdyHeaderCompressor&) = delete;
  SpdyHeaderCompressor& operator=(const SpdyHeaderCompressor&) = delete;

  // Compress deflates one uncompressed header block and sync-flushes. The
  // result inflates to exactly |block| once every earlier result has been
  // inflated in order. Fails (Internal) only if zlib does; the compressor
  // is then unusable.
  [[nodiscard]] absl::StatusOr<std::string> Compress(absl::string_view block);

  bool broken() const { return broken_; }

 private:
  struct ZStreamDeleter {
    void operator()(z_stream_s* stream) const;
  };
  std::unique_ptr<z_stream_s, ZStreamDeleter> stream_;
  bool broken_ = false;
};

// The decompressing side. It inflates in bounded steps and stops once the
// output passes the caller's cap, so a zlib bomb costs at most the cap.
class SpdyHeaderDecompressor {
 public:
  SpdyHeaderDecompressor();
  ~SpdyHeaderDecompressor();
  SpdyHeaderDecompressor(const SpdyHeaderDecompressor&) = delete;
  SpdyHeaderDecompressor& operator=(const SpdyHeaderDecompressor&) = delete;

  // Decompress inflates one frame's compressed header block, all of it.
  // Returns the uncompressed bytes (at most |max_output|). Fails with
  // ResourceExhausted when the block inflates to more than |max_output|,
  // and with DataLoss when zlib rejects the data, the stream asks for a
  // dictionary other than kSpdy3Dictionary, or the peer ends its stream.
  // After any failure the decompressor is unusable (FailedPrecondition).
  [[nodiscard]] absl::StatusOr<std::string> Decompress(
      absl::string_view compressed, size_t max_output);

  bool broken() const { return broken_; }

 private:
  struct ZStreamDeleter {
    void operator()(z_stream_s* stream) const;
  };
  std::unique_ptr<z_stream_s, ZStreamDeleter> stream_;
  bool broken_ = false;
};

}  // namespace net

#endif  // NET_SPDY_SPDY_HEADER_COMPRESSION_H_
