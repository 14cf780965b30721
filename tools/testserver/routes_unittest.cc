// The routes HTTP/1.1 and SPDY/3 share (routes.h): the generated body, the
// docroot (no way out of it), and the channel-bound cookie verdicts.

#include "tools/testserver/routes.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace net {
namespace {

TEST(RoutesTest, GeneratedBodyAtAnyOffset) {
  const std::string line =
      "netstack test body 0123456789 abcdefghijklmnopqrstuvwxyz\n";
  std::string expected;
  while (expected.size() < 300000) expected += line;
  for (int64_t offset : {0, 1, 56, 57, 65536, 70001}) {
    std::string out;
    AppendGenerated(&out, offset, 200000);
    EXPECT_TRUE(out == expected.substr(offset, 200000)) << offset;
  }
}

TEST(RoutesTest, GeneratedPaths) {
  int64_t n = -1;
  bool chunked = true;
  EXPECT_TRUE(ParseGeneratedPath("/size/10", &n, &chunked));
  EXPECT_EQ(10, n);
  EXPECT_FALSE(chunked);
  EXPECT_TRUE(ParseGeneratedPath("/chunked/0", &n, &chunked));
  EXPECT_EQ(0, n);
  EXPECT_TRUE(chunked);
  EXPECT_TRUE(ParseGeneratedPath("/size/1073741824", &n, &chunked));
  EXPECT_FALSE(ParseGeneratedPath("/size/1073741825", &n, &chunked));
  EXPECT_FALSE(ParseGeneratedPath("/size/-1", &n, &chunked));
  EXPECT_FALSE(ParseGeneratedPath("/size/x", &n, &chunked));
  EXPECT_FALSE(ParseGeneratedPath("/sized/1", &n, &chunked));
}

TEST(RoutesTest, Docroot) {
  std::string root = ::testing::TempDir() + "/routes_docroot";
  std::remove((root + "/a.json").c_str());
  ASSERT_EQ(0, system(("mkdir -p " + root + "/dir").c_str()));
  std::ofstream(root + "/a.json") << "{}";
  std::ofstream(root + "/dir/index.html") << "<p>";
  RouteResponse r = ServeDocroot(root, "/a.json");
  EXPECT_EQ(200, r.status);
  EXPECT_EQ("application/json", r.content_type);
  EXPECT_EQ("{}", r.body);
  r = ServeDocroot(root, "/dir");
  EXPECT_EQ(200, r.status);
  EXPECT_EQ("text/html; charset=utf-8", r.content_type);
  EXPECT_EQ("<p>", r.body);
  EXPECT_EQ(404, ServeDocroot(root, "/missing").status);
  r = ServeDocroot(root, "/dir/../a.json");
  EXPECT_EQ(403, r.status);
  EXPECT_EQ("forbidden\n", r.body);
}

TEST(RoutesTest, NamedFiles) {
  const std::string file = ::testing::TempDir() + "/routes_named.bin";
  std::remove(file.c_str());
  const std::map<std::string, std::string> files = {
      {"/.well-known/cert-bundle", file}};
  EXPECT_FALSE(ServeNamedFile(files, "/other").has_value());
  EXPECT_FALSE(ServeNamedFile(files, "/.well-known/cert-bundle/x").has_value());
  // Named but not written yet (the world writes bundles after start-up).
  auto r = ServeNamedFile(files, "/.well-known/cert-bundle");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(404, r->status);
  std::ofstream(file, std::ios::binary) << std::string("CB\0\1", 4);
  r = ServeNamedFile(files, "/.well-known/cert-bundle");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(200, r->status);
  EXPECT_EQ(std::string("CB\0\1", 4), r->body);
}

TEST(RoutesTest, ChannelBoundCookies) {
  ChannelBoundCookies cookies;
  std::string spki(32, 'a'), other(32, 'b');
  ObcRequest request;
  request.path = "/obc/login";
  request.spki = spki;
  request.spki_owner = "this connection's OBC";
  request.login_without_obc = "none\n";
  ObcResult login = RouteChannelBound(cookies, request);
  ASSERT_TRUE(login.response);
  EXPECT_EQ(200, login.response->status);
  EXPECT_EQ("issued", login.cookie);
  std::string cookie = login.response->set_cookie;
  ASSERT_TRUE(absl::StartsWith(cookie, "obc_session="));
  EXPECT_TRUE(absl::EndsWith(cookie, "; Secure; HttpOnly; Path=/"));
  request.cookie_header = "x=1; " + cookie.substr(0, cookie.find(';'));

  request.path = "/obc/whoami";
  ObcResult whoami = RouteChannelBound(cookies, request);
  ASSERT_TRUE(whoami.response);
  EXPECT_EQ(200, whoami.response->status);
  EXPECT_EQ("accepted", whoami.cookie);
  EXPECT_EQ(HexEncode(spki), whoami.bound_to_hex);

  request.path = "/size/1";
  ObcResult other_route = RouteChannelBound(cookies, request);
  EXPECT_FALSE(other_route.response);
  EXPECT_EQ("accepted", other_route.cookie);

  request.spki = other;
  ObcResult mismatch = RouteChannelBound(cookies, request);
  ASSERT_TRUE(mismatch.response);
  EXPECT_EQ(403, mismatch.response->status);
  EXPECT_EQ("mismatch", mismatch.cookie);
  EXPECT_TRUE(absl::StrContains(mismatch.response->body,
                                "this connection's OBC is " + HexEncode(other)))
      << mismatch.response->body;
  request.spki.clear();
  EXPECT_EQ("no_obc", RouteChannelBound(cookies, request).cookie);

  request.cookie_header = "obc_session=bogus";
  ObcResult invalid = RouteChannelBound(cookies, request);
  ASSERT_TRUE(invalid.response);
  EXPECT_EQ(403, invalid.response->status);
  EXPECT_EQ("invalid", invalid.cookie);

  request.cookie_header.clear();
  request.path = "/obc/login";
  ObcResult no_obc = RouteChannelBound(cookies, request);
  ASSERT_TRUE(no_obc.response);
  EXPECT_EQ(403, no_obc.response->status);
  EXPECT_EQ("none\n", no_obc.response->body);
  EXPECT_EQ("", no_obc.cookie);
  request.path = "/obc/whoami";
  EXPECT_EQ(401, RouteChannelBound(cookies, request).response->status);
}

}  // namespace
}  // namespace net
