#include "net/spdy/spdy_header_block.h"

#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "net/spdy/spdy_test_util.h"

namespace net {
namespace {

using namespace std::string_literals;

// Two pairs, names in order: the uncompressed wire form of draft 3, 2.6.10.
const char kTwoPairsHex[] =
    "00000002"                 // 2 pairs
    "00000007 3a6d6574686f64"  // ":method"
    "00000003 474554"          // "GET"
    "00000005 3a70617468"      // ":path"
    "00000001 2f";             // "/"

TEST(SpdyHeaderBlockTest, SerializesTheWireForm) {
  SpdyHeaderBlock headers = {{":path", "/"}, {":method", "GET"}};
  auto block = SerializeHeaderBlock(headers);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(*block, HexDecode(kTwoPairsHex));
}

TEST(SpdyHeaderBlockTest, ParsesTheWireForm) {
  auto headers = ParseHeaderBlock(HexDecode(kTwoPairsHex));
  ASSERT_TRUE(headers.ok()) << headers.status();
  EXPECT_EQ(*headers, (SpdyHeaderBlock{{":method", "GET"}, {":path", "/"}}));
}

TEST(SpdyHeaderBlockTest, EmptyBlockAndEmptyValue) {
  auto empty = SerializeHeaderBlock({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, std::string(4, '\0'));
  EXPECT_TRUE(ParseHeaderBlock(*empty)->empty());
  auto with_empty_value = SerializeHeaderBlock({{"x-empty", ""}});
  ASSERT_TRUE(with_empty_value.ok());
  EXPECT_EQ((*ParseHeaderBlock(*with_empty_value))["x-empty"], "");
}

TEST(SpdyHeaderBlockTest, MultipleValuesAreNulJoined) {
  SpdyHeaderBlock headers = {{"set-cookie", std::string("a=1\0b=2", 7)}};
  auto block = SerializeHeaderBlock(headers);
  ASSERT_TRUE(block.ok());
  auto parsed = ParseHeaderBlock(*block);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, headers);
}

TEST(SpdyHeaderBlockTest, NameAndValueRules) {
  EXPECT_TRUE(IsValidHeaderName(":method"));
  EXPECT_TRUE(IsValidHeaderName("x-foo_bar.1"));
  EXPECT_FALSE(IsValidHeaderName(""));
  EXPECT_FALSE(IsValidHeaderName("Content-Type"));
  EXPECT_FALSE(IsValidHeaderName("a b"));
  EXPECT_FALSE(IsValidHeaderName(std::string("a\0b", 3)));
  EXPECT_FALSE(IsValidHeaderName("caf\xc3\xa9"));
  EXPECT_FALSE(IsValidHeaderName("a\x7f"));
  EXPECT_TRUE(IsValidHeaderValue(""));
  EXPECT_TRUE(IsValidHeaderValue("text/html; charset=utf-8"));
  EXPECT_TRUE(IsValidHeaderValue(std::string("a\0b\0c", 5)));
  EXPECT_FALSE(IsValidHeaderValue(std::string("\0a", 2)));
  EXPECT_FALSE(IsValidHeaderValue(std::string("a\0", 2)));
  EXPECT_FALSE(IsValidHeaderValue(std::string("a\0\0b", 4)));
  EXPECT_FALSE(IsValidHeaderValue(std::string("\0", 1)));
  EXPECT_FALSE(IsValidHeaderValue("a\r\nx-injected: 1"));
  EXPECT_FALSE(IsValidHeaderValue("a\nb"));
}

TEST(SpdyHeaderBlockTest, SerializeRejectsInvalidHeaders) {
  for (const SpdyHeaderBlock& headers :
       std::vector<SpdyHeaderBlock>{{{"", "x"}},
                                    {{"Host", "x"}},
                                    {{"x", std::string("\0y", 2)}},
                                    {{"x", "a\r\nb"}}}) {
    auto block = SerializeHeaderBlock(headers);
    EXPECT_TRUE(absl::IsInvalidArgument(block.status())) << block.status();
  }
}

std::string Pair(absl::string_view name, absl::string_view value) {
  std::string out;
  auto u32 = [&](size_t n) {
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<char>(n >> shift));
  };
  u32(name.size());
  out.append(name.data(), name.size());
  u32(value.size());
  out.append(value.data(), value.size());
  return out;
}

std::string U32Zero() { return std::string(4, '\0'); }

std::string Block(uint32_t count, const std::string& pairs) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>(count >> shift));
  return out + pairs;
}

TEST(SpdyHeaderBlockTest, ParseRejectsMalformedBlocks) {
  const std::vector<std::string> cases = {
      "",                                          // no count
      "\0\0\0"s,                                   // short count
      Block(1, ""),                                // missing pair
      Block(1, Pair("a", "b") + "x"),              // trailing byte
      Block(2, Pair("a", "b") + Pair("a", "c")),   // duplicate name
      Block(1, Pair("", "b")),                     // empty name
      Block(1, Pair("Accept", "b")),               // upper case
      Block(1, Pair("a", std::string("b\0", 2))),  // trailing NUL
      Block(1, Pair("a", "b\r\nc: d")),            // CR LF in a value
      Block(1000, Pair("a", "b")),                 // lying count
      Block(1, Pair("a", "b").substr(0, 9)),       // value length cut
  };
  for (const std::string& block : cases) {
    auto parsed = ParseHeaderBlock(block);
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status()))
        << absl::CHexEscape(block) << ": " << parsed.status();
  }
}

TEST(SpdyHeaderBlockTest, EveryTruncationIsAnError) {
  std::string block = HexDecode(kTwoPairsHex);
  for (size_t n = 0; n < block.size(); ++n) {
    auto parsed = ParseHeaderBlock(block.substr(0, n));
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status())) << n;
  }
}

TEST(SpdyHeaderBlockTest, LimitsAreResourceExhausted) {
  SpdyLimits limits;
  limits.max_headers = 2;
  limits.max_header_name_length = 4;
  limits.max_header_value_length = 5;
  limits.max_header_block_bytes = 64;
  // Within every limit.
  EXPECT_TRUE(
      ParseHeaderBlock(Block(2, Pair("abcd", "12345") + Pair("b", "")), limits)
          .ok());
  const std::vector<std::string> cases = {
      Block(3, Pair("a", "") + Pair("b", "") + Pair("c", "")),
      Block(1, Pair("abcde", "")), Block(1, Pair("a", "123456")),
      Block(1, Pair("a", "b") + std::string(60, 'x')),  // over 64 bytes
  };
  for (const std::string& block : cases) {
    auto parsed = ParseHeaderBlock(block, limits);
    EXPECT_TRUE(absl::IsResourceExhausted(parsed.status()))
        << absl::CHexEscape(block) << ": " << parsed.status();
  }
  // A name length over the limit is refused before the bytes are looked
  // for, so a huge announced length costs nothing.
  auto huge =
      ParseHeaderBlock(Block(1, "\x7f\xff\xff\xff" + U32Zero()), limits);
  EXPECT_TRUE(absl::IsResourceExhausted(huge.status())) << huge.status();

  SpdyHeaderBlock too_many = {{"a", ""}, {"b", ""}, {"c", ""}};
  EXPECT_TRUE(absl::IsResourceExhausted(
      SerializeHeaderBlock(too_many, limits).status()));
  EXPECT_TRUE(absl::IsResourceExhausted(
      SerializeHeaderBlock({{"abcde", ""}}, limits).status()));
  EXPECT_TRUE(absl::IsResourceExhausted(
      SerializeHeaderBlock({{"a", "123456"}}, limits).status()));
}

}  // namespace
}  // namespace net
