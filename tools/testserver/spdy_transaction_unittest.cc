// HttpNetworkTransaction over SPDY/3 (issue 13 items 3-4) against the test
// server's --spdy on loopback, in one process: requests to one origin started
// at once share one session (one connection, streams 1, 3, 5, ...); a second
// origin that resolves to the same address and that the certificate covers
// is pooled onto it and presents its own OBC in a CREDENTIAL slot the server
// verifies; a host the certificate does not cover is not pooled; a server
// that chooses HTTP/1.1 serves concurrent requests as before.

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cert/basic_cert_verifier.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/obc/obc_crypto.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/http/default_client_socket_factory.h"
#include "net/http/http_network_session.h"
#include "net/http/http_network_transaction.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

// Answers every name with 127.0.0.1, except unresolvable.test.
class LoopbackResolver : public HostResolver {
 public:
  int Resolve(const std::string& host, uint16_t, HostResolveResult* result,
              CompletionOnceCallback, std::unique_ptr<Request>*) override {
    if (host == "unresolvable.test") return ERR_NAME_NOT_RESOLVED;
    result->source = DnsSource::kOverride;
    result->addresses = {IPAddress::IPv4Localhost()};
    return OK;
  }
};

// One OBC per origin, made on first use.
class PerOriginCertProvider : public ClientCertProvider {
 public:
  int GetClientCert(const Origin& origin, ClientCert* cert,
                    CompletionOnceCallback,
                    std::unique_ptr<Request>*) override {
    auto it = certs_.find(origin.Serialize());
    if (it == certs_.end()) {
      absl::StatusOr<ObcKeyMaterial> m =
          MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now());
      if (!m.ok()) return ERR_FAILED;
      ClientCert made;
      made.cert_der = m->cert_der;
      made.key = std::move(m->key);
      made.facts.source = ObcSource::kGenerated;
      it = certs_.emplace(origin.Serialize(), std::move(made)).first;
    }
    cert->cert_der = it->second.cert_der;
    EVP_PKEY_up_ref(it->second.key.get());
    cert->key.reset(it->second.key.get());
    cert->facts = it->second.facts;
    return OK;
  }

 private:
  std::map<std::string, ClientCert> certs_;
};

struct Fetched {
  std::unique_ptr<HttpNetworkTransaction> trans;
  TestCompletionCallback cb;
  int result = ERR_IO_PENDING;
  std::string body;
};

class SpdyTransactionTest : public ::testing::Test {
 protected:
  void StartServer(bool spdy, SpdyServerConfig spdy_config = SpdyServerConfig(),
                   bool client_obcs = true) {
    TestServerConfig config;
    config.https_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.ssl.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
    config.ssl.key_file = "cert/testdata/good_leaf.key";
    config.request_client_cert = true;
    if (spdy) config.spdy = spdy_config;
    config.quiet = true;
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->bound()[0].second.port();
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = std::move(*verifier);
    HttpNetworkSessionParams params;
    params.request_timeout = absl::Seconds(10);
    params.ssl_config.alpn_protos = {"spdy/3", "http/1.1"};
    if (client_obcs) params.ssl_config.client_cert_provider = &provider_;
    session_ = std::make_unique<HttpNetworkSession>(
        params, &resolver_, GetDefaultClientSocketFactory(), verifier_.get());
  }

  std::string UrlFor(const std::string& host, const std::string& path) {
    return absl::StrCat("https://", host, ":", port_, path);
  }

  // Starts every URL at once and runs them all to the end of their bodies.
  std::vector<std::unique_ptr<Fetched>> FetchAll(
      const std::vector<std::string>& urls) {
    std::vector<std::unique_ptr<Fetched>> out;
    for (const std::string& url : urls) {
      auto f = std::make_unique<Fetched>();
      f->trans = std::make_unique<HttpNetworkTransaction>(session_.get());
      HttpRequestInfo request;
      request.url = *Url::Parse(url);
      f->result = f->trans->Start(request, f->cb.callback());
      out.push_back(std::move(f));
    }
    for (auto& f : out) {
      f->result = f->cb.GetResult(f->result);
      while (f->result == OK) {
        auto buf = std::make_shared<IOBuffer>(4096);
        int n = f->cb.GetResult(f->trans->Read(buf, 4096, f->cb.callback()));
        if (n < 0) f->result = n;
        if (n <= 0) break;
        f->body.append(buf->data(), n);
      }
    }
    return out;
  }

  EventLoop loop_;
  LoopbackResolver resolver_;
  PerOriginCertProvider provider_;
  std::unique_ptr<CertVerifier> verifier_;
  std::unique_ptr<TestServer> server_;
  std::unique_ptr<HttpNetworkSession> session_;
  uint16_t port_ = 0;
};

