// Preconnector over QUIC, against ngtcp2's gtlsserver: a prefetched host
// whose DNS HTTPS record sends its request to HTTP/3 is preconnected over
// QUIC (no TCP connection that would go unused), and the click's request
// takes that session; a QUIC preconnect that fails marks the origin broken
// for QUIC, so the click goes straight to TCP.

#include "net/context/preconnector.h"

#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dns/fake_dns_server.h"
#include "dns/https_record.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/context/network_context.h"
#include "net/context/test_https_server.h"
#include "net/quic/quic_test_server.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request_test_util.h"

namespace net {
namespace {

constexpr char kHost[] = "www.example.test";

// A zone for kHost: its A record, and for the origin on |origin_port| an
// HTTPS record (RFC 9460 9.1: _PORT._https.HOST) offering |record|.
FakeDnsServer::Handler Zone(uint16_t origin_port, HttpsRecord record,
                            std::vector<std::string>* https_names,
                            std::mutex* mu) {
  return [=](const FakeDnsQuery& q) {
    if (q.qtype == 1 && q.name == kHost)
      return FakeDnsServer::BuildResponse(
          q, 0, {{1, 60, FakeDnsServer::ARecord(127, 0, 0, 1)}});
    if (q.qtype == 65) {
      {
        std::lock_guard<std::mutex> lock(*mu);
        https_names->push_back(q.name);
      }
      if (q.name == absl::StrCat("_", origin_port, "._https.", kHost))
        return FakeDnsServer::BuildResponse(
            q, 0, {{65, 60, *SerializeHttpsRdata(record)}});
    }
    return FakeDnsServer::BuildResponse(q, 0, {}, 60, 60);
  };
}

class PreconnectorHttp3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GtlsServer::Available())
      GTEST_SKIP() << GtlsServer::kBinary << " is not installed";
  }

  NetworkContextParams Params(const FakeDnsServer& dns, uint16_t port) {
    NetworkContextParams params;
    params.trust_anchor_files = {"cert/testdata/good_root.pem"};
    params.revocation = RevocationPolicy::Mode::kOff;
    params.dns_servers = {dns.address_string()};
    params.https_records = true;
    params.h3_from_https_records = true;
    params.preconnect = true;
    params.prefetch_ports[kHost] = port;
    params.session.request_timeout = absl::Seconds(10);
    return params;
  }

  // Starts gtlsserver with /page holding |contents|: its UDP port (0 if it
  // did not start).
  uint16_t StartH3Origin(const std::string& contents) {
    const char* tmp = getenv("TEST_TMPDIR");
    const std::string htdocs = absl::StrCat(tmp ? tmp : "/tmp", "/pc-htdocs");
    WriteHtdocsFile(htdocs, "page", contents);
    GtlsServer::Options options;
    options.htdocs = htdocs;
    std::string why;
    if (!gtls_.Start(options, &why)) {
      ADD_FAILURE() << why;
      return 0;
    }
    return gtls_.endpoint().port();
  }

  // A ServiceMode record for the owner itself offering h3.
  static HttpsRecord H3Record() {
    HttpsRecord record;
    record.priority = 1;
    record.alpn = {"h3"};
    return record;
  }

  void PrefetchAndWait(NetworkContext* context) {
    context->Prefetch({kHost}, [this] { loop_.Quit(); });
    loop_.Run();
  }

  int Fetch(NetworkContext* context, uint16_t port, const std::string& path,
            std::string* body, LoadTiming* timing) {
    TestURLRequestDelegate delegate;
    auto request = context->CreateRequest(
        *Url::Parse(absl::StrCat("https://", kHost, ":", port, path)),
        &delegate, URLRequest::Options());
    request->Start();
    delegate.RunUntilComplete();
    *body = delegate.body();
    *timing = request->load_timing();
    return delegate.result();
  }

  EventLoop loop_;
  GtlsServer gtls_;
  std::mutex mu_;
  std::vector<std::string> https_names_;
};

