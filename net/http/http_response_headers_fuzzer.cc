// Fuzzes HttpResponseHeaders::Parse with arbitrary header blocks. Beyond "no
// crash": what parses is well-formed (status 100..999, token names, values
// without line breaks or surrounding whitespace, framing consistent), and
// re-serializing it (status line, one line per header, blank line) parses to
// the same response: same status, version, reason, headers and framing.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "net/base/net_errors.h"
#include "net/http/http_response_headers.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "http_response_headers_fuzzer: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  auto headers = net::HttpResponseHeaders::Parse(input);
  if (!headers.ok()) {
    const int error =
        net::HttpResponseHeaders::NetErrorForParseFailure(headers.status());
    Check(error == net::ERR_INVALID_HTTP_RESPONSE ||
              error == net::ERR_INVALID_CONTENT_LENGTH ||
              error == net::ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH,
          "a parse failure maps to an HTTP framing error");
    return 0;
  }
  Check(headers->status_code() >= 100 && headers->status_code() <= 999,
        "status code in 100..999");
  Check(headers->version() == 10 || headers->version() == 11, "version");
  for (const auto& [name, value] : headers->headers()) {
    Check(!name.empty() && name.find_first_of(" \t\r\n:") == std::string::npos,
          "header name is a token");
    Check(value.find('\n') == std::string::npos, "no line break in a value");
    Check(value.empty() || (!absl::ascii_isspace(value.front()) &&
                            !absl::ascii_isspace(value.back())),
          "values are trimmed");
  }
  Check(headers->content_length() >= -1, "content length >= -1");
  Check(!headers->IsChunked() || headers->HasTransferEncoding(),
        "chunked only with a Transfer-Encoding");
  Check(!headers->HasTransferEncoding() || headers->content_length() == -1,
        "Transfer-Encoding overrides Content-Length");

  std::string again = absl::StrCat(headers->status_line(), "\r\n");
  for (const auto& [name, value] : headers->headers())
    absl::StrAppend(&again, name, ": ", value, "\r\n");
  again += "\r\n";
  auto reparsed = net::HttpResponseHeaders::Parse(again);
  Check(reparsed.ok(), "the re-serialized block parses");
  Check(reparsed->status_code() == headers->status_code() &&
            reparsed->version() == headers->version() &&
            reparsed->reason() == headers->reason(),
        "status line round-trips");
  Check(reparsed->headers() == headers->headers(), "headers round-trip");
  Check(reparsed->content_length() == headers->content_length() &&
            reparsed->IsChunked() == headers->IsChunked() &&
            reparsed->HasTransferEncoding() == headers->HasTransferEncoding() &&
            reparsed->IsKeepAlive() == headers->IsKeepAlive(),
        "framing round-trips");
  return 0;
}
