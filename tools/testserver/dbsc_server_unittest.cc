// DbscServer's routes driven directly with a fake clock: login,
// registration, the bound cookie's lifetime, refresh with and without a
// proof, and every refusal (replayed, foreign key, wrong URL, expired
// challenge) with its log reason.

#include "tools/testserver/dbsc_server.h"

#include <openssl/ec_key.h>
#include <openssl/nid.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "net/device_bound_sessions/json.h"
#include "net/device_bound_sessions/proof.h"
#include "net/device_bound_sessions/session_config.h"
#include "net/device_bound_sessions/structured_headers.h"

namespace net {
namespace {

using ::testing::HasSubstr;

constexpr char kHost[] = "www.example.test:8443";

bssl::UniquePtr<EVP_PKEY> NewKey() {
  bssl::UniquePtr<EC_KEY> ec(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  EC_KEY_generate_key(ec.get());
  bssl::UniquePtr<EVP_PKEY> key(EVP_PKEY_new());
  EVP_PKEY_set1_EC_KEY(key.get(), ec.get());
  return key;
}

std::string HeaderOf(const DbscResponse& r, absl::string_view name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return "";
}

// The value of the cookie a Set-Cookie header sets.
std::string CookieValue(const DbscResponse& r) {
  std::string set = HeaderOf(r, "Set-Cookie");
  return set.substr(0, set.find(';'));
}

class DbscServerTest : public ::testing::Test {
 protected:
  DbscServerTest() : server_(Config(), [this] { return now_; }) {}

  static DbscServerConfig Config() {
    DbscServerConfig config;
    config.cookie_lifetime = absl::Seconds(5);
    config.challenge_lifetime = absl::Seconds(30);
    return config;
  }

  DbscRequest Req(const std::string& method, const std::string& path) {
    DbscRequest r;
    r.method = method;
    r.path = path;
    r.host = kHost;
    r.tls = true;
    return r;
  }

  std::string Proof(EVP_PKEY* key, const std::string& aud,
                    const std::string& challenge,
                    std::optional<std::string> authorization, bool jwk) {
    DbscProofClaims claims;
    claims.audience = aud;
    claims.challenge = challenge;
    claims.issued_at = absl::ToUnixSeconds(now_);
    claims.authorization = std::move(authorization);
    return *SerializeSfString(*SignDbscProof(key, claims, jwk));
  }

  // Logs in, registers with |key_|; returns the registration answer.
  DbscResponse Register() {
    DbscResponse login = server_.Handle(Req("GET", "/dbsc/login")).value();
    EXPECT_EQ(login.status, 200);
    absl::StatusOr<std::vector<RegistrationParams>> params =
        ParseRegistrationHeader(HeaderOf(login, "Secure-Session-Registration"));
    EXPECT_TRUE(params.ok());
    EXPECT_EQ(params->size(), 1u);
    reg_ = (*params)[0];
    EXPECT_EQ(reg_.algorithms, std::vector<std::string>{"ES256"});
    EXPECT_EQ(reg_.path, "/dbsc/register");
    DbscRequest r = Req("POST", "/dbsc/register");
    r.session_response =
        Proof(key_.get(), absl::StrCat("https://", kHost, "/dbsc/register"),
              *reg_.challenge, reg_.authorization, true);
    return server_.Handle(r).value();
  }

  // Refreshes session |id| with a proof over |challenge| by |key|.
  DbscResponse Refresh(const std::string& id, EVP_PKEY* key,
                       const std::string& challenge) {
    DbscRequest r = Req("POST", "/dbsc/refresh");
    r.session_id = *SerializeSfString(id);
    if (key)
      r.session_response =
          Proof(key, absl::StrCat("https://", kHost, "/dbsc/refresh"),
                challenge, std::nullopt, false);
    return server_.Handle(r).value();
  }

  DbscResponse Protected(const std::string& cookie) {
    DbscRequest r = Req("GET", "/dbsc/protected");
    r.cookie_header = cookie;
    return server_.Handle(r).value();
  }

  static ChallengeParams NextChallenge(const DbscResponse& r) {
    absl::StatusOr<std::vector<ChallengeParams>> c =
        ParseChallengeHeader(HeaderOf(r, "Secure-Session-Challenge"));
    EXPECT_TRUE(c.ok() && c->size() == 1u)
        << HeaderOf(r, "Secure-Session-Challenge");
    return (*c)[0];
  }

  absl::Time now_ = absl::FromUnixSeconds(1'750'000'000);
  DbscServer server_;
  bssl::UniquePtr<EVP_PKEY> key_ = NewKey();
  RegistrationParams reg_;
};

TEST_F(DbscServerTest, RegisterThenTheCookieLivesItsLifetime) {
  DbscResponse reg = Register();
  ASSERT_EQ(reg.status, 200) << reg.body;
  EXPECT_THAT(reg.log, HasSubstr("\"dbsc\":\"registered\""));
  absl::StatusOr<SessionInstructions> i = ParseSessionInstructions(reg.body);
  ASSERT_TRUE(i.ok()) << i.status() << reg.body;
  EXPECT_EQ(i->refresh_url, "/dbsc/refresh");
  EXPECT_EQ(i->credentials[0].name, "dbsc_auth");
  EXPECT_THAT(HeaderOf(reg, "Set-Cookie"),
              HasSubstr("Max-Age=5; Path=/; Secure; HttpOnly"));
  EXPECT_EQ(NextChallenge(reg).session_id, i->session_identifier);
  EXPECT_EQ(server_.session_count(), 1u);

  const std::string cookie = CookieValue(reg);
  EXPECT_EQ(Protected(cookie).status, 200);
  now_ += absl::Seconds(4);
  EXPECT_EQ(Protected(cookie).status, 200);
  now_ += absl::Seconds(1);
  // Expired: the server checks, whatever the client kept.
  DbscResponse expired = Protected(cookie);
  EXPECT_EQ(expired.status, 403);
  EXPECT_THAT(expired.log, HasSubstr("\"dbsc_reason\":\"expired\""));
  EXPECT_THAT(Protected("").log, HasSubstr("\"dbsc_reason\":\"missing\""));
  std::string forged = cookie;
  forged[forged.size() - 3] ^= 1;
  EXPECT_EQ(Protected(forged).status, 403);
}

TEST_F(DbscServerTest, RefreshNeedsAFreshProofByTheSessionKey) {
  DbscResponse reg = Register();
  ASSERT_EQ(reg.status, 200);
  const std::string id = ParseSessionInstructions(reg.body)->session_identifier;
  const std::string c2 = NextChallenge(reg).challenge;

  // No proof: 403 with a new challenge.
  DbscResponse no_proof = Refresh(id, nullptr, "");
  EXPECT_EQ(no_proof.status, 403);
  EXPECT_THAT(no_proof.log, HasSubstr("\"dbsc\":\"challenged\""));
  const std::string c3 = NextChallenge(no_proof).challenge;
  EXPECT_NE(c3, c2);

  // A proof over c2 by the session key: refreshed, new cookie.
  DbscResponse ok = Refresh(id, key_.get(), c2);
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_THAT(ok.log, HasSubstr("\"dbsc\":\"refreshed\""));
  EXPECT_EQ(Protected(CookieValue(ok)).status, 200);

  // The same challenge again (a replayed proof): refused, with a challenge.
  DbscResponse replay = Refresh(id, key_.get(), c2);
  EXPECT_EQ(replay.status, 403);
  EXPECT_THAT(replay.log, HasSubstr("\"dbsc_reason\":\"replayed_proof\""));
  EXPECT_TRUE(HeaderOf(replay, "Set-Cookie").empty());
  // A thief's key over a valid challenge: 401, the session is not his.
  bssl::UniquePtr<EVP_PKEY> thief = NewKey();
  DbscResponse stolen = Refresh(id, thief.get(), c3);
  EXPECT_EQ(stolen.status, 401);
  EXPECT_THAT(stolen.log, HasSubstr("\"dbsc_reason\":\"bad_proof\""));
  // A challenge of another session or none: refused.
  EXPECT_THAT(Refresh(id, key_.get(), "made-up").log,
              HasSubstr("unknown_challenge"));
  // Too late for c3.
  now_ += absl::Seconds(31);
  EXPECT_THAT(Refresh(id, key_.get(), c3).log,
              HasSubstr("\"dbsc_reason\":\"expired_challenge\""));
  EXPECT_THAT(Refresh("nope", key_.get(), c3).log,
              HasSubstr("unknown_session"));
}

TEST_F(DbscServerTest, RegistrationRefusals) {
  DbscResponse reg = Register();
  ASSERT_EQ(reg.status, 200);
  // The same registration proof again.
  DbscRequest again = Req("POST", "/dbsc/register");
  again.session_response =
      Proof(key_.get(), absl::StrCat("https://", kHost, "/dbsc/register"),
            *reg_.challenge, reg_.authorization, true);
  EXPECT_THAT(server_.Handle(again)->log, HasSubstr("replayed_proof"));

  // A proof made for another URL (scheme or host).
  DbscResponse login = server_.Handle(Req("GET", "/dbsc/login")).value();
  RegistrationParams p = (*ParseRegistrationHeader(
      HeaderOf(login, "Secure-Session-Registration")))[0];
  DbscRequest wrong_aud = Req("POST", "/dbsc/register");
  wrong_aud.session_response =
      Proof(key_.get(), absl::StrCat("http://", kHost, "/dbsc/register"),
            *p.challenge, p.authorization, true);
  DbscResponse r = server_.Handle(wrong_aud).value();
  EXPECT_EQ(r.status, 401);
  EXPECT_THAT(r.log, HasSubstr("bad_audience"));
  // ... but behind a TLS-terminating proxy (plain HTTP to us,
  // X-Forwarded-Proto: https) the https URL is the right one.
  DbscRequest proxied = Req("POST", "/dbsc/register");
  proxied.tls = false;
  proxied.forwarded_proto = "https";
  proxied.session_response =
      Proof(key_.get(), absl::StrCat("https://", kHost, "/dbsc/register"),
            *p.challenge, p.authorization, true);
  EXPECT_EQ(server_.Handle(proxied)->status, 200);

  // The authorization must be the one login gave with the challenge.
  login = server_.Handle(Req("GET", "/dbsc/login")).value();
  p = (*ParseRegistrationHeader(
      HeaderOf(login, "Secure-Session-Registration")))[0];
  DbscRequest bad_auth = Req("POST", "/dbsc/register");
  bad_auth.session_response =
      Proof(key_.get(), absl::StrCat("https://", kHost, "/dbsc/register"),
            *p.challenge, std::string("other"), true);
  EXPECT_THAT(server_.Handle(bad_auth)->log, HasSubstr("bad_authorization"));
  // No jwk: nothing to register.
  DbscRequest no_jwk = Req("POST", "/dbsc/register");
  no_jwk.session_response =
      Proof(key_.get(), absl::StrCat("https://", kHost, "/dbsc/register"),
            *p.challenge, p.authorization, false);
  EXPECT_THAT(server_.Handle(no_jwk)->log, HasSubstr("bad_proof"));
  DbscRequest none = Req("POST", "/dbsc/register");
  EXPECT_THAT(server_.Handle(none)->log, HasSubstr("no_proof"));

  EXPECT_EQ(server_.Handle(Req("GET", "/other")), std::nullopt);
  EXPECT_EQ(server_.Handle(Req("GET", "/dbsc/register"))->status, 405);
  DbscRequest skipped = Req("GET", "/dbsc/protected");
  skipped.skipped = "unreachable;session_identifier=\"s\"";
  EXPECT_THAT(server_.Handle(skipped)->log, HasSubstr("\"dbsc_skipped\""));
}

}  // namespace
}  // namespace net
