// CaresHostResolver against a scripted UDP DNS server: TTLs, negative
// caching, coalescing, cancellation, malformed answers, dead servers, and
// 1,000 concurrent lookups without descriptor growth.

#include "dns/cares_host_resolver.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "dns/fake_dns_server.h"
#include "dns/https_record.h"
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
  ASSERT_EQ(OK, cb.GetResult(resolver->Prefetch("p.ok.test", 0, &result,
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

TEST_F(CaresHostResolverTest, OnlyRecordsOfTheNameAskedOrItsCnamesAnswer) {
  // x.ok.test's answer carries an A record of another name (an injection)
  // and a CNAME to edge.ok.test with its A record; y.ok.test's carries only
  // another name's record.
  FakeDnsServer server([](const FakeDnsQuery& q) {
    if (q.qtype != 1) return FakeDnsServer::BuildResponse(q, 0, {}, 60, 10);
    std::vector<FakeDnsAnswer> answers = {
        {1, 30, FakeDnsServer::ARecord(192, 0, 2, 66), "victim.test"}};
    if (q.name == "x.ok.test") {
      answers.push_back({5, 30, FakeDnsServer::CnameRecord("edge.ok.test")});
      answers.push_back(
          {1, 30, FakeDnsServer::ARecord(127, 0, 0, 5), "edge.ok.test"});
    }
    return FakeDnsServer::BuildResponse(q, 0, answers);
  });
  auto resolver = MakeResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, Resolve(resolver.get(), "x.ok.test", &result)) << result.detail;
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.5");
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED,
            Resolve(resolver.get(), "y.ok.test", &result));
  EXPECT_TRUE(result.addresses.empty());
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

// HTTPS records (RFC 9460) ---------------------------------------------------

std::string HttpsRdata(uint16_t priority, const std::string& target,
                       std::optional<uint16_t> port = std::nullopt,
                       std::vector<IPAddress> ipv4_hints = {},
                       std::string ech = "",
                       std::vector<std::string> alpn = {"h2", "http/1.1"}) {
  HttpsRecord r;
  r.priority = priority;
  r.target = target;
  if (priority != 0) {
    r.alpn = std::move(alpn);
    r.port = port;
    r.ipv4_hints = std::move(ipv4_hints);
    r.ech = std::move(ech);
  }
  return *SerializeHttpsRdata(r);
}

// A stand-in ECHConfigList: well-formed as a list (the resolver does not
// look inside; BoringSSL does, at the handshake).
const char kEchList[] = "\x00\x08\xfe\x0d\x00\x04\x01\x02\x03\x04";
std::string EchList() { return std::string(kEchList, 10); }

class CaresHttpsTest : public CaresHostResolverTest {
 protected:
  std::unique_ptr<CaresHostResolver> MakeHttpsResolver(
      const std::string& server, absl::Duration timeout = absl::Seconds(1),
      int tries = 1) {
    CaresResolverConfig config;
    config.servers = {server};
    config.clock = &clock_;
    config.attempt_timeout = timeout;
    config.tries = tries;
    config.query_https = true;
    auto resolver = CaresHostResolver::Create(config);
    EXPECT_TRUE(resolver.ok()) << resolver.status();
    return std::move(*resolver);
  }
  int ResolveHttps(CaresHostResolver* r, const std::string& host,
                   HostResolveResult* result, uint16_t port = 443) {
    std::unique_ptr<HostResolver::Request> request;
    TestCompletionCallback cb;
    return cb.GetResult(
        r->ResolveHttps(host, port, result, cb.callback(), &request));
  }
};

// The world's shape: an A record and a ServiceMode "." record with a port,
// ALPN and ECH.
std::string ServiceWithEch(const FakeDnsQuery& q) {
  if (q.qtype == 1)
    return FakeDnsServer::BuildResponse(
        q, 0, {{1, 30, FakeDnsServer::ARecord(127, 0, 0, 7)}});
  if (q.qtype == 65)
    return FakeDnsServer::BuildResponse(
        q, 0, {{65, 10, HttpsRdata(1, "", 8443, {}, EchList())}});
  return FakeDnsServer::BuildResponse(q, 0, {}, 60, 10);
}

// The RRSet's other compatible records come along as the endpoint's
// fallbacks, by priority (RFC 9460 3), each with its effective target; an
// incompatible one does not.
TEST_F(CaresHttpsTest, OtherRecordsAreTheFallbacksByPriority) {
  HttpsRecord h3_only;
  h3_only.priority = 4;
  h3_only.alpn = {"h3"};
  h3_only.no_default_alpn = true;
  const std::string incompatible = *SerializeHttpsRdata(h3_only);
  FakeDnsServer server([incompatible](const FakeDnsQuery& q) {
    if (q.qtype == 65)
      return FakeDnsServer::BuildResponse(
          q, 0,
          {{65, 60, HttpsRdata(3, "", std::nullopt, {}, "", {"h2"})},
           {65, 60, HttpsRdata(1, "", 8443)},
           {65, 60, HttpsRdata(2, "b.ok.test", 9443)},
           {65, 60, incompatible},
           {65, 60, HttpsRdata(5, "", 8443)}});  // the best's endpoint again
    return Standard(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "fb.ok.test", &result));
  const HttpsRecordInfo& h = result.https;
  ASSERT_EQ(h.status, HttpsRecordStatus::kUsed) << h.detail;
  EXPECT_EQ(h.priority, 1);
  EXPECT_EQ(h.port, 8443);
  ASSERT_EQ(h.fallbacks.size(), 2u);
  EXPECT_EQ(h.fallbacks[0].priority, 2);
  EXPECT_EQ(h.fallbacks[0].target, "b.ok.test");
  EXPECT_EQ(h.fallbacks[0].port, 9443);
  EXPECT_EQ(h.fallbacks[1].priority, 3);
  EXPECT_EQ(h.fallbacks[1].target, "fb.ok.test");
  EXPECT_EQ(h.fallbacks[1].alpn, std::vector<std::string>{"h2"});
  EXPECT_FALSE(h.fallbacks[1].port.has_value());
}

// However long the RRSet, at most kMaxHttpsFallbacks endpoints follow the
// best.
TEST_F(CaresHttpsTest, FallbacksAreBounded) {
  FakeDnsServer server([](const FakeDnsQuery& q) {
    if (q.qtype != 65) return Standard(q);
    std::vector<FakeDnsAnswer> answers;
    for (uint16_t i = 1; i <= 40; ++i)
      answers.push_back({65, 60, HttpsRdata(i, "", 8000 + i)});
    return FakeDnsServer::BuildResponse(q, 0, answers);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "many.ok.test", &result));
  ASSERT_EQ(result.https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(result.https.port, 8001);
  ASSERT_EQ(result.https.fallbacks.size(), kMaxHttpsFallbacks);
  EXPECT_EQ(result.https.fallbacks[0].port, 8002);
  EXPECT_EQ(result.https.fallbacks.back().port, 8009);
}

TEST_F(CaresHttpsTest, QueriedBesideAddressesAndCachedByItsTtl) {
  FakeDnsServer server(ServiceWithEch);
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "www.ok.test", &result))
      << result.detail;
  EXPECT_EQ(server.queries(), 3);  // A, AAAA, HTTPS at once
  EXPECT_EQ(resolver->https_queries_sent(), 1u);
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.7");
  const HttpsRecordInfo& h = result.https;
  EXPECT_EQ(h.status, HttpsRecordStatus::kUsed) << h.detail;
  EXPECT_EQ(h.source, DnsSource::kNetwork);
  EXPECT_EQ(h.priority, 1);
  EXPECT_EQ(h.target, "www.ok.test");  // "." is the owner
  EXPECT_EQ(h.port, 8443);
  EXPECT_EQ(h.alpn, (std::vector<std::string>{"h2", "http/1.1"}));
  EXPECT_EQ(h.ech_config_list, EchList());
  EXPECT_FALSE(h.addresses_from_hints);
  EXPECT_TRUE(h.SupportsAlpn("h2"));
  EXPECT_FALSE(h.SupportsAlpn("h3"));

  // From the cache, synchronously, no query.
  std::unique_ptr<HostResolver::Request> request;
  HostResolveResult cached;
  EXPECT_EQ(OK, resolver->ResolveHttps(
                    "www.ok.test", 443, &cached, [](int) {}, &request));
  EXPECT_EQ(cached.https.source, DnsSource::kCache);
  EXPECT_EQ(cached.https.port, 8443);
  EXPECT_EQ(server.queries(), 3);

  // The HTTPS record's TTL (10 s) runs out before the A record's (30 s):
  // only the HTTPS query goes out again.
  clock_.Advance(absl::Seconds(11));
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "www.ok.test", &result));
  EXPECT_EQ(result.source, DnsSource::kCache);
  EXPECT_EQ(result.https.source, DnsSource::kNetwork);
  EXPECT_EQ(server.queries(), 4);

  // Plain Resolve never asks for it.
  ASSERT_EQ(OK, Resolve(resolver.get(), "plain.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotQueried);
  EXPECT_EQ(server.queries(), 6);
}

TEST_F(CaresHttpsTest, OffByDefaultAndNotForOverrides) {
  FakeDnsServer server(ServiceWithEch);
  auto resolver = MakeResolver(server.address_string());  // query_https off
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "www.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotQueried);
  EXPECT_EQ(server.queries(), 2);

  auto https = MakeHttpsResolver(server.address_string());
  https->AddOverride(*ResolveOverride::Parse("o.test:443:127.0.0.9"));
  EXPECT_EQ(OK, ResolveHttps(https.get(), "o.test", &result));
  EXPECT_EQ(result.source, DnsSource::kOverride);
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotQueried);
  EXPECT_EQ(server.queries(), 2);
}

TEST_F(CaresHttpsTest, NoRecordIsNoneAndNegativelyCached) {
  FakeDnsServer server(Standard);  // NODATA with SOA minimum 10 for HTTPS
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "n.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNone);
  const int queries = server.queries();
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "n.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNone);
  EXPECT_EQ(result.https.source, DnsSource::kCache);
  EXPECT_EQ(server.queries(), queries);
  clock_.Advance(absl::Seconds(11));
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "n.ok.test", &result));
  EXPECT_EQ(server.queries(), queries + 1);
}

