#include "net/socket/connect_to.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace net {
namespace {

// Splits off "HOST:" or "[V6]:" from the front of |*rest|; the host may be
// empty. False when no colon ends it.
bool TakeHost(absl::string_view* rest, std::string* host) {
  size_t end;
  if (!rest->empty() && rest->front() == '[') {
    size_t close = rest->find(']');
    if (close == absl::string_view::npos || close + 1 >= rest->size() ||
        (*rest)[close + 1] != ':')
      return false;
    *host = std::string(rest->substr(1, close - 1));
    if (host->empty()) return false;
    end = close + 1;
  } else {
    end = rest->find(':');
    if (end == absl::string_view::npos) return false;
    *host = std::string(rest->substr(0, end));
    if (host->find_first_of("[]/ \t") != std::string::npos) return false;
  }
  *host = absl::AsciiStrToLower(*host);
  rest->remove_prefix(end + 1);
  return true;
}

// An empty port is 0 (any, or unchanged); else 1..65535.
bool ParsePort(absl::string_view text, uint16_t* port) {
  if (text.empty()) {
    *port = 0;
    return true;
  }
  uint32_t n;
  if (!absl::SimpleAtoi(text, &n) || n == 0 || n > 65535) return false;
  *port = static_cast<uint16_t>(n);
  return true;
}

std::string HostForm(const std::string& host) {
  return host.find(':') != std::string::npos ? absl::StrCat("[", host, "]")
                                             : host;
}

}  // namespace

absl::StatusOr<ConnectToRule> ConnectToRule::Parse(absl::string_view text) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad --connect-to '", text, "': ", why,
        " (expected HOST1:PORT1:HOST2:PORT2, any part may be empty)"));
  };
  ConnectToRule rule;
  absl::string_view rest = text;
  if (!TakeHost(&rest, &rule.from_host)) return bad("bad first host");
  size_t colon = rest.find(':');
  if (colon == absl::string_view::npos) return bad("missing parts");
  if (!ParsePort(rest.substr(0, colon), &rule.from_port))
    return bad("bad first port");
  rest.remove_prefix(colon + 1);
  if (!TakeHost(&rest, &rule.to_host)) return bad("bad second host");
  if (rest.find(':') != absl::string_view::npos ||
      !ParsePort(rest, &rule.to_port))
    return bad("bad second port");
  return rule;
}

std::string ConnectToRule::ToString() const {
  auto port = [](uint16_t p) { return p ? absl::StrCat(p) : std::string(); };
  return absl::StrCat(HostForm(from_host), ":", port(from_port), ":",
                      HostForm(to_host), ":", port(to_port));
}

std::pair<std::string, uint16_t> ConnectToRules::Apply(const std::string& host,
                                                       uint16_t port) const {
  const std::string lower = absl::AsciiStrToLower(host);
  for (const ConnectToRule& rule : rules_) {
    if (!rule.from_host.empty() && rule.from_host != lower) continue;
    if (rule.from_port != 0 && rule.from_port != port) continue;
    return {rule.to_host.empty() ? host : rule.to_host,
            rule.to_port ? rule.to_port : port};
  }
  return {host, port};
}

}  // namespace net
