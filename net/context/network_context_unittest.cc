// NetworkContext end to end in one event loop: a fetch over TLS to an
// in-process origin, the profile kept across contexts, the profile lock,
// private profiles, prevalidation and transport probes.

#include "net/context/network_context.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "cert/prevalidator.h"
#include "cert/revocation_filter_builder.h"
#include "cert/x509_util.h"
#include "dns/dns_prefetcher.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/file_util.h"
#include "net/base/test_completion_callback.h"
#include "net/context/preconnector.h"
#include "net/context/server_rtt_prober.h"
#include "net/context/test_https_server.h"
#include "net/socket/stream_socket.h"
#include "net/socket/tcp_server_socket.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request_test_util.h"

namespace net {
namespace {

std::string MakeTempDir() {
  std::string pattern =
      absl::StrCat(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp",
                   "/context_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

class NetworkContextTest : public ::testing::Test {
 protected:
  NetworkContextParams Params() {
    NetworkContextParams params;
    params.trust_anchor_files = {"cert/testdata/good_root.pem"};
    params.revocation = RevocationPolicy::Mode::kOff;
    params.resolve_overrides.push_back(*ResolveOverride::Parse(absl::StrCat(
        "www.example.test:", server_.address().port(), ":127.0.0.1")));
    return params;
  }

  Url OriginUrl(const std::string& path = "/") {
    return *Url::Parse(absl::StrCat(
        "https://www.example.test:", server_.address().port(), path));
  }

  // Fetches |url| to the end of its body; returns the net result.
  int Fetch(NetworkContext* context, const Url& url, std::string* body,
            LoadTiming* timing = nullptr,
            URLRequest::Options options = URLRequest::Options()) {
    TestURLRequestDelegate delegate;
    auto request = context->CreateRequest(url, &delegate, options);
    request->Start();
    delegate.RunUntilComplete();
    *body += delegate.body();
    if (timing) *timing = request->load_timing();
    return delegate.result();
  }

  EventLoop loop_;
  TestHttpsServer server_;
};

TEST_F(NetworkContextTest, FetchesOverTls) {
  auto context = NetworkContext::Create(Params());
  ASSERT_TRUE(context.ok()) << context.status();
  std::string body;
  LoadTiming timing;
  EXPECT_EQ(OK, Fetch(context->get(), OriginUrl(), &body, &timing));
  EXPECT_EQ(body, TestHttpsServer::kBody);
  EXPECT_EQ(timing.status_code, 200);
  EXPECT_TRUE(timing.https);
  EXPECT_EQ(timing.ssl.cert_verify.error, OK);
  // The cookie went into the context's jar.
  ASSERT_NE((*context)->cookie_jar(), nullptr);
  EXPECT_EQ((*context)->cookie_jar()->size(), 1u);
}

// Writes a revocation filter over the test root and intermediate (the
// server's chain, cert/testdata/good_leaf_chain.pem) with the server's leaf
// revoked or not; returns its path.
std::string WriteTestFilter(const std::string& dir, uint64_t sequence,
                            bool leaf_revoked) {
  auto chain = LoadPemCertificatesFromFile("cert/testdata/good_leaf_chain.pem");
  auto root = LoadPemCertificatesFromFile("cert/testdata/good_root.pem");
  auto leaf = *GetCertificateFilterFacts((*chain)[0], (*chain)[1]);
  auto inter = *GetCertificateFilterFacts((*chain)[1], (*root)[0]);
  RevocationFilterBuildOptions options;
  options.sequence = sequence;
  options.created = options.coverage = absl::Now();
  options.issuers = {{leaf.key.issuer_spki_sha256, "Intermediate"},
                     {inter.key.issuer_spki_sha256, "Root"}};
  std::vector<RevocationFilterKey> revoked = {
      {leaf.key.issuer_spki_sha256, "\x77"}};
  std::vector<RevocationFilterKey> valid = {inter.key};
  (leaf_revoked ? revoked : valid).push_back(leaf.key);
  std::string path = absl::StrCat(dir, "/filter-", sequence);
  EXPECT_TRUE(
      WriteFileAtomically(
          path, BuildRevocationFilter(revoked, valid, options)->Serialize())
          .ok());
  return path;
}

TEST_F(NetworkContextTest, RevocationFilterAnswersWithNoRequest) {
  std::string dir = MakeTempDir();
  NetworkContextParams params = Params();
  params.revocation = RevocationPolicy::Mode::kFilter;
  // Mode filter without a filter is refused.
  auto none = NetworkContext::Create(params);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("needs a revocation filter"),
            std::string::npos)
      << none.status();
  params.revocation_filter_file = WriteTestFilter(dir, 1, false);
  {
    auto context = NetworkContext::Create(params);
    ASSERT_TRUE(context.ok()) << context.status();
    std::string body;
    LoadTiming timing;
    EXPECT_EQ(OK, Fetch(context->get(), OriginUrl(), &body, &timing));
    const CertVerifyResult& v = timing.ssl.cert_verify;
    EXPECT_EQ(v.revocation_source, RevocationSource::kFilter);
    EXPECT_EQ(v.revocation_outcome, RevocationOutcome::kGood);
    ASSERT_EQ(v.revocation_checks.size(), 2u);  // leaf and intermediate
    for (const RevocationCheck& c : v.revocation_checks)
      EXPECT_EQ(c.method, "filter");
  }
  // The leaf revoked: the request fails, with no request to anyone.
  params.revocation_filter_file = WriteTestFilter(dir, 2, true);
  {
    auto context = NetworkContext::Create(params);
    ASSERT_TRUE(context.ok()) << context.status();
    std::string body;
    LoadTiming timing;
    EXPECT_EQ(ERR_CERT_REVOKED,
              Fetch(context->get(), OriginUrl(), &body, &timing));
    EXPECT_EQ(timing.ssl.cert_verify.revocation_source,
              RevocationSource::kFilter);
  }
  // A damaged file is an error naming it.
  std::string bytes = *ReadFileToString(params.revocation_filter_file);
  bytes[12] ^= 1;
  std::string damaged = dir + "/damaged";
  ASSERT_TRUE(WriteFileAtomically(damaged, bytes).ok());
  params.revocation_filter_file = damaged;
  auto bad = NetworkContext::Create(params);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(damaged + ": checksum_mismatch"),
            std::string::npos)
      << bad.status();
}

TEST_F(NetworkContextTest, RevocationFilterLivesInTheProfile) {
  std::string dir = MakeTempDir();
  std::string profile = dir + "/profile";
  NetworkContextParams params = Params();
  params.revocation = RevocationPolicy::Mode::kFilter;
  params.profile_dir = profile;
  params.revocation_filter_file = WriteTestFilter(dir, 5, true);
  {
    auto context = NetworkContext::Create(params);
    ASSERT_TRUE(context.ok()) << context.status();
    ASSERT_TRUE((*context)->SaveProfile().ok());
  }
  // The next run needs no file: the profile has it.
  params.revocation_filter_file.clear();
  {
    auto context = NetworkContext::Create(params);
    ASSERT_TRUE(context.ok()) << context.status();
    std::string body;
    EXPECT_EQ(ERR_CERT_REVOKED, Fetch(context->get(), OriginUrl(), &body));
  }
  // An older filter than the profile's is refused.
  params.revocation_filter_file = WriteTestFilter(dir, 4, false);
  auto older = NetworkContext::Create(params);
  ASSERT_FALSE(older.ok());
  EXPECT_NE(older.status().message().find("rollback"), std::string::npos);
  // A private profile holds it in memory only.
  std::string never = dir + "/never";
  params.profile_dir = never;
  params.private_profile = true;
  params.revocation_filter_file = WriteTestFilter(dir, 6, false);
  {
    auto context = NetworkContext::Create(params);
    ASSERT_TRUE(context.ok()) << context.status();
    std::string body;
    EXPECT_EQ(OK, Fetch(context->get(), OriginUrl(), &body));
    ASSERT_TRUE((*context)->SaveProfile().ok());
  }
  struct stat st;
  EXPECT_NE(0, stat(never.c_str(), &st));
}

TEST_F(NetworkContextTest, UnusableTrustAnchorIsAnError) {
  NetworkContextParams params = Params();
  params.trust_anchor_files = {"cert/testdata/no_such_root.pem"};
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_FALSE(context.ok());
  EXPECT_NE(context.status().message().find("no_such_root.pem"),
            std::string::npos)
      << context.status();
}

TEST_F(NetworkContextTest, WithoutTrustHttpsCannotBeVerified) {
  NetworkContextParams params = Params();
  params.trust_anchor_files.clear();
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ((*context)->cert_verifier(), nullptr);
  EXPECT_FALSE((*context)->trust_error().empty());
  // Snap Start without trust is refused at creation.
  params = Params();
  params.trust_anchor_files.clear();
  params.snap_start = true;
  EXPECT_FALSE(NetworkContext::Create(std::move(params)).ok());
}

TEST_F(NetworkContextTest, HttpsRecordsTurnOnHttp3Discovery) {
  // Discovery of HTTP/3 by DNS follows https_records (no query is sent:
  // nothing is fetched), unless h3_from_https_records is off.
  struct Case {
    bool https_records;
    bool h3_from_https_records;
    bool want;
  };
  for (const Case& c : {Case{false, true, false}, Case{true, true, true},
                        Case{true, false, false}}) {
    NetworkContextParams params = Params();
    params.dns_servers = {"127.0.0.1:9"};
    params.https_records = c.https_records;
    params.h3_from_https_records = c.h3_from_https_records;
    auto context = NetworkContext::Create(std::move(params));
    ASSERT_TRUE(context.ok()) << context.status();
    EXPECT_EQ((*context)->http_session()->params().h3_https_rr, c.want)
        << c.https_records << c.h3_from_https_records;
  }
}

TEST_F(NetworkContextTest, ProfileSurvivesTheContext) {
  std::string dir = MakeTempDir() + "/profile";
  {
    NetworkContextParams params = Params();
    params.profile_dir = dir;
    auto context = NetworkContext::Create(std::move(params));
    ASSERT_TRUE(context.ok()) << context.status();
    std::string body;
    URLRequest::Options navigation;
    navigation.navigation = true;
    ASSERT_EQ(OK,
              Fetch(context->get(), OriginUrl(), &body, nullptr, navigation));
    // Not a navigation: no visit.
    ASSERT_EQ(OK, Fetch(context->get(), OriginUrl("/other"), &body));
    EXPECT_EQ((*context)->profile()->host_history()->visits("www.example.test"),
              1u);
    std::optional<absl::Status> shut;
    (*context)->Shutdown([&](absl::Status status) {
      shut = status;
      loop_.Quit();
    });
    loop_.Run();
    ASSERT_TRUE(shut);
    EXPECT_TRUE(shut->ok()) << *shut;
  }
  struct stat st;
  ASSERT_EQ(0, stat(dir.c_str(), &st));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  NetworkContextParams params = Params();
  params.profile_dir = dir;
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ((*context)->StartupHosts(10),
            std::vector<std::string>{"www.example.test"});
  EXPECT_EQ((*context)->cookie_jar()->size(), 1u);
}

TEST_F(NetworkContextTest, ProfileInUseIsRefused) {
  std::string dir = MakeTempDir();
  NetworkContextParams params = Params();
  params.profile_dir = dir;
  auto first = NetworkContext::Create(params);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = NetworkContext::Create(params);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("in use"), std::string::npos)
      << second.status();
  first->reset();
  EXPECT_TRUE(NetworkContext::Create(params).ok());
}

TEST_F(NetworkContextTest, PrivateProfileTouchesNoDisk) {
  std::string dir = MakeTempDir() + "/private";
  NetworkContextParams params = Params();
  params.profile_dir = dir;
  params.private_profile = true;
  params.obc_algorithm = KeyAlgorithm::kEcdsaP256;
  params.snap_start = true;
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  std::string body;
  URLRequest::Options navigation;
  navigation.navigation = true;
  ASSERT_EQ(OK, Fetch(context->get(), OriginUrl(), &body, nullptr, navigation));
  std::optional<absl::Status> shut;
  (*context)->Shutdown([&](absl::Status status) {
    shut = status;
    loop_.Quit();
  });
  loop_.Run();
  ASSERT_TRUE(shut);
  EXPECT_TRUE(shut->ok()) << *shut;
  context->reset();
  struct stat st;
  EXPECT_NE(0, stat(dir.c_str(), &st)) << dir << " was created";
}

TEST_F(NetworkContextTest, PrevalidatedChainIsUsedByTheFetch) {
  auto context = NetworkContext::Create(Params());
  ASSERT_TRUE(context.ok()) << context.status();
  std::unique_ptr<NetworkContext::Request> request;
  std::string detail;
  TestCompletionCallback callback;
  int rv = callback.GetResult(
      (*context)->PrevalidateHost("www.example.test", server_.address().port(),
                                  callback.callback(), &request, &detail));
  ASSERT_EQ(OK, rv) << detail;
  EXPECT_EQ((*context)->prevalidator()->jobs_started(), 1u);
  EXPECT_EQ(server_.handshakes(), 1);
  std::string body;
  ASSERT_EQ(OK, Fetch(context->get(), OriginUrl(), &body));
  EXPECT_EQ(static_cast<PrevalidatedCertVerifier*>((*context)->cert_verifier())
                ->prevalidated_hits(),
            1u);
}

TEST_F(NetworkContextTest, PrevalidationFailureSaysWhichStep) {
  auto context = NetworkContext::Create(Params());
  ASSERT_TRUE(context.ok()) << context.status();
  std::unique_ptr<NetworkContext::Request> request;
  std::string detail;
  TestCompletionCallback callback;
  int rv = callback.GetResult((*context)->PrevalidateHost(
      "unknown.invalid", 443, callback.callback(), &request, &detail));
  EXPECT_NE(OK, rv);
  EXPECT_NE(detail.find("resolving unknown.invalid"), std::string::npos)
      << detail;
}

TEST_F(NetworkContextTest, ConnectTransportReportsRefusal) {
  auto context = NetworkContext::Create(Params());
  ASSERT_TRUE(context.ok()) << context.status();
  // A port nobody listens on: bind one, learn it, close it.
  uint16_t port;
  {
    TCPServerSocket listener;
    ASSERT_EQ(OK,
              listener.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 1));
    IPEndPoint address;
    listener.GetLocalAddress(&address);
    port = address.port();
  }
  std::unique_ptr<StreamSocket> socket;
  std::unique_ptr<NetworkContext::Request> request;
  TestCompletionCallback callback;
  EXPECT_EQ(ERR_CONNECTION_REFUSED,
            callback.GetResult((*context)->ConnectTransport(
                "127.0.0.1", port, &socket, callback.callback(), &request)));
  EXPECT_EQ(socket, nullptr);
  TestCompletionCallback ok;
  EXPECT_EQ(OK, ok.GetResult((*context)->ConnectTransport(
                    "www.example.test", server_.address().port(), &socket,
                    ok.callback(), &request)));
  EXPECT_NE(socket, nullptr);
}