TEST_F(SpdyTransactionTest, ConcurrentRequestsShareOneSession) {
  StartServer(/*spdy=*/true);
  std::vector<std::string> urls(8, UrlFor("www.example.test", "/size/5000"));
  auto fetched = FetchAll(urls);
  std::vector<uint32_t> ids;
  std::set<std::string> sessions;
  int fresh = 0;
  for (auto& f : fetched) {
    ASSERT_EQ(OK, f->result) << f->trans->error_detail();
    EXPECT_EQ(5000u, f->body.size());
    const LoadTiming& t = f->trans->load_timing();
    EXPECT_EQ(200, t.status_code);
    EXPECT_TRUE(t.spdy.used);
    EXPECT_EQ("spdy/3", t.ssl.alpn);
    EXPECT_EQ(0, t.spdy.credential_slot);
    fresh += t.spdy.session == SessionUse::kNew;
    ids.push_back(t.spdy.stream_id);
    sessions.insert(t.spdy.session_id);
    ASSERT_NE(nullptr, f->trans->response_headers());
    EXPECT_EQ("5000",
              f->trans->response_headers()->GetHeader("content-length"));
  }
  EXPECT_EQ(1, fresh);
  EXPECT_EQ(1u, sessions.size());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ((std::vector<uint32_t>{1, 3, 5, 7, 9, 11, 13, 15}), ids);
  EXPECT_EQ(1u, session_->spdy_session_pool()->session_count());
}

TEST_F(SpdyTransactionTest, SecondOriginIsPooledWithItsOwnCredential) {
  StartServer(/*spdy=*/true);
  auto fetched = FetchAll({UrlFor("www.example.test", "/spdy/credentials"),
                           UrlFor("localhost", "/spdy/credentials")});
  for (auto& f : fetched) ASSERT_EQ(OK, f->result) << f->trans->error_detail();
  const LoadTiming& a = fetched[0]->trans->load_timing();
  const LoadTiming& b = fetched[1]->trans->load_timing();
  EXPECT_EQ(SessionUse::kNew, a.spdy.session);
  EXPECT_EQ(SessionUse::kPooled, b.spdy.session);
  EXPECT_EQ(a.spdy.session_id, b.spdy.session_id);
  EXPECT_EQ(0, a.spdy.credential_slot);
  EXPECT_GT(b.spdy.credential_slot, 0);
  EXPECT_TRUE(b.spdy.credential_sent);
  EXPECT_EQ(1u, session_->spdy_session_pool()->session_count());
  EXPECT_EQ(1u, session_->spdy_session_pool()->pooled_lookups());
  // Each origin's OBC, as the server saw it.
  std::optional<std::string> spki_a =
      fetched[0]->trans->response_headers()->GetHeader("x-obc-spki-sha256");
  std::optional<std::string> spki_b =
      fetched[1]->trans->response_headers()->GetHeader("x-obc-spki-sha256");
  ASSERT_TRUE(spki_a && spki_b);
  EXPECT_NE(*spki_a, *spki_b);
  EXPECT_NE(std::string::npos, fetched[1]->body.find("\"verified\":1"))
      << fetched[1]->body;
}

// The server announces no CREDENTIAL slots and requires a credential: the
// pooled origin's OBC cannot be presented on the pooled session, so the
// request goes again on a direct connection of its own (where its OBC is the
// handshake's), and succeeds there.
TEST_F(SpdyTransactionTest, PooledOriginWithoutASlotIsRetriedDirect) {
  SpdyServerConfig spdy;
  spdy.credential_slots = 0;
  spdy.require_credentials = true;
  StartServer(/*spdy=*/true, spdy);
  // The first origin's response comes after the server's SETTINGS.
  auto first = FetchAll({UrlFor("www.example.test", "/size/10")});
  ASSERT_EQ(OK, first[0]->result) << first[0]->trans->error_detail();
  auto second = FetchAll({UrlFor("localhost", "/size/10")});
  ASSERT_EQ(OK, second[0]->result) << second[0]->trans->error_detail();
  const LoadTiming& t = second[0]->trans->load_timing();
  EXPECT_EQ(SessionUse::kNew, t.spdy.session);
  EXPECT_NE(first[0]->trans->load_timing().spdy.session_id, t.spdy.session_id);
  EXPECT_EQ("ERR_SPDY_CREDENTIAL_UNAVAILABLE: retried on a direct connection",
            t.spdy.retry);
  EXPECT_FALSE(t.socket_reused);
  EXPECT_EQ(2u, session_->spdy_session_pool()->session_count());
  // Later requests for it find its own session.
  auto third = FetchAll({UrlFor("localhost", "/size/10")});
  ASSERT_EQ(OK, third[0]->result);
  EXPECT_EQ(SessionUse::kReused, third[0]->trans->load_timing().spdy.session);
  EXPECT_EQ(t.spdy.session_id, third[0]->trans->load_timing().spdy.session_id);
}

