// UrlRequestSessionFetcher over scripted sockets: the POST as it goes on the
// wire (headers, empty body), the response's cookies stored in the jar, a
// same-site redirect followed and a cross-site one refused, the body bound,
// the timeout, and cancellation.

#include "net/device_bound_sessions/session_fetcher.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/http/cookie_jar.h"
#include "net/http/http_network_session.h"
#include "net/socket/socket_test_util.h"

namespace net {
namespace {

class FakeResolver : public HostResolver {
 public:
  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out) override {
    result->source = DnsSource::kNetwork;
    result->addresses = {IPAddress::IPv4Localhost()};
    return OK;
  }
};

std::string Post(const std::string& host, const std::string& path,
                 const std::string& extra = "") {
  return absl::StrCat("POST ", path, " HTTP/1.1\r\nHost: ", host,
                      "\r\nUser-Agent: netstack-fetch/0.1\r\nAccept: "
                      "*/*\r\nConnection: keep-alive\r\n",
                      extra, "Content-Length: 0\r\n\r\n");
}

class SessionFetcherTest : public ::testing::Test {
 protected:
  SessionFetcherTest() : session_(Params(), &resolver_, &factory_, nullptr) {
    context_.http_session = &session_;
    context_.cookie_jar = &jar_;
  }
  static HttpNetworkSessionParams Params() {
    HttpNetworkSessionParams params;
    params.request_timeout = absl::Seconds(5);
    return params;
  }
  StaticSocketDataProvider& AddSocket(std::vector<MockWrite> writes,
                                      std::vector<MockRead> reads) {
    scripts_.push_back(
        std::make_unique<StaticSocketDataProvider>(reads, writes));
    factory_.AddSocketDataProvider(scripts_.back().get());
    return *scripts_.back();
  }
  // Posts and runs the loop until the callback ran (or nothing is left).
  std::optional<SessionFetchResult> Run(UrlRequestSessionFetcher* fetcher,
                                        const std::string& url,
                                        HttpHeaderList headers = {}) {
    std::optional<SessionFetchResult> result;
    fetcher->Post(
        *Url::Parse(url), std::move(headers),
        [&](SessionFetchResult r) {
          result = std::move(r);
          loop_.Quit();
        },
        &request_);
    EXPECT_FALSE(result.has_value());  // never from inside Post
    loop_.Run();
    return result;
  }

  EventLoop loop_;
  FakeResolver resolver_;
  MockClientSocketFactory factory_;
  std::vector<std::unique_ptr<StaticSocketDataProvider>> scripts_;
  HttpNetworkSession session_;
  CookieJar jar_;
  URLRequestContext context_;
  std::unique_ptr<SessionFetcher::Request> request_;
};

TEST_F(SessionFetcherTest, PostsAndStoresTheCookies) {
  StaticSocketDataProvider& data =
      AddSocket({MockWrite(ASYNC, Post("a.test", "/refresh",
                                       "Sec-Secure-Session-Id: \"s1\"\r\n"))},
                {MockRead(ASYNC,
                          "HTTP/1.1 200 OK\r\nSet-Cookie: auth=v; Path=/\r\n"
                          "Secure-Session-Challenge: \"c\";id=\"s1\"\r\n"
                          "Content-Length: 2\r\n\r\n{}")});
  UrlRequestSessionFetcher fetcher(&context_, absl::Seconds(5), 1024);
  std::optional<SessionFetchResult> r = Run(
      &fetcher, "http://a.test/refresh", {{"Sec-Secure-Session-Id", "\"s1\""}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->net_error, OK);
  ASSERT_TRUE(r->headers.has_value());
  EXPECT_EQ(r->headers->status_code(), 200);
  EXPECT_EQ(r->headers->GetHeader("secure-session-challenge"),
            "\"c\";id=\"s1\"");
  EXPECT_EQ(r->body, "{}");
  EXPECT_EQ(r->url.spec(), "http://a.test/refresh");
  EXPECT_EQ(r->timing.method, "POST");
  EXPECT_EQ(jar_.CookieHeaderFor(*Url::Parse("http://a.test/"), absl::Now()),
            "auth=v");
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty()) << data.write_mismatches()[0];
}

TEST_F(SessionFetcherTest, SameSiteRedirectFollowedCrossSiteRefused) {
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Post("www.a.test", "/r")),
       MockWrite(ASYNC, Post("www.a.test", "/r2"))},
      {MockRead(ASYNC,
                "HTTP/1.1 307 Moved\r\nLocation: /r2\r\nContent-Length: "
                "0\r\n\r\n"),
       MockRead(ASYNC,
                "HTTP/1.1 307 Moved\r\nLocation: http://evil.test/steal\r\n"
                "Content-Length: 0\r\n\r\n")});
  UrlRequestSessionFetcher fetcher(&context_, absl::Seconds(5), 1024);
  std::optional<SessionFetchResult> r = Run(&fetcher, "http://www.a.test/r");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->net_error, ERR_UNSAFE_REDIRECT);
  EXPECT_NE(r->error_detail.find("another site: http://evil.test/steal"),
            std::string::npos)
      << r->error_detail;
  EXPECT_FALSE(r->headers.has_value());
  EXPECT_EQ(factory_.sockets_created(), 1u);  // evil.test was never contacted
  EXPECT_TRUE(data.AllWriteDataConsumed());
}

TEST_F(SessionFetcherTest, BodyBoundAndTimeout) {
  AddSocket({MockWrite(ASYNC, Post("a.test", "/big"))},
            {MockRead(ASYNC, absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: "
                                          "2000\r\n\r\n",
                                          std::string(2000, 'x')))});
  UrlRequestSessionFetcher fetcher(&context_, absl::Seconds(5), 1024);
  std::optional<SessionFetchResult> r = Run(&fetcher, "http://a.test/big");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->net_error, ERR_FILE_TOO_BIG);

  // A server that never answers: the fetcher's own timeout.
  AddSocket({MockWrite(ASYNC, Post("b.test", "/slow"))},
            {MockRead(ASYNC, ERR_IO_PENDING)});
  UrlRequestSessionFetcher quick(&context_, absl::Milliseconds(50), 1024);
  r = Run(&quick, "http://b.test/slow");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->net_error, ERR_TIMED_OUT);
  EXPECT_NE(r->error_detail.find("no answer within"), std::string::npos);
}

TEST_F(SessionFetcherTest, DestroyingTheRequestCancels) {
  AddSocket({MockWrite(ASYNC, Post("a.test", "/r"))},
            {MockRead(ASYNC, ERR_IO_PENDING)});
  UrlRequestSessionFetcher fetcher(&context_, absl::Seconds(5), 1024);
  bool called = false;
  fetcher.Post(
      *Url::Parse("http://a.test/r"), {},
      [&](SessionFetchResult) { called = true; }, &request_);
  loop_.RunUntilIdle();
  request_.reset();
  loop_.RunUntilIdle();
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace net