TEST_F(NetworkContextTest, PrefetchWarmsTheResolver) {
  auto context = NetworkContext::Create(Params());
  ASSERT_TRUE(context.ok()) << context.status();
  bool done = false;
  (*context)->Prefetch({"www.example.test", "www.example.test"}, [&] {
    done = true;
    loop_.Quit();
  });
  loop_.Run();
  EXPECT_TRUE(done);
  EXPECT_EQ((*context)->dns_prefetcher()->started(), 1u);
}

TEST_F(NetworkContextTest, PreconnectedSocketServesTheClick) {
  NetworkContextParams params = Params();
  params.preconnect = true;
  params.prefetch_ports["www.example.test"] = server_.address().port();
  params.session.unused_idle_timeout = absl::Milliseconds(300);
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  // Twice: the per-host limit keeps it to one connection.
  for (int i = 0; i < 2; ++i) {
    (*context)->Prefetch({"www.example.test"}, [this] { loop_.Quit(); });
    loop_.Run();
  }
  EXPECT_EQ(server_.handshakes(), 1);
  EXPECT_EQ((*context)->http_session()->preconnected_socket_count(), 1u);
  std::string body;
  LoadTiming timing;
  ASSERT_EQ(OK, Fetch(context->get(), OriginUrl(), &body, &timing));
  EXPECT_TRUE(timing.socket_preconnected);
  EXPECT_EQ(timing.dns_source, DnsSource::kPreconnect);
  EXPECT_EQ(server_.handshakes(), 1);  // no handshake on the critical path
  EXPECT_NE(LoadTimingToJson(timing).find("\"socketPreconnected\":true"),
            std::string::npos);
  // The next request reuses it as an ordinary kept-alive socket.
  body.clear();
  ASSERT_EQ(OK, Fetch(context->get(), OriginUrl(), &body, &timing));
  EXPECT_TRUE(timing.socket_reused);
  EXPECT_FALSE(timing.socket_preconnected);
}