// The server requires a credential for every origin but the handshake's,
// and this client has no OBCs to send: the pooled origin's request is reset
// with INVALID_CREDENTIALS by the server, and the transaction sends it again
// on a direct connection of its own, where it is the handshake's origin.
TEST_F(SpdyTransactionTest, InvalidCredentialsFromTheServerIsRetriedDirect) {
  SpdyServerConfig spdy;
  spdy.require_credentials = true;
  StartServer(/*spdy=*/true, spdy, /*client_obcs=*/false);
  auto first = FetchAll({UrlFor("www.example.test", "/size/10")});
  ASSERT_EQ(OK, first[0]->result) << first[0]->trans->error_detail();
  auto second = FetchAll({UrlFor("localhost", "/size/10")});
  ASSERT_EQ(OK, second[0]->result) << second[0]->trans->error_detail();
  EXPECT_EQ(10u, second[0]->body.size());
  const LoadTiming& t = second[0]->trans->load_timing();
  EXPECT_EQ("ERR_SPDY_INVALID_CREDENTIALS: retried on a direct connection",
            t.spdy.retry);
  EXPECT_EQ(SessionUse::kNew, t.spdy.session);
  EXPECT_NE(first[0]->trans->load_timing().spdy.session_id, t.spdy.session_id);
  EXPECT_EQ(2u, session_->spdy_session_pool()->session_count());
}

TEST_F(SpdyTransactionTest, HostTheCertificateDoesNotCoverIsNotPooled) {
  StartServer(/*spdy=*/true);
  auto first = FetchAll({UrlFor("www.example.test", "/size/10")});
  ASSERT_EQ(OK, first[0]->result);
  // Same address, but the leaf does not name other.example.test: a
  // connection of its own, whose certificate check then fails.
  auto other = FetchAll({UrlFor("other.example.test", "/size/10")});
  EXPECT_EQ(ERR_CERT_COMMON_NAME_INVALID, other[0]->result)
      << ErrorToShortString(other[0]->result);
  EXPECT_FALSE(other[0]->trans->load_timing().spdy.used);
  EXPECT_EQ(0u, session_->spdy_session_pool()->pooled_lookups());
}

// /spdy/goaway answers, then sends GOAWAY with its stream as the last good
// one: the request on the stream after it is refused and sent again on a new
// session, and succeeds.
TEST_F(SpdyTransactionTest, StreamRefusedByGoAwayIsRetriedOnANewSession) {
  StartServer(/*spdy=*/true);
  auto fetched = FetchAll({UrlFor("www.example.test", "/spdy/goaway"),
                           UrlFor("www.example.test", "/size/10")});
  for (auto& f : fetched) ASSERT_EQ(OK, f->result) << f->trans->error_detail();
  const LoadTiming& a = fetched[0]->trans->load_timing();
  const LoadTiming& b = fetched[1]->trans->load_timing();
  EXPECT_EQ(1u, a.spdy.stream_id);
  EXPECT_EQ("refused stream (GOAWAY): retried on a new session", b.spdy.retry);
  EXPECT_EQ(SessionUse::kNew, b.spdy.session);
  EXPECT_NE(a.spdy.session_id, b.spdy.session_id);
  EXPECT_EQ("10",
            fetched[1]->trans->response_headers()->GetHeader("content-length"));
}

// Requests waiting for another's connection to their origin are released
// when it fails, and fail (or connect) on their own: none hangs.
TEST_F(SpdyTransactionTest, FailedConnectReleasesTheWaiters) {
  StartServer(/*spdy=*/true);
  std::vector<std::string> urls(3, UrlFor("unresolvable.test", "/size/10"));
  for (auto& f : FetchAll(urls)) EXPECT_EQ(ERR_NAME_NOT_RESOLVED, f->result);
  // A closed port: connect errors.
  server_.reset();
  std::vector<std::string> closed(3, UrlFor("www.example.test", "/size/10"));
  for (auto& f : FetchAll(closed)) EXPECT_EQ(ERR_CONNECTION_REFUSED, f->result);
}

TEST_F(SpdyTransactionTest, Http11ServerStillServesConcurrentRequests) {
  StartServer(/*spdy=*/false);
  std::vector<std::string> urls(4, UrlFor("www.example.test", "/size/100"));
  auto fetched = FetchAll(urls);
  for (auto& f : fetched) {
    ASSERT_EQ(OK, f->result) << f->trans->error_detail();
    EXPECT_EQ(100u, f->body.size());
    EXPECT_FALSE(f->trans->load_timing().spdy.used);
    EXPECT_EQ("http/1.1", f->trans->load_timing().ssl.alpn);
  }
  EXPECT_EQ(0u, session_->spdy_session_pool()->session_count());
}

}  // namespace
}  // namespace net
