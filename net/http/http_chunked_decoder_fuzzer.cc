// Fuzzes HttpChunkedDecoder. Two properties beyond "no crash":
//  - Piece-independence: the input fed in uneven pieces decodes to the same
//    payload, the same end-of-body and the same verdict as fed at once.
//  - Round trip: the input, chunk-encoded (chunk sizes taken from the input,
//    hex of either case, extensions, trailers), decodes back to itself.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/http/http_chunked_decoder.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "http_chunked_decoder_fuzzer: %s\n", what);
  std::abort();
}

struct Decoded {
  std::string payload;
  bool failed = false;
  bool eof = false;
  int bytes_after_eof = 0;
};

// Feeds |input| in pieces of |piece(i)| bytes; stops at the first error.
template <typename Piece>
Decoded Decode(const std::string& input, Piece piece) {
  net::HttpChunkedDecoder decoder;
  Decoded out;
  size_t pos = 0;
  for (int i = 0; pos < input.size(); ++i) {
    size_t n = std::min<size_t>(piece(i), input.size() - pos);
    std::string buf = input.substr(pos, n);
    int rv = decoder.FilterBuf(buf.data(), static_cast<int>(n));
    if (rv < 0) {
      out.failed = true;
      break;
    }
    Check(static_cast<size_t>(rv) <= n, "no more payload than input");
    out.payload.append(buf.data(), rv);
    pos += n;
  }
  out.eof = decoder.reached_eof();
  out.bytes_after_eof = decoder.bytes_after_eof();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  const Decoded whole = Decode(input, [&](int) { return input.size() + 1; });
  const size_t first = 1 + (size % 7);
  const Decoded pieces = Decode(input, [first](int i) {
    size_t p = first;
    for (int k = 0; k < i % 5; ++k) p = p * 3 % 11 + 1;
    return p;
  });
  const Decoded bytes = Decode(input, [](int) { return size_t{1}; });
  for (const Decoded* d : {&pieces, &bytes}) {
    Check(d->failed == whole.failed, "same verdict in pieces");
    if (!whole.failed) {
      Check(d->payload == whole.payload, "same payload in pieces");
      Check(d->eof == whole.eof, "same end of body in pieces");
      Check(d->eof == false || d->bytes_after_eof == whole.bytes_after_eof,
            "same bytes after the body in pieces");
    }
  }

  // Round trip: chunk sizes 1..64 from the input's bytes.
  std::string encoded;
  size_t pos = 0;
  for (size_t i = 0; pos < input.size(); ++i) {
    size_t n = std::min<size_t>(1 + (static_cast<uint8_t>(input[i]) & 63),
                                input.size() - pos);
    encoded += (i % 2) ? absl::StrFormat("%X", n) : absl::StrFormat("%x", n);
    if (i % 3 == 0) encoded += ";ext=1";
    encoded += "\r\n";
    encoded.append(input, pos, n);
    encoded += "\r\n";
    pos += n;
  }
  encoded += "0\r\n";
  if (size % 2) encoded += "X-Trailer: t\r\n";
  encoded += "\r\n";
  const Decoded round =
      Decode(encoded, [&](int i) { return 1 + (i * 7) % 13; });
  Check(!round.failed, "an encoded body decodes");
  Check(round.payload == input, "encode then decode is the identity");
  Check(round.eof && round.bytes_after_eof == 0, "the body ends exactly");
  return 0;
}
