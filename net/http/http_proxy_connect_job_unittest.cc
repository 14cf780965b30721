// HttpProxyConnectJob's CONNECT state machine over scripted sockets
// (MockClientSocketFactory): the exact request, a 200 whole and one byte
// per read, 407 with and without credentials, 403/502/1xx, malformed
// replies, a reply whose headers never end (cut off at the bound, reading
// no further), the connection closed or reset mid-reply, bytes after the
// 200, a proxy that never answers (ERR_TIMED_OUT within the connect
// timeout), the proxy unreachable or unresolvable; and SSLConnectJob
// running TLS (BoringSSL and the Snap Start core alike) over the tunnel,
// with the origin's name never resolved by the client.

#include "net/http/http_proxy_connect_job.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"
#include "net/http/ssl_connect_job.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/socket/socket_test_util.h"
#include "net/ssl/ssl_test_util.h"

namespace net {
namespace {

constexpr char kConnect[] =
    "CONNECT www.example.test:443 HTTP/1.1\r\n"
    "Host: www.example.test:443\r\n"
    "\r\n";
constexpr char k200[] = "HTTP/1.1 200 Connection established\r\n\r\n";

// Answers proxy.test with 127.0.0.9, anything else with 127.0.0.1 (so a
// lookup of the origin would not fail: the test checks it never happens),
// or with |error|; records every name asked.
class RecordingResolver : public HostResolver {
 public:
  std::vector<std::string> asked;
  int error = OK;
  int Resolve(const std::string& host, uint16_t, HostResolveResult* result,
              CompletionOnceCallback, std::unique_ptr<Request>*) override {
    asked.push_back(host);
    if (error != OK) {
      result->detail = "scripted failure";
      return error;
    }
    result->source = DnsSource::kNetwork;
    result->addresses = {host == "proxy.test" ? *IPAddress::Parse("127.0.0.9")
                                              : IPAddress::IPv4Localhost()};
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

class HttpProxyConnectJobTest : public ::testing::Test {
 protected:
  HttpProxyConnectJobParams Params(
      const char* proxy = "http://proxy.test:3128") {
    HttpProxyConnectJobParams params;
    params.proxy = *ProxyServer::Parse(proxy);
    params.host = "www.example.test";
    params.port = 443;
    return params;
  }

  // Runs a job over |data| and returns its result.
  int Run(StaticSocketDataProvider* data, HttpProxyConnectJobParams params) {
    factory_.AddSocketDataProvider(data);
    job_ = std::make_unique<HttpProxyConnectJob>(&resolver_, &factory_,
                                                 std::move(params));
    TestCompletionCallback cb;
    return cb.GetResult(job_->Connect(cb.callback()));
  }

  EventLoop loop_;
  RecordingResolver resolver_;
  MockClientSocketFactory factory_;
  std::unique_ptr<HttpProxyConnectJob> job_;
};

TEST_F(HttpProxyConnectJobTest, BuildsTheConnectRequest) {
  EXPECT_EQ(HttpProxyConnectJob::BuildConnectRequest(Params()), kConnect);
  HttpProxyConnectJobParams params = Params("http://u%40x:p%3Aw@proxy.test");
  params.host = "::1";
  params.port = 8443;
  // base64("u@x:p:w")
  EXPECT_EQ(HttpProxyConnectJob::BuildConnectRequest(params),
            "CONNECT [::1]:8443 HTTP/1.1\r\n"
            "Host: [::1]:8443\r\n"
            "Proxy-Authorization: Basic dUB4OnA6dw==\r\n"
            "\r\n");
}

TEST_F(HttpProxyConnectJobTest, TunnelOpensOn200) {
  MockRead reads[] = {MockRead(ASYNC, k200)};
  MockWrite writes[] = {MockWrite(ASYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  EXPECT_EQ(OK, Run(&data, Params()));
  EXPECT_EQ(ConnectJob::Phase::kDone, job_->phase());
  EXPECT_EQ(200, job_->tunnel_status());
  EXPECT_TRUE(job_->TakeSocket());
  EXPECT_TRUE(data.AllReadDataConsumed());
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty());
  // Only the proxy's name was looked up; the connection went to it.
  EXPECT_EQ(resolver_.asked, std::vector<std::string>{"proxy.test"});
  const ConnectTiming t = job_->timing();
  EXPECT_EQ("127.0.0.9:3128", t.remote_address);
  EXPECT_FALSE(t.connect_start.is_null());
  EXPECT_LE(t.connect_start, t.connect_end);
  // No Fast Open to the proxy.
  ASSERT_EQ(1u, factory_.tcp_options().size());
  EXPECT_EQ(TcpFastOpenMode::kOff, factory_.tcp_options()[0].fast_open);
}

TEST_F(HttpProxyConnectJobTest, ReplyOneBytePerReadWithHeadersAndHttp10) {
  const std::string reply =
      "HTTP/1.0 200 Connection established\r\n"
      "Proxy-agent: tinyproxy/1.11.1\r\n"
      "Content-Length: 12\r\n"  // ignored in a 2xx to CONNECT (RFC 9110)
      "\r\n";
  std::vector<MockRead> reads;
  for (char c : reply) reads.emplace_back(SYNC, std::string(1, c));
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  EXPECT_EQ(OK, Run(&data, Params()));
  EXPECT_TRUE(data.AllReadDataConsumed());
  EXPECT_TRUE(job_->TakeSocket());
}

TEST_F(HttpProxyConnectJobTest, CredentialsGoInProxyAuthorization) {
  MockRead reads[] = {MockRead(SYNC, "HTTP/1.1 204 No Content\r\n\r\n")};
  MockWrite writes[] = {
      MockWrite(SYNC,
                "CONNECT www.example.test:443 HTTP/1.1\r\n"
                "Host: www.example.test:443\r\n"
                "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n"
                "\r\n")};
  StaticSocketDataProvider data(reads, writes);
  EXPECT_EQ(OK,
            Run(&data, Params("http://Aladdin:open%20sesame@proxy.test:3128")));
  EXPECT_TRUE(data.write_mismatches().empty());
  EXPECT_EQ(204, job_->tunnel_status());
}

TEST_F(HttpProxyConnectJobTest, Status407IsProxyAuthRequested) {
  const char kReply[] =
      "HTTP/1.1 407 Proxy Authentication Required\r\n"
      "Proxy-Authenticate: Basic realm=\"corp\"\r\n"
      "Content-Length: 0\r\n\r\n";
  {
    MockRead reads[] = {MockRead(ASYNC, kReply)};
    MockWrite writes[] = {MockWrite(SYNC, kConnect)};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_PROXY_AUTH_REQUESTED, Run(&data, Params()));
    EXPECT_EQ(407, job_->tunnel_status());
    EXPECT_EQ(ConnectJob::Phase::kProxyTunnel, job_->phase());
    EXPECT_FALSE(job_->TakeSocket());
    EXPECT_EQ(job_->error_detail(),
              "the proxy http://proxy.test:3128 (tunnel to "
              "www.example.test:443): answered CONNECT with 407 Proxy "
              "Authentication Required: no credentials were given (put them "
              "in the proxy URL: http://user:password@host:port); it asks "
              "for: Basic realm=\\\"corp\\\"");
  }
  {
    HttpProxyConnectJobParams params = Params("http://u:wrong@proxy.test:3128");
    MockRead reads[] = {MockRead(ASYNC, kReply)};
    MockWrite writes[] = {
        MockWrite(SYNC, HttpProxyConnectJob::BuildConnectRequest(params))};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_PROXY_AUTH_REQUESTED, Run(&data, std::move(params)));
    EXPECT_TRUE(absl::StrContains(job_->error_detail(),
                                  "it refused the Basic credentials given"))
        << job_->error_detail();
    // The password never appears in the detail.
    EXPECT_FALSE(absl::StrContains(job_->error_detail(), "wrong"));
  }
}

TEST_F(HttpProxyConnectJobTest, OtherStatusesAreTunnelConnectionFailed) {
  struct Case {
    const char* reply;
    int status;
    const char* says;
  } cases[] = {
      {"HTTP/1.0 403 Access violation\r\n\r\n", 403,
       "answered CONNECT with 403 Access violation"},
      {"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 5\r\n\r\n", 502,
       "answered CONNECT with 502 Bad Gateway"},
      {"HTTP/1.1 404 \r\n\r\n", 404, "answered CONNECT with 404"},
      {"HTTP/1.1 100 Continue\r\n\r\n", 100, "answered CONNECT with 100"},
      {"HTTP/1.1 301 Moved\r\nLocation: http://elsewhere/\r\n\r\n", 301,
       "answered CONNECT with 301 Moved"},
  };
  for (const Case& c : cases) {
    MockRead reads[] = {MockRead(ASYNC, c.reply)};
    MockWrite writes[] = {MockWrite(SYNC, kConnect)};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params())) << c.reply;
    EXPECT_EQ(c.status, job_->tunnel_status()) << c.reply;
    EXPECT_TRUE(absl::StrContains(job_->error_detail(), c.says))
        << job_->error_detail();
    EXPECT_FALSE(job_->TakeSocket());
  }
}

TEST_F(HttpProxyConnectJobTest, MalformedRepliesAreTunnelConnectionFailed) {
  for (const char* reply : {
           "garbage\r\n\r\n",
           "HTTP/1.1 2OO OK\r\n\r\n",
           "HTTP/1.1 200 OK\rX: y\r\n\r\n",  // bare CR
           "HTTP/9.9 200 OK\r\n\r\n",
           "\r\n",
       }) {
    MockRead reads[] = {MockRead(ASYNC, reply)};
    MockWrite writes[] = {MockWrite(SYNC, kConnect)};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params())) << reply;
    EXPECT_TRUE(absl::StrContains(job_->error_detail(), "malformed reply"))
        << job_->error_detail();
  }
  // A NUL inside the header block.
  const char kWithNul[] = "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n";
  const std::string with_nul(kWithNul, sizeof(kWithNul) - 1);
  MockRead reads[] = {MockRead(ASYNC, with_nul)};
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params()));
  EXPECT_TRUE(absl::StrContains(job_->error_detail(), "malformed reply"))
      << job_->error_detail();
}

