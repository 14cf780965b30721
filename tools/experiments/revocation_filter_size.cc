// revocation_filter_size: CRLite's filter cascade measured as Larisch et al.
// measure it (IEEE S&P 2017, section V): filter size against the number of
// revoked (|R|) and valid (|S|) certificates, bytes per revocation, levels,
// build time; exactness on the covered set R u S, and the false-positive rate
// for certificates the filter was NOT built from (which is why a client checks
// coverage before it asks the cascade).
//
//   bazel run -c opt //tools/experiments:revocation_filter_size -- --out DIR
//
// Synthetic keys: 100 issuers (random SPKI hashes), 16-byte random serials.
// For each |S| and each ratio |R| / |S|: build (cert/revocation_filter_builder)
// and serialize; look every member of R and S up in the parsed file (exact:
// no error allowed); look up --strangers keys of the same issuers that are in
// neither set (the cascade's answer for them is a coin weighted by the
// levels' rates, expected (2/3) p1 "revoked"), and the same keys through
// Check with a notBefore past the coverage (all "not covered"). The model
// column is the size the construction predicts: level 1 holds R at p1 =
// sqrt(1/2) |R| / |S| (1.44 |R| log2(1/p1) bits), later levels hold
// |S| p1 + |R| p + |S| p1 p + ... = (1 + sqrt 2) |R| keys at p = 1/2 (1.44
// bits each): 1.44 |R| (log2(|S|/|R|) + 0.5 + 1 + sqrt 2) bits.
//
// Writes DIR/filter_size.csv and DIR/filter_size.txt. See
// tools/experiments/README.md.

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "cert/revocation_filter.h"
#include "cert/revocation_filter_builder.h"

namespace {

constexpr char kUsage[] = R"(usage: revocation_filter_size [flags]
  --sizes N,N,...     |S|, valid certificates (default 10000,100000,1000000)
  --ratios F,F,...    |R| / |S| (default 0.01,0.1)
  --strangers N       keys in neither set looked up per cell (default 100000)
  --issuers N         issuers the keys are spread over (default 100)
  --seed N            key and salt seed (default 1)
  --out DIR           write DIR/filter_size.csv and .txt (relative to the
                      workspace under bazel run)
  --check             exit 3 unless every cell is exact on R u S, every
                      stranger past the coverage is not covered, the levels'
                      bytes are within 35% (and 32 bytes a level) of the
                      model, and the strangers' revoked rate is within 3
                      standard deviations of (2/3) p1
Exit codes: 0 done, 1 cannot write output or build, 2 bad flags, 3 --check
failed.
)";

[[noreturn]] void BadFlag(const std::string& message) {
  std::cerr << "revocation_filter_size: " << message << "\n" << kUsage;
  std::exit(2);
}

template <typename T>
std::vector<T> ParseList(const std::string& flag, const std::string& text) {
  std::vector<T> out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    T v;
    bool ok;
    if constexpr (std::is_same_v<T, double>) {
      ok = absl::SimpleAtod(part, &v) && v > 0 && v < 1;
    } else {
      ok = absl::SimpleAtoi(part, &v) && v > 0;
    }
    if (!ok) BadFlag(absl::StrCat(flag, ": bad value '", part, "'"));
    out.push_back(v);
  }
  return out;
}

