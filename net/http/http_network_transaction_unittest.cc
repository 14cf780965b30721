// HttpNetworkTransaction over scripted sockets: framing, reuse, and every
// failure the fetch tool must name.

#include "net/http/http_network_transaction.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"
#include "net/http/default_client_socket_factory.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/socket/socket_test_util.h"
#include "net/ssl/ssl_test_util.h"

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
    result->source = DnsSource::kNetwork;
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

// Hears every TLS handshake the transaction reports.
class RecordingTlsObserver : public TlsHandshakeObserver {
 public:
  struct Call {
    std::string host;
    uint16_t port;
    int result;
    SnapStartOutcome snap_start;
  };
  void OnTlsHandshakeDone(const std::string& host, uint16_t port, int result,
                          LoadTiming* timing) override {
    calls.push_back({host, port, result, timing->ssl.snap_start});
  }
  std::vector<Call> calls;
};

constexpr char kUrl[] = "http://www.example.test/page";
constexpr char kHttpsUrl[] = "https://www.example.test/page";
constexpr char kGet[] =
    "GET /page HTTP/1.1\r\nHost: www.example.test\r\nUser-Agent: "
    "netstack-fetch/0.1\r\n"
    "Accept: */*\r\nConnection: keep-alive\r\n\r\n";
constexpr char kOk[] = "HTTP/1.1 200 OK\r\n";
// A read that never completes: a kept-alive connection on which nothing
// more comes.
const MockRead kStall(SYNC, ERR_IO_PENDING);
const MockRead kEof(ASYNC, OK);

// A 200 response with |body| framed by Content-Length.
std::string Response(const std::string& body) {
  return absl::StrCat(kOk, "Content-Length: ", body.size(), "\r\n\r\n", body);
}

// Reads |trans|'s body to its end in |buf_len| pieces; the body, or the
// error that stopped it in |*error|.
std::string ReadBody(HttpNetworkTransaction* trans, int buf_len, int* error) {
  TestCompletionCallback cb;
  std::string body;
  while (*error == OK) {
    auto buf = std::make_shared<IOBuffer>(buf_len);
    int n = cb.GetResult(trans->Read(buf, buf_len, cb.callback()));
    if (n < 0) *error = n;
    if (n <= 0) break;
    body.append(buf->data(), n);
  }
  return body;
}

// The body, or "ERR_..." when the request failed (in Start or in a Read).
std::string BodyOrError(const std::string& body, int error) {
  return error == OK ? body : ErrorToShortString(error);
}

// One GET of |url| (kUrl by default) started on |session| at construction;
// its headers and body are waited for when the test asks.
struct StartedRequest {
  explicit StartedRequest(HttpNetworkSession* session,
                          const std::string& url = kUrl)
      : trans(session) {
    HttpRequestInfo request;
    request.url = *Url::Parse(url);
    rv = trans.Start(request, cb.callback());
  }
  // Waits for the headers: Start's result.
  int WaitForHeaders() { return cb.GetResult(rv); }
  // Waits for the headers, then reads the body to its end.
  std::string Finish(int* error) {
    *error = WaitForHeaders();
    return ReadBody(&trans, 64, error);
  }
  // The body, or "ERR_..." when the request failed.
  std::string FinishOrError() {
    int error;
    std::string body = Finish(&error);
    return BodyOrError(body, error);
  }
  HttpNetworkTransaction trans;
  TestCompletionCallback cb;
  int rv;
};

class HttpNetworkTransactionTest : public ::testing::Test {
 protected:
  HttpNetworkTransactionTest()
      : session_(ShortDeadline(), &resolver_, &factory_, &verifier_) {}

  // A request that hangs fails with ERR_TIMED_OUT after 2 s instead of
  // blocking the test.
  static HttpNetworkSessionParams ShortDeadline() {
    HttpNetworkSessionParams params;
    params.request_timeout = absl::Seconds(2);
    return params;
  }

  // A session of the test's own with |params| on the fixture's resolver,
  // socket factory and verifier; it lives until the test ends.
  HttpNetworkSession* NewSession(const HttpNetworkSessionParams& params) {
    sessions_.push_back(std::make_unique<HttpNetworkSession>(
        params, &resolver_, &factory_, &verifier_));
    return sessions_.back().get();
  }

  // Scripts the next transport connection: |reads| are answered, |writes|
  // expected. The fixture keeps the script; the pointer is for checks.
  StaticSocketDataProvider* AddSocket(std::vector<MockRead> reads,
                                      std::vector<MockWrite> writes) {
    scripts_.push_back(
        std::make_unique<StaticSocketDataProvider>(reads, writes));
    factory_.AddSocketDataProvider(scripts_.back().get());
    return scripts_.back().get();
  }
  // The next connection: one GET (written in |write_mode|) answered by
  // |reads|.
  StaticSocketDataProvider* AddGet(std::vector<MockRead> reads,
                                   IoMode write_mode = SYNC) {
    return AddSocket(std::move(reads), {MockWrite(write_mode, kGet)});
  }
  // The next connection: one GET answered 200 "ok" (all async).
  StaticSocketDataProvider* AddOkGet() {
    return AddGet({MockRead(ASYNC, Response("ok"))}, ASYNC);
  }
  // The next connection fails to connect with |error|.
  StaticSocketDataProvider* AddFailedConnect(int error) {
    StaticSocketDataProvider* data = AddSocket({}, {});
    data->set_connect_data(MockConnect(ASYNC, error));
    return data;
  }
  // The TLS handshake on the next https connection: |result|, in |mode|;
  // the test fills in the provider's SSLInfo.
  SSLSocketDataProvider* AddTls(IoMode mode, int result) {
    tls_scripts_.push_back(
        std::make_unique<SSLSocketDataProvider>(mode, result));
    factory_.AddTlsSocketProvider(tls_scripts_.back().get());
    return tls_scripts_.back().get();
  }

  // A Snap Start client context that knows www.example.test:443 (so the
  // transaction asks for the Snap Start core's socket); null on failure.
  SnapStartClientContext* SnapStartContextThatKnowsTheServer() {
    auto snap = SnapStartClientContext::Create(&verifier_, {});
    EXPECT_TRUE(snap.ok()) << snap.status();
    if (!snap.ok()) return nullptr;
    snap_start_ = std::move(*snap);
    snap_start_->PutInfo("www.example.test:443", SnapStartInfo());
    return snap_start_.get();
  }

  // Runs one |method| of http://www.example.test/page on the fixture's
  // session, reading in 7-byte pieces (to split reads); returns the body or
  // sets |*error|.
  std::string Fetch(int* error, const char* method = "GET") {
    return FetchUrl(&session_, kUrl, error, method, 7);
  }
  // Fetch's body, or "ERR_..." when it failed.
  std::string Get() {
    int error;
    std::string body = Fetch(&error);
    return BodyOrError(body, error);
  }

