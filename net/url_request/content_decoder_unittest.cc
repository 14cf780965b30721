// ContentDecoder and ContentDecoderChain: every coding in whole and
// byte-at-a-time input and tiny output buffers, the deflate sniff, chains,
// trailing data, truncation and corruption, and bounded output for a bomb.

#include "net/url_request/content_decoder.h"

#include <brotli/encode.h>
#include <zlib.h>

#include <string>

#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

// |window_bits|: 31 gzip, 15 zlib, -15 raw deflate.
std::string Deflate(const std::string& in, int window_bits) {
  z_stream z{};
  EXPECT_EQ(Z_OK, deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits,
                               8, Z_DEFAULT_STRATEGY));
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = in.size();
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = out.size();
  EXPECT_EQ(Z_STREAM_END, deflate(&z, Z_FINISH));
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Brotli(const std::string& in) {
  size_t size = BrotliEncoderMaxCompressedSize(in.size()) + 16;
  std::string out(size, '\0');
  EXPECT_TRUE(BrotliEncoderCompress(
      BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
      in.size(), reinterpret_cast<const uint8_t*>(in.data()), &size,
      reinterpret_cast<uint8_t*>(out.data())));
  out.resize(size);
  return out;
}

std::string Text() {
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "line " + std::to_string(i) + " of the body\n";
  return text;
}

struct Result {
  int error = OK;
  std::string out;
};

// Feeds |encoded| in pieces of |in_step| bytes, reading |out_step| bytes at
// a time, then ends the input.
Result DecodeAll(const std::vector<ContentCoding>& codings,
                 const std::string& encoded, size_t in_step, size_t out_step) {
  ContentDecoderChain chain(codings);
  Result result;
  std::string buf(out_step, '\0');
  for (size_t pos = 0; pos <= encoded.size(); pos += in_step) {
    absl::string_view input = absl::string_view(encoded).substr(
        pos, std::min(in_step, encoded.size() - pos));
    for (;;) {
      int rv = chain.Decode(&input, buf.data(), buf.size());
      if (rv < 0) {
        result.error = rv;
        return result;
      }
      if (rv == 0) break;
      result.out.append(buf.data(), rv);
    }
    EXPECT_TRUE(input.empty());
    if (pos == encoded.size()) break;
  }
  result.error = chain.Finish();
  return result;
}

TEST(ContentDecoderTest, ParsesContentEncoding) {
  using C = ContentCoding;
  EXPECT_EQ(ParseContentEncoding("gzip"), std::vector<C>{C::kGzip});
  EXPECT_EQ(ParseContentEncoding(" X-GZIP "), std::vector<C>{C::kGzip});
  EXPECT_EQ(ParseContentEncoding("deflate, br"),
            (std::vector<C>{C::kDeflate, C::kBrotli}));
  EXPECT_EQ(ParseContentEncoding("identity"), std::vector<C>{});
  EXPECT_EQ(ParseContentEncoding("gzip, identity,"), std::vector<C>{C::kGzip});
  EXPECT_EQ(ParseContentEncoding("zstd"), std::nullopt);
  EXPECT_EQ(ParseContentEncoding("gzip, compress"), std::nullopt);
}

struct CodingCase {
  const char* name;
  std::vector<ContentCoding> codings;
  std::string (*encode)(const std::string&);
};

class EveryCodingTest : public ::testing::TestWithParam<CodingCase> {};

TEST_P(EveryCodingTest, DecodesWholeAndInPieces) {
  const std::string text = Text();
  const std::string encoded = GetParam().encode(text);
  ASSERT_LT(encoded.size(), text.size());
  for (auto [in_step, out_step] :
       {std::pair<size_t, size_t>{encoded.size() + 1, 64 * 1024},
        {1, 1},
        {1, 4096},
        {4096, 3},
        {7, 100}}) {
    Result r = DecodeAll(GetParam().codings, encoded, in_step, out_step);
    EXPECT_EQ(r.error, OK) << in_step << "/" << out_step;
    EXPECT_EQ(r.out, text) << in_step << "/" << out_step;
  }
}

TEST_P(EveryCodingTest, TruncatedIsAnError) {
  const std::string text = Text();
  const std::string encoded = GetParam().encode(text);
  for (size_t cut :
       {size_t{1}, size_t{2}, encoded.size() / 2, encoded.size() - 1}) {
    Result r = DecodeAll(GetParam().codings, encoded.substr(0, cut), 5, 1000);
    EXPECT_EQ(r.error, ERR_CONTENT_DECODING_FAILED) << "cut at " << cut;
    // What was decoded is a prefix of the text.
    EXPECT_EQ(text.compare(0, r.out.size(), r.out), 0);
  }
}

TEST_P(EveryCodingTest, CorruptIsAnError) {
  std::string encoded = GetParam().encode(Text());
  // Garbage over the middle of the stream.
  for (size_t i = encoded.size() / 3; i < encoded.size() / 3 + 16; ++i)
    encoded[i] = static_cast<char>(encoded[i] ^ 0x5a);
  Result r = DecodeAll(GetParam().codings, encoded, 100, 1000);
  EXPECT_EQ(r.error, ERR_CONTENT_DECODING_FAILED);
}

