// HttpNetworkTransaction over scripted sockets: framing, reuse, and every
// failure the fetch tool must name.

#include "net/http/http_network_transaction.h"

#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"
#include "net/http/cookie_jar.h"
#include "net/socket/socket_test_util.h"

namespace net {
namespace {

// Answers every name with 127.0.0.1, or with |error|.
class FakeResolver : public HostResolver {
 public:
  int error = OK;
  int calls = 0;
  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out) override {
    ++calls;
    result->source = "network";
    if (error != OK) return error;
    result->addresses = {IPAddress::IPv4Localhost()};
    return OK;
  }
};

class AcceptAllVerifier : public CertVerifier {
 public:
  int Verify(const CertVerifyParams&, CertVerifyResult* result,
             CompletionOnceCallback, std::unique_ptr<Request>*) override {
    result->error = OK;
    return OK;
  }
};

constexpr char kGet[] =
    "GET /page HTTP/1.1\r\nHost: www.example.test\r\nUser-Agent: "
    "netstack-fetch/0.1\r\n"
    "Accept: */*\r\nConnection: keep-alive\r\n\r\n";

class HttpNetworkTransactionTest : public ::testing::Test {
 protected:
  HttpNetworkTransactionTest()
      : session_(HttpNetworkSessionParams(), &resolver_, &factory_,
                 &verifier_) {}

  // Runs one GET of http://www.example.test/page; returns the body or sets
  // |*error|.
  std::string Fetch(int* error, const char* method = "GET") {
    HttpNetworkTransaction trans(&session_);
    HttpRequestInfo request;
    request.url = *Url::Parse("http://www.example.test/page");
    request.method = method;
    TestCompletionCallback cb;
    *error = cb.GetResult(trans.Start(request, cb.callback()));
    if (*error != OK) {
      detail_ = trans.error_detail();
      timing_ = trans.load_timing();
      return "";
    }
    std::string body;
    for (;;) {
      auto buf = std::make_shared<IOBuffer>(7);  // Small, to split reads.
      int n = cb.GetResult(trans.Read(buf, 7, cb.callback()));
      if (n < 0) {
        *error = n;
        detail_ = trans.error_detail();
        break;
      }
      if (n == 0) break;
      body.append(buf->data(), n);
    }
    timing_ = trans.load_timing();
    return body;
  }

