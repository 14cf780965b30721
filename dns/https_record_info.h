// HttpsRecordInfo: what the resolver learned from a host's DNS HTTPS records
// (RFC 9460) for one connection — whether a record applies, and if so the
// endpoint's target, port, ALPN set, address hints and ECH configuration —
// and why not otherwise. It rides in HostResolveResult to the connect jobs
// (port, ECH), and into the trace (dns.httpsRecord).
//
// Plain values, no BoringSSL: its own target (:https_record_info), so the
// trace (net/timing) names it without the parser.

#ifndef DNS_HTTPS_RECORD_INFO_H_
#define DNS_HTTPS_RECORD_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "dns/dns_source.h"
#include "net/base/ip_endpoint.h"

namespace net {

enum class HttpsRecordStatus {
  // Not asked: HTTPS records off, the system resolver, an override or IP
  // literal, a proxy (which resolves the origin itself), plain http.
  kNotQueried,
  // Asked, and the name has none (NODATA, NXDOMAIN): connect as usual.
  kNone,
  // A compatible ServiceMode record applies (or an AliasMode chain ended
  // at a name with addresses but no HTTPS record of its own).
  kUsed,
  // Records came but none applies: the RRSet was malformed, every record
  // was incompatible or not self-consistent, AliasMode said "no service",
  // the alias chain was too long or looped. |detail| says which.
  kIgnored,
  // The query failed (SERVFAIL, REFUSED, a timeout). The client is
  // SVCB-optional (RFC 9460 3): it connects as usual.
  kFailed,
  // The addresses were in and the HTTPS answer did not come within the
  // bounded extra wait: this connection went without it (the answer still
  // fills the cache for the next one).
  kNotInTime,
};

// The trace's word: "" (not queried), "none", "used", "ignored", "failed",
// "not_in_time".
const char* HttpsRecordStatusToString(HttpsRecordStatus status);

struct HttpsRecordInfo {
  HttpsRecordStatus status = HttpsRecordStatus::kNotQueried;
  // Where the HTTPS answer came from: network, cache or prefetch.
  DnsSource source = DnsSource::kNone;
  // Why it was ignored or failed, in words; for kUsed, notes (records
  // dropped as incompatible, a target whose lookup failed).
  std::string detail;
  // The AliasMode targets followed, in order (empty: none).
  std::vector<std::string> alias_chain;

  // The endpoint (kUsed). |priority| is 0 for an alias chain's end that
  // has no ServiceMode record (then no SvcParams apply).
  uint16_t priority = 0;
  // The effective TargetName ("." resolved to the owner name): the name
  // whose A/AAAA records the connection uses.
  std::string target;
  std::vector<std::string> alpn;
  bool no_default_alpn = false;
  std::optional<uint16_t> port;
  std::vector<IPAddress> ipv4_hints;
  std::vector<IPAddress> ipv6_hints;
  // The ECHConfigList (wire form); empty: the record has no "ech".
  std::string ech_config_list;
  // ServiceMode records in the RRSet, compatible ones among them.
  int records = 0;
  int compatible_records = 0;

  // How the connection's addresses were had: from the target's A/AAAA
  // answer (false), or from the record's hints because the HTTPS answer was
  // in before the A/AAAA one (RFC 9460 7.3; the A/AAAA answer, when it
  // comes, fills the cache and serves later connections).
  bool addresses_from_hints = false;
  // How long the lookup waited for the HTTPS answer after the addresses
  // were in (zero when it came first or with them).
  absl::Duration wait = absl::ZeroDuration();

  // The next endpoints (kUsed): the RRSet's other compatible ServiceMode
  // records, best first, each as the endpoint fields above say (their
  // |fallbacks| empty). RFC 9460 3: a connection that cannot reach this
  // endpoint tries them in order (TransportConnectJob).
  std::vector<HttpsRecordInfo> fallbacks;

  bool used() const { return status == HttpsRecordStatus::kUsed; }
  // The SVCB ALPN set: |alpn| plus "http/1.1" unless no_default_alpn.
  std::vector<std::string> AlpnSet() const;
  // Whether |protocol| is in the ALPN set ("h3": an HTTP/3 endpoint).
  bool SupportsAlpn(absl::string_view protocol) const;
};

}  // namespace net

#endif  // DNS_HTTPS_RECORD_INFO_H_
