#include "net/device_bound_sessions/json.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace net {
namespace {

using ::testing::HasSubstr;

TEST(JsonTest, ParsesEveryType) {
  absl::StatusOr<JsonValue> v = ParseJson(
      R"( {"a": null, "b": true, "c": false, "d": -12.5e1, "e": "x\ty",
           "f": [1, [2], {}], "g": {"h": "\u00e9\ud83d\ude00"}} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(v->is_object());
  EXPECT_TRUE(v->Find("a")->is_null());
  EXPECT_TRUE(v->Find("b")->bool_value());
  EXPECT_FALSE(v->Find("c")->bool_value());
  EXPECT_EQ(v->Find("d")->number_value(), -125);
  EXPECT_EQ(v->Find("e")->string_value(), "x\ty");
  ASSERT_EQ(v->Find("f")->array_items().size(), 3u);
  EXPECT_TRUE(v->Find("f")->array_items()[2].is_object());
  EXPECT_EQ(v->Find("g")->Find("h")->string_value(),
            "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v->Find("zz"), nullptr);
  // Members keep document order.
  EXPECT_EQ(v->object_members()[0].first, "a");
  EXPECT_EQ(v->object_members()[6].first, "g");
}

TEST(JsonTest, SerializeRoundTrips) {
  const char* kDocs[] = {
      R"({"a":[1,2.5,-3e-7,true,false,null],"b":{"c":"\"\\\n\u0001"}})",
      "[]",
      "{}",
      "\"\"",
      "0",
      "-0.5",
      "1e300",
      "123456789012345",
  };
  for (const char* doc : kDocs) {
    absl::StatusOr<JsonValue> v = ParseJson(doc);
    ASSERT_TRUE(v.ok()) << doc << ": " << v.status();
    absl::StatusOr<JsonValue> again = ParseJson(v->Serialize());
    ASSERT_TRUE(again.ok()) << v->Serialize();
    EXPECT_EQ(*v, *again) << doc;
  }
  EXPECT_EQ(ParseJson(R"({"b":1,"a":[true]})")->Serialize(),
            R"({"b":1,"a":[true]})");
}

// Each malformed document is refused with a reason naming the problem.
TEST(JsonTest, RefusesWhatRfc8259DoesNotAllow) {
  const std::pair<const char*, const char*> kBad[] = {
      {"", "unexpected end"},
      {"{", "expected a string key"},
      {"{\"a\":1,}", "expected a string key"},
      {"[1,]", "unexpected character"},
      {"[1 2]", "expected ',' or ']'"},
      {"{\"a\" 1}", "expected ':'"},
      {"{'a':1}", "expected a string key"},
      {"// c\n1", "unexpected character"},
      {"01", "leading zero"},
      {"+1", "unexpected character"},
      {"1.", "expected a digit after '.'"},
      {".5", "unexpected character"},
      {"1e", "expected a digit in the exponent"},
      {"NaN", "unexpected character"},
      {"Infinity", "unexpected character"},
      {"1e400", "number out of range"},
      {"tru", "invalid literal"},
      {"\"a", "unterminated string"},
      {"\"a\tb\"", "control character"},
      {"\"\\x\"", "invalid escape"},
      {"\"\\u12\"", "invalid \\u escape"},
      {"\"\\ud800\"", "unpaired high surrogate"},
      {"\"\\udc00\"", "unpaired low surrogate"},
      {"\"\xff\"", "invalid UTF-8"},
      {"\"\xc0\xaf\"", "invalid UTF-8"},          // overlong '/'
      {"\"\xed\xa0\x80\"", "invalid UTF-8"},      // a surrogate in UTF-8
      {"\"\xf4\x90\x80\x80\"", "invalid UTF-8"},  // above U+10FFFF
      {"1 2", "trailing characters"},
      {"\xef\xbb\xbf{}", "unexpected character"},  // a BOM
      {"{\"a\":1,\"a\":2}", "duplicate key \"a\" at byte 7"},
  };
  for (const auto& [doc, why] : kBad) {
    absl::StatusOr<JsonValue> v = ParseJson(doc);
    ASSERT_FALSE(v.ok()) << doc;
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(v.status().message(), HasSubstr(why)) << doc;
  }
}

TEST(JsonTest, AnObjectOfAllTheKeysTheLimitsAllowParsesItsDuplicateIsNamed) {
  std::string doc = "{";
  const size_t n = JsonLimits().max_values - 1;  // the object is a value too
  for (size_t i = 0; i < n; ++i)
    absl::StrAppend(&doc, i ? "," : "", "\"k", i, "\":", i);
  absl::StatusOr<JsonValue> v = ParseJson(doc + "}");
  ASSERT_TRUE(v.ok()) << v.status();
  absl::StatusOr<JsonValue> dup = ParseJson(doc + ",\"k77\":0}");
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.status().message(), HasSubstr("duplicate key \"k77\""));
}

TEST(JsonTest, LimitsHold) {
  JsonLimits limits;
  limits.max_depth = 3;
  EXPECT_TRUE(ParseJson("[[[]]]", limits).ok());
  absl::StatusOr<JsonValue> deep = ParseJson("[[[[]]]]", limits);
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(deep.status().message(), HasSubstr("nesting deeper than 3"));
  // Deep nesting of the default limits never recurses far: 100,000 '['.
  EXPECT_FALSE(ParseJson(std::string(60000, '[')).ok());

  limits = JsonLimits();
  limits.max_bytes = 10;
  EXPECT_THAT(ParseJson("[1,2,3,4,5]", limits).status().message(),
              HasSubstr("11 bytes, more than the limit of 10"));
  limits = JsonLimits();
  limits.max_string_bytes = 4;
  EXPECT_TRUE(ParseJson("\"abcd\"", limits).ok());
  EXPECT_THAT(ParseJson("\"abcde\"", limits).status().message(),
              HasSubstr("longer than 4 bytes"));
  EXPECT_FALSE(ParseJson("{\"abcde\":1}", limits).ok());  // keys too
  limits = JsonLimits();
  limits.max_values = 3;
  EXPECT_TRUE(ParseJson("[1,2]", limits).ok());
  EXPECT_THAT(ParseJson("[1,2,3]", limits).status().message(),
              HasSubstr("more than 3 values"));
  EXPECT_THAT(
      ParseJson(absl::StrCat("1", std::string(70, '0'))).status().message(),
      HasSubstr("longer than 64"));
}

TEST(JsonTest, QuoteEscapes) {
  EXPECT_EQ(JsonQuote("a\"b\\c\n\x01\x7f\xc3\xa9"),
            "\"a\\\"b\\\\c\\n\\u0001\\u007f\xc3\xa9\"");
}

}  // namespace
}  // namespace net
