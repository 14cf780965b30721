// CaresHostResolver against a scripted UDP DNS server: TTLs, negative
// caching, coalescing, cancellation, malformed answers, dead servers, and
// 1,000 concurrent lookups without descriptor growth.

#include "dns/cares_host_resolver.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "dns/fake_dns_server.h"
#include "gtest/gtest.h"
#include "net/base/sanitizer.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

long ResidentKb() {
  long pages_total = 0, pages_resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2)
      pages_resident = 0;
    fclose(f);
  }
  return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int OpenFdCount() {
  int n = 0;
  DIR* dir = opendir("/proc/self/fd");
  while (readdir(dir)) ++n;
  closedir(dir);
  return n;
}

// Answers A queries for *.ok.test with 127.0.0.N (N from the first label's
// length) and TTL 30; NXDOMAIN with SOA minimum 10 for *.nx.test; nothing
// for AAAA (NODATA).
std::string Standard(const FakeDnsQuery& q) {
  if (q.name.size() > 8 && q.name.substr(q.name.size() - 8) == ".nx.test")
    return FakeDnsServer::BuildResponse(q, 3, {}, /*soa_ttl=*/60,
                                        /*soa_minimum=*/10);
  if (q.qtype == 1)
    return FakeDnsServer::BuildResponse(
        q, 0, {{1, 30, FakeDnsServer::ARecord(127, 0, 0, 7)}});
  return FakeDnsServer::BuildResponse(q, 0, {}, 60, 10);
}

class CaresHostResolverTest : public ::testing::Test {
 protected:
  std::unique_ptr<CaresHostResolver> MakeResolver(
      const std::string& server, absl::Duration timeout = absl::Seconds(1)) {
    CaresResolverConfig config;
    config.servers = {server};
    config.clock = &clock_;
    config.attempt_timeout = timeout;
    config.tries = 1;
    auto resolver = CaresHostResolver::Create(config);
    EXPECT_TRUE(resolver.ok()) << resolver.status();
    return std::move(*resolver);
  }
  int Resolve(CaresHostResolver* r, const std::string& host,
              HostResolveResult* result) {
    std::unique_ptr<HostResolver::Request> request;
    TestCompletionCallback cb;
    return cb.GetResult(r->Resolve(host, 443, result, cb.callback(), &request));
  }

  EventLoop loop_;
  SimpleTestTickClock clock_;
};

TEST_F(CaresHostResolverTest, ResolvesThenServesFromCacheUntilTheTtlExpires) {
  FakeDnsServer server(Standard);
  auto resolver = MakeResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, Resolve(resolver.get(), "www.ok.test", &result))
      << result.detail;
  EXPECT_EQ(result.source, DnsSource::kNetwork);
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.7");
  int queries = server.queries();
  EXPECT_EQ(queries, 2);  // A and AAAA

  // Cached: answered synchronously, no query.
  std::unique_ptr<HostResolver::Request> request;
  EXPECT_EQ(OK, resolver->Resolve(
                    "WWW.ok.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kCache);
  EXPECT_EQ(server.queries(), queries);

  // After the 30 s TTL it is looked up again.
  clock_.Advance(absl::Seconds(31));
  ASSERT_EQ(OK, Resolve(resolver.get(), "www.ok.test", &result));
  EXPECT_EQ(result.source, DnsSource::kNetwork);
  EXPECT_EQ(server.queries(), queries + 2);
}

TEST_F(CaresHostResolverTest, NxdomainIsNamedAndNegativelyCachedPerSoaMinimum) {
  FakeDnsServer server(Standard);
  auto resolver = MakeResolver(server.address_string());
  HostResolveResult result;
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED,
            Resolve(resolver.get(), "gone.nx.test", &result));
  int queries = server.queries();
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED,
            Resolve(resolver.get(), "gone.nx.test", &result));
  EXPECT_EQ(result.source, DnsSource::kCache);
  EXPECT_EQ(server.queries(), queries);
  clock_.Advance(absl::Seconds(11));  // SOA minimum 10 < SOA TTL 60
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED,
            Resolve(resolver.get(), "gone.nx.test", &result));
  EXPECT_GT(server.queries(), queries);
}

