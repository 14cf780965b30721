#include "dns/dns_response.h"

#include "absl/strings/str_cat.h"
#include "dns/fake_dns_server.h"
#include "gtest/gtest.h"

namespace net {
namespace {

FakeDnsQuery Query(const char* name, uint16_t type) {
  FakeDnsQuery q;
  q.id = 0x1234;
  q.name = name;
  q.qtype = type;
  return q;
}

TEST(DnsResponseTest, ParsesAnswersTxtAndSoa) {
  std::string txt_rdata =
      std::string("\x06hello ", 7) + std::string("\x05world", 6);
  std::string msg = FakeDnsServer::BuildResponse(
      Query("t.example.test", 16), 0,
      {{16, 300, txt_rdata}, {16, 300, std::string("\x03two", 4)}});
  auto r = ParseDnsResponse(msg);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->id, 0x1234);
  ASSERT_EQ(r->answers.size(), 2u);
  EXPECT_EQ(r->answers[0].text, "hello world");
  EXPECT_EQ(r->answers[1].text, "two");
  EXPECT_EQ(r->answers[0].name, "t.example.test");

  auto nx = ParseDnsResponse(
      FakeDnsServer::BuildResponse(Query("n.test", 1), 3, {}, 60, 10));
  ASSERT_TRUE(nx.ok());
  EXPECT_EQ(nx->rcode, 3);
  EXPECT_EQ(nx->NegativeTtl(), 10u);
}

TEST(DnsResponseTest, FollowsCompressionPointersAndStopsLoops) {
  // Header + question "a.test" at offset 12, then an answer whose name is a
  // pointer to offset 12.
  std::string msg("\x12\x34\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00", 12);
  msg += std::string(
             "\x01"
             "a"
             "\x04"
             "test"
             "\x00",
             8) +
         std::string("\x00\x01\x00\x01", 4);
  msg += std::string(
      "\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x7f\x00\x00\x01", 16);
  auto r = ParseDnsResponse(msg);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->answers[0].name, "a.test");
  EXPECT_EQ(r->answers[0].address->ToString(), "127.0.0.1");
  // A pointer to itself.
  std::string loop = msg;
  loop[12] = '\xc0';
  loop[13] = '\x0c';
  EXPECT_FALSE(ParseDnsResponse(loop).ok());
}

TEST(DnsResponseTest, AnswersForFollowTheCnameChainAndNothingElse) {
  // www.a.test -> cdn.b.test -> edge.c.test (A), plus records of names the
  // question did not ask about, a CNAME elsewhere, and a loop at x/y.
  std::string msg = FakeDnsServer::BuildResponse(
      Query("www.a.test", 1), 0,
      {{1, 300, FakeDnsServer::ARecord(192, 0, 2, 66), "evil.test"},
       {5, 50, FakeDnsServer::CnameRecord("cdn.b.test")},
       {5, 40, FakeDnsServer::CnameRecord("edge.c.test"), "cdn.b.test"},
       {5, 5, FakeDnsServer::CnameRecord("www.a.test"), "other.test"},
       {1, 60, FakeDnsServer::ARecord(198, 18, 0, 1), "edge.c.test"},
       {1, 60, FakeDnsServer::ARecord(198, 18, 0, 2), "EDGE.c.test"},
       {16, 60, std::string("\x02hi", 3), "edge.c.test"}});
  auto r = ParseDnsResponse(msg);
  ASSERT_TRUE(r.ok()) << r.status();
  uint32_t cname_ttl = UINT32_MAX;
  std::vector<const DnsRecord*> a = r->AnswersFor("www.a.test", 1, &cname_ttl);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0]->address->ToString(), "198.18.0.1");
  EXPECT_EQ(a[1]->address->ToString(), "198.18.0.2");  // names are lower case
  EXPECT_EQ(cname_ttl, 40u);  // the chain's CNAMEs only
  EXPECT_EQ(r->AnswersFor("www.a.test", 16).size(), 1u);
  // The name asked in another case, or with the root's dot, is the same.
  EXPECT_EQ(r->AnswersFor("WWW.A.Test.", 1).size(), 2u);
  // Asked for another name, the chain starts there.
  ASSERT_EQ(r->AnswersFor("evil.test", 1).size(), 1u);
  EXPECT_TRUE(r->AnswersFor("unasked.test", 1).empty());

  // A CNAME loop ends the chain; a chain longer than the limit is cut.
  std::vector<FakeDnsAnswer> loop = {
      {5, 60, FakeDnsServer::CnameRecord("y.test"), "x.test"},
      {5, 60, FakeDnsServer::CnameRecord("x.test"), "y.test"},
      {1, 60, FakeDnsServer::ARecord(198, 18, 0, 3), "y.test"}};
  auto l = ParseDnsResponse(
      FakeDnsServer::BuildResponse(Query("x.test", 1), 0, loop));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->AnswersFor("x.test", 1).size(), 1u);  // y is on the chain
  std::vector<FakeDnsAnswer> longer;
  for (int i = 0; i <= DnsResponse::kMaxCnameChain; ++i) {
    longer.push_back(
        {5, 60, FakeDnsServer::CnameRecord(absl::StrCat("c", i + 1, ".test")),
         absl::StrCat("c", i, ".test")});
  }
  longer.push_back({1, 60, FakeDnsServer::ARecord(198, 18, 0, 4),
                    absl::StrCat("c", DnsResponse::kMaxCnameChain, ".test")});
  longer.push_back(
      {1, 60, FakeDnsServer::ARecord(198, 18, 0, 5),
       absl::StrCat("c", DnsResponse::kMaxCnameChain + 1, ".test")});
  auto c = ParseDnsResponse(
      FakeDnsServer::BuildResponse(Query("c0.test", 1), 0, longer));
  ASSERT_TRUE(c.ok());
  std::vector<const DnsRecord*> cut = c->AnswersFor("c0.test", 1);
  ASSERT_EQ(cut.size(), 1u);  // kMaxCnameChain hops, not one more
  EXPECT_EQ(cut[0]->address->ToString(), "198.18.0.4");
}

