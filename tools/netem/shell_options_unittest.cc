#include "tools/netem/shell_options.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace netem {
namespace {

absl::StatusOr<ShellOptions> Parse(std::vector<std::string> args) {
  std::vector<const char*> argv = {"netem", "shell"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return ParseShellCommandLine(argv.size(), argv.data());
}

TEST(ShellOptionsTest, LinkFlagsApplyToBothDirections) {
  absl::StatusOr<ShellOptions> o =
      Parse({"--rtt-ms", "100", "--rate-mbps=10", "--loss", "0.01", "--queue",
             "droptail:100", "--", "curl", "-s", "x"});
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->paths.size(), 1u);
  const PathParams& p = o->paths[0];
  EXPECT_EQ(p.name, "default");
  for (const PipeParams* d : {&p.uplink, &p.downlink}) {
    EXPECT_EQ(d->delay_ns, 50'000'000);
    EXPECT_EQ(d->rate_bps, 10e6);
    EXPECT_EQ(d->loss.kind, LossParams::Kind::kBernoulli);
    EXPECT_EQ(d->queue.limit, 100);
  }
  EXPECT_EQ(o->command, (std::vector<std::string>{"curl", "-s", "x"}));
}

TEST(ShellOptionsTest, PerDirectionAndTraces) {
  absl::StatusOr<ShellOptions> o = Parse(
      {"--uplink-delay-ms", "10", "--downlink-delay-ms", "30", "--uplink-trace",
       "tools/netem/traces/constant-12mbps.trace", "--downlink-trace",
       "tools/netem/traces/cellular-variable.trace", "--loss-burst", "0.02,4",
       "--jitter-ms", "2", "--reorder", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  const PathParams& p = o->paths[0];
  EXPECT_EQ(p.uplink.delay_ns, 10'000'000);
  EXPECT_EQ(p.downlink.delay_ns, 30'000'000);
  ASSERT_TRUE(p.uplink.trace.has_value());
  ASSERT_TRUE(p.downlink.trace.has_value());
  EXPECT_NE(p.uplink.trace->opportunities(), p.downlink.trace->opportunities());
  EXPECT_EQ(p.uplink.loss.kind, LossParams::Kind::kGilbert);
  EXPECT_EQ(p.uplink.loss.mean_burst, 4);
  EXPECT_TRUE(p.downlink.reorder);
  EXPECT_EQ(p.downlink.jitter_ns, 2'000'000);
  // The command starts at the first word that is not a flag.
  EXPECT_EQ(o->command, std::vector<std::string>{"true"});
}

TEST(ShellOptionsTest, SynDataMiddlebox) {
  absl::StatusOr<ShellOptions> o =
      Parse({"--uplink-drop-syn-data", "--duplicate-syn", "250", "--path",
             "198.18.0.9/32=drop-syn-data,rtt-ms=10", "--", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  const PathParams& d = o->paths.back();
  EXPECT_TRUE(d.uplink.drop_syn_data);
  EXPECT_FALSE(d.downlink.drop_syn_data);
  EXPECT_EQ(d.uplink.duplicate_syn_data_after_ns, 250'000'000);
  EXPECT_EQ(o->paths[0].name, "198.18.0.9/32");
  EXPECT_TRUE(o->paths[0].downlink.drop_syn_data);
  EXPECT_FALSE(Parse({"--duplicate-syn", "-1", "true"}).ok());
  EXPECT_FALSE(Parse({"--path", "198.18.0.9/32=drop-syn-data=1", "true"}).ok());
}

TEST(ShellOptionsTest, PathsInheritAndOverride) {
  absl::StatusOr<ShellOptions> o =
      Parse({"--rtt-ms", "100", "--rate-mbps", "10", "--path",
             "198.18.0.53/32=rtt-ms=40", "--path",
             "198.18.0.0/24=rtt-ms=20,loss=0.1,reorder", "--", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->paths.size(), 3u);
  // Longest prefix first, the default last.
  EXPECT_EQ(o->paths[0].name, "198.18.0.53/32");
  EXPECT_EQ(o->paths[0].prefix_len, 32);
  EXPECT_EQ(o->paths[0].prefix, 0xC6120035u);
  EXPECT_EQ(o->paths[0].uplink.delay_ns, 20'000'000);
  EXPECT_EQ(o->paths[0].uplink.rate_bps, 10e6);  // inherited
  EXPECT_EQ(o->paths[1].name, "198.18.0.0/24");
  EXPECT_EQ(o->paths[1].downlink.loss.rate, 0.1);
  EXPECT_TRUE(o->paths[1].downlink.reorder);
  EXPECT_EQ(o->paths[2].name, "default");
  EXPECT_EQ(o->paths[2].uplink.delay_ns, 50'000'000);
}

TEST(ShellOptionsTest, NamespaceSettings) {
  absl::StatusOr<ShellOptions> o =
      Parse({"--sysctl", "net.ipv4.tcp_fastopen=0x607", "--sysctl",
             "kernel.core_pattern_like=/a/b", "--initcwnd", "10",
             "--mtu", "1400", "--stats", "-", "--ready-file", "/tmp/r",
             "--quiet", "--", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->sysctls.size(), 2u);
  EXPECT_EQ(o->sysctls[1].second, "/a/b");  // a value may hold '/', a key not
  EXPECT_EQ(o->sysctls[0].first, "net.ipv4.tcp_fastopen");
  EXPECT_EQ(o->sysctls[0].second, "0x607");
  EXPECT_EQ(o->initcwnd, 10);
  EXPECT_EQ(o->mtu, 1400);
  EXPECT_EQ(o->paths[0].uplink.mtu, 1400);
  EXPECT_EQ(o->stats_file, "-");
  EXPECT_TRUE(o->quiet);
}

TEST(ShellOptionsTest, BadInputIsRefusedWithAReason) {
  const std::vector<std::vector<std::string>> bad = {
      {"--", "--rtt-ms"},  // fine flags, but ...
      {"--rtt-ms", "-1", "--", "true"},
      {"--rtt-ms", "x", "--", "true"},
      {"--loss", "1", "--", "true"},
      {"--loss-burst", "0.1", "--", "true"},
      {"--loss-burst", "0.1,0.5", "--", "true"},
      {"--loss-burst", "0.9,2", "--", "true"},  // needs bursts of 9 or more
      {"--queue", "red", "--", "true"},
      {"--trace", "f", "--", "true"},
      {"--uplink-trace", "/nonexistent", "--", "true"},
      {"--path", "198.18.0.1", "--", "true"},
      {"--path", "300.1.1.1=rtt-ms=1", "--", "true"},
      {"--path", "10.0.0.0/33=rtt-ms=1", "--", "true"},
      {"--path", "10.0.0.1=speed=1", "--", "true"},
      {"--path", "10.0.0.1=rtt-ms", "--", "true"},
      {"--sysctl", "../../etc/passwd=1", "--", "true"},
      {"--sysctl", "noequals", "--", "true"},
      {"--initcwnd", "0", "--", "true"},
      {"--mtu", "100", "--", "true"},
      {"--frobnicate", "--", "true"},
      {"--rtt-ms"},
      {"--rtt-ms", "10"},  // no command
  };
  for (size_t i = 1; i < bad.size(); ++i) {
    absl::StatusOr<ShellOptions> o = Parse(bad[i]);
    EXPECT_FALSE(o.ok()) << i;
    if (!o.ok()) {
      EXPECT_FALSE(o.status().message().empty());
    }
  }
  // The first one is valid: after --, everything is the command.
  absl::StatusOr<ShellOptions> o = Parse(bad[0]);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->command, std::vector<std::string>{"--rtt-ms"});
}

}  // namespace
}  // namespace netem
