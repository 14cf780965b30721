#include "dns/dns_response.h"

#include <openssl/bytestring.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace net {
namespace {

constexpr int kMaxPointerHops = 32;
constexpr size_t kMaxNameLength = 255;

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed DNS response: ", why));
}

// Reads a possibly compressed name at |cbs| (advanced past it) from the
// whole |message|, in dotted form with a '.' or a backslash inside a label
// escaped by a backslash (RFC 1035 5.1), so that no label can pass for two:
// the one-label name "a.b" reads as a, backslash, ".b", never as "a.b".
absl::Status ReadName(const CBS& message, CBS* cbs, std::string* out) {
  out->clear();
  CBS cursor = *cbs;
  bool jumped = false;
  int hops = 0;
  size_t wire_length = 1;  // the root label's byte
  for (;;) {
    uint8_t len;
    if (!CBS_get_u8(&cursor, &len)) return Malformed("name runs past the end");
    if ((len & 0xc0) == 0xc0) {
      uint8_t low;
      if (!CBS_get_u8(&cursor, &low))
        return Malformed("truncated name pointer");
      if (++hops > kMaxPointerHops) return Malformed("name pointer loop");
      size_t offset = ((len & 0x3f) << 8) | low;
      if (!jumped) {
        *cbs = cursor;
        jumped = true;
      }
      cursor = message;
      if (!CBS_skip(&cursor, offset))
        return Malformed("name pointer out of range");
      continue;
    }
    if ((len & 0xc0) != 0) return Malformed("bad label type");
    if (len == 0) break;
    CBS label;
    if (!CBS_get_bytes(&cursor, &label, len))
      return Malformed("label runs past the end");
    // RFC 1035 3.1: 255 octets in all, length bytes and the root's included.
    wire_length += 1 + len;
    if (wire_length > kMaxNameLength) return Malformed("name too long");
    if (!out->empty()) out->push_back('.');
    for (uint8_t c : absl::MakeConstSpan(CBS_data(&label), CBS_len(&label))) {
      if (c == '.' || c == '\\') out->push_back('\\');
      out->push_back(static_cast<char>(c));
    }
  }
  if (!jumped) *cbs = cursor;
  *out = absl::AsciiStrToLower(*out);
  return absl::OkStatus();
}

