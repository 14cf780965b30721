// Fuzzes ProxyServer::Parse and ProxyBypassRules::Parse. Beyond "no crash":
//  - a parsed proxy prints (ToString plus its credentials, percent-encoded)
//    to text that parses to the same ProxyServer;
//  - parsed bypass rules print (ToString) to a list that parses to rules
//    printing the same way, and that matches a host the same way.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "net/proxy/proxy_config.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "proxy_config_fuzzer: %s\n", what);
  std::abort();
}

std::string PercentEncodeAll(absl::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    out += '%';
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);

  absl::StatusOr<net::ProxyServer> proxy = net::ProxyServer::Parse(input);
  if (proxy.ok()) {
    Check(!proxy->host().empty(), "empty host");
    Check(proxy->port() != 0, "port 0");
    std::string again = proxy->ToString();
    if (proxy->has_credentials()) {
      again = absl::StrCat("http://", PercentEncodeAll(proxy->username()), ":",
                           PercentEncodeAll(proxy->password()), "@",
                           proxy->HostPort());
    }
    absl::StatusOr<net::ProxyServer> reparsed = net::ProxyServer::Parse(again);
    Check(reparsed.ok(), "printed proxy does not parse");
    // A user name given without a password reparses with an empty one.
    Check(reparsed->host() == proxy->host() &&
              reparsed->port() == proxy->port() &&
              reparsed->username() == proxy->username() &&
              reparsed->password() == proxy->password(),
          "printed proxy parses to another");
  }

  absl::StatusOr<net::ProxyBypassRules> rules =
      net::ProxyBypassRules::Parse(input);
  if (rules.ok()) {
    const std::string printed = rules->ToString();
    absl::StatusOr<net::ProxyBypassRules> reparsed =
        net::ProxyBypassRules::Parse(printed);
    Check(reparsed.ok(), "printed rules do not parse");
    Check(reparsed->ToString() == printed, "printed rules print otherwise");
    for (const char* host :
         {"example.com", "www.example.com", "127.0.0.1", "::1", "10.1.2.3"}) {
      for (uint16_t port : {80, 443}) {
        Check(rules->Matches(host, port) == reparsed->Matches(host, port),
              "printed rules match otherwise");
      }
    }
  }
  return 0;
}
