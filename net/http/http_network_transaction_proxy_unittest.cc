// HttpNetworkTransaction with a ProxyConfig, over scripted sockets: an http
// URL goes to the proxy in absolute form with Proxy-Authorization, and its
// keep-alive connection is pooled under the proxy's key (a direct request
// to the same origin, bypassed by no_proxy, does not take it, nor the other
// way round); an https URL gets CONNECT and TLS through it; the origin's
// name is never resolved; failures keep the proxy job's detail; the trace
// says which proxy (JSON "proxy").

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"
#include "net/http/http_basic_stream.h"
#include "net/http/http_network_session.h"
#include "net/http/http_network_transaction.h"
#include "net/socket/socket_test_util.h"
#include "net/ssl/ssl_test_util.h"

namespace net {
namespace {

// Answers proxy.test with 127.0.0.9, anything else with 127.0.0.1; records
// every name asked.
class RecordingResolver : public HostResolver {
 public:
  std::vector<std::string> asked;
  int Resolve(const std::string& host, uint16_t, HostResolveResult* result,
              CompletionOnceCallback, std::unique_ptr<Request>*) override {
    asked.push_back(host);
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

constexpr char kResponse[] =
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

class ProxiedTransactionTest : public ::testing::Test {
 protected:
  void MakeSession(const char* no_proxy = "") {
    HttpNetworkSessionParams params;
    params.request_timeout = absl::Seconds(2);
    params.tcp_fast_open = true;  // never used towards the proxy
    params.proxy =
        ProxyConfig::ForAll(*ProxyServer::Parse("http://u:pw@proxy.test:3128"));
    params.proxy.bypass = *ProxyBypassRules::Parse(no_proxy);
    session_ = std::make_unique<HttpNetworkSession>(params, &resolver_,
                                                    &factory_, &verifier_);
  }

  struct Result {
    int error = OK;
    std::string body;
    LoadTiming timing;
    std::string detail;
  };
  Result Fetch(const std::string& url) {
    Result r;
    HttpNetworkTransaction trans(session_.get());
    HttpRequestInfo request;
    request.url = *Url::Parse(url);
    TestCompletionCallback cb;
    r.error = cb.GetResult(trans.Start(request, cb.callback()));
    while (r.error == OK) {
      auto buf = std::make_shared<IOBuffer>(64);
      int n = cb.GetResult(trans.Read(buf, 64, cb.callback()));
      if (n < 0) r.error = n;
      if (n <= 0) break;
      r.body.append(buf->data(), n);
    }
    r.timing = trans.load_timing();
    r.detail = trans.error_detail();
    return r;
  }

  EventLoop loop_;
  RecordingResolver resolver_;
  AcceptAllVerifier verifier_;
  MockClientSocketFactory factory_;
  std::unique_ptr<HttpNetworkSession> session_;
};

TEST_F(ProxiedTransactionTest, HttpGoesInAbsoluteFormAndPoolsUnderTheProxy) {
  MakeSession("direct.test");
  const std::string get =
      "GET http://www.example.test:8080/a?b HTTP/1.1\r\n"
      "Host: www.example.test:8080\r\n"
      "User-Agent: netstack-fetch/0.1\r\nAccept: */*\r\n"
      "Connection: keep-alive\r\n"
      "Proxy-Authorization: Basic dTpwdw==\r\n\r\n";
  MockRead reads[] = {MockRead(SYNC, kResponse), MockRead(SYNC, kResponse)};
  MockWrite writes[] = {MockWrite(SYNC, get), MockWrite(SYNC, get)};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);

  Result first = Fetch("http://www.example.test:8080/a?b#frag");
  ASSERT_EQ(OK, first.error) << first.detail;
  EXPECT_EQ("hello", first.body);
  EXPECT_EQ("http://proxy.test:3128", first.timing.proxy);
  EXPECT_EQ("127.0.0.9:3128", first.timing.remote_address);
  EXPECT_NE(LoadTimingToJson(first.timing)
                .find("\"proxy\":\"http://proxy.test:3128\""),
            std::string::npos);
  EXPECT_EQ(resolver_.asked, std::vector<std::string>{"proxy.test"});
  // No Fast Open towards the proxy.
  ASSERT_EQ(1u, factory_.tcp_options().size());
  EXPECT_EQ(TcpFastOpenMode::kOff, factory_.tcp_options()[0].fast_open);
  EXPECT_EQ(1u, session_->idle_socket_count());
  EXPECT_EQ(0u, session_->active_socket_count(
                    "http://www.example.test:8080 via http://proxy.test:3128"));

  // The second request reuses the proxy connection.
  Result second = Fetch("http://www.example.test:8080/a?b");
  ASSERT_EQ(OK, second.error) << second.detail;
  EXPECT_TRUE(second.timing.socket_reused);
  EXPECT_EQ(1u, factory_.sockets_created());
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty());

