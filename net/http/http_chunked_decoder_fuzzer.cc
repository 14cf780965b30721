// Fuzzes HttpChunkedDecoder with arbitrary bytes fed in uneven pieces.

#include <cstddef>
#include <cstdint>
#include <string>

#include "net/http/http_chunked_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  net::HttpChunkedDecoder decoder;
  std::string input(reinterpret_cast<const char*>(data), size);
  size_t pos = 0;
  size_t piece = 1 + (size % 7);
  while (pos < input.size()) {
    size_t n = std::min(piece, input.size() - pos);
    int rv = decoder.FilterBuf(&input[pos], static_cast<int>(n));
    if (rv < 0) break;
    pos += n;
    piece = piece * 3 % 11 + 1;
  }
  return 0;
}
