#include "net/http/http_response_headers.h"

#include "gtest/gtest.h"

namespace net {
namespace {

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
           "HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n",
           "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
       }) {
    EXPECT_FALSE(HttpResponseHeaders::Parse(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace net
