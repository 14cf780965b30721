// ParseDnsResponse: a bounds-safe DNS message parser (RFC 1035) on
// BoringSSL's CBS, for the answers c-ares hands back raw. It checks the
// header, skips the question, and decodes the answer and authority
// sections: A, AAAA, TXT (strings of one record concatenated; records kept
// apart), CNAME, the SOA needed for negative caching (RFC 2308), and HTTPS
// (type 65, RFC 9460: its RDATA kept raw for https_record.h, since one
// malformed HTTPS record must not make the A/AAAA answers unreadable). Name
// compression is followed with a hop limit; anything malformed is an error,
// never a crash (see dns_response_fuzzer.cc).

#ifndef DNS_DNS_RESPONSE_H_
#define DNS_DNS_RESPONSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/base/ip_endpoint.h"

namespace net {

enum DnsType : uint16_t {
  kDnsTypeA = 1,
  kDnsTypeCname = 5,
  kDnsTypeSoa = 6,
  kDnsTypeTxt = 16,
  kDnsTypeAaaa = 28,
  kDnsTypeOpt = 41,
  kDnsTypeHttps = 65,
};

struct DnsRecord {
  // Lower-case, no trailing dot; a '.' or a backslash inside a label is
  // escaped by a backslash (RFC 1035 5.1), so no label passes for two.
  std::string name;
  uint16_t type = 0;
  uint32_t ttl = 0;
  std::optional<IPAddress> address;  // A, AAAA
  // TXT: the record's strings joined; CNAME: the target, escaped as |name|.
  std::string text;
  uint32_t soa_minimum = 0;  // SOA
  std::string rdata;         // HTTPS: the raw RDATA (ParseHttpsRdata)
};

struct DnsResponse {
  uint16_t id = 0;
  int rcode = 0;
  bool truncated = false;
  bool authoritative = false;
  std::vector<DnsRecord> answers;
  std::vector<DnsRecord> authority;

  // NegativeTtl is the RFC 2308 negative-caching TTL: min(SOA TTL, SOA
  // minimum) from the authority section, if there is an SOA.
  std::optional<uint32_t> NegativeTtl() const;

  // AnswersFor returns the answer records of |type| that answer a question
  // for |qname| (any case, a trailing dot or not; a '.' or backslash inside a
  // label escaped as in DnsRecord::name): those owned by |qname| or by
  // a name its CNAME chain in this answer leads to (RFC 1034 3.6.2, RFC 2181
  // 5.4.1 and 10.1), in message order. A record owned by any other name is
  // no answer to the question asked (a server's mistake or an injection) and
  // is left out. The chain stops at a loop or after kMaxCnameChain hops.
  // |cname_ttl|, when given, gets the lowest TTL of the CNAMEs followed
  // (unchanged if none).
  static constexpr int kMaxCnameChain = 8;
  std::vector<const DnsRecord*> AnswersFor(absl::string_view qname,
                                           uint16_t type,
                                           uint32_t* cname_ttl = nullptr) const;
};

// Parses a whole DNS message. Records of types other than those above are
// kept with only name, type and TTL.
[[nodiscard]] absl::StatusOr<DnsResponse> ParseDnsResponse(
    absl::string_view message);

}  // namespace net

#endif  // DNS_DNS_RESPONSE_H_
