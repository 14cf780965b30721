#include "net/http/http_chunked_decoder.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

using std::string_literals::operator""s;

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

// Every line of the framing ends in CRLF: a bare LF after a chunk size, after
// chunk data, after the last chunk or a trailer, or as the final line, and a
// CR that is not before LF, are errors, whatever the cut.
TEST(HttpChunkedDecoderTest, LinesNeedCRLF) {
  for (const char* bad : {
           "2\nok\r\n0\r\n\r\n",
           "2\r\nok\n0\r\n\r\n",
           "2\r\nok\r\n0\n\r\n",
           "2\r\nok\r\n0\r\n\n",
           "2\r\nok\r\n0\r\nA: b\n\r\n",
           "2\r\r\nok\r\n0\r\n\r\n",
           "2\rX\r\nok\r\n0\r\n\r\n",
           "2;a=\"\r\"\r\nok\r\n0\r\n\r\n",
           "2\r\nok\r\n0\r\nA: b\rc\r\n\r\n",
       }) {
    for (size_t piece : {1u, 3u, 100u}) {
      int error = OK;
      Decode(bad, piece, &error);
      EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING) << bad << " " << piece;
    }
  }
}

// chunk-size = 1*HEXDIG; chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS
// ( token / quoted-string ) ] ) (RFC 9112 7.1.1).
TEST(HttpChunkedDecoderTest, ChunkSizeAndExtensionSyntax) {
  for (const char* good : {
           "2;a\r\nok\r\n0\r\n\r\n",
           "2;a=b\r\nok\r\n0\r\n\r\n",
           "2 ; a = b ;c\r\nok\r\n0\r\n\r\n",
           "2;a=\"b c;\\\"d\"\r\nok\r\n0;last\r\n\r\n",
           "2\t;a\r\nok\r\n0\r\n\r\n",
           "0002\r\nok\r\n000\r\n\r\n",
       }) {
    int error = OK;
    HttpChunkedDecoder d;
    EXPECT_EQ(Decode(good, 1, &error, &d), "ok") << good;
    EXPECT_EQ(error, OK) << good;
    EXPECT_TRUE(d.reached_eof()) << good;
  }
  for (const char* bad : {
           "\r\nok\r\n0\r\n\r\n",         // no size
           " 2\r\nok\r\n0\r\n\r\n",       // leading space
           "2 \r\nok\r\n0\r\n\r\n",       // trailing space, no extension
           "+2\r\nok\r\n0\r\n\r\n",       // sign
           "0x2\r\nok\r\n0\r\n\r\n",      // prefix
           "2;\r\nok\r\n0\r\n\r\n",       // no name
           "2;a b\r\nok\r\n0\r\n\r\n",    // junk after the name
           "2;a=\r\nok\r\n0\r\n\r\n",     // no value
           "2;a=b c\r\nok\r\n0\r\n\r\n",  // junk after the value
           "2;a=\"b\r\nok\r\n0\r\n\r\n",  // unterminated quote
           "2;a \r\nok\r\n0\r\n\r\n",     // trailing whitespace
           "2;(a)\r\nok\r\n0\r\n\r\n",    // not a token
       }) {
    int error = OK;
    Decode(bad, 100, &error);
    EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING) << bad;
  }
  int error = OK;
  Decode("2;a=\"\0\"\r\nok\r\n0\r\n\r\n"s, 100, &error);
  EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING);
}

// Extensions are framing without payload: bounded per line and per body.
TEST(HttpChunkedDecoderTest, BoundsChunkExtensions) {
  const std::string ext = ";e=" + std::string(1000, 'x');
  std::string body;
  while (body.size() < 2 * HttpChunkedDecoder::kMaxChunkExtensionBytes)
    body += "1" + ext + "\r\nz\r\n";
  int error = OK;
  std::string out = Decode(body, 4096, &error);
  EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING);
  EXPECT_LE(out.size() * ext.size(),
            HttpChunkedDecoder::kMaxChunkExtensionBytes + ext.size());
  error = OK;
  Decode("1;e=" + std::string(HttpChunkedDecoder::kMaxLineBytes, 'x') +
             "\r\nz\r\n",
         100, &error);
  EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING);
}

// Trailer lines are field lines: a token name and a colon, no NUL; an
// obs-fold continues the previous one.
TEST(HttpChunkedDecoderTest, TrailerLineSyntax) {
  for (const char* good :
       {"A: b\r\n", "A:\r\n", "A: b\r\n c\r\n", "A: b\r\nC-D: \x7f\xff\r\n"}) {
    int error = OK;
    HttpChunkedDecoder d;
    Decode(absl::StrCat("1\r\nx\r\n0\r\n", good, "\r\n"), 1, &error, &d);
    EXPECT_EQ(error, OK) << good;
    EXPECT_TRUE(d.reached_eof()) << good;
  }
  for (std::string bad :
       {std::string("NoColon\r\n"), std::string("Bad Name: x\r\n"),
        std::string(": x\r\n"), std::string(" folded-first\r\n"),
        "A: b\0\r\n"s}) {
    int error = OK;
    Decode(absl::StrCat("1\r\nx\r\n0\r\n", bad, "\r\n"), 100, &error);
    EXPECT_EQ(error, ERR_INVALID_CHUNKED_ENCODING) << bad;
  }
}

}  // namespace
}  // namespace net
