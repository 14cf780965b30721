// MakeNetworkContextParams: flags to parameters, and the flags whose value
// no parser accepts.

#include "tools/fetch/fetch_params.h"

#include "absl/strings/escaping.h"
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

TEST(FetchParamsTest, RevocationFilterFlags) {
  absl::StatusOr<FetchOptions> parsed =
      ParseFetchOptions({"--revocation", "filter", "--revocation-filter", "/f",
                         "--revocation-stash", "/s1", "--revocation-stash",
                         "/s2", "https://a.test/"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<NetworkContextParams> params =
      MakeNetworkContextParams(*parsed, {*Url::Parse("https://a.test/")});
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_EQ(params->revocation, RevocationPolicy::Mode::kFilter);
  EXPECT_EQ(params->revocation_filter_file, "/f");
  EXPECT_EQ(params->revocation_stash_files,
            (std::vector<std::string>{"/s1", "/s2"}));
  EXPECT_FALSE(
      ParseFetchOptions({"--revocation", "bloom", "https://a.test/"}).ok());
}

TEST(FetchParamsTest, EchAndHttpsRecords) {
  auto params_for = [](std::vector<std::string> args) {
    args.push_back("https://a.test/");
    absl::StatusOr<FetchOptions> parsed = ParseFetchOptions(args);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<NetworkContextParams> params =
        MakeNetworkContextParams(*parsed, {*Url::Parse("https://a.test/")});
    EXPECT_TRUE(params.ok()) << params.status();
    return *params;
  };
  // The defaults, as Chrome: HTTPS records asked, ECH on with GREASE.
  NetworkContextParams p = params_for({});
  EXPECT_TRUE(p.https_records);
  EXPECT_FALSE(params_for({"--no-https-rr"}).https_records);
  EXPECT_TRUE(params_for({"--no-https-rr", "--https-rr"}).https_records);
  // A record offering h3 sends requests over HTTP/3 with --h3-https-rr
  // (not yet by default: no racing), never with --http1.1.
  EXPECT_FALSE(p.h3_from_https_records);
  EXPECT_TRUE(params_for({"--h3-https-rr"}).h3_from_https_records);
  EXPECT_FALSE(
      params_for({"--h3-https-rr", "--http1.1"}).h3_from_https_records);
  EXPECT_EQ(p.session.ssl_config.ech_mode, EchMode::kOn);
  EXPECT_TRUE(p.session.ssl_config.ech_grease);
  EXPECT_EQ(p.session.ssl_config.ech_config_list, "");
  p = params_for({"--no-https-rr", "--ech", "false", "--no-ech-grease"});
  EXPECT_FALSE(p.https_records);
  EXPECT_EQ(p.session.ssl_config.ech_mode, EchMode::kOff);
  EXPECT_FALSE(p.session.ssl_config.ech_grease);
  EXPECT_EQ(params_for({"--ech", "grease"}).session.ssl_config.ech_mode,
            EchMode::kGrease);
  EXPECT_EQ(params_for({"--ech", "hard"}).session.ssl_config.ech_mode,
            EchMode::kHard);
  // ecl: a configuration for every origin (a draft-13 one with X25519).
  const std::string list =
      std::string("\x00\x34\xfe\x0d\x00\x30\x01\x00\x20\x00\x20", 11) +
      std::string(32, 'k') + std::string("\x00\x04\x00\x01\x00\x01\x20", 7) +
      std::string("\x01p\x00\x00", 4);
  p = params_for({"--ech", "ecl:" + absl::Base64Escape(list)});
  EXPECT_EQ(p.session.ssl_config.ech_mode, EchMode::kOn);
  EXPECT_EQ(p.session.ssl_config.ech_config_list, list);

  // Bad values name the flag.
  for (const char* bad : {"maybe", "ecl:", "ecl:!!!", "pn:public.test"}) {
    absl::StatusOr<FetchOptions> parsed =
        ParseFetchOptions({"--ech", bad, "https://a.test/"});
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("--ech"), std::string::npos);
  }
  // Base64 that is no ECHConfigList: refused when the parameters are made.
  absl::StatusOr<FetchOptions> parsed = ParseFetchOptions(
      {"--ech", "ecl:" + absl::Base64Escape("nonsense"), "https://a.test/"});
  ASSERT_TRUE(parsed.ok());
  absl::StatusOr<NetworkContextParams> params =
      MakeNetworkContextParams(*parsed, {});
  ASSERT_FALSE(params.ok());
  EXPECT_NE(params.status().message().find("--ech"), std::string::npos);
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
