// Fuzzes ParseJson with arbitrary bytes and checks what a parsed value
// promises: Serialize gives text that parses back to an equal value, and
// the limits held.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "net/device_bound_sessions/json.h"

namespace {

int Depth(const net::JsonValue& v) {
  int deepest = 0;
  for (const net::JsonValue& item : v.array_items()) {
    int d = Depth(item);
    if (d > deepest) deepest = d;
  }
  for (const auto& member : v.object_members()) {
    int d = Depth(member.second);
    if (d > deepest) deepest = d;
  }
  return (v.is_array() || v.is_object()) ? deepest + 1 : 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  net::JsonLimits limits;
  limits.max_depth = 8;
  absl::StatusOr<net::JsonValue> value = net::ParseJson(input, limits);
  if (!value.ok()) return 0;
  if (Depth(*value) > limits.max_depth) abort();
  const std::string text = value->Serialize();
  // Escaping can grow a string, so the round trip gets room.
  net::JsonLimits roomy = limits;
  roomy.max_bytes = 8 * text.size() + 16;
  roomy.max_string_bytes = 8 * limits.max_string_bytes;
  absl::StatusOr<net::JsonValue> again = net::ParseJson(text, roomy);
  if (!again.ok() || *again != *value) abort();
  if (again->Serialize() != text) abort();
  return 0;
}
