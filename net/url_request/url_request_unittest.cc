// URLRequest over scripted sockets: redirect chains (method rules, relative
// Locations, the limit, unsafe and invalid targets, deferral), cookies
// across redirects, the body limit, content decoding, Cancel in every
// phase, and what each hop records.

#include "net/url_request/url_request.h"

#include <brotli/encode.h>
#include <zlib.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/http/cookie_jar.h"
#include "net/http/http_network_session.h"
#include "net/socket/socket_test_util.h"

namespace net {
namespace {

// Answers every name with 127.0.0.1.
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

class AcceptAllVerifier : public CertVerifier {
 public:
  int Verify(const CertVerifyParams&, CertVerifyResult* result,
             CompletionOnceCallback, std::unique_ptr<Request>*) override {
    result->error = OK;
    return OK;
  }
};

// The request HttpBasicStream writes: |extra| header lines ("Name: v\r\n")
// after the defaults, then |body|.
std::string Req(const std::string& method, const std::string& host,
                const std::string& path, const std::string& extra = "",
                const std::string& body = "") {
  return absl::StrCat(method, " ", path, " HTTP/1.1\r\nHost: ", host,
                      "\r\nUser-Agent: netstack-fetch/0.1\r\nAccept: "
                      "*/*\r\nConnection: keep-alive\r\n",
                      extra, "\r\n", body);
}

std::string Redirect(int status, const std::string& location,
                     const std::string& extra = "") {
  return absl::StrCat("HTTP/1.1 ", status, " Moved\r\nLocation: ", location,
                      "\r\n", extra, "Content-Length: 5\r\n\r\nmoved");
}

std::string Ok(const std::string& body, const std::string& extra = "") {
  return absl::StrCat("HTTP/1.1 200 OK\r\n", extra,
                      "Content-Length: ", body.size(), "\r\n\r\n", body);
}

std::string Gzip(const std::string& in, int window_bits = 31) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits, 8,
               Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = in.size();
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = out.size();
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Brotli(const std::string& in) {
  size_t size = BrotliEncoderMaxCompressedSize(in.size()) + 16;
  std::string out(size, '\0');
  BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW,
                        BROTLI_MODE_GENERIC, in.size(),
                        reinterpret_cast<const uint8_t*>(in.data()), &size,
                        reinterpret_cast<uint8_t*>(out.data()));
  out.resize(size);
  return out;
}

// Records what the request tells it and reads the body to its end; can
// defer or cancel at each step.
class TestDelegate : public URLRequest::Delegate {
 public:
  // Configuration.
  bool defer_redirects = false;
  bool cancel_in_redirect = false;
  bool cancel_in_response_started = false;
  bool delete_in_response_started = false;
  // Cancel after this many OnReadCompleted calls (-1: never).
  int cancel_after_async_reads = -1;
  int read_size = 7;
  std::unique_ptr<URLRequest>* owner = nullptr;  // for delete_in_...

  // What happened.
  std::vector<RedirectInfo> redirects;
  std::vector<int> response_started;
  std::string body;
  int result = 1;  // 1: not finished
  int async_reads = 0;
  int calls = 0;

  void OnReceivedRedirect(URLRequest* request, const RedirectInfo& info,
                          bool* defer) override {
    ++calls;
    redirects.push_back(info);
    if (cancel_in_redirect) return request->Cancel();
    *defer = defer_redirects;
  }
  void OnResponseStarted(URLRequest* request, int net_error) override {
    ++calls;
    response_started.push_back(net_error);
    if (delete_in_response_started) {
      owner->reset();
      return;
    }
    if (cancel_in_response_started) return request->Cancel();
    if (net_error != OK) {
      result = net_error;
      return;
    }
    ReadLoop(request);
  }
  void OnReadCompleted(URLRequest* request, int bytes_read) override {
    ++calls;
    ++async_reads;
    if (async_reads == cancel_after_async_reads) return request->Cancel();
    if (Take(bytes_read)) ReadLoop(request);
  }

 private:
  void ReadLoop(URLRequest* request) {
    for (;;) {
      auto buf = std::make_shared<IOBuffer>(read_size);
      int rv = request->Read(buf, read_size);
      if (rv == ERR_IO_PENDING) {
        pending_buf_ = buf;
        return;
      }
      if (!Take(rv, buf.get())) return;
    }
  }
  bool Take(int rv, IOBuffer* buf = nullptr) {
    if (!buf) buf = pending_buf_.get();
    if (rv <= 0) {
      result = rv;
      return false;
    }
    body.append(buf->data(), rv);
    return true;
  }
  std::shared_ptr<IOBuffer> pending_buf_;
};

class CountingNetworkDelegate : public NetworkDelegate {
 public:
  void OnCompleted(URLRequest* request, int net_error) override {
    completed.push_back(net_error);
  }
  std::vector<int> completed;
};

class URLRequestTest : public ::testing::Test {
 protected:
  URLRequestTest() : session_(Params(), &resolver_, &factory_, &verifier_) {
    context_.http_session = &session_;
    context_.cookie_jar = &jar_;
    context_.network_delegate = &network_delegate_;
  }

  static HttpNetworkSessionParams Params() {
    HttpNetworkSessionParams params;
    params.request_timeout = absl::Seconds(5);
    return params;
  }

  std::unique_ptr<URLRequest> Create(const std::string& url,
                                     URLRequest::Options options = {}) {
    return std::make_unique<URLRequest>(&context_, *Url::Parse(url), &delegate_,
                                        options);
  }

  // Starts |request| and runs the loop until nothing is left to do.
  void Run(URLRequest* request) {
    request->Start();
    loop_.RunUntilIdle();
  }
  // Create, then Run.
  std::unique_ptr<URLRequest> CreateAndRun(const std::string& url,
                                           URLRequest::Options options = {}) {
    std::unique_ptr<URLRequest> request = Create(url, options);
    Run(request.get());
    return request;
  }

  // Scripts the next connection: |writes| expected, |reads| answered. The
  // fixture keeps the script; the reference is for checks.
  StaticSocketDataProvider& AddSocket(std::vector<MockWrite> writes,
                                      std::vector<MockRead> reads) {
    scripts_.push_back(
        std::make_unique<StaticSocketDataProvider>(reads, writes));
    factory_.AddSocketDataProvider(scripts_.back().get());
    return *scripts_.back();
  }
  // The next connection: one GET of http://a.test/ answered by |reads|.
  StaticSocketDataProvider& AddGetRoot(std::vector<MockRead> reads) {
    return AddSocket({MockWrite(ASYNC, Req("GET", "a.test", "/"))},
                     std::move(reads));
  }

