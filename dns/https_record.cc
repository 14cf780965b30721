#include "dns/https_record.h"

#include <openssl/bytestring.h>
#include <openssl/mem.h>

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace net {
namespace {

constexpr size_t kMaxNameLength = 255;  // wire form, RFC 1035 2.3.4
constexpr char kDefaultAlpn[] = "http/1.1";

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed HTTPS record: ", why));
}

absl::Status Inconsistent(absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("HTTPS record is not self-consistent: ", why));
}

absl::string_view View(const CBS& cbs) {
  return absl::string_view(reinterpret_cast<const char*>(CBS_data(&cbs)),
                           CBS_len(&cbs));
}

// Reads the uncompressed TargetName (RFC 9460 2.2: "the uncompressed,
// fully-qualified TargetName").
absl::Status ReadTargetName(CBS* cbs, std::string* out) {
  out->clear();
  size_t wire_length = 0;
  for (;;) {
    uint8_t len;
    if (!CBS_get_u8(cbs, &len))
      return Malformed("TargetName runs past the end");
    ++wire_length;
    if ((len & 0xc0) == 0xc0)
      return Malformed("TargetName is compressed (a name pointer)");
    if (len & 0xc0) return Malformed("TargetName has a bad label type");
    if (len == 0) {
      // The root label's byte counts too (RFC 1035 3.1: 255 octets in all).
      if (wire_length > kMaxNameLength)
        return Malformed("TargetName is longer than 255 bytes");
      break;
    }
    CBS label;
    if (!CBS_get_bytes(cbs, &label, len))
      return Malformed("a TargetName label runs past the end");
    wire_length += len;
    if (wire_length > kMaxNameLength)
      return Malformed("TargetName is longer than 255 bytes");
    absl::string_view text = View(label);
    // A '.' inside a label cannot be told apart from a label boundary in
    // the dotted form everything else here uses.
    if (text.find('.') != absl::string_view::npos)
      return Malformed("a TargetName label contains '.'");
    if (!out->empty()) out->push_back('.');
    out->append(text.data(), text.size());
  }
  *out = absl::AsciiStrToLower(*out);
  return absl::OkStatus();
}

absl::Status ParseAlpn(CBS value, std::vector<std::string>* out) {
  if (CBS_len(&value) == 0) return Malformed("alpn is empty");
  while (CBS_len(&value) > 0) {
    CBS id;
    if (!CBS_get_u8_length_prefixed(&value, &id))
      return Malformed("an alpn-id runs past the end of the value");
    if (CBS_len(&id) == 0) return Malformed("an alpn-id is empty");
    out->emplace_back(View(id));
  }
  return absl::OkStatus();
}

absl::Status ParseHints(CBS value, size_t size, const char* name,
                        std::vector<IPAddress>* out) {
  if (CBS_len(&value) == 0 || CBS_len(&value) % size != 0) {
    return Malformed(absl::StrCat(name, " is ", CBS_len(&value),
                                  " bytes, not a non-empty multiple of ",
                                  size));
  }
  while (CBS_len(&value) > 0) {
    CBS address;
    CBS_get_bytes(&value, &address, size);
    out->push_back(*IPAddress::FromBytes(CBS_data(&address), size));
  }
  return absl::OkStatus();
}

absl::Status ParseMandatory(CBS value, std::vector<uint16_t>* out) {
  if (CBS_len(&value) == 0 || CBS_len(&value) % 2 != 0)
    return Malformed("mandatory is not a non-empty list of 2-byte keys");
  while (CBS_len(&value) > 0) {
    uint16_t key;
    CBS_get_u16(&value, &key);
    if (key == kSvcParamMandatory)
      return Malformed("mandatory lists \"mandatory\" itself");
    if (!out->empty() && key <= out->back())
      return Malformed("mandatory keys are not in strictly increasing order");
    out->push_back(key);
  }
  return absl::OkStatus();
}