// A preconnect is the session's first connection to the server: its round
// trip goes to the TCP Fast Open hints, so a first visit that puts data in
// its SYN races a connection without after about one RTT, not 250 ms.
TEST_F(NetworkContextTest, PreconnectTeachesTheSessionTheServersRtt) {
  NetworkContextParams params = Params();
  params.preconnect = true;
  params.session.tcp_fast_open = true;
  params.prefetch_ports["www.example.test"] = server_.address().port();
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  TcpFastOpenHints* hints = (*context)->http_session()->tcp_fast_open_hints();
  EXPECT_FALSE(hints->RttFor("www.example.test").has_value());
  (*context)->Prefetch({"www.example.test"}, [this] { loop_.Quit(); });
  loop_.Run();
  ASSERT_EQ((*context)->preconnector()->succeeded(), 1u);
  std::optional<absl::Duration> rtt = hints->RttFor("www.example.test");
  ASSERT_TRUE(rtt.has_value());
  EXPECT_GT(*rtt, absl::ZeroDuration());
  const TcpConnectOptions options = hints->OptionsFor(
      absl::StrCat("www.example.test:", server_.address().port()), true);
  EXPECT_LT(options.fast_open_fallback_delay, absl::Milliseconds(250));
  EXPECT_NE(options.fast_open_fallback_basis.find("RTT from a preconnect"),
            std::string::npos)
      << options.fast_open_fallback_basis;
}

