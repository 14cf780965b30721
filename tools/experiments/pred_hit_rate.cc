// pred_hit_rate: reproduces Stevens & Chen's hit-rate comparison (their
// Figure 1) on the ad-traffic model of ad_traffic_model.h, for FIFO, LRU,
// RR, PRED and Belady's offline optimum, over a range of cache sizes.
//
//   bazel run //tools/experiments:pred_hit_rate -- --clients 20000 --out DIR
//
// Writes DIR/hit_rate.csv (policy,cache_size,hit_rate) and DIR/hit_rate.svg,
// prints the model's sanity figures and PRED's gap to OPT at each size.
// See tools/experiments/README.md.

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "net/session_cache/trace_replay.h"
#include "tools/experiments/ad_traffic_model.h"
#include "tools/experiments/hit_rate_svg.h"

namespace {

constexpr char kUsage[] = R"(usage: pred_hit_rate [flags]
  --clients N        devices c (default 20000)
  --out DIR          write DIR/hit_rate.csv and DIR/hit_rate.svg (relative to the
                     workspace under bazel run)
  --seed N           trace and RR seed (default 1)
  --ways W           set-associative caches of W ways (default: fully associative)
  --sizes N,N,...    cache sizes in sessions (default: 0.5% to 10% of c in 0.5%
                     steps, and 12%)
  --duration-s S     simulated time T (default 600)
  --grace-s S        PRED's grace period (default 2)
  --check            exit 3 unless PRED is above FIFO, LRU and RR at every size below
                     the mean of sessions in use and within 0.005 of the best of them
                     above it, and FIFO and LRU collapse (below a third of PRED's
                     hit rate) at sizes under 3/4 of the devices running at once
                     (fully associative only)
Exit codes: 0 done, 1 cannot write output, 2 bad flags, 3 --check failed.
)";

[[noreturn]] void BadFlag(const std::string& message) {
  std::cerr << "pred_hit_rate: " << message << "\n" << kUsage;
  std::exit(2);
}

const net::EvictionPolicy kPolicies[] = {
    net::EvictionPolicy::kFifo, net::EvictionPolicy::kLru,
    net::EvictionPolicy::kRandom, net::EvictionPolicy::kPred,
    net::EvictionPolicy::kBelady};

const char* Color(net::EvictionPolicy p) {
  switch (p) {
    case net::EvictionPolicy::kFifo:
      return "#1f77b4";
    case net::EvictionPolicy::kLru:
      return "#ff7f0e";
    case net::EvictionPolicy::kRandom:
      return "#2ca02c";
    case net::EvictionPolicy::kPred:
      return "#d62728";
    case net::EvictionPolicy::kBelady:
      return "#555555";
  }
  return "black";
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "pred_hit_rate: cannot write " << path << "\n";
    return false;
  }
  return true;
}