bool AddName(CBB* cbb, const std::string& name) {
  if (!name.empty()) {
    size_t start = 0;
    while (start <= name.size()) {
      size_t dot = name.find('.', start);
      if (dot == std::string::npos) dot = name.size();
      const size_t len = dot - start;
      if (len == 0 || len > 63) return false;
      if (!CBB_add_u8(cbb, static_cast<uint8_t>(len)) ||
          !CBB_add_bytes(
              cbb, reinterpret_cast<const uint8_t*>(name.data() + start), len))
        return false;
      start = dot + 1;
    }
  }
  return CBB_add_u8(cbb, 0);
}

// Appends one SvcParam whose value |write| fills.
template <typename Writer>
bool AddParam(CBB* cbb, uint16_t key, Writer write) {
  CBB value;
  return CBB_add_u16(cbb, key) && CBB_add_u16_length_prefixed(cbb, &value) &&
         write(&value) && CBB_flush(cbb);
}

bool AddBytes(CBB* cbb, absl::string_view bytes) {
  return CBB_add_bytes(cbb, reinterpret_cast<const uint8_t*>(bytes.data()),
                       bytes.size());
}

std::string PresentationValue(absl::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c > 0x20 && c < 0x7f && c != '"' && c != '\\' && c != ',') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\%03d", c);
    }
  }
  return out;
}

}  // namespace

std::string SvcParamKeyName(uint16_t key) {
  switch (key) {
    case kSvcParamMandatory:
      return "mandatory";
    case kSvcParamAlpn:
      return "alpn";
    case kSvcParamNoDefaultAlpn:
      return "no-default-alpn";
    case kSvcParamPort:
      return "port";
    case kSvcParamIpv4Hint:
      return "ipv4hint";
    case kSvcParamEch:
      return "ech";
    case kSvcParamIpv6Hint:
      return "ipv6hint";
    default:
      return absl::StrCat("key", key);
  }
}

bool HttpsRecord::HasKey(uint16_t key) const {
  switch (key) {
    case kSvcParamMandatory:
      return !mandatory.empty();
    case kSvcParamAlpn:
      return !alpn.empty();
    case kSvcParamNoDefaultAlpn:
      return no_default_alpn;
    case kSvcParamPort:
      return port.has_value();
    case kSvcParamIpv4Hint:
      return !ipv4_hints.empty();
    case kSvcParamEch:
      return !ech.empty();
    case kSvcParamIpv6Hint:
      return !ipv6_hints.empty();
    default:
      return std::any_of(unknown_params.begin(), unknown_params.end(),
                         [key](const auto& p) { return p.first == key; });
  }
}

std::vector<std::string> HttpsRecord::AlpnSet() const {
  std::vector<std::string> set = alpn;
  if (!no_default_alpn &&
      std::find(set.begin(), set.end(), kDefaultAlpn) == set.end())
    set.push_back(kDefaultAlpn);
  return set;
}

absl::Status ValidateEchConfigList(absl::string_view bytes) {
  CBS cbs, list;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!CBS_get_u16_length_prefixed(&cbs, &list) || CBS_len(&cbs) != 0)
    return Malformed("ech: the ECHConfigList length does not match the value");
  if (CBS_len(&list) == 0) return Malformed("ech: the ECHConfigList is empty");
  while (CBS_len(&list) > 0) {
    uint16_t version;
    CBS contents;
    if (!CBS_get_u16(&list, &version) ||
        !CBS_get_u16_length_prefixed(&list, &contents))
      return Malformed("ech: an ECHConfig runs past the end of the list");
  }
  return absl::OkStatus();
}

