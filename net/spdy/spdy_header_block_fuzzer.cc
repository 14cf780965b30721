// Fuzz target: SPDY/3 name/value header blocks and their zlib streams, with
// round-trip properties:
// 1. a block ParseHeaderBlock accepts serializes back to as many bytes, and
//    that serialization parses to the same headers;
// 2. any bytes, compressed as two blocks on one stream, inflate back to
//    themselves on one decompressing stream (the context persists);
// 3. the input taken as a compressed block inflates to at most the cap,
//    or fails, and never crashes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "net/spdy/spdy_header_block.h"
#include "net/spdy/spdy_header_compression.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  if (auto headers = net::ParseHeaderBlock(input); headers.ok()) {
    auto block = net::SerializeHeaderBlock(*headers);
    Check(block.ok());
    Check(block->size() == input.size());
    auto again = net::ParseHeaderBlock(*block);
    Check(again.ok() && *again == *headers);
  }

  net::SpdyHeaderCompressor compressor;
  net::SpdyHeaderDecompressor decompressor;
  const std::string halves[] = {input.substr(0, size / 2),
                                input.substr(size / 2)};
  for (const std::string& half : halves) {
    auto compressed = compressor.Compress(half);
    Check(compressed.ok());
    auto plain = decompressor.Decompress(*compressed, half.size());
    Check(plain.ok() && *plain == half);
  }

  constexpr size_t kCap = 64 * 1024;
  net::SpdyHeaderDecompressor raw;
  if (auto plain = raw.Decompress(input, kCap); plain.ok()) {
    Check(plain->size() <= kCap);
    net::ParseHeaderBlock(*plain).IgnoreError();
  }
  return 0;
}