TEST_F(CaresHostResolverTest, ConcurrentRequestsShareOneLookup) {
  FakeDnsServer server(Standard);
  auto resolver = MakeResolver(server.address_string());
  HostResolveResult r1, r2;
  std::unique_ptr<HostResolver::Request> q1, q2;
  TestCompletionCallback c1, c2;
  ASSERT_EQ(ERR_IO_PENDING,
            resolver->Resolve("a.ok.test", 1, &r1, c1.callback(), &q1));
  ASSERT_EQ(ERR_IO_PENDING,
            resolver->Resolve("a.ok.test", 2, &r2, c2.callback(), &q2));
  EXPECT_EQ(resolver->active_jobs(), 1u);
  EXPECT_EQ(OK, c1.WaitForResult());
  EXPECT_EQ(OK, c2.GetResult(ERR_IO_PENDING));
  EXPECT_EQ(server.queries(), 2);
  EXPECT_EQ(resolver->coalesced_requests(), 1u);
}

TEST_F(CaresHostResolverTest, PrefetchedAnswerReportsPrefetchOnce) {
  FakeDnsServer server(Standard);
  auto resolver = MakeResolver(server.address_string());
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(resolver->Prefetch("p.ok.test", &result,
                                                cb.callback(), &request)));
  EXPECT_EQ(OK, resolver->Resolve(
                    "p.ok.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kPrefetch);
  EXPECT_EQ(OK, resolver->Resolve(
                    "p.ok.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kCache);
}

TEST_F(CaresHostResolverTest, CancelledRequestNeverCallsBack) {
  FakeDnsServer server(Standard);
  auto resolver = MakeResolver(server.address_string());
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  bool called = false;
  ASSERT_EQ(ERR_IO_PENDING, resolver->Resolve(
                                "c.ok.test", 1, &result,
                                [&](int) { called = true; }, &request));
  request.reset();
  // A second request for another name completes; the first never calls.
  EXPECT_EQ(OK, Resolve(resolver.get(), "d.ok.test", &result));
  loop_.RunUntilIdle();
  EXPECT_FALSE(called);
}

TEST_F(CaresHostResolverTest, MalformedAnswersAreCleanErrors) {
  std::vector<std::function<std::string(const FakeDnsQuery&)>> breakers = {
      // Truncated after the header.
      [](const FakeDnsQuery& q) {
        return FakeDnsServer::BuildResponse(
                   q, 0, {{1, 30, FakeDnsServer::ARecord(1, 2, 3, 4)}})
            .substr(0, 14);
      },
      // A record with a 3-byte address.
      [](const FakeDnsQuery& q) {
        return FakeDnsServer::BuildResponse(q, 0, {{1, 30, "abc"}});
      },
      // Answer count claims more records than there are.
      [](const FakeDnsQuery& q) {
        std::string r = FakeDnsServer::BuildResponse(q, 0, {});
        r[7] = 5;
        return r;
      },
  };
  for (size_t i = 0; i < breakers.size(); ++i) {
    SCOPED_TRACE(i);
    FakeDnsServer server(breakers[i]);
    // A 2 s timeout: a malformed answer must be reported at once, not
    // waited out.
    auto resolver = MakeResolver(server.address_string(), absl::Seconds(2));
    HostResolveResult result;
    TimeTicks start = TimeTicks::Now();
    int rv = Resolve(resolver.get(), absl::StrCat("m", i, ".ok.test"), &result);
    EXPECT_EQ(rv, ERR_DNS_MALFORMED_RESPONSE) << ErrorToString(rv);
    EXPECT_LT(TimeTicks::Now() - start, absl::Milliseconds(500));
    EXPECT_NE(result.detail.find("malformed"), std::string::npos)
        << result.detail;
  }
}

// Answers cut short at every length, inside the header's count fields, the
// question and the record: each is ERR_DNS_MALFORMED_RESPONSE at once.
TEST_F(CaresHostResolverTest, EveryTruncationIsMalformedNotATimeout) {
  const std::string whole = FakeDnsServer::BuildResponse(
      FakeDnsQuery{0, "t.ok.test", 1}, 0,
      {{1, 30, FakeDnsServer::ARecord(1, 2, 3, 4)}});
  for (size_t cut = 2; cut < whole.size(); cut += 3) {
    SCOPED_TRACE(cut);
    FakeDnsServer server([cut](const FakeDnsQuery& q) {
      return FakeDnsServer::BuildResponse(
                 q, 0, {{1, 30, FakeDnsServer::ARecord(1, 2, 3, 4)}})
          .substr(0, cut);
    });
    auto resolver = MakeResolver(server.address_string(), absl::Seconds(2));
    HostResolveResult result;
    TimeTicks start = TimeTicks::Now();
    int rv =
        Resolve(resolver.get(), absl::StrCat("t", cut, ".ok.test"), &result);
    EXPECT_EQ(rv, ERR_DNS_MALFORMED_RESPONSE) << ErrorToString(rv);
    EXPECT_LT(TimeTicks::Now() - start, absl::Milliseconds(500));
  }
}

// An answer to another question (a late or spoofed one) is not taken for
// this query's: c-ares drops it and the query times out as before.
TEST_F(CaresHostResolverTest, GarbageForAnotherQuestionIsIgnored) {
  FakeDnsServer server([](const FakeDnsQuery& q) {
    FakeDnsQuery other = q;
    other.name = "another.ok.test";
    return FakeDnsServer::BuildResponse(other, 0, {{1, 30, "abc"}});
  });
  auto resolver =
      MakeResolver(server.address_string(), absl::Milliseconds(200));
  HostResolveResult result;
  EXPECT_EQ(ERR_DNS_TIMED_OUT, Resolve(resolver.get(), "x.ok.test", &result));
}

TEST_F(CaresHostResolverTest, SilentServerTimesOut) {
  FakeDnsServer server([](const FakeDnsQuery&) { return std::string(); });
  auto resolver =
      MakeResolver(server.address_string(), absl::Milliseconds(200));
  HostResolveResult result;
  TimeTicks start = TimeTicks::Now();
  EXPECT_EQ(ERR_DNS_TIMED_OUT, Resolve(resolver.get(), "x.ok.test", &result));
  EXPECT_LT(TimeTicks::Now() - start, absl::Seconds(5));
}

TEST_F(CaresHostResolverTest, ThousandConcurrentLookupsLeaveNoDescriptors) {
  FakeDnsServer server(Standard);
  auto resolver = MakeResolver(server.address_string(), absl::Seconds(3));
  int fds_before = OpenFdCount();
  long rss_after_first_round = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<HostResolveResult> results(1000);
    std::vector<std::unique_ptr<HostResolver::Request>> requests(1000);
    int done = 0, ok = 0;
    for (int i = 0; i < 1000; ++i) {
      int rv = resolver->Resolve(
          absl::StrCat("h", round, "-", i, ".ok.test"), 443, &results[i],
          [&](int rv) {
            ++done;
            ok += rv == OK;
            if (done == 1000) loop_.Quit();
          },
          &requests[i]);
      ASSERT_EQ(rv, ERR_IO_PENDING);
    }
    loop_.Run();
    EXPECT_EQ(ok, 1000);
    EXPECT_EQ(resolver->active_jobs(), 0u);
    if (round == 0) rss_after_first_round = ResidentKb();
  }
  EXPECT_LE(OpenFdCount(), fds_before + 2);  // c-ares may keep its UDP socket.
  // Rounds two and three reuse what round one allocated (the cache is full
  // at its bound): no growth beyond allocator noise. Not under a sanitizer:
  // ASan's quarantine keeps freed blocks out of reuse, so RSS grows anyway.
  const long growth_kb = ResidentKb() - rss_after_first_round;
  if (UnderSanitizer()) {
    SanitizerNote(absl::StrCat("RSS grew ", growth_kb,
                               " KB over rounds 2-3 (bound 2048 KB not "
                               "asserted: freed memory is quarantined)")
                      .c_str());
  } else {
    EXPECT_LT(growth_kb, 2048);
  }
  EXPECT_EQ(resolver->host_cache()->size(), 1000u);  // bounded by cache_size
}

TEST_F(CaresHostResolverTest, OverridesAndBadNames) {
  FakeDnsServer server(Standard);
  auto resolver = MakeResolver(server.address_string());
  resolver->AddOverride(*ResolveOverride::Parse("o.test:443:127.0.0.9"));
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  EXPECT_EQ(OK, resolver->Resolve(
                    "o.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kOverride);
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED,
            resolver->Resolve(
                "bad name!", 443, &result, [](int) {}, &request));
  EXPECT_EQ(server.queries(), 0);
}

}  // namespace
}  // namespace net