absl::StatusOr<HttpsRecord> ParseHttpsRdata(absl::string_view rdata) {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(rdata.data()), rdata.size());
  HttpsRecord record;
  if (!CBS_get_u16(&cbs, &record.priority))
    return Malformed("RDATA ends inside SvcPriority");
  absl::Status status = ReadTargetName(&cbs, &record.target);
  if (!status.ok()) return status;
  bool first = true;
  uint16_t last_key = 0;
  while (CBS_len(&cbs) > 0) {
    uint16_t key;
    CBS value;
    if (!CBS_get_u16(&cbs, &key) || !CBS_get_u16_length_prefixed(&cbs, &value))
      return Malformed("RDATA ends inside a SvcParam");
    if (!first && key <= last_key) {
      return Malformed(absl::StrCat(
          "SvcParamKeys are not in strictly "
          "increasing order (",
          SvcParamKeyName(key), " after ", SvcParamKeyName(last_key), ")"));
    }
    first = false;
    last_key = key;
    if (key == kSvcParamInvalidKey)
      return Malformed("the reserved SvcParamKey 65535");
    // AliasMode: SvcParams are ignored (RFC 9460 2.4.2), but the list must
    // still be well-formed to be skipped.
    if (record.alias_mode()) continue;
    switch (key) {
      case kSvcParamMandatory:
        status = ParseMandatory(value, &record.mandatory);
        break;
      case kSvcParamAlpn:
        status = ParseAlpn(value, &record.alpn);
        break;
      case kSvcParamNoDefaultAlpn:
        if (CBS_len(&value) != 0)
          return Malformed("no-default-alpn has a value");
        record.no_default_alpn = true;
        break;
      case kSvcParamPort: {
        uint16_t port;
        if (!CBS_get_u16(&value, &port) || CBS_len(&value) != 0)
          return Malformed("port is not 2 bytes");
        record.port = port;
        break;
      }
      case kSvcParamIpv4Hint:
        status = ParseHints(value, 4, "ipv4hint", &record.ipv4_hints);
        break;
      case kSvcParamEch:
        status = ValidateEchConfigList(View(value));
        if (status.ok()) record.ech = std::string(View(value));
        break;
      case kSvcParamIpv6Hint:
        status = ParseHints(value, 16, "ipv6hint", &record.ipv6_hints);
        break;
      default:
        record.unknown_params.emplace_back(key, std::string(View(value)));
        break;
    }
    if (!status.ok()) return status;
  }
  if (record.alias_mode()) return record;
  if (record.no_default_alpn && record.alpn.empty())
    return Inconsistent("no-default-alpn without alpn");
  for (uint16_t key : record.mandatory) {
    if (!record.HasKey(key)) {
      return Inconsistent(absl::StrCat("mandatory lists ", SvcParamKeyName(key),
                                       ", which the record does not carry"));
    }
  }
  return record;
}

absl::StatusOr<std::string> SerializeHttpsRdata(const HttpsRecord& record) {
  bssl::ScopedCBB cbb;
  if (!CBB_init(cbb.get(), 64) || !CBB_add_u16(cbb.get(), record.priority) ||
      !AddName(cbb.get(), record.target))
    return absl::InvalidArgumentError("bad TargetName");
  // Every key in increasing order: the known ones first where they fall,
  // unknown ones (which are all above 6 or reserved) after.
  bool ok = true;
  if (!record.mandatory.empty()) {
    ok &= AddParam(cbb.get(), kSvcParamMandatory, [&](CBB* v) {
      for (uint16_t key : record.mandatory)
        if (!CBB_add_u16(v, key)) return false;
      return true;
    });
  }
  if (!record.alpn.empty()) {
    ok &= AddParam(cbb.get(), kSvcParamAlpn, [&](CBB* v) {
      for (const std::string& id : record.alpn) {
        CBB child;
        if (id.empty() || id.size() > 255 ||
            !CBB_add_u8_length_prefixed(v, &child) || !AddBytes(&child, id) ||
            !CBB_flush(v))
          return false;
      }
      return true;
    });
  }
  if (record.no_default_alpn)
    ok &=
        AddParam(cbb.get(), kSvcParamNoDefaultAlpn, [](CBB*) { return true; });
  if (record.port) {
    ok &= AddParam(cbb.get(), kSvcParamPort,
                   [&](CBB* v) { return CBB_add_u16(v, *record.port) == 1; });
  }
  auto hints = [&](uint16_t key, const std::vector<IPAddress>& addresses,
                   size_t size) {
    if (addresses.empty()) return true;
    return AddParam(cbb.get(), key, [&](CBB* v) {
      for (const IPAddress& a : addresses)
        if (a.size() != size || !CBB_add_bytes(v, a.bytes(), size))
          return false;
      return true;
    });
  };
  ok &= hints(kSvcParamIpv4Hint, record.ipv4_hints, 4);
  if (!record.ech.empty()) {
    ok &= AddParam(cbb.get(), kSvcParamEch,
                   [&](CBB* v) { return AddBytes(v, record.ech); });
  }
  ok &= hints(kSvcParamIpv6Hint, record.ipv6_hints, 16);
  uint16_t last = kSvcParamIpv6Hint;
  for (const std::pair<uint16_t, std::string>& param : record.unknown_params) {
    if (param.first <= last)
      return absl::InvalidArgumentError("unknown keys out of order");
    last = param.first;
    ok &= AddParam(cbb.get(), param.first,
                   [&](CBB* v) { return AddBytes(v, param.second); });
  }
  uint8_t* data;
  size_t len;
  if (!ok || !CBB_finish(cbb.get(), &data, &len))
    return absl::InvalidArgumentError("a SvcParam cannot be encoded");
  std::string out(reinterpret_cast<const char*>(data), len);
  OPENSSL_free(data);
  return out;
}

