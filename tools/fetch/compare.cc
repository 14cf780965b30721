#include "tools/fetch/compare.h"

#include <algorithm>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/timing/phases.h"
#include "tools/fetch/exit_codes.h"
#include "tools/fetch/messages.h"

namespace net {
namespace {

// The rows, from the phases HAR and the waterfall show too
// (net/timing/phases.h): milliseconds, or -1 when the phase did not happen.
struct Phase {
  const char* name;
  double (*ms)(const RequestPhases& p);
};

double Ms(const PhaseInterval& phase) {
  return phase.present ? absl::ToDoubleMilliseconds(phase.duration()) : -1;
}

const Phase kPhases[] = {
    {"dns", [](const RequestPhases& p) { return Ms(p.dns); }},
    {"tcp",
     [](const RequestPhases& p) {
       return p.connect.present ? absl::ToDoubleMilliseconds(
                                      p.connect.duration() - p.ssl.duration())
                                : -1.0;
     }},
    {"tls", [](const RequestPhases& p) { return Ms(p.ssl); }},
    {"request_to_first_byte",
     [](const RequestPhases& p) { return Ms(p.wait); }},
    {"download", [](const RequestPhases& p) { return Ms(p.receive); }},
    {"total",
     [](const RequestPhases& p) {
       return p.failed ? -1.0 : absl::ToDoubleMilliseconds(p.total());
     }},
};

struct Stats {
  int n = 0;
  double median = 0, min = 0, max = 0;
};

Stats Summarize(std::vector<double> v) {
  Stats s;
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return x < 0; }),
          v.end());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = static_cast<int>(v.size());
  s.median = v.size() % 2 ? v[v.size() / 2]
                          : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitFlags(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        current += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(current));
      current.clear();
      in_word = false;
    } else {
      current += c;
      in_word = true;
    }
  }
  if (quote)
    return absl::InvalidArgumentError(
        absl::StrCat("unbalanced quote in '", text, "'"));
  if (in_word) out.push_back(std::move(current));
  return out;
}

int RunCompare(const FetchOptions& options,
               const std::vector<std::string>& args, CompareRunFn run,
               std::ostream& out) {
  std::vector<std::string> common;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--compare") {
      i += 2;
    } else if (args[i] == "--runs" || args[i] == "--compare-out") {
      ++i;
    } else {
      common.push_back(args[i]);
    }
  }
  std::vector<std::vector<std::string>> sides;
  for (const std::string& flags : options.compare) {
    absl::StatusOr<std::vector<std::string>> split = SplitFlags(flags);
    if (!split.ok())
      return ReportError(options,
                         absl::StrCat("--compare: ", split.status().message()),
                         kExitUsage);
    std::vector<std::string> side = *split;
    side.insert(side.end(), common.begin(), common.end());
    // The bodies are not the point; errors still print.
    side.insert(side.end(), {"-s", "-S"});
    for (size_t u = 0; u < options.urls.size(); ++u)
      side.insert(side.end(), {"-o", "/dev/null"});
    absl::StatusOr<FetchOptions> parsed = ParseFetchOptions(side);
    if (!parsed.ok())
      return ReportError(
          options,
          absl::StrCat("--compare '", flags, "': ", parsed.status().message()),
          kExitUsage);
    sides.push_back(side);
  }
  std::vector<LoadTiming> results[2];
  int failures[2] = {0, 0};
  for (int r = 0; r < options.compare_runs; ++r) {
    for (int side = 0; side < 2; ++side) {
      std::vector<LoadTiming> completed;
      int rc = run(*ParseFetchOptions(sides[side]), &completed);
      if (rc != 0 || completed.empty()) {
        ++failures[side];
        continue;
      }
      // The last transfer of the run: with --repeat, the warm one.
      results[side].push_back(completed.back());
    }
  }
  out << absl::StrFormat("%-22s %28s %28s %8s\n", "phase (ms)",
                         "A: median (min-max)", "B: median (min-max)", "B/A");
  std::string csv =
      "phase,a_runs,a_median_ms,a_min_ms,a_max_ms,b_runs,b_median_ms,"
      "b_min_ms,b_max_ms,ratio_b_over_a\n";
  for (const Phase& phase : kPhases) {
    Stats stats[2];
    for (int side = 0; side < 2; ++side) {
      std::vector<double> values;
      for (const LoadTiming& t : results[side])
        values.push_back(phase.ms(ComputeRequestPhases(t)));
      stats[side] = Summarize(values);
    }
    if (stats[0].n == 0 && stats[1].n == 0) continue;
    auto cell = [](const Stats& s) {
      return s.n == 0
                 ? std::string("-")
                 : absl::StrFormat("%.1f (%.1f-%.1f)", s.median, s.min, s.max);
    };
    std::string ratio =
        stats[0].n && stats[1].n && stats[0].median > 0
            ? absl::StrFormat("%.2f", stats[1].median / stats[0].median)
            : "-";
    out << absl::StrFormat("%-22s %28s %28s %8s\n", phase.name, cell(stats[0]),
                           cell(stats[1]), ratio);
    absl::StrAppend(&csv, phase.name, ",", stats[0].n, ",",
                    absl::StrFormat("%.3f,%.3f,%.3f", stats[0].median,
                                    stats[0].min, stats[0].max),
                    ",", stats[1].n, ",",
                    absl::StrFormat("%.3f,%.3f,%.3f", stats[1].median,
                                    stats[1].min, stats[1].max),
                    ",", ratio == "-" ? "" : ratio, "\n");
  }
  out << "A: " << options.compare[0] << "\nB: " << options.compare[1]
      << "\nruns: " << results[0].size() << " + " << results[1].size()
      << " (failed: " << failures[0] << " + " << failures[1] << ")\n";
  if (!options.compare_out.empty()) {
    std::ofstream file(options.compare_out);
    file << csv;
    if (!file)
      return ReportError(options,
                         absl::StrCat("cannot write ", options.compare_out),
                         kExitWriteError);
  }
  return failures[0] + failures[1] == 0 ? 0 : 1;
}

}  // namespace net