// A response with no question and the A records of |owners| (wire-form
// names), the nth record's address 198.18.0.n+1.
std::string ResponseOwning(const std::vector<std::string>& owners) {
  std::string msg("\x12\x34\x81\x80\x00\x00\x00\x00\x00\x00\x00\x00", 12);
  msg[7] = static_cast<char>(owners.size());
  for (size_t i = 0; i < owners.size(); ++i) {
    msg += owners[i];
    msg +=
        std::string("\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\xc6\x12\x00", 13);
    msg += static_cast<char>(i + 1);
  }
  return msg;
}

TEST(DnsResponseTest, ALabelWithADotCannotPassForTwoLabels) {
  // The one label "a.b", the two labels "a" and "b", the one label ".", the
  // root, and the one label "a" + backslash.
  auto r = ParseDnsResponse(
      ResponseOwning({std::string("\x03"
                                  "a.b\x00",
                                  5),
                      std::string("\x01"
                                  "a\x01"
                                  "b\x00",
                                  5),
                      std::string("\x01.\x00", 3), std::string("\x00", 1),
                      std::string("\x02"
                                  "a\\\x00",
                                  4)}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->answers.size(), 5u);
  EXPECT_EQ(r->answers[0].name, "a\\.b");
  EXPECT_EQ(r->answers[1].name, "a.b");
  EXPECT_EQ(r->answers[2].name, "\\.");
  EXPECT_EQ(r->answers[3].name, "");
  EXPECT_EQ(r->answers[4].name, "a\\\\");
  auto only = [&](absl::string_view qname) {
    std::vector<const DnsRecord*> a = r->AnswersFor(qname, kDnsTypeA);
    return a.size() == 1 ? a[0]->address->ToString() : "not one answer";
  };
  EXPECT_EQ(only("a.b"), "198.18.0.2");
  EXPECT_EQ(only("a.b."), "198.18.0.2");
  EXPECT_EQ(only(r->answers[0].name), "198.18.0.1");
  // An escaped '.' is not the root's, so the label "." is not the root.
  EXPECT_EQ(only(r->answers[2].name), "198.18.0.3");
  EXPECT_EQ(only("."), "198.18.0.4");
  EXPECT_EQ(only(r->answers[4].name), "198.18.0.5");
  EXPECT_EQ(only("a\\\\."),
            "198.18.0.5");  // an escaped backslash, then the root
}

TEST(DnsResponseTest, NamesAreAtMost255BytesOnTheWire) {
  const std::string label63 = '\x3f' + std::string(63, 'x');
  const std::string three = label63 + label63 + label63;
  // 3 x 64 + 62 + the root's byte: 255.
  auto fits = ParseDnsResponse(ResponseOwning(
      {three + '\x3d' + std::string(61, 'y') + std::string(1, '\0')}));
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(fits->answers[0].name.size(), 3 * 64 + 61u);
  // One byte more.
  EXPECT_FALSE(
      ParseDnsResponse(ResponseOwning({three + '\x3e' + std::string(62, 'y') +
                                       std::string(1, '\0')}))
          .ok());
}

TEST(DnsResponseTest, KeepsHttpsRdataRawEvenWhenMalformed) {
  // An HTTPS record (type 65) beside an A record: its RDATA is kept as it
  // came; one that would not parse as HTTPS (a truncated SvcParam) does not
  // make the message unreadable.
  const std::string https("\x00\x01\x00\x00\x03\x00\x02\x01", 8);
  std::string msg = FakeDnsServer::BuildResponse(
      Query("h.test", 65), 0,
      {{65, 300, https}, {1, 60, FakeDnsServer::ARecord(1, 2, 3, 4)}});
  auto r = ParseDnsResponse(msg);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->answers.size(), 2u);
  EXPECT_EQ(r->answers[0].type, kDnsTypeHttps);
  EXPECT_EQ(r->answers[0].rdata, https);
  EXPECT_EQ(r->answers[1].rdata, "");
}

TEST(DnsResponseTest, RejectsMalformed) {
  std::string good = FakeDnsServer::BuildResponse(
      Query("a.test", 1), 0, {{1, 1, FakeDnsServer::ARecord(1, 2, 3, 4)}});
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_FALSE(ParseDnsResponse(good.substr(0, cut)).ok()) << cut;
  }
  std::string query = good;
  query[2] = 0;  // QR bit clear: a query, not a response
  EXPECT_FALSE(ParseDnsResponse(query).ok());
}

}  // namespace
}  // namespace net
