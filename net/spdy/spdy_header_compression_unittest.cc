#include "net/spdy/spdy_header_compression.h"

#include <openssl/sha.h>
#include <zlib.h>

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "net/spdy/spdy_header_block.h"

namespace net {
namespace {

std::string Dictionary() {
  return std::string(reinterpret_cast<const char*>(kSpdy3Dictionary),
                     kSpdy3DictionarySize);
}

// Deflate |input| with zlib directly, primed with |dictionary| (if any),
// finishing with |flush|: an encoder other than SpdyHeaderCompressor.
std::string RawDeflate(absl::string_view input, absl::string_view dictionary,
                       int flush = Z_SYNC_FLUSH, int level = 9) {
  z_stream zs = {};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  if (!dictionary.empty()) {
    EXPECT_EQ(deflateSetDictionary(
                  &zs, reinterpret_cast<const Bytef*>(dictionary.data()),
                  dictionary.size()),
              Z_OK);
  }
  std::string out(deflateBound(&zs, input.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  zs.avail_in = input.size();
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = out.size();
  int rv = deflate(&zs, flush);
  EXPECT_TRUE(rv == Z_OK || rv == Z_STREAM_END) << rv;
  out.resize(out.size() - zs.avail_out);
  deflateEnd(&zs);
  return out;
}

// The self-check values of ../shared/SPECS.md 5.11, computed from the
// draft's dictionary (and equal for spdylay's and node-spdy's copies).
TEST(SpdyDictionaryTest, MatchesTheDraft) {
  std::string dict = Dictionary();
  ASSERT_EQ(dict.size(), 1423u);
  EXPECT_EQ(dict.substr(0, 16),
            absl::string_view("\0\0\0\x07options\0\0\0\x04h", 16));
  EXPECT_EQ(dict.substr(dict.size() - 7), ",enq=0.");
  EXPECT_EQ(adler32(adler32(0, nullptr, 0),
                    reinterpret_cast<const Bytef*>(dict.data()), dict.size()),
            0xe3c6a7c2u);
  EXPECT_EQ(kSpdy3DictionaryId, 0xe3c6a7c2u);
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(kSpdy3Dictionary, kSpdy3DictionarySize, digest);
  EXPECT_EQ(absl::BytesToHexString(absl::string_view(
                reinterpret_cast<const char*>(digest), sizeof(digest))),
            "51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02");
}

TEST(SpdyHeaderCompressionTest, FirstBlockNamesTheDictionary) {
  SpdyHeaderCompressor compressor;
  auto out = compressor.Compress(std::string("\0\0\0\0", 4));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_GE(out->size(), 6u);
  // RFC 1950: CMF (deflate, 2 KB window: 0x38), FLG with FDICT (0x20), then
  // the dictionary's Adler-32.
  EXPECT_EQ(static_cast<uint8_t>((*out)[0]), 0x38);
  EXPECT_TRUE(static_cast<uint8_t>((*out)[1]) & 0x20);
  EXPECT_EQ(out->substr(2, 4), "\xe3\xc6\xa7\xc2");
  // A sync flush ends with an empty stored block.
  EXPECT_EQ(out->substr(out->size() - 4), std::string("\0\0\xff\xff", 4));
}

TEST(SpdyHeaderCompressionTest, RoundTripsAcrossFramesWithOneContext) {
  SpdyHeaderCompressor compressor;
  SpdyHeaderDecompressor decompressor;
  SpdyHeaderBlock headers = {{":method", "GET"},
                             {":path", "/a/long/path/to/something.html"},
                             {":host", "www.example.test"},
                             {":scheme", "https"},
                             {":version", "HTTP/1.1"},
                             {"user-agent", "netstack/1.0"}};
  auto block = SerializeHeaderBlock(headers);
  ASSERT_TRUE(block.ok());
  size_t first_size = 0;
  for (int i = 0; i < 5; ++i) {
    auto compressed = compressor.Compress(*block);
    ASSERT_TRUE(compressed.ok());
    if (i == 0) first_size = compressed->size();
    // The same headers again cost a few bytes: the stream remembers them.
    if (i > 0) {
      EXPECT_LT(compressed->size(), first_size / 3);
    }
    auto plain = decompressor.Decompress(*compressed, 1 << 20);
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_EQ(*plain, *block);
  }
}

TEST(SpdyHeaderCompressionTest, InflatesAnotherEncodersStream) {
  // Window 15, level 9: the inflater must accept any window.
  const std::string block("\0\0\0\x01\0\0\0\x07:method\0\0\0\x03GET", 22);
  SpdyHeaderDecompressor decompressor;
  auto plain = decompressor.Decompress(RawDeflate(block, Dictionary()), 1000);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(*plain, block);
}

TEST(SpdyHeaderCompressionTest, AcceptsAStreamWithoutDictionary) {
  SpdyHeaderDecompressor decompressor;
  auto plain = decompressor.Decompress(RawDeflate("abcabcabc", ""), 100);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(*plain, "abcabcabc");
}

TEST(SpdyHeaderCompressionTest, ZlibBombStopsAtTheCap) {
  // 16 MB of zeros deflate to about 16 KB.
  std::string bomb = RawDeflate(std::string(16 << 20, '\0'), Dictionary());
  ASSERT_LT(bomb.size(), 64u * 1024);
  SpdyHeaderDecompressor decompressor;
  auto plain = decompressor.Decompress(bomb, 256 * 1024);
  ASSERT_FALSE(plain.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(plain.status())) << plain.status();
  EXPECT_TRUE(decompressor.broken());
  // Sticky: the stream is out of step now.
  auto again = decompressor.Decompress(RawDeflate("x", Dictionary()), 100);
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();
}

TEST(SpdyHeaderCompressionTest, CapIsExact) {
  std::string data(1000, 'a');
  std::string compressed = RawDeflate(data, Dictionary());
  {
    SpdyHeaderDecompressor decompressor;
    auto plain = decompressor.Decompress(compressed, 1000);
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_EQ(*plain, data);
  }
  {
    SpdyHeaderDecompressor decompressor;
    EXPECT_TRUE(absl::IsResourceExhausted(
        decompressor.Decompress(compressed, 999).status()));
  }
}

TEST(SpdyHeaderCompressionTest, RejectsAnotherDictionary) {
  SpdyHeaderDecompressor decompressor;
  auto plain = decompressor.Decompress(
      RawDeflate("abc", "some other dictionary text"), 100);
  EXPECT_TRUE(absl::IsDataLoss(plain.status())) << plain.status();
  EXPECT_NE(plain.status().message().find("unknown zlib dictionary"),
            std::string::npos);
}

TEST(SpdyHeaderCompressionTest, RejectsGarbageAndAnEndedStream) {
  {
    SpdyHeaderDecompressor decompressor;
    auto plain = decompressor.Decompress("not zlib at all", 100);
    EXPECT_TRUE(absl::IsDataLoss(plain.status())) << plain.status();
    EXPECT_TRUE(decompressor.broken());
  }
  {
    SpdyHeaderDecompressor decompressor;
    auto plain =
        decompressor.Decompress(RawDeflate("abc", Dictionary(), Z_FINISH), 100);
    EXPECT_TRUE(absl::IsDataLoss(plain.status())) << plain.status();
  }
}

TEST(SpdyHeaderCompressionTest, EmptyInputIsEmptyOutput) {
  SpdyHeaderDecompressor decompressor;
  auto plain = decompressor.Decompress("", 100);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, "");
  EXPECT_FALSE(decompressor.broken());
}

TEST(SpdyHeaderCompressionTest, LargeBlockRoundTrips) {
  // Larger than one inflate step and than the compressor's first guess.
  std::string block;
  for (int i = 0; i < 20000; ++i) block += static_cast<char>(i * 7919 >> 3);
  SpdyHeaderCompressor compressor;
  SpdyHeaderDecompressor decompressor;
  auto compressed = compressor.Compress(block);
  ASSERT_TRUE(compressed.ok());
  auto plain = decompressor.Decompress(*compressed, block.size());
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(*plain, block);
}

}  // namespace
}  // namespace net
