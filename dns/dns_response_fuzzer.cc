// Fuzzes ParseDnsResponse with arbitrary messages. Beyond "no crash": what
// parses is well-formed (names lower-case, at most 255 bytes on the wire, no
// empty label, a '.' inside a label escaped so that it cannot pass for a
// label boundary; A and AAAA addresses of their family; TTLs below 2^31; the
// negative TTL no more than the SOA's TTL), AnswersFor keeps only records of
// the type asked whose owner is the name asked or on its CNAME chain (at most
// kMaxCnameChain hops), and a message re-encoded from the parsed value
// (uncompressed names, TXT in 255-byte strings) parses to the same value.

#include <openssl/bytestring.h>
#include <openssl/mem.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dns/dns_response.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "dns_response_fuzzer: %s\n", what);
  std::abort();
}

// Splits a parsed |name| into its labels, undoing the escapes of a '.' or a
// backslash inside a label; false if the escapes are not well formed.
bool SplitLabels(const std::string& name, std::vector<std::string>* labels) {
  labels->clear();
  if (name.empty()) return true;  // the root
  labels->emplace_back();
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '\\') {
      if (++i == name.size()) return false;
      if (name[i] != '.' && name[i] != '\\') return false;
      labels->back().push_back(name[i]);
    } else if (name[i] == '.') {
      labels->emplace_back();
    } else {
      labels->back().push_back(name[i]);
    }
  }
  return true;
}

// Appends |name| uncompressed; false if its labels cannot be written (an
// empty label or one over 63 bytes).
bool AddName(CBB* cbb, const std::string& name) {
  std::vector<std::string> labels;
  Check(SplitLabels(name, &labels), "escapes in a name well formed");
  for (const std::string& label : labels) {
    if (label.empty() || label.size() > 63) return false;
    CBB_add_u8(cbb, static_cast<uint8_t>(label.size()));
    CBB_add_bytes(cbb, reinterpret_cast<const uint8_t*>(label.data()),
                  label.size());
  }
  return CBB_add_u8(cbb, 0);
}

bool AddRecord(CBB* cbb, const net::DnsRecord& r) {
  if (!AddName(cbb, r.name)) return false;
  CBB_add_u16(cbb, r.type);
  CBB_add_u16(cbb, 1);
  CBB_add_u32(cbb, r.ttl);
  CBB rdata;
  CBB_add_u16_length_prefixed(cbb, &rdata);
  switch (r.type) {
    case net::kDnsTypeA:
    case net::kDnsTypeAaaa:
      CBB_add_bytes(&rdata, r.address->bytes(), r.address->IsIPv4() ? 4 : 16);
      break;
    case net::kDnsTypeTxt: {
      size_t pos = 0;
      do {
        const size_t n = std::min<size_t>(255, r.text.size() - pos);
        CBB_add_u8(&rdata, static_cast<uint8_t>(n));
        CBB_add_bytes(&rdata,
                      reinterpret_cast<const uint8_t*>(r.text.data() + pos), n);
        pos += n;
      } while (pos < r.text.size());
      break;
    }
    case net::kDnsTypeCname:
      if (!AddName(&rdata, r.text)) return false;
      break;
    case net::kDnsTypeSoa:
      AddName(&rdata, "");  // mname and rname: the root
      AddName(&rdata, "");
      for (int i = 0; i < 4; ++i) CBB_add_u32(&rdata, 0);
      CBB_add_u32(&rdata, r.soa_minimum);
      break;
    case net::kDnsTypeHttps:
      CBB_add_bytes(&rdata, reinterpret_cast<const uint8_t*>(r.rdata.data()),
                    r.rdata.size());
      break;
    default:
      break;  // kept without its data
  }
  return CBB_flush(cbb);
}

bool SameRecords(const std::vector<net::DnsRecord>& a,
                 const std::vector<net::DnsRecord>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type != b[i].type ||
        a[i].ttl != b[i].ttl || a[i].address != b[i].address ||
        a[i].text != b[i].text || a[i].soa_minimum != b[i].soa_minimum ||
        a[i].rdata != b[i].rdata)
      return false;
  }
  return true;
}