bool MakeDirs(const std::string& dir) {
  std::string partial;
  for (const auto& part : absl::StrSplit(dir, '/')) {
    partial += std::string(part) + "/";
    if (part.empty()) continue;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  net::AdTrafficParams params;
  std::string out_dir;
  size_t ways = 0;
  std::vector<size_t> sizes;
  double grace_s = 2;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) BadFlag(flag + " needs a value");
      return argv[++i];
    };
    auto number = [&]() {
      double n;
      std::string v = value();
      if (!absl::SimpleAtod(v, &n) || n < 0)
        BadFlag(flag + " needs a non-negative number");
      return n;
    };
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (flag == "--clients") {
      params.clients = static_cast<uint32_t>(number());
    } else if (flag == "--out") {
      out_dir = value();
    } else if (flag == "--seed") {
      params.seed = static_cast<uint64_t>(number());
    } else if (flag == "--ways") {
      ways = static_cast<size_t>(number());
    } else if (flag == "--sizes") {
      for (const auto& part : absl::StrSplit(value(), ',', absl::SkipEmpty())) {
        size_t n;
        if (!absl::SimpleAtoi(part, &n) || n == 0)
          BadFlag("--sizes needs positive integers");
        sizes.push_back(n);
      }
    } else if (flag == "--duration-s") {
      params.duration = absl::Seconds(number());
    } else if (flag == "--grace-s") {
      grace_s = number();
      params.grace = absl::Seconds(grace_s);
    } else if (flag == "--check") {
      check = true;
    } else {
      BadFlag("unknown flag '" + flag + "'");
    }
  }
  if (params.clients == 0) BadFlag("--clients must be positive");
  if (params.duration <= absl::ZeroDuration())
    BadFlag("--duration-s must be positive");
  const double c = params.clients;
  if (sizes.empty()) {
    // 0.5% of c to 10% in steps of 0.5%, then 12%: the interesting part is
    // around the ~4% of devices running at once and ~6% of sessions in use.
    for (int permille = 5; permille <= 100; permille += 5) {
      sizes.push_back(std::max<size_t>(
          1, static_cast<size_t>(std::lround(permille * c / 1000))));
    }
    sizes.push_back(
        std::max<size_t>(1, static_cast<size_t>(std::lround(0.12 * c))));
  }
  if (ways > 0) {
    for (size_t& n : sizes) n = std::max(ways, (n + ways / 2) / ways * ways);
  }
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  net::AdTraffic traffic = net::GenerateAdTraffic(params);
  const net::AdTrafficStats& st = traffic.stats;
  const double p =
      absl::FDivDuration(params.mean_run, params.mean_run + params.mean_wait);
  std::cout << absl::StrFormat(
      "pred_hit_rate: %u clients, T = %.0f s, run %.0f s / wait %.0f s "
      "(means), grace %.1f s, "
      "seed %d, %s\n",
      params.clients, absl::ToDoubleSeconds(params.duration),
      absl::ToDoubleSeconds(params.mean_run),
      absl::ToDoubleSeconds(params.mean_wait), grace_s, params.seed,
      ways ? absl::StrCat(ways, "-way set associative") : "fully associative");
  std::cout << absl::StrFormat(
      "trace: %d requests, %d counted (each device's first left out), %d "
      "devices active\n",
      st.requests, st.counted, st.devices_seen);
  std::cout << absl::StrFormat(
      "sanity: devices running at once  mean %.4fc  sd %.4fc  peak %.4fc   "
      "(paper: ~0.04c, sd "
      "~0.005c; binomial sd sqrt(p(1-p)/c) = %.4fc)\n",
      st.running_mean, st.running_sd, st.running_peak,
      std::sqrt(p * (1 - p) / c));
  std::cout << absl::StrFormat(
      "sanity: sessions in use          mean %.4fc  peak %.4fc              "
      "(paper: ~0.065c at "
      "the peak)\n",
      st.in_use_mean, st.in_use_peak);

  std::map<net::EvictionPolicy, std::vector<double>> rates;
  for (net::EvictionPolicy policy : kPolicies) {
    for (size_t n : sizes) {
      net::SessionCacheConfig config;
      config.policy = policy;
      config.capacity = n;
      config.ways = ways;
      config.grace = params.grace;
      config.seed = params.seed;
      auto r = net::Replay(traffic.trace, config);
      if (!r.ok()) BadFlag(std::string(r.status().message()));
      rates[policy].push_back(r->hit_rate());
    }
  }

  std::cout
      << "\n  size  size/c    fifo     lru      rr    pred     opt  pred-opt\n";
  std::string csv = "policy,cache_size,hit_rate\n";
  for (net::EvictionPolicy policy : kPolicies) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      absl::StrAppend(&csv, net::EvictionPolicyName(policy), ",", sizes[i], ",",
                      absl::StrFormat("%.6f", rates[policy][i]), "\n");
    }
  }
  bool ok = true;
  std::string failures;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::string line = absl::StrFormat("%6d  %6.3f", sizes[i], sizes[i] / c);
    for (net::EvictionPolicy policy : kPolicies) {
      absl::StrAppend(&line, absl::StrFormat("  %6.4f", rates[policy][i]));
    }
    double pred = rates[net::EvictionPolicy::kPred][i];
    absl::StrAppend(
        &line, absl::StrFormat("  %+8.4f",
                               pred - rates[net::EvictionPolicy::kBelady][i]));
    std::cout << line << "\n";
    // Once the cache holds the sessions in use (on average), the misses left
    // are devices back from a wait (exponential, so memoryless): no online
    // policy can tell which stopped device returns first, and PRED (evicting
    // the least recently used overdue session) ties LRU there.
    const bool holds_all_in_use = sizes[i] >= st.in_use_mean * c;
    const double tolerance = holds_all_in_use ? 0.005 : 0;
    for (net::EvictionPolicy other :
         {net::EvictionPolicy::kFifo, net::EvictionPolicy::kLru,
          net::EvictionPolicy::kRandom}) {
      if (!(pred + tolerance > rates[other][i])) {
        ok = false;
        absl::StrAppend(&failures, "  size ", sizes[i], ": pred ", pred,
                        " is not above ", net::EvictionPolicyName(other), " ",
                        rates[other][i], holds_all_in_use ? " - 0.005" : "",
                        "\n");
      }
    }
    // Set-associative caches spread a cyclic pattern over many small sets,
    // which softens the collapse; it is checked on fully associative ones.
    if (ways == 0 && sizes[i] < 0.75 * st.running_mean * c) {
      for (net::EvictionPolicy collapsing :
           {net::EvictionPolicy::kFifo, net::EvictionPolicy::kLru}) {
        if (rates[collapsing][i] > pred / 3) {
          ok = false;
          absl::StrAppend(&failures, "  size ", sizes[i], ": ",
                          net::EvictionPolicyName(collapsing), " ",
                          rates[collapsing][i], " did not collapse (pred ",
                          pred, ")\n");
        }
      }
    }
  }
  std::cout << "(pred-opt: PRED's hit rate minus Belady's offline optimum on "
               "the same trace)\n";

  if (!out_dir.empty()) {
    if (out_dir[0] != '/') {
      const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
      if (ws) out_dir = absl::StrCat(ws, "/", out_dir);
    }
    if (!MakeDirs(out_dir)) {
      std::cerr << "pred_hit_rate: cannot create " << out_dir << "\n";
      return 1;
    }
    std::vector<net::HitRateSeries> series;
    for (net::EvictionPolicy policy : kPolicies) {
      net::HitRateSeries s{std::string(net::EvictionPolicyName(policy)),
                           Color(policy),
                           policy == net::EvictionPolicy::kBelady};
      for (size_t i = 0; i < sizes.size(); ++i) {
        s.points.push_back({static_cast<double>(sizes[i]), rates[policy][i]});
      }
      series.push_back(std::move(s));
    }
    std::vector<net::HitRateMarker> markers = {
        {st.running_mean * c,
         absl::StrFormat("running at once %.3fc", st.running_mean)},
        {st.in_use_peak * c,
         absl::StrFormat("in use, peak %.3fc", st.in_use_peak)},
    };
    std::string title = absl::StrFormat(
        "Session cache hit rate, ad traffic, c = %u%s", params.clients,
        ways ? absl::StrCat(", ", ways, "-way") : std::string());
    std::string svg =
        net::HitRateSvg(title, "cache size (sessions)", series, markers);
    if (!WriteFile(out_dir + "/hit_rate.csv", csv) ||
        !WriteFile(out_dir + "/hit_rate.svg", svg)) {
      return 1;
    }
    std::cout << "wrote " << out_dir << "/hit_rate.csv and " << out_dir
              << "/hit_rate.svg\n";
  }
  if (check) {
    if (!ok) {
      std::cout << "CHECK FAILED:\n" << failures;
      return 3;
    }
    std::cout << "CHECK: pred is above fifo, lru and rr at every size below "
                 "the mean of sessions "
                 "in use (and within 0.005 of them above it); fifo and lru "
                 "collapse below 3/4 "
                 "of the devices running at once\n";
  }
  return 0;
}
