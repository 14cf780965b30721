#include "cert/obc/obc_types.h"

#include "absl/strings/ascii.h"

namespace net {

const char* KeyAlgorithmToString(KeyAlgorithm algorithm) {
  switch (algorithm) {
    case KeyAlgorithm::kEcdsaP256:
      return "ecdsa";
    case KeyAlgorithm::kRsa1024:
      return "rsa1024";
    case KeyAlgorithm::kRsa2048:
      return "rsa2048";
    case KeyAlgorithm::kEd25519:
      return "ed25519";
  }
  return "unknown";
}

std::optional<KeyAlgorithm> ParseKeyAlgorithm(absl::string_view text) {
  std::string lower = absl::AsciiStrToLower(text);
  if (lower == "ecdsa" || lower == "ecdsa-p256" || lower == "p256")
    return KeyAlgorithm::kEcdsaP256;
  if (lower == "rsa1024") return KeyAlgorithm::kRsa1024;
  if (lower == "rsa2048") return KeyAlgorithm::kRsa2048;
  if (lower == "ed25519") return KeyAlgorithm::kEd25519;
  return std::nullopt;
}

const char* ScopeModeToString(ScopeMode mode) {
  switch (mode) {
    case ScopeMode::kOrigin:
      return "origin";
    case ScopeMode::kRegistrableDomain:
      return "etld";
  }
  return "unknown";
}

std::optional<ScopeMode> ParseScopeMode(absl::string_view text) {
  std::string lower = absl::AsciiStrToLower(text);
  if (lower == "origin") return ScopeMode::kOrigin;
  if (lower == "etld" || lower == "etld+1" || lower == "site")
    return ScopeMode::kRegistrableDomain;
  return std::nullopt;
}

const char* ObcSourceToString(ObcSource source) {
  switch (source) {
    case ObcSource::kNone:
      return "none";
    case ObcSource::kPooledKey:
      return "pooled_key";
    case ObcSource::kGenerated:
      return "generated";
    case ObcSource::kCachedCert:
      return "cached_cert";
  }
  return "unknown";
}

}  // namespace net
