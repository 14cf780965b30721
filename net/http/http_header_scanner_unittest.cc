#include "net/http/http_header_scanner.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

using std::string_literals::operator""s;

struct Result {
  int error = OK;
  bool complete = false;
  size_t consumed = 0;
};

// Feeds |input| to |scanner| in pieces of |piece| bytes until the block
// ends or fails.
Result ScanInPieces(HttpHeaderScanner& scanner, absl::string_view input,
                    size_t piece) {
  Result r;
  for (size_t i = 0; i < input.size() && !scanner.block_complete();
       i += piece) {
    int rv = scanner.Scan(input.substr(i, piece));
    if (rv < 0) {
      r.error = rv;
      break;
    }
    r.consumed += rv;
  }
  r.complete = scanner.block_complete();
  return r;
}

Result ScanInPieces(absl::string_view input, size_t piece,
                    size_t limit = 1 << 20) {
  HttpHeaderScanner scanner(limit);
  return ScanInPieces(scanner, input, piece);
}

TEST(HttpHeaderScannerTest, FindsTheBlankLine) {
  struct Case {
    const char* input;
    size_t end;  // 0: incomplete
  } cases[] = {
      {"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", 25},
      {"HTTP/1.1 200 OK\nA: b\n\nbody", 22},
      {"HTTP/1.1 200 OK\r\nA: b\n\r\nbody", 24},
      {"HTTP/1.1 200 OK\nA: b\r\n\nbody", 23},
      {"HTTP/1.1 200 OK\r\n\r\n", 19},
      {"HTTP/1.1 200 OK\r\nA: b\r\n", 0},
      {"HTTP/1.1 200 OK\r\nA: b\r\n\r", 0},
      {"\r\n", 2},
  };
  for (const Case& c : cases) {
    for (size_t piece : {1u, 2u, 3u, 5u, 64u}) {
      SCOPED_TRACE(
          absl::StrCat(absl::CEscape(c.input), " in pieces of ", piece));
      Result r = ScanInPieces(c.input, piece);
      EXPECT_EQ(r.error, OK);
      EXPECT_EQ(r.complete, c.end != 0);
      if (c.end) EXPECT_EQ(r.consumed, c.end);
    }
  }
}

TEST(HttpHeaderScannerTest, ConsumesNothingAfterTheBlock) {
  HttpHeaderScanner scanner(1024);
  EXPECT_EQ(scanner.Scan("HTTP/1.1 200 OK\r\n\r\nbody"), 19);
  EXPECT_TRUE(scanner.block_complete());
  EXPECT_EQ(scanner.block_size(), 19u);
  EXPECT_EQ(scanner.Scan("more"), 0);
  EXPECT_EQ(scanner.bytes_examined(), 19u);
}

// RFC 9112 2.2 / RFC 9110 5.5: a CR not followed by LF, and NUL, are
// errors wherever they are in the block, and whatever the cut.
TEST(HttpHeaderScannerTest, BareCRAndNULAreErrors) {
  const std::string bad[] = {
      "HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n",
      "HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n",
      "HTTP/1.1 200 OK\rA: b\r\n\r\n",
      "HTTP/1.1 200 OK\r\nA: b\r\n\r\r\n",
      "HTTP/1.1 200 OK\r\n\r \r\n",
      "HTTP/1.1 200 OK\r\nA: b\0c\r\n\r\n"s,
      "HTTP/1.1 200 OK\r\nA\0: b\r\n\r\n"s,
      "HTTP/1.1 200\0OK\r\n\r\n"s,
      "\0"s,
  };
  for (const std::string& input : bad) {
    for (size_t piece : {1u, 2u, 7u, 64u}) {
      SCOPED_TRACE(absl::StrCat(absl::CEscape(input), " in pieces of ", piece));
      HttpHeaderScanner scanner(1024);
      Result r = ScanInPieces(scanner, input, piece);
      EXPECT_EQ(r.error, ERR_INVALID_HTTP_RESPONSE);
      EXPECT_FALSE(r.complete);
      EXPECT_NE(std::string(scanner.error_detail()), "");
      // A failed scanner stays failed.
      EXPECT_EQ(scanner.Scan("\r\n\r\n"), ERR_INVALID_HTTP_RESPONSE);
    }
  }
  // A CR as the last byte so far waits for the next.
  HttpHeaderScanner scanner(1024);
  EXPECT_EQ(scanner.Scan("HTTP/1.1 200 OK\r"), 16);
  EXPECT_EQ(scanner.Scan("X"), ERR_INVALID_HTTP_RESPONSE);
  EXPECT_EQ(std::string(scanner.error_detail()), "bare CR");
  // Bytes after the block are not the scanner's business.
  EXPECT_EQ(ScanInPieces("HTTP/1.1 200 OK\r\n\r\n\0\r"s, 1).consumed, 19u);
}

// The limit: a block of exactly |limit| bytes is fine; one more byte fails
// at that byte, however the bytes are cut.
TEST(HttpHeaderScannerTest, LimitHoldsAtTheFirstByteBeyond) {
  const std::string block = "HTTP/1.1 200 OK\r\nA: bcdef\r\n\r\n";
  for (size_t piece : {1u, 4u, 100u}) {
    SCOPED_TRACE(piece);
    Result fits = ScanInPieces(block, piece, block.size());
    EXPECT_TRUE(fits.complete);
    EXPECT_EQ(fits.consumed, block.size());
    HttpHeaderScanner scanner(block.size() - 1);
    Result over = ScanInPieces(scanner, block, piece);
    EXPECT_EQ(over.error, ERR_RESPONSE_HEADERS_TOO_BIG);
    EXPECT_EQ(scanner.total_bytes(), block.size() - 1);
    EXPECT_EQ(scanner.bytes_examined(), block.size());
  }
}

// Interim blocks and the final one count against one limit.
TEST(HttpHeaderScannerTest, BlocksShareTheLimit) {
  const std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
  HttpHeaderScanner scanner(2 * interim.size() + 5);
  EXPECT_EQ(scanner.Scan(interim), static_cast<int>(interim.size()));
  scanner.StartNextBlock();
  EXPECT_FALSE(scanner.block_complete());
  EXPECT_EQ(scanner.block_size(), 0u);
  EXPECT_EQ(scanner.Scan(interim + "HTTP"), static_cast<int>(interim.size()));
  scanner.StartNextBlock();
  EXPECT_EQ(scanner.Scan(interim), ERR_RESPONSE_HEADERS_TOO_BIG);
  EXPECT_EQ(scanner.total_bytes(), 2 * interim.size() + 5);
}

// One byte at a time, a 200 KB block is examined once: bytes_examined is
// the block's size, not the ~n^2/2 of a rescan per read.
TEST(HttpHeaderScannerTest, OneByteAtATimeIsLinear) {
  std::string block = "HTTP/1.1 200 OK\r\n";
  while (block.size() < 200 * 1024)
    block += "X-Filler: " + std::string(100, 'v') + "\r\n";
  block += "\r\n";
  HttpHeaderScanner scanner(256 * 1024);
  for (char c : block) {
    ASSERT_EQ(scanner.Scan(absl::string_view(&c, 1)), 1);
  }
  EXPECT_TRUE(scanner.block_complete());
  EXPECT_EQ(scanner.bytes_examined(), block.size());
}

}  // namespace
}  // namespace net