TEST_F(PreconnectorHttp3Test, H3RecordPreconnectsOverQuicAndTheClickUsesIt) {
  const uint16_t port = StartH3Origin("preconnected over QUIC\n");
  ASSERT_NE(port, 0);
  FakeDnsServer dns(Zone(port, H3Record(), &https_names_, &mu_));
  auto context = NetworkContext::Create(Params(dns, port));
  ASSERT_TRUE(context.ok()) << context.status();

  PrefetchAndWait(context->get());
  {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_EQ(
        https_names_,
        (std::vector<std::string>{absl::StrCat("_", port, "._https.", kHost)}));
  }
  Preconnector* preconnector = (*context)->preconnector();
  ASSERT_NE(preconnector, nullptr);
  EXPECT_EQ(preconnector->started(), 1u);
  EXPECT_EQ(preconnector->succeeded(), 1u);
  HttpNetworkSession* session = (*context)->http_session();
  EXPECT_EQ(session->http3_session_pool()->session_count(), 1u);
  EXPECT_EQ(session->preconnected_socket_count(), 0u);  // no TCP

  std::string body;
  LoadTiming timing;
  ASSERT_EQ(OK, Fetch(context->get(), port, "/page", &body, &timing));
  EXPECT_EQ(body, "preconnected over QUIC\n");
  EXPECT_TRUE(timing.quic.used);
  EXPECT_TRUE(timing.socket_preconnected);
  EXPECT_EQ(timing.dns_source, DnsSource::kPreconnect);
  EXPECT_EQ(session->http3_session_pool()->session_count(), 1u);

  // Only the first request on the session was preconnected.
  ASSERT_EQ(OK, Fetch(context->get(), port, "/page", &body, &timing));
  EXPECT_TRUE(timing.quic.used);
  EXPECT_TRUE(timing.socket_reused);
  EXPECT_FALSE(timing.socket_preconnected);
}

// A preconnected QUIC session nobody took yet holds one of max_total's
// places, as a preconnected TCP socket does; once a request takes it, the
// place is free.
TEST_F(PreconnectorHttp3Test, AnUntakenQuicSessionCountsAgainstTheTotal) {
  const uint16_t port = StartH3Origin("x");
  ASSERT_NE(port, 0);
  FakeDnsServer dns(Zone(port, H3Record(), &https_names_, &mu_));
  NetworkContextParams params = Params(dns, port);
  params.preconnect_total = 1;
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();
  PrefetchAndWait(context->get());
  Preconnector* preconnector = (*context)->preconnector();
  ASSERT_EQ(preconnector->succeeded(), 1u);
  // Another host's TCP preconnect: no place left.
  preconnector->Preconnect("other.example.test", 443);
  EXPECT_EQ(preconnector->started(), 1u);
  EXPECT_EQ(preconnector->skipped(), 1u);

  std::string body;
  LoadTiming timing;
  ASSERT_EQ(OK, Fetch(context->get(), port, "/page", &body, &timing));
  EXPECT_TRUE(timing.socket_preconnected);
  // Taken: the place is free (the preconnect starts; where it goes does
  // not matter here).
  preconnector->Preconnect("other.example.test", 443);
  EXPECT_EQ(preconnector->started(), 2u);
}

TEST_F(PreconnectorHttp3Test, FailedQuicPreconnectSendsTheClickToTcp) {
  // The record's h3 endpoint never answers; the origin's own port serves
  // TCP (an h3-only record: TCP goes to the origin's addresses and port).
  UdpBlackHole hole;
  TestHttpsServer tcp;
  const uint16_t port = tcp.address().port();
  HttpsRecord record;
  record.priority = 1;
  record.alpn = {"h3"};
  record.no_default_alpn = true;
  record.port = hole.endpoint().port();
  FakeDnsServer dns(Zone(port, record, &https_names_, &mu_));
  NetworkContextParams params = Params(dns, port);
  params.session.quic.handshake_timeout = absl::Milliseconds(300);
  auto context = NetworkContext::Create(std::move(params));
  ASSERT_TRUE(context.ok()) << context.status();

  PrefetchAndWait(context->get());
  Preconnector* preconnector = (*context)->preconnector();
  EXPECT_EQ(preconnector->started(), 1u);
  EXPECT_EQ(preconnector->failed(), 1u);
  EXPECT_GT(hole.received(), 0);
  HttpNetworkSession* session = (*context)->http_session();
  const std::string broken =
      session->http3_session_pool()->BrokenReason(Origin("https", kHost, port));
  EXPECT_NE(broken.find("preconnect: "), std::string::npos) << broken;

  std::string body;
  LoadTiming timing;
  ASSERT_EQ(OK, Fetch(context->get(), port, "/", &body, &timing));
  EXPECT_FALSE(timing.quic.used);
  EXPECT_NE(timing.quic.fallback.find("QUIC marked broken for this origin "
                                      "(preconnect: "),
            std::string::npos)
      << timing.quic.fallback;
  EXPECT_EQ(tcp.handshakes(), 1);
}

}  // namespace
}  // namespace net