  static void ExpectConsumed(const StaticSocketDataProvider& data) {
    EXPECT_TRUE(data.AllReadDataConsumed());
    EXPECT_TRUE(data.AllWriteDataConsumed());
    EXPECT_TRUE(data.write_mismatches().empty()) << data.write_mismatches()[0];
  }

  EventLoop loop_;
  FakeResolver resolver_;
  MockClientSocketFactory factory_;
  AcceptAllVerifier verifier_;
  // Declared before the session: its idle sockets read the scripts.
  std::vector<std::unique_ptr<StaticSocketDataProvider>> scripts_;
  HttpNetworkSession session_;
  CookieJar jar_;
  CountingNetworkDelegate network_delegate_;
  URLRequestContext context_;
  TestDelegate delegate_;
};

TEST_F(URLRequestTest, PlainGet) {
  StaticSocketDataProvider& data =
      AddSocket({MockWrite(SYNC, Req("GET", "a.test", "/x"))},
                {MockRead(ASYNC, Ok("hello world"))});
  auto request = Create("http://a.test/x");
  request->Start();
  // Never from inside Start(), even when the socket answers at once.
  EXPECT_EQ(delegate_.calls, 0);
  EXPECT_EQ(request->status(), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.response_started, std::vector<int>{OK});
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "hello world");
  EXPECT_EQ(request->status(), OK);
  EXPECT_EQ(request->url_chain().size(), 1u);
  EXPECT_TRUE(request->hops().empty());
  EXPECT_EQ(request->response_headers()->status_code(), 200);
  EXPECT_EQ(request->load_timing().status_code, 200);
  EXPECT_FALSE(request->load_timing().response_end.is_null());
  EXPECT_EQ(request->body_bytes_read(), 11);
  const HttpHeaderList sent = {{"Host", "a.test"},
                               {"User-Agent", "netstack-fetch/0.1"},
                               {"Accept", "*/*"},
                               {"Connection", "keep-alive"}};
  EXPECT_EQ(request->request_headers(), sent);
  EXPECT_EQ(network_delegate_.completed, std::vector<int>{OK});
  ExpectConsumed(data);
}

// A chain of every redirect status on one kept-alive connection, relative
// and absolute Locations; the trace keeps one entry per hop.
TEST_F(URLRequestTest, RedirectChainOnOneConnection) {
  StaticSocketDataProvider& data = AddSocket(
      {
          MockWrite(ASYNC, Req("GET", "a.test", "/1")),
          MockWrite(ASYNC, Req("GET", "a.test", "/2")),
          MockWrite(ASYNC, Req("GET", "a.test", "/dir/3")),
          MockWrite(ASYNC, Req("GET", "a.test", "/dir/4?q")),
          MockWrite(ASYNC, Req("GET", "a.test", "/dir/5")),
          MockWrite(ASYNC, Req("GET", "a.test", "/end")),
      },
      {
          MockRead(ASYNC, Redirect(301, "/2")),
          MockRead(ASYNC, Redirect(302, "http://a.test/dir/3")),
          MockRead(ASYNC, Redirect(303, "4?q")),
          MockRead(ASYNC, Redirect(307, "5")),
          MockRead(SYNC, Redirect(308, "//a.test/end#frag")),
          MockRead(ASYNC, Ok("done")),
      });
  auto request = CreateAndRun("http://a.test/1");
  EXPECT_EQ(delegate_.result, OK) << request->error_detail();
  EXPECT_EQ(delegate_.body, "done");
  ASSERT_EQ(delegate_.redirects.size(), 5u);
  EXPECT_EQ(delegate_.redirects[2].status_code, 303);
  std::vector<std::string> chain;
  for (const Url& url : request->url_chain()) chain.push_back(url.spec());
  EXPECT_EQ(chain, (std::vector<std::string>{
                       "http://a.test/1", "http://a.test/2",
                       "http://a.test/dir/3", "http://a.test/dir/4?q",
                       "http://a.test/dir/5", "http://a.test/end"}));
  ASSERT_EQ(request->hops().size(), 5u);
  EXPECT_EQ(request->redirect_count(), 5);
  const int statuses[] = {301, 302, 303, 307, 308};
  for (size_t i = 0; i < 5; ++i) {
    const URLRequestHop& hop = request->hops()[i];
    EXPECT_EQ(hop.timing.status_code, statuses[i]);
    EXPECT_EQ(hop.response_headers.status_code(), statuses[i]);
    EXPECT_EQ(hop.url.spec(), chain[i]);
    EXPECT_EQ(hop.timing.url, chain[i]);
    EXPECT_FALSE(hop.timing.response_end.is_null()) << "drained";
    EXPECT_EQ(hop.request_headers.front(),
              (std::pair<std::string, std::string>("Host", "a.test")));
    EXPECT_EQ(hop.timing.socket_reused, i > 0);
  }
  EXPECT_TRUE(request->load_timing().socket_reused);
  EXPECT_EQ(factory_.sockets_created(), 1u);
  // Only the final response counts for the network delegate.
  EXPECT_EQ(network_delegate_.completed, std::vector<int>{OK});
  ExpectConsumed(data);
}

struct MethodCase {
  int status;
  const char* method;
  const char* next_method;
  bool keeps_body;
};

class URLRequestMethodTest : public URLRequestTest,
                             public ::testing::WithParamInterface<MethodCase> {
};