bool MakeDirs(const std::string& path) {
  std::string prefix;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    prefix += std::string(part) + "/";
    if (part.empty()) continue;
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

struct Keys {
  std::vector<std::string> issuers;
  std::mt19937_64 rng;

  net::RevocationFilterKey Next() {
    net::RevocationFilterKey key;
    key.issuer_spki_sha256 = issuers[rng() % issuers.size()];
    key.serial.resize(16);
    for (char& c : key.serial) c = static_cast<char>(rng() & 0xff);
    key.serial[0] = static_cast<char>(key.serial[0] & 0x7f);  // positive
    if (key.serial[0] == 0) key.serial[0] = 1;                // minimal DER
    return key;
  }
};

struct Row {
  size_t valid = 0, revoked = 0;
  double ratio = 0;
  size_t levels = 0, bytes = 0, cascade_bytes = 0;
  double model_bytes = 0, build_s = 0, lookup_ns = 0;
  size_t exact_errors = 0;
  size_t strangers = 0, strangers_revoked = 0, strangers_covered = 0;
  double p1 = 0;
  bool inverted = false;
};

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {10000, 100000, 1000000};
  std::vector<double> ratios = {0.01, 0.1};
  size_t strangers = 100000;
  size_t issuer_count = 100;
  uint64_t seed = 1;
  std::string out_dir;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) BadFlag(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--sizes") {
      sizes = ParseList<size_t>(flag, value());
    } else if (flag == "--ratios") {
      ratios = ParseList<double>(flag, value());
    } else if (flag == "--strangers") {
      if (!absl::SimpleAtoi(value(), &strangers)) BadFlag("--strangers: N");
    } else if (flag == "--issuers") {
      if (!absl::SimpleAtoi(value(), &issuer_count) || issuer_count == 0)
        BadFlag("--issuers: N >= 1");
    } else if (flag == "--seed") {
      if (!absl::SimpleAtoi(value(), &seed)) BadFlag("--seed: N");
    } else if (flag == "--out") {
      out_dir = value();
    } else if (flag == "--check") {
      check = true;
    } else if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      BadFlag("unknown flag " + flag);
    }
  }

  const absl::Time created = absl::FromUnixSeconds(1767225600);
  std::vector<Row> rows;
  bool failed = false;
  for (size_t valid_count : sizes) {
    for (double ratio : ratios) {
      Keys keys;
      keys.rng.seed(seed * 1000003 + valid_count * 31 +
                    static_cast<uint64_t>(ratio * 1e6));
      net::RevocationFilterBuildOptions options;
      options.created = created;
      options.coverage = created - absl::Hours(1);
      for (size_t i = 0; i < issuer_count; ++i) {
        std::string hash(32, '\0');
        for (char& c : hash) c = static_cast<char>(keys.rng() & 0xff);
        keys.issuers.push_back(hash);
        options.issuers.push_back({hash, absl::StrCat("CA ", i)});
      }
      options.salt = std::string(16, '\0');
      for (char& c : options.salt) c = static_cast<char>(keys.rng() & 0xff);
      Row row;
      row.valid = valid_count;
      row.revoked = static_cast<size_t>(std::llround(valid_count * ratio));
      row.ratio = ratio;
      absl::flat_hash_set<net::RevocationFilterKey> all;
      std::vector<net::RevocationFilterKey> revoked, valid;
      while (revoked.size() < row.revoked) {
        auto k = keys.Next();
        if (all.insert(k).second) revoked.push_back(k);
      }
      while (valid.size() < row.valid) {
        auto k = keys.Next();
        if (all.insert(k).second) valid.push_back(k);
      }
      net::RevocationFilterBuildStats stats;
      auto t0 = std::chrono::steady_clock::now();
      absl::StatusOr<net::RevocationFilter> built =
          net::BuildRevocationFilter(revoked, valid, options, &stats);
      row.build_s = Seconds(std::chrono::steady_clock::now() - t0);
      if (!built.ok()) {
        std::cerr << "revocation_filter_size: " << built.status() << "\n";
        return 1;
      }
      const std::string file = built->Serialize();
      absl::StatusOr<net::RevocationFilter> filter =
          net::RevocationFilter::Parse(file);
      if (!filter.ok()) {
        std::cerr << "revocation_filter_size: " << filter.status() << "\n";
        return 1;
      }
      row.levels = filter->levels().size();
      row.bytes = file.size();
      for (const auto& level : filter->levels())
        row.cascade_bytes += level.bits.size();
      row.inverted = stats.inverted;
      row.p1 = stats.levels[0].fp_rate;
      const double r = static_cast<double>(row.revoked);
      row.model_bytes = 1.44 * r *
                        (std::log2(static_cast<double>(row.valid) / r) + 0.5 +
                         1 + std::sqrt(2.0)) /
                        8;
      auto t1 = std::chrono::steady_clock::now();
      for (const auto& k : revoked)
        row.exact_errors += !filter->CascadeSaysRevoked(k);
      for (const auto& k : valid)
        row.exact_errors += filter->CascadeSaysRevoked(k);
      row.lookup_ns = Seconds(std::chrono::steady_clock::now() - t1) * 1e9 /
                      static_cast<double>(revoked.size() + valid.size());
      for (size_t i = 0; i < strangers; ++i) {
        auto k = keys.Next();
        if (all.contains(k)) continue;
        ++row.strangers;
        row.strangers_revoked += filter->CascadeSaysRevoked(k);
        // Issued after the filter: Check says so before the cascade answers.
        row.strangers_covered +=
            filter->Check(k, options.coverage + absl::Seconds(1)) !=
            net::RevocationFilter::Answer::kNotCovered;
      }
      if (check) {
        const double expect = 2.0 / 3.0 * row.p1;
        const double rate = static_cast<double>(row.strangers_revoked) /
                            static_cast<double>(row.strangers);
        const double sd = std::sqrt(expect * (1 - expect) /
                                    static_cast<double>(row.strangers));
        std::string why;
        if (row.exact_errors != 0) why = "not exact on R u S";
        if (row.strangers_covered != 0)
          why = "a stranger past coverage covered";
        // Levels are at least 256 bits: small late levels round up.
        if (std::abs(static_cast<double>(row.cascade_bytes) - row.model_bytes) >
            0.35 * row.model_bytes + 32.0 * row.levels)
          why = "size far from the model";
        if (std::abs(rate - expect) > 3 * sd + 1e-3)
          why = absl::StrFormat("strangers' revoked rate %.5f, expected %.5f",
                                rate, expect);
        if (!why.empty()) {
          std::cerr << "revocation_filter_size: --check: |S| " << row.valid
                    << " ratio " << ratio << ": " << why << "\n";
          failed = true;
        }
      }
      rows.push_back(row);
      std::cerr << absl::StrFormat(
          "|S| %zu |R| %zu: %zu levels, %zu bytes, build %.2f s\n", row.valid,
          row.revoked, row.levels, row.bytes, row.build_s);
    }
  }

  std::string csv =
      "valid,revoked,ratio,levels,file_bytes,cascade_bytes,"
      "cascade_bytes_per_revoked,model_bytes,"
      "build_s,lookup_ns,exact_errors,first_level_fp,strangers,"
      "strangers_said_revoked,stranger_fp_rate,expected_stranger_fp_rate,"
      "strangers_past_coverage_covered\n";
  std::string txt = absl::StrFormat(
      "%8s %8s %7s %6s %10s %10s %7s %10s %8s %7s %6s %9s %9s %9s\n", "|S|",
      "|R|", "|R|/|S|", "levels", "file B", "levels B", "B/rev", "model B",
      "build s", "look ns", "errors", "stranger", "expected", "covered");
  txt += absl::StrFormat(
      "%8s %8s %7s %6s %10s %10s %7s %10s %8s %7s %6s %9s %9s %9s\n", "", "",
      "", "", "", "", "", "", "", "", "R u S", "FP rate", "(2/3)p1",
      "past cov.");
  for (const Row& r : rows) {
    const double fp = static_cast<double>(r.strangers_revoked) /
                      static_cast<double>(r.strangers);
    absl::StrAppend(
        &csv,
        absl::StrFormat(
            "%zu,%zu,%g,%zu,%zu,%zu,%.3f,%.0f,%.3f,%.0f,%zu,%.6f,"
            "%zu,%zu,%.6f,%.6f,%zu\n",
            r.valid, r.revoked, r.ratio, r.levels, r.bytes, r.cascade_bytes,
            static_cast<double>(r.cascade_bytes) / r.revoked, r.model_bytes,
            r.build_s, r.lookup_ns, r.exact_errors, r.p1, r.strangers,
            r.strangers_revoked, fp, 2.0 / 3.0 * r.p1, r.strangers_covered));
    absl::StrAppend(
        &txt,
        absl::StrFormat("%8zu %8zu %7g %6zu %10zu %10zu %7.2f %10.0f %8.2f "
                        "%7.0f %6zu %9.5f %9.5f %9zu\n",
                        r.valid, r.revoked, r.ratio, r.levels, r.bytes,
                        r.cascade_bytes,
                        static_cast<double>(r.cascade_bytes) / r.revoked,
                        r.model_bytes, r.build_s, r.lookup_ns, r.exact_errors,
                        fp, 2.0 / 3.0 * r.p1, r.strangers_covered));
  }
  std::cout << txt;
  if (!out_dir.empty()) {
    if (out_dir[0] != '/') {
      const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
      if (ws) out_dir = absl::StrCat(ws, "/", out_dir);
    }
    if (!MakeDirs(out_dir)) {
      std::cerr << "revocation_filter_size: cannot create " << out_dir << "\n";
      return 1;
    }
    for (const auto& [name, text] :
         {std::pair<std::string, std::string>{"filter_size.csv", csv},
          {"filter_size.txt", txt}}) {
      std::ofstream out(out_dir + "/" + name,
                        std::ios::binary | std::ios::trunc);
      out << text;
      out.close();
      if (!out) {
        std::cerr << "revocation_filter_size: cannot write " << out_dir << "/"
                  << name << "\n";
        return 1;
      }
    }
  }
  return failed ? 3 : 0;
}
