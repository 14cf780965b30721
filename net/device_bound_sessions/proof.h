// The DBSC proof: a JWT signed with the session key (draft section "DBSC
// Proof JWT Syntax"), as the client builds it and as a server verifies it.
//
//   header  {"alg":"ES256","typ":"dbsc+jwt","jwk":{...}}   jwk only on the
//                                                          registration
//   payload {"aud":URL,"jti":CHALLENGE,"iat":SECONDS[,"authorization":A]}
//
// The draft requires typ, alg, jwk (registration only) and jti, and
// authorization when the registration header carried one; aud (the URL the
// proof is sent to) and iat (RFC 7519 NumericDate) are the JWT claims a
// server needs to refuse a proof made for another endpoint or long ago
// ("at least the following claims": more are allowed). Only ES256 (ECDSA
// P-256 with SHA-256, JWS signature R || S, RFC 7518 section 3.4) is
// implemented: the session keys come from the OBC key pool's P-256 keys.
//
// Pure functions over BoringSSL keys the caller owns; thread-safe.

#ifndef NET_DEVICE_BOUND_SESSIONS_PROOF_H_
#define NET_DEVICE_BOUND_SESSIONS_PROOF_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace net {

// The algorithm name of every proof this stack signs.
inline constexpr char kDbscProofAlgorithm[] = "ES256";
// The JWT "typ" the draft requires.
inline constexpr char kDbscProofType[] = "dbsc+jwt";
// A proof (a header value) longer than this is refused unread.
inline constexpr size_t kMaxDbscProofBytes = 8 * 1024;

struct DbscProofClaims {
  std::string audience;   // "aud"
  std::string challenge;  // "jti"
  int64_t issued_at = 0;  // "iat", seconds since the Unix epoch
  std::optional<std::string> authorization;

  bool operator==(const DbscProofClaims& o) const {
    return audience == o.audience && challenge == o.challenge &&
           issued_at == o.issued_at && authorization == o.authorization;
  }
};

// Base64UrlEncode is RFC 4648 section 5 without padding (as JWS uses it).
std::string Base64UrlEncode(absl::string_view bytes);
// Base64UrlDecode accepts only the canonical unpadded form
// Base64UrlEncode produces; InvalidArgument otherwise.
[[nodiscard]] absl::StatusOr<std::string> Base64UrlDecode(
    absl::string_view text);

// EcP256PublicJwk returns |key|'s public half as a JWK (RFC 7517/7518:
// {"kty":"EC","crv":"P-256","x":...,"y":...}), or InvalidArgument for a key
// that is not P-256.
[[nodiscard]] absl::StatusOr<std::string> EcP256PublicJwk(const EVP_PKEY* key);

// SignDbscProof returns the compact JWS of |claims| signed with |key| (a
// P-256 private key), with the public key as "jwk" in the header when
// |include_jwk| (registration; the draft forbids it on refresh).
[[nodiscard]] absl::StatusOr<std::string> SignDbscProof(
    EVP_PKEY* key, const DbscProofClaims& claims, bool include_jwk);

// VerifiedDbscProof is what VerifyDbscProof found in a valid proof.
struct VerifiedDbscProof {
  DbscProofClaims claims;
  // The header's "jwk" as a key, when present.
  bssl::UniquePtr<EVP_PKEY> jwk;
};

// VerifyDbscProof checks |jwt|: three base64url parts, a header with typ
// "dbsc+jwt" and alg "ES256" (anything else, "none" included, is refused),
// a payload with string aud and jti, an integer iat and an optional string
// authorization, and an ES256 signature by |key|, or by the header's jwk
// when |key| is null (registration: the proof presents its own key). A
// header with a jwk is refused when |key| is given (the draft forbids jwk
// on refresh). InvalidArgument naming the first problem otherwise. The
// caller checks the claims' values (challenge, audience, freshness).
[[nodiscard]] absl::StatusOr<VerifiedDbscProof> VerifyDbscProof(
    absl::string_view jwt, const EVP_PKEY* key);

// PublicKeySpki returns |key|'s SubjectPublicKeyInfo DER (what a server
// stores for a session); ParsePublicKeySpki reads it back (P-256 only).
[[nodiscard]] absl::StatusOr<std::string> PublicKeySpki(const EVP_PKEY* key);
[[nodiscard]] absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> ParsePublicKeySpki(
    absl::string_view der);

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_PROOF_H_
