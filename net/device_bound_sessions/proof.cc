#include "net/device_bound_sessions/proof.h"

#include <openssl/bn.h>
#include <openssl/bytestring.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/ecdsa.h>
#include <openssl/mem.h>
#include <openssl/nid.h>
#include <openssl/sha.h>

#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/device_bound_sessions/json.h"

namespace net {
namespace {

// A P-256 field element or scalar, and an ES256 signature (R || S).
constexpr size_t kCoordinateBytes = 32;
constexpr size_t kSignatureBytes = 2 * kCoordinateBytes;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("DBSC proof: ", what));
}

const EC_KEY* P256Key(const EVP_PKEY* key) {
  if (!key || EVP_PKEY_id(key) != EVP_PKEY_EC) return nullptr;
  const EC_KEY* ec = EVP_PKEY_get0_EC_KEY(key);
  if (!ec ||
      EC_GROUP_get_curve_name(EC_KEY_get0_group(ec)) != NID_X9_62_prime256v1)
    return nullptr;
  return ec;
}

std::string Sha256Of(absl::string_view data) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(data.data()), data.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

// The JWK's members, or an error for anything but an EC P-256 public key.
absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> KeyFromJwk(const JsonValue& jwk) {
  if (!jwk.is_object()) return Invalid("jwk is not an object");
  const JsonValue* kty = jwk.Find("kty");
  const JsonValue* crv = jwk.Find("crv");
  const JsonValue* x = jwk.Find("x");
  const JsonValue* y = jwk.Find("y");
  if (!kty || kty->string_value() != "EC")
    return Invalid("jwk kty is not \"EC\"");
  if (!crv || crv->string_value() != "P-256")
    return Invalid("jwk crv is not \"P-256\"");
  if (!x || !x->is_string() || !y || !y->is_string())
    return Invalid("jwk lacks x or y");
  if (jwk.Find("d")) return Invalid("jwk carries a private key");
  absl::StatusOr<std::string> xb = Base64UrlDecode(x->string_value());
  absl::StatusOr<std::string> yb = Base64UrlDecode(y->string_value());
  if (!xb.ok() || !yb.ok() || xb->size() != kCoordinateBytes ||
      yb->size() != kCoordinateBytes)
    return Invalid("jwk x and y must be 32-byte base64url");
  bssl::UniquePtr<EC_KEY> ec(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  bssl::UniquePtr<BIGNUM> bx(BN_bin2bn(
      reinterpret_cast<const uint8_t*>(xb->data()), xb->size(), nullptr));
  bssl::UniquePtr<BIGNUM> by(BN_bin2bn(
      reinterpret_cast<const uint8_t*>(yb->data()), yb->size(), nullptr));
  // Checks that the point is on the curve.
  if (!ec || !bx || !by ||
      !EC_KEY_set_public_key_affine_coordinates(ec.get(), bx.get(), by.get()))
    return Invalid("jwk is not a point on P-256");
  bssl::UniquePtr<EVP_PKEY> key(EVP_PKEY_new());
  if (!key || !EVP_PKEY_set1_EC_KEY(key.get(), ec.get()))
    return absl::InternalError("DBSC proof: EVP_PKEY_set1_EC_KEY failed");
  return key;
}

absl::StatusOr<JsonValue> DecodeJsonPart(absl::string_view part,
                                         absl::string_view what) {
  absl::StatusOr<std::string> bytes = Base64UrlDecode(part);
  if (!bytes.ok()) return Invalid(absl::StrCat(what, " is not base64url"));
  JsonLimits limits;
  limits.max_bytes = kMaxDbscProofBytes;
  limits.max_depth = 4;
  absl::StatusOr<JsonValue> json = ParseJson(*bytes, limits);
  if (!json.ok())
    return Invalid(absl::StrCat(what, ": ", json.status().message()));
  if (!json->is_object()) return Invalid(absl::StrCat(what, " is no object"));
  return json;
}

}  // namespace

std::string Base64UrlEncode(absl::string_view bytes) {
  return absl::WebSafeBase64Escape(bytes);
}

absl::StatusOr<std::string> Base64UrlDecode(absl::string_view text) {
  for (char c : text) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ||
          c == '_'))
      return absl::InvalidArgumentError("base64url: invalid character");
  }
  std::string out;
  if (text.size() % 4 == 1 || !absl::WebSafeBase64Unescape(text, &out))
    return absl::InvalidArgumentError("base64url: invalid length");
  // Only the canonical form: unused trailing bits must be zero.
  if (Base64UrlEncode(out) != text)
    return absl::InvalidArgumentError("base64url: not canonical");
  return out;
}