absl::Status ReadRecord(const CBS& message, CBS* cbs, DnsRecord* record) {
  absl::Status status = ReadName(message, cbs, &record->name);
  if (!status.ok()) return status;
  uint16_t klass;
  CBS rdata;
  if (!CBS_get_u16(cbs, &record->type) || !CBS_get_u16(cbs, &klass) ||
      !CBS_get_u32(cbs, &record->ttl) ||
      !CBS_get_u16_length_prefixed(cbs, &rdata)) {
    return Malformed("truncated resource record");
  }
  // RFC 2181 8: a TTL with the top bit set counts as zero.
  if (record->ttl & 0x80000000u) record->ttl = 0;
  switch (record->type) {
    case kDnsTypeA:
    case kDnsTypeAaaa: {
      size_t want = record->type == kDnsTypeA ? 4 : 16;
      if (CBS_len(&rdata) != want) return Malformed("bad address length");
      record->address = IPAddress::FromBytes(CBS_data(&rdata), want);
      break;
    }
    case kDnsTypeTxt: {
      if (CBS_len(&rdata) == 0) return Malformed("empty TXT record");
      while (CBS_len(&rdata) > 0) {
        CBS piece;
        if (!CBS_get_u8_length_prefixed(&rdata, &piece))
          return Malformed("bad TXT string");
        record->text.append(reinterpret_cast<const char*>(CBS_data(&piece)),
                            CBS_len(&piece));
      }
      break;
    }
    case kDnsTypeCname: {
      CBS target = rdata;
      status = ReadName(message, &target, &record->text);
      if (!status.ok()) return status;
      if (CBS_len(&target) != 0) return Malformed("junk after CNAME");
      break;
    }
    case kDnsTypeSoa: {
      CBS soa = rdata;
      std::string mname, rname;
      status = ReadName(message, &soa, &mname);
      if (status.ok()) status = ReadName(message, &soa, &rname);
      if (!status.ok()) return status;
      uint32_t serial, refresh, retry, expire;
      if (!CBS_get_u32(&soa, &serial) || !CBS_get_u32(&soa, &refresh) ||
          !CBS_get_u32(&soa, &retry) || !CBS_get_u32(&soa, &expire) ||
          !CBS_get_u32(&soa, &record->soa_minimum) || CBS_len(&soa) != 0) {
        return Malformed("bad SOA record");
      }
      break;
    }
    case kDnsTypeHttps:
      // Parsed by the HTTPS record code (https_record.h), whose errors are
      // the record's, not the message's. The TargetName inside is never
      // compressed (RFC 9460 2.2), so the RDATA stands alone.
      record->rdata.assign(reinterpret_cast<const char*>(CBS_data(&rdata)),
                           CBS_len(&rdata));
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

// True if |name| ends with the root's '.', not with a '.' escaped inside its
// last label (one preceded by an odd number of backslashes).
bool EndsWithRootDot(absl::string_view name) {
  if (name.empty() || name.back() != '.') return false;
  size_t backslashes = 0;
  for (size_t i = name.size() - 1; i > 0 && name[i - 1] == '\\'; --i)
    ++backslashes;
  return backslashes % 2 == 0;
}

}  // namespace

std::optional<uint32_t> DnsResponse::NegativeTtl() const {
  for (const DnsRecord& r : authority) {
    if (r.type == kDnsTypeSoa) return std::min(r.ttl, r.soa_minimum);
  }
  return std::nullopt;
}

std::vector<const DnsRecord*> DnsResponse::AnswersFor(
    absl::string_view qname, uint16_t type, uint32_t* cname_ttl) const {
  // Parsed names are lower case without the root's dot; a caller's name
  // need not be.
  std::string name = absl::AsciiStrToLower(qname);
  if (EndsWithRootDot(name)) name.pop_back();
  std::vector<std::string> chain = {std::move(name)};
  while (static_cast<int>(chain.size()) <= kMaxCnameChain) {
    const DnsRecord* cname = nullptr;
    for (const DnsRecord& r : answers) {
      if (r.type == kDnsTypeCname && r.name == chain.back()) {
        cname = &r;
        break;
      }
    }
    if (cname == nullptr ||
        std::find(chain.begin(), chain.end(), cname->text) != chain.end()) {
      break;
    }
    if (cname_ttl) *cname_ttl = std::min(*cname_ttl, cname->ttl);
    chain.push_back(cname->text);
  }
  std::vector<const DnsRecord*> out;
  for (const DnsRecord& r : answers) {
    if (r.type == type &&
        std::find(chain.begin(), chain.end(), r.name) != chain.end()) {
      out.push_back(&r);
    }
  }
  return out;
}

absl::StatusOr<DnsResponse> ParseDnsResponse(absl::string_view bytes) {
  CBS message;
  CBS_init(&message, reinterpret_cast<const uint8_t*>(bytes.data()),
           bytes.size());
  CBS cbs = message;
  DnsResponse response;
  uint16_t flags, qdcount, ancount, nscount, arcount;
  if (!CBS_get_u16(&cbs, &response.id) || !CBS_get_u16(&cbs, &flags) ||
      !CBS_get_u16(&cbs, &qdcount) || !CBS_get_u16(&cbs, &ancount) ||
      !CBS_get_u16(&cbs, &nscount) || !CBS_get_u16(&cbs, &arcount)) {
    return Malformed("short header");
  }
  if (!(flags & 0x8000)) return Malformed("not a response");
  response.authoritative = flags & 0x0400;
  response.truncated = flags & 0x0200;
  response.rcode = flags & 0x000f;
  for (int i = 0; i < qdcount; ++i) {
    std::string qname;
    absl::Status status = ReadName(message, &cbs, &qname);
    if (!status.ok()) return status;
    if (!CBS_skip(&cbs, 4)) return Malformed("truncated question");
  }
  for (int i = 0; i < ancount + nscount; ++i) {
    DnsRecord record;
    absl::Status status = ReadRecord(message, &cbs, &record);
    if (!status.ok()) return status;
    (i < ancount ? response.answers : response.authority)
        .push_back(std::move(record));
  }
  // The additional section (EDNS OPT and glue) is not needed; it must
  // still be well-formed enough to skip.
  for (int i = 0; i < arcount; ++i) {
    DnsRecord record;
    absl::Status status = ReadRecord(message, &cbs, &record);
    if (!status.ok()) return status;
  }
  return response;
}

}  // namespace net
