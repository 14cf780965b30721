// OCSP response verifications per second (parse + CertID match + signature
// check, RSA-2048 issuer and P-256 delegated responder) and revocation-cache
// lookups per second.
//   bazel run -c opt //cert:ocsp_benchmark

#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cert/ocsp.h"
#include "cert/ocsp_test_util.h"
#include "cert/revocation_checker.h"
#include "cert/x509_util.h"

namespace net {
namespace {

void BM_VerifyOcspResponse(benchmark::State& state) {
  const bool delegated = state.range(0);
  std::string leaf =
      (*LoadPemCertificatesFromFile("cert/testdata/good_leaf.pem"))[0];
  std::string issuer_der =
      (*LoadPemCertificatesFromFile("cert/testdata/good_intermediate.pem"))[0];
  bssl::UniquePtr<X509> issuer = DerToX509(issuer_der);
  bssl::UniquePtr<EVP_PKEY> issuer_key =
      LoadPemKey("cert/testdata/good_intermediate.key");
  bssl::UniquePtr<EVP_PKEY> delegate_key = MakeP256Key();
  absl::Time now = absl::Now();
  bssl::UniquePtr<X509> delegate = MakeCert(
      "OCSP responder", delegate_key.get(), issuer.get(), issuer_key.get(),
      true, now - absl::Hours(1), now + absl::Hours(24));
  OcspResponseSpec spec;
  spec.cert_id = *BuildOcspCertId(leaf, issuer_der);
  spec.produced_at = spec.this_update = now - absl::Minutes(1);
  spec.next_update = now + absl::Hours(1);
  spec.signer_key = delegated ? delegate_key.get() : issuer_key.get();
  spec.responder = delegated ? delegate.get() : issuer.get();
  if (delegated) spec.certs = {delegate.get()};
  std::string response = BuildOcspResponse(spec);
  OcspVerifyOptions options;
  options.now = now;
  for (auto _ : state) {
    auto result = VerifyOcspResponse(response, leaf, issuer_der, options);
    if (!result.ok()) state.SkipWithError("verification failed");
    benchmark::DoNotOptimize(result);
  }
  state.counters["verifications_per_s"] =
      benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_VerifyOcspResponse)->Arg(0)->Arg(1)->ArgNames({"delegated"});

void BM_RevocationCacheLookup(benchmark::State& state) {
  RevocationCache cache;
  absl::Time now = absl::Now();
  for (int i = 0; i < 10000; ++i)
    cache.Put(absl::StrCat("key", i), {false, now + absl::Hours(1)});
  int i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.Lookup(absl::StrCat("key", i), now));
    if (++i == 10000) i = 0;
  }
  state.counters["lookups_per_s"] =
      benchmark::Counter(state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RevocationCacheLookup);

}  // namespace
}  // namespace net

BENCHMARK_MAIN();
