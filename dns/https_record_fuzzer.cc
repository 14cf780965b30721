// Fuzzes ParseHttpsRdata with arbitrary RDATA. Beyond "no crash": what
// parses is well-formed (TargetName lower-case, at most 253 characters, no
// empty label; mandatory strictly increasing without key 0, each listed key
// present; alpn-ids non-empty; hints of their family; an ech value that is
// one ECHConfigList; unknown keys strictly increasing above 6 and below
// 65535; no SvcParams kept in AliasMode), every failure is InvalidArgument
// (malformed) or FailedPrecondition (not self-consistent) with a message,
// and the record written back by SerializeHttpsRdata parses to the same
// value. The presentation form and the compatibility check run on it too.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "dns/https_record.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "https_record_fuzzer: %s\n", what);
  std::abort();
}

bool Same(const net::HttpsRecord& a, const net::HttpsRecord& b) {
  return a.priority == b.priority && a.target == b.target &&
         a.mandatory == b.mandatory && a.alpn == b.alpn &&
         a.no_default_alpn == b.no_default_alpn && a.port == b.port &&
         a.ipv4_hints == b.ipv4_hints && a.ipv6_hints == b.ipv6_hints &&
         a.ech == b.ech && a.unknown_params == b.unknown_params;
}

void CheckRecord(const net::HttpsRecord& r) {
  Check(r.target.size() <= 253, "TargetName at most 253 characters");
  Check(
      r.target.empty() || (r.target.front() != '.' && r.target.back() != '.' &&
                           r.target.find("..") == std::string::npos),
      "no empty label");
  for (char c : r.target) Check(!(c >= 'A' && c <= 'Z'), "lower case");
  if (r.alias_mode()) {
    Check(r.mandatory.empty() && r.alpn.empty() && !r.no_default_alpn &&
              !r.port && r.ipv4_hints.empty() && r.ipv6_hints.empty() &&
              r.ech.empty() && r.unknown_params.empty(),
          "AliasMode keeps no SvcParams");
    return;
  }
  for (size_t i = 0; i < r.mandatory.size(); ++i) {
    Check(r.mandatory[i] != net::kSvcParamMandatory, "mandatory lists itself");
    Check(i == 0 || r.mandatory[i - 1] < r.mandatory[i],
          "mandatory strictly increasing");
    Check(r.HasKey(r.mandatory[i]), "mandatory keys present");
  }
  for (const std::string& id : r.alpn) Check(!id.empty(), "alpn-id non-empty");
  Check(!r.no_default_alpn || !r.alpn.empty(), "no-default-alpn needs alpn");
  for (const auto& a : r.ipv4_hints) Check(a.IsIPv4(), "ipv4hint is IPv4");
  for (const auto& a : r.ipv6_hints) Check(a.IsIPv6(), "ipv6hint is IPv6");
  Check(r.ech.empty() || net::ValidateEchConfigList(r.ech).ok(),
        "ech is one ECHConfigList");
  uint16_t last = net::kSvcParamIpv6Hint;
  for (const auto& [key, value] : r.unknown_params) {
    Check(key > last && key != net::kSvcParamInvalidKey,
          "unknown keys increasing, above 6, not 65535");
    last = key;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view rdata(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<net::HttpsRecord> r = net::ParseHttpsRdata(rdata);
  if (!r.ok()) {
    Check(r.status().code() == absl::StatusCode::kInvalidArgument ||
              r.status().code() == absl::StatusCode::kFailedPrecondition,
          "errors are malformed or not self-consistent");
    Check(!r.status().message().empty(), "errors say why");
    return 0;
  }
  CheckRecord(*r);
  (void)net::HttpsRecordToString(*r);
  (void)net::WhyIncompatible(*r, {"h2", "http/1.1"});
  absl::StatusOr<std::string> wire = net::SerializeHttpsRdata(*r);
  Check(wire.ok(), "a parsed record serializes");
  absl::StatusOr<net::HttpsRecord> again = net::ParseHttpsRdata(*wire);
  Check(again.ok(), "the serialized record parses");
  Check(Same(*r, *again), "the record round-trips");
  // Serializing is idempotent (the input itself may differ: letter case
  // in TargetName, AliasMode's dropped SvcParams).
  absl::StatusOr<std::string> wire_again = net::SerializeHttpsRdata(*again);
  Check(wire_again.ok() && *wire_again == *wire, "serializing is stable");
  return 0;
}
