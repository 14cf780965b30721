// Fuzz target for ParseAltSvc and AltSvcCache: any bytes as an Alt-Svc
// value. A parse that succeeds gives "clear" or 1..32 entries, each with a
// port in 1..65535, an ma within a year and a host of at most 255 bytes;
// the cache then holds at most its bound and answers only with such an
// entry.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "net/http/alt_svc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view value(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<net::AltSvcHeader> h = net::ParseAltSvc(value);
  if (h.ok()) {
    if (h->clear != h->entries.empty()) abort();
    if (h->entries.size() > net::kMaxAltSvcEntries) abort();
    for (const net::AltSvcEntry& e : h->entries) {
      if (e.port == 0 || e.host.size() > 255 || e.alpn.empty()) abort();
      if (e.max_age < absl::ZeroDuration() || e.max_age > absl::Hours(24 * 365))
        abort();
    }
  }
  net::AltSvcCache cache(1);
  const absl::Time now = absl::FromUnixSeconds(1);
  cache.OnHeader(net::Origin("https", "a.test", 443), value, now);
  cache.OnHeader(net::Origin("https", "b.test", 443), value, now);
  if (cache.size() > 1) abort();
  auto alt = cache.GetHttp3(net::Origin("https", "b.test", 443), now);
  if (alt && (alt->port == 0 || !h.ok())) abort();
  return 0;
}
