// HTTP/2 through HttpNetworkTransaction: the mock socket factory's TLS
// socket reports ALPN h2 and carries bytes over an in-memory socket pair to
// nghttp2's server side (Http2TestServer). Concurrent requests share one
// connection and session; the request's header list; the response read as
// HTTP/1.1 headers; the trace's h2 object; a refused stream retried on a new
// session; a server that never sends SETTINGS.

#include "net/http/http2_stream.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/http/http2_transaction_test_util.h"
#include "net/http/http_network_transaction.h"

namespace net {
namespace {

TEST_F(Http2TransactionTest, TwentyConcurrentRequestsShareOneSession) {
  H2ServerProvider provider(&EchoPath);
  AddConnection(&provider);
  MakeSession();
  std::vector<std::unique_ptr<Fetch>> fetches;
  for (int i = 0; i < 20; ++i)
    fetches.push_back(Begin(absl::StrCat("https://www.example.test/r", i)));
  int fresh = 0;
  std::vector<uint32_t> ids;
  for (int i = 0; i < 20; ++i) {
    Finish(fetches[i].get());
    ASSERT_EQ(fetches[i]->result, OK) << fetches[i]->trans->error_detail();
    EXPECT_EQ(fetches[i]->body, absl::StrCat("body of /r", i));
    const LoadTiming& t = fetches[i]->trans->load_timing();
    EXPECT_TRUE(t.h2.used);
    EXPECT_EQ(t.ssl.alpn, "h2");
    fresh += t.h2.session == SessionUse::kNew;
    if (t.h2.session != SessionUse::kNew) {
      EXPECT_EQ(t.h2.session, SessionUse::kReused);
    }
    ids.push_back(t.h2.stream_id);
    EXPECT_EQ(fetches[i]->trans->response_headers()->status_code(), 200);
  }
  // One connection, one session, twenty streams.
  EXPECT_EQ(fresh, 1);
  EXPECT_EQ(factory_.sockets_created(), 1u);
  EXPECT_EQ(factory_.tls_sockets_requested().size(), 1u);
  EXPECT_EQ(provider.server()->requests().size(), 20u);
  std::sort(ids.begin(), ids.end());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ids[i], 1u + 2 * i);
  // h2 offered before http/1.1.
  ASSERT_EQ(factory_.ssl_configs().size(), 1u);
  EXPECT_EQ(factory_.ssl_configs()[0].alpn_protos,
            (std::vector<std::string>{"h2", "http/1.1"}));
  // The trace's h2 object.
  const std::string json = LoadTimingToJson(fetches[0]->trans->load_timing());
  EXPECT_NE(json.find("\"h2\":{\"streamId\":"), std::string::npos) << json;
  EXPECT_NE(json.find("\"settings\":{\"MAX_CONCURRENT_STREAMS\":100}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"sessionId\":\"https://www.example.test via "),
            std::string::npos)
      << json;
}

TEST_F(Http2TransactionTest, RequestHeaderListAndResponseHeaders) {
  H2ServerProvider provider([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.headers = {
        {"set-cookie", "a=1"}, {"set-cookie", "b=2"}, {"content-length", "2"}};
    r.body = "ok";
    return r;
  });
  AddConnection(&provider);
  MakeSession();
  auto f = std::make_unique<Fetch>();
  f->trans = std::make_unique<HttpNetworkTransaction>(session_.get());
  f->request.url = *Url::Parse("https://www.example.test:8443/p?q=1");
  f->request.extra_headers = {
      {"Connection", "keep-alive"}, {"X-Test", "1"}, {"Cookie", "k=v"}};
  f->result = f->trans->Start(f->request, f->cb.callback());
  Finish(f.get());
  ASSERT_EQ(f->result, OK) << f->trans->error_detail();
  EXPECT_EQ(f->body, "ok");
  const TestHeaders expected = {{":method", "GET"},
                                {":authority", "www.example.test:8443"},
                                {":scheme", "https"},
                                {":path", "/p?q=1"},
                                {"user-agent", "netstack-fetch/0.1"},
                                {"accept", "*/*"},
                                {"x-test", "1"},
                                {"cookie", "k=v"},
                                {"priority", "u=0, i"}};
  ASSERT_EQ(provider.server()->requests().size(), 1u);
  EXPECT_EQ(provider.server()->requests()[0], expected);
  EXPECT_EQ(f->trans->request_headers_sent(), expected);
  int cookies = 0;
  for (const auto& [name, value] : f->trans->response_headers()->headers())
    cookies += name == "set-cookie";
  EXPECT_EQ(cookies, 2);
  EXPECT_EQ(f->trans->response_headers()->content_length(), 2);
  EXPECT_EQ(f->trans->load_timing().body_bytes, 2);
  EXPECT_FALSE(f->trans->load_timing().response_end.is_null());
}

// GOAWAY naming the first stream: the second request was not processed and
// goes again on a new connection's session; the trace says so.
TEST_F(Http2TransactionTest, RefusedStreamIsRetriedOnANewSession) {
  H2ServerProvider first([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;
    return r;
  });
  H2ServerProvider second(&EchoPath);
  AddConnection(&first);
  AddConnection(&second);
  MakeSession();
  auto a = Begin("https://www.example.test/a");
  auto b = Begin("https://www.example.test/b");
  loop_.RunUntilIdle();
  ASSERT_EQ(first.server()->requests().size(), 2u);
  first.server()->SendGoAway(1, NGHTTP2_NO_ERROR);
  Http2TestServer::Response r;
  r.body = "answered before GOAWAY";
  first.server()->Respond(1, r);
  Finish(a.get());
  Finish(b.get());
  ASSERT_EQ(a->result, OK) << a->trans->error_detail();
  EXPECT_EQ(a->body, "answered before GOAWAY");
  ASSERT_EQ(b->result, OK) << b->trans->error_detail();
  EXPECT_EQ(b->body, "body of /b");
  const LoadTiming& t = b->trans->load_timing();
  EXPECT_EQ(t.h2.session, SessionUse::kNew);
  EXPECT_NE(t.h2.retry.find("refused stream"), std::string::npos) << t.h2.retry;
  EXPECT_EQ(factory_.sockets_created(), 2u);
}

TEST_F(Http2TransactionTest, ServerThatNeverSendsSettingsIsANamedError) {
  H2ServerProvider silent;  // reads, never writes
  AddConnection(&silent);
  HttpNetworkSessionParams params;
  params.http2.settings_timeout = absl::Milliseconds(100);
  MakeSession(params);
  auto f = Begin("https://www.example.test/");
  Finish(f.get());
  EXPECT_EQ(f->result, ERR_HTTP2_SETTINGS_TIMEOUT);
  EXPECT_NE(f->trans->error_detail().find("SETTINGS"), std::string::npos)
      << f->trans->error_detail();
}

// With h2 removed from the ALPN list the stack is HTTP/1.1 only.
TEST_F(Http2TransactionTest, NoH2WhenNotOffered) {
  HttpNetworkSessionParams params;
  params.ssl_config.alpn_protos = {"http/1.1"};
  MakeSession(params);
  EXPECT_FALSE(session_->h2_enabled());
  MakeSession();
  EXPECT_TRUE(session_->h2_enabled());
}

TEST(Http2RequestHeadersTest, DropsConnectionHeadersAndKeepsTrailersTe) {
  HttpRequestInfo request;
  request.url = *Url::Parse("https://[::1]/x");
  request.method = "POST";
  request.upload_body = "abc";
  request.extra_headers = {
      {"Host", "h.test"},       {"Keep-Alive", "1"}, {"Transfer-Encoding", "x"},
      {"Upgrade", "h2c"},       {"TE", "gzip"},      {"te", "trailers"},
      {"Proxy-Connection", "x"}};
  const Http2Headers headers = MakeHttp2RequestHeaders(request);
  const Http2Headers expected = {{":method", "POST"},
                                 {":authority", "h.test"},
                                 {":scheme", "https"},
                                 {":path", "/x"},
                                 {"user-agent", "netstack-fetch/0.1"},
                                 {"accept", "*/*"},
                                 {"te", "trailers"},
                                 {"content-length", "3"},
                                 {"priority", "u=0, i"}};
  EXPECT_EQ(headers, expected);
}

}  // namespace
}  // namespace net
