// Fuzzes Url::Parse, Url::Resolve (and so ada, the WHATWG parser under
// them), IPEndPoint::Parse and IPAddress::Parse. Beyond "no crash": a parsed
// URL's spec() parses to the same URL (scheme, host, port, path, origin), is
// a fixed point, stays within Url::kMaxLength and ends with the request
// target; resolving a URL's own spec() against it gives it back; a resolved
// reference is a URL that round-trips the same way; an address or
// endpoint's ToString() parses back to an equal value.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "net/base/ip_endpoint.h"
#include "net/base/url.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "url_fuzzer: %s\n", what);
  std::abort();
}

void CheckRoundTrip(const net::Url& url) {
  Check(url.scheme() == "http" || url.scheme() == "https", "scheme");
  Check(!url.host().empty(), "non-empty host");
  Check(url.port() != 0, "a port");
  Check(!url.PathForRequest().empty() && url.PathForRequest()[0] == '/',
        "the path starts with /");
  Check(url.spec().size() <= net::Url::kMaxLength, "spec() within kMaxLength");
  Check(url.spec().size() > url.PathForRequest().size() &&
            url.spec().compare(url.spec().size() - url.PathForRequest().size(),
                               std::string::npos, url.PathForRequest()) == 0,
        "spec() ends with the request target");
  Check(url.spec().find('#') == std::string::npos, "no fragment");
  auto again = net::Url::Parse(url.spec());
  Check(again.ok(), "spec() parses");
  Check(again->scheme() == url.scheme() && again->host() == url.host() &&
            again->port() == url.port() &&
            again->PathForRequest() == url.PathForRequest(),
        "spec() parses to the same URL");
  Check(again->spec() == url.spec(), "spec() is a fixed point");
  Check(again->GetOrigin() == url.GetOrigin(), "same origin");
  Check(again->HostHeader() == url.HostHeader(), "same Host header");
  auto self = url.Resolve(url.spec());
  Check(self.ok() && self->spec() == url.spec(), "resolving spec() is itself");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  auto url = net::Url::Parse(input);
  if (url.ok()) {
    CheckRoundTrip(*url);
    auto resolved = url->Resolve(input.substr(size / 2));
    if (resolved.ok()) CheckRoundTrip(*resolved);
  }
  auto base = net::Url::Parse("https://www.example.test/a/b?q");
  auto resolved = base->Resolve(input);
  if (resolved.ok()) CheckRoundTrip(*resolved);

  if (auto endpoint = net::IPEndPoint::Parse(input); endpoint.ok()) {
    auto again = net::IPEndPoint::Parse(endpoint->ToString());
    Check(again.ok() && *again == *endpoint, "endpoint round-trips");
  }
  if (auto address = net::IPAddress::Parse(input)) {
    auto again = net::IPAddress::Parse(address->ToString());
    Check(again && *again == *address, "address round-trips");
  }
  return 0;
}
