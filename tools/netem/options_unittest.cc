#include "tools/netem/options.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace netem {
namespace {

absl::StatusOr<Options> Parse(std::vector<std::string> args) {
  std::vector<const char*> argv = {"netem"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data());
}

TEST(OptionsTest, ParsesForwardsAndRtt) {
  absl::StatusOr<Options> options =
      Parse({"--tcp", "127.0.0.1:0=127.0.0.1:443",
             "--udp=localhost:5353=[::1]:53", "--rtt-ms", "0.5",
             "--jitter-ms=2", "--rate-kbps", "1600", "--seed", "7"});
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_EQ(options->forwards.size(), 2u);
  EXPECT_EQ(options->forwards[0].protocol, Protocol::kTcp);
  EXPECT_EQ(options->forwards[0].listen.ToString(), "127.0.0.1:0");
  EXPECT_EQ(options->forwards[0].target.ToString(), "127.0.0.1:443");
  EXPECT_EQ(options->forwards[1].protocol, Protocol::kUdp);
  EXPECT_EQ(options->forwards[1].listen.ToString(), "127.0.0.1:5353");
  EXPECT_EQ(options->forwards[1].target.ToString(), "[::1]:53");
  EXPECT_EQ(options->link.up_delay_ns, 250'000);
  EXPECT_EQ(options->link.down_delay_ns, 250'000);
  EXPECT_EQ(options->link.jitter_ns, 2'000'000);
  EXPECT_EQ(options->link.rate_bps, 1'600'000);
  EXPECT_EQ(options->link.seed, 7u);
  EXPECT_FALSE(options->help);
}

TEST(OptionsTest, AsymmetricDelays) {
  absl::StatusOr<Options> options =
      Parse({"--tcp", "127.0.0.1:1=127.0.0.1:2", "--up-delay-ms", "15",
             "--down-delay-ms", "5"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->link.up_delay_ns, 15'000'000);
  EXPECT_EQ(options->link.down_delay_ns, 5'000'000);
  EXPECT_EQ(options->link.rate_bps, 0);
}

TEST(OptionsTest, Help) {
  absl::StatusOr<Options> options = Parse({"--help"});
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->help);
  EXPECT_NE(UsageText().find("--rtt-ms"), std::string::npos);
}

TEST(OptionsTest, RejectsBadCommandLines) {
  const std::vector<std::vector<std::string>> bad = {
      {},                                         // no forward
      {"--rtt-ms", "10"},                         // no forward
      {"--tcp"},                                  // missing value
      {"--tcp", "127.0.0.1:80"},                  // no '='
      {"--tcp", "127.0.0.1:0=127.0.0.1:0"},       // target port 0
      {"--tcp", "127.0.0.1:70000=127.0.0.1:80"},  // port range
      {"--tcp", "example.com:1=127.0.0.1:80"},    // names
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "--bogus", "1"},
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "stray"},
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "--rtt-ms", "-1"},
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "--rtt-ms", "10ms"},
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "--rtt-ms", "nan"},
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "--rtt-ms", "10", "--up-delay-ms",
       "5"},
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "--rate-kbps", "0"},
      {"--tcp", "127.0.0.1:1=127.0.0.1:80", "--seed", "-3"},
  };
  for (const auto& args : bad) {
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    absl::StatusOr<Options> options = Parse(args);
    EXPECT_FALSE(options.ok()) << "accepted: " << joined;
    if (!options.ok()) {
      EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_FALSE(options.status().message().empty());
    }
  }
}

}  // namespace
}  // namespace netem