TEST_P(EveryCodingTest, DataAfterTheEndIsIgnored) {
  const std::string text = Text();
  Result r = DecodeAll(GetParam().codings,
                       GetParam().encode(text) + "trailing junk", 100, 1000);
  EXPECT_EQ(r.error, OK);
  EXPECT_EQ(r.out, text);
}

INSTANTIATE_TEST_SUITE_P(
    Codings, EveryCodingTest,
    ::testing::Values(
        CodingCase{"gzip",
                   {ContentCoding::kGzip},
                   [](const std::string& s) { return Deflate(s, 31); }},
        CodingCase{"deflate_zlib",
                   {ContentCoding::kDeflate},
                   [](const std::string& s) { return Deflate(s, 15); }},
        CodingCase{"deflate_raw",
                   {ContentCoding::kDeflate},
                   [](const std::string& s) { return Deflate(s, -15); }},
        CodingCase{"br", {ContentCoding::kBrotli}, Brotli},
        // "br, gzip": br applied first, then gzip; undone the other way.
        CodingCase{"br_then_gzip",
                   {ContentCoding::kBrotli, ContentCoding::kGzip},
                   [](const std::string& s) { return Deflate(Brotli(s), 31); }},
        CodingCase{
            "gzip_then_deflate",
            {ContentCoding::kGzip, ContentCoding::kDeflate},
            [](const std::string& s) { return Deflate(Deflate(s, 31), 15); }}),
    [](const ::testing::TestParamInfo<CodingCase>& info) {
      return info.param.name;
    });

// The gzip coding also takes a zlib header (windowBits 15+32), as browsers
// do.
TEST(ContentDecoderTest, GzipTakesAZlibStream) {
  const std::string text = Text();
  Result r = DecodeAll({ContentCoding::kGzip}, Deflate(text, 15), 50, 1000);
  EXPECT_EQ(r.error, OK);
  EXPECT_EQ(r.out, text);
}

TEST(ContentDecoderTest, NoCodingsPassesBytesThrough) {
  Result r = DecodeAll({}, "as it came", 3, 4);
  EXPECT_EQ(r.error, OK);
  EXPECT_EQ(r.out, "as it came");
}

// A bomb decodes into the caller's buffer a piece at a time: output per
// call never exceeds the buffer, and the caller can stop whenever it likes.
TEST(ContentDecoderTest, BombOutputIsBoundedByTheBuffer) {
  const std::string zeros(64 << 20, '\0');
  for (auto codings : {std::vector<ContentCoding>{ContentCoding::kGzip},
                       std::vector<ContentCoding>{ContentCoding::kBrotli}}) {
    const std::string bomb =
        codings[0] == ContentCoding::kGzip ? Deflate(zeros, 31) : Brotli(zeros);
    ASSERT_LT(bomb.size(), 100u << 10);  // over 600:1
    ContentDecoderChain chain(codings);
    absl::string_view input(bomb);
    std::string buf(8192, '\0');
    size_t total = 0;
    for (int i = 0; i < 100; ++i) {
      int rv = chain.Decode(&input, buf.data(), buf.size());
      ASSERT_GT(rv, 0);
      ASSERT_LE(static_cast<size_t>(rv), buf.size());
      total += rv;
    }
    EXPECT_EQ(total, 100u * 8192);
  }
}

// A bomb after the inner coding's end (gzip around br(text) + 64 MB of
// zeros) is not decompressed to nothing: past kMaxDroppedAfterEnd of
// dropped output the chain fails, named, while a few bytes after the end
// (a padding, a trailer) are dropped quietly.
TEST(ContentDecoderTest, OutputDroppedAfterTheEndIsBounded) {
  const std::string text = Text();
  const std::vector<ContentCoding> br_then_gzip = {ContentCoding::kBrotli,
                                                   ContentCoding::kGzip};
  Result small =
      DecodeAll(br_then_gzip, Deflate(Brotli(text) + std::string(100, 'x'), 31),
                4096, 4096);
  EXPECT_EQ(small.error, OK);
  EXPECT_EQ(small.out, text);

  const std::string bomb =
      Deflate(Brotli(text) + std::string(64 << 20, '\0'), 31);
  ASSERT_LT(bomb.size(), 200u << 10);
  ContentDecoderChain chain(br_then_gzip);
  absl::string_view input(bomb);
  std::string buf(8192, '\0');
  std::string out;
  int rv;
  int calls = 0;
  while ((rv = chain.Decode(&input, buf.data(), buf.size())) > 0) {
    out.append(buf.data(), rv);
    ASSERT_LT(++calls, 1000);
  }
  EXPECT_EQ(rv, ERR_CONTENT_DECODING_FAILED);
  EXPECT_NE(chain.error_detail().find("after the end of the br-encoded"),
            std::string::npos)
      << chain.error_detail();
  EXPECT_EQ(out, text);
}

}  // namespace
}  // namespace net