// With Fast Open on, a server whose bundle invites SYN data gets an RTT
// probe (ServerRttProber): one TCP handshake and nothing sent, whose round
// trip goes to the hints, so the first visit's race starts after about one
// RTT even though nothing else connected to the server (a bundle from DNS).
TEST_F(NetworkContextTest, RttProbeTeachesTheSessionTheServersRtt) {
  NetworkContextParams params = Params();
  params.session.tcp_fast_open = true;
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  ServerRttProber* prober = (*context)->rtt_prober();
  ASSERT_NE(prober, nullptr);
  TcpFastOpenHints* hints = (*context)->http_session()->tcp_fast_open_hints();
  prober->MaybeProbe("www.example.test", server_.address().port());
  prober->WhenIdle([this] { loop_.Quit(); });
  loop_.Run();
  EXPECT_EQ(prober->started(), 1u);
  EXPECT_EQ(prober->sampled(), 1u);
  std::optional<absl::Duration> rtt = hints->RttFor("www.example.test");
  ASSERT_TRUE(rtt.has_value());
  EXPECT_GT(*rtt, absl::ZeroDuration());
  // A TCP handshake only: the server saw no ClientHello.
  EXPECT_EQ(server_.handshakes(), 0);
  const TcpConnectOptions options = hints->OptionsFor(
      absl::StrCat("www.example.test:", server_.address().port()), true);
  EXPECT_LT(options.fast_open_fallback_delay, absl::Milliseconds(250));
  EXPECT_NE(options.fast_open_fallback_basis.find("RTT from the RTT probe"),
            std::string::npos)
      << options.fast_open_fallback_basis;

  // Known now: a second probe is not started.
  prober->MaybeProbe("www.example.test", server_.address().port());
  EXPECT_EQ(prober->started(), 1u);
  EXPECT_EQ(prober->skipped(), 1u);
}

