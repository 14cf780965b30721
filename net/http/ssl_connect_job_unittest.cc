// SSLConnectJob over scripted sockets (MockClientSocketFactory: which TLS
// socket it asks for, with what config, each address in turn, the
// OnHostResolved hook, the phase that failed) and against a real TLS server
// on loopback through the default socket factory.

#include "net/http/ssl_connect_job.h"

#include <openssl/hpke.h>
#include <openssl/mem.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"
#include "net/http/default_client_socket_factory.h"
#include "net/snap_start/snap_start_client_context.h"
#include "net/socket/socket_test_util.h"
#include "net/ssl/ssl_test_util.h"
#include "net/ssl/tls_loopback_test_util.h"

namespace net {
namespace {

// Answers every name with |addresses|, or with |error|; synchronously, or
// from a posted task with |async| (destroying the request cancels it).
class FakeResolver : public HostResolver {
 public:
  class FakeRequest : public Request {
   public:
    explicit FakeRequest(std::shared_ptr<bool> alive)
        : alive_(std::move(alive)) {}
    ~FakeRequest() override { *alive_ = false; }

   private:
    std::shared_ptr<bool> alive_;
  };

  std::vector<IPAddress> addresses = {IPAddress::IPv4Localhost()};
  int error = OK;
  bool async = false;
  int calls = 0;
  // What ResolveHttps reports (Resolve reports none).
  HttpsRecordInfo https;
  int https_calls = 0;
  // Names a plain Resolve (not ResolveHttps's) fails for, with no address.
  std::map<std::string, int> resolve_errors;
  int ResolveHttps(const std::string& host, uint16_t port,
                   HostResolveResult* result, CompletionOnceCallback callback,
                   std::unique_ptr<Request>* out) override {
    ++https_calls;
    in_https_ = true;
    int rv = Resolve(host, port, result, std::move(callback), out);
    in_https_ = false;
    result->https = https;
    return rv;
  }
  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out) override {
    ++calls;
    auto it = resolve_errors.find(host);
    const int scripted =
        !in_https_ && it != resolve_errors.end() ? it->second : error;
    auto answer = [this, result, scripted] {
      result->source = DnsSource::kNetwork;
      result->addresses = scripted == OK ? addresses : std::vector<IPAddress>();
      if (scripted != OK) result->detail = "scripted failure";
      return scripted;
    };
    if (!async) return answer();
    auto alive = std::make_shared<bool>(true);
    *out = std::make_unique<FakeRequest>(alive);
    EventLoop::Current()->PostTask(
        [answer, alive, callback = std::move(callback)]() mutable {
          if (*alive) std::move(callback)(answer());
        });
    return ERR_IO_PENDING;
  }

 private:
  bool in_https_ = false;
};

class AcceptAllVerifier : public CertVerifier {
 public:
  int Verify(const CertVerifyParams&, CertVerifyResult* result,
             CompletionOnceCallback, std::unique_ptr<Request>*) override {
    result->error = OK;
    return OK;
  }
};

class SSLConnectJobTest : public ::testing::Test {
 protected:
  SSLConnectJobTest() : ssl_context_(&verifier_) {}

  SSLConnectJobParams Params() {
    SSLConnectJobParams params;
    params.host = "www.example.test";
    params.port = 443;
    params.ssl_context = &ssl_context_;
    return params;
  }

  // Scripts the next connections: one refused, then |then_ok| that connect
  // and complete the handshake.
  void ScriptRefusedThen(int then_ok) {
    scripted_.push_back(std::make_unique<StaticSocketDataProvider>(
        std::vector<MockRead>(), std::vector<MockWrite>()));
    scripted_.back()->set_connect_data(
        MockConnect(SYNC, ERR_CONNECTION_REFUSED));
    factory_.AddSocketDataProvider(scripted_.back().get());
    for (int i = 0; i < then_ok; ++i) {
      scripted_.push_back(std::make_unique<StaticSocketDataProvider>(
          std::vector<MockRead>(), std::vector<MockWrite>()));
      factory_.AddSocketDataProvider(scripted_.back().get());
      scripted_ssl_.push_back(
          std::make_unique<SSLSocketDataProvider>(SYNC, OK));
      factory_.AddTlsSocketProvider(scripted_ssl_.back().get());
    }
  }

  // Makes |*job| with the fake resolver's HTTPS record on and ECH |mode|,
  // and connects it: the result.
  int ConnectWithRecord(std::unique_ptr<SSLConnectJob>* job,
                        EchMode mode = EchMode::kOn) {
    SSLConnectJobParams params = Params();
    params.transport.https_record = true;
    params.ssl_config.ech_mode = mode;
    *job = std::make_unique<SSLConnectJob>(&resolver_, &factory_,
                                           std::move(params));
    TestCompletionCallback cb;
    return cb.GetResult((*job)->Connect(cb.callback()));
  }

