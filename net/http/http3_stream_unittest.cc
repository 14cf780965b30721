// HTTP/3 through HttpNetworkTransaction (HttpNetworkSessionParams::http3):
// against ngtcp2's gtlsserver on loopback UDP (the UDP socket is the
// factory's real one; TCP is scripted), 20 concurrent transactions on one
// QUIC connection with Chromium's QUIC timing in the trace; a dropped UDP
// path falling back to a (scripted) TCP connection within the connect
// timeout, the reason in quic.fallback, and the next request going straight
// to TCP while the origin is marked broken; a certificate error that does
// not fall back; the TLS handshake observer told of each QUIC handshake
// (once per connection, OK or its error) as of TCP's; HTTP/3 discovered from
// a (fake) resolver's DNS HTTPS record: alpn h3 sends the request to the
// record's port over QUIC, an h3-only record's fallback goes to TCP without
// the record, a record without h3 leaves the request on TCP.

#include "net/http/http3_stream.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cert/basic_cert_verifier.h"
#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"
#include "net/http/http_network_transaction.h"
#include "net/quic/quic_test_server.h"
#include "net/socket/socket_test_util.h"
#include "net/ssl/ssl_test_util.h"

namespace net {
namespace {

// Answers every name with 127.0.0.1.
class LoopbackResolver : public HostResolver {
 public:
  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out) override {
    result->source = DnsSource::kNetwork;
    result->addresses = {IPAddress::IPv4Localhost()};
    return OK;
  }
};

// Answers every name with 127.0.0.1; ResolveHttps adds |record| (an HTTPS
// record as the c-ares resolver reports one that applies). Counts both.
class HttpsRecordResolver : public HostResolver {
 public:
  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out) override {
    ++plain;
    result->source = plain_source;
    result->addresses = {IPAddress::IPv4Localhost()};
    return OK;
  }
  int ResolveHttps(const std::string& host, uint16_t port,
                   HostResolveResult* result, CompletionOnceCallback callback,
                   std::unique_ptr<Request>* out) override {
    ++https;
    result->source = DnsSource::kNetwork;
    result->addresses = {IPAddress::IPv4Localhost()};
    result->https = record;
    return OK;
  }
  HttpsRecordInfo record;
  DnsSource plain_source = DnsSource::kNetwork;
  int plain = 0;
  int https = 0;
};

// A ServiceMode record for the owner itself that applies.
HttpsRecordInfo Record(std::vector<std::string> alpn, bool no_default_alpn,
                       uint16_t port) {
  HttpsRecordInfo info;
  info.status = HttpsRecordStatus::kUsed;
  info.source = DnsSource::kNetwork;
  info.priority = 1;
  info.target = "www.example.test";
  info.alpn = std::move(alpn);
  info.no_default_alpn = no_default_alpn;
  info.port = port;
  info.records = info.compatible_records = 1;
  return info;
}

// Hears every TLS handshake, QUIC's included, and marks the trace as
// net/context's observer does (cert.bundle), to see the mark survive.
class RecordingTlsObserver : public TlsHandshakeObserver {
 public:
  struct Call {
    std::string host;
    uint16_t port;
    int result;
    std::string alpn;
    SessionUse quic_session;
    int cert_verify_error;
    uint32_t quic_version;
    absl::Duration quic_handshake;
    std::string zero_rtt;
  };
  void OnTlsHandshakeDone(const std::string& host, uint16_t port, int result,
                          LoadTiming* timing) override {
    calls.push_back({host, port, result, timing->ssl.alpn, timing->quic.session,
                     timing->ssl.cert_verify.error, timing->quic.version,
                     timing->quic.handshake, timing->quic.zero_rtt});
    timing->cert_bundle.present = true;
    timing->cert_bundle.not_used_because = "seen by the observer";
  }
  std::vector<Call> calls;
};