absl::StatusOr<std::string> EcP256PublicJwk(const EVP_PKEY* key) {
  const EC_KEY* ec = P256Key(key);
  if (!ec) return Invalid("the key is not ECDSA P-256");
  bssl::UniquePtr<BIGNUM> x(BN_new());
  bssl::UniquePtr<BIGNUM> y(BN_new());
  uint8_t xb[kCoordinateBytes];
  uint8_t yb[kCoordinateBytes];
  if (!x || !y ||
      !EC_POINT_get_affine_coordinates_GFp(EC_KEY_get0_group(ec),
                                           EC_KEY_get0_public_key(ec), x.get(),
                                           y.get(), nullptr) ||
      !BN_bn2bin_padded(xb, sizeof(xb), x.get()) ||
      !BN_bn2bin_padded(yb, sizeof(yb), y.get()))
    return absl::InternalError("DBSC proof: cannot read the public key");
  JsonValue::Members jwk = {
      {"kty", JsonValue::String("EC")},
      {"crv", JsonValue::String("P-256")},
      {"x", JsonValue::String(Base64UrlEncode(absl::string_view(
                reinterpret_cast<const char*>(xb), sizeof(xb))))},
      {"y", JsonValue::String(Base64UrlEncode(absl::string_view(
                reinterpret_cast<const char*>(yb), sizeof(yb))))},
  };
  return JsonValue::Object(std::move(jwk)).Serialize();
}

absl::StatusOr<std::string> SignDbscProof(EVP_PKEY* key,
                                          const DbscProofClaims& claims,
                                          bool include_jwk) {
  const EC_KEY* ec = P256Key(key);
  if (!ec || !EC_KEY_get0_private_key(ec))
    return Invalid("signing needs an ECDSA P-256 private key");
  JsonValue::Members header = {
      {"alg", JsonValue::String(kDbscProofAlgorithm)},
      {"typ", JsonValue::String(kDbscProofType)},
  };
  if (include_jwk) {
    absl::StatusOr<std::string> jwk_text = EcP256PublicJwk(key);
    if (!jwk_text.ok()) return jwk_text.status();
    absl::StatusOr<JsonValue> jwk = ParseJson(*jwk_text);
    if (!jwk.ok()) return jwk.status();
    header.emplace_back("jwk", *std::move(jwk));
  }
  JsonValue::Members payload = {
      {"aud", JsonValue::String(claims.audience)},
      {"jti", JsonValue::String(claims.challenge)},
      {"iat", JsonValue::Number(static_cast<double>(claims.issued_at))},
  };
  if (claims.authorization)
    payload.emplace_back("authorization",
                         JsonValue::String(*claims.authorization));
  const std::string signing_input = absl::StrCat(
      Base64UrlEncode(JsonValue::Object(std::move(header)).Serialize()), ".",
      Base64UrlEncode(JsonValue::Object(std::move(payload)).Serialize()));
  const std::string digest = Sha256Of(signing_input);
  bssl::UniquePtr<ECDSA_SIG> sig(ECDSA_do_sign(
      reinterpret_cast<const uint8_t*>(digest.data()), digest.size(), ec));
  uint8_t raw[kSignatureBytes];
  if (!sig ||
      !BN_bn2bin_padded(raw, kCoordinateBytes, ECDSA_SIG_get0_r(sig.get())) ||
      !BN_bn2bin_padded(raw + kCoordinateBytes, kCoordinateBytes,
                        ECDSA_SIG_get0_s(sig.get())))
    return absl::InternalError("DBSC proof: ECDSA signing failed");
  return absl::StrCat(signing_input, ".",
                      Base64UrlEncode(absl::string_view(
                          reinterpret_cast<const char*>(raw), sizeof(raw))));
}