TEST_F(CaresHttpsTest, OtherPortsAskForThePortPrefixedName) {
  std::vector<std::string> names;
  std::mutex mu;
  FakeDnsServer server([&](const FakeDnsQuery& q) {
    std::lock_guard<std::mutex> lock(mu);
    names.push_back(absl::StrCat(q.qtype, " ", q.name));
    return Standard(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "p.ok.test", &result, 8443));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_NE(std::find(names.begin(), names.end(), "65 _8443._https.p.ok.test"),
            names.end());
}

// The HTTPS answer comes late: the lookup waits a bounded extra time after
// the addresses, then goes without it; the late answer fills the cache.
TEST_F(CaresHttpsTest, LateHttpsAnswerIsNotWaitedForLong) {
  FakeDnsServer server([](const FakeDnsQuery& q) {
    if (q.qtype == 65) usleep(300 * 1000);
    return ServiceWithEch(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  const TimeTicks start = TimeTicks::Now();
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "late.ok.test", &result));
  const absl::Duration took = TimeTicks::Now() - start;
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotInTime);
  EXPECT_NE(result.https.detail.find("went without it"), std::string::npos);
  EXPECT_LT(took, absl::Milliseconds(200)) << took;
  EXPECT_GE(result.https.wait, absl::Milliseconds(5));
  EXPECT_LE(result.https.wait, absl::Milliseconds(150));
  ASSERT_EQ(result.addresses.size(), 1u);
  // The answer arrives and is cached for the next connection.
  const TimeTicks deadline = TimeTicks::Now() + absl::Seconds(3);
  while (resolver->active_jobs() > 0 && TimeTicks::Now() < deadline)
    loop_.RunUntilIdle(), usleep(1000);
  std::unique_ptr<HostResolver::Request> request;
  EXPECT_EQ(OK, resolver->ResolveHttps(
                    "late.ok.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(result.https.source, DnsSource::kCache);
}

// A ServiceMode "." record at the origin's port-prefixed name: its endpoint
// is the origin host, whose addresses were asked in parallel. No query for
// the Attrleaf name's addresses, no wait: one round of three queries.
TEST_F(CaresHttpsTest, DotAtThePortPrefixedNameIsTheOriginHost) {
  std::vector<std::string> names;
  std::mutex mu;
  FakeDnsServer server([&](const FakeDnsQuery& q) {
    {
      std::lock_guard<std::mutex> lock(mu);
      names.push_back(absl::StrCat(q.qtype, " ", q.name));
    }
    if (q.qtype == 65 && q.name == "_8443._https.p.ok.test")
      return FakeDnsServer::BuildResponse(
          q, 0, {{65, 300, HttpsRdata(1, "", std::nullopt, {}, EchList())}});
    return Standard(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "p.ok.test", &result, 8443));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed)
      << result.https.detail;
  EXPECT_EQ(result.https.target, "p.ok.test");
  EXPECT_EQ(result.https.ech_config_list, EchList());
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.7");
  EXPECT_EQ(server.queries(), 3);
  std::lock_guard<std::mutex> lock(mu);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"1 p.ok.test", "28 p.ok.test",
                                             "65 _8443._https.p.ok.test"}));
}