  // Runs one |method| of |url| on |session|; returns the body or sets
  // |*error|. detail_ and timing_ keep what the transaction said.
  std::string FetchUrl(HttpNetworkSession* session, const std::string& url,
                       int* error, const char* method = "GET",
                       int buf_len = 64) {
    HttpNetworkTransaction trans(session);
    HttpRequestInfo request;
    request.url = *Url::Parse(url);
    request.method = method;
    TestCompletionCallback cb;
    *error = cb.GetResult(trans.Start(request, cb.callback()));
    std::string body = ReadBody(&trans, buf_len, error);
    detail_ = trans.error_detail();
    timing_ = trans.load_timing();
    return body;
  }
  // FetchUrl of kHttpsUrl: the body, or "ERR_..." when it failed.
  std::string GetHttps(HttpNetworkSession* session) {
    int error;
    std::string body = FetchUrl(session, kHttpsUrl, &error);
    return BodyOrError(body, error);
  }

  // With one connection per group, the first request's connection ends
  // unusable (|first| scripts how); the waiting second request gets the
  // freed slot and connects anew.
  void ExpectWaiterConnectsAnew(int first_error,
                                const std::string& first_body) {
    HttpNetworkSessionParams params = ShortDeadline();
    params.max_sockets_per_group = 1;
    HttpNetworkSession* session = NewSession(params);
    StaticSocketDataProvider* fresh =
        AddGet({MockRead(ASYNC, Response("new")), kStall}, ASYNC);
    StartedRequest first(session);
    StartedRequest second(session);
    EXPECT_EQ(factory_.sockets_created(), 1u);
    int error;
    EXPECT_EQ(first.Finish(&error), first_body);
    EXPECT_EQ(error, first_error);
    EXPECT_EQ(second.FinishOrError(), "new");
    EXPECT_FALSE(second.trans.load_timing().socket_reused);
    EXPECT_EQ(factory_.sockets_created(), 2u);
    EXPECT_TRUE(fresh->AllWriteDataConsumed());
  }

  EventLoop loop_;
  FakeResolver resolver_;
  MockClientSocketFactory factory_;
  AcceptAllVerifier verifier_;
  // Declared before the sessions, which use them.
  RecordingTlsObserver observer_;
  std::unique_ptr<SnapStartClientContext> snap_start_;
  std::vector<std::unique_ptr<StaticSocketDataProvider>> scripts_;
  std::vector<std::unique_ptr<SSLSocketDataProvider>> tls_scripts_;
  HttpNetworkSession session_;
  std::vector<std::unique_ptr<HttpNetworkSession>> sessions_;
  LoadTiming timing_;
  std::string detail_;
};

TEST_F(HttpNetworkTransactionTest, ContentLengthBody) {
  StaticSocketDataProvider* data = AddGet(
      {MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 11\r\n\r\nhello")),
       MockRead(ASYNC, " world")},
      ASYNC);
  EXPECT_EQ(Get(), "hello world");
  EXPECT_TRUE(data->AllReadDataConsumed());
  EXPECT_TRUE(data->AllWriteDataConsumed());
  EXPECT_TRUE(data->write_mismatches().empty()) << data->write_mismatches()[0];
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
  AddSocket(
      {MockRead(ASYNC, absl::StrCat(kOk,
                                    "Transfer-Encoding: chunked\r\n\r\n4\r\n"
                                    "abcd\r\n")),
       MockRead(SYNC, "3\r\nefg\r\n0\r\n\r\n"), MockRead(ASYNC, Response("ok")),
       kStall},
      {MockWrite(SYNC, kGet), MockWrite(SYNC, kGet)});
  EXPECT_EQ(Get(), "abcdefg");
  EXPECT_EQ(session_.idle_socket_count(), 1u);
  EXPECT_EQ(Get(), "ok");
  EXPECT_TRUE(timing_.socket_reused);
  EXPECT_EQ(factory_.sockets_created(), 1u);
  EXPECT_EQ(resolver_.calls, 1);
}

TEST_F(HttpNetworkTransactionTest, StaleIdleConnectionIsRetriedOnANewOne) {
  // The first socket answers once, then the server has closed it: the
  // second request's headers read gets EOF.
  AddSocket({MockRead(SYNC, Response("a")), kEof},
            {MockWrite(SYNC, kGet), MockWrite(SYNC, kGet)});
  StaticSocketDataProvider* data2 = AddGet({MockRead(ASYNC, Response("b"))});
  int error;
  EXPECT_EQ(Fetch(&error), "a");
  EXPECT_EQ(Get(), "b");
  EXPECT_FALSE(timing_.socket_reused);
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_TRUE(data2->AllWriteDataConsumed());
}

TEST_F(HttpNetworkTransactionTest, CloseDelimitedBodyIsNotReused) {
  AddGet({MockRead(ASYNC, absl::StrCat(kOk, "\r\nuntil")),
          MockRead(ASYNC, " close"), kEof});
  EXPECT_EQ(Get(), "until close");
  EXPECT_EQ(session_.idle_socket_count(), 0u);
}

TEST_F(HttpNetworkTransactionTest, HeadHasNoBody) {
  std::string head = kGet;
  head.replace(0, 3, "HEAD");
  AddSocket({MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 100\r\n\r\n")),
             kStall},
            {MockWrite(SYNC, head)});
  int error;
  EXPECT_EQ(Fetch(&error, "HEAD"), "");
  EXPECT_EQ(error, OK);
  EXPECT_EQ(timing_.status_code, 200);
}

TEST_F(HttpNetworkTransactionTest, InterimResponsesAreSkipped) {
  AddGet({MockRead(
      ASYNC, absl::StrCat("HTTP/1.1 100 Continue\r\n\r\n", Response("z")))});
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
  AddGet(c.reads);
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
          result->source = DnsSource::kNetwork;
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
  AddGet({MockRead(SYNC, Response(""))});
  StartedRequest request(&session);
  ASSERT_EQ(OK, request.WaitForHeaders());
  std::string json = LoadTimingToJson(request.trans.load_timing());
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
  AddGet({MockRead(SYNC, Response(""))});
  StartedRequest request(NewSession(params));
  ASSERT_EQ(OK, request.WaitForHeaders());
  EXPECT_EQ(request.trans.load_timing().dns_start,
            request.trans.load_timing().dns_end);
}

TEST_F(HttpNetworkTransactionTest, RefusedConnection) {
  AddFailedConnect(ERR_CONNECTION_REFUSED);
  EXPECT_EQ(Get(), "ERR_CONNECTION_REFUSED");
  EXPECT_NE(detail_.find("127.0.0.1:80"), std::string::npos) << detail_;
}

