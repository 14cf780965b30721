// TestServer --request-client-cert against our own client stack in one
// process (one EventLoop, loopback sockets): the server sees the OBC the
// client's store holds, over TLS 1.2 and 1.3, on full and resumed
// handshakes; its channel-bound cookie travels through the CookieJar (by
// URLRequest) and is accepted only over a connection that presents the OBC
// it is bound to.

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/obc_crypto.h"
#include "cert/obc/origin_bound_cert_store.h"
#include "dns/host_resolver.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/worker_pool.h"
#include "net/http/cookie_jar.h"
#include "net/http/default_client_socket_factory.h"
#include "net/http/http_network_session.h"
#include "net/url_request/url_request.h"
#include "net/url_request/url_request_test_util.h"
#include "tools/testserver/channel_bound_cookie.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

constexpr char kHost[] = "www.example.test";
constexpr char kDifferentObc[] =
    "channel-bound cookie presented with a different OBC";

struct Response {
  int error = ERR_IO_PENDING;
  int status = 0;
  std::string body;
  std::string obc_header;  // X-OBC-SPKI-SHA256
  LoadTiming timing;
};

// One client profile: an in-memory OBC store (or none), a cookie jar, an
// HttpNetworkSession presenting the OBCs and a URLRequestContext over both.
struct Profile {
  std::unique_ptr<OriginBoundCertStore> store;
  std::unique_ptr<ObcClientCertProvider> provider;
  CookieJar jar;
  std::unique_ptr<HttpNetworkSession> session;
  URLRequestContext context;
};

class TestServerObcTest : public ::testing::TestWithParam<uint16_t> {
 protected:
  void StartServer(bool request_client_cert) {
    TestServerConfig config;
    config.https_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.ssl.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
    config.ssl.key_file = "cert/testdata/good_leaf.key";
    config.ssl.version_min = config.ssl.version_max = GetParam();
    config.request_client_cert = request_client_cert;
    config.quiet = true;
    log_path_ = absl::StrCat(::testing::TempDir(), "/obc_server_", GetParam(),
                             request_client_cert, ".jsonl");
    std::remove(log_path_.c_str());
    config.log_file = log_path_;
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->bound()[0].second.port();
    resolver_ = std::make_unique<SystemHostResolver>(&workers_);
    resolver_->AddOverride(
        *ResolveOverride::Parse(absl::StrCat(kHost, ":", port_, ":127.0.0.1")));
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = std::move(*verifier);
    key_pool_ = std::make_unique<KeyPool>(&workers_, KeyPool::Options());
  }

  Profile* NewProfile(bool obc) {
    auto p = std::make_unique<Profile>();
    if (obc) {
      OriginBoundCertStore::Options options;
      options.private_profile = true;
      p->store =
          *OriginBoundCertStore::Open(options, key_pool_.get(), &workers_);
      p->provider = std::make_unique<ObcClientCertProvider>(
          p->store.get(), KeyAlgorithm::kEcdsaP256);
    }
    HttpNetworkSessionParams params;
    params.ssl_config.version_min = params.ssl_config.version_max = GetParam();
    params.ssl_config.client_cert_provider = p->provider.get();
    params.request_timeout = absl::Seconds(10);
    p->session = std::make_unique<HttpNetworkSession>(
        params, resolver_.get(), GetDefaultClientSocketFactory(),
        verifier_.get());
    p->context.http_session = p->session.get();
    p->context.cookie_jar = &p->jar;
    profiles_.push_back(std::move(p));
    return profiles_.back().get();
  }

  // A copy of |from|'s cookie file in |to|'s jar, as a user copying
  // cookies.pb between profile directories would make.
  void CopyCookies(Profile* from, Profile* to) {
    absl::Time now = absl::Now();
    to->jar = *CookieJar::Parse(from->jar.Serialize(now), "copy", now);
  }

