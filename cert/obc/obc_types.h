// Shared vocabulary of the origin-bound certificate (OBC) code: the key
// algorithms a key pool can make, the two scope modes, and the "facts" one
// GetOrCreate reports for a request's trace (none / pooled key / generated /
// cached certificate, algorithm, milliseconds).
//
// Plain values; no ownership.

#ifndef CERT_OBC_OBC_TYPES_H_
#define CERT_OBC_OBC_TYPES_H_

#include <array>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace net {

// KeyAlgorithm is the key type of an OBC. ECDSA P-256 is the default.
enum class KeyAlgorithm {
  kEcdsaP256,
  kRsa1024,
  kRsa2048,
  kEd25519,
};

inline constexpr std::array<KeyAlgorithm, 4> kAllKeyAlgorithms = {
    KeyAlgorithm::kEcdsaP256, KeyAlgorithm::kRsa1024, KeyAlgorithm::kRsa2048,
    KeyAlgorithm::kEd25519};

// KeyAlgorithmToString returns "ecdsa", "rsa1024", "rsa2048" or "ed25519",
// the spelling of fetch's --obc flag and of traces.
const char* KeyAlgorithmToString(KeyAlgorithm algorithm);
// ParseKeyAlgorithm accepts what KeyAlgorithmToString returns (and
// "ecdsa-p256", "p256"); nullopt otherwise.
std::optional<KeyAlgorithm> ParseKeyAlgorithm(absl::string_view text);

// ScopeMode says which origins share one OBC.
enum class ScopeMode {
  // (scheme, host, port), as the TLS-OBC paper binds certificates.
  kOrigin,
  // The registrable domain (eTLD+1) from the Public Suffix List, private
  // registries included: the paper's legacy mode, and Chromium's Channel ID.
  kRegistrableDomain,
};

// ScopeModeToString returns "origin" or "etld" (fetch's --obc-scope values).
const char* ScopeModeToString(ScopeMode mode);
// ParseScopeMode accepts "origin", "etld", "etld+1", "site"; nullopt otherwise.
std::optional<ScopeMode> ParseScopeMode(absl::string_view text);

// ObcSource is where a request's OBC came from.
enum class ObcSource {
  // No OBC was presented (turned off, or not requested by the server). The
  // store never reports this; the TLS layer does.
  kNone,
  // A new certificate on a key that was waiting in the pool: no key
  // generation on the request's critical path.
  kPooledKey,
  // The pool was empty: the request waited for a key generated on the worker
  // pool (see ObcFacts::generation_time).
  kGenerated,
  // The scope already had a certificate (this run, or loaded from disk).
  kCachedCert,
};

// ObcSourceToString returns "none", "pooled_key", "generated" or
// "cached_cert".
const char* ObcSourceToString(ObcSource source);

// ObcFacts describes how one request obtained its OBC, for traces.
struct ObcFacts {
  ObcSource source = ObcSource::kNone;
  KeyAlgorithm algorithm = KeyAlgorithm::kEcdsaP256;
  // Time from the request to its answer: zero for a synchronous answer,
  // otherwise how long the request waited.
  absl::Duration elapsed = absl::ZeroDuration();
  // Time the worker spent making the key and its certificate (kGenerated:
  // the key this request waited for; kPooledKey: the pooled key's, paid
  // earlier off the critical path; kCachedCert: zero).
  absl::Duration generation_time = absl::ZeroDuration();
  // True if the request joined another request's job for the same scope.
  bool coalesced = false;

  // ElapsedMs is |elapsed| in milliseconds, for traces.
  double ElapsedMs() const { return absl::ToDoubleMilliseconds(elapsed); }
};

}  // namespace net

#endif  // CERT_OBC_OBC_TYPES_H_