TEST_F(HttpNetworkTransactionTest, UnresolvableHost) {
  resolver_.error = ERR_NAME_NOT_RESOLVED;
  EXPECT_EQ(Get(), "ERR_NAME_NOT_RESOLVED");
  EXPECT_NE(detail_.find("www.example.test"), std::string::npos);
  EXPECT_EQ(timing_.net_error, ERR_NAME_NOT_RESOLVED);
}

// https: the TLS socket comes from the session's factory, so its handshake
// result and facts are scripted like TCP.
TEST_F(HttpNetworkTransactionTest, HttpsHandshakeThroughTheSocketFactory) {
  StaticSocketDataProvider* data = AddOkGet();
  SSLSocketDataProvider* ssl = AddTls(ASYNC, OK);
  ssl->ssl_info.version = "TLSv1.3";
  ssl->ssl_info.cipher = "TLS_AES_128_GCM_SHA256";
  ssl->ssl_info.cert_verify.error = OK;
  HttpNetworkSessionParams params = ShortDeadline();
  params.tls_observer = &observer_;

  EXPECT_EQ(GetHttps(NewSession(params)), "ok") << detail_;
  EXPECT_EQ(factory_.tls_sockets_requested(),
            std::vector<std::string>{"ssl www.example.test:443"});
  EXPECT_TRUE(data->write_mismatches().empty()) << data->write_mismatches()[0];
  EXPECT_TRUE(timing_.https);
  EXPECT_EQ(timing_.ssl.version, "TLSv1.3");
  EXPECT_EQ(timing_.ssl.cipher, "TLS_AES_128_GCM_SHA256");
  EXPECT_FALSE(timing_.ssl_start.is_null());
  EXPECT_LE(timing_.ssl_start, timing_.connect_end);
  ASSERT_EQ(observer_.calls.size(), 1u);
  EXPECT_EQ(observer_.calls[0].host, "www.example.test");
  EXPECT_EQ(observer_.calls[0].port, 443);
  EXPECT_EQ(observer_.calls[0].result, OK);
}

// A failed handshake: its error, the socket's own explanation, and the
// observer hears the failure.
TEST_F(HttpNetworkTransactionTest, TlsErrorCarriesTheSocketsDetail) {
  AddSocket({}, {});
  AddTls(ASYNC, ERR_SSL_PROTOCOL_ERROR)->error_detail =
      "scripted: decode_error alert";
  HttpNetworkSessionParams params = ShortDeadline();
  params.tls_observer = &observer_;

  EXPECT_EQ(GetHttps(NewSession(params)), "ERR_SSL_PROTOCOL_ERROR");
  EXPECT_EQ(detail_, "scripted: decode_error alert");
  EXPECT_EQ(timing_.net_error, ERR_SSL_PROTOCOL_ERROR);
  ASSERT_EQ(observer_.calls.size(), 1u);
  EXPECT_EQ(observer_.calls[0].result, ERR_SSL_PROTOCOL_ERROR);
}

// A certificate error from the handshake: the trace keeps the verification.
TEST_F(HttpNetworkTransactionTest, CertificateErrorKeepsTheVerification) {
  AddSocket({}, {});
  SSLSocketDataProvider* ssl = AddTls(SYNC, ERR_CERT_AUTHORITY_INVALID);
  ssl->ssl_info.cert_verify.error = ERR_CERT_AUTHORITY_INVALID;
  ssl->ssl_info.cert_verify.detail = "self-signed certificate";
  ssl->error_detail = "self-signed certificate";

  EXPECT_EQ(GetHttps(&session_), "ERR_CERT_AUTHORITY_INVALID");
  EXPECT_EQ(detail_, "self-signed certificate");
  EXPECT_EQ(timing_.ssl.cert_verify.error, ERR_CERT_AUTHORITY_INVALID);
}

// A server the Snap Start context knows gets the Snap Start core's socket.
// Its Connect completes before the server answered; the outcome arrives with
// the response, and the transaction reads the facts again and tells the
// observer again then.
TEST_F(HttpNetworkTransactionTest, SnapStartOutcomeIsReadAgainWithTheResponse) {
  HttpNetworkSessionParams params = ShortDeadline();
  params.snap_start_context = SnapStartContextThatKnowsTheServer();
  ASSERT_NE(params.snap_start_context, nullptr);
  params.tls_observer = &observer_;
  AddOkGet();
  SSLSocketDataProvider* ssl = AddTls(SYNC, OK);
  ssl->ssl_info.version = "TLSv1.2";
  ssl->ssl_info.snap_start = SnapStartOutcome::kAttempted;
  ssl->ssl_info.awaiting_server_response = true;
  SSLInfo accepted = ssl->ssl_info;
  accepted.snap_start = SnapStartOutcome::kAccepted;
  accepted.awaiting_server_response = false;
  ssl->ssl_info_after_first_read = accepted;

  EXPECT_EQ(GetHttps(NewSession(params)), "ok") << detail_;
  EXPECT_EQ(factory_.tls_sockets_requested(),
            std::vector<std::string>{"snap_start www.example.test:443"});
  EXPECT_EQ(timing_.ssl.snap_start, SnapStartOutcome::kAccepted);
  ASSERT_EQ(observer_.calls.size(), 2u);
  EXPECT_EQ(observer_.calls[0].snap_start, SnapStartOutcome::kAttempted);
  EXPECT_EQ(observer_.calls[1].snap_start, SnapStartOutcome::kAccepted);
}

// The server refuses the attempt (the first write fails with
// ERR_SNAP_START_REJECTED): one retry on a new connection, and the trace says
// why.
TEST_F(HttpNetworkTransactionTest, RejectedSnapStartIsRetriedOnce) {
  HttpNetworkSessionParams params = ShortDeadline();
  params.snap_start_context = SnapStartContextThatKnowsTheServer();
  ASSERT_NE(params.snap_start_context, nullptr);
  AddSocket({}, {MockWrite(ASYNC, ERR_SNAP_START_REJECTED)});
  SSLSocketDataProvider* rejected = AddTls(SYNC, OK);
  rejected->ssl_info.snap_start = SnapStartOutcome::kAttempted;
  rejected->ssl_info.snap_start_detail = "handshake_failure alert";
  rejected->ssl_info.awaiting_server_response = true;
  AddOkGet();
  AddTls(ASYNC, OK)->ssl_info.snap_start = SnapStartOutcome::kLearned;

  EXPECT_EQ(GetHttps(NewSession(params)), "ok") << detail_;
  EXPECT_EQ(factory_.tls_sockets_requested().size(), 2u);
  EXPECT_EQ(timing_.ssl.snap_start, SnapStartOutcome::kRejected);
  EXPECT_NE(timing_.ssl.snap_start_detail.find("handshake_failure alert; "
                                               "retried on a new connection"),
            std::string::npos)
      << timing_.ssl.snap_start_detail;
}

