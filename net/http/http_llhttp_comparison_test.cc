// Our HTTP/1.1 response parsing against llhttp's (Node.js's parser, built
// test-only from Debian's node-llhttp) on a table of tricky responses.
//
// Each response goes, whole and then followed by the end of the stream,
// through HttpStreamParser (headers, then the body to its end) and through
// llhttp_execute + llhttp_finish. A verdict is "accept" with the body, or
// "reject". The two must agree (same verdict, and the same body when both
// accept), except for the cases whose |difference| says why we differ on
// purpose: there they must still differ, so a difference that disappears
// (one parser changed) fails as loudly as a new one.
//
// What the harness does for llhttp that an embedder of it must do, so that
// the comparison is of parsing, not of embedding:
//  - 204 and 304 responses have no body (RFC 9112 6.3 rule 1): llhttp
//    leaves that to on_headers_complete returning 1, as for HEAD.
//  - Parsing stops after the first final (non-1xx) response: later bytes
//    belong to the next response on the connection, which we never read
//    (we close the connection instead of reusing it).
//  - A 101 response ends HTTP (HPE_PAUSED_UPGRADE is an accept).
// Our side also reads every response one byte per read, and must reach the
// same verdict and body that way.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "llhttp.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"
#include "net/base/test_completion_callback.h"
#include "net/http/http_stream_parser.h"
#include "net/socket/socket_test_util.h"

namespace net {
namespace {

struct Verdict {
  bool accept = false;
  std::string body;
  std::string why;  // the error, when rejected