// RFC 9110 15.4 on the wire: the next hop's method, body and body headers.
TEST_P(URLRequestMethodTest, RedirectMethodRules) {
  const MethodCase& c = GetParam();
  const std::string body = "a=1&b=2";
  const std::string body_headers =
      "Content-Type: application/x-www-form-urlencoded\r\n";
  const std::vector<MockWrite> writes = {
      MockWrite(ASYNC, Req(c.method, "a.test", "/form",
                           absl::StrCat("X-Keep: 1\r\n", body_headers,
                                        "Content-Length: 7\r\n"),
                           body)),
      MockWrite(ASYNC, c.keeps_body
                           ? Req(c.next_method, "a.test", "/next",
                                 absl::StrCat("X-Keep: 1\r\n", body_headers,
                                              "Content-Length: 7\r\n"),
                                 body)
                           : Req(c.next_method, "a.test", "/next",
                                 std::string("X-Keep: 1\r\n") +
                                     (std::string(c.next_method) == "POST"
                                          ? "Content-Length: 0\r\n"
                                          : ""))),
  };
  const bool head = std::string(c.next_method) == "HEAD";
  StaticSocketDataProvider& data = AddSocket(
      writes,
      {MockRead(ASYNC, Redirect(c.status, "/next")),
       MockRead(ASYNC, head ? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
                            : Ok("ok"))});
  auto request = Create("http://a.test/form");
  request->set_method(c.method);
  request->set_upload_body(body);
  request->SetExtraRequestHeaders(
      {{"X-Keep", "1"}, {"Content-Type", "application/x-www-form-urlencoded"}});
  Run(request.get());
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, head ? "" : "ok");
  EXPECT_EQ(request->method(), c.next_method);
  EXPECT_EQ(request->upload_body_sent(), c.keeps_body);
  ASSERT_EQ(request->hops().size(), 1u);
  EXPECT_TRUE(request->hops()[0].upload_body_sent);
  EXPECT_EQ(request->hops()[0].method, c.method);
  ExpectConsumed(data);
}

INSTANTIATE_TEST_SUITE_P(
    Rfc9110, URLRequestMethodTest,
    ::testing::Values(MethodCase{301, "POST", "GET", false},
                      MethodCase{302, "POST", "GET", false},
                      MethodCase{303, "POST", "GET", false},
                      MethodCase{303, "PUT", "GET", false},
                      MethodCase{301, "PUT", "PUT", true},
                      MethodCase{307, "POST", "POST", true},
                      MethodCase{308, "POST", "POST", true},
                      MethodCase{308, "DELETE", "DELETE", true}));

TEST_F(URLRequestTest, HeadStaysHeadOn303) {
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Req("HEAD", "a.test", "/")),
       MockWrite(ASYNC, Req("HEAD", "a.test", "/other"))},
      {MockRead(ASYNC,
                "HTTP/1.1 303 See Other\r\nLocation: /other\r\n"
                "Content-Length: 100\r\n\r\n"),
       MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")});
  auto request = Create("http://a.test/");
  request->set_method("HEAD");
  Run(request.get());
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(request->method(), "HEAD");
  ExpectConsumed(data);
}

// A redirect to another origin gets its own connection, and neither the
// caller's Authorization nor its Cookie header goes with it.
// The caller's priority goes with every hop (HIGHEST by default).
TEST_F(URLRequestTest, PriorityGoesWithEveryHop) {
  AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/1")),
       MockWrite(ASYNC, Req("GET", "a.test", "/2"))},
      {MockRead(ASYNC, Redirect(302, "/2")), MockRead(ASYNC, Ok("done"))});
  URLRequest::Options options;
  options.priority = LOWEST;
  auto request = CreateAndRun("http://a.test/1", options);
  EXPECT_EQ(delegate_.result, OK) << request->error_detail();
  ASSERT_EQ(request->hops().size(), 1u);
  EXPECT_EQ(request->hops()[0].timing.priority, LOWEST);
  EXPECT_EQ(request->load_timing().priority, LOWEST);
  EXPECT_EQ(URLRequest::Options().priority, HIGHEST);
}

TEST_F(URLRequestTest, CrossOriginRedirectDropsCredentials) {
  StaticSocketDataProvider& data1 = AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/",
                            "Authorization: Bearer secret\r\nCookie: mine=1\r\n"
                            "X-Other: 1\r\n"))},
      {MockRead(ASYNC, Redirect(302, "http://b.test/"))});
  StaticSocketDataProvider& data2 =
      AddSocket({MockWrite(ASYNC, Req("GET", "b.test", "/", "X-Other: 1\r\n"))},
                {MockRead(ASYNC, Ok("b"))});
  auto request = Create("http://a.test/");
  request->SetExtraRequestHeaders({{"Authorization", "Bearer secret"},
                                   {"Cookie", "mine=1"},
                                   {"X-Other", "1"}});
  Run(request.get());
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "b");
  ASSERT_EQ(delegate_.redirects.size(), 1u);
  EXPECT_TRUE(delegate_.redirects[0].cross_origin);
  EXPECT_EQ(factory_.sockets_created(), 2u);
  ExpectConsumed(data1);
  ExpectConsumed(data2);
}

TEST_F(URLRequestTest, DefaultLimitIsTwentyRedirects) {
  for (int redirects : {20, 21}) {
    // Each case on a connection of its own: the previous case's script is
    // used up. (With scripts on the stack, the pooled connection used to
    // read the next case's script through a dangling pointer to the same
    // stack slot.)
    session_.CloseIdleSockets();
    std::vector<MockWrite> writes;
    std::vector<MockRead> reads;
    for (int i = 0; i <= redirects; ++i) {
      writes.emplace_back(ASYNC, Req("GET", "a.test", absl::StrCat("/", i)));
      reads.emplace_back(ASYNC, i < redirects
                                    ? Redirect(302, absl::StrCat("/", i + 1))
                                    : Ok("end"));
    }
    // The 21st redirect is refused before its target is asked for.
    if (redirects == 21) {
      writes.pop_back();
      reads.pop_back();
    }
    StaticSocketDataProvider& data = AddSocket(writes, reads);
    delegate_ = TestDelegate();
    auto request = CreateAndRun("http://a.test/0");
    if (redirects == 20) {
      EXPECT_EQ(delegate_.result, OK);
      EXPECT_EQ(request->redirect_count(), 20);
    } else {
      EXPECT_EQ(delegate_.response_started,
                std::vector<int>{ERR_TOO_MANY_REDIRECTS});
      EXPECT_EQ(request->status(), ERR_TOO_MANY_REDIRECTS);
      EXPECT_EQ(request->error_detail(),
                "maximum (20) redirects followed; next: http://a.test/21");
      EXPECT_EQ(request->redirect_count(), 20);
    }
    ExpectConsumed(data);
  }
}