// TLS 1.3 early data: the request went with the ClientHello and the server
// rejected it (the read fails with ERR_EARLY_DATA_REJECTED): it is sent again
// on a new connection, once, and the trace says early data was rejected.
TEST_F(HttpNetworkTransactionTest, RejectedEarlyDataIsResentOnANewConnection) {
  AddGet({MockRead(ASYNC, ERR_EARLY_DATA_REJECTED)}, ASYNC);
  SSLSocketDataProvider* rejected = AddTls(SYNC, OK);
  rejected->ssl_info.version = "TLSv1.3";
  rejected->ssl_info.early_data = EarlyDataState::kOffered;
  rejected->ssl_info.early_data_reason = "peer_declined";
  rejected->ssl_info.awaiting_server_response = true;
  AddOkGet();
  SSLSocketDataProvider* ssl = AddTls(ASYNC, OK);
  ssl->ssl_info.version = "TLSv1.3";
  ssl->ssl_info.resumed = true;
  HttpNetworkSessionParams params = ShortDeadline();
  params.ssl_config.early_data_enabled = true;

  EXPECT_EQ(GetHttps(NewSession(params)), "ok") << detail_;
  EXPECT_EQ(factory_.tls_sockets_requested().size(), 2u);
  EXPECT_TRUE(timing_.ssl.resumed);
  EXPECT_EQ(timing_.ssl.early_data, EarlyDataState::kRejected);
  EXPECT_EQ(timing_.ssl.early_data_reason,
            "peer_declined; request retried in 1-RTT on a new connection");
}

// With SPDY/3 offered no request goes early: a SPDY session made on a
// connection in early data would send other requests' streams (a POST's
// too) as replayable 0-RTT data. The trace says why early data was not
// offered.
TEST_F(HttpNetworkTransactionTest, NoEarlyDataWhenSpdyIsOffered) {
  AddOkGet();
  SSLSocketDataProvider* ssl = AddTls(ASYNC, OK);
  ssl->ssl_info.version = "TLSv1.3";
  ssl->ssl_info.alpn = "http/1.1";
  ssl->ssl_info.early_data = EarlyDataState::kNotOffered;
  HttpNetworkSessionParams params = ShortDeadline();
  params.ssl_config.early_data_enabled = true;
  params.ssl_config.alpn_protos = {"spdy/3", "http/1.1"};

  EXPECT_EQ(GetHttps(NewSession(params)), "ok") << detail_;
  ASSERT_EQ(factory_.ssl_configs().size(), 1u);
  EXPECT_FALSE(factory_.ssl_configs()[0].early_data_enabled);
  EXPECT_EQ(timing_.ssl.early_data, EarlyDataState::kNotOffered);
  EXPECT_NE(timing_.ssl.early_data_reason.find("SPDY/3 offered"),
            std::string::npos)
      << timing_.ssl.early_data_reason;
}

TEST_F(HttpNetworkTransactionTest, StalledServerHitsTheRequestTimeout) {
  HttpNetworkSessionParams params;
  params.request_timeout = absl::Milliseconds(50);
  AddGet({kStall});
  StartedRequest request(NewSession(params));
  EXPECT_EQ(ERR_TIMED_OUT, request.WaitForHeaders());
  EXPECT_NE(request.trans.error_detail().find("no response within 50ms"),
            std::string::npos)
      << request.trans.error_detail();
}

// request_headers_sent() is what went on the wire, the stream's defaults
// included; the transaction adds no Cookie header (cookies are URLRequest's).
TEST_F(HttpNetworkTransactionTest, RequestHeadersSent) {
  const std::string get_with_header = absl::StrCat(
      absl::string_view(kGet, sizeof(kGet) - 3), "X-Mine: 2\r\n\r\n");
  StaticSocketDataProvider* data =
      AddSocket({MockRead(ASYNC, absl::StrCat(kOk, "Set-Cookie: a=1\r\n",
                                              "Content-Length: 2\r\n\r\nok"))},
                {MockWrite(ASYNC, get_with_header)});
  HttpNetworkTransaction trans(&session_);
  HttpRequestInfo request;
  request.url = *Url::Parse(kUrl);
  request.extra_headers = {{"X-Mine", "2"}};
  TestCompletionCallback cb;
  EXPECT_TRUE(trans.request_headers_sent().empty());
  ASSERT_EQ(OK, cb.GetResult(trans.Start(request, cb.callback())));
  const std::vector<std::pair<std::string, std::string>> sent = {
      {"Host", "www.example.test"},
      {"User-Agent", "netstack-fetch/0.1"},
      {"Accept", "*/*"},
      {"Connection", "keep-alive"},
      {"X-Mine", "2"}};
  EXPECT_EQ(trans.request_headers_sent(), sent);
  EXPECT_TRUE(data->AllWriteDataConsumed());
  EXPECT_TRUE(data->write_mismatches().empty()) << data->write_mismatches()[0];
}

// RFC 9112 section 6.3, one case per rule: what the body is, and whether
// the connection may carry another request. Reads that end in a stall
// (ERR_IO_PENDING) model a kept-alive connection on which nothing more comes.
struct FramingCase {
  const char* name;
  std::vector<MockRead> reads;
  int expected_error;
  std::string expected_body;
  bool reused;
  const char* method = "GET";
};

void PrintTo(const FramingCase& c, std::ostream* os) { *os << c.name; }

class HttpFramingTest : public HttpNetworkTransactionTest,
                        public ::testing::WithParamInterface<FramingCase> {};

TEST_P(HttpFramingTest, BodyIsExactlyWhatTheFramingSays) {
  const FramingCase& c = GetParam();
  std::string request = kGet;
  if (absl::string_view(c.method) == "HEAD") request.replace(0, 3, "HEAD");
  AddSocket(c.reads, {MockWrite(SYNC, request)});
  int error;
  std::string body = Fetch(&error, c.method);
  EXPECT_EQ(error, c.expected_error) << ErrorToString(error) << ": " << detail_;
  if (c.expected_error == OK) {
    EXPECT_EQ(body, c.expected_body);
    EXPECT_EQ(timing_.body_bytes, static_cast<int64_t>(body.size()));
    EXPECT_EQ(session_.idle_socket_count(), c.reused ? 1u : 0u);
  } else {
    EXPECT_FALSE(detail_.empty());
    EXPECT_EQ(session_.idle_socket_count(), 0u);
  }
}