  bool AgreesWith(const Verdict& other) const {
    return accept == other.accept && (!accept || body == other.body);
  }
  std::string ToString() const {
    return accept ? absl::StrCat("accept, body '", absl::CEscape(body), "'")
                  : absl::StrCat("reject (", why, ")");
  }
};

// ---- llhttp ----

struct LlhttpRun {
  std::string body;
  bool final_complete = false;
};

LlhttpRun* RunOf(llhttp_t* parser) {
  return static_cast<LlhttpRun*>(parser->data);
}

Verdict ParseWithLlhttp(const std::string& response) {
  llhttp_settings_t settings;
  llhttp_settings_init(&settings);
  settings.on_headers_complete = [](llhttp_t* p) -> int {
    RunOf(p)->body.clear();
    const int status = llhttp_get_status_code(p);
    return (status == 204 || status == 304) ? 1 : 0;
  };
  settings.on_body = [](llhttp_t* p, const char* at, size_t n) -> int {
    RunOf(p)->body.append(at, n);
    return 0;
  };
  settings.on_message_complete = [](llhttp_t* p) -> int {
    const int status = llhttp_get_status_code(p);
    if (status >= 100 && status < 200) return 0;  // interim: go on
    RunOf(p)->final_complete = true;
    return HPE_PAUSED;
  };
  llhttp_t parser;
  llhttp_init(&parser, HTTP_RESPONSE, &settings);
  LlhttpRun run;
  parser.data = &run;
  llhttp_errno_t err =
      llhttp_execute(&parser, response.data(), response.size());
  if (err == HPE_OK) err = llhttp_finish(&parser);
  Verdict v;
  if (err == HPE_PAUSED_UPGRADE) {
    v.accept = true;  // 101: HTTP ends with these headers
  } else if (err == HPE_PAUSED || err == HPE_OK) {
    v.accept = run.final_complete;
    if (!v.accept) v.why = "no final response";
  } else {
    v.why = absl::StrCat(llhttp_errno_name(err), ": ",
                         llhttp_get_error_reason(&parser));
  }
  if (v.accept) v.body = run.body;
  return v;
}

// ---- ours ----

Verdict ParseWithOurs(const std::string& response, bool one_byte_reads) {
  EventLoop loop;
  std::vector<MockRead> reads;
  if (one_byte_reads) {
    for (char c : response) reads.emplace_back(SYNC, std::string(1, c));
  } else {
    reads.emplace_back(SYNC, response);
  }
  reads.emplace_back(SYNC, 0);  // the end of the stream
  StaticSocketDataProvider data(reads, {});
  MockClientSocketFactory factory;
  factory.AddSocketDataProvider(&data);
  std::unique_ptr<StreamSocket> socket = factory.CreateTransportClientSocket(
      IPEndPoint(IPAddress::IPv4Localhost(), 80), absl::Seconds(1), {});
  TestCompletionCallback connect;
  EXPECT_EQ(OK, connect.GetResult(socket->Connect(connect.callback())));
  LoadTiming timing;
  HttpStreamParser parser(socket.get(), &timing);
  Verdict v;
  TestCompletionCallback headers;
  int rv = headers.GetResult(parser.ReadResponseHeaders(headers.callback()));
  auto buf = std::make_shared<IOBuffer>(4096);
  while (rv == OK && !parser.IsResponseBodyComplete()) {
    TestCompletionCallback body;
    rv = body.GetResult(parser.ReadResponseBody(buf, 4096, body.callback()));
    if (rv > 0) {
      v.body.append(buf->data(), rv);
      rv = OK;
    }
  }
  v.accept = rv == OK;
  if (!v.accept) {
    v.why = absl::StrCat(ErrorToShortString(rv), ": ", parser.error_detail());
    v.body.clear();
  }
  return v;
}

// ---- the table ----

enum Expect { kAccept, kReject };

struct Case {
  const char* name;
  std::string response;
  // Our verdict (the table doubles as a specification).
  Expect ours;
  // Empty when llhttp must agree; otherwise why we differ on purpose.
  const char* difference = "";
};

constexpr char kOk[] = "HTTP/1.1 200 OK\r\n";
constexpr char kChunked[] =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";

std::string Ok(absl::string_view rest) { return absl::StrCat(kOk, rest); }
std::string Chunked(absl::string_view rest) {
  return absl::StrCat(kChunked, rest);
}
std::string WithNul(absl::string_view before, absl::string_view after) {
  return absl::StrCat(before, std::string(1, '\0'), after);
}

// The deliberate differences, each with its reason.
constexpr char kBareLF[] =
    "RFC 9112 2.2 lets a recipient take a bare LF as a line end, as browsers "
    "do; we never take a CR alone as one, so no header hides behind it. "
    "llhttp 8 wants CRLF after a header value";
constexpr char kBareCR[] =
    "RFC 9112 2.2: a CR not followed by LF is invalid anywhere in the header "
    "block; llhttp 8 takes a bare CR as the end of the status line or of the "
    "blank line";
constexpr char kNulReason[] =
    "RFC 9110 5.5: NUL is invalid in any field or line; llhttp does not look "
    "inside the reason phrase";
constexpr char kOtherCtl[] =
    "RFC 9110 5.5 lets a recipient keep CTLs other than CR, LF and NUL in a "
    "value (Chromium does); only those three can change framing. llhttp 8 "
    "rejects them (0x01 and DEL here)";
constexpr char kEmptyName[] =
    "a field name is a token, one or more tchar (RFC 9110 5.1); llhttp "
    "accepts an empty one";
constexpr char kLeadingCRLF[] =
    "RFC 9112 2.2's leniency for empty lines before the start line is for "
    "servers reading requests; before a response they may be the tail of "
    "the previous one, so we refuse them; llhttp skips them";
constexpr char kHeaderLimit[] =
    "our limit, HttpStreamParser::kMaxHeaderBytes (256 KB, interim responses "
    "included); llhttp leaves limits to its embedder";
constexpr char kVersion[] =
    "only HTTP/1.0 and HTTP/1.1 status lines begin an HTTP/1.x response we "
    "can frame; llhttp accepts others (2.0 and 0.9 here)";
constexpr char kStatusDigits[] =
    "status-code = 3DIGIT (RFC 9112 4), and codes below 100 do not exist "
    "(RFC 9110 15); llhttp accepts \"20\" and \"099\"";
constexpr char kRepeatedLength[] =
    "RFC 9110 8.6 lets a recipient take repeated identical Content-Length "
    "values (several lines or a list) as one, as Chromium does; llhttp "
    "refuses any repetition";
constexpr char kLengthAndChunked[] =
    "RFC 9112 6.3 rule 3: Transfer-Encoding overrides Content-Length; we "
    "follow the chunked framing and then close the connection (6.1), as "
    "Chromium does; llhttp refuses the response";
constexpr char kChunkedTwice[] =
    "RFC 9112 7: a sender MUST NOT apply chunked more than once, so "
    "\"chunked, chunked\" is not a framing we can trust; llhttp decodes it "
    "as chunked once";
constexpr char kTrailerName[] =
    "a trailer field name is a token like a header's (RFC 9112 7.1.2, RFC "
    "9110 5.1); llhttp 8 accepts a space inside one";
constexpr char kLastLineLF[] =
    "every line of the chunked framing ends in CRLF (RFC 9112 7.1), the last "
    "one too; llhttp 8 accepts a bare LF there";
constexpr char kChunkBWS[] =
    "RFC 9112 7.1.1 allows BWS before a chunk extension's ';'; llhttp 8 "
    "does not";

std::vector<Case> Cases() {
  return {
      // The baseline.
      {"content_length", Ok("Content-Length: 2\r\n\r\nok"), kAccept},
      {"chunked", Chunked("2\r\nok\r\n0\r\n\r\n"), kAccept},
      {"read_until_close", Ok("\r\nuntil close"), kAccept},
      {"http10", "HTTP/1.0 200 OK\r\n\r\nhello", kAccept},
      {"http10_content_length",
       "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", kAccept},

      // Line ends, CR and LF.
      {"bare_lf_line_ends", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", kAccept,
       kBareLF},
      {"bare_lf_after_status_line",
       "HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\nok", kAccept},
      {"bare_lf_blank_line", Ok("Content-Length: 2\r\n\nok"), kAccept},
      {"bare_cr_in_value", Ok("X: a\rb\r\nContent-Length: 2\r\n\r\nok"),
       kReject},
      {"bare_cr_ends_header", Ok("X: a\rContent-Length: 2\r\n\r\nok"), kReject},
      {"cr_cr_lf", Ok("X: a\r\r\nContent-Length: 2\r\n\r\nok"), kReject},
      {"bare_cr_ends_status_line",
       "HTTP/1.1 200 OK\rContent-Length: 2\r\n\r\nok", kReject, kBareCR},
      {"bare_cr_blank_line", Ok("Content-Length: 2\r\n\r\rok"), kReject,
       kBareCR},

      // NUL and other control characters.
      {"nul_in_value", WithNul(Ok("X: a"), "b\r\nContent-Length: 2\r\n\r\nok"),
       kReject},
      {"nul_in_name", WithNul(Ok("X"), "Y: b\r\nContent-Length: 2\r\n\r\nok"),
       kReject},
      {"nul_in_reason",
       WithNul("HTTP/1.1 200 O", "K\r\nContent-Length: 2\r\n\r\nok"), kReject,
       kNulReason},
      {"ctl_in_value", Ok("X: a\x01z\r\nContent-Length: 2\r\n\r\nok"), kAccept,
       kOtherCtl},
      {"del_in_value", Ok("X: a\x7fz\r\nContent-Length: 2\r\n\r\nok"), kAccept,
       kOtherCtl},
      {"obs_text_in_value", Ok("X: caf\xe9\r\nContent-Length: 2\r\n\r\nok"),
       kAccept},
      {"htab_in_value", Ok("X: a\tb\r\nContent-Length: 2\r\n\r\nok"), kAccept},

      // obs-fold (RFC 9112 5.2: a user agent replaces it with SP).
      {"obs_fold", Ok("X: a\r\n b\r\nContent-Length: 2\r\n\r\nok"), kAccept},
      {"obs_fold_htab", Ok("X: a\r\n\tb\r\nContent-Length: 2\r\n\r\nok"),
       kAccept},
      {"obs_fold_content_length", Ok("Content-Length:\r\n 2\r\n\r\nok"),
       kAccept},
      {"whitespace_before_first_header",
       Ok(" X: a\r\nContent-Length: 2\r\n\r\nok"), kReject},

      // Field names.
      {"space_before_colon", Ok("Content-Length : 2\r\n\r\nok"), kReject},
      {"header_without_colon", Ok("foo\r\nContent-Length: 2\r\n\r\nok"),
       kReject},
      {"empty_header_name", Ok(": b\r\nContent-Length: 2\r\n\r\nok"), kReject,
       kEmptyName},
      {"bad_char_in_name", Ok("X(y): b\r\nContent-Length: 2\r\n\r\nok"),
       kReject},
      {"empty_value", Ok("X:\r\nContent-Length: 2\r\n\r\nok"), kAccept},

      // Status lines.
      {"http11_no_reason", "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok",
       kAccept},
      {"http11_empty_reason", "HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok",
       kAccept},
      {"http12", "HTTP/1.2 200 OK\r\n\r\nhello", kReject},
      {"http20", "HTTP/2.0 200 OK\r\n\r\nhello", kReject, kVersion},
      {"http09_style", "HTTP/0.9 200 OK\r\n\r\nhello", kReject, kVersion},
      {"lower_case_http", "http/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
       kReject},
      {"icy", "ICY 200 OK\r\n\r\nhello", kReject},
      {"status_two_digits", "HTTP/1.1 20 OK\r\n\r\nhello", kReject,
       kStatusDigits},
      {"status_four_digits", "HTTP/1.1 2000 OK\r\n\r\nhello", kReject},
      {"status_099", "HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n", kReject,
       kStatusDigits},
      {"status_not_digits", "HTTP/1.1 2x0 OK\r\n\r\nhello", kReject},
      {"leading_crlf", "\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
       kReject, kLeadingCRLF},
      {"headers_over_the_limit",
       Ok(absl::StrCat("X: ", std::string(300 * 1024, 'v'),
                       "\r\nContent-Length: 2\r\n\r\nok")),
       kReject, kHeaderLimit},

      // Interim and body-less responses.
      {"interim_100_then_200",
       "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: "
       "2\r\n\r\nok",
       kAccept},
      {"early_hints_then_200",
       "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 "
       "Continue\r\n\r\n" +
           Ok("Content-Length: 2\r\n\r\nok"),
       kAccept},
      {"interim_then_eof", "HTTP/1.1 100 Continue\r\n\r\n", kReject},
      {"switching_protocols_101",
       "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: "
       "Upgrade\r\n\r\n\x81\x05hello",
       kAccept},
      {"no_content_204_with_length",
       "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", kAccept},
      {"not_modified_304_chunked",
       "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
       kAccept},
      {"headers_then_eof", Ok("Content-Length: 2\r\n"), kReject},
      {"empty_response", "", kReject},

      // Content-Length.
      {"length_repeated_same",
       Ok("Content-Length: 2\r\nContent-Length: 2\r\n\r\nok"), kAccept,
       kRepeatedLength},
      {"length_list_same", Ok("Content-Length: 2, 2\r\n\r\nok"), kAccept,
       kRepeatedLength},
      {"length_repeated_different",
       Ok("Content-Length: 2\r\nContent-Length: 3\r\n\r\nok"), kReject},
      {"length_list_different", Ok("Content-Length: 2, 3\r\n\r\nok"), kReject},
      {"length_negative", Ok("Content-Length: -1\r\n\r\nok"), kReject},
      {"length_plus", Ok("Content-Length: +2\r\n\r\nok"), kReject},
      {"length_hex", Ok("Content-Length: 0x2\r\n\r\nok"), kReject},
      {"length_overflow", Ok("Content-Length: 99999999999999999999\r\n\r\nok"),
       kReject},
      {"length_inner_space", Ok("Content-Length: 1 2\r\n\r\nok"), kReject},
      {"length_trailing_space", Ok("Content-Length: 2 \r\n\r\nok"), kAccept},
      {"length_leading_zeros", Ok("Content-Length: 002\r\n\r\nok"), kAccept},
      {"length_empty", Ok("Content-Length:\r\n\r\nok"), kReject},
      {"length_short_body", Ok("Content-Length: 5\r\n\r\nok"), kReject},
      {"length_then_more_bytes", Ok("Content-Length: 2\r\n\r\nokEXTRA"),
       kAccept},

      // Transfer-Encoding.
      {"length_then_chunked",
       Ok("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0"
          "\r\n\r\n"),
       kAccept, kLengthAndChunked},
      {"chunked_then_length",
       Ok("Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\nok\r\n0"
          "\r\n\r\n"),
       kAccept, kLengthAndChunked},
      {"chunked_twice",
       Ok("Transfer-Encoding: chunked, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
       kReject, kChunkedTwice},
      {"chunked_upper_case",
       Ok("Transfer-Encoding: CHUNKED\r\n\r\n2\r\nok\r\n0\r\n\r\n"), kAccept},
      {"gzip_then_chunked",
       Ok("Transfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
       kAccept},
      {"gzip_until_close", Ok("Transfer-Encoding: gzip\r\n\r\nraw"), kAccept},
      {"chunked_not_last", Ok("Transfer-Encoding: chunked, gzip\r\n\r\nraw"),
       kAccept},
      {"chunked_on_two_lines",
       Ok("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok"
          "\r\n0\r\n\r\n"),
       kAccept},
      {"transfer_encoding_space_before_colon",
       Ok("Transfer-Encoding : chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"), kReject},
      {"http10_chunked",
       "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r"
       "\n",
       kAccept},

      // Chunked framing.
      {"chunk_size_bare_lf", Chunked("2\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_data_bare_lf", Chunked("2\r\nok\n0\r\n\r\n"), kReject},
      {"last_chunk_bare_lf", Chunked("2\r\nok\r\n0\n\r\n"), kReject},
      {"final_line_bare_lf", Chunked("2\r\nok\r\n0\r\n\n"), kReject,
       kLastLineLF},
      {"trailer_bare_lf", Chunked("2\r\nok\r\n0\r\nX-T: y\n\r\n"), kReject},
      {"chunk_size_bare_cr", Chunked("2\rX\r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_extension", Chunked("2;a=b\r\nok\r\n0\r\n\r\n"), kAccept},
      {"chunk_extension_no_value", Chunked("2;a\r\nok\r\n0;z\r\n\r\n"),
       kAccept},
      {"chunk_extension_quoted", Chunked("2;a=\"b c\"\r\nok\r\n0\r\n\r\n"),
       kAccept},
      {"chunk_extension_junk", Chunked("2;a b\r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_extension_no_name", Chunked("2;\r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_extension_after_bws", Chunked("2 ;a\r\nok\r\n0\r\n\r\n"), kAccept,
       kChunkBWS},
      {"chunk_size_trailing_space", Chunked("2 \r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_size_not_hex", Chunked("zz\r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_size_negative", Chunked("-2\r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_size_0x", Chunked("0x2\r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_size_empty", Chunked("\r\nok\r\n0\r\n\r\n"), kReject},
      {"chunk_size_leading_zeros", Chunked("0002\r\nok\r\n0\r\n\r\n"), kAccept},
      {"chunk_size_upper_hex", Chunked("A\r\n0123456789\r\n0\r\n\r\n"),
       kAccept},
      // Both refuse, for different reasons: ours bounds a chunk at 2^40
      // bytes; llhttp overflows past 2^64 or waits for bytes that never come.
      {"chunk_size_overflow", Chunked("ffffffffffffffffff\r\nok\r\n0\r\n\r\n"),
       kReject},
      {"chunk_size_over_our_bound", Chunked("10000000001\r\nabc"), kReject},
      {"chunk_data_too_long", Chunked("2\r\nokk\r\n0\r\n\r\n"), kReject},
      {"chunked_truncated", Chunked("2\r\nok\r\n"), kReject},
      {"chunked_no_final_crlf", Chunked("2\r\nok\r\n0\r\n"), kReject},
      {"trailer", Chunked("2\r\nok\r\n0\r\nX-T: y\r\n\r\n"), kAccept},
      {"trailer_without_colon", Chunked("2\r\nok\r\n0\r\nXT\r\n\r\n"), kReject},
      {"trailer_bad_name", Chunked("2\r\nok\r\n0\r\nX T: y\r\n\r\n"), kReject,
       kTrailerName},
      {"chunked_then_more_bytes", Chunked("2\r\nok\r\n0\r\n\r\nEXTRA"),
       kAccept},
  };
}

TEST(HttpLlhttpComparisonTest, VerdictsAgreeExceptDeliberately) {
  const std::vector<Case> cases = Cases();
  int differences = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Verdict ours = ParseWithOurs(c.response, /*one_byte_reads=*/false);
    const Verdict theirs = ParseWithLlhttp(c.response);
    EXPECT_EQ(ours.accept, c.ours == kAccept) << "ours: " << ours.ToString();
    // Cut into one-byte reads, the same verdict and body.
    const Verdict bytewise = ParseWithOurs(c.response, /*one_byte_reads=*/true);
    EXPECT_TRUE(bytewise.AgreesWith(ours))
        << "whole: " << ours.ToString()
        << "\none byte per read: " << bytewise.ToString();
    const bool listed = c.difference[0] != '\0';
    if (listed) ++differences;
    if (!listed) {
      EXPECT_TRUE(ours.AgreesWith(theirs))
          << "an unlisted difference\n  ours:   " << ours.ToString()
          << "\n  llhttp: " << theirs.ToString();
    } else {
      EXPECT_FALSE(ours.AgreesWith(theirs))
          << "a listed difference is gone (" << c.difference
          << ")\n  ours:   " << ours.ToString()
          << "\n  llhttp: " << theirs.ToString();
    }
  }
  std::printf("%zu responses, %d deliberate differences (llhttp %d.%d.%d)\n",
              cases.size(), differences, LLHTTP_VERSION_MAJOR,
              LLHTTP_VERSION_MINOR, LLHTTP_VERSION_PATCH);
}

// The table's names are unique (a failure names its case).
TEST(HttpLlhttpComparisonTest, CaseNamesAreUnique) {
  std::vector<std::string> names;
  for (const Case& c : Cases()) names.push_back(c.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

}  // namespace
}  // namespace net
