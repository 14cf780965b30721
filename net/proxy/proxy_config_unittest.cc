// ProxyServer::Parse (curl's proxy syntax), ProxyBypassRules (curl's
// no_proxy rules), ProxyConfig::FromEnvironment / FromCurlOptions (curl's
// variables and flags, their precedence) and ProxyFor.

#include "net/proxy/proxy_config.h"

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace net {
namespace {

Url U(const char* text) { return *Url::Parse(text); }

TEST(ProxyServerTest, ParsesCurlForms) {
  struct Case {
    const char* text;
    const char* host;
    uint16_t port;
    const char* user;
    const char* password;
    bool credentials;
  } cases[] = {
      {"http://proxy.example:3128", "proxy.example", 3128, "", "", false},
      {"proxy.example:3128", "proxy.example", 3128, "", "", false},
      {"proxy.example", "proxy.example", 1080, "", "", false},  // curl's port
      {"http://proxy.example", "proxy.example", 1080, "", "", false},
      {"http://proxy.example/", "proxy.example", 1080, "", "", false},
      {"HTTP://PROXY.Example:80", "proxy.example", 80, "", "", false},
      {"  http://p:8080  ", "p", 8080, "", "", false},
      {"http://127.0.0.1:8888", "127.0.0.1", 8888, "", "", false},
      {"http://[::1]:8888", "::1", 8888, "", "", false},
      {"[2001:DB8::1]", "2001:db8::1", 1080, "", "", false},
      {"http://user:pass@p:1", "p", 1, "user", "pass", true},
      {"user@p", "p", 1080, "user", "", true},
      {"http://us%40er:p%3Ass%25@p:2", "p", 2, "us@er", "p:ss%", true},
      {"http://a:b@c@p:3", "p", 3, "a", "b@c", true},  // the last '@'
      {"http://u:@p", "p", 1080, "u", "", true},
      {"http://p:65535", "p", 65535, "", "", false},
      {"http://xn--bcher-kva.example", "xn--bcher-kva.example", 1080, "", "",
       false},
      {"http://b\xC3\xBC"
       "cher.example",
       "xn--bcher-kva.example", 1080, "", "", false},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ProxyServer> p = ProxyServer::Parse(c.text);
    ASSERT_TRUE(p.ok()) << c.text << ": " << p.status();
    EXPECT_EQ(p->host(), c.host) << c.text;
    EXPECT_EQ(p->port(), c.port) << c.text;
    EXPECT_EQ(p->username(), c.user) << c.text;
    EXPECT_EQ(p->password(), c.password) << c.text;
    EXPECT_EQ(p->has_credentials(), c.credentials) << c.text;
  }
}

TEST(ProxyServerTest, RefusesMalformed) {
  for (const char* text : {
           "",
           "   ",
           "http://",
           "http://:3128",
           "http://p:",
           "http://p:0",
           "http://p:65536",
           "http://p:-1",
           "http://p:+80",
           "http://p:80x",
           "http://p:0x50",
           "http://p:3128/path",
           "http://p:3128?q",
           "http://p:3128#f",
           "http://::1:3128",  // IPv6 needs brackets
           "http://[::1",
           "http://[::1]x",
           "http://[not-v6]:1",
           "http://p q:1",
           "http://p\r\nX-Injected: 1",
           "http://p\t:1",
           "http://@p",        // empty user
           "http://u%zz:p@p",  // bad percent-encoding
           "http://u:p%4@p",   // truncated percent-encoding
           "ftp://p:21",       // not a proxy scheme
           "gopher://p",
           "http://p%00:1",
           "http://exa mple.com",
       }) {
    absl::StatusOr<ProxyServer> p = ProxyServer::Parse(text);
    EXPECT_FALSE(p.ok()) << "accepted '" << text << "'";
    if (!p.ok()) {
      EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << text;
      EXPECT_TRUE(absl::StartsWith(p.status().message(), "proxy '"))
          << p.status();
    }
  }
}

TEST(ProxyServerTest, RefusesSchemesNotSpokenWithAClearError) {
  for (const char* text : {"https://p:443", "socks4://p", "socks4a://p",
                           "socks5://p:1080", "SOCKS5H://p"}) {
    absl::StatusOr<ProxyServer> p = ProxyServer::Parse(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented) << text;
  }
  EXPECT_TRUE(
      absl::StrContains(ProxyServer::Parse("socks5://p").status().message(),
                        "SOCKS proxies are not supported"));
  EXPECT_TRUE(
      absl::StrContains(ProxyServer::Parse("https://p").status().message(),
                        "HTTPS proxies (TLS to the proxy) are not supported"));
}

TEST(ProxyServerTest, ErrorsNeverQuoteThePassword) {
  absl::StatusOr<ProxyServer> p =
      ProxyServer::Parse("http://alice:s3cret@p:99999");
  ASSERT_FALSE(p.ok());
  EXPECT_FALSE(absl::StrContains(p.status().message(), "s3cret")) << p.status();
  EXPECT_TRUE(absl::StrContains(p.status().message(), "alice:***@p:99999"))
      << p.status();
}

TEST(ProxyServerTest, PrintsWithoutCredentials) {
  ProxyServer p = *ProxyServer::Parse("http://u:pw@[::1]:3128");
  EXPECT_EQ(p.ToString(), "http://[::1]:3128");
  EXPECT_EQ(p.HostPort(), "[::1]:3128");
  // RFC 7617: base64("u:pw").
  EXPECT_EQ(p.BasicAuthorization(), "Basic dTpwdw==");
  EXPECT_EQ(ProxyServer::Parse("p")->BasicAuthorization(), "");
  // curl's own example: Aladdin / open sesame (RFC 7617 section 2).
  EXPECT_EQ(ProxyServer::Parse("http://Aladdin:open%20sesame@p")
                ->BasicAuthorization(),
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
}

TEST(ProxyBypassRulesTest, CurlsNameRules) {
  ProxyBypassRules rules = *ProxyBypassRules::Parse("example.com");
  // curl's documented cases: the name itself and hosts under it.
  EXPECT_TRUE(rules.Matches("example.com", 80));
  EXPECT_TRUE(rules.Matches("www.example.com", 443));
  EXPECT_TRUE(rules.Matches("a.b.example.com", 443));
  EXPECT_FALSE(rules.Matches("notexample.com", 80));
  EXPECT_FALSE(rules.Matches("example.com.othertld", 80));
  EXPECT_FALSE(rules.Matches("example.co", 80));
  // Case-insensitive, trailing dots ignored on both sides.
  EXPECT_TRUE(rules.Matches("WWW.Example.COM", 80));
  EXPECT_TRUE(rules.Matches("www.example.com.", 80));
  EXPECT_TRUE((*ProxyBypassRules::Parse("EXAMPLE.com."))
                  .Matches("www.example.com", 80));
  // A leading dot is the same rule (curl ignores it).
  ProxyBypassRules dotted = *ProxyBypassRules::Parse(".example.com");
  EXPECT_TRUE(dotted.Matches("example.com", 80));
  EXPECT_TRUE(dotted.Matches("foo.example.com", 80));
  EXPECT_FALSE(dotted.Matches("fooexample.com", 80));
}

TEST(ProxyBypassRulesTest, ListsStarAndEmpty) {
  ProxyBypassRules rules = *ProxyBypassRules::Parse(
      " localhost, .internal.test ,,10.0.0.0/8\t"
      "[::1] 192.168.1.7");
  EXPECT_TRUE(rules.Matches("localhost", 80));
  EXPECT_TRUE(rules.Matches("a.internal.test", 443));
  EXPECT_TRUE(rules.Matches("10.200.3.4", 80));
  EXPECT_TRUE(rules.Matches("::1", 80));
  EXPECT_TRUE(rules.Matches("[::1]", 80));
  EXPECT_TRUE(rules.Matches("192.168.1.7", 80));
  EXPECT_FALSE(rules.Matches("192.168.1.8", 80));
  EXPECT_FALSE(rules.Matches("11.0.0.1", 80));
  EXPECT_FALSE(rules.Matches("example.com", 80));
  EXPECT_EQ(rules.ToString(),
            "localhost,internal.test,10.0.0.0/8,[::1],192.168.1.7");

  ProxyBypassRules all = *ProxyBypassRules::Parse("*");
  EXPECT_TRUE(all.match_all());
  EXPECT_TRUE(all.Matches("anything.example", 1));
  EXPECT_TRUE(ProxyBypassRules::Parse(" * ")->match_all());

  ProxyBypassRules none = *ProxyBypassRules::Parse("");
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.Matches("localhost", 80));
  EXPECT_TRUE(ProxyBypassRules::Parse(" , ,")->empty());
}

TEST(ProxyBypassRulesTest, AddressesAndCidr) {
  ProxyBypassRules rules = *ProxyBypassRules::Parse(
      "127.0.0.1,192.168.0.0/16,fe80::/10,2001:db8::1,0x7f.0.0.2");
  EXPECT_TRUE(rules.Matches("127.0.0.1", 80));
  EXPECT_TRUE(rules.Matches("127.0.0.2", 80));  // 0x7f.0.0.2, canonicalized
  EXPECT_FALSE(rules.Matches("127.0.0.3", 80));
  EXPECT_TRUE(rules.Matches("192.168.44.1", 80));
  EXPECT_FALSE(rules.Matches("192.169.0.1", 80));
  EXPECT_TRUE(rules.Matches("fe80::1", 80));
  EXPECT_TRUE(rules.Matches("febf::1", 80));
  EXPECT_FALSE(rules.Matches("fec0::1", 80));
  EXPECT_TRUE(rules.Matches("2001:db8::1", 80));
  EXPECT_TRUE(rules.Matches("2001:0db8:0:0::1", 80));
  EXPECT_FALSE(rules.Matches("2001:db8::2", 80));
  // An address rule never matches a name, nor a name rule an address.
  EXPECT_FALSE(rules.Matches("localhost", 80));
  EXPECT_FALSE((*ProxyBypassRules::Parse("0.1")).Matches("127.0.0.1", 80));
  // Families do not mix.
  EXPECT_FALSE((*ProxyBypassRules::Parse("0.0.0.0/0")).Matches("::1", 80));
  EXPECT_TRUE((*ProxyBypassRules::Parse("0.0.0.0/0")).Matches("8.8.8.8", 80));
  EXPECT_TRUE((*ProxyBypassRules::Parse("10.1.2.3/31")).Matches("10.1.2.2", 1));
  EXPECT_FALSE(
      (*ProxyBypassRules::Parse("10.1.2.3/31")).Matches("10.1.2.4", 1));
  EXPECT_TRUE((*ProxyBypassRules::Parse("[fe80::]/10")).Matches("fe80::9", 1));
}

TEST(ProxyBypassRulesTest, Ports) {
  ProxyBypassRules rules =
      *ProxyBypassRules::Parse("example.com:8080,127.0.0.1:9000,[::1]:443");
  EXPECT_TRUE(rules.Matches("www.example.com", 8080));
  EXPECT_FALSE(rules.Matches("www.example.com", 80));
  EXPECT_TRUE(rules.Matches("127.0.0.1", 9000));
  EXPECT_FALSE(rules.Matches("127.0.0.1", 9001));
  EXPECT_TRUE(rules.Matches("::1", 443));
  EXPECT_FALSE(rules.Matches("::1", 80));
  EXPECT_TRUE(rules.Matches(U("http://www.example.com:8080/x")));
  EXPECT_FALSE(rules.Matches(U("http://www.example.com/x")));
  EXPECT_EQ(rules.ToString(), "example.com:8080,127.0.0.1:9000,[::1]:443");
}

TEST(ProxyBypassRulesTest, RefusesMalformed) {
  for (const char* list : {
           "a.com,*",        // '*' only as the whole list (curl's rule)
           "*.example.com",  // no wildcards but the lone '*'
           "example.com:",
           "example.com:0",
           "example.com:70000",
           "example.com:http",
           "10.0.0.0/33",
           "10.0.0.0/",
           "10.0.0.0/-1",
           "10.0.0.0/8x",
           "example.com/8",
           "fe80::/129",
           "[::1",
           "[::1]x",
           "[10.0.0.1]",
           "gg::1",
           ".",
           "..",
           "..&",  // the fuzzer's: printed as ".&", reparsed as "&"
           "..example.com",
           "A...",      // printed as "a.", reparsed as "a"
           "%2coommO",  // decoded to ",coommo": two entries once printed
           "\xc2\xa7\xc2\xad.\xc2\xad.\xc2\xad",  // soft hyphens: labels IDNA
                                                  // empties
           "a\xef\xbc\x8c"
           "b.example",  // a fullwidth comma, ',' after IDNA
           "example.com..",
           "exa%mple.com",
           "a/b/c",
       }) {
    absl::StatusOr<ProxyBypassRules> rules = ProxyBypassRules::Parse(list);
    EXPECT_FALSE(rules.ok()) << "accepted '" << list << "'";
    if (!rules.ok()) {
      EXPECT_EQ(rules.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_TRUE(absl::StartsWith(rules.status().message(), "no_proxy entry"))
          << rules.status();
    }
  }
}

// A fake environment.
class Env {
 public:
  explicit Env(std::map<std::string, std::string> vars)
      : vars_(std::move(vars)) {}
  // getenv's shape; a ProxyConfig::GetEnv refers to this object.
  const char* operator()(const char* name) const {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : it->second.c_str();
  }

 private:
  std::map<std::string, std::string> vars_;
};

std::string Describe(const absl::StatusOr<ProxyConfig>& config) {
  return config.ok() ? config->ToString()
                     : std::string(config.status().message());
}

TEST(ProxyConfigTest, DirectByDefault) {
  ProxyConfig config;
  EXPECT_TRUE(config.is_direct());
  EXPECT_EQ(config.ProxyFor(U("http://a.test/")), nullptr);
  EXPECT_EQ(config.ProxyFor(U("https://a.test/")), nullptr);
  EXPECT_EQ(config.ToString(), "direct");
  Env empty({});
  EXPECT_EQ(Describe(ProxyConfig::FromEnvironment(empty)), "direct");
}

TEST(ProxyConfigTest, CurlsVariables) {
  struct Case {
    std::map<std::string, std::string> env;
    const char* expected;
  } cases[] = {
      {{{"http_proxy", "h:1"}}, "http: http://h:1, https: direct"},
      // HTTP_PROXY is never read (httpoxy).
      {{{"HTTP_PROXY", "h:1"}}, "direct"},
      {{{"HTTP_PROXY", "h:1"}, {"ALL_PROXY", "a:3"}},
       "http: http://a:3, https: http://a:3"},
      {{{"https_proxy", "s:2"}}, "http: direct, https: http://s:2"},
      {{{"HTTPS_PROXY", "s:2"}}, "http: direct, https: http://s:2"},
      // Lower case first.
      {{{"https_proxy", "lower:2"}, {"HTTPS_PROXY", "upper:2"}},
       "http: direct, https: http://lower:2"},
      {{{"all_proxy", "a:3"}}, "http: http://a:3, https: http://a:3"},
      {{{"ALL_PROXY", "a:3"}}, "http: http://a:3, https: http://a:3"},
      {{{"all_proxy", "lower:3"}, {"ALL_PROXY", "upper:3"}},
       "http: http://lower:3, https: http://lower:3"},
      // The scheme's own variable wins over all_proxy.
      {{{"all_proxy", "a:3"}, {"https_proxy", "s:2"}},
       "http: http://a:3, https: http://s:2"},
      // An empty value is unset (curl_getenv).
      {{{"https_proxy", ""}, {"HTTPS_PROXY", "s:2"}},
       "http: direct, https: http://s:2"},
      {{{"http_proxy", ""}, {"all_proxy", "a:3"}},
       "http: http://a:3, https: http://a:3"},
      {{{"http_proxy", "h:1"}, {"no_proxy", "localhost,.test"}},
       "http: http://h:1, https: direct, no_proxy: localhost,test"},
      {{{"http_proxy", "h:1"}, {"NO_PROXY", "x.test"}},
       "http: http://h:1, https: direct, no_proxy: x.test"},
      {{{"http_proxy", "h:1"}, {"no_proxy", "a.test"}, {"NO_PROXY", "b.test"}},
       "http: http://h:1, https: direct, no_proxy: a.test"},
      // Errors name the variable.
      {{{"https_proxy", "socks5://s"}},
       "https_proxy: proxy 'socks5://s': SOCKS proxies are not supported; "
       "only http:// proxies"},
      {{{"ALL_PROXY", "a:99999"}},
       "ALL_PROXY: proxy 'a:99999': bad port '99999' (1 to 65535)"},
      {{{"http_proxy", "h:1"}, {"NO_PROXY", "10.0.0.0/40"}},
       "NO_PROXY: no_proxy entry '10.0.0.0/40': bad prefix length (0 to 32)"},
  };
  for (Case& c : cases) {
    Env env(c.env);
    EXPECT_EQ(Describe(ProxyConfig::FromEnvironment(env)), c.expected);
  }
}

TEST(ProxyConfigTest, CurlsFlagsOverTheEnvironment) {
  Env env({{"http_proxy", "envh:1"},
           {"https_proxy", "envs:2"},
           {"no_proxy", "skip.test"}});
  // --proxy replaces the variables, for both schemes; no_proxy still holds.
  EXPECT_EQ(Describe(ProxyConfig::FromCurlOptions("flag:9", std::nullopt, env)),
            "http: http://flag:9, https: http://flag:9, no_proxy: skip.test");
  // --proxy "" turns every proxy off.
  EXPECT_EQ(Describe(ProxyConfig::FromCurlOptions("", std::nullopt, env)),
            "direct");
  // --noproxy replaces no_proxy; "" bypasses nothing.
  EXPECT_EQ(
      Describe(ProxyConfig::FromCurlOptions(std::nullopt, "other.test", env)),
      "http: http://envh:1, https: http://envs:2, no_proxy: other.test");
  EXPECT_EQ(Describe(ProxyConfig::FromCurlOptions(std::nullopt, "", env)),
            "http: http://envh:1, https: http://envs:2");
  EXPECT_EQ(
      Describe(ProxyConfig::FromCurlOptions("socks5://x", std::nullopt, env)),
      "--proxy: proxy 'socks5://x': SOCKS proxies are not supported; "
      "only http:// proxies");
  EXPECT_EQ(Describe(ProxyConfig::FromCurlOptions(std::nullopt, "a,*", env)),
            "--noproxy: no_proxy entry '*': '*' must be the whole list");
}

TEST(ProxyConfigTest, ProxyForPicksBySchemeAndBypass) {
  Env env({{"http_proxy", "http://u:p@hp:1"},
           {"https_proxy", "sp:2"},
           {"no_proxy", "direct.test,127.0.0.1"}});
  ProxyConfig config = *ProxyConfig::FromEnvironment(env);
  const ProxyServer* p = config.ProxyFor(U("http://a.test/x"));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->ToString(), "http://hp:1");
  EXPECT_TRUE(p->has_credentials());
  p = config.ProxyFor(U("https://a.test/x"));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->ToString(), "http://sp:2");
  EXPECT_EQ(config.ProxyFor(U("https://www.direct.test/")), nullptr);
  EXPECT_EQ(config.ProxyFor(U("http://127.0.0.1:8080/")), nullptr);
  EXPECT_NE(config.ProxyFor(U("http://127.0.0.2/")), nullptr);

  ProxyConfig all = ProxyConfig::ForAll(*ProxyServer::Parse("p:3"));
  EXPECT_NE(all.ProxyFor(U("http://a/")), nullptr);
  all.bypass = *ProxyBypassRules::Parse("*");
  EXPECT_EQ(all.ProxyFor(U("http://a/")), nullptr);
  EXPECT_EQ(all.ProxyFor(U("https://a/")), nullptr);
}

}  // namespace
}  // namespace net