std::string HttpsRecordToString(const HttpsRecord& r) {
  std::string out =
      absl::StrCat(r.priority, " ", r.target.empty() ? "." : r.target + ".");
  if (!r.mandatory.empty()) {
    std::vector<std::string> names;
    for (uint16_t key : r.mandatory) names.push_back(SvcParamKeyName(key));
    absl::StrAppend(&out, " mandatory=", absl::StrJoin(names, ","));
  }
  if (!r.alpn.empty()) {
    std::vector<std::string> ids;
    for (const std::string& id : r.alpn) ids.push_back(PresentationValue(id));
    absl::StrAppend(&out, " alpn=", absl::StrJoin(ids, ","));
  }
  if (r.no_default_alpn) out += " no-default-alpn";
  if (r.port) absl::StrAppend(&out, " port=", *r.port);
  auto hints = [&](const char* name, const std::vector<IPAddress>& addresses) {
    if (addresses.empty()) return;
    std::vector<std::string> text;
    for (const IPAddress& a : addresses) text.push_back(a.ToString());
    absl::StrAppend(&out, " ", name, "=", absl::StrJoin(text, ","));
  };
  hints("ipv4hint", r.ipv4_hints);
  if (!r.ech.empty()) absl::StrAppend(&out, " ech=", absl::Base64Escape(r.ech));
  hints("ipv6hint", r.ipv6_hints);
  for (const auto& [key, value] : r.unknown_params) {
    absl::StrAppend(&out, " ", SvcParamKeyName(key));
    if (!value.empty())
      absl::StrAppend(&out, "=\"", PresentationValue(value), "\"");
  }
  return out;
}

std::optional<std::string> WhyIncompatible(
    const HttpsRecord& record, const std::vector<std::string>& tls_alpns) {
  for (uint16_t key : record.mandatory) {
    if (key > kSvcParamIpv6Hint) {
      return absl::StrCat("mandatory key ", SvcParamKeyName(key),
                          " is not implemented by this client");
    }
  }
  const std::vector<std::string> set = record.AlpnSet();
  for (const std::string& id : set) {
    if (std::find(tls_alpns.begin(), tls_alpns.end(), id) != tls_alpns.end())
      return std::nullopt;
  }
  return absl::StrCat("no protocol of its ALPN set (", absl::StrJoin(set, ","),
                      ") is one this client speaks over TLS (",
                      absl::StrJoin(tls_alpns, ","), ")");
}

