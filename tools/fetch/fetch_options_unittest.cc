#include "tools/fetch/fetch_options.h"

#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(FetchOptionsTest, ParsesFlags) {
  auto o = ParseFetchOptions({"-v", "-H", "X-A: b", "--resolve",
                              "a.test:443:127.0.0.1", "--tls-max", "1.2",
                              "--repeat", "3", "--parallel", "6",
                              "--no-false-start", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->verbose);
  EXPECT_EQ(o->headers[0].first, "X-A");
  EXPECT_EQ(o->headers[0].second, "b");
  EXPECT_EQ(o->tls_max, 0x0303);
  EXPECT_EQ(o->repeat, 3);
  EXPECT_EQ(o->parallel, 6);
  EXPECT_FALSE(o->false_start);
  EXPECT_EQ(o->urls.size(), 1u);
}

TEST(FetchOptionsTest, CookieAndObcPoolFlags) {
  auto o = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->cookies);
  EXPECT_EQ(o->obc_pool, -1);
  o = ParseFetchOptions({"--no-cookies", "--obc", "rsa2048", "--obc-pool", "0",
                         "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->cookies);
  EXPECT_EQ(o->obc, "rsa2048");
  EXPECT_EQ(o->obc_pool, 0);
}

TEST(FetchOptionsTest, RejectsBadFlagsWithTheirName) {
  struct Case {
    std::vector<std::string> args;
    const char* mentions;
  } cases[] = {
      {{"--tls-max", "1.1", "https://a/"}, "--tls-max"},
      {{"--repeat", "0", "https://a/"}, "--repeat"},
      {{"--bogus", "https://a/"}, "--bogus"},
      {{"-H", "NoColon", "https://a/"}, "-H"},
      {{"-H", "A: b\r\nInjected: x", "https://a/"}, "-H"},
      {{"--resolve", "a:1", "https://a/"}, "--resolve"},
      {{"--tls-min", "1.3", "--tls-max", "1.2", "https://a/"}, "--tls-min"},
      {{}, "no URL"},
      {{"-o"}, "-o"},
      {{"--obc-pool", "-1", "https://a/"}, "--obc-pool"},
      {{"--obc-pool", "x", "https://a/"}, "--obc-pool"},
  };
  for (const Case& c : cases) {
    auto o = ParseFetchOptions(c.args);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find(c.mentions), std::string::npos)
        << o.status();
  }
}

