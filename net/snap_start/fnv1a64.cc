#include "net/snap_start/fnv1a64.h"

namespace net {

void Fnv1a64::Update(absl::string_view bytes) {
  for (unsigned char c : bytes) {
    hash_ ^= c;
    hash_ *= 0x100000001b3ull;
  }
}

std::array<uint8_t, 8> Fnv1a64::Digest() const {
  std::array<uint8_t, 8> out;
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<uint8_t>(hash_ >> (56 - 8 * i));
  return out;
}

}  // namespace net