HttpsRRSetVerdict EvaluateHttpsRRSet(
    const std::vector<HttpsAnswerRecord>& answers,
    const std::vector<std::string>& tls_alpns) {
  HttpsRRSetVerdict verdict;
  if (answers.empty()) return verdict;
  static thread_local absl::BitGen random;
  std::vector<std::pair<const HttpsAnswerRecord*, HttpsRecord>> aliases;
  std::vector<std::pair<const HttpsAnswerRecord*, HttpsRecord>> services;
  std::vector<std::string> dropped;
  for (const HttpsAnswerRecord& answer : answers) {
    absl::StatusOr<HttpsRecord> record = ParseHttpsRdata(answer.rdata);
    if (!record.ok() &&
        record.status().code() == absl::StatusCode::kInvalidArgument) {
      verdict.kind = HttpsRRSetVerdict::Kind::kRejected;
      verdict.detail =
          absl::StrCat("the RRSet of ", answer.owner,
                       " is rejected: ", record.status().message());
      return verdict;
    }
    if (!record.ok()) {
      ++verdict.records;
      dropped.push_back(std::string(record.status().message()));
      continue;
    }
    if (record->alias_mode()) {
      aliases.emplace_back(&answer, *std::move(record));
    } else {
      ++verdict.records;
      services.emplace_back(&answer, *std::move(record));
    }
  }
  if (!aliases.empty()) {
    const auto& [answer, record] =
        aliases[absl::Uniform<size_t>(random, 0, aliases.size())];
    verdict.owner = answer->owner;
    if (record.target.empty()) {
      verdict.kind = HttpsRRSetVerdict::Kind::kNoService;
      verdict.detail = absl::StrCat(
          answer->owner,
          " HTTPS 0 .: AliasMode to the root, the service says it is not "
          "available (advisory: connecting as without the record)");
      return verdict;
    }
    verdict.kind = HttpsRRSetVerdict::Kind::kAlias;
    verdict.alias_target = record.target;
    return verdict;
  }
  std::vector<std::pair<const HttpsAnswerRecord*, HttpsRecord>> usable;
  for (auto& service : services) {
    if (std::optional<std::string> why =
            WhyIncompatible(service.second, tls_alpns)) {
      dropped.push_back(absl::StrCat(HttpsRecordToString(service.second),
                                     ": incompatible: ", *why));
      continue;
    }
    usable.push_back(std::move(service));
  }
  verdict.compatible = static_cast<int>(usable.size());
  const std::string notes = absl::StrJoin(dropped, "; ");
  if (usable.empty()) {
    verdict.kind = HttpsRRSetVerdict::Kind::kRejected;
    verdict.detail = absl::StrCat("no usable ServiceMode record: ", notes);
    return verdict;
  }
  uint16_t best = UINT16_MAX;
  for (const auto& u : usable) best = std::min(best, u.second.priority);
  std::vector<size_t> ties;
  for (size_t i = 0; i < usable.size(); ++i)
    if (usable[i].second.priority == best) ties.push_back(i);
  const size_t chosen = ties[absl::Uniform<size_t>(random, 0, ties.size())];
  auto& [answer, record] = usable[chosen];
  verdict.kind = HttpsRRSetVerdict::Kind::kService;
  verdict.owner = answer->owner;
  verdict.target = record.target.empty() ? answer->owner : record.target;
  verdict.detail = notes;
  // The rest by priority, ties shuffled (2.4.1: chosen at random).
  std::vector<size_t> rest;
  for (size_t i = 0; i < usable.size(); ++i)
    if (i != chosen) rest.push_back(i);
  std::shuffle(rest.begin(), rest.end(), random);
  std::stable_sort(rest.begin(), rest.end(), [&usable](size_t a, size_t b) {
    return usable[a].second.priority < usable[b].second.priority;
  });
  // At most kMaxHttpsFallbacks, one per target and port: a long RRSet must
  // not hold a connection through thousands of attempts.
  for (size_t i : rest) {
    if (verdict.fallbacks.size() >= kMaxHttpsFallbacks) break;
    const std::string target = usable[i].second.target.empty()
                                   ? usable[i].first->owner
                                   : usable[i].second.target;
    const std::optional<uint16_t> port = usable[i].second.port;
    const bool repeat =
        (target == verdict.target && port == record.port) ||
        std::any_of(verdict.fallbacks.begin(), verdict.fallbacks.end(),
                    [&](const auto& f) {
                      return f.second == target && f.first.port == port;
                    });
    if (repeat) continue;
    verdict.fallbacks.emplace_back(std::move(usable[i].second), target);
  }
  verdict.record = std::move(record);
  return verdict;
}

}  // namespace net