// The name holding a "." record reached through an alias is the endpoint
// as RFC 9460 2.5.2 says, port-prefixed or not: only the origin's own
// port-prefixed name stands for the origin.
TEST_F(CaresHttpsTest, OnlyThePortPrefixedOriginNameIsMapped) {
  FakeDnsServer server([](const FakeDnsQuery& q) {
    if (q.qtype == 65 && q.name == "_8443._https.a.ok.test")
      return FakeDnsServer::BuildResponse(
          q, 0, {{65, 300, HttpsRdata(0, "_9._https.svc.ok.test")}});
    if (q.qtype == 65 && q.name == "_9._https.svc.ok.test")
      return FakeDnsServer::BuildResponse(q, 0,
                                          {{65, 300, HttpsRdata(1, "", 9)}});
    return Standard(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "a.ok.test", &result, 8443));
  EXPECT_EQ(result.https.alias_chain,
            std::vector<std::string>{"_9._https.svc.ok.test"});
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed)
      << result.https.detail;
  EXPECT_EQ(result.https.target, "_9._https.svc.ok.test");
  EXPECT_EQ(result.https.port, 9);
}

// The timing property HTTPS records must keep: an HTTPS query that is never
// answered holds the connection at most the bounded extra wait after the
// A/AAAA answers, which here take about 100 ms (two queries answered 50 ms
// apart): 20% of that, so 20 ms, within [5, 50] ms.
TEST_F(CaresHttpsTest, UnansweredHttpsQueryHoldsTheLookupOnlyTheBoundedWait) {
  FakeDnsServer server([](const FakeDnsQuery& q) {
    if (q.qtype == 65) return std::string();  // never answered
    usleep(50 * 1000);
    return Standard(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string(), absl::Seconds(5));
  HostResolveResult result;
  const TimeTicks start = TimeTicks::Now();
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "silent.ok.test", &result));
  const absl::Duration took = TimeTicks::Now() - start;
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotInTime);
  ASSERT_EQ(result.addresses.size(), 1u);
  // The wait after the addresses: 20% of their ~100 ms, never over 50 ms.
  EXPECT_GE(result.https.wait, absl::Milliseconds(5));
  const absl::Duration slack =
      UnderSanitizer() ? absl::Milliseconds(150) : absl::Milliseconds(15);
  EXPECT_LE(result.https.wait, absl::Milliseconds(50) + slack)
      << result.https.wait;
  EXPECT_GE(took, absl::Milliseconds(100));
  EXPECT_LE(took, absl::Milliseconds(100) + absl::Milliseconds(50) + slack)
      << took;
  // The same with the maximum lowered: the bound is the configuration's.
  CaresResolverConfig config;
  config.servers = {server.address_string()};
  config.clock = &clock_;
  config.attempt_timeout = absl::Seconds(5);
  config.query_https = true;
  config.https_extra_wait_min = absl::Milliseconds(1);
  config.https_extra_wait_max = absl::Milliseconds(2);
  auto tight = CaresHostResolver::Create(config);
  ASSERT_TRUE(tight.ok());
  ASSERT_EQ(OK, ResolveHttps(tight->get(), "silent2.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotInTime);
  EXPECT_LE(result.https.wait, absl::Milliseconds(2) + slack)
      << result.https.wait;
}

// Addresses from a prefetch (which asked port 443's record) and no record
// cached for this port: the prefetch took DNS off the critical path, so the
// request completes at once without the record; its query goes out and
// caches it for the next connection.
TEST_F(CaresHttpsTest, PrefetchedAddressesDoNotWaitForAnotherPortsRecord) {
  FakeDnsServer server(ServiceWithEch);
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(resolver->Prefetch("c.ok.test", 0, &result,
                                                cb.callback(), &request)));
  ASSERT_EQ(server.queries(), 3);  // A, AAAA, HTTPS for c.ok.test
  EXPECT_EQ(OK, resolver->ResolveHttps(
                    "c.ok.test", 8443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kPrefetch);
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotInTime);
  EXPECT_NE(result.https.detail.find("prefetched"), std::string::npos)
      << result.https.detail;
  EXPECT_LT(result.https.wait, absl::Milliseconds(5));
  EXPECT_EQ(resolver->https_queries_sent(), 2u);
  const TimeTicks deadline = TimeTicks::Now() + absl::Seconds(3);
  while (resolver->active_jobs() > 0 && TimeTicks::Now() < deadline)
    loop_.RunUntilIdle(), usleep(1000);
  EXPECT_EQ(OK, resolver->ResolveHttps(
                    "c.ok.test", 8443, &result, [](int) {}, &request));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(result.https.source, DnsSource::kCache);
  EXPECT_EQ(server.queries(), 4);
  // Addresses cached by an ordinary lookup: the bounded wait, as before
  // (the fake server answers at once, so the record is in time).
  ASSERT_EQ(OK, Resolve(resolver.get(), "d.ok.test", &result));
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "d.ok.test", &result));
  EXPECT_EQ(result.source, DnsSource::kCache);
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed);
}

