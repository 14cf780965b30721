// HttpsRecord: one DNS HTTPS resource record (RR type 65, RFC 9460), parsed
// from its RDATA with BoringSSL's CBS, and the rules a client applies to an
// RRSet of them: which records are malformed (the whole RRSet is then
// rejected, section 2.2), which are not self-consistent (that record is
// dropped, section 2.4.3), and which are compatible with a client that speaks
// a given set of ALPN protocols over TLS (sections 7.1 and 8).
//
// c-ares 1.18 has no parser for type 65; the resolver hands the raw RDATA
// here (dns_response.h keeps it). Pure functions over values: no I/O, no
// ownership. Fuzzed by https_record_fuzzer.cc.

#ifndef DNS_HTTPS_RECORD_H_
#define DNS_HTTPS_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/base/ip_endpoint.h"

namespace net {

// SvcParamKey numbers (RFC 9460 section 14.3.2).
enum SvcParamKey : uint16_t {
  kSvcParamMandatory = 0,
  kSvcParamAlpn = 1,
  kSvcParamNoDefaultAlpn = 2,
  kSvcParamPort = 3,
  kSvcParamIpv4Hint = 4,
  kSvcParamEch = 5,
  kSvcParamIpv6Hint = 6,
  kSvcParamInvalidKey = 65535,  // reserved ("Invalid key")
};

// The key's presentation name: "alpn", ..., or "keyNNNNN" for others.
std::string SvcParamKeyName(uint16_t key);

struct HttpsRecord {
  // 0: AliasMode (TargetName is the alias; any SvcParams are ignored and
  // not kept). Otherwise ServiceMode, lower values preferred.
  uint16_t priority = 0;
  // Lower case, no trailing dot; "" is the root name ".", which in
  // ServiceMode means the record's owner name, in AliasMode "no service".
  std::string target;
  // The SvcParams (ServiceMode only), each present at most once.
  std::vector<uint16_t> mandatory;  // strictly increasing
  std::vector<std::string> alpn;    // in the record's order
  bool no_default_alpn = false;
  std::optional<uint16_t> port;
  std::vector<IPAddress> ipv4_hints;
  std::vector<IPAddress> ipv6_hints;
  // The ECHConfigList as on the wire (its own 2-byte length prefix
  // included), ready for SSL_set1_ech_config_list; empty: no "ech" key.
  std::string ech;
  // Keys this parser does not interpret, with their raw values, in
  // increasing key order: kept (RFC 9460 section 2.2), never acted on.
  std::vector<std::pair<uint16_t, std::string>> unknown_params;

