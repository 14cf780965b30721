#include "dns/dns_source.h"

namespace net {

const char* DnsSourceToString(DnsSource source) {
  switch (source) {
    case DnsSource::kNone:
      return "";
    case DnsSource::kNetwork:
      return "network";
    case DnsSource::kCache:
      return "cache";
    case DnsSource::kPrefetch:
      return "prefetch";
    case DnsSource::kOverride:
      return "override";
    case DnsSource::kLiteral:
      return "literal";
    case DnsSource::kReused:
      return "reused";
    case DnsSource::kPreconnect:
      return "preconnect";
  }
  return "";
}

}  // namespace net