// The HTTPS answer comes first, with hints, while the A query waits for its
// retry: the request completes on the hints; the A answer, when it comes,
// serves the next connection.
TEST_F(CaresHttpsTest, HintsServeUntilTheAddressesAnswer) {
  std::atomic<int> a_queries{0};
  FakeDnsServer server([&](const FakeDnsQuery& q) {
    if (q.qtype == 1 && a_queries++ == 0) return std::string();  // dropped
    if (q.qtype == 65)
      return FakeDnsServer::BuildResponse(
          q, 0,
          {{65, 300,
            HttpsRdata(1, "", std::nullopt,
                       {*IPAddress::Parse("127.0.0.42")})}});
    return ServiceWithEch(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string(),
                                    absl::Milliseconds(300), /*tries=*/2);
  HostResolveResult result;
  const TimeTicks start = TimeTicks::Now();
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "hint.ok.test", &result));
  EXPECT_LT(TimeTicks::Now() - start, absl::Milliseconds(250));
  EXPECT_TRUE(result.https.addresses_from_hints);
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.42");
  // The A answer comes with the retry and replaces the hints.
  const TimeTicks deadline = TimeTicks::Now() + absl::Seconds(3);
  while (resolver->active_jobs() > 0 && TimeTicks::Now() < deadline)
    loop_.RunUntilIdle(), usleep(1000);
  std::unique_ptr<HostResolver::Request> request;
  ASSERT_EQ(OK, resolver->ResolveHttps(
                    "hint.ok.test", 443, &result, [](int) {}, &request));
  EXPECT_FALSE(result.https.addresses_from_hints);
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.7");
}

