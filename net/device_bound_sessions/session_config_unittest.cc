#include "net/device_bound_sessions/session_config.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace net {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SessionConfigTest, RegistrationHeader) {
  std::vector<std::string> skipped;
  absl::StatusOr<std::vector<RegistrationParams>> regs =
      ParseRegistrationHeader(
          R"((ES256 RS256);path="reg";challenge="cv";authorization="ac", )"
          R"((ES256);path="/r2", ES256;path="x", ("ES256");challenge="c", )"
          R"((ES256);path="p";challenge=1)",
          &skipped);
  ASSERT_TRUE(regs.ok()) << regs.status();
  ASSERT_EQ(regs->size(), 2u);
  EXPECT_THAT((*regs)[0].algorithms, ElementsAre("ES256", "RS256"));
  EXPECT_EQ((*regs)[0].path, "reg");
  EXPECT_EQ((*regs)[0].challenge, "cv");
  EXPECT_EQ((*regs)[0].authorization, "ac");
  EXPECT_EQ((*regs)[1].path, "/r2");
  EXPECT_EQ((*regs)[1].challenge, std::nullopt);
  EXPECT_EQ((*regs)[1].authorization, std::nullopt);
  // The draft's skips, each with its reason.
  ASSERT_EQ(skipped.size(), 3u);
  EXPECT_THAT(skipped[0], HasSubstr("not an inner list"));
  EXPECT_THAT(skipped[1], HasSubstr("no string path"));
  EXPECT_THAT(skipped[2], HasSubstr("no string"));
  // A field that is no List at all is an error.
  EXPECT_FALSE(ParseRegistrationHeader("(ES256;path=\"x\"").ok());
  // At most kMaxRegistrationsPerResponse entries are used.
  std::string many;
  for (int i = 0; i < 10; ++i)
    absl::StrAppend(&many, i ? ", " : "", "(ES256);path=\"r", i, "\"");
  EXPECT_EQ(ParseRegistrationHeader(many)->size(),
            kMaxRegistrationsPerResponse);
}

TEST(SessionConfigTest, ChallengeHeader) {
  absl::StatusOr<std::vector<ChallengeParams>> c = ParseChallengeHeader(
      R"("c1";id="session 1", "c2";id="s2", tok;id="s3", "c4", "c5";id=5)");
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].challenge, "c1");
  EXPECT_EQ((*c)[0].session_id, "session 1");
  EXPECT_EQ((*c)[1].challenge, "c2");
  EXPECT_FALSE(ParseChallengeHeader("\"open").ok());
}

constexpr char kDraftExample[] = R"({
  "session_identifier": "session_id",
  "refresh_url": "/RefreshEndpoint",
  "scope": {
    "origin": "https://example.com",
    "include_site": true,
    "scope_specification" : [
      { "type": "include", "domain": "trusted.example.com", "path": "/only_trusted_path" },
      { "type": "exclude", "domain": "untrusted.example.com", "path": "/" },
      { "type": "exclude", "domain": "*.example.com", "path": "/static" }
    ]
  },
  "credentials": [{
    "type": "cookie",
    "name": "auth_cookie",
    "attributes": "Domain=example.com; Path=/; Secure; HttpOnly; SameSite=None"
  }],
  "allowed_refresh_initiators": ["example.com", "*.example.com"],
  "future_key": {"ignored": [1, 2]}
})";

TEST(SessionConfigTest, TheDraftsExampleParses) {
  absl::StatusOr<SessionInstructions> i =
      ParseSessionInstructions(kDraftExample);
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_TRUE(i->continue_session);
  EXPECT_EQ(i->session_identifier, "session_id");
  EXPECT_EQ(i->refresh_url, "/RefreshEndpoint");
  EXPECT_EQ(i->scope_origin, "https://example.com");
  EXPECT_TRUE(i->include_site);
  ASSERT_EQ(i->scope_rules.size(), 3u);
  EXPECT_EQ(i->scope_rules[0], (SessionScopeRule{true, "trusted.example.com",
                                                 "/only_trusted_path"}));
  EXPECT_EQ(i->scope_rules[2],
            (SessionScopeRule{false, "*.example.com", "/static"}));
  ASSERT_EQ(i->credentials.size(), 1u);
  EXPECT_EQ(i->credentials[0].name, "auth_cookie");
  EXPECT_THAT(i->credentials[0].attributes, HasSubstr("SameSite=None"));
  EXPECT_THAT(i->allowed_refresh_initiators,
              ElementsAre("example.com", "*.example.com"));
}