TEST(FetchOptionsTest, ReadsTheWorldFile) {
  std::string path = ::testing::TempDir() + "/world.json";
  std::ofstream(path) << R"({"dir":"/x","trust_anchors":"/x/pki/root.pem",
      "resolve":["www.example.test:4443:127.0.0.11"],"default_url":"https://www.example.test:4443/",
      "connect_to":["ocsp.example.test:8888::41000"],
      "origins":{"www":{"port":4443}}})";
  auto o = ParseFetchOptions(
      {"--connect-to", "ocsp.example.test:8888::42000", "--world", path});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->trust_anchors.back(), "/x/pki/root.pem");
  EXPECT_EQ(o->resolve[0].port, 4443);
  EXPECT_EQ(o->urls[0], "https://www.example.test:4443/");
  // The command line's rule first: it wins (the first match applies).
  ASSERT_EQ(o->connect_to.size(), 2u);
  EXPECT_EQ(ConnectToRules(o->connect_to).Apply("ocsp.example.test", 8888),
            (std::pair<std::string, uint16_t>("ocsp.example.test", 42000)));
  EXPECT_FALSE(
      ParseFetchOptions({"--connect-to", "a:1:b", "https://a.test/"}).ok());

  // --revocation filter takes the world's filter unless one is named.
  std::ofstream(path) << R"({"trust_anchors":"/x/pki/root.pem",
      "default_url":"https://www.example.test/",
      "revocation_filter":{"file":"/x/filters/revocation_filter"}})";
  o = ParseFetchOptions({"--world", path, "--revocation", "filter"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->revocation_filter, "/x/filters/revocation_filter");
  o = ParseFetchOptions({"--world", path, "--revocation", "filter",
                         "--revocation-filter", "/mine"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->revocation_filter, "/mine");
  o = ParseFetchOptions({"--world", path, "--revocation", "soft"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->revocation_filter, "");

  std::ofstream(path) << "{not json";
  EXPECT_FALSE(ParseFetchOptions({"--world", path}).ok());
  EXPECT_FALSE(ParseFetchOptions({"--world", "/nonexistent.json"}).ok());
}

// -d @FILE reads with a bound: an endless file is a named error.
TEST(FetchOptionsTest, DataFileIsBounded) {
  auto o = ParseFetchOptions({"-d", "@/dev/zero", "https://a.test/"});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("-d"), std::string::npos) << o.status();
  EXPECT_NE(o.status().message().find("268435456"), std::string::npos)
      << o.status();
}

TEST(FetchOptionsTest, CurlConventions) {
  auto o =
      ParseFetchOptions({"-L", "--max-redirs", "3", "-X", "PUT", "-d", "a=1",
                         "-d", "b=2", "-s", "-S", "-w", "%{http_code}", "-o",
                         "one", "-O", "https://a.test/x", "https://b.test/y"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->follow_redirects);
  EXPECT_EQ(o->max_redirs, 3);
  EXPECT_EQ(o->method, "PUT");
  EXPECT_EQ(*o->data, "a=1&b=2");
  EXPECT_TRUE(o->silent && o->show_error && o->remote_name);
  EXPECT_EQ(o->output_files, std::vector<std::string>{"one"});
  // No --trust-anchor and no world: the system store, as curl.
  EXPECT_TRUE(o->system_trust_store);
  o = ParseFetchOptions({"--trust-anchor", "root.pem", "https://a.test/"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->system_trust_store);
  EXPECT_FALSE(
      ParseFetchOptions({"-o", "a", "-o", "b", "https://a.test/"}).ok());
  EXPECT_FALSE(ParseFetchOptions({"-X", "BAD METHOD", "https://a.test/"}).ok());
  EXPECT_FALSE(
      ParseFetchOptions({"--max-redirs", "-1", "https://a.test/"}).ok());
  o = ParseFetchOptions({"--compare", "--tls-max 1.2", "--tls-max 1.3",
                         "--runs", "4", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->compare.size(), 2u);
  EXPECT_EQ(o->compare_runs, 4);
}

TEST(FetchOptionsTest, CombinedShortFlagsAsCurl) {
  auto o = ParseFetchOptions({"-fsSL", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->fail_on_http_error && o->silent && o->show_error &&
              o->follow_redirects);
  // A valued letter ends the group: the rest, or the next argument.
  o = ParseFetchOptions({"-sofile.out", "-Lw", "%{http_code}", "a.test/x"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->output_files, std::vector<std::string>{"file.out"});
  EXPECT_EQ(o->write_out, "%{http_code}");
  EXPECT_EQ(o->urls[0], "http://a.test/x");  // a bare host is http://
  // A value is never expanded.
  o = ParseFetchOptions({"-H", "-x: y", "-A", "-fsSL", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->headers[0].first, "-x");
  EXPECT_EQ(o->user_agent, "-fsSL");
  o = ParseFetchOptions({"--user-agent", "-fsSL", "-o", "-sS", "a.test"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->user_agent, "-fsSL");
  EXPECT_EQ(o->output_files, std::vector<std::string>{"-sS"});
  EXPECT_FALSE(o->silent);
  auto bad = ParseFetchOptions({"-sQ", "https://a.test/"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("-Q"), std::string::npos);
}

TEST(FetchOptionsTest, CurlFlags) {
  auto o = ParseFetchOptions({"-i",
                              "-k",
                              "-m",
                              "7",
                              "-A",
                              "agent/1",
                              "-u",
                              "me:pw",
                              "-b",
                              "a=1; b=2",
                              "-b",
                              "jar.txt",
                              "-c",
                              "out.txt",
                              "-D",
                              "-",
                              "--cacert",
                              "root.pem",
                              "--compressed",
                              "--retry",
                              "2",
                              "--retry-delay",
                              "0",
                              "--http1.1",
                              "--no-progress-meter",
                              "-x",
                              "http://proxy.test:3128",
                              "--noproxy",
                              "a.test",
                              "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->include_headers && o->insecure && o->compressed &&
              o->http1_1_only && o->no_progress_meter);
  EXPECT_EQ(o->max_time, absl::Seconds(7));
  EXPECT_EQ(o->user_agent, "agent/1");
  EXPECT_EQ(o->user, "me:pw");
  EXPECT_EQ(o->cookie_strings, std::vector<std::string>{"a=1; b=2"});
  EXPECT_EQ(o->cookie_files, std::vector<std::string>{"jar.txt"});
  EXPECT_EQ(o->cookie_jar_file, "out.txt");
  EXPECT_EQ(o->dump_header_file, "-");
  EXPECT_EQ(o->trust_anchors, std::vector<std::string>{"root.pem"});
  EXPECT_FALSE(o->system_trust_store);  // --cacert replaces it, as curl
  EXPECT_EQ(o->retry, 2);
  EXPECT_EQ(*o->proxy, "http://proxy.test:3128");
  EXPECT_EQ(*o->no_proxy, "a.test");
  // -x "" is given (no proxy at all, as curl), unlike no -x.
  o = ParseFetchOptions({"-x", "", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->proxy, std::optional<std::string>(""));
  EXPECT_FALSE(o->no_proxy.has_value());
  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"-u", "nopassword", "https://a.test/"},
           {"--retry", "-1", "https://a.test/"},
           {"-m", "0", "https://a.test/"},
           {"--capath", "/nonexistent", "https://a.test/"},
           {"-A", "a\r\nX-Injected: 1", "https://a.test/"}}) {
    EXPECT_FALSE(ParseFetchOptions(bad).ok()) << bad[0] << " " << bad[1];
  }
}

TEST(FetchOptionsTest, EarlyDataAndCertCompression) {
  auto o = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->early_data);
  EXPECT_EQ(o->cert_compression, "brotli,zlib");
  o = ParseFetchOptions(
      {"--early-data", "--cert-compression", "zlib", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->early_data);
  EXPECT_EQ(o->cert_compression, "zlib");
  for (const char* ok : {"off", "brotli", "zlib,brotli"}) {
    EXPECT_TRUE(
        ParseFetchOptions({"--cert-compression", ok, "https://a.test/"}).ok())
        << ok;
  }
  for (const char* bad : {"gzip", "", "zlib,zlib", "brotli,"}) {
    EXPECT_FALSE(
        ParseFetchOptions({"--cert-compression", bad, "https://a.test/"}).ok())
        << bad;
  }
}

// Every flag the parser takes is in --help.
TEST(FetchOptionsTest, HelpNamesEveryFlag) {
  for (const char* flag : {"-o",
                           "--output",
                           "-O",
                           "--remote-name",
                           "-I",
                           "--head",
                           "-s",
                           "--silent",
                           "-S",
                           "--show-error",
                           "-v",
                           "--verbose",
                           "-w",
                           "--write-out",
                           "--fail",
                           "--trace-json",
                           "--trace-events",
                           "--har",
                           "--waterfall",
                           "-X",
                           "--request",
                           "-d",
                           "--data",
                           "--data-binary",
                           "-H",
                           "-L",
                           "--location",
                           "--max-redirs",
                           "--max-filesize",
                           "--max-time",
                           "--resolve",
                           "--connect-timeout",
                           "--repeat",
                           "--repeat-interval",
                           "--parallel",
                           "-Z",
                           "--concurrent",
                           "--max-conns-per-host",
                           "--world",
                           "--dns-server",
                           "--no-world-dns",
                           "--no-edns",
                           "--dns-timeout",
                           "--prefetch",
                           "--prefetch-links",
                           "--bundle-sources",
                           "--bundle-cdn",
                           "--no-bundle-prevalidation",
                           "--preconnect",
                           "--tls-min",
                           "--tls-max",
                           "--ciphers",
                           "--no-false-start",
                           "--no-coalesce",
                           "--coalesce-handshakes",
                           "--tcp-fast-open",
                           "--early-data",
                           "--cert-compression",
                           "--snap-start",
                           "--snap-start-learn",
                           "--snap-start-probe",
                           "--trust-anchor",
                           "--system-trust",
                           "--revocation",
                           "--revocation-filter",
                           "--revocation-stash",
                           "--prevalidate",
                           "--profile",
                           "--private",
                           "--no-cookies",
                           "--obc",
                           "--obc-scope",
                           "--obc-warm",
                           "--obc-pool",
                           "--compare",
                           "--runs",
                           "--compare-out"}) {
    const std::string usage = kFetchUsage;
    const bool named =
        usage.find(std::string(flag) + " ") != std::string::npos ||
        usage.find(std::string(flag) + ",") != std::string::npos ||
        usage.find(std::string(flag) + "\n") != std::string::npos;
    EXPECT_TRUE(named) << flag;
  }
}

TEST(FetchOptionsTest, CoalescingIsOptInAndFastOpenOff) {
  auto o = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->coalesce_handshakes);
  EXPECT_FALSE(o->tcp_fast_open);
  o = ParseFetchOptions(
      {"--coalesce-handshakes", "--tcp-fast-open", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->coalesce_handshakes);
  EXPECT_TRUE(o->tcp_fast_open);
  o = ParseFetchOptions(
      {"--coalesce-handshakes", "--no-coalesce", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->coalesce_handshakes);
}

TEST(FetchOptionsTest, Spdy) {
  auto o = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->spdy);
  o = ParseFetchOptions(
      {"--spdy", "--parallel", "20", "https://a.test/", "https://b.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->spdy);
  EXPECT_EQ(o->parallel, 20);
  EXPECT_EQ(o->urls.size(), 2u);
}

TEST(FetchOptionsTest, ConcurrentAndConnectionLimit) {
  auto o = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->concurrent);
  EXPECT_EQ(o->max_conns_per_host, 6);
  o = ParseFetchOptions({"-Z", "--max-conns-per-host", "2", "https://a.test/1",
                         "https://a.test/2"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->concurrent);
  EXPECT_EQ(o->max_conns_per_host, 2);
  o = ParseFetchOptions(
      {"--concurrent", "--max-conns-per-host", "0", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->concurrent);
  EXPECT_EQ(o->max_conns_per_host, 0);
  for (const char* bad : {"-1", "x", "10001"}) {
    o = ParseFetchOptions({"--max-conns-per-host", bad, "https://a.test/"});
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_NE(o.status().message().find("--max-conns-per-host"),
              std::string::npos)
        << o.status();
  }
}

TEST(FetchOptionsTest, PriorityAndConnectWait) {
  auto o = ParseFetchOptions({"https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->priority, HIGHEST);
  EXPECT_EQ(o->connect_wait, "always");
  o = ParseFetchOptions(
      {"--priority", "LOWEST", "--connect-wait", "known", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->priority, LOWEST);
  EXPECT_EQ(o->connect_wait, "known");
  o = ParseFetchOptions({"--priority", "Throttled", "https://a.test/"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->priority, THROTTLED);
  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"--priority", "high", "https://a.test/"},
           {"--priority", "3", "https://a.test/"},
           {"--priority"},
           {"--connect-wait", "never", "https://a.test/"}}) {
    auto r = ParseFetchOptions(bad);
    EXPECT_FALSE(r.ok()) << bad[0] << " " << (bad.size() > 1 ? bad[1] : "");
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find(bad[0]), std::string::npos)
          << r.status();
    }
  }
}

}  // namespace
}  // namespace net