// No probe where it would say nothing useful or go where requests do not:
// Fast Open off (no prober at all), a proxy for the origin (the direct path
// is not the requests' path, and the probe would bypass the proxy), or a
// server that refuses (a failure, no sample).
TEST_F(NetworkContextTest, RttProbeOnlyWhereItHelps) {
  {
    auto context = NetworkContext::Create(Params());
    ASSERT_TRUE(context.ok()) << context.status();
    EXPECT_EQ((*context)->rtt_prober(), nullptr);
  }
  {
    NetworkContextParams params = Params();
    params.session.tcp_fast_open = true;
    auto proxy = ProxyConfig::FromCurlOptions(
        "http://127.0.0.1:9", std::nullopt,
        [](const char*) -> const char* { return nullptr; });
    ASSERT_TRUE(proxy.ok()) << proxy.status();
    params.proxy = *proxy;
    auto context = NetworkContext::Create(std::move(params));
    ASSERT_TRUE(context.ok()) << context.status();
    (*context)->rtt_prober()->MaybeProbe("www.example.test",
                                         server_.address().port());
    EXPECT_EQ((*context)->rtt_prober()->started(), 0u);
    EXPECT_EQ((*context)->rtt_prober()->skipped(), 1u);
  }
  {
    NetworkContextParams params = Params();
    params.session.tcp_fast_open = true;
    params.resolve_overrides.push_back(
        *ResolveOverride::Parse("closed.example.test:9:127.0.0.1"));
    auto context = NetworkContext::Create(std::move(params));
    ASSERT_TRUE(context.ok()) << context.status();
    ServerRttProber* prober = (*context)->rtt_prober();
    prober->MaybeProbe("closed.example.test", 9);
    prober->WhenIdle([this] { loop_.Quit(); });
    loop_.Run();
    EXPECT_EQ(prober->failed(), 1u);
    EXPECT_FALSE((*context)->http_session()->tcp_fast_open_hints()->RttFor(
        "closed.example.test"));
  }
}

