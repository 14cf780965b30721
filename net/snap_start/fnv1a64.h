// FNV-1a, 64-bit: the hash a Snap Start client sends over the server flight
// it predicts (draft-agl-tls-snapstart), and the server recomputes over the
// flight it would send. Offset basis 0xcbf29ce484222325, prime 0x100000001b3;
// the digest travels big-endian. Not a cryptographic hash: the handshake's
// Finished messages authenticate the flight; FNV only detects mispredictions
// cheaply.

#ifndef NET_SNAP_START_FNV1A64_H_
#define NET_SNAP_START_FNV1A64_H_

#include <array>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace net {

class Fnv1a64 {
 public:
  void Update(absl::string_view bytes);
  uint64_t value() const { return hash_; }
  // The 8-byte big-endian digest, as carried in the extension.
  std::array<uint8_t, 8> Digest() const;

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

}  // namespace net

#endif  // NET_SNAP_START_FNV1A64_H_
