// Http2SessionPool: one session per key (origin and route), and coalescing
// another origin onto it by DNS (RFC 9113 9.1.1) or by the session's ORIGIN
// frames (RFC 8336), subject to the session's own knowledge (421s, the
// origin set) and the caller's certificate/OBC check; sessions through a
// proxy never coalesce.

#include "net/http2/http2_session_pool.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/http2/http2_test_server.h"
#include "net/spdy/spdy_session_test_util.h"

namespace net {
namespace {

const Origin kA("https", "a.example.test", 443);
const Origin kB("https", "b.example.test", 443);
const Origin kC("https", "c.example.test", 443);
const Origin kD("https", "d.example.test", 443);

class Http2SessionPoolTest : public testing::Test {
 protected:
  Http2SessionPoolTest()
      : pool_([this](const Http2Session&, const Origin& origin) {
          ++can_coalesce_calls_;
          auto it = refusals_.find(origin);
          return it == refusals_.end() ? std::string() : it->second;
        }) {}

  // A started session for |origin| (through |proxy| if given), its peer
  // 127.0.0.1:443 (the fake socket's), served by an nghttp2 server.
  Http2Session* AddSession(const Origin& origin, std::string proxy = "") {
    auto [client, server] = CreateFakeSocketPair();
    servers_.push_back(std::make_unique<Http2TestServer>(
        std::move(server), [](const TestHeaders&, const std::string&) {
          return Http2TestServer::Response();
        }));
    Http2SessionParams params;
    params.origin = origin;
    params.proxy = std::move(proxy);
    Http2Session* s = pool_.InsertSession(
        std::make_unique<Http2Session>(std::move(client), params));
    s->Start();
    loop_.RunUntilIdle();
    return s;
  }

  const std::vector<IPEndPoint> kLoopback443 = {
      IPEndPoint(IPAddress::IPv4Localhost(), 443)};