TEST_F(URLRequestTest, MaxRedirectsOption) {
  StaticSocketDataProvider& data =
      AddSocket({MockWrite(ASYNC, Req("GET", "a.test", "/loop")),
                 MockWrite(ASYNC, Req("GET", "a.test", "/loop"))},
                {MockRead(ASYNC, Redirect(302, "/loop")),
                 MockRead(ASYNC, Redirect(302, "/loop"))});
  URLRequest::Options options;
  options.max_redirects = 1;
  auto request = CreateAndRun("http://a.test/loop", options);
  EXPECT_EQ(delegate_.result, ERR_TOO_MANY_REDIRECTS);
  EXPECT_EQ(delegate_.redirects.size(), 1u);
  EXPECT_EQ(network_delegate_.completed,
            std::vector<int>{ERR_TOO_MANY_REDIRECTS});
  ExpectConsumed(data);
}

TEST_F(URLRequestTest, UnsafeAndInvalidRedirectsAreRefused) {
  struct {
    const char* location;
    int error;
  } cases[] = {{"ftp://a.test/file", ERR_UNSAFE_REDIRECT},
               {"javascript:alert(1)", ERR_UNSAFE_REDIRECT},
               {"file:///etc/passwd", ERR_UNSAFE_REDIRECT},
               {"http://", ERR_INVALID_REDIRECT}};
  for (const auto& c : cases) {
    AddGetRoot({MockRead(ASYNC, Redirect(302, c.location))});
    delegate_ = TestDelegate();
    auto request = CreateAndRun("http://a.test/");
    EXPECT_EQ(delegate_.response_started, std::vector<int>{c.error})
        << c.location;
    EXPECT_TRUE(delegate_.redirects.empty());
    EXPECT_NE(request->error_detail().find(c.location), std::string::npos)
        << request->error_detail();
  }
}

// follow_redirects off (curl without -L): the redirect is the response, its
// body readable, redirect_info() says where it pointed.
TEST_F(URLRequestTest, RedirectNotFollowed) {
  StaticSocketDataProvider& data =
      AddSocket({MockWrite(ASYNC, Req("GET", "a.test", "/a")),
                 MockWrite(ASYNC, Req("GET", "a.test", "/b"))},
                {MockRead(ASYNC, Redirect(301, "/b")),
                 MockRead(ASYNC, Redirect(302, "ftp://a.test/"))});
  URLRequest::Options options;
  options.follow_redirects = false;
  auto request = CreateAndRun("http://a.test/a", options);
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "moved");
  EXPECT_TRUE(delegate_.redirects.empty());
  ASSERT_TRUE(request->redirect_info());
  EXPECT_EQ(request->redirect_info()->new_url.spec(), "http://a.test/b");
  EXPECT_EQ(request->response_headers()->status_code(), 301);
  // A Location that is no http(s) URL is no redirect_info, and no error.
  delegate_ = TestDelegate();
  auto second = CreateAndRun("http://a.test/b", options);
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_FALSE(second->redirect_info());
  ExpectConsumed(data);
}

TEST_F(URLRequestTest, DeferredRedirectFollowed) {
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/a")),
       MockWrite(ASYNC, Req("GET", "a.test", "/b"))},
      {MockRead(ASYNC, Redirect(307, "/b")), MockRead(ASYNC, Ok("there"))});
  delegate_.defer_redirects = true;
  auto request = CreateAndRun("http://a.test/a");
  ASSERT_EQ(delegate_.redirects.size(), 1u);
  EXPECT_EQ(delegate_.redirects[0].new_url.spec(), "http://a.test/b");
  EXPECT_TRUE(delegate_.response_started.empty());
  // Waiting: still at the redirect, nothing more asked.
  EXPECT_EQ(request->url().spec(), "http://a.test/a");
  EXPECT_EQ(request->response_headers()->status_code(), 307);
  EXPECT_FALSE(data.AllWriteDataConsumed());
  EXPECT_EQ(request->status(), ERR_IO_PENDING);
  request->FollowDeferredRedirect();
  EXPECT_TRUE(delegate_.response_started.empty()) << "not from inside";
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "there");
  EXPECT_EQ(request->url().spec(), "http://a.test/b");
  ExpectConsumed(data);
}

// Following from inside OnReceivedRedirect, deferred or not, follows once.
TEST_F(URLRequestTest, FollowFromInsideOnReceivedRedirect) {
  class FollowingDelegate : public TestDelegate {
   public:
    void OnReceivedRedirect(URLRequest* request, const RedirectInfo& info,
                            bool* defer) override {
      TestDelegate::OnReceivedRedirect(request, info, defer);
      *defer = true;
      request->FollowDeferredRedirect();
    }
  };
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/a")),
       MockWrite(ASYNC, Req("GET", "a.test", "/b"))},
      {MockRead(ASYNC, Redirect(302, "/b")), MockRead(ASYNC, Ok("followed"))});
  FollowingDelegate delegate;
  URLRequest request(&context_, *Url::Parse("http://a.test/a"), &delegate,
                     URLRequest::Options());
  Run(&request);
  EXPECT_EQ(delegate.redirects.size(), 1u);
  EXPECT_EQ(delegate.result, OK);
  EXPECT_EQ(delegate.body, "followed");
  ExpectConsumed(data);
}

TEST_F(URLRequestTest, DeferredRedirectCancelled) {
  AddSocket({MockWrite(ASYNC, Req("GET", "a.test", "/a"))},
            {MockRead(ASYNC, Redirect(302, "/b"))});
  delegate_.defer_redirects = true;
  auto request = CreateAndRun("http://a.test/a");
  ASSERT_EQ(delegate_.redirects.size(), 1u);
  const int calls = delegate_.calls;
  request->Cancel();
  request->FollowDeferredRedirect();  // too late: nothing happens
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.calls, calls);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  EXPECT_EQ(request->url().spec(), "http://a.test/a");
  EXPECT_EQ(request->response_headers()->status_code(), 302);
  EXPECT_EQ(network_delegate_.completed, std::vector<int>{ERR_ABORTED});
  EXPECT_EQ(factory_.sockets_created(), 1u);
}