// Preconnects count against the session's per-host connection limit: with
// one connection per host allowed, a second preconnect to the host is
// skipped even though the preconnector's own limit would allow it.
TEST_F(NetworkContextTest, PreconnectRespectsTheConnectionLimit) {
  NetworkContextParams params = Params();
  params.preconnect = true;
  params.preconnect_per_host = 2;
  params.session.max_sockets_per_group = 1;
  params.prefetch_ports["www.example.test"] = server_.address().port();
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  // The DNS prefetcher fires once per host; ask the preconnector directly.
  Preconnector* preconnector = (*context)->preconnector();
  ASSERT_NE(preconnector, nullptr);
  for (int i = 0; i < 2; ++i) {
    preconnector->Preconnect("www.example.test", server_.address().port());
    preconnector->WhenIdle([this] { loop_.Quit(); });
    loop_.Run();
  }
  EXPECT_EQ(server_.handshakes(), 1);
  EXPECT_EQ((*context)->http_session()->preconnected_socket_count(), 1u);
  EXPECT_EQ((*context)->preconnector()->started(), 1u);
  EXPECT_EQ((*context)->preconnector()->skipped(), 1u);
}

// A server that accepts the connection and never answers the ClientHello:
// the preconnect fails with a timeout, frees its connection slot, and the
// prefetch that started it completes.
TEST_F(NetworkContextTest, PreconnectToASilentServerTimesOut) {
  TCPServerSocket silent;
  ASSERT_EQ(OK, silent.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 4));
  IPEndPoint address;
  silent.GetLocalAddress(&address);
  std::unique_ptr<StreamSocket> accepted;
  silent.Accept(&accepted, [](int) {});
  NetworkContextParams params = Params();
  params.resolve_overrides.push_back(*ResolveOverride::Parse(
      absl::StrCat("silent.example.test:", address.port(), ":127.0.0.1")));
  params.preconnect = true;
  params.preconnect_timeout = absl::Milliseconds(200);
  params.prefetch_ports["silent.example.test"] = address.port();
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  bool done = false;
  (*context)->Prefetch({"silent.example.test"}, [&] {
    done = true;
    loop_.Quit();
  });
  loop_.PostDelayedTask(absl::Seconds(5), [this] { loop_.Quit(); });
  loop_.Run();
  EXPECT_TRUE(done);
  EXPECT_EQ((*context)->preconnector()->failed(), 1u);
  EXPECT_EQ((*context)->http_session()->active_socket_count(
                absl::StrCat("https://silent.example.test:", address.port())),
            0u);
}

TEST_F(NetworkContextTest, UnusedPreconnectIsClosed) {
  NetworkContextParams params = Params();
  params.preconnect = true;
  params.prefetch_ports["www.example.test"] = server_.address().port();
  params.session.unused_idle_timeout = absl::Milliseconds(100);
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  (*context)->Prefetch({"www.example.test"}, [this] { loop_.Quit(); });
  loop_.Run();
  EXPECT_EQ((*context)->http_session()->preconnected_socket_count(), 1u);
  loop_.PostDelayedTask(absl::Milliseconds(250), [this] { loop_.Quit(); });
  loop_.Run();
  EXPECT_EQ((*context)->http_session()->preconnected_socket_count(), 0u);
}

}  // namespace
}  // namespace net
