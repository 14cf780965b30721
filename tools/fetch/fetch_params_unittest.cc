// MakeNetworkContextParams: flags to parameters, and the flags whose value
// no parser accepts.

#include "tools/fetch/fetch_params.h"

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(FetchParamsTest, MapsTheCommandLine) {
  absl::StatusOr<FetchOptions> parsed = ParseFetchOptions(
      {"--spdy", "--max-time", "7", "--revocation", "hard", "--obc", "ecdsa",
       "--obc-scope", "etld", "--bundle-sources", "dns,cdn", "--private",
       "--no-cookies", "--max-conns-per-host", "2", "--prefetch",
       "other.test:8443", "https://a.test:4443/", "http://b.test/"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const FetchOptions& options = *parsed;
  absl::StatusOr<NetworkContextParams> params = MakeNetworkContextParams(
      options,
      {*Url::Parse("https://a.test:4443/"), *Url::Parse("http://b.test/")});
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_EQ(params->session.ssl_config.alpn_protos,
            (std::vector<std::string>{"spdy/3", "http/1.1"}));
  EXPECT_EQ(params->session.request_timeout, absl::Seconds(7));
  EXPECT_EQ(params->session.max_sockets_per_group, 2u);
  EXPECT_EQ(params->revocation, RevocationPolicy::Mode::kHardFail);
  EXPECT_EQ(params->obc_algorithm, KeyAlgorithm::kEcdsaP256);
  EXPECT_EQ(params->obc_scope, ScopeMode::kRegistrableDomain);
  EXPECT_EQ(params->bundle_sources,
            (std::vector<BundleSourceType>{BundleSourceType::kDns,
                                           BundleSourceType::kCdn}));
  EXPECT_TRUE(params->private_profile);
  EXPECT_FALSE(params->cookies);
  // Bundles are prefetched for the https URLs' ports, and --prefetch's.
  EXPECT_EQ(params->prefetch_ports.at("a.test"), 4443);
  EXPECT_EQ(params->prefetch_ports.at("other.test"), 8443);
  EXPECT_EQ(params->prefetch_ports.count("b.test"), 0u);
  EXPECT_EQ(params->session.connect_wait, ConnectWaitPolicy::kAlways);
  parsed = ParseFetchOptions({"--connect-wait", "known", "https://a.test/"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  params = MakeNetworkContextParams(*parsed, {*Url::Parse("https://a.test/")});
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_EQ(params->session.connect_wait, ConnectWaitPolicy::kKnownMultiplexed);
}

TEST(FetchParamsTest, Http3SwitchesTheSessionToQuic) {
  absl::StatusOr<FetchOptions> plain = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<NetworkContextParams> off =
      MakeNetworkContextParams(*plain, {*Url::Parse("https://a.test/")});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->session.http3);
  EXPECT_EQ(off->session.quic.idle_timeout, absl::Seconds(30));

  absl::StatusOr<FetchOptions> h3 =
      ParseFetchOptions({"--http3", "--h3-alt-svc", "--quic-idle-timeout",
                         "1.5", "https://a.test/"});
  ASSERT_TRUE(h3.ok()) << h3.status();
  absl::StatusOr<NetworkContextParams> on =
      MakeNetworkContextParams(*h3, {*Url::Parse("https://a.test/")});
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_TRUE(on->session.http3);
  EXPECT_TRUE(on->session.alt_svc_h3);
  EXPECT_FALSE(off->session.alt_svc_h3);
  EXPECT_EQ(on->session.quic.idle_timeout, absl::Milliseconds(1500));
  EXPECT_FALSE(
      ParseFetchOptions({"--quic-idle-timeout", "0", "https://a/"}).ok());
}

TEST(FetchParamsTest, NamesTheFlagOfAnUnknownValue) {
  struct {
    std::vector<std::string> args;
    const char* flag;
  } cases[] = {{{"--revocation", "maybe"}, "--revocation"},
               {{"--obc", "dsa"}, "--obc"},
               {{"--obc", "ecdsa", "--obc-scope", "galaxy"}, "--obc-scope"},
               {{"--bundle-sources", "carrier-pigeon"}, "--bundle-sources"}};
  for (auto& c : cases) {
    FetchOptions options;
    options.revocation = "soft";
    for (size_t i = 0; i + 1 < c.args.size(); i += 2) {
      if (c.args[i] == "--revocation") options.revocation = c.args[i + 1];
      if (c.args[i] == "--obc") options.obc = c.args[i + 1];
      if (c.args[i] == "--obc-scope") options.obc_scope = c.args[i + 1];
      if (c.args[i] == "--bundle-sources")
        options.bundle_sources = c.args[i + 1];
    }
    absl::StatusOr<NetworkContextParams> params =
        MakeNetworkContextParams(options, {});
    ASSERT_FALSE(params.ok()) << c.flag;
    EXPECT_NE(params.status().message().find(c.flag), std::string::npos)
        << params.status();
  }
}

}  // namespace
}  // namespace net
