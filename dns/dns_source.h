// DnsSource: where a host's addresses came from, for the trace's dns.source
// (domainLookupStart..End explained). A value of its own so the trace
// (net/timing) names it without depending on the resolvers.

#ifndef DNS_DNS_SOURCE_H_
#define DNS_DNS_SOURCE_H_

namespace net {

enum class DnsSource {
  kNone,        // no lookup recorded (yet)
  kNetwork,     // asked a DNS server (or getaddrinfo)
  kCache,       // the resolver's cache, filled by an earlier request
  kPrefetch,    // the cache, filled by the DNS prefetcher: first use
  kOverride,    // curl's --resolve
  kLiteral,     // the host was an IP address
  kReused,      // no lookup: the request went on a reused connection
  kPreconnect,  // no lookup: a preconnected socket's
};

// The trace's word: "", "network", "cache", "prefetch", "override",
// "literal", "reused" or "preconnect".
const char* DnsSourceToString(DnsSource source);

}  // namespace net

#endif  // DNS_DNS_SOURCE_H_