  EventLoop loop_;
  FakeResolver resolver_;
  AcceptAllVerifier verifier_;
  SSLClientContext ssl_context_;
  MockClientSocketFactory factory_;
  std::vector<std::unique_ptr<StaticSocketDataProvider>> scripted_;
  std::vector<std::unique_ptr<SSLSocketDataProvider>> scripted_ssl_;
};

TEST_F(SSLConnectJobTest, ResolvesConnectsAndHandshakesThroughTheFactory) {
  resolver_.async = true;
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(ASYNC, OK);
  ssl.ssl_info.version = "TLSv1.3";
  factory_.AddTlsSocketProvider(&ssl);
  SSLConnectJobParams params = Params();
  params.ssl_config.early_data_enabled = true;
  SSLConnectJob job(&resolver_, &factory_, std::move(params));

  TestCompletionCallback cb;
  EXPECT_EQ(ERR_IO_PENDING, job.Connect(cb.callback()));
  EXPECT_EQ(ConnectJob::Phase::kResolveHost, job.phase());
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_EQ(ConnectJob::Phase::kDone, job.phase());
  std::unique_ptr<StreamSocket> socket = job.TakeSocket();
  ASSERT_TRUE(socket);
  ASSERT_TRUE(job.ssl_info());
  EXPECT_EQ("TLSv1.3", job.ssl_info()->version);
  EXPECT_FALSE(job.used_snap_start_core());
  ASSERT_EQ(1u, factory_.tls_sockets_requested().size());
  EXPECT_EQ("ssl www.example.test:443", factory_.tls_sockets_requested()[0]);
  ASSERT_EQ(1u, factory_.ssl_configs().size());
  EXPECT_TRUE(factory_.ssl_configs()[0].early_data_enabled);

  const ConnectTiming timing = job.timing();
  EXPECT_FALSE(timing.dns_start.is_null());
  EXPECT_LE(timing.dns_start, timing.dns_end);
  EXPECT_EQ(DnsSource::kNetwork, timing.dns_source);
  EXPECT_LE(timing.dns_end, timing.connect_start);
  EXPECT_LE(timing.connect_start, timing.ssl_start);
  EXPECT_LE(timing.ssl_start, timing.connect_end);
  EXPECT_EQ("127.0.0.1:443", timing.remote_address);
}

TEST_F(SSLConnectJobTest, TriesEachAddressInTurn) {
  resolver_.addresses = {*IPAddress::Parse("127.0.0.2"),
                         *IPAddress::Parse("127.0.0.3")};
  StaticSocketDataProvider refused({}, {});
  refused.set_connect_data(MockConnect(ASYNC, ERR_CONNECTION_REFUSED));
  factory_.AddSocketDataProvider(&refused);
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(SYNC, OK);
  factory_.AddTlsSocketProvider(&ssl);
  SSLConnectJob job(&resolver_, &factory_, Params());

  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(2u, factory_.sockets_created());
  EXPECT_EQ(1u, job.address_index());
  EXPECT_EQ("127.0.0.3:443", job.timing().remote_address);
  EXPECT_TRUE(job.TakeSocket());
}

TEST_F(SSLConnectJobTest, EveryAddressRefusedFailsInTheTransportPhase) {
  StaticSocketDataProvider refused({}, {});
  refused.set_connect_data(MockConnect(SYNC, ERR_CONNECTION_REFUSED));
  factory_.AddSocketDataProvider(&refused);
  SSLConnectJob job(&resolver_, &factory_, Params());

  TestCompletionCallback cb;
  EXPECT_EQ(ERR_CONNECTION_REFUSED, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(ConnectJob::Phase::kTransportConnect, job.phase());
  EXPECT_EQ("connecting to www.example.test:443: ERR_CONNECTION_REFUSED",
            job.error_detail());
  EXPECT_EQ(nullptr, job.ssl_info());
  EXPECT_TRUE(factory_.tls_sockets_requested().empty());
}

TEST_F(SSLConnectJobTest, LookupFailureFailsInTheResolvePhase) {
  resolver_.error = ERR_NAME_NOT_RESOLVED;
  resolver_.addresses.clear();
  SSLConnectJob job(&resolver_, &factory_, Params());

  TestCompletionCallback cb;
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(ConnectJob::Phase::kResolveHost, job.phase());
  EXPECT_EQ("resolving www.example.test: scripted failure", job.error_detail());
  EXPECT_EQ(0u, factory_.sockets_created());
}

TEST_F(SSLConnectJobTest, HandshakeFailureKeepsTheFactsAndTheSocketsDetail) {
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(ASYNC, ERR_SSL_PROTOCOL_ERROR);
  ssl.error_detail = "scripted: bad record";
  ssl.ssl_info.version = "TLSv1.2";
  factory_.AddTlsSocketProvider(&ssl);
  SSLConnectJob job(&resolver_, &factory_, Params());

  TestCompletionCallback cb;
  EXPECT_EQ(ERR_SSL_PROTOCOL_ERROR, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(ConnectJob::Phase::kSSLHandshake, job.phase());
  EXPECT_EQ("scripted: bad record", job.error_detail());
  ASSERT_TRUE(job.ssl_info());
  EXPECT_EQ("TLSv1.2", job.ssl_info()->version);
  EXPECT_FALSE(job.TakeSocket());
  EXPECT_TRUE(job.timing().connect_end.is_null());
  EXPECT_FALSE(job.timing().ssl_start.is_null());
}

TEST_F(SSLConnectJobTest, ServerTheSnapStartContextKnowsGetsTheSnapStartCore) {
  auto snap = SnapStartClientContext::Create(&verifier_, {});
  ASSERT_TRUE(snap.ok()) << snap.status();
  (*snap)->PutInfo("www.example.test:443", SnapStartInfo());
  StaticSocketDataProvider known({}, {});
  factory_.AddSocketDataProvider(&known);
  StaticSocketDataProvider unknown({}, {});
  factory_.AddSocketDataProvider(&unknown);
  SSLSocketDataProvider ssl1(SYNC, OK);
  factory_.AddTlsSocketProvider(&ssl1);
  SSLSocketDataProvider ssl2(SYNC, OK);
  factory_.AddTlsSocketProvider(&ssl2);

  SSLConnectJobParams params = Params();
  params.snap_start_context = snap->get();
  SSLConnectJob job(&resolver_, &factory_, std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_TRUE(job.used_snap_start_core());
  // The choice, by cost: Snap Start (2 round trips) over a full handshake.
  ASSERT_NE(job.handshake_choice(), nullptr);
  EXPECT_EQ(job.handshake_choice()->chosen, "snap_start");
  EXPECT_EQ(job.handshake_choice()->rtts, 2);
  EXPECT_EQ(job.handshake_choice()->runner_up, "tls_full");
  EXPECT_EQ(job.handshake_choice()->runner_up_rtts, 3);

  // Another port: no information, so BoringSSL.
  SSLConnectJobParams other = Params();
  other.port = 8443;
  other.snap_start_context = snap->get();
  SSLConnectJob job2(&resolver_, &factory_, std::move(other));
  EXPECT_EQ(OK, cb.GetResult(job2.Connect(cb.callback())));
  EXPECT_FALSE(job2.used_snap_start_core());
  ASSERT_NE(job2.handshake_choice(), nullptr);
  EXPECT_EQ(job2.handshake_choice()->chosen, "tls_full");
  EXPECT_EQ(job2.handshake_choice()->runner_up, "");
  EXPECT_EQ((std::vector<std::string>{"snap_start www.example.test:443",
                                      "ssl www.example.test:8443"}),
            factory_.tls_sockets_requested());
}

// An HTTPS record with ECH: Snap Start's core cannot hide the name, so
// BoringSSL runs the handshake, offered the record's configuration.
TEST_F(SSLConnectJobTest, EchConfigurationRulesOutSnapStart) {
  auto snap = SnapStartClientContext::Create(&verifier_, {});
  ASSERT_TRUE(snap.ok()) << snap.status();
  (*snap)->PutInfo("www.example.test:443", SnapStartInfo());
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(SYNC, OK);
  factory_.AddTlsSocketProvider(&ssl);
  resolver_.https.status = HttpsRecordStatus::kUsed;
  resolver_.https.ech_config_list = std::string("\x00\x02\xfe\x0d", 4);
  SSLConnectJobParams params = Params();
  params.snap_start_context = snap->get();
  params.transport.https_record = true;
  SSLConnectJob job(&resolver_, &factory_, std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_FALSE(job.used_snap_start_core());
  EXPECT_EQ(job.handshake_choice()->chosen, "tls_full");
  ASSERT_EQ(1u, factory_.ssl_configs().size());
  EXPECT_EQ(factory_.ssl_configs()[0].ech_config_list,
            resolver_.https.ech_config_list);
  EXPECT_EQ(resolver_.https_calls, 1);
}

TEST_F(SSLConnectJobTest, EchModesShapeTheConfig) {
  resolver_.https.status = HttpsRecordStatus::kUsed;
  resolver_.https.ech_config_list = "record's";
  struct Case {
    EchMode mode;
    std::string preset;
    std::string want_list;
    bool want_grease;
  } cases[] = {
      {EchMode::kOn, "", "record's", true},
      {EchMode::kOn, "ecl", "ecl", true},  // --ech ecl: wins over DNS
      {EchMode::kGrease, "", "", true},
      {EchMode::kOff, "", "", false},
  };
  for (const Case& c : cases) {
    StaticSocketDataProvider data({}, {});
    factory_.AddSocketDataProvider(&data);
    SSLSocketDataProvider ssl(SYNC, OK);
    factory_.AddTlsSocketProvider(&ssl);
    SSLConnectJobParams params = Params();
    params.transport.https_record = true;
    params.ssl_config.ech_mode = c.mode;
    params.ssl_config.ech_config_list = c.preset;
    SSLConnectJob job(&resolver_, &factory_, std::move(params));
    TestCompletionCallback cb;
    EXPECT_EQ(OK, cb.GetResult(job.Connect(cb.callback())));
    EXPECT_EQ(factory_.ssl_configs().back().ech_config_list, c.want_list);
    EXPECT_EQ(factory_.ssl_configs().back().ech_grease, c.want_grease);
  }
  // --ech hard without a configuration: no connection is worth making.
  resolver_.https.ech_config_list.clear();
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLConnectJobParams params = Params();
  params.transport.https_record = true;
  params.ssl_config.ech_mode = EchMode::kHard;
  SSLConnectJob job(&resolver_, &factory_, std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_ECH_NOT_NEGOTIATED, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_NE(job.error_detail().find("--ech hard"), std::string::npos)
      << job.error_detail();
  EXPECT_EQ(job.phase(), ConnectJob::Phase::kSSLHandshake);
}

// RFC 9460 3: when the HTTPS record's endpoint cannot be reached, the
// connection goes to the origin's own addresses and port, as without the
// record; the trace keeps the record, "ignored", saying why.
TEST_F(SSLConnectJobTest, FailedRecordEndpointGivesWayToTheOriginsOwn) {
  ScriptRefusedThen(1);
  resolver_.https.status = HttpsRecordStatus::kUsed;
  resolver_.https.target = "www.example.test";
  resolver_.https.port = 8443;
  std::unique_ptr<SSLConnectJob> job;
  ASSERT_EQ(OK, ConnectWithRecord(&job)) << job->error_detail();
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_EQ(job->timing().remote_address, "127.0.0.1:443");
  const HttpsRecordInfo& https = job->timing().dns_https;
  EXPECT_EQ(https.status, HttpsRecordStatus::kIgnored);
  EXPECT_EQ(https.port, 8443);
  EXPECT_NE(https.detail.find("every endpoint failed (www.example.test:8443: "
                              "ERR_CONNECTION_REFUSED); TCP went to the "
                              "origin's own addresses and port"),
            std::string::npos)
      << https.detail;
  EXPECT_EQ(resolver_.https_calls, 1);  // then the plain lookup
  EXPECT_EQ(resolver_.calls, 2);
}

// RFC 9460 3: the RRSet's other compatible records are tried by priority
// before the origin's own endpoint: one with the same target on the
// addresses at hand, one with another target after a lookup of it.
TEST_F(SSLConnectJobTest, FailedRecordEndpointGivesWayToTheNextRecord) {
  for (const std::string next_target :
       {"www.example.test", "backup.example.test"}) {
    ScriptRefusedThen(1);
    resolver_.calls = 0;
    resolver_.https = HttpsRecordInfo();
    resolver_.https.status = HttpsRecordStatus::kUsed;
    resolver_.https.priority = 1;
    resolver_.https.target = "www.example.test";
    resolver_.https.port = 8443;
    HttpsRecordInfo next;
    next.status = HttpsRecordStatus::kUsed;
    next.priority = 2;
    next.target = next_target;
    next.port = 9443;
    next.alpn = {"h2"};
    resolver_.https.fallbacks = {next};
    std::unique_ptr<SSLConnectJob> job;
    ASSERT_EQ(OK, ConnectWithRecord(&job)) << job->error_detail();
    EXPECT_EQ(job->timing().remote_address, "127.0.0.1:9443");
    const HttpsRecordInfo& https = job->timing().dns_https;
    EXPECT_EQ(https.status, HttpsRecordStatus::kUsed);
    EXPECT_EQ(https.priority, 2);
    EXPECT_EQ(https.target, next_target);
    EXPECT_EQ(https.alpn, std::vector<std::string>{"h2"});
    EXPECT_EQ(https.detail,
              "the endpoint of priority 2, after www.example.test:8443: "
              "ERR_CONNECTION_REFUSED");
    // Another target is looked up; the same one is not.
    EXPECT_EQ(resolver_.calls, next_target == "www.example.test" ? 1 : 2);
  }
}

// A fallback whose target does not resolve leaves no address at hand: the
// next record, on the first record's target, is looked up again (not
// connected to from an empty list).
TEST_F(SSLConnectJobTest, AFallbackTargetThatDoesNotResolveIsSkipped) {
  ScriptRefusedThen(1);
  resolver_.resolve_errors["gone.example.test"] = ERR_DNS_TIMED_OUT;
  resolver_.https.status = HttpsRecordStatus::kUsed;
  resolver_.https.priority = 1;
  resolver_.https.target = "www.example.test";
  resolver_.https.port = 8443;
  HttpsRecordInfo gone, back;
  gone.status = back.status = HttpsRecordStatus::kUsed;
  gone.priority = 2;
  gone.target = "gone.example.test";
  back.priority = 3;
  back.target = "www.example.test";
  back.port = 9443;
  resolver_.https.fallbacks = {gone, back};
  std::unique_ptr<SSLConnectJob> job;
  ASSERT_EQ(OK, ConnectWithRecord(&job)) << job->error_detail();
  EXPECT_EQ(job->timing().remote_address, "127.0.0.1:9443");
  EXPECT_EQ(job->timing().dns_https.priority, 3);
  EXPECT_NE(job->timing().dns_https.detail.find(
                "gone.example.test:443: ERR_DNS_TIMED_OUT"),
            std::string::npos)
      << job->timing().dns_https.detail;
}

// When the last fallback's lookup fails, the job fails as its endpoints'
// connects did, in the connect phase, and says both.
TEST_F(SSLConnectJobTest, AFailedFallbackLookupReportsTheConnectError) {
  ScriptRefusedThen(0);
  resolver_.resolve_errors["www.example.test"] = ERR_DNS_TIMED_OUT;
  resolver_.https.status = HttpsRecordStatus::kUsed;
  resolver_.https.target = "svc.example.test";
  resolver_.https.port = 8443;
  std::unique_ptr<SSLConnectJob> job;
  EXPECT_EQ(ERR_CONNECTION_REFUSED, ConnectWithRecord(&job));
  EXPECT_EQ(job->phase(), ConnectJob::Phase::kTransportConnect);
  EXPECT_NE(job->error_detail().find("(svc.example.test:8443: "
                                     "ERR_CONNECTION_REFUSED); then resolving "
                                     "www.example.test: "),
            std::string::npos)
      << job->error_detail();
}

TEST_F(SSLConnectJobTest, NoFallbackFromARecordWithEchOrOnTheOriginsOwn) {
  struct Case {
    std::optional<uint16_t> port;
    std::string ech;
  } cases[] = {
      // ECH: the origin's own endpoint would put the name in the clear.
      {8443, std::string("\x00\x02\xfe\x0d", 4)},
      // The record's endpoint is the origin's own: nothing else to try.
      {std::nullopt, ""},
  };
  for (const Case& c : cases) {
    ScriptRefusedThen(0);
    resolver_.https.status = HttpsRecordStatus::kUsed;
    resolver_.https.target = "www.example.test";
    resolver_.https.port = c.port;
    resolver_.https.ech_config_list = c.ech;
    const size_t sockets = factory_.sockets_created();
    std::unique_ptr<SSLConnectJob> job;
    EXPECT_EQ(ERR_CONNECTION_REFUSED, ConnectWithRecord(&job));
    EXPECT_EQ(factory_.sockets_created(), sockets + 1);
    EXPECT_EQ(job->timing().dns_https.status, HttpsRecordStatus::kUsed);
  }
  // With ECH off (or GREASE: no configuration offered) the client is
  // SVCB-optional again: the origin's own.
  for (EchMode mode : {EchMode::kOff, EchMode::kGrease}) {
    ScriptRefusedThen(1);
    resolver_.https.port = 8443;
    resolver_.https.ech_config_list = std::string("\x00\x02\xfe\x0d", 4);
    std::unique_ptr<SSLConnectJob> job;
    EXPECT_EQ(OK, ConnectWithRecord(&job, mode));
    EXPECT_EQ(job->timing().remote_address, "127.0.0.1:443");
  }
}

// A retry's job (addresses given: no lookup of its own) does not fall back:
// its caller's lookup and record stand.
TEST_F(SSLConnectJobTest, ARetryDoesNotFallBackFromTheRecord) {
  ScriptRefusedThen(0);
  HostResolveResult resolved;
  resolved.addresses = {IPAddress::IPv4Localhost()};
  resolved.https.status = HttpsRecordStatus::kUsed;
  resolved.https.target = "www.example.test";
  resolved.https.port = 8443;
  TransportConnectJob::Options options;
  options.resolved = resolved;
  options.https_record = true;
  TransportConnectJob job(&resolver_, &factory_, "www.example.test", 443,
                          absl::Seconds(5), std::move(options));
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_CONNECTION_REFUSED, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(factory_.sockets_created(), 1u);
  EXPECT_EQ(resolver_.calls, 0);
}

TEST_F(SSLConnectJobTest, HookCanHoldTheJobAndLetItGoOn) {
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(SYNC, OK);
  factory_.AddTlsSocketProvider(&ssl);
  int hook_calls = 0;
  std::unique_ptr<SSLConnectJob> job;
  SSLConnectJobParams params = Params();
  params.transport.on_host_resolved = [&](const HostResolveResult& result) {
    EXPECT_EQ(1u, result.addresses.size());
    // The lookup's stamps are readable from inside the hook.
    EXPECT_FALSE(job->timing().dns_end.is_null());
    if (++hook_calls == 1) {
      EventLoop::Current()->PostTask([&] { job->ResumeAfterHostResolved(); });
      return ERR_IO_PENDING;
    }
    return OK;
  };
  job =
      std::make_unique<SSLConnectJob>(&resolver_, &factory_, std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_IO_PENDING, job->Connect(cb.callback()));
  EXPECT_EQ(ConnectJob::Phase::kHostResolved, job->phase());
  EXPECT_EQ(0u, factory_.sockets_created());
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_EQ(2, hook_calls);
  EXPECT_TRUE(job->TakeSocket());
}

TEST_F(SSLConnectJobTest, HookCanEndTheJobWithoutAConnection) {
  SSLConnectJobParams params = Params();
  params.transport.on_host_resolved = [](const HostResolveResult&) {
    return ERR_ABORTED;
  };
  SSLConnectJob job(&resolver_, &factory_, std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_ABORTED, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(0u, factory_.sockets_created());
  EXPECT_EQ("", job.error_detail());
}

TEST_F(SSLConnectJobTest, GivenAddressesSkipTheLookupAndTheHook) {
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(SYNC, OK);
  factory_.AddTlsSocketProvider(&ssl);
  SSLConnectJobParams params = Params();
  HostResolveResult resolved;
  resolved.addresses = {*IPAddress::Parse("127.0.0.2"),
                        *IPAddress::Parse("127.0.0.5")};
  params.transport.resolved = resolved;
  params.transport.first_address = 1;
  params.transport.on_host_resolved = [](const HostResolveResult&) {
    ADD_FAILURE() << "no hook without a lookup";
    return OK;
  };
  SSLConnectJob job(&resolver_, &factory_, std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(0, resolver_.calls);
  EXPECT_TRUE(job.timing().dns_start.is_null());
  EXPECT_EQ("127.0.0.5:443", job.timing().remote_address);
}

TEST_F(SSLConnectJobTest, GivenAddressesPastTheEndFailTheLookup) {
  for (size_t first : {0, 2}) {
    SSLConnectJobParams params = Params();
    HostResolveResult resolved;
    if (first) resolved.addresses = {*IPAddress::Parse("127.0.0.2")};
    params.transport.resolved = resolved;
    params.transport.first_address = first;
    SSLConnectJob job(&resolver_, &factory_, std::move(params));
    TestCompletionCallback cb;
    EXPECT_EQ(ERR_NAME_NOT_RESOLVED, cb.GetResult(job.Connect(cb.callback())))
        << first;
    EXPECT_EQ(0, resolver_.calls);
    EXPECT_TRUE(factory_.tls_sockets_requested().empty());
  }
}

TEST_F(SSLConnectJobTest, AHandshakeThatNeverEndsTimesOut) {
  // TCP connects; the server never answers the ClientHello.
  StaticSocketDataProvider data({}, {});
  factory_.AddSocketDataProvider(&data);
  SSLSocketDataProvider ssl(SYNC, ERR_IO_PENDING);
  factory_.AddTlsSocketProvider(&ssl);
  SSLConnectJobParams params = Params();
  params.handshake_timeout = absl::Milliseconds(20);
  SSLConnectJob job(&resolver_, &factory_, std::move(params));

  TestCompletionCallback cb;
  EXPECT_EQ(ERR_IO_PENDING, job.Connect(cb.callback()));
  EXPECT_EQ(ERR_TIMED_OUT, cb.WaitForResult());
  EXPECT_EQ(ConnectJob::Phase::kSSLHandshake, job.phase());
  EXPECT_NE(std::string::npos, job.error_detail().find("TLS handshake"));
  EXPECT_FALSE(job.TakeSocket());
}

TEST_F(SSLConnectJobTest, DestroyingTheJobCancelsIt) {
  resolver_.async = true;
  bool called = false;
  {
    SSLConnectJob job(&resolver_, &factory_, Params());
    EXPECT_EQ(ERR_IO_PENDING, job.Connect([&](int) { called = true; }));
  }
  loop_.RunUntilIdle();
  EXPECT_FALSE(called);
  EXPECT_EQ(0u, factory_.sockets_created());
}

// A real handshake with a TLS server on loopback, through the production
// factory: the socket the job hands over carries data.
class SSLConnectJobLoopbackTest : public LoopbackTlsTest {};

TEST_F(SSLConnectJobLoopbackTest, HandshakesWithARealServer) {
  LoopbackTlsServer server(LoopbackServerConfig());
  FakeResolver resolver;
  SSLConnectJobParams params;
  params.host = "www.example.test";
  params.port = server.address().port();
  params.ssl_context = context_.get();
  SSLConnectJob job(&resolver, GetDefaultClientSocketFactory(),
                    std::move(params));
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(job.Connect(cb.callback())));
  ASSERT_TRUE(job.ssl_info());
  EXPECT_FALSE(job.ssl_info()->version.empty());
  std::unique_ptr<StreamSocket> socket = job.TakeSocket();
  ASSERT_TRUE(socket);
  EXPECT_EQ("hello over TLS", RoundTrip(socket.get(), "hello over TLS"));
}

TEST_F(SSLConnectJobLoopbackTest, UntrustedServerFailsTheHandshake) {
  LoopbackTlsServer server(
      LoopbackServerConfig("untrusted_leaf_chain.pem", "untrusted_leaf.key"));
  FakeResolver resolver;
  SSLConnectJobParams params;
  params.host = "www.example.test";
  params.port = server.address().port();
  params.ssl_context = context_.get();
  SSLConnectJob job(&resolver, GetDefaultClientSocketFactory(),
                    std::move(params));
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_CERT_AUTHORITY_INVALID,
            cb.GetResult(job.Connect(cb.callback())));
  EXPECT_EQ(ConnectJob::Phase::kSSLHandshake, job.phase());
  EXPECT_FALSE(job.error_detail().empty());
  EXPECT_FALSE(job.TakeSocket());
}

// ECH against BoringSSL's server through the production factory.

// A fresh X25519 ECH key for |public_name|: the server's keys and the
// ECHConfigList a DNS record would carry.
struct EchKeys {
  bssl::UniquePtr<SSL_ECH_KEYS> keys;
  std::string list;
};

EchKeys MakeEchKeys(const std::string& public_name, uint8_t config_id) {
  EchKeys out;
  bssl::ScopedEVP_HPKE_KEY key;
  EXPECT_TRUE(EVP_HPKE_KEY_generate(key.get(), EVP_hpke_x25519_hkdf_sha256()));
  uint8_t* config = nullptr;
  size_t config_len = 0;
  EXPECT_TRUE(SSL_marshal_ech_config(&config, &config_len, config_id, key.get(),
                                     public_name.c_str(), 32));
  bssl::UniquePtr<uint8_t> owned(config);
  out.keys.reset(SSL_ECH_KEYS_new());
  EXPECT_TRUE(
      SSL_ECH_KEYS_add(out.keys.get(), 1, config, config_len, key.get()));
  uint8_t* list = nullptr;
  size_t list_len = 0;
  EXPECT_TRUE(
      SSL_ECH_KEYS_marshal_retry_configs(out.keys.get(), &list, &list_len));
  out.list.assign(reinterpret_cast<char*>(list), list_len);
  OPENSSL_free(list);
  return out;
}

class SSLConnectJobEchTest : public LoopbackTlsTest {
 protected:
  // A job to www.example.test whose HTTPS record (the fake resolver's)
  // offers |list| and names the server's port; the URL's port is 443, where
  // nothing listens, so a connection proves the record's port was used.
  int Connect(const IPEndPoint& server, const std::string& list,
              EchMode mode = EchMode::kOn,
              std::unique_ptr<SSLConnectJob>* out = nullptr) {
    resolver_.https.status = HttpsRecordStatus::kUsed;
    resolver_.https.port = server.port();
    resolver_.https.ech_config_list = list;
    SSLConnectJobParams params;
    params.host = kLoopbackHost;
    params.port = 443;
    params.ssl_context = context_.get();
    params.ssl_config.ech_mode = mode;
    params.transport.https_record = true;
    job_ = std::make_unique<SSLConnectJob>(
        &resolver_, GetDefaultClientSocketFactory(), std::move(params));
    TestCompletionCallback cb;
    return cb.GetResult(job_->Connect(cb.callback()));
  }

  FakeResolver resolver_;
  std::unique_ptr<SSLConnectJob> job_;
};

TEST_F(SSLConnectJobEchTest, TheRecordsPortAndEchConfigurationAreUsed) {
  EchKeys keys = MakeEchKeys("localhost", 1);
  LoopbackTlsServer server(LoopbackServerConfig());
  ASSERT_TRUE(
      SSL_CTX_set1_ech_keys(server.context()->ssl_ctx(), keys.keys.get()));
  ASSERT_EQ(OK, Connect(server.address(), keys.list)) << job_->error_detail();
  EXPECT_EQ(job_->ssl_info()->ech, EchOutcome::kAccepted);
  EXPECT_EQ(job_->ssl_info()->ech_retry, EchRetry::kNone);
  EXPECT_EQ(job_->ssl_info()->sni_on_wire, "localhost");
  EXPECT_EQ(job_->timing().remote_address,
            absl::StrCat("127.0.0.1:", server.address().port()));
  EXPECT_EQ(job_->timing().dns_https.port, server.address().port());
  std::unique_ptr<StreamSocket> socket = job_->TakeSocket();
  EXPECT_EQ("inner", RoundTrip(socket.get(), "inner"));
  EXPECT_EQ(server.last()->server_name(), kLoopbackHost);

  // Without https_record the URL's port is used: nothing listens there.
  SSLConnectJobParams params;
  params.host = kLoopbackHost;
  params.port = 443;
  params.ssl_context = context_.get();
  SSLConnectJob plain(&resolver_, GetDefaultClientSocketFactory(),
                      std::move(params));
  TestCompletionCallback cb;
  EXPECT_NE(OK, cb.GetResult(plain.Connect(cb.callback())));
  EXPECT_EQ(plain.phase(), ConnectJob::Phase::kTransportConnect);
}

TEST_F(SSLConnectJobEchTest, StaleConfigurationRetriesWithTheServersOnce) {
  EchKeys stale = MakeEchKeys("localhost", 1);
  EchKeys current = MakeEchKeys("localhost", 2);
  LoopbackTlsServer server(LoopbackServerConfig());
  ASSERT_TRUE(
      SSL_CTX_set1_ech_keys(server.context()->ssl_ctx(), current.keys.get()));
  ASSERT_EQ(OK, Connect(server.address(), stale.list)) << job_->error_detail();
  const SSLInfo& info = *job_->ssl_info();
  EXPECT_EQ(info.ech, EchOutcome::kRejected);
  EXPECT_EQ(info.ech_retry, EchRetry::kAccepted);
  EXPECT_NE(info.ech_detail.find("with the server's retry configurations"),
            std::string::npos)
      << info.ech_detail;
  RunUntil([&] {
    return server.connections().size() == 2 &&
           server.connections()[1]->handshake_result != ERR_IO_PENDING;
  });
  EXPECT_EQ(server.connections().size(), 2u);
  EXPECT_EQ(server.last()->ssl_info().ech, EchOutcome::kAccepted);
  EXPECT_EQ(resolver_.calls, 1);  // one lookup for both connections
  const ConnectTiming timing = job_->timing();
  EXPECT_FALSE(timing.dns_start.is_null());
  EXPECT_LE(timing.connect_start, timing.ssl_start);
  EXPECT_LE(timing.ssl_start, timing.connect_end);
}

TEST_F(SSLConnectJobEchTest, ServerWithoutEchIsRetriedWithoutIt) {
  EchKeys keys = MakeEchKeys("localhost", 1);
  LoopbackTlsServer server(LoopbackServerConfig());  // no ECH keys
  ASSERT_EQ(OK, Connect(server.address(), keys.list)) << job_->error_detail();
  EXPECT_EQ(job_->ssl_info()->ech, EchOutcome::kRejected);
  EXPECT_EQ(job_->ssl_info()->ech_retry, EchRetry::kWithoutEch);
  EXPECT_EQ(job_->ssl_info()->sni_on_wire, kLoopbackHost);
  // --ech hard: that is the failure.
  EXPECT_EQ(ERR_ECH_NOT_NEGOTIATED,
            Connect(server.address(), keys.list, EchMode::kHard));
  EXPECT_NE(job_->error_detail().find("--ech hard"), std::string::npos)
      << job_->error_detail();
}

TEST_F(SSLConnectJobEchTest, RejectedTwiceFailsAfterOneRetry) {
  // A server that rotates its key at every connection: the retry
  // configuration it hands out is stale by the time it is used.
  SSLServerConfig config = LoopbackServerConfig();
  auto context = SSLServerContext::Create(config);
  ASSERT_TRUE(context.ok());
  int accepted = 0;
  LoopbackEchoServer<SSLServerSocket> server(
      [&](std::unique_ptr<StreamSocket> tcp) {
        EchKeys fresh =
            MakeEchKeys("localhost", static_cast<uint8_t>(++accepted));
        EXPECT_TRUE(
            SSL_CTX_set1_ech_keys((*context)->ssl_ctx(), fresh.keys.get()));
        return std::make_unique<SSLServerSocket>(std::move(tcp),
                                                 context->get());
      });
  EchKeys stale = MakeEchKeys("localhost", 200);
  EXPECT_EQ(ERR_ECH_NOT_NEGOTIATED, Connect(server.address(), stale.list));
  EXPECT_EQ(accepted, 2);  // one retry, no more
  EXPECT_EQ(job_->ssl_info()->ech, EchOutcome::kRejected);
  EXPECT_EQ(job_->ssl_info()->ech_retry, EchRetry::kRejected);
}

}  // namespace
}  // namespace net
