// Compare mode's bookkeeping with a scripted runner: the flag splitting,
// each side's flags, the table and CSV, failed runs, bad flags.

#include "tools/fetch/compare.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace net {
namespace {

TEST(SplitFlagsTest, SplitsLikeAShell) {
  EXPECT_EQ(*SplitFlags("  --tls-max 1.2\t--no-false-start "),
            (std::vector<std::string>{"--tls-max", "1.2", "--no-false-start"}));
  EXPECT_EQ(*SplitFlags("-H 'X-A: 1 2' -d \"a b\"''"),
            (std::vector<std::string>{"-H", "X-A: 1 2", "-d", "a b"}));
  EXPECT_EQ(*SplitFlags("''"), std::vector<std::string>{""});
  EXPECT_TRUE(SplitFlags("").value().empty());
  EXPECT_FALSE(SplitFlags("-H 'open").ok());
}

LoadTiming Timing(int total_ms) {
  LoadTiming t;
  t.start = TimeTicks::FromMicroseconds(1000000);
  t.request_start = t.start + absl::Milliseconds(1);
  t.response_start = t.start + absl::Milliseconds(2);
  t.response_end = t.start + absl::Milliseconds(total_ms);
  return t;
}

TEST(RunCompareTest, TableAndCsv) {
  const std::string csv = ::testing::TempDir() + "/compare.csv";
  std::vector<std::string> args = {
      "--compare", "--tls-max 1.2", "--spdy", "--runs",
      "3",         "--compare-out", csv,      "https://a.test/"};
  FetchOptions options = *ParseFetchOptions(args);
  int runs = 0;
  std::ostringstream out;
  int rc = RunCompare(
      options, args,
      [&](const FetchOptions& side, std::vector<LoadTiming>* completed) {
        // Each side gets its own flags, the common ones, and silence.
        EXPECT_EQ(side.urls, std::vector<std::string>{"https://a.test/"});
        EXPECT_TRUE(side.silent && side.show_error);
        EXPECT_EQ(side.output_files, std::vector<std::string>{"/dev/null"});
        const bool b = side.spdy;
        EXPECT_EQ(side.tls_max, b ? 0x0304 : 0x0303);
        ++runs;
        completed->push_back(Timing(b ? 10 : 20));
        return 0;
      },
      out);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(runs, 6);
  EXPECT_NE(out.str().find("total"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("runs: 3 + 3 (failed: 0 + 0)"), std::string::npos)
      << out.str();
  std::ifstream file(csv);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find("total,3,20.000,20.000,20.000,3,10.000,10.000,"
                            "10.000,0.50\n"),
            std::string::npos)
      << text.str();
}

TEST(RunCompareTest, FailedRunsAndBadFlags) {
  std::vector<std::string> args = {"--compare", "--tls-max 1.2",  "", "--runs",
                                   "2",         "https://a.test/"};
  FetchOptions options = *ParseFetchOptions(args);
  std::ostringstream out;
  int rc = RunCompare(
      options, args,
      [](const FetchOptions& side, std::vector<LoadTiming>* completed) {
        return side.tls_max == 0x0303 ? 7 : 0;  // A fails; B finishes nothing
      },
      out);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.str().find("runs: 0 + 0 (failed: 2 + 2)"), std::string::npos)
      << out.str();

  args[1] = "--no-such-flag";
  options = *ParseFetchOptions(args);
  EXPECT_EQ(
      RunCompare(
          options, args,
          [](const FetchOptions&, std::vector<LoadTiming>*) { return 0; }, out),
      2);
  args[1] = "'unbalanced";
  options = *ParseFetchOptions(args);
  EXPECT_EQ(
      RunCompare(
          options, args,
          [](const FetchOptions&, std::vector<LoadTiming>*) { return 0; }, out),
      2);
}

}  // namespace
}  // namespace net
