// HttpStreamParser over scripted sockets, on reading the header block: one
// byte per read costs linear time (the scanner examines every byte once,
// counted), the size limit (interim responses included) fails at the first
// byte past it, bare CR and NUL are named errors, and bytes after the
// headers are the body.

#include "net/http/http_stream_parser.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"
#include "net/base/test_completion_callback.h"
#include "net/socket/socket_test_util.h"

namespace net {
namespace {

using std::string_literals::operator""s;

// One synchronous read step per byte of |bytes|.
std::vector<MockRead> OneBytePerRead(absl::string_view bytes) {
  std::vector<MockRead> reads;
  reads.reserve(bytes.size());
  for (char c : bytes) reads.emplace_back(SYNC, std::string(1, c));
  return reads;
}

// A header block of at least |size| bytes: a status line, filler headers,
// Content-Length: 2 and the blank line.
std::string BigHeaderBlock(size_t size) {
  std::string block = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n";
  for (int i = 0; block.size() + 4 < size; ++i) {
    absl::StrAppend(&block, "X-Filler-", i, ": ", std::string(90, 'v'), "\r\n");
  }
  return block + "\r\n";
}

class HttpStreamParserTest : public ::testing::Test {
 protected:
  // A connected scripted socket over |reads| (no writes expected).
  std::unique_ptr<StreamSocket> Connect(std::vector<MockRead> reads) {
    reads_ = std::move(reads);
    data_ = std::make_unique<StaticSocketDataProvider>(
        reads_, absl::Span<const MockWrite>());
    factory_.AddSocketDataProvider(data_.get());
    std::unique_ptr<StreamSocket> socket = factory_.CreateTransportClientSocket(
        IPEndPoint(IPAddress::IPv4Localhost(), 80), absl::Seconds(1), {});
    TestCompletionCallback cb;
    EXPECT_EQ(OK, cb.GetResult(socket->Connect(cb.callback())));
    return socket;
  }

  int ReadHeaders(HttpStreamParser* parser) {
    TestCompletionCallback cb;
    return cb.GetResult(parser->ReadResponseHeaders(cb.callback()));
  }

  std::string ReadBody(HttpStreamParser* parser) {
    std::string body;
    auto buf = std::make_shared<IOBuffer>(16);
    while (!parser->IsResponseBodyComplete()) {
      TestCompletionCallback cb;
      int rv = cb.GetResult(parser->ReadResponseBody(buf, 16, cb.callback()));
      EXPECT_GE(rv, 0) << ErrorToShortString(rv);
      if (rv <= 0) break;
      body.append(buf->data(), rv);
    }
    return body;
  }

