// The HTTP/2 pooling policy through HttpNetworkTransaction, against nghttp2's
// server side over in-memory sockets whose "TLS" reports what each test
// says (a verified chain, an OBC presented):
//  - coalescing (RFC 9113 9.1.1, Chromium's rule): another origin that
//    resolves to an open session's address and that its cleanly verified
//    certificate covers goes over it; not when the certificate does not
//    cover it, was not verified, or another OBC is needed;
//  - the ORIGIN frame (RFC 8336, Firefox's rule): a listed origin goes over
//    the session with no DNS lookup; one not listed does not, even at the
//    same address;
//  - 421 on a coalesced session: retried once on a connection of its own,
//    never coalesced onto that session again; a 421 on a new session is the
//    response;
//  - HTTP_1_1_REQUIRED (RST_STREAM or GOAWAY): retried over HTTP/1.1 on a
//    new connection offering only http/1.1, and remembered;
//  - priorities: weights, dependencies and the RFC 9218 header per request;
//  - the connection waiting policy: kAlways waits for the first connection,
//    kKnownMultiplexed connects in parallel and closes the extra h2
//    connection;
//  - two HttpNetworkSessions (a profile and its incognito one) never share.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cert/obc/client_cert_provider.h"
#include "cert/x509_util.h"
#include "gtest/gtest.h"
#include "net/http/http2_transaction_test_util.h"
#include "net/ssl/ssl_test_util.h"