  EventLoop loop_;
  std::map<Origin, std::string> refusals_;
  int can_coalesce_calls_ = 0;
  Http2SessionPool pool_;
  std::vector<std::unique_ptr<Http2TestServer>> servers_;
};

TEST_F(Http2SessionPoolTest, CoalescesByDnsOntoASessionThatMayCarryIt) {
  Http2Session* a = AddSession(kA);
  EXPECT_EQ(pool_.FindAvailableSession(kA), a);
  EXPECT_EQ(pool_.FindAvailableSession(kB), nullptr);

  Http2SessionPool::CoalesceResult r =
      pool_.FindSessionForCoalescing(kB, kLoopback443);
  EXPECT_EQ(r.session, a);
  EXPECT_EQ(r.by, CoalescedBy::kDns);
  EXPECT_EQ(r.not_coalesced_reason, "");
  EXPECT_EQ(pool_.coalesced_lookups(), 1u);
  // Aliased: found without a lookup now.
  EXPECT_EQ(pool_.FindAvailableSession(kB), a);

  // Another address, or the same address on another port: no.
  EXPECT_EQ(pool_
                .FindSessionForCoalescing(
                    kC, {IPEndPoint(*IPAddress::Parse("127.0.0.2"), 443)})
                .session,
            nullptr);
  r = pool_.FindSessionForCoalescing(
      Origin("https", "c.example.test", 8443),
      {IPEndPoint(IPAddress::IPv4Localhost(), 8443)});
  EXPECT_EQ(r.session, nullptr);
  EXPECT_EQ(r.not_coalesced_reason, "");
  // The session's own origin is never "coalesced".
  EXPECT_EQ(pool_.FindSessionForCoalescing(kA, kLoopback443).session, nullptr);
  EXPECT_EQ(pool_.sessions_created(), 1u);
}

TEST_F(Http2SessionPoolTest, TheCallersRefusalIsTheReason) {
  AddSession(kA);
  refusals_[kB] = "certificate";
  refusals_[kC] = "obc";
  Http2SessionPool::CoalesceResult r =
      pool_.FindSessionForCoalescing(kB, kLoopback443);
  EXPECT_EQ(r.session, nullptr);
  EXPECT_EQ(r.not_coalesced_reason, "certificate");
  r = pool_.FindSessionForCoalescing(kC, kLoopback443);
  EXPECT_EQ(r.session, nullptr);
  EXPECT_EQ(r.not_coalesced_reason, "obc");
  EXPECT_EQ(pool_.FindAvailableSession(kC), nullptr);
  EXPECT_EQ(pool_.coalesced_lookups(), 0u);
}

// ORIGIN: a listed origin is found with no DNS; once a session has an
// origin set, an origin outside it is refused even at the same address,
// and an alias made earlier by DNS is dropped.
TEST_F(Http2SessionPoolTest, OriginFrameWidensAndNarrows) {
  Http2Session* a = AddSession(kA);
  // b coalesced by DNS before any ORIGIN frame.
  ASSERT_EQ(pool_.FindSessionForCoalescing(kB, kLoopback443).session, a);
  EXPECT_EQ(pool_.FindSessionByOriginFrame(kC).session, nullptr);

  servers_[0]->SendOrigin({"https://c.example.test"});
  loop_.RunUntilIdle();
  ASSERT_TRUE(a->origin_frame_received());

  Http2SessionPool::CoalesceResult r = pool_.FindSessionByOriginFrame(kC);
  EXPECT_EQ(r.session, a);
  EXPECT_EQ(r.by, CoalescedBy::kOriginFrame);
  EXPECT_EQ(pool_.FindAvailableSession(kC), a);
  // d is not listed: no, even at the session's address.
  EXPECT_EQ(pool_.FindSessionByOriginFrame(kD).session, nullptr);
  r = pool_.FindSessionForCoalescing(kD, kLoopback443);
  EXPECT_EQ(r.session, nullptr);
  EXPECT_EQ(r.not_coalesced_reason, "originFrame");
  // b's alias is gone: the set does not list it.
  EXPECT_EQ(pool_.FindAvailableSession(kB), nullptr);
  // The certificate check still applies to a listed origin.
  const Origin e("https", "e.example.test", 443);
  refusals_[e] = "certificate";
  servers_[0]->SendOrigin({"https://e.example.test"});
  loop_.RunUntilIdle();
  r = pool_.FindSessionByOriginFrame(e);
  EXPECT_EQ(r.session, nullptr);
  EXPECT_EQ(r.not_coalesced_reason, "certificate");
  // d's own session is d's, whatever a's frames say.
  Http2Session* d = AddSession(kD);
  EXPECT_EQ(pool_.FindAvailableSession(kD), d);
}

TEST_F(Http2SessionPoolTest, AMisdirectedOriginIsNotCoalescedAgain) {
  Http2Session* a = AddSession(kA);
  ASSERT_EQ(pool_.FindSessionForCoalescing(kB, kLoopback443).session, a);
  a->NoteMisdirected(kB);
  EXPECT_EQ(pool_.FindAvailableSession(kB), nullptr);
  Http2SessionPool::CoalesceResult r =
      pool_.FindSessionForCoalescing(kB, kLoopback443);
  EXPECT_EQ(r.session, nullptr);
  EXPECT_EQ(r.not_coalesced_reason, "misdirected");
  // b's own new session takes its place; a still carries a.
  Http2Session* b = AddSession(kB);
  EXPECT_EQ(pool_.FindAvailableSession(kB), b);
  EXPECT_EQ(pool_.FindAvailableSession(kA), a);
}

// Through a proxy: a session is found only by its own key (origin and
// proxy), and never carries another origin, nor a direct request.
TEST_F(Http2SessionPoolTest, ProxiedSessionsNeverCoalesce) {
  Http2Session* via = AddSession(kA, "http://proxy.test:3128");
  EXPECT_EQ(
      pool_.FindAvailableSession(Http2SessionKey{kA, "http://proxy.test:3128"}),
      via);
  EXPECT_EQ(pool_.FindAvailableSession(kA), nullptr);  // direct: not it
  EXPECT_EQ(
      pool_.FindAvailableSession(Http2SessionKey{kA, "http://other.test:3128"}),
      nullptr);
  EXPECT_EQ(pool_.FindSessionForCoalescing(kB, kLoopback443).session, nullptr);
  servers_[0]->SendOrigin({"https://b.example.test"});
  loop_.RunUntilIdle();
  EXPECT_EQ(pool_.FindSessionByOriginFrame(kB).session, nullptr);
  EXPECT_EQ(can_coalesce_calls_, 0);
}

TEST(Http2SessionPoolNoCallbackTest, WithoutACheckNothingCoalesces) {
  EventLoop loop;
  Http2SessionPool pool;
  auto [client, server] = CreateFakeSocketPair();
  Http2TestServer peer(std::move(server),
                       [](const TestHeaders&, const std::string&) {
                         return Http2TestServer::Response();
                       });
  Http2SessionParams params;
  params.origin = kA;
  Http2Session* s = pool.InsertSession(
      std::make_unique<Http2Session>(std::move(client), params));
  s->Start();
  loop.RunUntilIdle();
  EXPECT_EQ(pool.FindSessionForCoalescing(
                    kB, {IPEndPoint(IPAddress::IPv4Localhost(), 443)})
                .session,
            nullptr);
  EXPECT_EQ(pool.FindAvailableSession(kA), s);
}

}  // namespace
}  // namespace net