  bool alias_mode() const { return priority == 0; }
  // Whether |key| is present (ServiceMode).
  bool HasKey(uint16_t key) const;
  // The SVCB ALPN set (section 7.1.1): |alpn| plus the HTTPS default
  // "http/1.1" unless no-default-alpn.
  std::vector<std::string> AlpnSet() const;
};

// ParseHttpsRdata parses the RDATA of one HTTPS (or SVCB) record. Errors:
//   InvalidArgument: malformed (section 2.2): RDATA ending inside a field, a
//     compressed or over-long TargetName, SvcParamKeys not in strictly
//     increasing order, the reserved key 65535, or a value of the wrong
//     form for its key (empty alpn, an alpn-id of length 0, a port that is
//     not 2 bytes, hints not a non-empty multiple of the address size,
//     no-default-alpn with a value, mandatory empty or odd-sized or not
//     strictly increasing or listing "mandatory", an ech value that is not
//     one ECHConfigList). Per RFC 9460 the client rejects the whole RRSet.
//   FailedPrecondition: well-formed but not self-consistent (section 2.4.3):
//     no-default-alpn without alpn, or a mandatory key that the record does
//     not carry. The client drops this record only.
// The message says which field and why.
[[nodiscard]] absl::StatusOr<HttpsRecord> ParseHttpsRdata(
    absl::string_view rdata);

// SerializeHttpsRdata writes |record| in wire form (keys in increasing
// order, TargetName uncompressed): what ParseHttpsRdata reads back. For
// tests, the fuzzer's round trip and scripted DNS servers. InvalidArgument if
// a field cannot be encoded (a label over 63 bytes, an empty alpn-id, ...).
[[nodiscard]] absl::StatusOr<std::string> SerializeHttpsRdata(
    const HttpsRecord& record);

// The record in zone-file presentation form, "1 . alpn=h2,http/1.1
// port=8443 ipv4hint=192.0.2.1 ech=<base64>" (unknown keys as keyNNNNN with
// their bytes hex-escaped): for logs, tests and tools/dnslookup.
std::string HttpsRecordToString(const HttpsRecord& record);

// WhyIncompatible says why a ServiceMode |record| cannot be used by a client
// that speaks the ALPN protocols |tls_alpns| over TLS over TCP (section 8:
// a mandatory key this client does not implement; section 7.1.2: no
// protocol of the SVCB ALPN set is one it speaks), or nullopt when the
// record is compatible. The keys implemented are 0-6 (RFC 9460's), so port
// and no-default-alpn, HTTPS's automatically mandatory keys, are honoured.
std::optional<std::string> WhyIncompatible(
    const HttpsRecord& record, const std::vector<std::string>& tls_alpns);

// One HTTPS record of a DNS answer: its owner name (lower case, no trailing
// dot) and RDATA.
struct HttpsAnswerRecord {
  std::string owner;
  std::string rdata;
};

// The most endpoints an RRSet adds after its best (HttpsRRSetVerdict).
inline constexpr size_t kMaxHttpsFallbacks = 8;

// What an HTTPS RRSet tells a client (RFC 9460 sections 2.4, 3 and 8).
struct HttpsRRSetVerdict {
  enum class Kind {
    kEmpty,      // no HTTPS record
    kAlias,      // AliasMode: query |alias_target|'s HTTPS records next
    kNoService,  // AliasMode to ".": the service says it is not available
    kService,    // |record| (owned by |owner|) is the endpoint to use
    kRejected,   // a malformed RRSet, or no usable ServiceMode record
  };
  Kind kind = Kind::kEmpty;
  std::string alias_target;
  HttpsRecord record;
  std::string owner;
  // The effective TargetName: record.target, or |owner| for ".".
  std::string target;
  // kService: the other usable ServiceMode records, each with its
  // effective TargetName, by SvcPriority (ties in random order): where a
  // client goes next when |record|'s endpoint cannot be reached (3). At
  // most kMaxHttpsFallbacks, none with the target and port of one before.
  std::vector<std::pair<HttpsRecord, std::string>> fallbacks;
  int records = 0;  // ServiceMode records in the RRSet
  int compatible = 0;
  // Why rejected; for kService, what was dropped on the way (records not
  // self-consistent or incompatible), else empty.
  std::string detail;
};

// EvaluateHttpsRRSet applies the client rules to one answer's HTTPS
// records: any malformed record rejects the RRSet (2.2); an AliasMode
// record wins over ServiceMode ones (2.4.1; one picked at random if there
// are several); ServiceMode records that are not self-consistent or not
// compatible with |tls_alpns| are dropped (2.4.3, 8); of the rest the
// lowest SvcPriority wins, ties broken at random (2.4.1).
HttpsRRSetVerdict EvaluateHttpsRRSet(
    const std::vector<HttpsAnswerRecord>& answers,
    const std::vector<std::string>& tls_alpns);

// ValidateEchConfigList checks that |value| is one ECHConfigList: a 2-byte
// length equal to what follows, then one or more ECHConfigs each a 2-byte
// version and a 2-byte-length-prefixed body, exactly filling it. The
// contents of each ECHConfig are BoringSSL's to judge.
absl::Status ValidateEchConfigList(absl::string_view value);

}  // namespace net

#endif  // DNS_HTTPS_RECORD_H_
