// Does the server's RSA premaster decryption take the same time for a valid
// and an invalid PKCS #1 v1.5 padding? (A padding oracle through timing is
// Bleichenbacher's attack; RFC 5246 section 7.4.7.1.)
//
//   bazel run -c opt //net/snap_start:rsa_premaster_timing_benchmark
//   bazel run -c opt //net/snap_start:rsa_premaster_timing_benchmark --
//       --welch_samples=2000000 --welch_rsa_samples=20000
//
// Two parts:
//  1. Google Benchmark cases: the mean time of PremasterFromPkcs1Block (the
//     constant-time check and select) and of RsaDecryptPremaster (with the
//     RSA operation) for a valid block and for each kind of invalid one.
//  2. A statistical test in the manner of dudect (Reparaz, Balasch and
//     Verbauwhede, 2017): measurements of randomly interleaved valid and
//     invalid inputs (copied into one buffer, classes drawn up front, so
//     that neither memory placement nor a branch on the class biases the
//     measured code), compared with Welch's t-test on all samples and on the
//     fastest 90% (cropping the scheduler's outliers). |t| above 4.5 in
//     either is a detected difference. Two controls calibrate it: valid
//     against valid (the harness's own noise: must show none) and a
//     branching check (must show one).
//
// A benchmark, not a test: its numbers depend on the machine's load, so no
// default test asserts on them.

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_test_util.h"

namespace net {
namespace {

constexpr size_t kModulusLen = 256;  // RSA-2048

// The kinds of block the benchmark feeds; kValid first.
enum Kind {
  kValid,
  kBadFirstByte,
  kBadBlockType,
  kZeroInPadding,
  kNoSeparator,
  kWrongVersion,
  kKindCount,
};

const char* KindName(int kind) {
  static const char* const kNames[] = {"valid",          "bad_first_byte",
                                       "bad_block_type", "zero_in_padding",
                                       "no_separator",   "wrong_version"};
  return kNames[kind];
}

std::string Block(int kind) {
  std::string premaster = NewPremasterSecret(kTls12Version);
  if (kind == kWrongVersion) premaster[1] = 0x01;
  std::string block = Pkcs1Block(kModulusLen, premaster);
  const size_t separator = kModulusLen - premaster.size() - 1;
  switch (kind) {
    case kBadFirstByte:
      block[0] = 1;
      break;
    case kBadBlockType:
      block[1] = 1;
      break;
    case kZeroInPadding:
      block[separator / 2] = 0;
      break;
    case kNoSeparator:
      block[separator] = 7;
      break;
    default:
      break;
  }
  return block;
}

// One RSA-2048 key for the whole run, and ciphertexts of each kind of block.
struct Fixture {
  Fixture() {
    RSA* rsa = RSA_new();
    BIGNUM* e = BN_new();
    BN_set_word(e, RSA_F4);
    RSA_generate_key_ex(rsa, 2048, e, nullptr);
    BN_free(e);
    key = EVP_PKEY_new();
    EVP_PKEY_assign_RSA(key, rsa);
    for (int kind = 0; kind < kKindCount; ++kind) {
      blocks.push_back(Block(kind));
      std::string out(kModulusLen, '\0');
      size_t len = 0;
      RSA_encrypt(rsa, &len, reinterpret_cast<uint8_t*>(out.data()), out.size(),
                  reinterpret_cast<const uint8_t*>(blocks.back().data()),
                  kModulusLen, RSA_NO_PADDING);
      ciphertexts.push_back(out);
    }
  }
  EVP_PKEY* key = nullptr;
  std::vector<std::string> blocks;
  std::vector<std::string> ciphertexts;
};

Fixture& Get() {
  static Fixture* fixture = new Fixture();
  return *fixture;
}

const std::string& RandomPremaster() {
  static const std::string* random = new std::string(RandomBytes(48));
  return *random;
}

void BM_PremasterFromPkcs1Block(benchmark::State& state) {
  const std::string& block = Get().blocks[state.range(0)];
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        PremasterFromPkcs1Block(block, kTls12Version, RandomPremaster()));
  }
  state.SetLabel(KindName(state.range(0)));
}
BENCHMARK(BM_PremasterFromPkcs1Block)->DenseRange(0, kKindCount - 1);

void BM_RsaDecryptPremaster(benchmark::State& state) {
  const std::string& ciphertext = Get().ciphertexts[state.range(0)];
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        RsaDecryptPremaster(Get().key, ciphertext, kTls12Version));
  }
  state.SetLabel(KindName(state.range(0)));
}
BENCHMARK(BM_RsaDecryptPremaster)
    ->DenseRange(0, kKindCount - 1)
    ->Unit(benchmark::kMicrosecond);

// The check as it must not be written: early exits on the padding. The
// experiment runs it as a positive control, to show it can see a leak.
std::string LeakyPremasterFromBlock(const std::string& block,
                                    const std::string& random) {
  const size_t separator = block.size() - 48 - 1;
  if (block[0] != 0 || block[1] != 2) return random;
  for (size_t i = 2; i < separator; ++i) {
    if (block[i] == 0) return random;
  }
  if (block[separator] != 0) return random;
  if (block[separator + 1] != 3 || block[separator + 2] != 3) return random;
  return block.substr(separator + 1);
}

