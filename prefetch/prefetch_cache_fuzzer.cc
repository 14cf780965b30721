// Fuzzes PrefetchCache::Parse. Beyond "no crash": a cache that parses
// serializes to bytes that parse to the same entries.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "prefetch/prefetch_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::Time now = absl::FromUnixSeconds(1'780'000'000);
  std::string input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<net::PrefetchCache> cache =
      net::PrefetchCache::Parse(input, now);
  if (!cache.ok()) return 0;
  std::string bytes = cache->Serialize();
  absl::StatusOr<net::PrefetchCache> again =
      net::PrefetchCache::Parse(bytes, now);
  if (!again.ok() || again->size() != cache->size() ||
      again->Serialize() != bytes)
    std::abort();
  return 0;
}
