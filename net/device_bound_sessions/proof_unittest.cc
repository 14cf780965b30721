#include "net/device_bound_sessions/proof.h"

#include <openssl/ec_key.h>
#include <openssl/nid.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "net/device_bound_sessions/json.h"

namespace net {
namespace {

using ::testing::HasSubstr;

bssl::UniquePtr<EVP_PKEY> NewP256Key() {
  bssl::UniquePtr<EC_KEY> ec(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  EXPECT_TRUE(EC_KEY_generate_key(ec.get()));
  bssl::UniquePtr<EVP_PKEY> key(EVP_PKEY_new());
  EXPECT_TRUE(EVP_PKEY_set1_EC_KEY(key.get(), ec.get()));
  return key;
}

DbscProofClaims Claims() {
  DbscProofClaims claims;
  claims.audience = "https://www.example.test/dbsc/register";
  claims.challenge = "cv";
  claims.issued_at = 1725579055;
  claims.authorization = "ac";
  return claims;
}

std::vector<std::string> Parts(const std::string& jwt) {
  return absl::StrSplit(jwt, '.');
}

JsonValue DecodePart(const std::string& part) {
  absl::StatusOr<std::string> bytes = Base64UrlDecode(part);
  EXPECT_TRUE(bytes.ok());
  absl::StatusOr<JsonValue> json = ParseJson(*bytes);
  EXPECT_TRUE(json.ok());
  return *json;
}

TEST(ProofTest, RegistrationProofRoundTripsWithItsOwnJwk) {
  bssl::UniquePtr<EVP_PKEY> key = NewP256Key();
  absl::StatusOr<std::string> jwt =
      SignDbscProof(key.get(), Claims(), /*include_jwk=*/true);
  ASSERT_TRUE(jwt.ok()) << jwt.status();
  // The draft's header: alg, typ, jwk with kty/crv/x/y.
  JsonValue header = DecodePart(Parts(*jwt)[0]);
  EXPECT_EQ(header.Find("alg")->string_value(), "ES256");
  EXPECT_EQ(header.Find("typ")->string_value(), "dbsc+jwt");
  EXPECT_EQ(header.Find("jwk")->Find("kty")->string_value(), "EC");
  EXPECT_EQ(header.Find("jwk")->Find("crv")->string_value(), "P-256");
  EXPECT_EQ(header.Find("jwk")->Find("d"), nullptr);  // never the private key
  JsonValue payload = DecodePart(Parts(*jwt)[1]);
  EXPECT_EQ(payload.Find("jti")->string_value(), "cv");
  EXPECT_EQ(payload.Find("authorization")->string_value(), "ac");
  EXPECT_EQ(payload.Find("iat")->number_value(), 1725579055);

  absl::StatusOr<VerifiedDbscProof> verified = VerifyDbscProof(*jwt, nullptr);
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_EQ(verified->claims, Claims());
  ASSERT_TRUE(verified->jwk);
  // The presented key is the signer's public key.
  EXPECT_EQ(*PublicKeySpki(verified->jwk.get()), *PublicKeySpki(key.get()));
  // The same proof verifies against that key directly too — but a given key
  // forbids a jwk in the header (a refresh proof carries none).
  EXPECT_THAT(VerifyDbscProof(*jwt, key.get()).status().message(),
              HasSubstr("must not carry a jwk"));
}

TEST(ProofTest, RefreshProofVerifiesOnlyWithTheSessionKey) {
  bssl::UniquePtr<EVP_PKEY> key = NewP256Key();
  DbscProofClaims claims = Claims();
  claims.authorization.reset();
  absl::StatusOr<std::string> jwt = SignDbscProof(key.get(), claims, false);
  ASSERT_TRUE(jwt.ok());
  EXPECT_EQ(DecodePart(Parts(*jwt)[0]).Find("jwk"), nullptr);
  EXPECT_EQ(DecodePart(Parts(*jwt)[1]).Find("authorization"), nullptr);
  absl::StatusOr<VerifiedDbscProof> verified = VerifyDbscProof(*jwt, key.get());
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_EQ(verified->claims, claims);
  EXPECT_FALSE(verified->jwk);
  // Another key (a thief's): the signature does not verify.
  bssl::UniquePtr<EVP_PKEY> other = NewP256Key();
  EXPECT_THAT(VerifyDbscProof(*jwt, other.get()).status().message(),
              HasSubstr("signature does not verify"));
  // No key and no jwk: nothing to verify with.
  EXPECT_THAT(VerifyDbscProof(*jwt, nullptr).status().message(),
              HasSubstr("no jwk"));
}

TEST(ProofTest, TamperingIsDetected) {
  bssl::UniquePtr<EVP_PKEY> key = NewP256Key();
  std::string jwt = *SignDbscProof(key.get(), Claims(), true);
  std::vector<std::string> parts = Parts(jwt);

  // Another challenge in the payload, same signature.
  DbscProofClaims replayed = Claims();
  replayed.challenge = "another";
  std::string forged_payload =
      Parts(*SignDbscProof(key.get(), replayed, true))[1];
  EXPECT_THAT(
      VerifyDbscProof(
          absl::StrCat(parts[0], ".", forged_payload, ".", parts[2]), nullptr)
          .status()
          .message(),
      HasSubstr("signature does not verify"));
  // A thief's key in the header over the victim's signature.
  bssl::UniquePtr<EVP_PKEY> other = NewP256Key();
  std::string other_header =
      Parts(*SignDbscProof(other.get(), Claims(), true))[0];
  EXPECT_FALSE(
      VerifyDbscProof(absl::StrCat(other_header, ".", parts[1], ".", parts[2]),
                      nullptr)
          .ok());
  // Every single-character change of the signature is refused.
  for (size_t i = 0; i < parts[2].size(); ++i) {
    std::string sig = parts[2];
    sig[i] = sig[i] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(VerifyDbscProof(
                     absl::StrCat(parts[0], ".", parts[1], ".", sig), nullptr)
                     .ok())
        << i;
  }
}

std::string Forge(const std::string& header_json,
                  const std::string& payload_json, const std::string& sig) {
  return absl::StrCat(Base64UrlEncode(header_json), ".",
                      Base64UrlEncode(payload_json), ".", sig);
}

TEST(ProofTest, MalformedProofsAreNamed) {
  bssl::UniquePtr<EVP_PKEY> key = NewP256Key();
  const std::string good_payload = R"({"aud":"a","jti":"c","iat":1})";
  const std::string sig = Base64UrlEncode(std::string(64, 'x'));
  const std::pair<std::string, const char*> kBad[] = {
      {"a.b", "three dot-separated parts"},
      {"a.b.c.d", "three dot-separated parts"},
      {"!!!.e30.e30", "header is not base64url"},
      {Forge("[]", good_payload, sig), "header is no object"},
      {Forge(R"({"alg":"ES256"})", good_payload, sig), "typ"},
      {Forge(R"({"typ":"dbsc+jwt","alg":"none"})", good_payload, sig),
       "alg \"none\" is not accepted"},
      {Forge(R"({"typ":"dbsc+jwt","alg":"RS256"})", good_payload, sig),
       "is not accepted"},
      {Forge(R"({"typ":"dbsc+jwt","alg":"ES256","jwk":{"kty":"RSA"}})",
             good_payload, sig),
       "kty"},
      {Forge(
           R"({"typ":"dbsc+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}})",
           good_payload, sig),
       "32-byte"},
      {Forge(
           R"({"typ":"dbsc+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":")" +
               Base64UrlEncode(std::string(32, '\x01')) + R"(","y":")" +
               Base64UrlEncode(std::string(32, '\x02')) + R"("}})",
           good_payload, sig),
       "not a point on P-256"},
      {Forge(R"({"typ":"dbsc+jwt","alg":"ES256","jwk":{"a":1,"a":2}})",
             good_payload, sig),
       "duplicate key"},
  };
  for (const auto& [jwt, why] : kBad) {
    absl::StatusOr<VerifiedDbscProof> v = VerifyDbscProof(jwt, nullptr);
    ASSERT_FALSE(v.ok()) << jwt;
    EXPECT_THAT(v.status().message(), HasSubstr(why)) << jwt;
  }
  const std::string header = R"({"typ":"dbsc+jwt","alg":"ES256"})";
  const std::pair<std::string, const char*> kBadPayload[] = {
      {R"({"jti":"c","iat":1})", "aud"},
      {R"({"aud":"a","jti":1,"iat":1})", "jti"},
      {R"({"aud":"a","jti":"c","iat":"1"})", "iat is not an integer"},
      {R"({"aud":"a","jti":"c","iat":1.5})", "iat is not an integer"},
      {R"({"aud":"a","jti":"c","iat":1,"authorization":7})", "authorization"},
      {R"({"aud":"a","jti":"c","iat":1})", "signature is not 64 bytes"},
  };
  for (const auto& [payload, why] : kBadPayload) {
    absl::StatusOr<VerifiedDbscProof> v =
        VerifyDbscProof(Forge(header, payload, "AAAA"), key.get());
    ASSERT_FALSE(v.ok()) << payload;
    EXPECT_THAT(v.status().message(), HasSubstr(why)) << payload;
  }
  EXPECT_THAT(VerifyDbscProof(std::string(kMaxDbscProofBytes + 1, 'a'), nullptr)
                  .status()
                  .message(),
              HasSubstr("longer than"));
}