void CheckRecord(const net::DnsRecord& r) {
  std::vector<std::string> labels;
  Check(SplitLabels(r.name, &labels), "escapes in a name well formed");
  size_t wire_length = 1;
  for (const std::string& label : labels) {
    Check(!label.empty() && label.size() <= 63, "labels of 1 to 63 bytes");
    wire_length += 1 + label.size();
  }
  Check(wire_length <= 255, "name at most 255 bytes on the wire");
  for (char c : r.name) Check(!(c >= 'A' && c <= 'Z'), "name lower-case");
  Check(r.ttl < 0x80000000u, "TTL below 2^31");
  if (r.type == net::kDnsTypeA)
    Check(r.address && r.address->IsIPv4(), "A is IPv4");
  if (r.type == net::kDnsTypeAaaa)
    Check(r.address && r.address->IsIPv6(), "AAAA is IPv6");
  if (r.type != net::kDnsTypeA && r.type != net::kDnsTypeAaaa)
    Check(!r.address, "only A and AAAA carry an address");
  if (r.type != net::kDnsTypeHttps)
    Check(r.rdata.empty(), "only HTTPS keeps its raw RDATA");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = net::ParseDnsResponse(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!r.ok()) return 0;
  for (const auto& record : r->answers) CheckRecord(record);
  for (const auto& record : r->authority) CheckRecord(record);
  if (std::optional<uint32_t> negative = r->NegativeTtl()) {
    bool bounded = false;
    for (const auto& record : r->authority) {
      if (record.type == net::kDnsTypeSoa)
        bounded = *negative <= record.ttl && *negative <= record.soa_minimum;
      if (record.type == net::kDnsTypeSoa) break;
    }
    Check(bounded, "negative TTL is min(SOA TTL, SOA minimum)");
  }

  // The answers for each owner name in the message (CNAME loops and long
  // chains included): of the type asked, owned by a name reachable from
  // the one asked through at most kMaxCnameChain CNAMEs.
  for (const auto& asked : r->answers) {
    for (uint16_t type : {net::kDnsTypeA, net::kDnsTypeHttps}) {
      uint32_t cname_ttl = UINT32_MAX;
      for (const net::DnsRecord* a :
           r->AnswersFor(asked.name, type, &cname_ttl)) {
        Check(a->type == type, "AnswersFor: the type asked");
        std::string name = asked.name;
        bool reached = name == a->name;
        for (int hop = 0; !reached && hop < net::DnsResponse::kMaxCnameChain;
             ++hop) {
          const net::DnsRecord* next = nullptr;
          for (const auto& c : r->answers) {
            if (c.type == net::kDnsTypeCname && c.name == name) {
              next = &c;
              break;
            }
          }
          if (!next) break;
          name = next->text;
          reached = name == a->name;
        }
        Check(reached, "AnswersFor: an owner on the CNAME chain");
      }
    }
  }

  bssl::ScopedCBB cbb;
  CBB_init(cbb.get(), 512);
  CBB_add_u16(cbb.get(), r->id);
  CBB_add_u16(cbb.get(), 0x8000 | (r->authoritative ? 0x0400 : 0) |
                             (r->truncated ? 0x0200 : 0) | (r->rcode & 0xf));
  CBB_add_u16(cbb.get(), 0);
  CBB_add_u16(cbb.get(), static_cast<uint16_t>(r->answers.size()));
  CBB_add_u16(cbb.get(), static_cast<uint16_t>(r->authority.size()));
  CBB_add_u16(cbb.get(), 0);
  for (const auto* section : {&r->answers, &r->authority}) {
    for (const auto& record : *section) {
      if (!AddRecord(cbb.get(), record)) return 0;  // not representable
    }
  }
  uint8_t* out;
  size_t out_len;
  Check(CBB_finish(cbb.get(), &out, &out_len), "re-encoding");
  const std::string encoded(reinterpret_cast<char*>(out), out_len);
  OPENSSL_free(out);
  auto again = net::ParseDnsResponse(encoded);
  Check(again.ok(), "the re-encoded message parses");
  Check(again->id == r->id && again->rcode == r->rcode &&
            again->truncated == r->truncated &&
            again->authoritative == r->authoritative,
        "header round-trips");
  Check(SameRecords(again->answers, r->answers), "answers round-trip");
  Check(SameRecords(again->authority, r->authority), "authority round-trips");
  return 0;
}