TEST_F(HttpProxyConnectJobTest, EndlessHeadersAreCutOffAtTheBound) {
  // 200 reads of 4 KB of header lines that never end: 800 KB offered.
  std::vector<MockRead> reads;
  reads.emplace_back(ASYNC, "HTTP/1.1 200 OK\r\n");
  const std::string line = "X-Filler: " + std::string(4084, 'a') + "\r\n";
  for (int i = 0; i < 200; ++i) reads.emplace_back(i % 2 ? ASYNC : SYNC, line);
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  EXPECT_EQ(ERR_RESPONSE_HEADERS_TOO_BIG, Run(&data, Params()));
  EXPECT_EQ(job_->error_detail(),
            "the proxy http://proxy.test:3128 (tunnel to "
            "www.example.test:443): the reply to CONNECT passed 65536 bytes "
            "without ending its headers");
  // It stopped reading at the bound: 17 lines of 4 KB.
  EXPECT_FALSE(data.AllReadDataConsumed());
  size_t left = 0;
  for (; !data.AllReadDataConsumed(); ++left) data.NextRead();
  EXPECT_GE(left, 180u);
}

TEST_F(HttpProxyConnectJobTest, ConnectionClosedOrResetMidReply) {
  {
    MockRead reads[] = {MockRead(ASYNC, "HTTP/1.1 200 OK\r\nX: y"),
                        MockRead(ASYNC, 0)};
    MockWrite writes[] = {MockWrite(SYNC, kConnect)};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params()));
    EXPECT_TRUE(absl::StrContains(
        job_->error_detail(),
        "the proxy closed the connection after 21 bytes of an incomplete "
        "reply to CONNECT"))
        << job_->error_detail();
  }
  {
    MockRead reads[] = {MockRead(SYNC, 0)};
    MockWrite writes[] = {MockWrite(SYNC, kConnect)};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params()));
    EXPECT_TRUE(absl::StrContains(
        job_->error_detail(),
        "the proxy closed the connection without answering CONNECT"))
        << job_->error_detail();
  }
  {
    MockRead reads[] = {MockRead(ASYNC, "HTTP/1.1 200"),
                        MockRead(ASYNC, ERR_CONNECTION_RESET)};
    MockWrite writes[] = {MockWrite(SYNC, kConnect)};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params()));
    EXPECT_TRUE(absl::StrContains(job_->error_detail(),
                                  "reading the reply to CONNECT failed after "
                                  "12 bytes (ERR_CONNECTION_RESET)"))
        << job_->error_detail();
  }
  {
    MockWrite writes[] = {MockWrite(ASYNC, ERR_CONNECTION_RESET)};
    StaticSocketDataProvider data({}, writes);
    EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params()));
    EXPECT_TRUE(absl::StrContains(
        job_->error_detail(), "sending CONNECT failed (ERR_CONNECTION_RESET)"))
        << job_->error_detail();
  }
}

