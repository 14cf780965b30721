#include "net/device_bound_sessions/structured_headers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace net {
namespace {

using ::testing::HasSubstr;

TEST(StructuredHeadersTest, ParsesTheDraftsRegistrationExample) {
  absl::StatusOr<std::vector<SfListMember>> list = ParseSfList(
      R"((ES256 RS256);path="reg1";challenge="cv1";authorization="a", )"
      R"((RS256);path="reg2")");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  const SfListMember& first = (*list)[0];
  ASSERT_TRUE(first.is_inner_list);
  ASSERT_EQ(first.inner.size(), 2u);
  EXPECT_TRUE(first.inner[0].bare.is_token());
  EXPECT_EQ(first.inner[0].bare.string, "ES256");
  EXPECT_EQ(first.inner[1].bare.string, "RS256");
  ASSERT_NE(FindParameter(first.params, "path"), nullptr);
  EXPECT_EQ(FindParameter(first.params, "path")->string, "reg1");
  EXPECT_EQ(FindParameter(first.params, "challenge")->string, "cv1");
  EXPECT_EQ(FindParameter(first.params, "authorization")->string, "a");
  EXPECT_EQ(FindParameter((*list)[1].params, "path")->string, "reg2");
}

TEST(StructuredHeadersTest, EveryBareItemType) {
  absl::StatusOr<std::vector<SfListMember>> list = ParseSfList(
      "42, -7.125, \"a \\\"q\\\" \\\\\", tok/en:x, :aGVsbG8=:, ?0, ?1;x;y=2");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 7u);
  EXPECT_EQ((*list)[0].item.bare.type, SfBareItem::Type::kInteger);
  EXPECT_EQ((*list)[0].item.bare.integer, 42);
  EXPECT_EQ((*list)[1].item.bare.type, SfBareItem::Type::kDecimal);
  EXPECT_EQ((*list)[1].item.bare.decimal, -7.125);
  EXPECT_EQ((*list)[2].item.bare.string, "a \"q\" \\");
  EXPECT_EQ((*list)[3].item.bare.string, "tok/en:x");
  EXPECT_EQ((*list)[4].item.bare.type, SfBareItem::Type::kByteSequence);
  EXPECT_EQ((*list)[4].item.bare.string, "hello");
  EXPECT_FALSE((*list)[5].item.bare.boolean);
  const SfItem& last = (*list)[6].item;
  EXPECT_TRUE(last.bare.boolean);
  ASSERT_EQ(last.params.size(), 2u);
  EXPECT_TRUE(FindParameter(last.params, "x")->boolean);  // bare key: true
  EXPECT_EQ(FindParameter(last.params, "y")->integer, 2);
}

TEST(StructuredHeadersTest, ChallengeHeaderAndRepeatedParameters) {
  absl::StatusOr<std::vector<SfListMember>> list = ParseSfList(
      CombineFieldLines({R"("c1";id="s 1")", R"("c2";id="a";id="b")"}));
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ(FindParameter((*list)[0].item.params, "id")->string, "s 1");
  // RFC 9651 4.2.3.2: the last value of a repeated key wins, in place.
  ASSERT_EQ((*list)[1].item.params.size(), 1u);
  EXPECT_EQ(FindParameter((*list)[1].item.params, "id")->string, "b");
  EXPECT_TRUE(ParseSfList("")->empty());
  EXPECT_TRUE(ParseSfList("  ")->empty());
}

TEST(StructuredHeadersTest, RefusesMalformedFields) {
  const std::pair<const char*, const char*> kBad[] = {
      {"a,", "trailing ','"},
      {"a,,b", "expected an item"},
      {"(a b", "expected ' ' or ')'"},
      {"(a)b", "expected ',' between"},
      {"\"unterminated", "unterminated string"},
      {"\"\\n\"", "invalid escape"},
      {"\"caf\xc3\xa9\"", "printable ASCII"},
      {"a;Key=1", "a key must start"},
      {"1234567890123456", "integer too long"},
      {"1234567890123.5", "decimal too long"},
      {"1.2345", "more than 3 fractional"},
      {"1.", "decimal ends in '.'"},
      {"?2", "?0 or ?1"},
      {":a*b:", "invalid byte sequence character"},
      {"@1659578233", "Dates and Display Strings"},
      {"%\"x\"", "Dates and Display Strings"},
      {"a b", "expected ',' between"},
  };
  for (const auto& [value, why] : kBad) {
    absl::StatusOr<std::vector<SfListMember>> list = ParseSfList(value);
    ASSERT_FALSE(list.ok()) << value;
    EXPECT_THAT(list.status().message(), HasSubstr(why)) << value;
  }
  EXPECT_FALSE(ParseSfItem("a, b").ok());
  EXPECT_EQ(ParseSfItem(" \"x\" ")->bare.string, "x");
}

TEST(StructuredHeadersTest, MembersAreBounded) {
  std::string many;
  for (size_t i = 0; i <= kMaxSfMembers; ++i) many += i ? ",a" : "a";
  EXPECT_THAT(ParseSfList(many).status().message(),
              HasSubstr("more than 1024 members"));
}

TEST(StructuredHeadersTest, SerializeString) {
  EXPECT_EQ(*SerializeSfString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_FALSE(SerializeSfString("tab\t").ok());
  EXPECT_EQ(ParseSfItem(*SerializeSfString("x\"y"))->bare.string, "x\"y");
}

}  // namespace
}  // namespace net