  Response Get(Profile* p, const std::string& path) {
    TestURLRequestDelegate delegate;
    URLRequest request(
        &p->context,
        *Url::Parse(absl::StrCat("https://", kHost, ":", port_, path)),
        &delegate, URLRequest::Options());
    request.Start();
    delegate.RunUntilComplete();
    Response r;
    r.error = delegate.result();
    if (const HttpResponseHeaders* headers = request.response_headers()) {
      r.status = headers->status_code();
      r.obc_header = headers->GetHeader("x-obc-spki-sha256").value_or("");
    }
    r.body = delegate.body();
    r.timing = request.load_timing();
    return r;
  }

  // The hex SPKI hash of |p|'s OBC for the server's origin.
  std::string ObcHash(Profile* p) {
    OriginBoundCertStore::Result result;
    auto scope =
        ObcScope::ForOrigin(Origin("https", kHost, port_), ScopeMode::kOrigin);
    if (!p->store || !p->store->Lookup(*scope, &result)) return "";
    return HexEncode(*SpkiSha256(result.cert_der));
  }

  std::vector<std::string> LogLines() {
    std::ifstream in(log_path_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  bool LogHas(absl::string_view a, absl::string_view b) {
    for (const std::string& line : LogLines()) {
      if (absl::StrContains(line, a) && absl::StrContains(line, b)) return true;
    }
    return false;
  }

  EventLoop loop_;
  WorkerPool workers_{2};
  std::unique_ptr<TestServer> server_;
  uint16_t port_ = 0;
  std::string log_path_;
  std::unique_ptr<SystemHostResolver> resolver_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<KeyPool> key_pool_;
  std::vector<std::unique_ptr<Profile>> profiles_;
};

TEST_P(TestServerObcTest, ChannelBoundCookieFollowsTheObc) {
  StartServer(/*request_client_cert=*/true);
  const char* version = GetParam() == TLS1_3_VERSION ? "TLSv1.3" : "TLSv1.2";

  // Profile A logs in: the server sees A's OBC and binds the cookie to it.
  Profile* a = NewProfile(true);
  Response login = Get(a, "/obc/login");
  ASSERT_EQ(login.error, OK) << login.timing.url;
  EXPECT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(login.timing.ssl.version, version);
  EXPECT_NE(login.timing.ssl.obc.source, ObcSource::kNone);
  const std::string hash_a = ObcHash(a);
  ASSERT_EQ(hash_a.size(), 64u);
  EXPECT_EQ(login.obc_header, hash_a);
  EXPECT_TRUE(absl::StrContains(login.body, hash_a)) << login.body;
  ASSERT_EQ(a->jar.size(), 1u);
  CanonicalCookie cookie = a->jar.AllCookies()[0];
  EXPECT_EQ(cookie.name, ChannelBoundCookies::kCookieName);
  EXPECT_TRUE(cookie.secure);
  EXPECT_TRUE(cookie.http_only);
  EXPECT_TRUE(cookie.host_only);
  EXPECT_EQ(cookie.path, "/");
  EXPECT_EQ(
      HexEncode(server_->channel_bound_cookies().Verify(cookie.value).value()),
      hash_a);

  // Same connection, then a new one that resumes the session: accepted.
  Response again = Get(a, "/obc/whoami");
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_TRUE(again.timing.socket_reused);
  a->session->CloseIdleSockets();
  Response resumed = Get(a, "/obc/whoami");
  EXPECT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_FALSE(resumed.timing.socket_reused);
  EXPECT_TRUE(resumed.timing.ssl.resumed);
  EXPECT_EQ(resumed.obc_header, hash_a);

  // Profile B, with its own OBC and A's cookies: refused, on every path.
  Profile* b = NewProfile(true);
  CopyCookies(a, b);
  Response stolen = Get(b, "/obc/whoami");
  EXPECT_EQ(stolen.status, 403);
  EXPECT_TRUE(absl::StrContains(stolen.body, kDifferentObc)) << stolen.body;
  const std::string hash_b = ObcHash(b);
  EXPECT_EQ(stolen.obc_header, hash_b);
  EXPECT_NE(hash_b, hash_a);
  EXPECT_EQ(Get(b, "/size/10").status, 403);

  // No OBC at all, with A's cookies: refused.
  Profile* off = NewProfile(false);
  CopyCookies(a, off);
  Response bare = Get(off, "/obc/whoami");
  EXPECT_EQ(bare.status, 403);
  EXPECT_TRUE(absl::StrContains(bare.body, kDifferentObc)) << bare.body;
  EXPECT_TRUE(absl::StrContains(bare.body, "this connection's OBC is none"));
  EXPECT_EQ(bare.obc_header, "");
  EXPECT_EQ(bare.timing.ssl.obc.source, ObcSource::kNone);

  // Without a cookie: 401; login without an OBC: 403; a forged cookie: 403.
  EXPECT_EQ(Get(NewProfile(true), "/obc/whoami").status, 401);
  Response no_obc_login = Get(NewProfile(false), "/obc/login");
  EXPECT_EQ(no_obc_login.status, 403);
  EXPECT_TRUE(absl::StrContains(no_obc_login.body, "no origin-bound"));
  Profile* forger = NewProfile(true);
  ASSERT_TRUE(forger->jar
                  .SetCookie(*Url::Parse(absl::StrCat("https://", kHost, "/")),
                             "obc_session=AAAA", absl::Now())
                  .ok());
  Response forged = Get(forger, "/obc/whoami");
  EXPECT_EQ(forged.status, 403);
  EXPECT_TRUE(absl::StrContains(forged.body, "invalid channel-bound cookie"));

  // The log says the same: connection lines carry the hash (or null), and
  // request lines the verdict.
  EXPECT_TRUE(LogHas("\"event\":\"connection\"",
                     absl::StrCat("\"obc_spki_sha256\":\"", hash_a, "\"")));
  EXPECT_TRUE(LogHas("\"event\":\"connection\"", "\"obc_spki_sha256\":null"));
  EXPECT_TRUE(LogHas("\"path\":\"/obc/login\"", "\"obc_cookie\":\"issued\""));
  EXPECT_TRUE(
      LogHas("\"path\":\"/obc/whoami\"", "\"obc_cookie\":\"accepted\""));
  EXPECT_TRUE(LogHas(absl::StrCat("\"obc_spki_sha256\":\"", hash_b, "\""),
                     "\"obc_cookie\":\"mismatch\""));
  EXPECT_TRUE(LogHas("\"obc_cookie\":\"no_obc\"",
                     absl::StrCat("\"obc_cookie_bound_to\":\"", hash_a, "\"")));
  EXPECT_TRUE(LogHas("\"path\":\"/obc/whoami\"", "\"obc_cookie\":\"invalid\""));
}

TEST_P(TestServerObcTest, WithoutTheFlagNoCertificateIsRequested) {
  StartServer(/*request_client_cert=*/false);
  Profile* a = NewProfile(true);
  Response r = Get(a, "/obc/login");
  ASSERT_EQ(r.error, OK);
  EXPECT_EQ(r.status, 403);
  EXPECT_TRUE(absl::StrContains(r.body, "--request-client-cert")) << r.body;
  EXPECT_EQ(r.obc_header, "");
  EXPECT_EQ(r.timing.ssl.obc.source, ObcSource::kNone);
  EXPECT_EQ(ObcHash(a), "");  // The store was never asked.
  EXPECT_FALSE(LogHas("\"event\":\"connection\"", "obc_spki_sha256"));
}

INSTANTIATE_TEST_SUITE_P(Tls, TestServerObcTest,
                         ::testing::Values(TLS1_2_VERSION, TLS1_3_VERSION),
                         [](const auto& info) {
                           return info.param == TLS1_3_VERSION ? "Tls13"
                                                               : "Tls12";
                         });

}  // namespace
}  // namespace net
