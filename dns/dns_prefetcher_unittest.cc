#include "dns/dns_prefetcher.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "dns/cares_host_resolver.h"
#include "dns/fake_dns_server.h"
#include "dns/https_record.h"
#include "gtest/gtest.h"

namespace net {
namespace {

std::string AnswerEverything(const FakeDnsQuery& q) {
  if (q.qtype == 1)
    return FakeDnsServer::BuildResponse(
        q, 0, {{1, 60, FakeDnsServer::ARecord(127, 0, 0, 5)}});
  return FakeDnsServer::BuildResponse(q, 0, {}, 60, 60);
}

class RecordingObserver : public DnsPrefetcher::Observer {
 public:
  void OnHostPrefetched(const std::string& host, int result,
                        const HostResolveResult& answer) override {
    hosts.push_back(host);
    results.push_back(result);
  }
  std::vector<std::string> hosts;
  std::vector<int> results;
};

TEST(DnsPrefetcherTest, DedupsLimitsConcurrencyAndTellsObservers) {
  EventLoop loop;
  FakeDnsServer server(AnswerEverything);
  CaresResolverConfig config;
  config.servers = {server.address_string()};
  auto resolver = *CaresHostResolver::Create(config);
  DnsPrefetcher prefetcher(resolver.get(), /*max_concurrent=*/3);
  RecordingObserver observer;
  prefetcher.AddObserver(&observer);
  std::vector<std::string> hosts;
  for (int i = 0; i < 10; ++i) hosts.push_back(absl::StrCat("h", i, ".test"));
  hosts.push_back("H0.test");  // duplicate
  prefetcher.Prefetch(hosts);
  prefetcher.Prefetch({"h1.test"});  // duplicate of one in flight
  prefetcher.WhenIdle([&] { loop.Quit(); });
  loop.Run();
  EXPECT_EQ(prefetcher.completed(), 10u);
  EXPECT_EQ(prefetcher.duplicates_dropped(), 2u);
  EXPECT_LE(prefetcher.max_in_flight_seen(), 3u);
  EXPECT_EQ(observer.hosts.size(), 10u);
  for (int rv : observer.results) EXPECT_EQ(rv, OK);

  // The answers are in the cache, tagged as prefetched.
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  EXPECT_EQ(OK, resolver->Resolve(
                    "h7.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kPrefetch);
}

// A resolver of |server| that asks for HTTPS records.
std::unique_ptr<CaresHostResolver> HttpsResolver(const FakeDnsServer& server) {
  CaresResolverConfig config;
  config.servers = {server.address_string()};
  config.query_https = true;
  return *CaresHostResolver::Create(config);
}

// Prefetches a.test and b.test (with |ports|) and runs |loop| until the
// prefetcher is idle and the resolver's lookups are done (an HTTPS lookup
// may still be out when the addresses are in).
void PrefetchAndSettle(CaresHostResolver* resolver,
                       std::map<std::string, uint16_t> ports, EventLoop* loop) {
  DnsPrefetcher prefetcher(resolver, 8, std::move(ports));
  prefetcher.Prefetch({"a.test", "b.test"});
  prefetcher.WhenIdle([loop] { loop->Quit(); });
  loop->Run();
  const TimeTicks deadline = TimeTicks::Now() + absl::Seconds(3);
  while (resolver->active_jobs() > 0 && TimeTicks::Now() < deadline)
    loop->RunUntilIdle();
}

// With HTTPS records on, a prefetched host's HTTPS record comes along: the
// first connection finds it in the cache, tagged as prefetched.
TEST(DnsPrefetcherTest, PrefetchesHttpsRecordsBesideAddresses) {
  EventLoop loop;
  std::atomic<int> https_queries{0};
  FakeDnsServer server([&](const FakeDnsQuery& q) {
    if (q.qtype == 65) {
      ++https_queries;
      HttpsRecord r;
      r.priority = 1;
      r.alpn = {"h2"};
      r.port = 8443;
      return FakeDnsServer::BuildResponse(q, 0,
                                          {{65, 60, *SerializeHttpsRdata(r)}});
    }
    return AnswerEverything(q);
  });
  auto resolver = HttpsResolver(server);
  PrefetchAndSettle(resolver.get(), {}, &loop);
  EXPECT_EQ(https_queries.load(), 2);
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  ASSERT_EQ(OK, resolver->ResolveHttps(
                    "b.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kPrefetch);
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(result.https.source, DnsSource::kPrefetch);
  EXPECT_EQ(result.https.port, 8443);
}

// A host prefetched for an origin on another port gets that port's HTTPS
// record (_PORT._https.HOST, RFC 9460 9.1), the one its request asks for:
// the request finds it in the cache, no lookup on its clock.
TEST(DnsPrefetcherTest, PrefetchesTheHttpsRecordOfTheOriginsPort) {
  EventLoop loop;
  std::mutex mu;
  std::vector<std::string> https_names;
  FakeDnsServer server([&](const FakeDnsQuery& q) {
    if (q.qtype != 65) return AnswerEverything(q);
    std::lock_guard<std::mutex> lock(mu);
    https_names.push_back(q.name);
    HttpsRecord r;
    r.priority = 1;
    r.alpn = {"h2"};
    return FakeDnsServer::BuildResponse(q, 0,
                                        {{65, 60, *SerializeHttpsRdata(r)}});
  });
  auto resolver = HttpsResolver(server);
  PrefetchAndSettle(resolver.get(), {{"b.test", 8443}}, &loop);
  {
    std::lock_guard<std::mutex> lock(mu);
    std::sort(https_names.begin(), https_names.end());
    EXPECT_EQ(https_names,
              (std::vector<std::string>{"_8443._https.b.test", "a.test"}));
  }
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  ASSERT_EQ(OK, resolver->ResolveHttps(
                    "b.test", 8443, &result, [](int) {}, &request));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(result.https.source, DnsSource::kPrefetch);
  ASSERT_EQ(OK, resolver->ResolveHttps(
                    "a.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.https.source, DnsSource::kPrefetch);
}

TEST(DnsPrefetcherTest, ExtractsLinkHosts) {
  Url base = *Url::Parse("https://www.example.test/dir/page.html");
  std::string html = R"(<a href="https://a.example.test/x">a</a>
      <A HREF='//b.example.test/'>b</A> <img src=http://c.example.test:8080/i.png>
      <a href="relative.html">same host</a> <a href="https://a.example.test/again">dup</a>
      <a href="mailto:x@y.test">mail</a> <a href = "https://d.example.test">d</a>)";
  EXPECT_EQ(ExtractLinkHosts(html, base),
            (std::vector<std::string>{"a.example.test", "b.example.test",
                                      "d.example.test", "c.example.test"}));
}

}  // namespace
}  // namespace net