  EventLoop loop_;
  FakeResolver resolver_;
  MockClientSocketFactory factory_;
  AcceptAllVerifier verifier_;
  HttpNetworkSession session_;
  LoadTiming timing_;
  std::string detail_;
};

TEST_F(HttpNetworkTransactionTest, ContentLengthBody) {
  MockRead reads[] = {
      MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello"),
      MockRead(ASYNC, " world")};
  MockWrite writes[] = {MockWrite(ASYNC, kGet)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  int error;
  EXPECT_EQ(Fetch(&error), "hello world");
  EXPECT_EQ(error, OK);
  EXPECT_TRUE(data.AllReadDataConsumed());
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty()) << data.write_mismatches()[0];
  EXPECT_EQ(timing_.status_code, 200);
  EXPECT_EQ(timing_.body_bytes, 11);
  EXPECT_LE(timing_.start, timing_.dns_start);
  EXPECT_LE(timing_.dns_end, timing_.connect_start);
  EXPECT_LE(timing_.connect_end, timing_.request_start);
  EXPECT_LE(timing_.request_start, timing_.response_start);
  EXPECT_LE(timing_.response_start, timing_.response_end);
  EXPECT_TRUE(timing_.ssl_start.is_null());
}

TEST_F(HttpNetworkTransactionTest, ChunkedBodyAndKeepAliveReuse) {
  MockRead reads[] = {
      MockRead(
          ASYNC,
          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n"),
      MockRead(SYNC, "3\r\nefg\r\n0\r\n\r\n"),
      MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
      MockRead(SYNC, ERR_IO_PENDING)};
  MockWrite writes[] = {MockWrite(SYNC, kGet), MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  int error;
  EXPECT_EQ(Fetch(&error), "abcdefg");
  EXPECT_EQ(error, OK);
  EXPECT_EQ(session_.idle_socket_count(), 1u);
  EXPECT_EQ(Fetch(&error), "ok");
  EXPECT_EQ(error, OK);
  EXPECT_TRUE(timing_.socket_reused);
  EXPECT_EQ(factory_.sockets_created(), 1u);
  EXPECT_EQ(resolver_.calls, 1);
}

TEST_F(HttpNetworkTransactionTest, StaleIdleConnectionIsRetriedOnANewOne) {
  // The first socket answers once, then the server has closed it: the
  // second request's headers read gets EOF.
  MockRead reads1[] = {
      MockRead(SYNC, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"),
      MockRead(ASYNC, OK)};
  MockWrite writes1[] = {MockWrite(SYNC, kGet), MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data1(reads1, writes1);
  MockRead reads2[] = {
      MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb")};
  MockWrite writes2[] = {MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data2(reads2, writes2);
  factory_.AddSocketDataProvider(&data1);
  factory_.AddSocketDataProvider(&data2);
  int error;
  EXPECT_EQ(Fetch(&error), "a");
  EXPECT_EQ(Fetch(&error), "b");
  EXPECT_EQ(error, OK);
  EXPECT_FALSE(timing_.socket_reused);
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_TRUE(data2.AllWriteDataConsumed());
}

TEST_F(HttpNetworkTransactionTest, CloseDelimitedBodyIsNotReused) {
  MockRead reads[] = {MockRead(ASYNC, "HTTP/1.1 200 OK\r\n\r\nuntil"),
                      MockRead(ASYNC, " close"), MockRead(ASYNC, OK)};
  MockWrite writes[] = {MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  int error;
  EXPECT_EQ(Fetch(&error), "until close");
  EXPECT_EQ(error, OK);
  EXPECT_EQ(session_.idle_socket_count(), 0u);
}

TEST_F(HttpNetworkTransactionTest, HeadHasNoBody) {
  MockRead reads[] = {
      MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"),
      MockRead(SYNC, ERR_IO_PENDING)};
  std::string head = kGet;
  head.replace(0, 3, "HEAD");
  MockWrite writes[] = {MockWrite(SYNC, head)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  int error;
  EXPECT_EQ(Fetch(&error, "HEAD"), "");
  EXPECT_EQ(error, OK);
  EXPECT_EQ(timing_.status_code, 200);
}

TEST_F(HttpNetworkTransactionTest, InterimResponsesAreSkipped) {
  MockRead reads[] = {
      MockRead(ASYNC,
               "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
               "Content-Length: 1\r\n\r\nz")};
  MockWrite writes[] = {MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  int error;
  EXPECT_EQ(Fetch(&error), "z");
  EXPECT_EQ(timing_.status_code, 200);
}

struct FailureCase {
  const char* name;
  std::vector<MockRead> reads;
  int expected;
};

class HttpFailureTest : public HttpNetworkTransactionTest,
                        public ::testing::WithParamInterface<FailureCase> {};

TEST_P(HttpFailureTest, NamesTheError) {
  const FailureCase& c = GetParam();
  MockWrite writes[] = {MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data(c.reads, writes);
  factory_.AddSocketDataProvider(&data);
  int error;
  Fetch(&error);
  EXPECT_EQ(error, c.expected) << ErrorToString(error);
  EXPECT_FALSE(detail_.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, HttpFailureTest,
    ::testing::Values(
        FailureCase{"garbage",
                    {MockRead(ASYNC, "SSH-2.0-OpenSSH\r\n\r\n")},
                    ERR_INVALID_HTTP_RESPONSE},
        FailureCase{"bad_status",
                    {MockRead(ASYNC, "HTTP/1.1 abc\r\n\r\n")},
                    ERR_INVALID_HTTP_RESPONSE},
        FailureCase{"empty", {MockRead(ASYNC, OK)}, ERR_EMPTY_RESPONSE},
        FailureCase{
            "closed_in_headers",
            {MockRead(ASYNC, "HTTP/1.1 200 OK\r\nA: b"), MockRead(ASYNC, OK)},
            ERR_INVALID_HTTP_RESPONSE},
        FailureCase{
            "truncated_body",
            {MockRead(ASYNC,
                      "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"),
             MockRead(ASYNC, OK)},
            ERR_CONTENT_LENGTH_MISMATCH},
        FailureCase{"truncated_chunked",
                    {MockRead(ASYNC,
                              "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
                              "chunked\r\n\r\n5\r\nab"),
                     MockRead(ASYNC, OK)},
                    ERR_INCOMPLETE_CHUNKED_ENCODING},
        FailureCase{
            "bad_chunk",
            {MockRead(
                ASYNC,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")},
            ERR_INVALID_CHUNKED_ENCODING},
        FailureCase{"reset",
                    {MockRead(ASYNC, ERR_CONNECTION_RESET)},
                    ERR_CONNECTION_RESET}),
    [](const ::testing::TestParamInfo<FailureCase>& info) {
      return info.param.name;
    });

// A resolver that answers asynchronously once the test clock has moved
// 40 ms.
class SlowFakeResolver : public HostResolver {
 public:
  explicit SlowFakeResolver(SimpleTestTickClock* clock) : clock_(clock) {}
  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out) override {
    EventLoop::Current()->PostTask(
        [this, result, callback = std::move(callback)]() mutable {
          clock_->Advance(absl::Milliseconds(40));
          result->source = "network";
          result->addresses = {IPAddress::IPv4Localhost()};
          std::move(callback)(OK);
        });
    return ERR_IO_PENDING;
  }

 private:
  SimpleTestTickClock* clock_;
};

TEST_F(HttpNetworkTransactionTest, TraceReadsTheInjectedClock) {
  SimpleTestTickClock clock;
  SlowFakeResolver resolver(&clock);
  HttpNetworkSessionParams params;
  params.clock = &clock;
  params.request_timeout = absl::ZeroDuration();
  HttpNetworkSession session(params, &resolver, &factory_, &verifier_);
  MockRead reads[] = {
      MockRead(SYNC, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")};
  MockWrite writes[] = {MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  HttpNetworkTransaction trans(&session);
  HttpRequestInfo request;
  request.url = *Url::Parse("http://www.example.test/page");
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(trans.Start(request, cb.callback())));
  std::string json = LoadTimingToJson(trans.load_timing());
  // Everything happens at t=0 except the 40 ms lookup: exact values.
  EXPECT_NE(json.find("\"domainLookupStart\":0.000,\"domainLookupEnd\":40.000,"
                      "\"connectStart\":40.000,\"connectEnd\":40.000,"
                      "\"requestStart\":40.000,\"responseStart\":40.000,"
                      "\"responseEnd\":40.000"),
            std::string::npos)
      << json;
}

TEST_F(HttpNetworkTransactionTest, SynchronousAnswersCostNoLookupTime) {
  SimpleTestTickClock clock;
  HttpNetworkSessionParams params;
  params.clock = &clock;
  HttpNetworkSession session(params, &resolver_, &factory_, &verifier_);
  MockRead reads[] = {
      MockRead(SYNC, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")};
  MockWrite writes[] = {MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  HttpNetworkTransaction trans(&session);
  HttpRequestInfo request;
  request.url = *Url::Parse("http://www.example.test/page");
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(trans.Start(request, cb.callback())));
  EXPECT_EQ(trans.load_timing().dns_start, trans.load_timing().dns_end);
}

TEST_F(HttpNetworkTransactionTest, RefusedConnection) {
  StaticSocketDataProvider data({}, {});
  data.set_connect_data(MockConnect(ASYNC, ERR_CONNECTION_REFUSED));
  factory_.AddSocketDataProvider(&data);
  int error;
  Fetch(&error);
  EXPECT_EQ(error, ERR_CONNECTION_REFUSED);
  EXPECT_NE(detail_.find("127.0.0.1:80"), std::string::npos) << detail_;
}

TEST_F(HttpNetworkTransactionTest, UnresolvableHost) {
  resolver_.error = ERR_NAME_NOT_RESOLVED;
  int error;
  Fetch(&error);
  EXPECT_EQ(error, ERR_NAME_NOT_RESOLVED);
  EXPECT_NE(detail_.find("www.example.test"), std::string::npos);
  EXPECT_EQ(timing_.net_error, ERR_NAME_NOT_RESOLVED);
}

TEST_F(HttpNetworkTransactionTest, StalledServerHitsTheRequestTimeout) {
  HttpNetworkSessionParams params;
  params.request_timeout = absl::Milliseconds(50);
  HttpNetworkSession session(params, &resolver_, &factory_, &verifier_);
  MockRead reads[] = {MockRead(SYNC, ERR_IO_PENDING)};
  MockWrite writes[] = {MockWrite(SYNC, kGet)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  HttpNetworkTransaction trans(&session);
  HttpRequestInfo request;
  request.url = *Url::Parse("http://www.example.test/page");
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_TIMED_OUT, cb.GetResult(trans.Start(request, cb.callback())));
}

// Set-Cookie headers go into the session's jar; the next request carries
// the Cookie header; a caller's own Cookie header replaces the jar's.
TEST_F(HttpNetworkTransactionTest, CookiesFromTheJar) {
  CookieJar jar;
  HttpNetworkSessionParams params;
  params.cookie_jar = &jar;
  HttpNetworkSession session(params, &resolver_, &factory_, &verifier_);
  const std::string get_with_cookie = absl::StrCat(
      absl::string_view(kGet, sizeof(kGet) - 3), "Cookie: a=1\r\n\r\n");
  const std::string get_with_own_cookie = absl::StrCat(
      absl::string_view(kGet, sizeof(kGet) - 3), "Cookie: mine=2\r\n\r\n");
  MockRead reads1[] = {MockRead(
      ASYNC,
      "HTTP/1.1 200 OK\r\nSet-Cookie: a=1; HttpOnly\r\nset-cookie: s=2; "
      "Secure\r\nSet-Cookie: junk\r\nContent-Length: 2\r\nConnection: "
      "close\r\n\r\nok")};
  MockWrite writes1[] = {MockWrite(ASYNC, kGet)};
  StaticSocketDataProvider data1(reads1, writes1);
  MockRead reads2[] = {MockRead(
      ASYNC,
      "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")};
  MockWrite writes2[] = {MockWrite(ASYNC, get_with_cookie.c_str())};
  StaticSocketDataProvider data2(reads2, writes2);
  MockWrite writes3[] = {MockWrite(ASYNC, get_with_own_cookie.c_str())};
  StaticSocketDataProvider data3(reads2, writes3);
  factory_.AddSocketDataProvider(&data1);
  factory_.AddSocketDataProvider(&data2);
  factory_.AddSocketDataProvider(&data3);

  auto run =
      [&](HttpNetworkTransaction* trans,
          std::vector<std::pair<std::string, std::string>> headers) -> int {
    HttpRequestInfo request;
    request.url = *Url::Parse("http://www.example.test/page");
    request.extra_headers = std::move(headers);
    TestCompletionCallback cb;
    int rv = cb.GetResult(trans->Start(request, cb.callback()));
    while (rv > 0 || rv == OK) {
      auto buf = std::make_shared<IOBuffer>(64);
      rv = cb.GetResult(trans->Read(buf, 64, cb.callback()));
      if (rv == 0) return OK;
    }
    return rv;
  };
  HttpNetworkTransaction first(&session);
  ASSERT_EQ(run(&first, {}), OK);
  EXPECT_EQ(first.cookie_header_sent(), "");
  // Secure from http and the unparsable line are refused, and say why.
  ASSERT_EQ(first.rejected_cookies().size(), 2u);
  EXPECT_NE(first.rejected_cookies()[0].find("Secure"), std::string::npos);
  EXPECT_NE(first.rejected_cookies()[1].find("'='"), std::string::npos);
  ASSERT_EQ(jar.size(), 1u);

  HttpNetworkTransaction second(&session);
  ASSERT_EQ(run(&second, {}), OK);
  EXPECT_EQ(second.cookie_header_sent(), "a=1");
  HttpNetworkTransaction third(&session);
  ASSERT_EQ(run(&third, {{"Cookie", "mine=2"}}), OK);
  EXPECT_EQ(third.cookie_header_sent(), "");
  for (auto* d : {&data1, &data2, &data3}) {
    EXPECT_TRUE(d->AllWriteDataConsumed());
    EXPECT_TRUE(d->write_mismatches().empty()) << d->write_mismatches()[0];
  }
}

}  // namespace
}  // namespace net
