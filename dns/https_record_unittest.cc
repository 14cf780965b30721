// ParseHttpsRdata against RFC 9460's Appendix D test vectors (the wire forms
// of D.1 and D.2, checked against the RFC's text: figure 8's address is the
// RFC's 2001:db8:122:344::192.0.2.33, not the earlier drafts'
// 2001:db8:ffff:ffff:ffff:ffff:198.51.100.100 that some test suites still
// carry), the wire forms of D.3's failure cases, and the other malformations
// section 2.2 names; the round trip through SerializeHttpsRdata; and the
// compatibility rules of sections 7.1 and 8.

#include "dns/https_record.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace net {
namespace {

// Hex with spaces, as the RFC prints it.
std::string Hex(absl::string_view spaced) {
  return absl::HexStringToBytes(absl::StrReplaceAll(spaced, {{" ", ""}}));
}

constexpr char kFooExampleCom[] =
    "03 66 6f 6f 07 65 78 61 6d 70 6c 65 03 63 6f 6d 00";
constexpr char kFooExampleOrg[] =
    "03 66 6f 6f 07 65 78 61 6d 70 6c 65 03 6f 72 67 00";

HttpsRecord ParseOk(const std::string& rdata) {
  absl::StatusOr<HttpsRecord> r = ParseHttpsRdata(rdata);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return HttpsRecord();
  // Every vector survives the round trip byte for byte (D.2's wire forms
  // are canonical: keys sorted).
  absl::StatusOr<std::string> again = SerializeHttpsRdata(*r);
  EXPECT_TRUE(again.ok()) << again.status();
  if (again.ok()) {
    EXPECT_EQ(absl::BytesToHexString(*again), absl::BytesToHexString(rdata));
  }
  return *r;
}

absl::StatusCode ParseError(const std::string& rdata, std::string* message) {
  absl::StatusOr<HttpsRecord> r = ParseHttpsRdata(rdata);
  EXPECT_FALSE(r.ok()) << HttpsRecordToString(*r);
  if (r.ok()) return absl::StatusCode::kOk;
  *message = std::string(r.status().message());
  return r.status().code();
}

// D.1, figure 2: AliasMode.
TEST(HttpsRecordTest, RfcD1AliasMode) {
  HttpsRecord r = ParseOk(Hex(absl::StrCat("00 00", kFooExampleCom)));
  EXPECT_TRUE(r.alias_mode());
  EXPECT_EQ(r.target, "foo.example.com");
  EXPECT_EQ(HttpsRecordToString(r), "0 foo.example.com.");
}

// D.2, figure 3: TargetName is ".".
TEST(HttpsRecordTest, RfcD2TargetNameIsRoot) {
  HttpsRecord r = ParseOk(Hex("00 01 00"));
  EXPECT_EQ(r.priority, 1);
  EXPECT_EQ(r.target, "");
  EXPECT_FALSE(r.port);
  EXPECT_EQ(r.AlpnSet(), std::vector<std::string>{"http/1.1"});
  EXPECT_EQ(HttpsRecordToString(r), "1 .");
}

// Figure 4: specifies a port.
TEST(HttpsRecordTest, RfcD2Port) {
  HttpsRecord r =
      ParseOk(Hex(absl::StrCat("00 10", kFooExampleCom, "00 03 00 02 00 35")));
  EXPECT_EQ(r.priority, 16);
  EXPECT_EQ(r.target, "foo.example.com");
  ASSERT_TRUE(r.port);
  EXPECT_EQ(*r.port, 53);
  EXPECT_EQ(HttpsRecordToString(r), "16 foo.example.com. port=53");
}

// Figures 5 and 6: a generic key, unquoted and with a decimal escape: kept,
// not interpreted.
TEST(HttpsRecordTest, RfcD2GenericKeysAreKept) {
  HttpsRecord r = ParseOk(
      Hex(absl::StrCat("00 01", kFooExampleCom, "02 9b 00 05 68 65 6c 6c 6f")));
  ASSERT_EQ(r.unknown_params.size(), 1u);
  EXPECT_EQ(r.unknown_params[0].first, 667);
  EXPECT_EQ(r.unknown_params[0].second, "hello");
  EXPECT_TRUE(r.HasKey(667));
  EXPECT_EQ(HttpsRecordToString(r), "1 foo.example.com. key667=\"hello\"");

  r = ParseOk(Hex(absl::StrCat("00 01", kFooExampleCom,
                               "02 9b 00 09 68 65 6c 6c 6f d2 71 6f 6f")));
  ASSERT_EQ(r.unknown_params.size(), 1u);
  EXPECT_EQ(r.unknown_params[0].second, "hello\xd2qoo");
  EXPECT_EQ(HttpsRecordToString(r),
            "1 foo.example.com. key667=\"hello\\210qoo\"");
}

// Figure 7: two IPv6 hints.
TEST(HttpsRecordTest, RfcD2TwoIpv6Hints) {
  HttpsRecord r = ParseOk(Hex(
      absl::StrCat("00 01", kFooExampleCom,
                   "00 06 00 20 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01"
                   "20 01 0d b8 00 00 00 00 00 00 00 00 00 53 00 01")));
  ASSERT_EQ(r.ipv6_hints.size(), 2u);
  EXPECT_EQ(r.ipv6_hints[0].ToString(), "2001:db8::1");
  EXPECT_EQ(r.ipv6_hints[1].ToString(), "2001:db8::53:1");
}

// Figure 8: an IPv6 hint in the embedded-IPv4 syntax
// (2001:db8:122:344::192.0.2.33), TargetName example.com.
TEST(HttpsRecordTest, RfcD2Ipv6HintWithEmbeddedIpv4) {
  HttpsRecord r = ParseOk(
      Hex("00 01 07 65 78 61 6d 70 6c 65 03 63 6f 6d 00"
          "00 06 00 10 20 01 0d b8 01 22 03 44 00 00 00 00 c0 00 02 21"));
  EXPECT_EQ(r.target, "example.com");
  ASSERT_EQ(r.ipv6_hints.size(), 1u);
  EXPECT_EQ(r.ipv6_hints[0], *IPAddress::Parse("2001:db8:122:344::c000:221"));
}

// Figure 9: keys sorted in wire form; mandatory=alpn,ipv4hint.
TEST(HttpsRecordTest, RfcD2MandatoryAlpnIpv4Hint) {
  HttpsRecord r =
      ParseOk(Hex(absl::StrCat("00 10", kFooExampleOrg,
                               "00 00 00 04 00 01 00 04"
                               "00 01 00 09 02 68 32 05 68 33 2d 31 39"
                               "00 04 00 04 c0 00 02 01")));
  EXPECT_EQ(r.target, "foo.example.org");
  EXPECT_EQ(r.mandatory,
            (std::vector<uint16_t>{kSvcParamAlpn, kSvcParamIpv4Hint}));
  EXPECT_EQ(r.alpn, (std::vector<std::string>{"h2", "h3-19"}));
  ASSERT_EQ(r.ipv4_hints.size(), 1u);
  EXPECT_EQ(r.ipv4_hints[0].ToString(), "192.0.2.1");
  EXPECT_EQ(HttpsRecordToString(r),
            "16 foo.example.org. mandatory=alpn,ipv4hint alpn=h2,h3-19 "
            "ipv4hint=192.0.2.1");
  EXPECT_EQ(r.AlpnSet(), (std::vector<std::string>{"h2", "h3-19", "http/1.1"}));
}

// Figure 10: an alpn-id with a comma and a backslash (f\oo,bar), and h2.
TEST(HttpsRecordTest, RfcD2AlpnWithCommaAndBackslash) {
  HttpsRecord r = ParseOk(
      Hex(absl::StrCat("00 10", kFooExampleOrg,
                       "00 01 00 0c 08 66 5c 6f 6f 2c 62 61 72 02 68 32")));
  EXPECT_EQ(r.alpn, (std::vector<std::string>{"f\\oo,bar", "h2"}));
}

// D.3's failure cases, in wire form.
TEST(HttpsRecordTest, RfcD3MultipleInstancesOfOneKey) {
  // key123=abc key123=def
  std::string message;
  EXPECT_EQ(ParseError(Hex(absl::StrCat("00 01", kFooExampleCom,
                                        "00 7b 00 03 61 62 63"
                                        "00 7b 00 03 64 65 66")),
                       &message),
            absl::StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("strictly increasing"), std::string::npos) << message;
}

TEST(HttpsRecordTest, RfcD3MissingValuesThatMustBeNonEmpty) {
  for (const char* key : {"00 00", "00 01", "00 03", "00 04", "00 06"}) {
    std::string message;
    EXPECT_EQ(
        ParseError(Hex(absl::StrCat("00 01", kFooExampleCom, key, "00 00")),
                   &message),
        absl::StatusCode::kInvalidArgument)
        << key;
  }
}

TEST(HttpsRecordTest, RfcD3NoDefaultAlpnWithAValue) {
  std::string message;
  EXPECT_EQ(ParseError(Hex(absl::StrCat("00 01", kFooExampleCom,
                                        "00 01 00 03 02 68 32"
                                        "00 02 00 03 61 62 63")),
                       &message),
            absl::StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("no-default-alpn has a value"), std::string::npos);
}

TEST(HttpsRecordTest, RfcD3MandatoryParamMissing) {
  // mandatory=key123 without key123: well-formed, not self-consistent.
  std::string message;
  EXPECT_EQ(ParseError(
                Hex(absl::StrCat("00 01", kFooExampleCom, "00 00 00 02 00 7b")),
                &message),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(message.find("key123"), std::string::npos) << message;
}

TEST(HttpsRecordTest, RfcD3MandatoryListsMandatory) {
  std::string message;
  EXPECT_EQ(ParseError(
                Hex(absl::StrCat("00 01", kFooExampleCom, "00 00 00 02 00 00")),
                &message),
            absl::StatusCode::kInvalidArgument);
}

TEST(HttpsRecordTest, RfcD3DuplicateKeyInMandatory) {
  std::string message;
  EXPECT_EQ(ParseError(Hex(absl::StrCat("00 01", kFooExampleCom,
                                        "00 00 00 04 00 7b 00 7b"
                                        "00 7b 00 03 61 62 63")),
                       &message),
            absl::StatusCode::kInvalidArgument);
}

TEST(HttpsRecordTest, OtherMalformations) {
  const std::string target = kFooExampleCom;
  const std::pair<const char*, std::string> cases[] = {
      {"empty RDATA", ""},
      {"priority cut short", Hex("00")},
      {"no TargetName", Hex("00 01")},
      {"TargetName cut short", Hex("00 01 03 66 6f")},
      {"compressed TargetName", Hex("00 01 c0 0c")},
      {"bad label type", Hex("00 01 40 00")},
      {"key cut short", Hex(absl::StrCat("00 01", target, "00"))},
      {"length cut short", Hex(absl::StrCat("00 01", target, "00 03 00"))},
      {"value cut short", Hex(absl::StrCat("00 01", target, "00 03 00 02 01"))},
      {"port of 3 bytes",
       Hex(absl::StrCat("00 01", target, "00 03 00 03 01 bb 00"))},
      {"ipv4hint of 5 bytes",
       Hex(absl::StrCat("00 01", target, "00 04 00 05 01 02 03 04 05"))},
      {"ipv6hint of 4 bytes",
       Hex(absl::StrCat("00 01", target, "00 06 00 04 01 02 03 04"))},
      {"alpn-id past the end",
       Hex(absl::StrCat("00 01", target, "00 01 00 03 05 68 32"))},
      {"empty alpn-id", Hex(absl::StrCat("00 01", target, "00 01 00 01 00"))},
      {"mandatory of odd size",
       Hex(absl::StrCat("00 01", target, "00 00 00 03 00 01 00"))},
      {"mandatory out of order",
       Hex(absl::StrCat("00 01", target,
                        "00 00 00 04 00 04 00 01 00 01 00 03 02 68 32 00 04 "
                        "00 04 01 02 03 04"))},
      {"keys out of order",
       Hex(absl::StrCat("00 01", target,
                        "00 03 00 02 01 bb 00 01 00 03 02 68 32"))},
      {"reserved key 65535", Hex(absl::StrCat("00 01", target, "ff ff 00 00"))},
      {"ech empty", Hex(absl::StrCat("00 01", target, "00 05 00 00"))},
      {"ech list length mismatch",
       Hex(absl::StrCat("00 01", target, "00 05 00 06 00 05 fe 0d 00 00"))},
      {"ech config past the end",
       Hex(absl::StrCat("00 01", target, "00 05 00 06 00 04 fe 0d 00 09"))},
      {"ech empty list",
       Hex(absl::StrCat("00 01", target, "00 05 00 02 00 00"))},
      {"label with a dot", Hex("00 01 03 61 2e 62 00")},
  };
  for (const auto& [what, rdata] : cases) {
    absl::StatusOr<HttpsRecord> r = ParseHttpsRdata(rdata);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << what;
    EXPECT_NE(r.status().message().find("malformed HTTPS record"),
              absl::string_view::npos)
        << what << ": " << r.status();
  }
}

TEST(HttpsRecordTest, OverlongTargetName) {
  std::string rdata = Hex("00 01");
  for (int i = 0; i < 5; ++i)
    rdata += std::string(1, 63) + std::string(63, 'a');
  rdata.push_back(0);
  absl::StatusOr<HttpsRecord> r = ParseHttpsRdata(rdata);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("longer than 255"),
            absl::string_view::npos);
}

TEST(HttpsRecordTest, AliasModeIgnoresParamsButNotMalformation) {
  // Well-formed params in AliasMode: parsed, dropped.
  HttpsRecord r;
  absl::StatusOr<HttpsRecord> parsed = ParseHttpsRdata(
      Hex(absl::StrCat("00 00", kFooExampleCom, "00 03 00 02 01 bb")));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->alias_mode());
  EXPECT_FALSE(parsed->port);
  // A value of the wrong form is not looked at...
  EXPECT_TRUE(ParseHttpsRdata(
                  Hex(absl::StrCat("00 00", kFooExampleCom, "00 03 00 01 01")))
                  .ok());
  // ...but the list itself must still be well-formed.
  EXPECT_FALSE(ParseHttpsRdata(
                   Hex(absl::StrCat("00 00", kFooExampleCom, "00 03 00 05 01")))
                   .ok());
}