TEST_F(HttpProxyConnectJobTest, PartialWritesAreCompleted) {
  const std::string request = kConnect;
  MockRead reads[] = {MockRead(SYNC, k200)};
  MockWrite writes[] = {MockWrite(SYNC, request.substr(0, 10)),
                        MockWrite(ASYNC, request.substr(10, 20)),
                        MockWrite(SYNC, request.substr(30))};
  StaticSocketDataProvider data(reads, writes);
  EXPECT_EQ(OK, Run(&data, Params()));
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty());
}

TEST_F(HttpProxyConnectJobTest, BytesAfterThe200AreRefusedNotFedToTls) {
  for (IoMode mode : {SYNC, ASYNC}) {
    MockRead reads[] = {
        MockRead(mode, std::string(k200) + "\x16\x03\x03 early bytes")};
    MockWrite writes[] = {MockWrite(SYNC, kConnect)};
    StaticSocketDataProvider data(reads, writes);
    EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, Run(&data, Params()));
    EXPECT_EQ(200, job_->tunnel_status());
    EXPECT_TRUE(absl::StrContains(
        job_->error_detail(),
        "answered CONNECT with 200 Connection established and then sent 15 "
        "more bytes before the client spoke"))
        << job_->error_detail();
    EXPECT_FALSE(job_->TakeSocket());
  }
}

