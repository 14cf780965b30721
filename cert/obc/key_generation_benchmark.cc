// Key generation per algorithm, the analog of the TLS-OBC paper's Figure 8
// (12 / 129 / 1016 ms for ECDSA / RSA-1024 / RSA-2048 on NSS in 2012), and
// what the network thread pays per OBC with a warm pool, a cold pool and a
// cached certificate.
//   bazel run -c opt //cert/obc:key_generation_benchmark
//
// RSA generation time is a random search for primes, so its distribution
// is wide: the key benchmarks report p50 / p90 / max per key beside the
// mean that Google Benchmark prints.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cert/obc/key_pool.h"
#include "cert/obc/obc_crypto.h"
#include "cert/obc/obc_store_file.h"
#include "cert/obc/origin_bound_cert_store.h"
#include "net/base/event_loop.h"
#include "net/base/tick_clock.h"
#include "net/base/worker_pool.h"

namespace net {
namespace {

KeyAlgorithm AlgorithmArg(const benchmark::State& state) {
  return kAllKeyAlgorithms[static_cast<size_t>(state.range(0))];
}

void ReportPercentiles(benchmark::State& state, std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["p90_ms"] = ms[ms.size() * 9 / 10];
  state.counters["max_ms"] = ms.back();
  state.SetLabel(KeyAlgorithmToString(AlgorithmArg(state)));
}

// The key pair alone (Figure 8).
void BM_GenerateKey(benchmark::State& state) {
  const KeyAlgorithm algorithm = AlgorithmArg(state);
  std::vector<double> ms;
  for (auto _ : state) {
    TimeTicks start = TimeTicks::Now();
    absl::StatusOr<bssl::UniquePtr<EVP_PKEY>> key = GenerateKey(algorithm);
    ms.push_back(absl::ToDoubleMilliseconds(TimeTicks::Now() - start));
    if (!key.ok()) state.SkipWithError("generation failed");
    benchmark::DoNotOptimize(key);
  }
  ReportPercentiles(state, std::move(ms));
}

// What one pool job costs a worker: key, self-signed certificate, PKCS#8.
void BM_MakeKeyMaterial(benchmark::State& state) {
  const KeyAlgorithm algorithm = AlgorithmArg(state);
  std::vector<double> ms;
  for (auto _ : state) {
    TimeTicks start = TimeTicks::Now();
    absl::StatusOr<ObcKeyMaterial> material =
        MakeKeyMaterial(algorithm, absl::Now());
    ms.push_back(absl::ToDoubleMilliseconds(TimeTicks::Now() - start));
    if (!material.ok()) state.SkipWithError("generation failed");
    benchmark::DoNotOptimize(material);
  }
  ReportPercentiles(state, std::move(ms));
}

// Signing the certificate alone (what renewal costs on the network thread).
void BM_MintCertificate(benchmark::State& state) {
  const KeyAlgorithm algorithm = AlgorithmArg(state);
  bssl::UniquePtr<EVP_PKEY> key = GenerateKey(algorithm).value();
  for (auto _ : state) {
    absl::StatusOr<std::string> cert = MintCertificate(key.get(), absl::Now());
    benchmark::DoNotOptimize(cert);
  }
  state.SetLabel(KeyAlgorithmToString(algorithm));
}

// The network thread's cost of a first visit with a warm pool: GetOrCreate
// for a new scope with a key waiting in the pool (kPooledKey). The pool is
// refilled outside the timed region.
void BM_GetOrCreatePooledKey(benchmark::State& state) {
  const KeyAlgorithm algorithm = AlgorithmArg(state);
  EventLoop loop;
  WorkerPool workers(2);
  KeyPool::Options options;
  options.target_depth = {0, 0, 0, 0};
  options.target_depth[static_cast<size_t>(algorithm)] = 64;
  options.max_refill_jobs = 2;
  KeyPool pool(&workers, options);
  OriginBoundCertStore::Options store_options;
  store_options.private_profile = true;
  auto store =
      OriginBoundCertStore::Open(store_options, &pool, &workers).value();
  auto wait_full = [&] {
    bool full = false;
    if (pool.WaitUntilFull([&](int) {
          full = true;
          loop.Quit();
        }) == OK)
      return;
    while (!full) loop.Run();
  };
  wait_full();
  int n = 0;
  std::vector<double> us;
  for (auto _ : state) {
    if (pool.pooled_count(algorithm) == 0) {
      state.PauseTiming();
      wait_full();
      state.ResumeTiming();
    }
    OriginBoundCertStore::Result result;
    std::unique_ptr<OriginBoundCertStore::Request> request;
    ObcScope scope =
        ObcScope::ForOrigin(
            Origin("https", absl::StrCat("h", n++, ".bench.test"), 443),
            ScopeMode::kOrigin)
            .value();
    TimeTicks start = TimeTicks::Now();
    int rv = store->GetOrCreate(
        scope, algorithm, &result, [](int) {}, &request);
    us.push_back(absl::ToDoubleMicroseconds(TimeTicks::Now() - start));
    if (rv != OK || result.facts.source != ObcSource::kPooledKey)
      state.SkipWithError("not answered from the pool");
  }
  std::sort(us.begin(), us.end());
  if (!us.empty()) state.counters["p50_us"] = us[us.size() / 2];
  state.SetLabel(KeyAlgorithmToString(algorithm));
}

// A repeat visit: the scope's certificate is cached.
void BM_GetOrCreateCachedCert(benchmark::State& state) {
  EventLoop loop;
  WorkerPool workers(1);
  KeyPool pool(&workers, KeyPool::Options());
  OriginBoundCertStore::Options store_options;
  store_options.private_profile = true;
  auto store =
      OriginBoundCertStore::Open(store_options, &pool, &workers).value();
  ObcScope scope =
      ObcScope::ForInput("https://www.example.test", ScopeMode::kOrigin)
          .value();
  OriginBoundCertStore::Result result;
  std::unique_ptr<OriginBoundCertStore::Request> request;
  bool done = false;
  if (store->GetOrCreate(
          scope, KeyAlgorithm::kEcdsaP256, &result,
          [&](int) {
            done = true;
            loop.Quit();
          },
          &request) == ERR_IO_PENDING) {
    while (!done) loop.Run();
  }
  for (auto _ : state) {
    int rv = store->GetOrCreate(
        scope, KeyAlgorithm::kEcdsaP256, &result, [](int) {}, &request);
    if (rv != OK) state.SkipWithError("not cached");
    benchmark::DoNotOptimize(result);
  }
}

// Profile start: loading (and checking) a store of N ECDSA OBCs.
void BM_LoadStore(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<std::shared_ptr<const ObcRecord>> records;
  for (int i = 0; i < n; ++i) {
    ObcKeyMaterial m =
        MakeKeyMaterial(KeyAlgorithm::kEcdsaP256, absl::Now()).value();
    auto record = std::make_shared<ObcRecord>();
    record->scope =
        ObcScope::ForInput(absl::StrCat("https://h", i, ".bench.test"),
                           ScopeMode::kOrigin)
            .value();
    record->cert_der = m.cert_der;
    record->key_pkcs8 = m.key_pkcs8;
    record->key = std::move(m.key);
    records.push_back(record);
  }
  const std::string bytes = ObcStoreFile::Serialize(records);
  for (auto _ : state) {
    absl::StatusOr<std::vector<ObcRecord>> loaded =
        ObcStoreFile::Parse(bytes, "bench");
    if (!loaded.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(loaded);
  }
  state.counters["bytes"] = static_cast<double>(bytes.size());
}

void AllAlgorithms(benchmark::internal::Benchmark* b) {
  for (size_t i = 0; i < kAllKeyAlgorithms.size(); ++i)
    b->Arg(static_cast<int>(i));
}

// RSA keys vary a lot; give every algorithm a few seconds of samples.
BENCHMARK(BM_GenerateKey)
    ->Apply(AllAlgorithms)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(5);
BENCHMARK(BM_MakeKeyMaterial)
    ->Apply(AllAlgorithms)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(5);
BENCHMARK(BM_MintCertificate)
    ->Apply(AllAlgorithms)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GetOrCreatePooledKey)
    ->Apply(AllAlgorithms)
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(200);
BENCHMARK(BM_GetOrCreateCachedCert)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoadStore)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace net

BENCHMARK_MAIN();