TEST(HttpsRecordTest, NoDefaultAlpnNeedsAlpn) {
  std::string message;
  EXPECT_EQ(ParseError(Hex("00 01 00 00 02 00 00"), &message),
            absl::StatusCode::kFailedPrecondition);
  HttpsRecord r = ParseOk(Hex("00 01 00 00 01 00 03 02 68 33 00 02 00 00"));
  EXPECT_TRUE(r.no_default_alpn);
  EXPECT_EQ(r.AlpnSet(), std::vector<std::string>{"h3"});
}

TEST(HttpsRecordTest, EchAndTheRest) {
  HttpsRecord want;
  want.priority = 1;
  want.alpn = {"h2", "http/1.1"};
  want.port = 8443;
  want.ipv4_hints = {*IPAddress::Parse("198.18.0.30")};
  want.ech = Hex("00 08 fe 0d 00 04 01 02 03 04");
  want.ipv6_hints = {*IPAddress::Parse("::1")};
  want.unknown_params = {{9, "x"}, {65280, ""}};
  absl::StatusOr<std::string> wire = SerializeHttpsRdata(want);
  ASSERT_TRUE(wire.ok()) << wire.status();
  HttpsRecord r = ParseOk(*wire);
  EXPECT_EQ(r.ech, want.ech);
  EXPECT_EQ(HttpsRecordToString(r),
            "1 . alpn=h2,http/1.1 port=8443 ipv4hint=198.18.0.30 "
            "ech=AAj+DQAEAQIDBA== ipv6hint=::1 key9=\"x\" key65280");
}