TEST(SessionConfigTest, DefaultsAndContinueFalse) {
  absl::StatusOr<SessionInstructions> i = ParseSessionInstructions(
      R"({"session_identifier":"s","scope":{"include_site":false,
          "scope_specification":[{"type":"exclude"}]},
          "credentials":[{"type":"cookie","name":"a"}]})");
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(i->refresh_url, std::nullopt);
  EXPECT_EQ(i->scope_origin, std::nullopt);
  EXPECT_EQ(i->scope_rules[0], (SessionScopeRule{false, "*", "/"}));
  EXPECT_EQ(i->credentials[0].attributes, "");
  // "continue": false needs nothing else.
  i = ParseSessionInstructions(R"({"continue":false})");
  ASSERT_TRUE(i.ok());
  EXPECT_FALSE(i->continue_session);
}

TEST(SessionConfigTest, MalformedInstructionsAreNamed) {
  const std::pair<const char*, const char*> kBad[] = {
      {"", "unexpected end"},
      {"[]", "not a JSON object"},
      {R"({"continue":"no"})", "\"continue\" is not a boolean"},
      {R"({"scope":{"include_site":false},"credentials":[]})",
       "\"session_identifier\" is missing"},
      {R"({"session_identifier":7})", "\"session_identifier\" is not a string"},
      {R"({"session_identifier":""})", "is empty"},
      {R"({"session_identifier":"a\tb"})", "not printable ASCII"},
      {R"({"session_identifier":"s","credentials":[]})",
       "\"scope\" is missing"},
      {R"({"session_identifier":"s","scope":{},"credentials":[]})",
       "include_site\" is missing"},
      {R"({"session_identifier":"s","scope":{"include_site":1},"credentials":[]})",
       "include_site\" is not a boolean"},
      {R"({"session_identifier":"s","scope":{"include_site":false}})",
       "\"credentials\" is missing"},
      {R"({"session_identifier":"s","scope":{"include_site":false},
           "credentials":[{"type":"token","name":"a"}]})",
       "is not \"cookie\""},
      {R"({"session_identifier":"s","scope":{"include_site":false},
           "credentials":[{"type":"cookie"}]})",
       "name is missing"},
      {R"({"session_identifier":"s","scope":{"include_site":false,
           "scope_specification":[{"type":"maybe"}]},"credentials":[]})",
       "scope_specification[0].type"},
      {R"({"session_identifier":"s","scope":{"include_site":false,
           "scope_specification":[{"type":"include","path":"x"}]},"credentials":[]})",
       "does not start with '/'"},
      {R"({"session_identifier":"s","refresh_url":["x"],"scope":{"include_site":false},"credentials":[]})",
       "\"refresh_url\" is not a string"},
      {R"({"session_identifier":"s","scope":{"include_site":false},"credentials":[],
           "allowed_refresh_initiators":[""]})",
       "allowed refresh initiator"},
      {R"({"session_identifier":"s","session_identifier":"t"})",
       "duplicate key"},
  };
  for (const auto& [body, why] : kBad) {
    absl::StatusOr<SessionInstructions> i = ParseSessionInstructions(body);
    ASSERT_FALSE(i.ok()) << body;
    EXPECT_EQ(i.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(i.status().message(), HasSubstr(why)) << body;
  }
}

TEST(SessionConfigTest, ListsAndSizesAreBounded) {
  std::string creds;
  for (size_t i = 0; i <= kMaxCredentials; ++i)
    absl::StrAppend(&creds, i ? "," : "", R"({"type":"cookie","name":"a"})");
  EXPECT_THAT(
      ParseSessionInstructions(
          absl::StrCat(
              R"({"session_identifier":"s","scope":{"include_site":false},"credentials":[)",
              creds, "]}"))
          .status()
          .message(),
      HasSubstr("more than 16 credentials"));
  EXPECT_THAT(ParseSessionInstructions(
                  absl::StrCat(R"({"session_identifier":")",
                               std::string(kMaxSessionIdBytes + 1, 'a'), "\"}"))
                  .status()
                  .message(),
              HasSubstr("longer than 256 bytes"));
  EXPECT_THAT(ParseSessionInstructions(
                  absl::StrCat("{\"x\":\"",
                               std::string(kMaxInstructionsBytes, 'a'), "\"}"))
                  .status()
                  .message(),
              HasSubstr("more than the limit"));
}

}  // namespace
}  // namespace net