TEST(ProofTest, Base64UrlIsCanonicalAndUnpadded) {
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(*Base64UrlDecode("-_8"), "\xfb\xff");
  EXPECT_FALSE(Base64UrlDecode("-_8=").ok());  // padding
  EXPECT_FALSE(Base64UrlDecode("+/8").ok());   // the other alphabet
  EXPECT_FALSE(Base64UrlDecode("-_9").ok());   // non-zero trailing bits
  EXPECT_FALSE(Base64UrlDecode("A").ok());     // impossible length
  EXPECT_EQ(*Base64UrlDecode(""), "");
}

TEST(ProofTest, SpkiRoundTripAndKeyChecks) {
  bssl::UniquePtr<EVP_PKEY> key = NewP256Key();
  absl::StatusOr<std::string> spki = PublicKeySpki(key.get());
  ASSERT_TRUE(spki.ok());
  absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> parsed = ParsePublicKeySpki(*spki);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*PublicKeySpki(parsed->get()), *spki);
  EXPECT_FALSE(ParsePublicKeySpki(*spki + "x").ok());
  // A public key cannot sign.
  EXPECT_FALSE(SignDbscProof(parsed->get(), Claims(), true).ok());
  EXPECT_FALSE(SignDbscProof(nullptr, Claims(), true).ok());
  // The JWK's coordinates are the key's: x and y decode to 32 bytes.
  absl::StatusOr<JsonValue> jwk = ParseJson(*EcP256PublicJwk(key.get()));
  ASSERT_TRUE(jwk.ok());
  EXPECT_EQ(Base64UrlDecode(jwk->Find("x")->string_value())->size(), 32u);
  EXPECT_EQ(Base64UrlDecode(jwk->Find("y")->string_value())->size(), 32u);
}

}  // namespace
}  // namespace net
