// Fuzzes Url::Parse, Url::Resolve and IPEndPoint::Parse.

#include <cstddef>
#include <cstdint>

#include "net/base/ip_endpoint.h"
#include "net/base/url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  auto url = net::Url::Parse(input);
  if (url.ok()) {
    url->spec();
    url->GetOrigin().Serialize();
    (void)url->Resolve(input.substr(size / 2));
  }
  (void)net::IPEndPoint::Parse(input);
  return 0;
}