// Cookies: set on a redirect hop, sent on the next hop to the same host and
// to a sibling the Domain covers, not to another site.
TEST_F(URLRequestTest, CookiesAcrossRedirects) {
  StaticSocketDataProvider& data1 = AddSocket(
      {MockWrite(ASYNC, Req("GET", "www.example.test", "/login")),
       MockWrite(ASYNC, Req("GET", "www.example.test", "/home",
                            "Cookie: host=1; site=2\r\n"))},
      {MockRead(ASYNC, Redirect(302, "/home",
                                "Set-Cookie: host=1\r\n"
                                "Set-Cookie: site=2; Domain=example.test\r\n"
                                "Set-Cookie: sec=3; Secure\r\n")),
       MockRead(ASYNC, Redirect(302, "http://api.example.test/"))});
  StaticSocketDataProvider& data2 = AddSocket(
      {MockWrite(ASYNC,
                 Req("GET", "api.example.test", "/", "Cookie: site=2\r\n"))},
      {MockRead(ASYNC, Redirect(302, "http://other.test/"))});
  StaticSocketDataProvider& data3 =
      AddSocket({MockWrite(ASYNC, Req("GET", "other.test", "/"))},
                {MockRead(ASYNC, Ok("elsewhere"))});
  auto request = CreateAndRun("http://www.example.test/login");
  EXPECT_EQ(delegate_.result, OK);
  ASSERT_EQ(request->hops().size(), 3u);
  EXPECT_EQ(request->hops()[0].cookie_header, "");
  // Secure from http is refused, and says why.
  ASSERT_EQ(request->hops()[0].rejected_cookies.size(), 1u);
  EXPECT_NE(request->hops()[0].rejected_cookies[0].find("Secure"),
            std::string::npos);
  EXPECT_EQ(request->hops()[1].cookie_header, "host=1; site=2");
  EXPECT_EQ(request->hops()[2].cookie_header, "site=2");
  EXPECT_EQ(request->cookie_header_sent(), "");
  EXPECT_EQ(jar_.size(), 2u);
  for (auto* data : {&data1, &data2, &data3}) ExpectConsumed(*data);
}

// The response that ends the load stores its cookies too, and a caller's
// own Cookie header replaces the jar's.
TEST_F(URLRequestTest, CallersCookieHeaderWins) {
  ASSERT_TRUE(
      jar_.SetCookie(*Url::Parse("http://a.test/"), "jar=1", absl::Now()).ok());
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/", "Cookie: mine=2\r\n")),
       MockWrite(ASYNC, Req("GET", "a.test", "/", "Cookie: jar=1; new=3\r\n"))},
      {MockRead(ASYNC, Ok("1", "Set-Cookie: new=3\r\n")),
       MockRead(ASYNC, Ok("2"))});
  auto first = Create("http://a.test/");
  first->AddExtraRequestHeader("Cookie", "mine=2");
  Run(first.get());
  EXPECT_EQ(first->cookie_header_sent(), "");
  auto second = CreateAndRun("http://a.test/");
  EXPECT_EQ(second->cookie_header_sent(), "jar=1; new=3");
  ExpectConsumed(data);
}

TEST_F(URLRequestTest, NoJarNoCookies) {
  context_.cookie_jar = nullptr;
  StaticSocketDataProvider& data =
      AddGetRoot({MockRead(ASYNC, Ok("x", "Set-Cookie: a=1\r\n"))});
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(jar_.size(), 0u);
  ExpectConsumed(data);
}

