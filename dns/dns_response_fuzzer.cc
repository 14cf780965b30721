// Fuzzes ParseDnsResponse with arbitrary messages.

#include <cstddef>
#include <cstdint>

#include "dns/dns_response.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = net::ParseDnsResponse(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (r.ok()) r->NegativeTtl();
  return 0;
}
