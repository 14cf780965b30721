// HttpBasicStream over scripted sockets: the exact HTTP/1.1 bytes it writes
// (defaults, extra headers, the cookie, a body), the response it reads, and
// whether it hands its connection back for reuse.

#include "net/http/http_basic_stream.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/socket/socket_test_util.h"

namespace net {
namespace {

class HttpBasicStreamTest : public ::testing::Test {
 protected:
  // A connected scripted socket over |data|.
  std::unique_ptr<StreamSocket> Connect(StaticSocketDataProvider* data) {
    factory_.AddSocketDataProvider(data);
    std::unique_ptr<StreamSocket> socket = factory_.CreateTransportClientSocket(
        IPEndPoint(IPAddress::IPv4Localhost(), 80), absl::Seconds(1), {});
    TestCompletionCallback cb;
    EXPECT_EQ(OK, cb.GetResult(socket->Connect(cb.callback())));
    return socket;
  }

  std::string ReadBody(HttpStream* stream) {
    std::string body;
    auto buf = std::make_shared<IOBuffer>(5);
    for (;;) {
      TestCompletionCallback cb;
      int rv = cb.GetResult(stream->ReadResponseBody(buf, 5, cb.callback()));
      EXPECT_GE(rv, 0);
      if (rv <= 0) return body;
      body.append(buf->data(), rv);
      if (stream->IsResponseBodyComplete()) return body;
    }
  }

  EventLoop loop_;
  MockClientSocketFactory factory_;
  LoadTiming timing_;
};

TEST_F(HttpBasicStreamTest, WritesTheRequestAndReadsAKeepAliveResponse) {
  HttpRequestInfo request;
  request.url = *Url::Parse("http://www.example.test/a?b=c");
  request.method = "POST";
  request.extra_headers = {{"X-Test", "1"}, {"Cookie", "k=v"}};
  request.upload_body = "body!";
  MockWrite writes[] = {
      MockWrite(ASYNC,
                "POST /a?b=c HTTP/1.1\r\nHost: www.example.test\r\n"
                "User-Agent: netstack-fetch/0.1\r\nAccept: */*\r\n"
                "Connection: keep-alive\r\nX-Test: 1\r\nCookie: k=v\r\n"
                "Content-Length: 5\r\n\r\nbody!")};
  MockRead reads[] = {
      MockRead(ASYNC, "HTTP/1.1 201 Created\r\nContent-Length: 12\r\n\r\n"),
      MockRead(ASYNC, "hello, world")};
  StaticSocketDataProvider data(reads, writes);
  HttpBasicStream stream(Connect(&data), &timing_,
                         DefaultTickClock::GetInstance());

  TestCompletionCallback cb;
  EXPECT_EQ(OK, stream.InitializeStream(&request, cb.callback()));
  EXPECT_EQ(OK, cb.GetResult(stream.SendRequest(cb.callback())));
  const std::vector<std::pair<std::string, std::string>> sent = {
      {"Host", "www.example.test"},
      {"User-Agent", "netstack-fetch/0.1"},
      {"Accept", "*/*"},
      {"Connection", "keep-alive"},
      {"X-Test", "1"},
      {"Cookie", "k=v"},
      {"Content-Length", "5"}};
  EXPECT_EQ(stream.request_headers_sent(), sent);
  EXPECT_EQ(nullptr, stream.response_headers());
  EXPECT_EQ(OK, cb.GetResult(stream.ReadResponseHeaders(cb.callback())));
  ASSERT_TRUE(stream.response_headers());
  EXPECT_EQ(201, stream.response_headers()->status_code());
  EXPECT_FALSE(timing_.request_start.is_null());
  EXPECT_FALSE(timing_.response_start.is_null());
  EXPECT_EQ("hello, world", ReadBody(&stream));
  EXPECT_TRUE(stream.IsResponseBodyComplete());
  EXPECT_EQ(nullptr, stream.GetSSLInfo());  // plain TCP

  bool reusable = false;
  std::unique_ptr<StreamSocket> socket = stream.ReleaseConnection(&reusable);
  EXPECT_TRUE(socket);
  EXPECT_TRUE(reusable);
  EXPECT_TRUE(data.AllReadDataConsumed());
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty());
}

TEST_F(HttpBasicStreamTest, ConnectionCloseIsNotReusable) {
  HttpRequestInfo request;
  request.url = *Url::Parse("http://www.example.test/");
  request.extra_headers = {{"Host", "other.test"}, {"Connection", "close"}};
  MockWrite writes[] = {
      MockWrite(SYNC,
                "GET / HTTP/1.1\r\nUser-Agent: netstack-fetch/0.1\r\n"
                "Accept: */*\r\nHost: other.test\r\n"
                "Connection: close\r\n\r\n")};
  MockRead reads[] = {MockRead(SYNC,
                               "HTTP/1.1 200 OK\r\nConnection: close\r\n"
                               "Content-Length: 2\r\n\r\nok")};
  StaticSocketDataProvider data(reads, writes);
  HttpBasicStream stream(Connect(&data), &timing_,
                         DefaultTickClock::GetInstance());
  TestCompletionCallback cb;
  EXPECT_EQ(OK, stream.InitializeStream(&request, cb.callback()));
  EXPECT_EQ(OK, cb.GetResult(stream.SendRequest(cb.callback())));
  EXPECT_EQ(OK, cb.GetResult(stream.ReadResponseHeaders(cb.callback())));
  EXPECT_EQ("ok", ReadBody(&stream));
  bool reusable = true;
  EXPECT_TRUE(stream.ReleaseConnection(&reusable));
  EXPECT_FALSE(reusable);
  EXPECT_TRUE(data.write_mismatches().empty());
}

TEST_F(HttpBasicStreamTest, SendFailureIsSaidAndHeaderFailureIsTheParsers) {
  HttpRequestInfo request;
  request.url = *Url::Parse("http://www.example.test/");
  MockWrite writes[] = {MockWrite(ASYNC, ERR_CONNECTION_RESET)};
  StaticSocketDataProvider data({}, writes);
  HttpBasicStream stream(Connect(&data), &timing_,
                         DefaultTickClock::GetInstance());
  TestCompletionCallback cb;
  EXPECT_EQ(OK, stream.InitializeStream(&request, cb.callback()));
  EXPECT_EQ(ERR_CONNECTION_RESET,
            cb.GetResult(stream.SendRequest(cb.callback())));
  EXPECT_EQ("sending the request failed", stream.error_detail());

  MockWrite ok_writes[] = {
      MockWrite(SYNC,
                "GET / HTTP/1.1\r\nHost: www.example.test\r\n"
                "User-Agent: netstack-fetch/0.1\r\nAccept: */*\r\n"
                "Connection: keep-alive\r\n\r\n")};
  MockRead garbage[] = {MockRead(SYNC, "SPDY/9 nope\r\n\r\n")};
  StaticSocketDataProvider data2(garbage, ok_writes);
  HttpBasicStream stream2(Connect(&data2), &timing_,
                          DefaultTickClock::GetInstance());
  EXPECT_EQ(OK, stream2.InitializeStream(&request, cb.callback()));
  EXPECT_EQ(OK, cb.GetResult(stream2.SendRequest(cb.callback())));
  int rv = cb.GetResult(stream2.ReadResponseHeaders(cb.callback()));
  EXPECT_LT(rv, 0);
  EXPECT_FALSE(stream2.error_detail().empty());
  EXPECT_NE("sending the request failed", stream2.error_detail());
}

}  // namespace
}  // namespace net