std::string Many(const std::string& piece, size_t total_bytes) {
  std::string out;
  while (out.size() < total_bytes) out += piece;
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Rfc9112, HttpFramingTest,
    ::testing::Values(
        // Content-Length: exactly that many bytes, whatever else arrived.
        FramingCase{"extra_bytes_with_headers",
                    {MockRead(ASYNC, absl::StrCat(kOk,
                                                  "Content-Length: 10\r\n\r\n"
                                                  "0123456789abcdefghij")),
                     kStall},
                    OK,
                    "0123456789",
                    false},
        FramingCase{
            "stray_crlf_after_body_on_keep_alive",
            {MockRead(ASYNC,
                      absl::StrCat(kOk, "Content-Length: 2\r\n\r\nok\r\n")),
             kStall},
            OK,
            "ok",
            false},
        FramingCase{
            "exact_length_is_reused",
            {MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 2\r\n\r\nok")),
             kStall},
            OK,
            "ok",
            true},
        FramingCase{
            "extra_bytes_in_a_later_read",
            {MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 4\r\n\r\nab")),
             MockRead(SYNC, "cdEXTRA"), kStall},
            OK,
            "abcd",
            false},
        FramingCase{
            "zero_length",
            {MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 0\r\n\r\n")),
             kStall},
            OK,
            "",
            true},
        // HEAD, 1xx, 204 and 304 have no body, whatever the headers say.
        FramingCase{
            "head_ignores_length",
            {MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 100\r\n\r\n")),
             kStall},
            OK,
            "",
            true,
            "HEAD"},
        FramingCase{
            "head_with_body_bytes_is_not_reused",
            {MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 3\r\n\r\nabc")),
             kStall},
            OK,
            "",
            false,
            "HEAD"},
        FramingCase{"no_content_204",
                    {MockRead(ASYNC,
                              "HTTP/1.1 204 No Content\r\nContent-Length: "
                              "5\r\n\r\n"),
                     kStall},
                    OK,
                    "",
                    true},
        FramingCase{"not_modified_304_with_chunked",
                    {MockRead(ASYNC,
                              "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: "
                              "chunked\r\n\r\n"),
                     kStall},
                    OK,
                    "",
                    true},
        FramingCase{
            "interim_responses_then_final",
            {MockRead(ASYNC,
                      "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                      "HTTP/1.1 100 Continue\r\n\r\n"),
             MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 1\r\n\r\nz")),
             kStall},
            OK,
            "z",
            true},
        // Transfer-Encoding.
        FramingCase{"chunked_is_reused",
                    {MockRead(ASYNC, absl::StrCat(kOk,
                                                  "Transfer-Encoding: "
                                                  "chunked\r\n\r\n2\r\nok\r\n0"
                                                  "\r\n\r\n")),
                     kStall},
                    OK,
                    "ok",
                    true},
        FramingCase{"bytes_after_the_last_chunk",
                    {MockRead(ASYNC, absl::StrCat(kOk,
                                                  "Transfer-Encoding: "
                                                  "chunked\r\n\r\n2\r\nok\r\n0"
                                                  "\r\n\r\n\r\n")),
                     kStall},
                    OK,
                    "ok",
                    false},
        // Chunked wins over Content-Length; such a response may be an attempt
        // at response splitting, so its connection is not reused.
        FramingCase{"chunked_wins_over_length_not_reused",
                    {MockRead(ASYNC, absl::StrCat(kOk,
                                                  "Content-Length: 3\r\n"
                                                  "Transfer-Encoding: chunked"
                                                  "\r\n\r\n5\r\nhello\r\n0\r\n"
                                                  "\r\n")),
                     kStall},
                    OK,
                    "hello",
                    false},
        FramingCase{
            "transfer_encoding_on_lines_combined",
            {MockRead(ASYNC, absl::StrCat(kOk,
                                          "Transfer-Encoding: gzip\r\n"
                                          "Transfer-Encoding: chunked"
                                          "\r\n\r\n2\r\nok\r\n0\r\n\r\n")),
             kStall},
            OK,
            "ok",
            true},
        // A coding other than chunked last: the body runs to the close.
        FramingCase{
            "other_coding_reads_until_close",
            {MockRead(ASYNC,
                      absl::StrCat(kOk, "Transfer-Encoding: gzip\r\n\r\nraw")),
             MockRead(ASYNC, " bytes"), kEof},
            OK,
            "raw bytes",
            false},
        FramingCase{
            "chunked_not_last_reads_until_close",
            {MockRead(ASYNC, absl::StrCat(kOk,
                                          "Transfer-Encoding: chunked, "
                                          "gzip\r\nContent-Length: 2\r\n"
                                          "\r\n5\r\nhello")),
             kEof},
            OK,
            "5\r\nhello",
            false},
        FramingCase{"http10_with_transfer_encoding_not_reused",
                    {MockRead(ASYNC,
                              "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r"
                              "\n\r\n"),
                     kStall},
                    OK,
                    "ok",
                    false},
        // No framing header: the body runs to the close.
        FramingCase{"read_until_close_ends_at_eof",
                    {MockRead(ASYNC, absl::StrCat(kOk, "\r\nuntil")),
                     MockRead(SYNC, " close"), kEof},
                    OK,
                    "until close",
                    false},
        // Content-Length values.
        FramingCase{
            "identical_lengths_on_two_lines",
            {MockRead(ASYNC, absl::StrCat(kOk,
                                          "Content-Length: 2\r\n"
                                          "Content-Length: 2\r\n\r\nok")),
             kStall},
            OK,
            "ok",
            true},
        FramingCase{
            "identical_lengths_in_one_list",
            {MockRead(ASYNC,
                      absl::StrCat(kOk, "Content-Length: 2, 2\r\n\r\nok")),
             kStall},
            OK,
            "ok",
            true},
        FramingCase{
            "different_lengths_on_two_lines",
            {MockRead(ASYNC, absl::StrCat(kOk,
                                          "Content-Length: 10\r\n"
                                          "Content-Length: 20\r\n\r\n")),
             kStall},
            ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH,
            "",
            false},
        FramingCase{
            "different_lengths_in_one_list",
            {MockRead(ASYNC,
                      absl::StrCat(kOk, "Content-Length: 10, 20\r\n\r\n")),
             kStall},
            ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH,
            "",
            false},
        FramingCase{"length_beyond_int64",
                    {MockRead(ASYNC, absl::StrCat(kOk,
                                                  "Content-Length: "
                                                  "99999999999999999999\r\n\r\n"
                                                  "abc")),
                     kStall},
                    ERR_INVALID_CONTENT_LENGTH,
                    "",
                    false},
        FramingCase{
            "length_with_non_digits",
            {MockRead(ASYNC,
                      absl::StrCat(kOk, "Content-Length: 1x\r\n\r\nabc")),
             kStall},
            ERR_INVALID_CONTENT_LENGTH,
            "",
            false},
        FramingCase{
            "negative_length",
            {MockRead(ASYNC,
                      absl::StrCat(kOk, "Content-Length: -1\r\n\r\nabc")),
             kStall},
            ERR_INVALID_CONTENT_LENGTH,
            "",
            false},
        FramingCase{
            "signed_length",
            {MockRead(ASYNC,
                      absl::StrCat(kOk, "Content-Length: +3\r\n\r\nabc")),
             kStall},
            ERR_INVALID_CONTENT_LENGTH,
            "",
            false},
        FramingCase{
            "empty_length",
            {MockRead(ASYNC, absl::StrCat(kOk, "Content-Length:\r\n\r\nabc")),
             kStall},
            ERR_INVALID_CONTENT_LENGTH,
            "",
            false},
        // Chunk sizes: bounded (2^40), never an allocation.
        FramingCase{"chunk_size_of_fifteen_hex_digits",
                    {MockRead(ASYNC, absl::StrCat(kOk,
                                                  "Transfer-Encoding: chunked"
                                                  "\r\n\r\nfffffffffffffff\r\n"
                                                  "abc")),
                     kEof},
                    ERR_INVALID_CHUNKED_ENCODING,
                    "",
                    false},
        FramingCase{"chunk_size_just_over_the_bound",
                    {MockRead(ASYNC, absl::StrCat(kOk,
                                                  "Transfer-Encoding: chunked"
                                                  "\r\n\r\n10000000001\r\n"
                                                  "abc")),
                     kEof},
                    ERR_INVALID_CHUNKED_ENCODING,
                    "",
                    false},
        FramingCase{
            "chunk_size_with_leading_zeros",
            {MockRead(ASYNC, absl::StrCat(kOk,
                                          "Transfer-Encoding: chunked"
                                          "\r\n\r\n00000000000000000002\r"
                                          "\nok\r\n0\r\n\r\n")),
             kStall},
            OK,
            "ok",
            true},
        // Endless framing is bounded too: interim responses count against
        // the header limit, trailers against their own.
        FramingCase{
            "endless_interim_responses",
            {MockRead(SYNC, Many("HTTP/1.1 100 Continue\r\n\r\n", 300 * 1024)),
             kStall},
            ERR_RESPONSE_HEADERS_TOO_BIG,
            "",
            false},
        FramingCase{
            "endless_trailers",
            {MockRead(ASYNC, absl::StrCat(kOk,
                                          "Transfer-Encoding: chunked"
                                          "\r\n\r\n2\r\nok\r\n0\r\n")),
             MockRead(SYNC, Many("X-Trailer: y\r\n", 300 * 1024)), kStall},
            ERR_INVALID_CHUNKED_ENCODING,
            "",
            false}),
    [](const ::testing::TestParamInfo<FramingCase>& info) {
      return info.param.name;
    });

// A socket whose reads always complete at once: the response headers, then
// an endless chunked body (or |body_bytes| of a Content-Length body).
// Counts what it hands out.
class EndlessSocket : public StreamSocket {
 public:
  explicit EndlessSocket(int64_t content_length = -1)
      : head_(content_length < 0
                  ? std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: "
                                "chunked\r\n\r\n")
                  : absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ",
                                 content_length, "\r\n\r\n")),
        chunked_(content_length < 0) {}
  int Connect(CompletionOnceCallback) override { return OK; }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback) override {
    int n = 0;
    while (n < len) {
      if (pending_.empty()) {
        if (!head_.empty()) {
          pending_.swap(head_);
        } else if (chunked_) {
          pending_ = absl::StrCat("1000\r\n", std::string(4096, 'x'), "\r\n");
        } else {
          pending_ = std::string(4096, 'x');
        }
      }
      size_t take = std::min<size_t>(len - n, pending_.size());
      std::memcpy(buf->data() + n, pending_.data(), take);
      pending_.erase(0, take);
      n += static_cast<int>(take);
    }
    bytes_read += n;
    ++reads;
    return n;
  }
  int Write(std::shared_ptr<IOBuffer>, int len,
            CompletionOnceCallback) override {
    return len;
  }
  void Disconnect() override {}
  bool IsConnected() const override { return true; }
  bool IsConnectedAndIdle() const override { return false; }
  int GetPeerAddress(IPEndPoint* address) const override {
    *address = IPEndPoint(IPAddress::IPv4Localhost(), 80);
    return OK;
  }
  int GetLocalAddress(IPEndPoint* address) const override {
    *address = IPEndPoint(IPAddress::IPv4Localhost(), 50000);
    return OK;
  }

  int64_t bytes_read = 0;
  int64_t reads = 0;

 private:
  std::string head_;
  const bool chunked_;
  std::string pending_;
};