TEST_F(URLRequestTest, BodyLimitByContentLength) {
  AddGetRoot(
      {MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n")});
  URLRequest::Options options;
  options.max_body_bytes = 10;
  auto request = CreateAndRun("http://a.test/", options);
  EXPECT_EQ(delegate_.response_started, std::vector<int>{ERR_FILE_TOO_BIG});
  EXPECT_NE(request->error_detail().find("10-byte limit"), std::string::npos);
  // The head is there to look at.
  EXPECT_EQ(request->response_headers()->content_length(), 11);
}

TEST_F(URLRequestTest, BodyLimitWhileReading) {
  for (int limit : {10, 9}) {
    // Each case on a connection of its own: the previous case's script is
    // used up. (With scripts on the stack, the pooled connection used to
    // read the next case's script through a dangling pointer to the same
    // stack slot.)
    session_.CloseIdleSockets();
    AddGetRoot({MockRead(ASYNC,
                         "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
                         "chunked\r\n\r\n5\r\n12345\r\n"),
                MockRead(ASYNC, "5\r\n67890\r\n0\r\n\r\n")});
    URLRequest::Options options;
    options.max_body_bytes = limit;
    delegate_ = TestDelegate();
    delegate_.read_size = 5;
    auto request = CreateAndRun("http://a.test/", options);
    if (limit == 10) {
      EXPECT_EQ(delegate_.result, OK);
      EXPECT_EQ(delegate_.body, "1234567890");
    } else {
      EXPECT_EQ(delegate_.result, ERR_FILE_TOO_BIG);
      // Never more than the limit.
      EXPECT_LE(delegate_.body.size(), 9u);
      EXPECT_EQ(std::string("1234567890").find(delegate_.body), 0u);
      EXPECT_EQ(request->status(), ERR_FILE_TOO_BIG);
    }
  }
}

struct EncodingCase {
  const char* name;
  const char* header;
  std::string (*encode)(const std::string&);
};

class URLRequestDecodingTest
    : public URLRequestTest,
      public ::testing::WithParamInterface<EncodingCase> {
 protected:
  // The head of a 200 response whose |length|-byte body is in the coding
  // under test.
  static std::string EncodedHead(size_t length) {
    return absl::StrCat(
        "HTTP/1.1 200 OK\r\nContent-Encoding: ", GetParam().header,
        "\r\nContent-Length: ", length, "\r\n\r\n");
  }
  // The next connection: a GET of http://a.test/ that asks for every coding
  // we decode, answered by |reads|.
  StaticSocketDataProvider& AddDecodingGet(std::vector<MockRead> reads) {
    return AddSocket(
        {MockWrite(ASYNC, Req("GET", "a.test", "/",
                              "Accept-Encoding: gzip, deflate, br\r\n"))},
        std::move(reads));
  }
  // Options with decode_content on.
  static URLRequest::Options Decoding() {
    URLRequest::Options options;
    options.decode_content = true;
    return options;
  }
};

TEST_P(URLRequestDecodingTest, DecodesWhenAsked) {
  std::string text;
  for (int i = 0; i < 3000; ++i) absl::StrAppend(&text, "row ", i, "\n");
  const std::string encoded = GetParam().encode(text);
  // The body in three pieces.
  const size_t third = encoded.size() / 3;
  StaticSocketDataProvider& data = AddDecodingGet(
      {MockRead(ASYNC, EncodedHead(encoded.size()) + encoded.substr(0, 10)),
       MockRead(SYNC, encoded.substr(10, third)),
       MockRead(ASYNC, encoded.substr(10 + third))});
  delegate_.read_size = 1000;
  auto request = CreateAndRun("http://a.test/", Decoding());
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, text);
  EXPECT_EQ(request->body_bytes_read(), static_cast<int64_t>(text.size()));
  EXPECT_EQ(request->received_body_bytes(),
            static_cast<int64_t>(encoded.size()));
  ExpectConsumed(data);
}

TEST_P(URLRequestDecodingTest, TruncatedStreamFails) {
  std::string text(5000, 'x');
  for (size_t i = 0; i < text.size(); i += 7) text[i] = 'a' + i % 26;
  std::string encoded = GetParam().encode(text);
  encoded.resize(encoded.size() / 2);
  AddDecodingGet({MockRead(ASYNC, EncodedHead(encoded.size()) + encoded)});
  auto request = CreateAndRun("http://a.test/", Decoding());
  EXPECT_EQ(delegate_.result, ERR_CONTENT_DECODING_FAILED);
  EXPECT_EQ(request->status(), ERR_CONTENT_DECODING_FAILED);
  EXPECT_FALSE(request->error_detail().empty());
  EXPECT_EQ(text.compare(0, delegate_.body.size(), delegate_.body), 0);
}

// A decompression bomb stops at the limit on decoded bytes.
TEST_P(URLRequestDecodingTest, BombStopsAtTheLimit) {
  const std::string bomb = GetParam().encode(std::string(32 << 20, '\0'));
  ASSERT_LT(bomb.size(), 64u << 10);
  AddDecodingGet({MockRead(ASYNC, EncodedHead(bomb.size()) + bomb)});
  URLRequest::Options options = Decoding();
  options.max_body_bytes = 1 << 20;
  delegate_.read_size = 64 << 10;
  auto request = CreateAndRun("http://a.test/", options);
  EXPECT_EQ(delegate_.result, ERR_FILE_TOO_BIG);
  EXPECT_LE(delegate_.body.size(), 1u << 20);
  EXPECT_GE(delegate_.body.size(), (1u << 20) - (64u << 10));
  EXPECT_NE(request->error_detail().find("decoded body exceeds"),
            std::string::npos)
      << request->error_detail();
}

INSTANTIATE_TEST_SUITE_P(
    Codings, URLRequestDecodingTest,
    ::testing::Values(
        EncodingCase{"gzip", "gzip",
                     [](const std::string& s) { return Gzip(s); }},
        EncodingCase{"deflate", "deflate",
                     [](const std::string& s) { return Gzip(s, 15); }},
        EncodingCase{"raw_deflate", "deflate",
                     [](const std::string& s) { return Gzip(s, -15); }},
        EncodingCase{"br", "br", Brotli},
        EncodingCase{"br_gzip", "br, gzip",
                     [](const std::string& s) { return Gzip(Brotli(s)); }}),
    [](const ::testing::TestParamInfo<EncodingCase>& info) {
      return info.param.name;
    });

// Without decode_content: no Accept-Encoding, and the body as it came.
TEST_F(URLRequestTest, RawBodyUnlessAsked) {
  const std::string encoded = Gzip("compressed");
  StaticSocketDataProvider& data =
      AddGetRoot({MockRead(ASYNC, Ok(encoded, "Content-Encoding: gzip\r\n"))});
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, encoded);
  ExpectConsumed(data);
}

// An unknown coding is handed on as it came (as Chromium does); an empty
// body (HEAD) with a Content-Encoding is an empty body.
TEST_F(URLRequestTest, UnknownCodingAndEmptyBodies) {
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/", "Accept-Encoding: zstd\r\n")),
       MockWrite(ASYNC, Req("HEAD", "a.test", "/",
                            "Accept-Encoding: gzip, deflate, br\r\n"))},
      {MockRead(ASYNC, Ok("zstd bytes", "Content-Encoding: zstd\r\n")),
       MockRead(ASYNC,
                "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
                "Content-Length: 40\r\n\r\n")});
  URLRequest::Options options;
  options.decode_content = true;
  auto request = Create("http://a.test/", options);
  request->AddExtraRequestHeader("Accept-Encoding", "zstd");
  Run(request.get());
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "zstd bytes");
  delegate_ = TestDelegate();
  auto head = Create("http://a.test/", options);
  head->set_method("HEAD");
  Run(head.get());
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "");
  ExpectConsumed(data);
}

// Cancel in each phase: no delegate call afterwards, ERR_ABORTED, and what
// happened so far stays readable.
TEST_F(URLRequestTest, CancelBeforeTheResponse) {
  AddGetRoot({MockRead(ASYNC, ERR_IO_PENDING)});  // never answers
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.calls, 0);
  request->Cancel();
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.calls, 0);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  EXPECT_EQ(request->response_headers(), nullptr);
  EXPECT_FALSE(request->load_timing().request_start.is_null());
  auto buf = std::make_shared<IOBuffer>(10);
  EXPECT_EQ(request->Read(buf, 10), ERR_ABORTED);
  EXPECT_EQ(network_delegate_.completed, std::vector<int>{ERR_ABORTED});
}

TEST_F(URLRequestTest, CancelBeforeStartRuns) {
  auto request = Create("http://a.test/");
  request->Start();
  request->Cancel();  // the start task has not run yet
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.calls, 0);
  EXPECT_EQ(factory_.sockets_created(), 0u);
  EXPECT_EQ(request->status(), ERR_ABORTED);
}

TEST_F(URLRequestTest, CancelInOnReceivedRedirect) {
  AddGetRoot({MockRead(ASYNC, Redirect(302, "/b"))});
  delegate_.cancel_in_redirect = true;
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.calls, 1);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  EXPECT_TRUE(request->hops().empty());
  EXPECT_EQ(factory_.sockets_created(), 1u);
}