// Zones for the alias tests: NAME -> the HTTPS records it answers.
using Zone = std::map<std::string, std::vector<FakeDnsAnswer>>;

FakeDnsServer::Handler ZoneHandler(Zone https, std::map<std::string, int> a) {
  return [https, a](const FakeDnsQuery& q) {
    if (q.qtype == 65) {
      auto it = https.find(q.name);
      if (it != https.end())
        return FakeDnsServer::BuildResponse(q, 0, it->second);
    }
    if (q.qtype == 1) {
      auto it = a.find(q.name);
      if (it != a.end())
        return FakeDnsServer::BuildResponse(
            q, 0, {{1, 30, FakeDnsServer::ARecord(127, 0, 0, it->second)}});
    }
    return FakeDnsServer::BuildResponse(q, 0, {}, 60, 10);
  };
}

TEST_F(CaresHttpsTest, AliasModeIsFollowedToTheServiceAndItsAddresses) {
  FakeDnsServer server(
      ZoneHandler({{"apex.test", {{65, 300, HttpsRdata(0, "pool.svc.test")}}},
                   {"pool.svc.test", {{65, 300, HttpsRdata(1, "", 8443)}}}},
                  {{"apex.test", 1}, {"pool.svc.test", 9}}));
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "apex.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed)
      << result.https.detail;
  EXPECT_EQ(result.https.alias_chain,
            std::vector<std::string>{"pool.svc.test"});
  EXPECT_EQ(result.https.target, "pool.svc.test");
  EXPECT_EQ(result.https.port, 8443);
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.9");  // the target's
}