// Transport sockets only (MockClientSocketFactory answers TLS requests with
// null: no test here uses https).
class EndlessSocketFactory : public MockClientSocketFactory {
 public:
  explicit EndlessSocketFactory(int64_t content_length = -1)
      : content_length_(content_length) {}
  std::unique_ptr<StreamSocket> CreateTransportClientSocket(
      const IPEndPoint&, absl::Duration, const TcpConnectOptions&) override {
    auto socket = std::make_unique<EndlessSocket>(content_length_);
    last = socket.get();
    return socket;
  }
  EndlessSocket* last = nullptr;

 private:
  const int64_t content_length_;
};

// Reads the body the way a tight consumer does: Read again at once after
// every synchronous result, wait only when a read is pending. Gives up
// after |give_up| so that a deadline that never fires fails the test.
int ReadUntilDone(HttpNetworkTransaction* trans, int buf_len,
                  absl::Duration give_up, int64_t* total) {
  TestCompletionCallback cb;
  TimeTicks start = TimeTicks::Now();
  for (;;) {
    if (TimeTicks::Now() - start > give_up) return ERR_IO_PENDING;
    auto buf = std::make_shared<IOBuffer>(buf_len);
    int rv = trans->Read(buf, buf_len, cb.callback());
    if (rv == ERR_IO_PENDING) rv = cb.WaitForResult();
    if (rv <= 0) return rv;
    *total += rv;
  }
}