namespace net {
namespace {

// The leaf of cert/testdata/good_leaf.pem: DNS www.example.test and
// localhost, IP 127.0.0.1.
std::string GoodLeaf() {
  auto certs = LoadPemCertificatesFromFile("cert/testdata/good_leaf.pem");
  EXPECT_TRUE(certs.ok()) << certs.status();
  return certs.ok() ? certs->front() : std::string();
}
// other.example.test only.
std::string OtherLeaf() {
  auto certs = LoadPemCertificatesFromFile("cert/testdata/bad_name_leaf.pem");
  EXPECT_TRUE(certs.ok()) << certs.status();
  return certs.ok() ? certs->front() : std::string();
}

// A handshake that chose h2 and verified |leaf| cleanly; |obc| presented.
SSLInfo Verified(const std::string& leaf, const std::string& obc = "") {
  SSLInfo info = H2Info();
  info.cert_verify.error = OK;
  info.cert_verify.verified_chain_der = {leaf};
  info.client_cert_der = obc;
  if (!obc.empty()) info.obc.source = ObcSource::kCachedCert;
  return info;
}

// Answers "<authority> <path>".
Http2TestServer::Response EchoAuthority(const TestHeaders& request,
                                        const std::string&) {
  Http2TestServer::Response r;
  std::string authority, path;
  for (const auto& [name, value] : request) {
    if (name == ":authority") authority = value;
    if (name == ":path") path = value;
  }
  r.body = authority + " " + path;
  return r;
}

std::vector<std::string> Authorities(Http2TestServer* server) {
  std::vector<std::string> out;
  for (const TestHeaders& request : server->requests()) {
    for (const auto& [name, value] : request)
      if (name == ":authority") out.push_back(value);
  }
  return out;
}

// The OBC each origin would present (LookupClientCert); none are made.
class FakeObcProvider : public ClientCertProvider {
 public:
  int GetClientCert(const Origin&, ClientCert*, CompletionOnceCallback,
                    std::unique_ptr<Request>*) override {
    return ERR_FAILED;  // the handshakes are scripted: never asked
  }
  bool LookupClientCert(const Origin& origin, std::string* der) override {
    auto it = certs.find(origin);
    if (it == certs.end()) return false;
    *der = it->second;
    return true;
  }
  std::map<Origin, std::string> certs;
};

class Http2PoolingTest : public Http2TransactionTest {
 protected:
  const std::string good_leaf_ = GoodLeaf();
};

TEST_F(Http2PoolingTest, CoalescesByDnsOntoASessionWhoseCertificateCovers) {
  H2ServerProvider www(&EchoAuthority, Verified(good_leaf_));
  AddConnection(&www);
  MakeSession();
  auto a = Get("https://www.example.test/a");
  ASSERT_EQ(a->result, OK) << a->trans->error_detail();
  auto b = Get("https://localhost/b");
  ASSERT_EQ(b->result, OK) << b->trans->error_detail();
  EXPECT_EQ(b->body, "localhost /b");

  // One connection, one session, both origins on it.
  EXPECT_EQ(factory_.sockets_created(), 1u);
  EXPECT_EQ(Authorities(www.server()),
            (std::vector<std::string>{"www.example.test", "localhost"}));
  const LoadTiming& ta = a->trans->load_timing();
  const LoadTiming& tb = b->trans->load_timing();
  EXPECT_EQ(ta.h2.session, SessionUse::kNew);
  EXPECT_FALSE(ta.h2.coalesced);
  EXPECT_EQ(tb.h2.session, SessionUse::kPooled);
  EXPECT_TRUE(tb.h2.coalesced);
  EXPECT_EQ(tb.h2.coalesced_by, "dns");
  EXPECT_EQ(tb.h2.coalesced_onto, "https://www.example.test");
  EXPECT_EQ(tb.h2.session_id, ta.h2.session_id);
  EXPECT_EQ(tb.h2.stream_id, 3u);
  EXPECT_EQ(tb.dns_source, DnsSource::kNetwork);  // looked up, then coalesced
  EXPECT_TRUE(tb.socket_reused);
  const std::string json = LoadTimingToJson(tb);
  EXPECT_NE(json.find("\"coalesced\":true,\"coalescedBy\":\"dns\","
                      "\"coalescedOnto\":\"https://www.example.test\""),
            std::string::npos)
      << json;
  // The next request to localhost finds the alias without a lookup.
  const size_t lookups = resolver_.resolved.size();
  auto c = Get("https://localhost/c");
  ASSERT_EQ(c->result, OK);
  EXPECT_EQ(resolver_.resolved.size(), lookups);
  EXPECT_EQ(c->trans->load_timing().h2.coalesced_by, "dns");
  EXPECT_EQ(session_->http2_session_pool()->sessions_created(), 1u);
}

TEST_F(Http2PoolingTest, NotCoalescedWhenTheCertificateDoesNotCover) {
  H2ServerProvider other(&EchoAuthority, Verified(OtherLeaf()));
  H2ServerProvider www(&EchoAuthority, Verified(good_leaf_));
  AddConnection(&other);
  AddConnection(&www);
  MakeSession();
  ASSERT_EQ(Get("https://other.example.test/")->result, OK);
  auto b = Get("https://www.example.test/");
  ASSERT_EQ(b->result, OK);
  EXPECT_EQ(factory_.sockets_created(), 2u);
  const LoadTiming& t = b->trans->load_timing();
  EXPECT_FALSE(t.h2.coalesced);
  EXPECT_EQ(t.h2.session, SessionUse::kNew);
  EXPECT_EQ(t.h2.not_coalesced_reason, "certificate");
  EXPECT_EQ(Authorities(www.server()),
            std::vector<std::string>{"www.example.test"});
}

// Not a name match alone: a session without a clean verification (errors
// ignored with -k, or a resumed session, which carries no chain) carries
// no other origin even if its certificate would name it.
TEST_F(Http2PoolingTest, NotCoalescedWithoutACleanVerification) {
  SSLInfo ignored = Verified(good_leaf_);
  ignored.cert_verify.verified_chain_der.clear();
  ignored.cert_verify.detail = "ignored (insecure): ERR_CERT_AUTHORITY_INVALID";
  H2ServerProvider www(&EchoAuthority, ignored);
  H2ServerProvider local(&EchoAuthority, Verified(good_leaf_));
  AddConnection(&www);
  AddConnection(&local);
  MakeSession();
  ASSERT_EQ(Get("https://www.example.test/")->result, OK);
  auto b = Get("https://localhost/");
  ASSERT_EQ(b->result, OK);
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_EQ(b->trans->load_timing().h2.not_coalesced_reason, "certificate");
}

// HTTP/2 has no CREDENTIAL frame: a session that presented an OBC carries
// only origins whose OBC is that same certificate.
TEST_F(Http2PoolingTest, OriginBoundCertificatesDecideCoalescing) {
  FakeObcProvider obc;
  obc.certs[Origin("https", "www.example.test", 443)] = "obc-shared";
  obc.certs[Origin("https", "localhost", 443)] = "obc-shared";  // eTLD+1-like
  obc.certs[Origin("https", "127.0.0.1", 443)] = "obc-own";
  H2ServerProvider www(&EchoAuthority, Verified(good_leaf_, "obc-shared"));
  H2ServerProvider ip(&EchoAuthority, Verified(good_leaf_, "obc-own"));
  AddConnection(&www);
  AddConnection(&ip);
  HttpNetworkSessionParams params;
  params.ssl_config.client_cert_provider = &obc;
  MakeSession(params);
  ASSERT_EQ(Get("https://www.example.test/")->result, OK);
  auto same = Get("https://localhost/");
  ASSERT_EQ(same->result, OK);
  EXPECT_TRUE(same->trans->load_timing().h2.coalesced);
  auto other = Get("https://127.0.0.1/");
  ASSERT_EQ(other->result, OK);
  const LoadTiming& t = other->trans->load_timing();
  EXPECT_FALSE(t.h2.coalesced);
  EXPECT_EQ(t.h2.session, SessionUse::kNew);
  EXPECT_EQ(t.h2.not_coalesced_reason, "obc");
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_NE(LoadTimingToJson(t).find("\"notCoalescedReason\":\"obc\""),
            std::string::npos);
  // An origin with no OBC yet would need a new one: not coalesced either.
  EXPECT_EQ(HttpNetworkSession::CanCoalesceHttp2(
                &obc,
                *session_->http2_session_pool()->FindAvailableSession(
                    Origin("https", "www.example.test", 443)),
                Origin("https", "localhost", 8443)),
            "obc");
}

// ORIGIN: a listed origin rides the session with no DNS lookup at all; an
// origin the set leaves out is refused at the same address.
TEST_F(Http2PoolingTest, OriginFrameCoalescesWithoutDnsAndNarrows) {
  H2ServerProvider www(&EchoAuthority, Verified(good_leaf_));
  H2ServerProvider ip(&EchoAuthority, Verified(good_leaf_));
  AddConnection(&www);
  AddConnection(&ip);
  MakeSession();
  ASSERT_EQ(Get("https://www.example.test/")->result, OK);
  www.server()->SendOrigin({"https://localhost"});
  loop_.RunUntilIdle();

  auto b = Get("https://localhost/listed");
  ASSERT_EQ(b->result, OK);
  EXPECT_EQ(b->body, "localhost /listed");
  const LoadTiming& tb = b->trans->load_timing();
  EXPECT_TRUE(tb.h2.coalesced);
  EXPECT_EQ(tb.h2.coalesced_by, "originFrame");
  EXPECT_EQ(tb.dns_source, DnsSource::kReused);
  EXPECT_EQ(std::count(resolver_.resolved.begin(), resolver_.resolved.end(),
                       "localhost"),
            0);

  // 127.0.0.1: same address, covered by the certificate, not in the set.
  auto c = Get("https://127.0.0.1/unlisted");
  ASSERT_EQ(c->result, OK);
  EXPECT_FALSE(c->trans->load_timing().h2.coalesced);
  EXPECT_EQ(c->trans->load_timing().h2.not_coalesced_reason, "originFrame");
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_EQ(Authorities(www.server()),
            (std::vector<std::string>{"www.example.test", "localhost"}));
}

// 421 on a coalesced session: the request goes again on a new connection of
// its own; the session never carries that origin again.
TEST_F(Http2PoolingTest, MisdirectedOnACoalescedSessionIsRetriedOnItsOwn) {
  H2ServerProvider www(
      [](const TestHeaders& request, const std::string& body) {
        Http2TestServer::Response r = EchoAuthority(request, body);
        for (const auto& [name, value] : request)
          if (name == ":authority" && value == "localhost") r.status = 421;
        return r;
      },
      Verified(good_leaf_));
  H2ServerProvider local(&EchoAuthority, Verified(good_leaf_));
  AddConnection(&www);
  AddConnection(&local);
  MakeSession();
  ASSERT_EQ(Get("https://www.example.test/")->result, OK);
  auto b = Get("https://localhost/x");
  ASSERT_EQ(b->result, OK) << b->trans->error_detail();
  EXPECT_EQ(b->trans->response_headers()->status_code(), 200);
  EXPECT_EQ(b->body, "localhost /x");
  const LoadTiming& t = b->trans->load_timing();
  EXPECT_EQ(t.status_code, 200);
  EXPECT_EQ(t.h2.retry,
            "misdirected (421) on a coalesced session: retried on a new "
            "connection of its own");
  EXPECT_EQ(t.h2.session, SessionUse::kNew);
  EXPECT_FALSE(t.h2.coalesced);
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_EQ(local.host(), "localhost");

  // Later requests to localhost: its own session, never www's again.
  auto c = Get("https://localhost/y");
  ASSERT_EQ(c->result, OK);
  EXPECT_EQ(c->trans->load_timing().h2.session, SessionUse::kReused);
  EXPECT_EQ(c->trans->load_timing().h2.not_coalesced_reason, "");
  EXPECT_EQ(Authorities(www.server()),
            (std::vector<std::string>{"www.example.test", "localhost"}));
  EXPECT_EQ(Authorities(local.server()),
            (std::vector<std::string>{"localhost", "localhost"}));
  EXPECT_EQ(factory_.sockets_created(), 2u);
}

// A 421 on a connection made for the request is the response.
TEST_F(Http2PoolingTest, MisdirectedOnANewSessionIsTheResponse) {
  H2ServerProvider www([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.status = 421;
    r.body = "misdirected";
    return r;
  });
  AddConnection(&www);
  MakeSession();
  auto a = Get("https://www.example.test/");
  ASSERT_EQ(a->result, OK);
  EXPECT_EQ(a->trans->response_headers()->status_code(), 421);
  EXPECT_EQ(a->body, "misdirected");
  EXPECT_EQ(a->trans->load_timing().h2.retry, "");
  EXPECT_EQ(factory_.sockets_created(), 1u);
}

// HTTP_1_1_REQUIRED: the request goes again over HTTP/1.1 on a connection
// that offers only http/1.1, and the origin is remembered.
class Http11RequiredTest : public Http2PoolingTest {
 protected:
  // An HTTP/1.1 connection answering GET |path| with "ok", then closing.
  void AddHttp11Connection(const std::string& path) {
    auto& w = writes_.emplace_back(std::vector<MockWrite>{MockWrite(
        SYNC, absl::StrCat("GET ", path,
                           " HTTP/1.1\r\nHost: www.example.test\r\n"
                           "User-Agent: netstack-fetch/0.1\r\nAccept: */*\r\n"
                           "Connection: keep-alive\r\n\r\n"))});
    auto& r = reads_.emplace_back(std::vector<MockRead>{
        MockRead(ASYNC,
                 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                 "Connection: close\r\n\r\nok"),
        MockRead(SYNC, OK)});
    data_.push_back(std::make_unique<StaticSocketDataProvider>(r, w));
    tls_.push_back(std::make_unique<SSLSocketDataProvider>(ASYNC, OK));
    tls_.back()->ssl_info.version = "TLSv1.3";
    tls_.back()->ssl_info.alpn = "http/1.1";
    AddScriptedConnection(data_.back().get(), tls_.back().get());
  }
  void ExpectRetriedOverHttp11(const Fetch& f) {
    ASSERT_EQ(f.result, OK) << f.trans->error_detail();
    EXPECT_EQ(f.body, "ok");
    const LoadTiming& t = f.trans->load_timing();
    EXPECT_EQ(t.ssl.alpn, "http/1.1");
    EXPECT_EQ(t.h2.retry,
              "HTTP_1_1_REQUIRED: retried over HTTP/1.1 on a new connection");
    ASSERT_EQ(factory_.ssl_configs().size(), 2u);
    EXPECT_EQ(factory_.ssl_configs()[0].alpn_protos,
              (std::vector<std::string>{"h2", "http/1.1"}));
    EXPECT_EQ(factory_.ssl_configs()[1].alpn_protos,
              std::vector<std::string>{"http/1.1"});
    EXPECT_TRUE(session_->server_properties()->RequiresHttp11(
        "https://www.example.test:443"));
  }

