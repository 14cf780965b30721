#include "net/http/http_chunked_decoder.h"

#include <string>

#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

std::string Decode(const std::string& input, size_t piece, int* error = nullptr,
                   HttpChunkedDecoder* decoder_out = nullptr) {
  HttpChunkedDecoder decoder;
  std::string out;
  for (size_t i = 0; i < input.size(); i += piece) {
    std::string part = input.substr(i, piece);
    int n = decoder.FilterBuf(part.data(), part.size());
    if (n < 0) {
      if (error) *error = n;
      return out;
    }
    out.append(part.data(), n);
  }
  if (decoder_out) *decoder_out = decoder;
  return out;
}

TEST(HttpChunkedDecoderTest, DecodesInAnySplit) {
  std::string body =
      "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n";
  for (size_t piece : {1u, 2u, 3u, 7u, 100u}) {
    HttpChunkedDecoder d;
    EXPECT_EQ(Decode(body, piece, nullptr, &d), "hello world") << piece;
    EXPECT_TRUE(d.reached_eof());
  }
}

TEST(HttpChunkedDecoderTest, RejectsBadSizesAndTerminators) {
  for (const char* bad :
       {"x\r\n", "5\r\nhelloXX\r\n", "-1\r\n", "ffffffffffffffff1\r\n"}) {
    int error = OK;
    Decode(bad, 100, &error);
    EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING) << bad;
  }
}

TEST(HttpChunkedDecoderTest, CountsBytesAfterEnd) {
  HttpChunkedDecoder d;
  Decode("0\r\n\r\nEXTRA", 100, nullptr, &d);
  EXPECT_EQ(d.bytes_after_eof(), 5);
}

// Chunk sizes are bounded (kMaxChunkSize, 2^40): a 15-hex-digit size is an
// error, not a promise of an exabyte. Leading zeros do not count.
TEST(HttpChunkedDecoderTest, BoundsTheChunkSize) {
  for (const char* bad :
       {"fffffffffffffff\r\n", "10000000001\r\n", "ffffffffffffffffffff\r\n"}) {
    int error = OK;
    Decode(bad, 100, &error);
    EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING) << bad;
  }
  int error = OK;
  Decode("10000000000\r\nabc", 100, &error);
  EXPECT_EQ(error, OK);
  EXPECT_EQ(Decode("0000000000000000000000000003\r\nabc\r\n0\r\n\r\n", 5),
            "abc");
}

// The trailer section is bounded like a header block: an endless one is an
// error rather than a read that never ends.
TEST(HttpChunkedDecoderTest, BoundsTheTrailerSection) {
  std::string body = "1\r\nx\r\n0\r\n";
  std::string trailers;
  while (trailers.size() < 2 * HttpChunkedDecoder::kMaxTrailerBytes)
    trailers += "X-Trailer: y\r\n";
  int error = OK;
  EXPECT_EQ(Decode(body + trailers, 4096, &error), "x");
  EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING);
  // A few trailers are fine.
  HttpChunkedDecoder d;
  error = OK;
  EXPECT_EQ(Decode(body + "A: b\r\nC: d\r\n\r\n", 3, &error, &d), "x");
  EXPECT_EQ(error, OK);
  EXPECT_TRUE(d.reached_eof());
}

}  // namespace
}  // namespace net
