// Cache-hit resolutions per second: CaresHostResolver answering from its
// HostCache (what every prefetched or repeated lookup costs), beside a raw
// HostCache lookup for reference.
//   bazel run -c opt //dns:host_resolver_benchmark

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "dns/cares_host_resolver.h"
#include "dns/fake_dns_server.h"
#include "net/base/event_loop.h"

namespace net {
namespace {

std::string Answer(const FakeDnsQuery& q) {
  if (q.qtype == 1)
    return FakeDnsServer::BuildResponse(
        q, 0, {{1, 3600, FakeDnsServer::ARecord(127, 0, 0, 1)}});
  return FakeDnsServer::BuildResponse(q, 0, {}, 3600, 3600);
}

void BM_ResolverCacheHit(benchmark::State& state) {
  EventLoop loop;
  FakeDnsServer server(Answer);
  CaresResolverConfig config;
  config.servers = {server.address_string()};
  auto resolver = *CaresHostResolver::Create(config);
  const int hosts = static_cast<int>(state.range(0));
  int pending = hosts;
  std::vector<HostResolveResult> warm(hosts);
  std::vector<std::unique_ptr<HostResolver::Request>> requests(hosts);
  for (int i = 0; i < hosts; ++i) {
    resolver->Resolve(
        absl::StrCat("h", i, ".bench.test"), 443, &warm[i],
        [&](int) {
          if (--pending == 0) loop.Quit();
        },
        &requests[i]);
  }
  loop.Run();
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  int i = 0;
  for (auto _ : state) {
    int rv = resolver->Resolve(
        absl::StrCat("h", i, ".bench.test"), 443, &result, [](int) {},
        &request);
    if (rv != OK) state.SkipWithError("not a cache hit");
    benchmark::DoNotOptimize(result);
    if (++i == hosts) i = 0;
  }
  state.counters["resolutions_per_s"] =
      benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ResolverCacheHit)->Arg(1)->Arg(1000);

void BM_HostCacheLookup(benchmark::State& state) {
  HostCache cache(1000, DefaultTickClock::GetInstance());
  HostCache::Entry entry;
  entry.addresses = {IPAddress::IPv4Localhost()};
  for (int i = 0; i < 1000; ++i)
    cache.Set(absl::StrCat("h", i, ".bench.test"), HostCache::Kind::kAddresses,
              entry, absl::Hours(1));
  int i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.Lookup(absl::StrCat("h", i, ".bench.test"),
                                          HostCache::Kind::kAddresses));
    if (++i == 1000) i = 0;
  }
  state.counters["lookups_per_s"] =
      benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_HostCacheLookup);

}  // namespace
}  // namespace net

BENCHMARK_MAIN();
