#include "net/http/http_response_headers.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

using std::string_literals::operator""s;

TEST(HttpResponseHeadersTest, ParsesStatusAndHeaders) {
  auto h = HttpResponseHeaders::Parse(
      "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nX-A:  spaced  \r\n\r\n");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->status_code(), 200);
  EXPECT_EQ(h->reason(), "OK");
  EXPECT_EQ(h->content_length(), 12);
  EXPECT_EQ(h->GetHeader("x-a"), "spaced");
  EXPECT_TRUE(h->IsKeepAlive());
  EXPECT_FALSE(h->IsChunked());
}

TEST(HttpResponseHeadersTest, KeepAliveRules) {
  EXPECT_FALSE(
      HttpResponseHeaders::Parse("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
          ->IsKeepAlive());
  EXPECT_FALSE(
      HttpResponseHeaders::Parse("HTTP/1.0 200 OK\r\n\r\n")->IsKeepAlive());
  EXPECT_TRUE(HttpResponseHeaders::Parse(
                  "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\n\r\n")
                  ->IsKeepAlive());
}

TEST(HttpResponseHeadersTest, ChunkedOverridesContentLength) {
  auto h = HttpResponseHeaders::Parse(
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: "
      "chunked\r\n\r\n");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->IsChunked());
  EXPECT_EQ(h->content_length(), -1);
}

TEST(HttpResponseHeadersTest, RejectsMalformed) {
  for (const char* bad : {
           "",
           "HTTP/2 200 OK\r\n\r\n",
           "ICY 200 OK\r\n\r\n",
           "HTTP/1.1 2x0 OK\r\n\r\n",
           "HTTP/1.1 099 Low\r\n\r\n",
           "HTTP/1.1 200OK\r\n\r\n",
           "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
           "HTTP/1.1 200 OK\r\n folded\r\nA: b\r\n\r\n",
           "HTTP/1.1 200 OK\r\nA: b\r\n",
           "HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody",
           "HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n",
           "HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n",
           "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
       }) {
    EXPECT_FALSE(HttpResponseHeaders::Parse(bad).ok()) << bad;
  }
  const std::string nul = "HTTP/1.1 200 OK\r\nA: b\0c\r\n\r\n"s;
  EXPECT_FALSE(HttpResponseHeaders::Parse(nul).ok());
}

// RFC 9112 5.2: a user agent replaces each obs-fold with SP; the value is
// the joined lines, trimmed. Bare LF line ends are accepted (RFC 9112 2.2).
TEST(HttpResponseHeadersTest, ObsFoldAndBareLF) {
  auto h = HttpResponseHeaders::Parse(
      "HTTP/1.1 200 OK\r\nA: one\r\n two\r\n\tthree \r\nB:\r\n   "
      "\r\n b\r\nC: c\r\n \r\nContent-Length:\r\n 7\n\r\n");
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->headers().size(), 4u);
  EXPECT_EQ(h->GetHeader("a"), "one two three");
  EXPECT_EQ(h->GetHeader("b"), "b");
  EXPECT_EQ(h->GetHeader("c"), "c");
  EXPECT_EQ(h->content_length(), 7);
}

// RFC 9112 6.3: identical Content-Length values (on several lines or in
// one list) are one length; different ones, or one that is not a decimal
// number fitting in int64, are named errors.
TEST(HttpResponseHeadersTest, ContentLengthValues) {
  struct Case {
    const char* headers;
    int expected_error;
    int64_t length;
  } cases[] = {
      {"Content-Length: 10\r\n", OK, 10},
      {"Content-Length: 10\r\nContent-Length: 10\r\n", OK, 10},
      {"Content-Length: 10, 10\r\n", OK, 10},
      {"Content-Length: 10,10 , 10\r\n", OK, 10},
      {"Content-Length: 9223372036854775807\r\n", OK, INT64_MAX},
      {"Content-Length: 10\r\nContent-Length: 11\r\n",
       ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH, 0},
      {"Content-Length: 10, 11\r\n",
       ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH, 0},
      {"Content-Length: 9223372036854775808\r\n", ERR_INVALID_CONTENT_LENGTH,
       0},
      {"Content-Length: 99999999999999999999\r\n", ERR_INVALID_CONTENT_LENGTH,
       0},
      {"Content-Length: 1x\r\n", ERR_INVALID_CONTENT_LENGTH, 0},
      {"Content-Length: -1\r\n", ERR_INVALID_CONTENT_LENGTH, 0},
      {"Content-Length: +1\r\n", ERR_INVALID_CONTENT_LENGTH, 0},
      {"Content-Length: 0x10\r\n", ERR_INVALID_CONTENT_LENGTH, 0},
      {"Content-Length:\r\n", ERR_INVALID_CONTENT_LENGTH, 0},
      {"Content-Length: 10,\r\n", ERR_INVALID_CONTENT_LENGTH, 0},
      {"Content-Length: 1 0\r\n", ERR_INVALID_CONTENT_LENGTH, 0},
      // Transfer-Encoding makes Content-Length irrelevant (RFC 9112 6.3
      // rule 3), even a broken one.
      {"Transfer-Encoding: chunked\r\nContent-Length: x\r\n", OK, -1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.headers);
    auto h = HttpResponseHeaders::Parse(
        absl::StrCat("HTTP/1.1 200 OK\r\n", c.headers, "\r\n"));
    if (c.expected_error == OK) {
      ASSERT_TRUE(h.ok()) << h.status();
      EXPECT_EQ(h->content_length(), c.length);
    } else {
      ASSERT_FALSE(h.ok());
      EXPECT_EQ(HttpResponseHeaders::NetErrorForParseFailure(h.status()),
                c.expected_error)
          << h.status();
    }
  }
  auto bad = HttpResponseHeaders::Parse("HTTP/1.1 abc\r\n\r\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(HttpResponseHeaders::NetErrorForParseFailure(bad.status()),
            ERR_INVALID_HTTP_RESPONSE);
}

// Transfer-Encoding lines combine into one list; chunked counts only as the
// last coding (otherwise the body runs until the connection closes).
TEST(HttpResponseHeadersTest, TransferCodings) {
  struct Case {
    const char* headers;
    bool chunked;
    bool length_too;
  } cases[] = {
      {"Transfer-Encoding: chunked\r\n", true, false},
      {"Transfer-Encoding: gzip\r\n", false, false},
      {"Transfer-Encoding: gzip, chunked\r\n", true, false},
      {"Transfer-Encoding: chunked, gzip\r\n", false, false},
      {"Transfer-Encoding: gzip\r\nTransfer-Encoding: CHUNKED\r\n", true,
       false},
      {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", true, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.headers);
    auto h = HttpResponseHeaders::Parse(
        absl::StrCat("HTTP/1.1 200 OK\r\n", c.headers, "\r\n"));
    ASSERT_TRUE(h.ok()) << h.status();
    EXPECT_TRUE(h->HasTransferEncoding());
    EXPECT_EQ(h->IsChunked(), c.chunked);
    EXPECT_EQ(h->content_length(), -1);
    EXPECT_EQ(h->HasTransferEncodingAndContentLength(), c.length_too);
  }
}

}  // namespace
}  // namespace net