TEST(HttpsRecordTest, Compatibility) {
  const std::vector<std::string> tls = {"h2", "http/1.1"};
  HttpsRecord r = ParseOk(Hex("00 01 00"));
  EXPECT_EQ(WhyIncompatible(r, tls), std::nullopt);
  // h3 only, no default: nothing this client speaks over TCP.
  r = ParseOk(Hex("00 01 00 00 01 00 03 02 68 33 00 02 00 00"));
  std::optional<std::string> why = WhyIncompatible(r, tls);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("h3"), std::string::npos) << *why;
  EXPECT_EQ(WhyIncompatible(r, {"h3"}), std::nullopt);
  // h3 with the default http/1.1: compatible.
  r = ParseOk(Hex("00 01 00 00 01 00 03 02 68 33"));
  EXPECT_EQ(WhyIncompatible(r, tls), std::nullopt);
  // A mandatory key this client does not implement.
  r = ParseOk(Hex("00 01 00 00 00 00 02 00 7b 00 7b 00 00"));
  why = WhyIncompatible(r, tls);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("key123"), std::string::npos) << *why;
  // Automatically mandatory keys (port, no-default-alpn) listed anyway:
  // implemented, compatible.
  r = ParseOk(Hex("00 01 00 00 00 00 02 00 03 00 03 00 02 01 bb"));
  EXPECT_EQ(WhyIncompatible(r, tls), std::nullopt);
}

TEST(HttpsRecordTest, SerializeRefusesWhatCannotBeEncoded) {
  HttpsRecord r;
  r.priority = 1;
  r.alpn = {""};
  EXPECT_FALSE(SerializeHttpsRdata(r).ok());
  r.alpn = {};
  r.target = std::string(64, 'a') + ".test";
  EXPECT_FALSE(SerializeHttpsRdata(r).ok());
  r.target = "ok.test";
  r.unknown_params = {{3, "x"}};
  EXPECT_FALSE(SerializeHttpsRdata(r).ok());
}

}  // namespace
}  // namespace net