  std::vector<std::vector<MockWrite>> writes_;
  std::vector<std::vector<MockRead>> reads_;
  std::vector<std::unique_ptr<StaticSocketDataProvider>> data_;
  std::vector<std::unique_ptr<SSLSocketDataProvider>> tls_;
};

TEST_F(Http11RequiredTest, RstStreamRetriesOverHttp11AndIsRemembered) {
  writes_.reserve(4);
  reads_.reserve(4);
  H2ServerProvider www([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.rst = true;
    r.rst_code = NGHTTP2_HTTP_1_1_REQUIRED;
    return r;
  });
  AddConnection(&www);
  AddHttp11Connection("/a");
  AddHttp11Connection("/b");
  MakeSession();
  auto a = Get("https://www.example.test/a");
  ExpectRetriedOverHttp11(*a);
  // The next request offers only http/1.1 from the start.
  auto b = Get("https://www.example.test/b");
  ASSERT_EQ(b->result, OK) << b->trans->error_detail();
  EXPECT_FALSE(b->trans->load_timing().h2.used);
  ASSERT_EQ(factory_.ssl_configs().size(), 3u);
  EXPECT_EQ(factory_.ssl_configs()[2].alpn_protos,
            std::vector<std::string>{"http/1.1"});
  EXPECT_EQ(www.server()->requests().size(), 1u);
  for (const auto& d : data_) {
    EXPECT_TRUE(d->AllWriteDataConsumed());
    EXPECT_TRUE(d->write_mismatches().empty());
  }
}

TEST_F(Http11RequiredTest, GoAwayRetriesOverHttp11) {
  writes_.reserve(4);
  reads_.reserve(4);
  H2ServerProvider www([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;
    return r;
  });
  AddConnection(&www);
  AddHttp11Connection("/a");
  MakeSession();
  auto a = Begin("https://www.example.test/a");
  loop_.RunUntilIdle();
  ASSERT_EQ(www.server()->requests().size(), 1u);
  www.server()->SendGoAway(0, NGHTTP2_HTTP_1_1_REQUIRED);
  Finish(a.get());
  ExpectRetriedOverHttp11(*a);
}

// Each request's priority: HEADERS weight and dependency (Chromium's chain)
// and the RFC 9218 header; the trace says what was sent.
TEST_F(Http2PoolingTest, EachRequestCarriesItsPriority) {
  H2ServerProvider www([](const TestHeaders&, const std::string&) {
    Http2TestServer::Response r;
    r.never_respond = true;
    return r;
  });
  AddConnection(&www);
  MakeSession();
  auto low = Begin("https://www.example.test/low", LOWEST);
  auto high = Begin("https://www.example.test/high", HIGHEST);
  auto medium = Begin("https://www.example.test/medium", MEDIUM);
  loop_.RunUntilIdle();
  ASSERT_EQ(www.server()->requests().size(), 3u);
  auto header = [&](size_t i) {
    for (const auto& [name, value] : www.server()->requests()[i])
      if (name == "priority") return value;
    return std::string("(none)");
  };
  EXPECT_EQ(header(0), "i");  // LOWEST is urgency 3, the default
  EXPECT_EQ(header(1), "u=0, i");
  EXPECT_EQ(header(2), "u=1, i");
  std::vector<Http2TestServer::Frame> headers;
  for (const auto& f : www.server()->frames())
    if (f.type == NGHTTP2_HEADERS) headers.push_back(f);
  ASSERT_EQ(headers.size(), 3u);
  EXPECT_EQ((std::vector<int>{headers[0].weight, headers[1].weight,
                              headers[2].weight}),
            (std::vector<int>{147, 256, 220}));
  EXPECT_EQ((std::vector<int>{headers[0].dep, headers[1].dep, headers[2].dep}),
            (std::vector<int>{0, 0, 3}));
  const LoadTiming& t = medium->trans->load_timing();
  EXPECT_EQ(t.priority, MEDIUM);
  EXPECT_EQ(t.h2.weight, 220);
  EXPECT_EQ(t.h2.depends_on, 3u);
  EXPECT_NE(LoadTimingToJson(t).find("\"priority\":\"MEDIUM\""),
            std::string::npos);
  EXPECT_EQ(low->trans->load_timing().h2.weight, 147);
  EXPECT_EQ(high->trans->load_timing().h2.weight, 256);
}

// The waiting policy. kAlways: requests started together wait for the
// first connection's ALPN and share its session. kKnownMultiplexed, first
// contact: each connects; the first h2 session carries both requests and
// the later h2 connection is closed. Once the origin is known to speak h2,
// requests wait again.
TEST_F(Http2PoolingTest, WaitingPolicies) {
  for (ConnectWaitPolicy policy :
       {ConnectWaitPolicy::kAlways, ConnectWaitPolicy::kKnownMultiplexed}) {
    SCOPED_TRACE(ConnectWaitPolicyToString(policy));
    MockClientSocketFactory fresh;
    std::swap(factory_, fresh);
    H2ServerProvider first(&EchoAuthority), second(&EchoAuthority);
    AddConnection(&first, ASYNC);
    AddConnection(&second, ASYNC);
    HttpNetworkSessionParams params;
    params.connect_wait = policy;
    MakeSession(params);
    auto a = Begin("https://www.example.test/a");
    auto b = Begin("https://www.example.test/b");
    Finish(a.get());
    Finish(b.get());
    ASSERT_EQ(a->result, OK);
    ASSERT_EQ(b->result, OK);
    EXPECT_EQ(session_->http2_session_pool()->sessions_created(), 1u);
    const bool parallel = policy == ConnectWaitPolicy::kKnownMultiplexed;
    EXPECT_EQ(factory_.sockets_created(), parallel ? 2u : 1u);
    EXPECT_EQ(session_->redundant_multiplexed_connections(),
              parallel ? 1u : 0u);
    EXPECT_EQ(first.server()->requests().size(), 2u);
    EXPECT_EQ(session_->server_properties()->GetMultiplexing(
                  "https://www.example.test:443"),
              HttpServerProperties::Multiplexing::kYes);
    EXPECT_TRUE(session_->ShouldWaitForMultiplexedConnect(
        "https://www.example.test:443"));
    session_.reset();
  }
}

// kKnownMultiplexed, first contact with two origins on one address: both
// connect at once; the connection that is ready second finds the first's
// session at its address, covering its origin, and is closed.
TEST_F(Http2PoolingTest, ParallelConnectionsEndOnTheFirstSession) {
  H2ServerProvider www(&EchoAuthority, Verified(good_leaf_));
  H2ServerProvider local(&EchoAuthority, Verified(good_leaf_));
  AddConnection(&www, ASYNC);
  AddConnection(&local, ASYNC);
  HttpNetworkSessionParams params;
  params.connect_wait = ConnectWaitPolicy::kKnownMultiplexed;
  MakeSession(params);
  auto a = Begin("https://www.example.test/a");
  auto b = Begin("https://localhost/b");
  Finish(a.get());
  Finish(b.get());
  ASSERT_EQ(a->result, OK) << a->trans->error_detail();
  ASSERT_EQ(b->result, OK) << b->trans->error_detail();
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_EQ(session_->redundant_multiplexed_connections(), 1u);
  EXPECT_EQ(session_->http2_session_pool()->sessions_created(), 1u);
  const LoadTiming& tb = b->trans->load_timing();
  EXPECT_TRUE(tb.h2.coalesced);
  EXPECT_EQ(tb.h2.coalesced_by, "dns");
  // It paid for its own connection: the trace keeps those times.
  EXPECT_FALSE(tb.connect_start.is_null());
  EXPECT_LE(tb.connect_start, tb.connect_end);
  EXPECT_EQ(Authorities(www.server()),
            (std::vector<std::string>{"www.example.test", "localhost"}));
  EXPECT_EQ(local.server()->requests().size(), 0u);
}

// A profile's session and its incognito profile's are two
// HttpNetworkSessions: neither ever carries the other's requests.
TEST_F(Http2PoolingTest, SeparateNetworkSessionsNeverShare) {
  H2ServerProvider normal(&EchoAuthority, Verified(good_leaf_));
  H2ServerProvider incognito(&EchoAuthority, Verified(good_leaf_));
  AddConnection(&normal);
  AddConnection(&incognito);
  MakeSession();
  ASSERT_EQ(Get("https://www.example.test/")->result, OK);
  HttpNetworkSessionParams params;
  HttpNetworkSession other(params, &resolver_, &factory_, &verifier_);
  HttpNetworkTransaction trans(&other);
  HttpRequestInfo request;
  request.url = *Url::Parse("https://localhost/");
  TestCompletionCallback cb;
  ASSERT_EQ(cb.GetResult(trans.Start(request, cb.callback())), OK);
  EXPECT_FALSE(trans.load_timing().h2.coalesced);
  EXPECT_EQ(trans.load_timing().h2.session, SessionUse::kNew);
  EXPECT_EQ(factory_.sockets_created(), 2u);
  EXPECT_EQ(Authorities(normal.server()),
            std::vector<std::string>{"www.example.test"});
}

}  // namespace
}  // namespace net