std::string Htdocs() {
  const char* tmp = getenv("TEST_TMPDIR");
  return absl::StrCat(tmp ? tmp : "/tmp", "/h3-htdocs");
}

class Http3StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = *std::move(verifier);
    for (int i = 0; i < 20; ++i)
      WriteHtdocsFile(Htdocs(), absl::StrCat("r", i), absl::StrCat("body ", i));
  }

  // HTTP/3 only by the HTTPS record (no --http3, no connect-to rule: the
  // record's port is the QUIC server's).
  HttpNetworkSession* NewRecordSession(absl::Duration connect_timeout) {
    HttpNetworkSessionParams params;
    params.h3_https_rr = true;
    params.connect_timeout = connect_timeout;
    params.request_timeout = absl::Seconds(10);
    params.tls_observer = &observer_;
    session_ = std::make_unique<HttpNetworkSession>(params, &record_resolver_,
                                                    &factory_, verifier_.get());
    return session_.get();
  }

  HttpNetworkSession* NewSession(uint16_t quic_port,
                                 absl::Duration connect_timeout) {
    HttpNetworkSessionParams params;
    params.http3 = true;
    params.connect_timeout = connect_timeout;
    params.request_timeout = absl::Seconds(10);
    params.tls_observer = &observer_;
    // https://www.example.test/ (port 443) goes to the test's port.
    auto rule = ConnectToRule::Parse(
        absl::StrCat("www.example.test:443:127.0.0.1:", quic_port));
    EXPECT_TRUE(rule.ok());
    params.connect_to.Add(*rule);
    session_ = std::make_unique<HttpNetworkSession>(params, &resolver_,
                                                    &factory_, verifier_.get());
    return session_.get();
  }

  bool StartServer(GtlsServer::Options options = {}) {
    options.htdocs = Htdocs();
    std::string why;
    if (!server_.Start(options, &why)) {
      ADD_FAILURE() << why;
      return false;
    }
    return true;
  }

  // GETs /r1 over a mock TCP + TLS connection that answers "tcp"; the
  // request's trace.
  LoadTiming FetchOverMockTcp(HttpNetworkSession* session);
  // A first visit (GET /r1 over QUIC, leaving a ticket for 0-RTT), then the
  // session closed: the next request opens a new QUIC connection.
  void VisitOnceOverQuicAndCloseIdle(HttpNetworkSession* session);

  EventLoop loop_;
  LoopbackResolver resolver_;
  HttpsRecordResolver record_resolver_;
  MockClientSocketFactory factory_;
  // FetchOverMockTcp's data, outliving the session's sockets.
  std::unique_ptr<StaticSocketDataProvider> mock_tcp_;
  std::unique_ptr<SSLSocketDataProvider> mock_tls_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  RecordingTlsObserver observer_;
  std::unique_ptr<HttpNetworkSession> session_;
  GtlsServer server_;
};

struct Request {
  explicit Request(HttpNetworkSession* session, const std::string& path)
      : trans(session) {
    HttpRequestInfo info;
    info.url = *Url::Parse("https://www.example.test" + path);
    rv = trans.Start(info, cb.callback());
  }
  // Start's result, then the body (or the error's name).
  std::string Finish() {
    int error = cb.GetResult(rv);
    std::string body;
    auto buf = std::make_shared<IOBuffer>(4096);
    while (error == OK) {
      int n = cb.GetResult(trans.Read(buf, 4096, cb.callback()));
      if (n < 0) error = n;
      if (n <= 0) break;
      body.append(buf->data(), n);
    }
    return error == OK ? body : ErrorToShortString(error);
  }
  HttpNetworkTransaction trans;
  TestCompletionCallback cb;
  int rv;
};

