// Fuzzes HttpResponseHeaders::Parse with arbitrary header blocks.

#include <cstddef>
#include <cstdint>

#include "net/http/http_response_headers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  auto headers = net::HttpResponseHeaders::Parse(input);
  if (headers.ok()) {
    headers->IsKeepAlive();
    headers->GetHeader("content-type");
    headers->status_line();
  }
  return 0;
}