  // A bypassed origin goes direct, on a connection of its own: the idle
  // proxy connection is not taken.
  MockRead direct_reads[] = {MockRead(SYNC, kResponse)};
  MockWrite direct_writes[] = {
      MockWrite(SYNC,
                "GET /x HTTP/1.1\r\nHost: www.direct.test:8080\r\n"
                "User-Agent: netstack-fetch/0.1\r\nAccept: */*\r\n"
                "Connection: keep-alive\r\n\r\n")};
  StaticSocketDataProvider direct(direct_reads, direct_writes);
  factory_.AddSocketDataProvider(&direct);
  Result bypassed = Fetch("http://www.direct.test:8080/x");
  ASSERT_EQ(OK, bypassed.error) << bypassed.detail;
  EXPECT_EQ("direct", bypassed.timing.proxy);
  EXPECT_FALSE(bypassed.timing.socket_reused);
  EXPECT_EQ("127.0.0.1:8080", bypassed.timing.remote_address);
  EXPECT_TRUE(direct.write_mismatches().empty());
  EXPECT_EQ(2u, factory_.sockets_created());
  EXPECT_EQ(2u, session_->idle_socket_count());
}

TEST_F(ProxiedTransactionTest, HttpsGetsATunnelAndTls) {
  MakeSession();
  MockRead reads[] = {
      MockRead(ASYNC, "HTTP/1.1 200 Connection established\r\n\r\n"),
      MockRead(ASYNC, kResponse)};
  MockWrite writes[] = {
      MockWrite(SYNC,
                "CONNECT www.example.test:443 HTTP/1.1\r\n"
                "Host: www.example.test:443\r\n"
                "Proxy-Authorization: Basic dTpwdw==\r\n\r\n"),
      // Through the tunnel (the mock TLS passes plaintext through): origin
      // form, and no Proxy-Authorization to the origin.
      MockWrite(SYNC,
                "GET /s HTTP/1.1\r\nHost: www.example.test\r\n"
                "User-Agent: netstack-fetch/0.1\r\nAccept: */*\r\n"
                "Connection: keep-alive\r\n\r\n")};
  StaticSocketDataProvider data(reads, writes);
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(ASYNC, OK);
  ssl.ssl_info.version = "TLSv1.3";
  factory_.AddTlsSocketProvider(&ssl);

  Result r = Fetch("https://www.example.test/s");
  ASSERT_EQ(OK, r.error) << r.detail;
  EXPECT_EQ("hello", r.body);
  EXPECT_EQ("TLSv1.3", r.timing.ssl.version);
  EXPECT_EQ("http://proxy.test:3128", r.timing.proxy);
  EXPECT_EQ(resolver_.asked, std::vector<std::string>{"proxy.test"});
  EXPECT_EQ("www.example.test", ssl.host);
  EXPECT_LE(r.timing.connect_start, r.timing.ssl_start);
  EXPECT_LE(r.timing.ssl_start, r.timing.connect_end);
  EXPECT_TRUE(data.write_mismatches().empty());
  EXPECT_TRUE(data.AllWriteDataConsumed());
}

TEST_F(ProxiedTransactionTest, ARefusedTunnelKeepsTheJobsDetail) {
  MakeSession();
  MockRead reads[] = {MockRead(ASYNC, "HTTP/1.1 403 Forbidden\r\n\r\n")};
  MockWrite writes[] = {MockWrite(
      SYNC,
      "CONNECT www.example.test:443 HTTP/1.1\r\nHost: www.example.test:443\r\n"
      "Proxy-Authorization: Basic dTpwdw==\r\n\r\n")};
  StaticSocketDataProvider checked(reads, writes);
  factory_.AddSocketDataProvider(&checked);
  Result r = Fetch("https://www.example.test/");
  EXPECT_EQ(ERR_TUNNEL_CONNECTION_FAILED, r.error);
  EXPECT_EQ(r.detail,
            "the proxy http://proxy.test:3128 (tunnel to "
            "www.example.test:443): answered CONNECT with 403 Forbidden");
  EXPECT_TRUE(factory_.tls_sockets_requested().empty());
}

TEST_F(ProxiedTransactionTest, AnUnreachableProxyIsProxyConnectionFailed) {
  MakeSession();
  StaticSocketDataProvider refused({}, {});
  refused.set_connect_data(MockConnect(SYNC, ERR_CONNECTION_REFUSED));
  factory_.AddSocketDataProvider(&refused);
  Result r = Fetch("http://www.example.test/");
  EXPECT_EQ(ERR_PROXY_CONNECTION_FAILED, r.error);
  EXPECT_EQ(r.detail,
            "could not connect to the proxy http://proxy.test:3128: "
            "connecting to proxy.test:3128: ERR_CONNECTION_REFUSED");
}

TEST(HttpBasicStreamProxyTest, AbsoluteFormAndTheCallersOwnAuthorization) {
  const ProxyServer proxy = *ProxyServer::Parse("http://u:pw@p:1");
  HttpRequestInfo request;
  request.url = *Url::Parse("http://[::1]:81/x?y");
  request.extra_headers.emplace_back("Proxy-Authorization", "Bearer mine");
  EXPECT_EQ(HttpBasicStream::BuildRequest(request, &proxy),
            "GET http://[::1]:81/x?y HTTP/1.1\r\nHost: [::1]:81\r\n"
            "User-Agent: netstack-fetch/0.1\r\nAccept: */*\r\n"
            "Connection: keep-alive\r\nProxy-Authorization: Bearer mine\r\n"
            "\r\n");
  // Without a proxy: origin form, as ever.
  EXPECT_TRUE(absl::StartsWith(HttpBasicStream::BuildRequest(request),
                               "GET /x?y HTTP/1.1\r\n"));
}

}  // namespace
}  // namespace net