TEST_F(Http3StreamTest, TwentyTransactionsShareOneQuicConnection) {
  ASSERT_TRUE(StartServer());
  HttpNetworkSession* session =
      NewSession(server_.endpoint().port(), absl::Seconds(5));
  std::vector<std::unique_ptr<Request>> requests;
  for (int i = 0; i < 20; ++i) {
    requests.push_back(
        std::make_unique<Request>(session, absl::StrCat("/r", i)));
  }
  int news = 0;
  std::vector<int64_t> ids;
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(requests[i]->Finish(), absl::StrCat("body ", i));
    const LoadTiming& t = requests[i]->trans.load_timing();
    EXPECT_TRUE(t.quic.used);
    EXPECT_EQ(t.quic.version, 1u);
    EXPECT_EQ(t.ssl.alpn, "h3");
    EXPECT_EQ(t.status_code, 200);
    ids.push_back(t.quic.stream_id);
    if (t.quic.session == SessionUse::kNew) {
      ++news;
      // Chromium's QUIC timing: connectStart..connectEnd is the handshake.
      EXPECT_EQ(t.ssl_start, t.connect_start);
      EXPECT_GT(t.connect_end, t.connect_start);
      EXPECT_GT(t.quic.handshake, absl::ZeroDuration());
      EXPECT_EQ(t.ssl.cert_verify.error, OK);
      EXPECT_FALSE(t.socket_reused);
    } else {
      EXPECT_EQ(t.quic.session, SessionUse::kReused);
      EXPECT_TRUE(t.socket_reused);
    }
  }
  EXPECT_EQ(news, 1);
  std::sort(ids.begin(), ids.end());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ids[i], 4 * i);
  EXPECT_EQ(session->http3_session_pool()->session_count(), 1u);
  // One QUIC handshake, told once, with the facts TCP's would have; the
  // observer's mark is in the trace of the request that made it.
  ASSERT_EQ(observer_.calls.size(), 1u);
  const RecordingTlsObserver::Call& call = observer_.calls[0];
  EXPECT_EQ(call.host, "www.example.test");
  EXPECT_EQ(call.port, 443);
  EXPECT_EQ(call.result, OK);
  EXPECT_EQ(call.alpn, "h3");
  EXPECT_EQ(call.quic_session, SessionUse::kNew);
  EXPECT_EQ(call.quic_version, 1u);
  EXPECT_EQ(call.cert_verify_error, OK);
  int marked = 0;
  for (const auto& r : requests) {
    const LoadTiming& t = r->trans.load_timing();
    if (t.cert_bundle.not_used_because == "seen by the observer") {
      ++marked;
      EXPECT_EQ(t.quic.session, SessionUse::kNew);
    }
  }
  EXPECT_EQ(marked, 1);
}