TEST_F(HttpProxyConnectJobTest, AProxyThatNeverAnswersTimesOut) {
  MockRead reads[] = {MockRead(ASYNC, ERR_IO_PENDING)};  // stalls forever
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  HttpProxyConnectJobParams params = Params();
  params.connect_timeout = absl::Milliseconds(100);
  const TimeTicks start = TimeTicks::Now();
  EXPECT_EQ(ERR_TIMED_OUT, Run(&data, std::move(params)));
  const absl::Duration took = TimeTicks::Now() - start;
  EXPECT_GE(took, absl::Milliseconds(100));
  EXPECT_LT(took, absl::Seconds(2));
  EXPECT_EQ(ConnectJob::Phase::kProxyTunnel, job_->phase());
  EXPECT_EQ(job_->error_detail(),
            "the proxy http://proxy.test:3128 (tunnel to "
            "www.example.test:443): no complete reply to CONNECT within "
            "100ms (0 bytes of it received)");
}

TEST_F(HttpProxyConnectJobTest, AProxyThatAnswersHalfAndStallsTimesOut) {
  MockRead reads[] = {MockRead(ASYNC, "HTTP/1.1 200 OK\r\n"),
                      MockRead(ASYNC, ERR_IO_PENDING)};
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  HttpProxyConnectJobParams params = Params();
  params.connect_timeout = absl::Milliseconds(50);
  EXPECT_EQ(ERR_TIMED_OUT, Run(&data, std::move(params)));
  EXPECT_TRUE(absl::StrContains(job_->error_detail(), "(17 bytes of it"))
      << job_->error_detail();
}

TEST_F(HttpProxyConnectJobTest, UnreachableProxyIsProxyConnectionFailed) {
  StaticSocketDataProvider refused({}, {});
  refused.set_connect_data(MockConnect(ASYNC, ERR_CONNECTION_REFUSED));
  EXPECT_EQ(ERR_PROXY_CONNECTION_FAILED, Run(&refused, Params()));
  EXPECT_EQ(ConnectJob::Phase::kTransportConnect, job_->phase());
  EXPECT_EQ(job_->error_detail(),
            "could not connect to the proxy http://proxy.test:3128: "
            "connecting to proxy.test:3128: ERR_CONNECTION_REFUSED");
  EXPECT_EQ(0, job_->tunnel_status());
}

TEST_F(HttpProxyConnectJobTest, UnresolvableProxyIsProxyConnectionFailed) {
  resolver_.error = ERR_NAME_NOT_RESOLVED;
  job_ = std::make_unique<HttpProxyConnectJob>(&resolver_, &factory_, Params());
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_PROXY_CONNECTION_FAILED,
            cb.GetResult(job_->Connect(cb.callback())));
  EXPECT_EQ(ConnectJob::Phase::kResolveHost, job_->phase());
  EXPECT_EQ(job_->error_detail(),
            "could not connect to the proxy http://proxy.test:3128: resolving "
            "proxy.test: scripted failure");
  EXPECT_EQ(0u, factory_.sockets_created());
}

TEST_F(HttpProxyConnectJobTest, WithoutATunnelItEndsAtTheProxyConnection) {
  StaticSocketDataProvider data({}, {});
  HttpProxyConnectJobParams params = Params();
  params.tunnel = false;
  EXPECT_EQ(OK, Run(&data, std::move(params)));
  EXPECT_EQ(ConnectJob::Phase::kDone, job_->phase());
  EXPECT_TRUE(job_->TakeSocket());
  EXPECT_EQ(0, job_->tunnel_status());
  EXPECT_EQ("127.0.0.9:3128", job_->timing().remote_address);
}

