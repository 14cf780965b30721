#include "net/http/alt_svc.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "net/http/http_field_grammar.h"

namespace net {
namespace {

// A cursor over the field value, on the shared RFC 9110 rules.
class Reader {
 public:
  explicit Reader(absl::string_view s) : rest_(s) {}
  bool done() const { return rest_.empty(); }
  char peek() const { return rest_.front(); }
  void SkipOws() { ConsumeOws(&rest_); }
  bool Consume(char c) {
    if (done() || peek() != c) return false;
    rest_.remove_prefix(1);
    return true;
  }
  absl::string_view Token() { return ConsumeToken(&rest_); }
  // A quoted-string (RFC 9110 5.6.4), unescaped, or an error.
  absl::StatusOr<std::string> QuotedString() {
    if (done() || peek() != '"')
      return absl::InvalidArgumentError("expected '\"'");
    std::string out;
    if (!ConsumeQuotedString(&rest_, &out))
      return absl::InvalidArgumentError(
          "malformed quoted string (a control character or no closing '\"')");
    return out;
  }

 private:
  absl::string_view rest_;
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = absl::ascii_tolower(static_cast<unsigned char>(c));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// RFC 7838 3: protocol-id is the ALPN name, percent-encoded.
absl::StatusOr<std::string> PercentDecode(absl::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '%') {
      out.push_back(token[i]);
      continue;
    }
    if (i + 2 >= token.size())
      return absl::InvalidArgumentError("truncated percent-encoding");
    int hi = HexValue(token[i + 1]), lo = HexValue(token[i + 2]);
    if (hi < 0 || lo < 0)
      return absl::InvalidArgumentError("bad percent-encoding");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// alt-authority: [uri-host] ":" port.
absl::Status ParseAuthority(absl::string_view authority, AltSvcEntry* entry) {
  size_t colon = authority.rfind(':');
  if (colon == absl::string_view::npos)
    return absl::InvalidArgumentError("alt-authority without ':port'");
  absl::string_view host = authority.substr(0, colon);
  absl::string_view port = authority.substr(colon + 1);
  uint32_t p = 0;
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(),
                   [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(port, &p) || p == 0 || p > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("alt-authority port '", port, "' is not 1..65535"));
  }
  if (!host.empty() && host.front() == '[') {
    if (host.size() < 3 || host.back() != ']')
      return absl::InvalidArgumentError("bad IPv6 literal in alt-authority");
  } else {
    for (char c : host) {
      if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ||
            c == '.' || c == '_'))
        return absl::InvalidArgumentError("bad host in alt-authority");
    }
  }
  if (host.size() > 253)
    return absl::InvalidArgumentError("host in alt-authority too long");
  entry->host = absl::AsciiStrToLower(host);
  entry->port = static_cast<uint16_t>(p);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AltSvcHeader> ParseAltSvc(absl::string_view value) {
  if (value.size() > kMaxAltSvcHeaderBytes)
    return absl::InvalidArgumentError("Alt-Svc longer than 8 KB");
  AltSvcHeader header;
  Reader r(value);
  r.SkipOws();
  {
    // "clear" alone (case-sensitive, RFC 7838 3).
    Reader probe = r;
    if (probe.Token() == "clear") {
      probe.SkipOws();
      if (probe.done()) {
        header.clear = true;
        return header;
      }
    }
  }
  bool first = true;
  while (true) {
    r.SkipOws();
    if (!first) {
      if (r.done()) break;
      if (!r.Consume(','))
        return absl::InvalidArgumentError("expected ',' between alternatives");
      r.SkipOws();
      if (r.done()) break;  // a trailing comma (an empty list element)
      if (r.peek() == ',') continue;
    }
    first = false;
    if (header.entries.size() >= kMaxAltSvcEntries)
      return absl::InvalidArgumentError("more than 32 alternatives");
    absl::string_view protocol = r.Token();
    if (protocol.empty())
      return absl::InvalidArgumentError("expected a protocol-id");
    AltSvcEntry entry;
    absl::StatusOr<std::string> alpn = PercentDecode(protocol);
    if (!alpn.ok()) return alpn.status();
    entry.alpn = *std::move(alpn);
    if (!r.Consume('=')) return absl::InvalidArgumentError("expected '='");
    absl::StatusOr<std::string> authority = r.QuotedString();
    if (!authority.ok()) return authority.status();
    absl::Status s = ParseAuthority(*authority, &entry);
    if (!s.ok()) return s;
    // Parameters.
    while (true) {
      r.SkipOws();
      if (!r.Consume(';')) break;
      r.SkipOws();
      absl::string_view name = r.Token();
      if (name.empty())
        return absl::InvalidArgumentError("expected a parameter name");
      if (!r.Consume('='))
        return absl::InvalidArgumentError("expected '=' after a parameter");
      std::string param_value;
      if (!r.done() && r.peek() == '"') {
        absl::StatusOr<std::string> q = r.QuotedString();
        if (!q.ok()) return q.status();
        param_value = *std::move(q);
      } else {
        param_value = std::string(r.Token());
        if (param_value.empty())
          return absl::InvalidArgumentError("empty parameter value");
      }
      if (absl::AsciiStrToLower(name) == "ma") {
        // delta-seconds; huge values saturate at a year (a cache bound).
        if (param_value.empty() ||
            !std::all_of(param_value.begin(), param_value.end(),
                         [](char c) { return c >= '0' && c <= '9'; }))
          return absl::InvalidArgumentError("ma is not delta-seconds");
        uint64_t seconds = 0;
        if (param_value.size() > 10 || !absl::SimpleAtoi(param_value, &seconds))
          seconds = 365ull * 24 * 3600;
        seconds = std::min<uint64_t>(seconds, 365ull * 24 * 3600);
        entry.max_age = absl::Seconds(static_cast<int64_t>(seconds));
      }
      // persist and unknown parameters are ignored (RFC 7838 3).
    }
    header.entries.push_back(std::move(entry));
  }
  if (header.entries.empty())
    return absl::InvalidArgumentError("no alternative");
  return header;
}

void AltSvcCache::OnHeader(const Origin& origin, absl::string_view value,
                           absl::Time now) {
  absl::StatusOr<AltSvcHeader> header = ParseAltSvc(value);
  if (!header.ok()) return;
  const std::string key = origin.Serialize();
  const AltSvcEntry* h3 = nullptr;
  for (const AltSvcEntry& e : header->entries) {
    if (e.alpn == "h3" && e.max_age > absl::ZeroDuration()) {
      h3 = &e;
      break;
    }
  }
  if (header->clear || !h3) {
    entries_.erase(key);
    return;
  }
  if (!entries_.count(key) && entries_.size() >= max_origins_) {
    auto soonest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.expires < soonest->second.expires) soonest = it;
    }
    entries_.erase(soonest);
  }
  entries_[key] = {h3->host, h3->port, now + h3->max_age,
                   std::string(value.substr(0, 256))};
}

std::optional<AltSvcCache::Alternative> AltSvcCache::GetHttp3(
    const Origin& origin, absl::Time now) {
  auto it = entries_.find(origin.Serialize());
  if (it == entries_.end()) return std::nullopt;
  if (now >= it->second.expires) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second;
}

void AltSvcCache::Forget(const Origin& origin) {
  entries_.erase(origin.Serialize());
}

}  // namespace net
