#include "net/http/http_field_grammar.h"

#include <string>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(HttpFieldGrammarTest, TokenChars) {
  for (char c : std::string("!#$%&'*+-.^_`|~azAZ09"))
    EXPECT_TRUE(IsTokenChar(c));
  for (char c : std::string("\"(),/:;<=>?@[\\]{} \t\x7f"))
    EXPECT_FALSE(IsTokenChar(c));
  EXPECT_FALSE(IsTokenChar('\0'));
  EXPECT_FALSE(IsTokenChar(static_cast<char>(0xe9)));
  EXPECT_TRUE(IsToken("Content-Type"));
  EXPECT_FALSE(IsToken(""));
  EXPECT_FALSE(IsToken("a b"));
}

TEST(HttpFieldGrammarTest, OwsAndToken) {
  absl::string_view s = " \t h3=\":443\"";
  ConsumeOws(&s);
  EXPECT_EQ(ConsumeToken(&s), "h3");
  EXPECT_EQ(s, "=\":443\"");
  EXPECT_EQ(ConsumeToken(&s), "");
  EXPECT_EQ(s, "=\":443\"");
}

TEST(HttpFieldGrammarTest, QuotedString) {
  absl::string_view s = R"("a\"b\\c" rest)";
  std::string out;
  ASSERT_TRUE(ConsumeQuotedString(&s, &out));
  EXPECT_EQ(out, "a\"b\\c");
  EXPECT_EQ(s, " rest");

  // obs-text and HTAB are allowed, escaped or not.
  std::string obs = "\"\xe9\t\\\xe9\"";
  s = obs;
  ASSERT_TRUE(ConsumeQuotedString(&s, &out));
  EXPECT_EQ(out, "\xe9\t\xe9");

  // Validation without unescaping.
  s = "\"x\"";
  EXPECT_TRUE(ConsumeQuotedString(&s));
  EXPECT_TRUE(s.empty());
}

TEST(HttpFieldGrammarTest, MalformedQuotedStringsLeaveInputAlone) {
  for (absl::string_view bad :
       {absl::string_view("x\"\""), absl::string_view("\"open"),
        absl::string_view("\"ends in escape\\"),
        absl::string_view("\"nul\0\"", 6), absl::string_view("\"del\x7f\""),
        absl::string_view("\"esc ctl\\\x01\""), absl::string_view("")}) {
    absl::string_view s = bad;
    std::string out = "untouched";
    EXPECT_FALSE(ConsumeQuotedString(&s, &out)) << bad;
    EXPECT_EQ(s, bad);
    EXPECT_EQ(out, "untouched");
  }
}

}  // namespace
}  // namespace net