absl::StatusOr<VerifiedDbscProof> VerifyDbscProof(absl::string_view jwt,
                                                  const EVP_PKEY* key) {
  if (jwt.size() > kMaxDbscProofBytes)
    return Invalid(absl::StrCat("longer than ", kMaxDbscProofBytes, " bytes"));
  std::vector<absl::string_view> parts = absl::StrSplit(jwt, '.');
  if (parts.size() != 3) return Invalid("not three dot-separated parts");
  absl::StatusOr<JsonValue> header = DecodeJsonPart(parts[0], "header");
  if (!header.ok()) return header.status();
  absl::StatusOr<JsonValue> payload = DecodeJsonPart(parts[1], "payload");
  if (!payload.ok()) return payload.status();

  const JsonValue* typ = header->Find("typ");
  if (!typ || !typ->is_string() || typ->string_value() != kDbscProofType)
    return Invalid("header typ is not \"dbsc+jwt\"");
  const JsonValue* alg = header->Find("alg");
  if (!alg || !alg->is_string()) return Invalid("header has no alg");
  if (alg->string_value() != kDbscProofAlgorithm)
    return Invalid(absl::StrCat("alg ", JsonQuote(alg->string_value()),
                                " is not accepted (ES256 only)"));
  VerifiedDbscProof out;
  if (const JsonValue* jwk = header->Find("jwk")) {
    if (key) return Invalid("a refresh proof must not carry a jwk");
    absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> parsed = KeyFromJwk(*jwk);
    if (!parsed.ok()) return parsed.status();
    out.jwk = *std::move(parsed);
  } else if (!key) {
    return Invalid("no key: the header has no jwk");
  }

  const JsonValue* aud = payload->Find("aud");
  const JsonValue* jti = payload->Find("jti");
  const JsonValue* iat = payload->Find("iat");
  const JsonValue* authorization = payload->Find("authorization");
  if (!aud || !aud->is_string()) return Invalid("payload aud is not a string");
  if (!jti || !jti->is_string()) return Invalid("payload jti is not a string");
  if (!iat || !iat->is_number() ||
      std::trunc(iat->number_value()) != iat->number_value() ||
      std::fabs(iat->number_value()) > 1e15)
    return Invalid("payload iat is not an integer");
  if (authorization && !authorization->is_string())
    return Invalid("payload authorization is not a string");
  out.claims.audience = aud->string_value();
  out.claims.challenge = jti->string_value();
  out.claims.issued_at = static_cast<int64_t>(iat->number_value());
  if (authorization) out.claims.authorization = authorization->string_value();

  absl::StatusOr<std::string> raw = Base64UrlDecode(parts[2]);
  if (!raw.ok() || raw->size() != kSignatureBytes)
    return Invalid("the signature is not 64 bytes of base64url");
  const EC_KEY* ec = P256Key(key ? key : out.jwk.get());
  if (!ec) return Invalid("the verification key is not ECDSA P-256");
  bssl::UniquePtr<ECDSA_SIG> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(reinterpret_cast<const uint8_t*>(raw->data()),
                        kCoordinateBytes, nullptr);
  BIGNUM* s = BN_bin2bn(
      reinterpret_cast<const uint8_t*>(raw->data()) + kCoordinateBytes,
      kCoordinateBytes, nullptr);
  if (!sig || !r || !s || !ECDSA_SIG_set0(sig.get(), r, s)) {
    BN_free(r);
    BN_free(s);
    return absl::InternalError("DBSC proof: out of memory");
  }
  const std::string digest = Sha256Of(absl::StrCat(parts[0], ".", parts[1]));
  if (!ECDSA_do_verify(reinterpret_cast<const uint8_t*>(digest.data()),
                       digest.size(), sig.get(), ec))
    return Invalid("the signature does not verify");
  return out;
}

absl::StatusOr<std::string> PublicKeySpki(const EVP_PKEY* key) {
  if (!P256Key(key)) return Invalid("the key is not ECDSA P-256");
  bssl::ScopedCBB cbb;
  uint8_t* der = nullptr;
  size_t der_len = 0;
  if (!CBB_init(cbb.get(), 128) || !EVP_marshal_public_key(cbb.get(), key) ||
      !CBB_finish(cbb.get(), &der, &der_len))
    return absl::InternalError("DBSC proof: cannot encode the public key");
  bssl::UniquePtr<uint8_t> owned(der);
  return std::string(reinterpret_cast<const char*>(der), der_len);
}

absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> ParsePublicKeySpki(
    absl::string_view der) {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(der.data()), der.size());
  bssl::UniquePtr<EVP_PKEY> key(EVP_parse_public_key(&cbs));
  if (!key || CBS_len(&cbs) != 0 || !P256Key(key.get()))
    return Invalid("not a P-256 SubjectPublicKeyInfo");
  return key;
}

}  // namespace net