inline uint64_t Ticks() {
#if defined(__x86_64__)
  // lfence: the measured code neither starts before the first read nor ends
  // after the second.
  __builtin_ia32_lfence();
  const uint64_t ticks = __builtin_ia32_rdtsc();
  __builtin_ia32_lfence();
  return ticks;
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

// Welch's t over two samples.
double WelchT(const std::vector<double>& a, const std::vector<double>& b) {
  auto mean_var = [](const std::vector<double>& x, double* mean, double* var) {
    double m = 0;
    for (double v : x) m += v;
    m /= x.size();
    double s = 0;
    for (double v : x) s += (v - m) * (v - m);
    *mean = m;
    *var = s / (x.size() - 1);
  };
  double ma, va, mb, vb;
  mean_var(a, &ma, &va);
  mean_var(b, &mb, &vb);
  return (ma - mb) / std::sqrt(va / a.size() + vb / b.size());
}

// The samples of both classes below the |quantile| of all of them.
void Crop(std::vector<double>* a, std::vector<double>* b, double quantile) {
  std::vector<double> all(*a);
  all.insert(all.end(), b->begin(), b->end());
  std::nth_element(all.begin(), all.begin() + all.size() * quantile, all.end());
  const double limit = all[all.size() * quantile];
  auto keep = [limit](std::vector<double>* x) {
    x->erase(std::remove_if(x->begin(), x->end(),
                            [limit](double v) { return v > limit; }),
             x->end());
  };
  keep(a);
  keep(b);
}

// Measures |run(input)| |samples| times, |input| each time a copy of the
// valid (class 0) or, at random, of one of the invalid inputs (class 1) in
// one scratch buffer — the same memory for both classes, so that cache and
// alignment effects of where an input lives do not pass for a leak — and
// prints Welch's t. A difference in either the whole or the cropped sample
// counts (dudect's rule).
template <typename Run>
void Welch(const char* what, const std::vector<std::string>& inputs,
           size_t samples, Run run) {
  // The classes are drawn up front and nothing branches on them until the
  // measurements are done: a branch on the class just before a measurement
  // would change the branch history the measured code sees and pass for a
  // leak.
  std::vector<uint8_t> coins(samples);
  RAND_bytes(coins.data(), coins.size());
  std::vector<uint8_t> kinds(samples);
  for (size_t i = 0; i < samples; ++i) {
    kinds[i] = (coins[i] & 1) ? kValid : 1 + (coins[i] >> 1) % (kKindCount - 1);
  }
  std::vector<uint64_t> ticks(samples);
  std::string scratch = inputs[kValid];
  for (size_t i = 0; i < samples; ++i) {
    std::memcpy(scratch.data(), inputs[kinds[i]].data(), scratch.size());
    const uint64_t start = Ticks();
    run(scratch);
    ticks[i] = Ticks() - start;
  }
  std::vector<double> valid, invalid;
  for (size_t i = 0; i < samples; ++i) {
    (kinds[i] == kValid ? valid : invalid)
        .push_back(static_cast<double>(ticks[i]));
  }
  const double t_all = WelchT(valid, invalid);
  Crop(&valid, &invalid, 0.9);
  const double t_cropped = WelchT(valid, invalid);
  const bool leak = std::fabs(t_all) > 4.5 || std::fabs(t_cropped) > 4.5;
  std::printf(
      "welch %-28s samples %9zu  t(all) %8.2f  t(fastest 90%%) %8.2f  %s\n",
      what, samples, t_all, t_cropped,
      leak ? "DIFFERENCE DETECTED" : "no difference detected (|t| < 4.5)");
}

size_t FlagValue(int* argc, char** argv, const char* name, size_t fallback) {
  const size_t name_len = std::strlen(name);
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp(argv[i], name, name_len) == 0 &&
        argv[i][name_len] == '=') {
      const size_t value = std::strtoull(argv[i] + name_len + 1, nullptr, 10);
      for (int j = i; j + 1 < *argc; ++j) argv[j] = argv[j + 1];
      --*argc;
      return value;
    }
  }
  return fallback;
}

}  // namespace
}  // namespace net

int main(int argc, char** argv) {
  const size_t samples =
      net::FlagValue(&argc, argv, "--welch_samples", 1000000);
  const size_t rsa_samples =
      net::FlagValue(&argc, argv, "--welch_rsa_samples", 4000);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();

  net::Fixture& fixture = net::Get();
  const std::string& random = net::RandomPremaster();
  // The null control: both classes the same valid block. Whatever it shows
  // is the harness's own noise.
  const std::vector<std::string> same(net::kKindCount,
                                      fixture.blocks[net::kValid]);
  net::Welch("valid vs valid (null control)", same, samples,
             [&](const std::string& block) {
               benchmark::DoNotOptimize(net::PremasterFromPkcs1Block(
                   block, net::kTls12Version, random));
             });
  net::Welch("PremasterFromPkcs1Block", fixture.blocks, samples,
             [&](const std::string& block) {
               benchmark::DoNotOptimize(net::PremasterFromPkcs1Block(
                   block, net::kTls12Version, random));
             });
  net::Welch(
      "leaky check (control)", fixture.blocks, samples,
      [&](const std::string& block) {
        benchmark::DoNotOptimize(net::LeakyPremasterFromBlock(block, random));
      });
  net::Welch("RsaDecryptPremaster", fixture.ciphertexts, rsa_samples,
             [&](const std::string& ciphertext) {
               benchmark::DoNotOptimize(net::RsaDecryptPremaster(
                   fixture.key, ciphertext, net::kTls12Version));
             });
  return 0;
}