// The request deadline holds although every read completes synchronously
// (the event loop never gets a turn, so its timer cannot run): the
// transaction checks the deadline on every Read.
TEST_F(HttpNetworkTransactionTest, DeadlineHoldsAgainstSynchronousReads) {
  EndlessSocketFactory factory;
  HttpNetworkSessionParams params;
  params.request_timeout = absl::Milliseconds(300);
  HttpNetworkSession session(params, &resolver_, &factory, &verifier_);
  TimeTicks start = TimeTicks::Now();
  StartedRequest request(&session);
  ASSERT_EQ(OK, request.WaitForHeaders());
  HttpNetworkTransaction& trans = request.trans;
  int64_t total = 0;
  int rv = ReadUntilDone(&trans, 4096, absl::Seconds(3), &total);
  absl::Duration elapsed = TimeTicks::Now() - start;
  EXPECT_EQ(rv, ERR_TIMED_OUT) << ErrorToString(rv);
  EXPECT_GE(elapsed, absl::Milliseconds(300));
  EXPECT_LT(elapsed, absl::Milliseconds(400));
  EXPECT_GT(total, 0);
  EXPECT_EQ(trans.load_timing().net_error, ERR_TIMED_OUT);
  EXPECT_NE(trans.error_detail().find("body"), std::string::npos)
      << trans.error_detail();
  EXPECT_EQ(trans.error_detail().find("no response"), std::string::npos)
      << trans.error_detail();
  // Once timed out, it stays timed out.
  auto buf = std::make_shared<IOBuffer>(16);
  EXPECT_EQ(ERR_TIMED_OUT, trans.Read(buf, 16, request.cb.callback()));
}

// The parser hands out what it has and never reads ahead of the caller: a
// body read in 4 KB pieces pulls no more than that from the socket, so
// memory stays flat for any body size.
TEST_F(HttpNetworkTransactionTest, BodyStreamsWithoutReadingAhead) {
  for (int64_t content_length : {int64_t{-1}, int64_t{1} << 40}) {
    SCOPED_TRACE(content_length);
    EndlessSocketFactory factory(content_length);
    HttpNetworkSessionParams params;
    params.request_timeout = absl::ZeroDuration();
    HttpNetworkSession session(params, &resolver_, &factory, &verifier_);
    StartedRequest request(&session);
    ASSERT_EQ(OK, request.WaitForHeaders());
    HttpNetworkTransaction& trans = request.trans;
    int64_t headers_read = factory.last->bytes_read;
    EXPECT_LE(headers_read, 16 * 1024);
    constexpr int kReads = 5000;
    constexpr int kLen = 4096;
    int64_t total = 0;
    for (int i = 0; i < kReads; ++i) {
      auto buf = std::make_shared<IOBuffer>(kLen);
      int rv = trans.Read(buf, kLen, request.cb.callback());
      ASSERT_GT(rv, 0) << ErrorToString(rv);
      ASSERT_LE(rv, kLen);
      total += rv;
    }
    // 20 MB of body went through 4 KB buffers; the socket was asked for at
    // most what the caller asked for (plus the chunk framing).
    EXPECT_GE(total, int64_t{kReads} * kLen / 2);
    EXPECT_LE(factory.last->bytes_read - headers_read,
              int64_t{kReads} * kLen * 2);
    EXPECT_EQ(trans.load_timing().body_bytes, total);
  }
}

// A timeout once the headers are in names the body, not "no response".
TEST_F(HttpNetworkTransactionTest, TimeoutAfterHeadersSaysTheBodyStalled) {
  HttpNetworkSessionParams params;
  params.request_timeout = absl::Milliseconds(100);
  AddGet({MockRead(ASYNC, absl::StrCat(kOk, "Content-Length: 100\r\n\r\n",
                                       "0123456789")),
          kStall});
  StartedRequest request(NewSession(params));
  ASSERT_EQ(OK, request.WaitForHeaders());
  int64_t total = 0;
  EXPECT_EQ(ERR_TIMED_OUT,
            ReadUntilDone(&request.trans, 64, absl::Seconds(3), &total));
  EXPECT_EQ(total, 10);
  const std::string& detail = request.trans.error_detail();
  EXPECT_EQ(detail.find("no response"), std::string::npos) << detail;
  EXPECT_NE(detail.find("body stalled"), std::string::npos) << detail;
  EXPECT_NE(detail.find("10 of 100"), std::string::npos) << detail;
}

// A real server on another thread that never stops sending a chunked body,
// as fast as the kernel takes it (a blocking socket: the client's loop
// cannot slow it down).
class EndlessChunkedServer {
 public:
  EndlessChunkedServer() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(
        0, bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
    socklen_t len = sizeof(addr);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    EXPECT_EQ(0, listen(listen_fd_, 4));
    thread_ = std::thread([this] { Serve(); });
  }
  ~EndlessChunkedServer() {
    stop_ = true;
    shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    close(listen_fd_);
  }
  uint16_t port() const { return port_; }