  EventLoop loop_;
  MockClientSocketFactory factory_;
  LoadTiming timing_;
  std::vector<MockRead> reads_;
  std::unique_ptr<StaticSocketDataProvider> data_;
};

// The case: 200 KB of headers, one byte per read. A rescan after
// every read examined ~n^2/2 bytes (20 GB here); the scanner examines each
// byte once.
TEST_F(HttpStreamParserTest, HeaderBlockOneBytePerReadIsScannedOnce) {
  const std::string block = BigHeaderBlock(200 * 1024);
  ASSERT_GE(block.size(), 200u * 1024);
  ASSERT_LE(block.size(),
            static_cast<size_t>(HttpStreamParser::kMaxHeaderBytes));
  std::vector<MockRead> reads = OneBytePerRead(block);
  reads.emplace_back(SYNC, "ok");
  std::unique_ptr<StreamSocket> socket = Connect(std::move(reads));
  HttpStreamParser parser(socket.get(), &timing_);

  ASSERT_EQ(ReadHeaders(&parser), OK) << parser.error_detail();
  ASSERT_NE(parser.response_headers(), nullptr);
  EXPECT_EQ(parser.response_headers()->status_code(), 200);
  EXPECT_EQ(
      parser.response_headers()->headers().size(),
      static_cast<size_t>(std::count(block.begin(), block.end(), '\n')) - 2);
  EXPECT_EQ(parser.header_bytes_scanned(), block.size());
  EXPECT_EQ(timing_.header_bytes, static_cast<int64_t>(block.size()));
  EXPECT_EQ(ReadBody(&parser), "ok");
  EXPECT_TRUE(data_->AllReadDataConsumed());
}

// Too big, one byte per read: the error comes at the first byte past the
// limit, having examined nothing twice and read nothing more.
TEST_F(HttpStreamParserTest, OversizedHeadersFailAtTheLimit) {
  const std::string block =
      BigHeaderBlock(HttpStreamParser::kMaxHeaderBytes + 4096);
  std::unique_ptr<StreamSocket> socket = Connect(OneBytePerRead(block));
  HttpStreamParser parser(socket.get(), &timing_);

  EXPECT_EQ(ReadHeaders(&parser), ERR_RESPONSE_HEADERS_TOO_BIG);
  EXPECT_EQ(parser.error_detail(), "the response headers exceed 256 KB");
  EXPECT_EQ(parser.header_bytes_scanned(),
            static_cast<uint64_t>(HttpStreamParser::kMaxHeaderBytes) + 1);
  EXPECT_FALSE(data_->AllReadDataConsumed());
}

// Interim responses share the limit and are scanned once too, even when
// many arrive in one read (they are not moved one by one).
TEST_F(HttpStreamParserTest, InterimResponsesShareTheLimit) {
  std::string interim;
  while (interim.size() < HttpStreamParser::kMaxHeaderBytes + 100)
    interim += "HTTP/1.1 100 Continue\r\n\r\n";
  std::unique_ptr<StreamSocket> socket =
      Connect({MockRead(SYNC, interim), MockRead(SYNC, ERR_IO_PENDING)});
  HttpStreamParser parser(socket.get(), &timing_);

  EXPECT_EQ(ReadHeaders(&parser), ERR_RESPONSE_HEADERS_TOO_BIG);
  EXPECT_EQ(parser.error_detail(),
            "the response headers (with interim 1xx responses) exceed 256 KB");
  EXPECT_EQ(parser.header_bytes_scanned(),
            static_cast<uint64_t>(HttpStreamParser::kMaxHeaderBytes) + 1);
}

TEST_F(HttpStreamParserTest, InterimThenFinalOneBytePerRead) {
  const std::string response =
      "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
      "HTTP/1.1 100 Continue\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
  const size_t header_bytes = response.size() - 3;
  std::unique_ptr<StreamSocket> socket = Connect(OneBytePerRead(response));
  HttpStreamParser parser(socket.get(), &timing_);

  ASSERT_EQ(ReadHeaders(&parser), OK) << parser.error_detail();
  EXPECT_EQ(parser.response_headers()->status_code(), 200);
  EXPECT_EQ(parser.header_bytes_scanned(), header_bytes);
  EXPECT_EQ(ReadBody(&parser), "abc");
}

// Bytes after the blank line that arrived with the headers are the body.
TEST_F(HttpStreamParserTest, BodyBytesInTheHeadersRead) {
  std::unique_ptr<StreamSocket> socket = Connect(
      {MockRead(SYNC, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"),
       MockRead(SYNC, "Content-Length: 5\r\n\r\nhel"), MockRead(SYNC, "lo")});
  HttpStreamParser parser(socket.get(), &timing_);

  ASSERT_EQ(ReadHeaders(&parser), OK) << parser.error_detail();
  EXPECT_EQ(ReadBody(&parser), "hello");
  EXPECT_TRUE(parser.CanReuseConnection());
}

// A CR that is not followed by LF, or a NUL, anywhere in the header block
// is ERR_INVALID_HTTP_RESPONSE, whole or cut between the CR and what
// follows it.
TEST_F(HttpStreamParserTest, BareCRAndNULAreErrors) {
  struct Case {
    const char* name;
    std::string response;
    const char* detail;
  } cases[] = {
      {"bare CR in a value",
       "HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n", "bare CR"},
      {"CR CR LF", "HTTP/1.1 200 OK\r\nX-A: a\r\r\nContent-Length: 0\r\n\r\n",
       "bare CR"},
      {"bare CR ends the status line",
       "HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n", "bare CR"},
      {"bare CR as the blank line", "HTTP/1.1 200 OK\r\n\r\r\n", "bare CR"},
      {"NUL in a value",
       "HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n"s,
       "NUL in the response headers"},
      {"NUL in the reason", "HTTP/1.1 200 O\0K\r\nContent-Length: 0\r\n\r\n"s,
       "NUL in the response headers"},
  };
  for (const Case& c : cases) {
    for (bool one_byte_reads : {false, true}) {
      SCOPED_TRACE(
          absl::StrCat(c.name, one_byte_reads ? ", 1-byte reads" : ""));
      std::unique_ptr<StreamSocket> socket = Connect(
          one_byte_reads ? OneBytePerRead(c.response)
                         : std::vector<MockRead>{MockRead(SYNC, c.response)});
      HttpStreamParser parser(socket.get(), &timing_);
      EXPECT_EQ(ReadHeaders(&parser), ERR_INVALID_HTTP_RESPONSE);
      EXPECT_EQ(parser.error_detail(),
                absl::StrCat("malformed HTTP response: ", c.detail));
    }
  }
}

// RFC 9112 5.2: a user agent replaces obs-fold with SP.
TEST_F(HttpStreamParserTest, ObsFoldIsJoinedWithSpace) {
  std::unique_ptr<StreamSocket> socket = Connect(
      {MockRead(SYNC,
                "HTTP/1.1 200 OK\r\nX-A: one\r\n \t two \r\nContent-Length:"
                "\r\n 2\r\n\r\nok")});
  HttpStreamParser parser(socket.get(), &timing_);
  ASSERT_EQ(ReadHeaders(&parser), OK) << parser.error_detail();
  EXPECT_EQ(parser.response_headers()->GetHeader("x-a"), "one two");
  EXPECT_EQ(parser.response_headers()->content_length(), 2);
  EXPECT_EQ(ReadBody(&parser), "ok");
}

}  // namespace
}  // namespace net