TEST_F(URLRequestTest, CancelWhileDrainingARedirectBody) {
  AddGetRoot({MockRead(ASYNC,
                       "HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: "
                       "100\r\n\r\nonly part"),
              MockRead(ASYNC, ERR_IO_PENDING)});
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.calls, 1);  // the redirect; then the drain waits
  request->Cancel();
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.calls, 1);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  EXPECT_EQ(request->response_headers()->status_code(), 302);
}

// A redirect body that breaks its framing fails the load (curl does too).
TEST_F(URLRequestTest, BrokenRedirectBodyFails) {
  AddGetRoot({MockRead(ASYNC,
                       "HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: "
                       "100\r\n\r\nonly part"),
              MockRead(ASYNC, OK)});  // EOF
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.response_started,
            std::vector<int>{ERR_CONTENT_LENGTH_MISMATCH});
}

// A redirect body too long to drain: its connection is closed and the next
// hop gets a new one.
TEST_F(URLRequestTest, LongRedirectBodyIsNotDrained) {
  const std::string big(URLRequest::kMaxRedirectBodyDrain + 100000, 'r');
  AddGetRoot(
      {MockRead(ASYNC, absl::StrCat("HTTP/1.1 302 Found\r\nLocation: /b\r\n"
                                    "Content-Length: ",
                                    big.size(), "\r\n\r\n")),
       MockRead(ASYNC, big)});
  StaticSocketDataProvider& data2 =
      AddSocket({MockWrite(ASYNC, Req("GET", "a.test", "/b"))},
                {MockRead(ASYNC, Ok("b"))});
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "b");
  EXPECT_EQ(factory_.sockets_created(), 2u);
  ExpectConsumed(data2);
}

TEST_F(URLRequestTest, CancelInOnResponseStarted) {
  AddGetRoot({MockRead(ASYNC, Ok("body"))});
  delegate_.cancel_in_response_started = true;
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.calls, 1);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  EXPECT_EQ(request->response_headers()->status_code(), 200);
  EXPECT_EQ(request->load_timing().status_code, 200);
}

TEST_F(URLRequestTest, CancelDuringARead) {
  AddGetRoot({MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n"),
              MockRead(ASYNC, "0123456789"), MockRead(ASYNC, ERR_IO_PENDING)});
  delegate_.read_size = 10;
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.body, "0123456789");
  EXPECT_EQ(delegate_.result, 1);  // a read is pending
  const int calls = delegate_.calls;
  request->Cancel();
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.calls, calls);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  EXPECT_EQ(network_delegate_.completed, std::vector<int>{ERR_ABORTED});
}

TEST_F(URLRequestTest, CancelFromOnReadCompleted) {
  AddGetRoot({MockRead(ASYNC, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n"),
              MockRead(ASYNC, "0123456789"), MockRead(ASYNC, "0123456789")});
  delegate_.read_size = 10;
  delegate_.cancel_after_async_reads = 1;
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.async_reads, 1);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  // The socket is not reused: its body was not read to the end.
  EXPECT_EQ(session_.idle_socket_count(), 0u);
}

TEST_F(URLRequestTest, CancelAfterTheEndIsANoOp) {
  AddGetRoot({MockRead(ASYNC, Ok("body"))});
  auto request = CreateAndRun("http://a.test/");
  ASSERT_EQ(delegate_.result, OK);
  request->Cancel();
  EXPECT_EQ(request->status(), OK);
  EXPECT_EQ(network_delegate_.completed, std::vector<int>{OK});
}

TEST_F(URLRequestTest, DeleteFromOnResponseStarted) {
  AddGetRoot({MockRead(ASYNC, Ok("body"))});
  auto request = Create("http://a.test/");
  delegate_.delete_in_response_started = true;
  delegate_.owner = &request;
  Run(request.get());
  EXPECT_EQ(request, nullptr);
  EXPECT_EQ(delegate_.calls, 1);
}

TEST_F(URLRequestTest, ConnectionErrorIsReported) {
  AddSocket({}, {}).set_connect_data(
      MockConnect(ASYNC, ERR_CONNECTION_REFUSED));
  auto request = CreateAndRun("http://a.test/");
  EXPECT_EQ(delegate_.response_started,
            std::vector<int>{ERR_CONNECTION_REFUSED});
  EXPECT_EQ(request->status(), ERR_CONNECTION_REFUSED);
  EXPECT_FALSE(request->error_detail().empty());
  EXPECT_EQ(request->response_headers(), nullptr);
  EXPECT_EQ(network_delegate_.completed,
            std::vector<int>{ERR_CONNECTION_REFUSED});
}

// A DeviceBoundSessionDelegate that tests drive: it defers a request once
// (as a session needing a refresh does) until Release(), which stores the
// "refreshed" cookie first; it records every response head.
class FakeDbscDelegate : public DeviceBoundSessionDelegate {
 public:
  class Wait : public Deferral {
   public:
    explicit Wait(FakeDbscDelegate* owner) : owner_(owner) {}
    ~Wait() override {
      ++owner_->waits_destroyed;
      if (owner_->pending_ == this) owner_->pending_ = nullptr;
    }
    CompletionOnceCallback callback;
    DeviceBoundSessionRequestState* state = nullptr;

   private:
    FakeDbscDelegate* const owner_;
  };

  int MaybeDeferRequest(const Url& url, const Origin& initiator,
                        DeviceBoundSessionRequestState* state,
                        CompletionOnceCallback callback,
                        std::unique_ptr<Deferral>* out) override {
    asked.push_back(url.spec());
    initiators.push_back(initiator.Serialize());
    if (!skip_note.empty()) state->skipped = {skip_note};
    if (!defer || !state->deferred_sessions.empty()) return OK;
    state->deferred_sessions.emplace_back("a.test", "s1");
    auto wait = std::make_unique<Wait>(this);
    wait->callback = std::move(callback);
    wait->state = state;
    pending_ = wait.get();
    *out = std::move(wait);
    return ERR_IO_PENDING;
  }

  void OnResponseHeaders(const Url& url, const Origin& initiator,
                         const HttpResponseHeaders& headers,
                         DeviceBoundSessionRequestState* state) override {
    responses.push_back(absl::StrCat(url.spec(), " ", headers.status_code()));
    if (headers.GetHeader("secure-session-registration")) {
      state->trace.role = DbscRole::kRegistering;
      state->trace.outcome = DbscOutcome::kStarted;
    }
  }