 private:
  void Serve() {
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    timeval tv{0, 100 * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    std::string head;
    char c;
    while (head.find("\r\n\r\n") == std::string::npos &&
           recv(fd, &c, 1, 0) == 1) {
      head.push_back(c);
    }
    std::string out = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::string chunk =
        absl::StrCat("4000\r\n", std::string(0x4000, 'x'), "\r\n");
    while (!stop_) {
      out += chunk;
      ssize_t n = send(fd, out.data(), out.size(), MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) break;
      out.erase(0, n);
      if (out.size() > 4 * chunk.size()) out.resize(0);  // Never happens.
    }
    close(fd);
  }

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// --max-time on an endless body: the deadline fires within 100 ms of when
// it is due, although the reader reads again at once after every
// synchronous result.
TEST_F(HttpNetworkTransactionTest, DeadlineHoldsAgainstAnEndlessServer) {
  EndlessChunkedServer server;
  HttpNetworkSessionParams params;
  params.request_timeout = absl::Milliseconds(300);
  HttpNetworkSession session(params, &resolver_,
                             GetDefaultClientSocketFactory(), &verifier_);
  TimeTicks start = TimeTicks::Now();
  StartedRequest request(
      &session,
      absl::StrCat("http://www.example.test:", server.port(), "/endless"));
  HttpNetworkTransaction& trans = request.trans;
  ASSERT_EQ(OK, request.WaitForHeaders()) << trans.error_detail();
  int64_t total = 0;
  int rv = ReadUntilDone(&trans, 1024, absl::Seconds(3), &total);
  absl::Duration elapsed = TimeTicks::Now() - start;
  EXPECT_EQ(rv, ERR_TIMED_OUT) << ErrorToString(rv);
  EXPECT_GE(elapsed, absl::Milliseconds(300));
  EXPECT_LT(elapsed, absl::Milliseconds(400)) << total << " bytes";
  EXPECT_GT(total, 0);
  EXPECT_NE(trans.error_detail().find("body"), std::string::npos)
      << trans.error_detail();
}

// The per-group connection limit (HttpNetworkSessionParams::
// max_sockets_per_group) ----------------------------------------------------

TEST_F(HttpNetworkTransactionTest, SeventhRequestWaitsForAFreedConnection) {
  ASSERT_EQ(HttpNetworkSessionParams().max_sockets_per_group, 6u);
  // Six connections; the first answers twice, the 7th request's answer
  // coming on the connection the first request released.
  std::vector<StaticSocketDataProvider*> data;
  data.push_back(AddSocket({MockRead(ASYNC, Response("r1")),
                            MockRead(ASYNC, Response("r7")), kStall},
                           {MockWrite(ASYNC, kGet), MockWrite(ASYNC, kGet)}));
  for (int i = 2; i <= 6; ++i) {
    data.push_back(AddGet(
        {MockRead(ASYNC, Response(absl::StrCat("r", i))), kStall}, ASYNC));
  }
  const std::string key = "http://www.example.test:80";
  std::vector<std::unique_ptr<StartedRequest>> requests;
  for (int i = 0; i < 7; ++i)
    requests.push_back(std::make_unique<StartedRequest>(&session_));
  EXPECT_EQ(factory_.sockets_created(), 6u);
  EXPECT_EQ(session_.active_socket_count(key), 6u);
  EXPECT_EQ(session_.waiting_request_count(key), 1u);
  EXPECT_EQ(requests[6]->rv, ERR_IO_PENDING);

  EXPECT_EQ(requests[0]->FinishOrError(), "r1");
  // The first connection went straight to the waiting request.
  EXPECT_EQ(session_.waiting_request_count(key), 0u);
  EXPECT_EQ(session_.idle_socket_count(), 0u);
  EXPECT_EQ(requests[6]->FinishOrError(), "r7");
  const LoadTiming& t7 = requests[6]->trans.load_timing();
  EXPECT_TRUE(t7.socket_reused);
  EXPECT_EQ(t7.dns_source, DnsSource::kReused);
  EXPECT_EQ(factory_.sockets_created(), 6u);
  EXPECT_TRUE(data[0]->AllWriteDataConsumed());
  for (int i = 1; i < 6; ++i)
    EXPECT_EQ(requests[i]->FinishOrError(), absl::StrCat("r", i + 1));
  // Every connection is idle now, none held.
  EXPECT_EQ(session_.active_socket_count(key), 0u);
  EXPECT_EQ(session_.idle_socket_count(), 6u);
}

TEST_F(HttpNetworkTransactionTest, CancelledWaitingRequestLeavesTheQueue) {
  HttpNetworkSessionParams params = ShortDeadline();
  params.max_sockets_per_group = 1;
  HttpNetworkSession* session = NewSession(params);
  StaticSocketDataProvider* data =
      AddSocket({MockRead(ASYNC, Response("first")),
                 MockRead(ASYNC, Response("third")), kStall},
                {MockWrite(ASYNC, kGet), MockWrite(ASYNC, kGet)});
  const std::string key = "http://www.example.test:80";
  auto first = std::make_unique<StartedRequest>(session);
  auto second = std::make_unique<StartedRequest>(session);
  auto third = std::make_unique<StartedRequest>(session);
  EXPECT_EQ(session->waiting_request_count(key), 2u);
  second.reset();  // cancelled while waiting
  EXPECT_EQ(session->waiting_request_count(key), 1u);
  EXPECT_EQ(first->FinishOrError(), "first");
  EXPECT_EQ(third->FinishOrError(), "third");
  EXPECT_TRUE(third->trans.load_timing().socket_reused);
  EXPECT_EQ(factory_.sockets_created(), 1u);
  EXPECT_TRUE(data->AllWriteDataConsumed());
  first.reset();
  third.reset();
  EXPECT_EQ(session->active_socket_count(key), 0u);
  EXPECT_EQ(session->waiting_request_count(key), 0u);
}

TEST_F(HttpNetworkTransactionTest, FailedConnectionFreesItsSlot) {
  AddFailedConnect(ERR_CONNECTION_REFUSED);
  ExpectWaiterConnectsAnew(ERR_CONNECTION_REFUSED, "");
}

TEST_F(HttpNetworkTransactionTest, ClosedConnectionFreesItsSlot) {
  // A close-delimited body: its connection cannot be reused, so the
  // waiting request gets the slot (a new connection), not the socket.
  AddGet({MockRead(ASYNC, absl::StrCat(kOk, "\r\nbye")), kEof}, ASYNC);
  ExpectWaiterConnectsAnew(OK, "bye");
}

// A preconnect's slot (TryReserveSocketSlot): only when the group has room
// and nobody waits, never queued. The connection it releases goes to a
// waiting request first, marked preconnected.
TEST_F(HttpNetworkTransactionTest, PreconnectSlotsCountAgainstTheLimit) {
  HttpNetworkSessionParams params = ShortDeadline();
  params.max_sockets_per_group = 1;
  HttpNetworkSession* session = NewSession(params);
  const std::string key = "http://www.example.test:80";
  auto reserved = session->TryReserveSocketSlot(key);
  ASSERT_TRUE(reserved);
  EXPECT_EQ(session->active_socket_count(key), 1u);
  EXPECT_FALSE(session->TryReserveSocketSlot(key));  // the group is full
  // A request now waits for the preconnect's connection (connected here,
  // not through the factory).
  StaticSocketDataProvider data({MockRead(ASYNC, Response("warm")), kStall},
                                {MockWrite(ASYNC, kGet)});
  auto socket = std::make_unique<MockTCPClientSocket>(
      &data, IPEndPoint(IPAddress::IPv4Localhost(), 80));
  TestCompletionCallback connect_cb;
  ASSERT_EQ(OK, connect_cb.GetResult(socket->Connect(connect_cb.callback())));
  StartedRequest request(session);
  EXPECT_EQ(session->waiting_request_count(key), 1u);
  EXPECT_FALSE(session->TryReserveSocketSlot(key));  // full, and a waiter
  session->ReleaseSocketSlot(std::move(reserved), std::move(socket),
                             /*preconnected=*/true);
  EXPECT_EQ(request.FinishOrError(), "warm");
  EXPECT_TRUE(request.trans.load_timing().socket_preconnected);
  EXPECT_EQ(factory_.sockets_created(), 0u);
}

TEST_F(HttpNetworkTransactionTest, ZeroMeansNoConnectionLimit) {
  HttpNetworkSessionParams params = ShortDeadline();
  params.max_sockets_per_group = 0;
  HttpNetworkSession* session = NewSession(params);
  for (int i = 0; i < 8; ++i)
    AddGet({MockRead(ASYNC, Response("x")), kStall}, ASYNC);
  std::vector<std::unique_ptr<StartedRequest>> requests;
  for (int i = 0; i < 8; ++i)
    requests.push_back(std::make_unique<StartedRequest>(session));
  EXPECT_EQ(factory_.sockets_created(), 8u);
  for (auto& r : requests) EXPECT_EQ(r->FinishOrError(), "x");
}

}  // namespace
}  // namespace net