TEST_F(HttpProxyConnectJobTest, DestroyingTheJobCancelsIt) {
  MockRead reads[] = {MockRead(ASYNC, k200)};
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  job_ = std::make_unique<HttpProxyConnectJob>(&resolver_, &factory_, Params());
  bool called = false;
  EXPECT_EQ(ERR_IO_PENDING, job_->Connect([&called](int) { called = true; }));
  job_.reset();
  loop_.RunUntilIdle();
  EXPECT_FALSE(called);
}

// SSLConnectJob through a proxy: TLS over the tunnel.
class SSLConnectJobThroughProxyTest : public HttpProxyConnectJobTest {
 protected:
  SSLConnectJobThroughProxyTest() : ssl_context_(&verifier_) {}
  SSLConnectJobParams SslParams() {
    SSLConnectJobParams params;
    params.host = "www.example.test";
    params.port = 443;
    params.ssl_context = &ssl_context_;
    params.proxy = *ProxyServer::Parse("http://proxy.test:3128");
    return params;
  }
  AcceptAllVerifier verifier_;
  SSLClientContext ssl_context_;
};

TEST_F(SSLConnectJobThroughProxyTest, TlsRunsOverTheTunnel) {
  MockRead reads[] = {MockRead(ASYNC, k200),
                      MockRead(ASYNC, "HTTP/1.1 200 OK\r\n")};
  MockWrite writes[] = {MockWrite(SYNC, kConnect),
                        MockWrite(SYNC, "GET / HTTP/1.1\r\n")};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(ASYNC, OK);
  ssl.ssl_info.version = "TLSv1.3";
  factory_.AddTlsSocketProvider(&ssl);
  SSLConnectJob job(&resolver_, &factory_, SslParams());
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_IO_PENDING, job.Connect(cb.callback()));
  EXPECT_EQ(OK, cb.WaitForResult());
  // The TLS socket is for the origin, made over the tunnel's socket.
  ASSERT_EQ(1u, factory_.tls_sockets_requested().size());
  EXPECT_EQ("ssl www.example.test:443", factory_.tls_sockets_requested()[0]);
  EXPECT_EQ(resolver_.asked, std::vector<std::string>{"proxy.test"});
  const ConnectTiming t = job.timing();
  EXPECT_EQ("127.0.0.9:3128", t.remote_address);
  EXPECT_LE(t.connect_start, t.ssl_start);
  EXPECT_LE(t.ssl_start, t.connect_end);
  // Application data goes through the tunnel (the mock TLS passes it in
  // plaintext to the proxy connection's script).
  std::unique_ptr<StreamSocket> socket = job.TakeSocket();
  ASSERT_TRUE(socket);
  const std::string get = "GET / HTTP/1.1\r\n";
  EXPECT_EQ(
      static_cast<int>(get.size()),
      cb.GetResult(socket->Write(std::make_shared<IOBuffer>(get),
                                 static_cast<int>(get.size()), cb.callback())));
  auto buf = std::make_shared<IOBuffer>(100);
  EXPECT_EQ(17, cb.GetResult(socket->Read(buf, 100, cb.callback())));
  EXPECT_TRUE(data.AllReadDataConsumed());
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty());
}

TEST_F(SSLConnectJobThroughProxyTest, SnapStartCoreRunsOverTheTunnelToo) {
  auto snap = SnapStartClientContext::Create(&verifier_, {});
  ASSERT_TRUE(snap.ok()) << snap.status();
  (*snap)->PutInfo("www.example.test:443", SnapStartInfo());
  MockRead reads[] = {MockRead(SYNC, k200)};
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(SYNC, OK);
  factory_.AddTlsSocketProvider(&ssl);
  SSLConnectJobParams params = SslParams();
  params.snap_start_context = snap->get();
  SSLConnectJob job(&resolver_, &factory_, std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_TRUE(job.used_snap_start_core());
  ASSERT_EQ(1u, factory_.tls_sockets_requested().size());
  EXPECT_EQ("snap_start www.example.test:443",
            factory_.tls_sockets_requested()[0]);
}

TEST_F(SSLConnectJobThroughProxyTest, ARefusedTunnelNeverStartsTls) {
  MockRead reads[] = {MockRead(ASYNC, "HTTP/1.1 403 Forbidden\r\n\r\n")};
  MockWrite writes[] = {MockWrite(SYNC, kConnect)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  SSLConnectJob job(&resolver_, &factory_, SslParams());
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED,
            cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(ConnectJob::Phase::kProxyTunnel, job.phase());
  EXPECT_TRUE(absl::StrContains(job.error_detail(),
                                "answered CONNECT with 403 Forbidden"))
      << job.error_detail();
  EXPECT_TRUE(factory_.tls_sockets_requested().empty());
  EXPECT_EQ(nullptr, job.ssl_info());
}

}  // namespace
}  // namespace net