  // The refresh ended: |cookie| is in the jar, the trace says so, and the
  // request hears of it from a task (never synchronously).
  void Release(CookieJar* jar, const std::string& cookie) {
    ASSERT_NE(pending_, nullptr);
    ASSERT_TRUE(
        jar->SetCookie(*Url::Parse("http://a.test/"), cookie, absl::Now())
            .ok());
    pending_->state->trace.role = DbscRole::kRequest;
    pending_->state->trace.outcome = DbscOutcome::kRefreshed;
    pending_->state->trace.session_id = "s1";
    pending_->state->trace.deferred = absl::Milliseconds(5);
    EventLoop::Current()->PostTask(
        [cb = std::move(pending_->callback)]() mutable { std::move(cb)(OK); });
  }
  bool waiting() const { return pending_ != nullptr; }

  bool defer = false;
  std::string skip_note;
  std::vector<std::string> asked;
  std::vector<std::string> initiators;
  std::vector<std::string> responses;
  int waits_destroyed = 0;

 private:
  Wait* pending_ = nullptr;
};

// A hop whose session needs a refresh waits, sends nothing, and then goes
// with the cookie the refresh stored; the trace says it was deferred.
TEST_F(URLRequestTest, DeviceBoundSessionDefersUntilTheRefreshEnded) {
  FakeDbscDelegate dbsc;
  dbsc.defer = true;
  context_.device_bound_sessions = &dbsc;
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/p", "Cookie: auth=fresh\r\n"))},
      {MockRead(ASYNC, Ok("protected"))});
  auto request = CreateAndRun("http://a.test/p");
  EXPECT_TRUE(dbsc.waiting());
  EXPECT_EQ(delegate_.calls, 0);
  EXPECT_EQ(factory_.sockets_created(), 0u);
  dbsc.Release(&jar_, "auth=fresh");
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(delegate_.body, "protected");
  EXPECT_EQ(request->cookie_header_sent(), "auth=fresh");
  // Asked twice: before the wait and after it (then not deferred again).
  EXPECT_EQ(dbsc.asked,
            (std::vector<std::string>{"http://a.test/p", "http://a.test/p"}));
  EXPECT_EQ(dbsc.initiators[0], "http://a.test");
  EXPECT_EQ(dbsc.responses, std::vector<std::string>{"http://a.test/p 200"});
  const DbscTrace& trace = request->load_timing().dbsc;
  EXPECT_EQ(trace.role, DbscRole::kRequest);
  EXPECT_EQ(trace.outcome, DbscOutcome::kRefreshed);
  EXPECT_EQ(trace.deferred, absl::Milliseconds(5));
  EXPECT_NE(
      LoadTimingToJson(request->load_timing()).find("\"deferredMs\":5.000"),
      std::string::npos);
  ExpectConsumed(data);
}

TEST_F(URLRequestTest, DeviceBoundSessionCancelWhileDeferred) {
  FakeDbscDelegate dbsc;
  dbsc.defer = true;
  context_.device_bound_sessions = &dbsc;
  auto request = CreateAndRun("http://a.test/p");
  ASSERT_TRUE(dbsc.waiting());
  request->Cancel();
  EXPECT_FALSE(dbsc.waiting());
  EXPECT_EQ(dbsc.waits_destroyed, 1);
  loop_.RunUntilIdle();
  EXPECT_EQ(delegate_.calls, 0);
  EXPECT_EQ(request->status(), ERR_ABORTED);
  // Destroying a deferred request ends its wait too.
  auto second = CreateAndRun("http://a.test/q");
  ASSERT_TRUE(dbsc.waiting());
  second.reset();
  EXPECT_FALSE(dbsc.waiting());
  EXPECT_EQ(factory_.sockets_created(), 0u);
}

// Secure-Session-Skipped goes on the hop after a failed refresh; every
// hop's response head is handed over, and each hop's trace is its own.
TEST_F(URLRequestTest, DeviceBoundSessionHeadersAndTracePerHop) {
  FakeDbscDelegate dbsc;
  dbsc.skip_note = "unreachable;session_identifier=\"s1\"";
  context_.device_bound_sessions = &dbsc;
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC,
                 Req("GET", "a.test", "/login",
                     "Secure-Session-Skipped: unreachable;session_identifier="
                     "\"s1\"\r\n")),
       MockWrite(ASYNC,
                 Req("GET", "a.test", "/home",
                     "Secure-Session-Skipped: unreachable;session_identifier="
                     "\"s1\"\r\n"))},
      {MockRead(
           ASYNC,
           Redirect(302, "/home",
                    "Secure-Session-Registration: (ES256);path=\"r\"\r\n")),
       MockRead(ASYNC, Ok("home"))});
  auto request = CreateAndRun("http://a.test/login");
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_EQ(dbsc.responses,
            (std::vector<std::string>{"http://a.test/login 302",
                                      "http://a.test/home 200"}));
  ASSERT_EQ(request->hops().size(), 1u);
  EXPECT_EQ(request->hops()[0].timing.dbsc.role, DbscRole::kRegistering);
  EXPECT_EQ(request->load_timing().dbsc.role, DbscRole::kNone);
  EXPECT_EQ(LoadTimingToJson(request->load_timing()).find("dbsc"),
            std::string::npos);
  ExpectConsumed(data);
}

// A caller's own Cookie header leaves the jar, and DBSC's deferral, out
// (its response still reaches DBSC, as its Set-Cookie reaches the jar).
TEST_F(URLRequestTest, DeviceBoundSessionNotAskedWithTheCallersCookie) {
  FakeDbscDelegate dbsc;
  dbsc.defer = true;
  context_.device_bound_sessions = &dbsc;
  StaticSocketDataProvider& data = AddSocket(
      {MockWrite(ASYNC, Req("GET", "a.test", "/", "Cookie: mine=1\r\n"))},
      {MockRead(ASYNC, Ok("x"))});
  auto request = Create("http://a.test/");
  request->AddExtraRequestHeader("Cookie", "mine=1");
  Run(request.get());
  EXPECT_EQ(delegate_.result, OK);
  EXPECT_TRUE(dbsc.asked.empty());
  EXPECT_EQ(dbsc.responses, std::vector<std::string>{"http://a.test/ 200"});
  ExpectConsumed(data);
}

}  // namespace
}  // namespace net
