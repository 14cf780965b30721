// Fuzzes HttpHeaderScanner. Beyond "no crash":
//  - Piece-independence: the input scanned at once, in uneven pieces and one
//    byte at a time gives the same verdict, the same error and the same
//    block end.
//  - Linearity: every byte is examined once (bytes_examined() is at most the
//    bytes consumed plus the one that failed).
//  - The verdict matches a plain reference reading of RFC 9112 2.2 (the
//    first empty line, CRLF or bare LF, ends the block; a CR not before LF,
//    or a NUL, before that end is an error; more than the limit is too big).
//  - A second block after StartNextBlock counts against the same limit.
//  - A complete block that HttpResponseHeaders::Parse accepts has values
//    with no CR, LF or NUL.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "net/base/net_errors.h"
#include "net/http/http_header_scanner.h"
#include "net/http/http_response_headers.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "http_header_scanner_fuzzer: %s\n", what);
  std::abort();
}

struct Verdict {
  int error = 0;   // net error, or 0
  size_t end = 0;  // bytes of the block (when complete)
  bool complete = false;
  bool operator==(const Verdict& o) const {
    return error == o.error && end == o.end && complete == o.complete;
  }
};

// Scans |input| in pieces of |piece(i)| bytes.
template <typename Piece>
Verdict Scan(absl::string_view input, size_t limit, Piece piece) {
  net::HttpHeaderScanner scanner(limit);
  Verdict v;
  size_t pos = 0;
  for (int i = 0; pos < input.size(); ++i) {
    size_t n = std::min<size_t>(piece(i), input.size() - pos);
    int rv = scanner.Scan(input.substr(pos, n));
    if (rv < 0) {
      Check(rv == net::ERR_INVALID_HTTP_RESPONSE ||
                rv == net::ERR_RESPONSE_HEADERS_TOO_BIG,
            "a named error");
      Check(scanner.error_detail()[0] != '\0', "an error says why");
      Check(scanner.Scan("x") == rv, "a failed scanner stays failed");
      v.error = rv;
      break;
    }
    Check(static_cast<size_t>(rv) <= n, "consumes at most what it got");
    pos += rv;
    if (scanner.block_complete()) {
      Check(scanner.Scan("more") == 0, "nothing after the block");
      v.complete = true;
      v.end = pos;
      Check(scanner.block_size() == pos, "block_size");
      break;
    }
    Check(static_cast<size_t>(rv) == n, "an incomplete block takes it all");
  }
  Check(scanner.bytes_examined() <= scanner.total_bytes() + 1,
        "each byte examined once");
  Check(scanner.total_bytes() <= limit, "the limit holds");
  return v;
}

// The plain reading, over the whole input at once: which comes first of
// the first rule broken (a NUL, or a byte after a CR that is not LF), the LF
// that ends the first empty line, and the first byte past the limit.
Verdict Reference(absl::string_view input, size_t limit) {
  const size_t npos = absl::string_view::npos;
  size_t bad = npos;
  size_t lf = npos;
  for (size_t i = 0; i < input.size(); ++i) {
    if (bad == npos && (input[i] == '\0' ||
                        (i > 0 && input[i - 1] == '\r' && input[i] != '\n')))
      bad = i;
    if (lf == npos && input[i] == '\n') {
      absl::string_view before = input.substr(0, i);
      absl::ConsumeSuffix(&before, "\r");
      if (before.empty() || before.back() == '\n') lf = i;
    }
  }
  Verdict v;
  const size_t too_big = input.size() > limit ? limit : npos;
  const size_t first = std::min({bad, lf, too_big});
  if (first == npos) return v;
  if (first == too_big) {
    v.error = net::ERR_RESPONSE_HEADERS_TOO_BIG;
  } else if (first == bad) {
    v.error = net::ERR_INVALID_HTTP_RESPONSE;
  } else {
    v.complete = true;
    v.end = lf + 1;
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  // A limit from the input's size, so that both sides of it are reached.
  const size_t limit = size < 4 ? 1024 : (size * 3) / 4 + data[0] % 8;

  const Verdict whole =
      Scan(input, limit, [&](int) { return input.size() + 1; });
  const size_t first = 1 + size % 7;
  const Verdict pieces = Scan(input, limit, [first](int i) {
    size_t p = first;
    for (int k = 0; k < i % 5; ++k) p = p * 3 % 11 + 1;
    return p;
  });
  const Verdict bytes = Scan(input, limit, [](int) { return size_t{1}; });
  Check(pieces == whole, "same verdict in pieces");
  Check(bytes == whole, "same verdict byte by byte");
  Check(Reference(input, limit) == whole, "the reference agrees");

  if (whole.complete) {
    // The same bytes again as a second block: they count against the same
    // limit, so it fails exactly when both do not fit.
    net::HttpHeaderScanner scanner(limit);
    Check(
        scanner.Scan(input.substr(0, whole.end)) == static_cast<int>(whole.end),
        "rescan");
    scanner.StartNextBlock();
    Check(!scanner.block_complete() && scanner.block_size() == 0,
          "a new block starts empty");
    int rv = scanner.Scan(input.substr(0, whole.end));
    if (2 * whole.end <= limit) {
      Check(rv == static_cast<int>(whole.end) && scanner.block_complete(),
            "the second block fits");
    } else {
      Check(rv == net::ERR_RESPONSE_HEADERS_TOO_BIG,
            "the second block crosses the limit");
    }

    auto headers = net::HttpResponseHeaders::Parse(input.substr(0, whole.end));
    if (headers.ok()) {
      for (const auto& [name, value] : headers->headers()) {
        Check(
            value.find_first_of(std::string("\r\n\0", 3)) == std::string::npos,
            "no CR, LF or NUL in a value");
      }
    }
  } else if (whole.error == 0) {
    // Incomplete: Parse must not accept it either.
    Check(!net::HttpResponseHeaders::Parse(input).ok(),
          "Parse wants the blank line");
  }
  return 0;
}