// An AliasMode TargetName written in capitals: DNS names are
// case-insensitive, so the chain goes on to the target's answer.
TEST_F(CaresHttpsTest, AliasTargetInAnotherCaseIsFollowed) {
  FakeDnsServer::Handler zone =
      ZoneHandler({{"apex.test", {{65, 300, HttpsRdata(0, "Pool.SVC.Test")}}},
                   {"pool.svc.test", {{65, 300, HttpsRdata(1, "", 8443)}}}},
                  {{"apex.test", 1}, {"pool.svc.test", 9}});
  FakeDnsServer server([zone](const FakeDnsQuery& q) {
    FakeDnsQuery lower = q;
    lower.name = absl::AsciiStrToLower(q.name);
    return zone(lower);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "apex.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed)
      << result.https.detail;
  EXPECT_EQ(result.https.port, 8443);
  ASSERT_EQ(result.addresses.size(), 1u);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.9");
}

TEST_F(CaresHttpsTest, AnotherNamesRecordIsNoAnswerACnamesIs) {
  // www.ok.test's HTTPS answer: a record of another name with ECH (it must
  // not steer this origin), then (for cname.ok.test) a CNAME whose target
  // owns a ServiceMode record.
  FakeDnsServer server([](const FakeDnsQuery& q) {
    if (q.qtype == 1)
      return FakeDnsServer::BuildResponse(
          q, 0, {{1, 30, FakeDnsServer::ARecord(127, 0, 0, 7)}});
    if (q.qtype != 65) return FakeDnsServer::BuildResponse(q, 0, {}, 60, 10);
    std::vector<FakeDnsAnswer> answers = {
        {65, 300, HttpsRdata(1, "", 9999, {}, EchList()), "other.test"}};
    if (q.name == "cname.ok.test") {
      answers.push_back({5, 300, FakeDnsServer::CnameRecord("svc.ok.test")});
      answers.push_back({65, 300, HttpsRdata(1, "", 8443), "svc.ok.test"});
    }
    return FakeDnsServer::BuildResponse(q, 0, answers);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "www.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNone)
      << result.https.detail;
  EXPECT_TRUE(result.https.ech_config_list.empty());
  EXPECT_FALSE(result.https.port);

  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "cname.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed)
      << result.https.detail;
  EXPECT_EQ(result.https.port, 8443);
  EXPECT_EQ(result.https.target, "svc.ok.test");  // "." is the owner
  EXPECT_TRUE(result.https.ech_config_list.empty());
}

TEST_F(CaresHttpsTest, AliasChainEndingWithoutARecordUsesItsLastName) {
  FakeDnsServer server(
      ZoneHandler({{"a.test", {{65, 300, HttpsRdata(0, "b.test")}}}},
                  {{"a.test", 1}, {"b.test", 2}}));
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "a.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed);
  EXPECT_EQ(result.https.priority, 0);
  EXPECT_EQ(result.https.target, "b.test");
  EXPECT_FALSE(result.https.port);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.2");
}

TEST_F(CaresHttpsTest, AliasLoopsAndLongChainsAreIgnored) {
  Zone zone = {{"x.test", {{65, 300, HttpsRdata(0, "y.test")}}},
               {"y.test", {{65, 300, HttpsRdata(0, "x.test")}}}};
  for (int i = 0; i < 12; ++i) {
    zone[absl::StrCat("c", i, ".test")] = {
        {65, 300, HttpsRdata(0, absl::StrCat("c", i + 1, ".test"))}};
  }
  FakeDnsServer server(ZoneHandler(zone, {{"x.test", 3}, {"c0.test", 4}}));
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "x.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kIgnored);
  EXPECT_NE(result.https.detail.find("loop"), std::string::npos)
      << result.https.detail;
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.3");  // as without it

  const size_t before = resolver->https_queries_sent();
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "c0.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kIgnored);
  EXPECT_NE(result.https.detail.find("more than 8"), std::string::npos)
      << result.https.detail;
  EXPECT_EQ(resolver->https_queries_sent() - before, 9u);  // c0 + 8 hops
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.4");
}

TEST_F(CaresHttpsTest, MalformedOrIncompatibleRecordsAreIgnoredWithAReason) {
  HttpsRecord h3_only;
  h3_only.priority = 1;
  h3_only.alpn = {"h3"};
  h3_only.no_default_alpn = true;
  FakeDnsServer server(ZoneHandler(
      {// A truncated SvcParam: the whole RRSet is rejected.
       {"bad.test",
        {{65, 300, HttpsRdata(1, "")},
         {65, 300, std::string("\x00\x02\x00\x00\x03\x00\x02\x01", 8)}}},
       {"h3.test", {{65, 300, *SerializeHttpsRdata(h3_only)}}},
       {"nosvc.test", {{65, 300, HttpsRdata(0, "")}}}},
      {{"bad.test", 5}, {"h3.test", 6}, {"nosvc.test", 8}}));
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "bad.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kIgnored);
  EXPECT_NE(result.https.detail.find("malformed"), std::string::npos)
      << result.https.detail;
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.5");

  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "h3.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kIgnored);
  EXPECT_NE(result.https.detail.find("h3"), std::string::npos)
      << result.https.detail;

  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "nosvc.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kIgnored);
  EXPECT_NE(result.https.detail.find("not available"), std::string::npos);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.8");
}

TEST_F(CaresHttpsTest, UnresolvableTargetFallsBackUnlessTheRecordHasEch) {
  FakeDnsServer server(ZoneHandler(
      {{"plain.test", {{65, 300, HttpsRdata(1, "gone.test")}}},
       {"ech.test",
        {{65, 300, HttpsRdata(1, "gone.test", std::nullopt, {}, EchList())}}}},
      {{"plain.test", 1}, {"ech.test", 2}}));
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "plain.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kIgnored);
  EXPECT_NE(result.https.detail.find("fell back"), std::string::npos);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.1");

  EXPECT_EQ(ERR_NAME_NOT_RESOLVED,
            ResolveHttps(resolver.get(), "ech.test", &result));
  EXPECT_NE(result.detail.find("offers ECH"), std::string::npos)
      << result.detail;
}

TEST_F(CaresHttpsTest, ServerFailureIsNotFatal) {
  FakeDnsServer server([](const FakeDnsQuery& q) {
    if (q.qtype == 65) return FakeDnsServer::BuildResponse(q, 2, {});
    return Standard(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "sf.ok.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kFailed);
  // c-ares takes SERVFAIL as the server's failure and gives up on it
  // ("Could not contact DNS servers"): either way the query failed.
  EXPECT_NE(result.https.detail.find("the HTTPS query for sf.ok.test failed"),
            std::string::npos)
      << result.https.detail;
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.7");
}

TEST_F(CaresHttpsTest, PrefetchFetchesTheRecordToo) {
  FakeDnsServer server(ServiceWithEch);
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(resolver->Prefetch("pf.ok.test", 0, &result,
                                                cb.callback(), &request)));
  // The prefetch completed with both answers in: the request it prepared
  // finds both in the cache, synchronously, with no query.
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed);
  const int queries = server.queries();
  EXPECT_EQ(queries, 3);
  ASSERT_EQ(OK, resolver->ResolveHttps(
                    "pf.ok.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kPrefetch);
  EXPECT_EQ(result.https.source, DnsSource::kPrefetch);
  EXPECT_EQ(result.https.port, 8443);
  EXPECT_EQ(server.queries(), queries);
}

// An alias chain's second hop takes longer than the extra wait: a request
// goes without the record (the chain completes into the cache), a prefetch
// waits for it, target addresses included.
TEST_F(CaresHttpsTest, PrefetchWaitsForAnAliasChainARequestDoesNot) {
  Zone zone = {{"apex.test", {{65, 300, HttpsRdata(0, "svc.test")}}},
               {"svc.test", {{65, 300, HttpsRdata(1, "", 8443)}}}};
  auto handler = ZoneHandler(zone, {{"apex.test", 1}, {"svc.test", 9}});
  FakeDnsServer server([handler](const FakeDnsQuery& q) {
    if (q.qtype == 65 && q.name == "svc.test") usleep(120 * 1000);
    return handler(q);
  });
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  ASSERT_EQ(OK, ResolveHttps(resolver.get(), "apex.test", &result));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kNotInTime);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.1");

  auto fresh = MakeHttpsResolver(server.address_string());
  std::unique_ptr<HostResolver::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(OK, cb.GetResult(fresh->Prefetch("apex.test", 0, &result,
                                             cb.callback(), &request)));
  EXPECT_EQ(result.https.status, HttpsRecordStatus::kUsed)
      << result.https.detail;
  EXPECT_EQ(result.https.target, "svc.test");
  // Everything the request needs is cached: synchronous, the target's
  // address, the record's port.
  ASSERT_EQ(OK, fresh->ResolveHttps(
                    "apex.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.9");
  EXPECT_EQ(result.https.port, 8443);
  EXPECT_EQ(result.https.source, DnsSource::kPrefetch);
}

TEST_F(CaresHttpsTest, CancelledHttpsRequestNeverCallsBack) {
  FakeDnsServer server(ServiceWithEch);
  auto resolver = MakeHttpsResolver(server.address_string());
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  bool called = false;
  ASSERT_EQ(ERR_IO_PENDING, resolver->ResolveHttps(
                                "cx.ok.test", 443, &result,
                                [&](int) { called = true; }, &request));
  request.reset();
  EXPECT_EQ(OK, Resolve(resolver.get(), "other.ok.test", &result));
  loop_.RunUntilIdle();
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace net