TEST_F(Http3StreamTest, DroppedUdpPathFallsBackToTcp) {
  UdpBlackHole hole;
  HttpNetworkSession* session =
      NewSession(hole.endpoint().port(), absl::Milliseconds(400));
  // One TCP+TLS connection answers: the fallback's request, then (kept
  // alive) the next one's.
  const char kGet[] =
      "GET /r1 HTTP/1.1\r\nHost: www.example.test\r\nUser-Agent: "
      "netstack-fetch/0.1\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n";
  const char kOk[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntcp";
  StaticSocketDataProvider tcp(
      {MockRead(ASYNC, kOk), MockRead(ASYNC, kOk),
       MockRead(SYNC, ERR_IO_PENDING)},
      {MockWrite(ASYNC, kGet), MockWrite(ASYNC, kGet)});
  factory_.AddSocketDataProvider(&tcp);
  SSLSocketDataProvider tls(ASYNC, OK);
  factory_.AddTlsSocketProvider(&tls);
  const TimeTicks start = TimeTicks::Now();
  Request first(session, "/r1");
  EXPECT_EQ(first.Finish(), "tcp");
  const absl::Duration took = TimeTicks::Now() - start;
  EXPECT_GE(took, absl::Milliseconds(380));
  EXPECT_LT(took, absl::Seconds(2));
  const LoadTiming& t = first.trans.load_timing();
  EXPECT_FALSE(t.quic.used);
  EXPECT_EQ(t.quic.fallback.rfind("ERR_QUIC_HANDSHAKE_TIMEOUT: ", 0), 0u)
      << t.quic.fallback;
  EXPECT_NE(t.quic.fallback.find("no UDP answer"), std::string::npos);
  EXPECT_NE(t.quic.fallback.find("retried over TCP"), std::string::npos);
  EXPECT_GE(hole.received(), 1);
  // The failed QUIC handshake, then the TCP connection's TLS handshake.
  ASSERT_EQ(observer_.calls.size(), 2u);
  EXPECT_EQ(observer_.calls[0].result, ERR_QUIC_HANDSHAKE_TIMEOUT);
  EXPECT_EQ(observer_.calls[0].quic_session, SessionUse::kNew);
  EXPECT_EQ(observer_.calls[1].result, OK);
  EXPECT_EQ(observer_.calls[1].quic_session, SessionUse::kNone);
  EXPECT_EQ(t.cert_bundle.not_used_because, "seen by the observer");

  // The origin is broken for QUIC now: the next request goes to TCP at once.
  const int before = hole.received();
  Request second(session, "/r1");
  EXPECT_EQ(second.Finish(), "tcp");
  EXPECT_EQ(
      second.trans.load_timing().quic.fallback.rfind(
          "QUIC marked broken for this origin (ERR_QUIC_HANDSHAKE_TIMEOUT", 0),
      0u)
      << second.trans.load_timing().quic.fallback;
  EXPECT_EQ(hole.received(), before);
}

// A return visit in 0-RTT opens its session at once (Connect is OK before
// the handshake); when the server then stops answering, the session fails
// before its handshake completes: a failure to connect, so TCP, as for a
// first visit.
TEST_F(Http3StreamTest, ZeroRttSessionThatNeverCompletesFallsBackToTcp) {
  ASSERT_TRUE(StartServer());
  HttpNetworkSession* session =
      NewSession(server_.endpoint().port(), absl::Milliseconds(400));
  ASSERT_NO_FATAL_FAILURE(VisitOnceOverQuicAndCloseIdle(session));
  server_.Pause();
  const LoadTiming t = FetchOverMockTcp(session);
  EXPECT_FALSE(t.quic.used);
  EXPECT_EQ(t.quic.fallback.rfind("ERR_QUIC_HANDSHAKE_TIMEOUT: ", 0), 0u)
      << t.quic.fallback;
  EXPECT_NE(t.quic.fallback.find("retried over TCP"), std::string::npos);
  // The observer heard the first handshake, then the early session's
  // failure (not Connect's early OK), then the TCP connection's handshake.
  ASSERT_EQ(observer_.calls.size(), 3u);
  EXPECT_EQ(observer_.calls[0].result, OK);
  EXPECT_EQ(observer_.calls[1].result, ERR_QUIC_HANDSHAKE_TIMEOUT);
  EXPECT_EQ(observer_.calls[1].quic_session, SessionUse::kNew);
  EXPECT_EQ(observer_.calls[2].result, OK);
  EXPECT_EQ(observer_.calls[2].quic_session, SessionUse::kNone);
  server_.Resume();
}

// A return visit's 0-RTT handshake is told when it has ended (the response
// came), with its facts, not at Connect's early OK.
TEST_F(Http3StreamTest, ZeroRttHandshakeIsToldWhenItHasEnded) {
  ASSERT_TRUE(StartServer());
  HttpNetworkSession* session =
      NewSession(server_.endpoint().port(), absl::Seconds(5));
  ASSERT_NO_FATAL_FAILURE(VisitOnceOverQuicAndCloseIdle(session));
  Request again(session, "/r2");
  EXPECT_EQ(again.Finish(), "body 2");
  const LoadTiming& t = again.trans.load_timing();
  EXPECT_TRUE(t.quic.used);
  EXPECT_TRUE(t.quic.sent_early);
  ASSERT_EQ(observer_.calls.size(), 2u);
  const RecordingTlsObserver::Call& call = observer_.calls[1];
  EXPECT_EQ(call.result, OK);
  EXPECT_EQ(call.quic_session, SessionUse::kNew);
  EXPECT_EQ(call.zero_rtt, "accepted");
  EXPECT_GT(call.quic_handshake, absl::ZeroDuration());  // it had ended
  EXPECT_EQ(call.alpn, "h3");
  EXPECT_EQ(t.cert_bundle.not_used_because, "seen by the observer");
}

TEST_F(Http3StreamTest, CertificateErrorsDoNotFallBack) {
  GtlsServer::Options options;
  options.chain = "cert/testdata/untrusted_leaf_chain.pem";
  options.key = "cert/testdata/untrusted_leaf.key";
  ASSERT_TRUE(StartServer(options));
  HttpNetworkSession* session =
      NewSession(server_.endpoint().port(), absl::Seconds(5));
  // No TCP script: a fallback would fail differently.
  Request request(session, "/r1");
  EXPECT_EQ(request.Finish(), "ERR_CERT_AUTHORITY_INVALID");
  EXPECT_TRUE(request.trans.load_timing().quic.fallback.empty());
  EXPECT_FALSE(request.trans.error_detail().empty());
  // The failed handshake is told with its error, as TCP's would be.
  ASSERT_EQ(observer_.calls.size(), 1u);
  EXPECT_EQ(observer_.calls[0].result, ERR_CERT_AUTHORITY_INVALID);
  EXPECT_EQ(observer_.calls[0].cert_verify_error, ERR_CERT_AUTHORITY_INVALID);
}

TEST_F(Http3StreamTest, HttpsRecordWithH3SendsTheRequestOverHttp3) {
  ASSERT_TRUE(StartServer());
  record_resolver_.record =
      Record({"h3", "h2"}, false, server_.endpoint().port());
  HttpNetworkSession* session = NewRecordSession(absl::Seconds(5));
  Request first(session, "/r1");
  EXPECT_EQ(first.Finish(), "body 1");
  const LoadTiming& t = first.trans.load_timing();
  EXPECT_TRUE(t.quic.used);
  EXPECT_EQ(t.quic.session, SessionUse::kNew);
  EXPECT_EQ(t.ssl.alpn, "h3");
  EXPECT_EQ(t.quic.https_record,
            absl::StrCat("alpn=h3,h2 target=www.example.test port=",
                         server_.endpoint().port()));
  EXPECT_EQ(t.remote_address, server_.endpoint().ToString());
  EXPECT_TRUE(t.quic.fallback.empty());
  EXPECT_TRUE(t.quic.alt_svc.empty());
  // The TCP job's lookup (one, with the record) is the trace's.
  EXPECT_EQ(t.dns_https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(t.dns_source, DnsSource::kNetwork);
  EXPECT_FALSE(t.dns_end.is_null());
  EXPECT_EQ(record_resolver_.https, 1);
  EXPECT_EQ(record_resolver_.plain, 0);
  ASSERT_EQ(observer_.calls.size(), 1u);
  EXPECT_EQ(observer_.calls[0].result, OK);
  // The origin's open HTTP/3 session carries the next request, no lookup.
  Request second(session, "/r2");
  EXPECT_EQ(second.Finish(), "body 2");
  EXPECT_EQ(second.trans.load_timing().quic.session, SessionUse::kReused);
  EXPECT_EQ(record_resolver_.https, 1);
  EXPECT_EQ(session->http3_session_pool()->session_count(), 1u);
}

TEST_F(Http3StreamTest, H3OnlyRecordFallsBackToTcpWithoutTheRecord) {
  // alpn=h3 no-default-alpn, to a port that swallows every datagram: after
  // the connect timeout, TCP (scripted) to the origin's own port, looked up
  // again without HTTPS records.
  UdpBlackHole hole;
  record_resolver_.record = Record({"h3"}, true, hole.endpoint().port());
  // The second lookup (without HTTPS records) is the cache's.
  record_resolver_.plain_source = DnsSource::kCache;
  HttpNetworkSession* session = NewRecordSession(absl::Milliseconds(400));
  const char kGet[] =
      "GET /r1 HTTP/1.1\r\nHost: www.example.test\r\nUser-Agent: "
      "netstack-fetch/0.1\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n";
  const char kOk[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntcp";
  // Two TCP+TLS connections, one per request (the idle one is closed
  // between them, so the second request looks its origin up again).
  StaticSocketDataProvider tcp1(
      {MockRead(ASYNC, kOk), MockRead(SYNC, ERR_IO_PENDING)},
      {MockWrite(ASYNC, kGet)});
  StaticSocketDataProvider tcp2(
      {MockRead(ASYNC, kOk), MockRead(SYNC, ERR_IO_PENDING)},
      {MockWrite(ASYNC, kGet)});
  factory_.AddSocketDataProvider(&tcp1);
  factory_.AddSocketDataProvider(&tcp2);
  SSLSocketDataProvider tls1(ASYNC, OK);
  SSLSocketDataProvider tls2(ASYNC, OK);
  factory_.AddTlsSocketProvider(&tls1);
  factory_.AddTlsSocketProvider(&tls2);
  Request first(session, "/r1");
  EXPECT_EQ(first.Finish(), "tcp");
  const LoadTiming& t = first.trans.load_timing();
  EXPECT_FALSE(t.quic.used);
  EXPECT_EQ(t.quic.fallback.rfind("ERR_QUIC_HANDSHAKE_TIMEOUT: ", 0), 0u)
      << t.quic.fallback;
  EXPECT_EQ(t.quic.https_record,
            absl::StrCat("alpn=h3 no-default-alpn target=www.example.test "
                         "port=",
                         hole.endpoint().port()));
  EXPECT_GE(hole.received(), 1);
  // TCP went to the origin's port (443), not the record's.
  EXPECT_EQ(t.remote_address, "127.0.0.1:443");
  // The trace's DNS is the first lookup's (the network's), not the cache's.
  EXPECT_EQ(t.dns_source, DnsSource::kNetwork);
  EXPECT_EQ(t.dns_https.status, HttpsRecordStatus::kIgnored);
  EXPECT_NE(t.dns_https.detail.find("not for TCP"), std::string::npos)
      << t.dns_https.detail;
  // The lookup with the record (QUIC's), then the fallback's: with the
  // record again (cached in a real resolver), then without it.
  EXPECT_EQ(record_resolver_.https, 2);
  EXPECT_EQ(record_resolver_.plain, 1);

  // The origin is broken for QUIC: the next request (a new connection)
  // goes to TCP at once, without the record, saying why.
  session->CloseIdleSockets();
  const int before = hole.received();
  Request second(session, "/r1");
  EXPECT_EQ(second.Finish(), "tcp");
  const LoadTiming& t2 = second.trans.load_timing();
  EXPECT_EQ(t2.quic.fallback.rfind("QUIC marked broken for this origin", 0), 0u)
      << t2.quic.fallback;
  EXPECT_EQ(t2.dns_https.status, HttpsRecordStatus::kIgnored);
  EXPECT_FALSE(t2.socket_reused);
  EXPECT_EQ(hole.received(), before);
  EXPECT_EQ(record_resolver_.https, 3);
  EXPECT_EQ(record_resolver_.plain, 2);
}

void Http3StreamTest::VisitOnceOverQuicAndCloseIdle(
    HttpNetworkSession* session) {
  {
    Request first(session, "/r1");
    EXPECT_EQ(first.Finish(), "body 1");
    ASSERT_TRUE(first.trans.load_timing().quic.used);
  }
  session->CloseIdleSockets();
  ASSERT_EQ(session->http3_session_pool()->session_count(), 0u);
}

LoadTiming Http3StreamTest::FetchOverMockTcp(HttpNetworkSession* session) {
  const char kGet[] =
      "GET /r1 HTTP/1.1\r\nHost: www.example.test\r\nUser-Agent: "
      "netstack-fetch/0.1\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n";
  const char kOk[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntcp";
  mock_tcp_ = std::make_unique<StaticSocketDataProvider>(
      std::vector<MockRead>{MockRead(ASYNC, kOk),
                            MockRead(SYNC, ERR_IO_PENDING)},
      std::vector<MockWrite>{MockWrite(ASYNC, kGet)});
  factory_.AddSocketDataProvider(mock_tcp_.get());
  mock_tls_ = std::make_unique<SSLSocketDataProvider>(ASYNC, OK);
  factory_.AddTlsSocketProvider(mock_tls_.get());
  Request request(session, "/r1");
  EXPECT_EQ(request.Finish(), "tcp");
  return request.trans.load_timing();
}

TEST_F(Http3StreamTest, RecordWithoutH3StaysOnTcp) {
  record_resolver_.record = Record({"h2"}, false, 443);
  HttpNetworkSession* session = NewRecordSession(absl::Seconds(2));
  const LoadTiming t = FetchOverMockTcp(session);
  EXPECT_FALSE(t.quic.used);
  EXPECT_TRUE(t.quic.fallback.empty());
  EXPECT_TRUE(t.quic.https_record.empty());
  EXPECT_EQ(t.dns_https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(session->http3_session_pool()->session_count(), 0u);
}

// QUIC here has no ECH: a record offering h3 with an ECH configuration
// keeps the request on TCP, where ECH hides the name.
TEST_F(Http3StreamTest, RecordWithH3AndEchStaysOnTcp) {
  record_resolver_.record = Record({"h3", "h2"}, false, 443);
  record_resolver_.record.ech_config_list = "not parsed by the mock socket";
  HttpNetworkSession* session = NewRecordSession(absl::Seconds(2));
  const LoadTiming t = FetchOverMockTcp(session);
  EXPECT_FALSE(t.quic.used);
  EXPECT_EQ(t.quic.fallback,
            "not over QUIC: an ECH configuration applies and QUIC here has no "
            "ECH; TCP");
  EXPECT_EQ(t.quic.https_record, "alpn=h3,h2 target=www.example.test port=443");
  EXPECT_EQ(session->http3_session_pool()->session_count(), 0u);
}

// Whether ECH keeps a connection on TCP follows what the mode offers: a
// configuration with on or hard; GREASE offers none, so nothing is hidden
// by staying on TCP (the SSLConnectJob's SVCB-reliance follows the same
// rule).
TEST_F(Http3StreamTest, EchAppliesOnlyWhereAConfigurationIsOffered) {
  HttpsRecordInfo with_ech = Record({"h3", "h2"}, false, 443);
  with_ech.ech_config_list = "a configuration";
  const HttpsRecordInfo without_ech = Record({"h3", "h2"}, false, 443);
  for (EchMode mode :
       {EchMode::kOff, EchMode::kGrease, EchMode::kOn, EchMode::kHard}) {
    HttpNetworkSessionParams params;
    params.ssl_config.ech_mode = mode;
    HttpNetworkSession session(params, &record_resolver_, &factory_,
                               verifier_.get());
    const bool offers = mode == EchMode::kOn || mode == EchMode::kHard;
    EXPECT_EQ(session.EchApplies(with_ech), offers) << static_cast<int>(mode);
    EXPECT_FALSE(session.EchApplies(without_ech)) << static_cast<int>(mode);
  }
}

}  // namespace
}  // namespace net
