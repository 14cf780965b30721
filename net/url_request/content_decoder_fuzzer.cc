// Fuzzes ContentDecoderChain. The first input byte picks the codings (gzip,
// deflate, br, or two of them); the rest is the encoded body. Properties
// beyond "no crash":
//  - Piece-independence: fed in uneven pieces into small output buffers,
//    the input gets the same verdict as fed at once into a large buffer,
//    and, when it decodes, the same bytes.
//  - Bounded output: no call writes past the buffer it was given.
//  - Round trip: the rest of the input, gzip- and raw-deflate-compressed,
//    decodes back to itself.

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "net/base/net_errors.h"
#include "net/url_request/content_decoder.h"

namespace {

using net::ContentCoding;

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "content_decoder_fuzzer: %s\n", what);
  std::abort();
}

// Stop decoding past this much: a bomb is the caller's limit to enforce.
constexpr size_t kMaxOutput = 1 << 20;

struct Decoded {
  std::string out;
  int verdict = net::OK;
};

template <typename Piece>
Decoded Decode(const std::vector<ContentCoding>& codings,
               const std::string& input, Piece piece, size_t out_size) {
  net::ContentDecoderChain chain(codings);
  Decoded d;
  std::string buf(out_size + 16, '\x5a');
  size_t pos = 0;
  for (int i = 0;; ++i) {
    const size_t n = std::min<size_t>(piece(i), input.size() - pos);
    absl::string_view view(input.data() + pos, n);
    pos += n;
    for (;;) {
      int rv = chain.Decode(&view, buf.data(), out_size);
      Check(rv <= static_cast<int>(out_size), "wrote more than asked");
      Check(buf[out_size] == '\x5a', "wrote past the buffer");
      if (rv < 0) {
        d.verdict = rv;
        return d;
      }
      if (rv == 0) break;
      d.out.append(buf.data(), rv);
      if (d.out.size() >= kMaxOutput) return d;
    }
    if (pos == input.size()) break;
  }
  d.verdict = chain.Finish();
  return d;
}

std::string Compress(const std::string& in, int window_bits) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8,
               Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = in.size();
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = out.size();
  Check(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const std::vector<std::vector<ContentCoding>> kChains = {
      {ContentCoding::kGzip},
      {ContentCoding::kDeflate},
      {ContentCoding::kBrotli},
      {ContentCoding::kBrotli, ContentCoding::kGzip},
      {ContentCoding::kGzip, ContentCoding::kDeflate}};
  const std::vector<ContentCoding>& codings = kChains[data[0] % kChains.size()];
  const std::string input(reinterpret_cast<const char*>(data + 1), size - 1);

  Decoded whole = Decode(
      codings, input, [&](int) { return input.size() + 1; }, 64 * 1024);
  Decoded pieces = Decode(
      codings, input, [&](int i) { return 1 + (data[i % size] % 13); }, 7);
  if (whole.out.size() < kMaxOutput && pieces.out.size() < kMaxOutput) {
    Check(whole.verdict == pieces.verdict, "pieces got another verdict");
    // Past an error the bytes are not a body: only a decoded one compares.
    if (whole.verdict == net::OK)
      Check(whole.out == pieces.out, "pieces decoded differently");
  }

  if (input.size() <= 4096) {
    for (int window_bits : {31, -15}) {
      Decoded back = Decode(
          {window_bits == 31 ? ContentCoding::kGzip : ContentCoding::kDeflate},
          Compress(input, window_bits), [](int i) { return 1 + i % 97; }, 33);
      Check(back.verdict == net::OK, "round trip failed");
      Check(back.out == input, "round trip changed the bytes");
    }
  }
  return 0;
}
