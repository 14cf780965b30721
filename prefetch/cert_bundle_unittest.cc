#include "prefetch/cert_bundle.h"

#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cert/x509_util.h"
#include "gtest/gtest.h"
#include "prefetch/cert_bundle.pb.h"

namespace net {
namespace {

constexpr char kDir[] = "cert/testdata/";
constexpr char kHost[] = "www.example.test";
const std::string kOrbit("\x01\x02\x03\x04\x05\x06\x07\x08", 8);

absl::Time Now() {
  return absl::FromCivil(absl::CivilSecond(2026, 6, 1, 12, 0, 0),
                         absl::UTCTimeZone());
}

std::vector<std::string> LoadChain(const std::string& name) {
  absl::StatusOr<std::vector<std::string>> chain =
      LoadPemCertificatesFromFile(std::string(kDir) + name);
  EXPECT_TRUE(chain.ok()) << chain.status();
  return chain.ok() ? *chain : std::vector<std::string>();
}

CertBundle MakeBundle(const std::string& chain_file,
                      std::optional<std::string> orbit = kOrbit) {
  absl::StatusOr<CertBundle> bundle =
      MakeCertBundle(kHost, 443, LoadChain(chain_file), kSnapStartCipherSuite,
                     std::move(orbit), Now() - absl::Hours(1));
  EXPECT_TRUE(bundle.ok()) << bundle.status();
  return bundle.ok() ? *bundle : CertBundle();
}

// A file around arbitrary message bytes: magic, u24 length, message.
std::string FrameFile(const std::string& message) {
  std::string out(kBundleFileMagic, kBundleFileMagicSize);
  out += static_cast<char>(message.size() >> 16);
  out += static_cast<char>(message.size() >> 8);
  out += static_cast<char>(message.size());
  return out + message;
}

// A valid message, to be spoiled field by field.
netstack::prefetch::CertBundle GoodProto() {
  netstack::prefetch::CertBundle proto;
  proto.set_version(kCertBundleVersion);
  proto.set_host(kHost);
  proto.set_port(443);
  for (const std::string& der : LoadChain("good_leaf_chain.pem"))
    proto.add_chain(der);
  proto.set_cipher_suite(kSnapStartCipherSuite);
  proto.set_not_after(absl::ToUnixSeconds(Now() + absl::Hours(24 * 365)));
  proto.set_created(absl::ToUnixSeconds(Now()));
  return proto;
}

std::string FileOf(const netstack::prefetch::CertBundle& proto) {
  return FrameFile(proto.SerializeAsString());
}

std::string Zlib(const std::string& in) {
  uLongf len = compressBound(in.size());
  std::string out(len, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &len,
                      reinterpret_cast<const Bytef*>(in.data()), in.size(), 9),
            Z_OK);
  out.resize(len);
  return out;
}

// The u24-prefixed framing of chain_zlib's inflated bytes.
std::string U24(const std::string& der) {
  std::string out;
  out += static_cast<char>(der.size() >> 16);
  out += static_cast<char>(der.size() >> 8);
  out += static_cast<char>(der.size());
  return out + der;
}

template <typename T>
void ExpectError(const absl::StatusOr<T>& result, absl::StatusCode code,
                 absl::string_view substring) {
  ASSERT_FALSE(result.ok()) << "expected an error containing: " << substring;
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_NE(result.status().message().find(substring), absl::string_view::npos)
      << result.status();
}

void ExpectError(const absl::Status& status, absl::StatusCode code,
                 absl::string_view substring) {
  ASSERT_FALSE(status.ok()) << "expected an error containing: " << substring;
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_NE(status.message().find(substring), absl::string_view::npos)
      << status;
}

// --- round trips ------------------------------------------------------------

struct RoundTripCase {
  const char* chain;
  bool orbit;
};

class CertBundleRoundTripTest : public ::testing::TestWithParam<RoundTripCase> {
};

TEST_P(CertBundleRoundTripTest, FileCompressedAndPlain) {
  CertBundle bundle = MakeBundle(
      GetParam().chain,
      GetParam().orbit ? std::optional<std::string>(kOrbit) : std::nullopt);
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress ? "zlib" : "plain");
    absl::StatusOr<std::string> file = EncodeBundleFile(bundle, compress);
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<CertBundle> decoded = DecodeBundleFile(*file);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, bundle);
    EXPECT_TRUE(ValidateBundleShape(*decoded, kHost, 443, Now()).ok());
  }
}

TEST_P(CertBundleRoundTripTest, Txt) {
  CertBundle bundle = MakeBundle(
      GetParam().chain,
      GetParam().orbit ? std::optional<std::string>(kOrbit) : std::nullopt);
  absl::StatusOr<std::vector<std::string>> strings = EncodeBundleTxt(bundle);
  ASSERT_TRUE(strings.ok()) << strings.status();
  absl::StatusOr<BundleTxtRecord> record = ParseBundleTxt(*strings);
  ASSERT_TRUE(record.ok()) << record.status();
  ASSERT_TRUE(std::holds_alternative<CertBundle>(*record));
  EXPECT_EQ(std::get<CertBundle>(*record), bundle);
}

INSTANTIATE_TEST_SUITE_P(
    Chains, CertBundleRoundTripTest,
    ::testing::Values(RoundTripCase{"good_leaf_chain.pem", true},
                      RoundTripCase{"good_leaf_chain.pem", false},
                      RoundTripCase{"good_ecdsa_leaf_chain.pem", false},
                      RoundTripCase{"good_leaf.pem", true}));

TEST(CertBundleTest, MakeComputesEarliestNotAfter) {
  CertBundle good = MakeBundle("good_leaf_chain.pem");
  EXPECT_EQ(good.not_after,
            absl::FromCivil(absl::CivilSecond(2045, 1, 1, 0, 0, 0),
                            absl::UTCTimeZone()));
  // The expired leaf (2021) comes before its intermediate (2045).
  CertBundle expired = MakeBundle("expired_leaf_chain.pem");
  EXPECT_EQ(expired.not_after,
            absl::FromCivil(absl::CivilSecond(2021, 1, 1, 0, 0, 0),
                            absl::UTCTimeZone()));
  EXPECT_EQ(good.chain.size(), 2u);
  EXPECT_EQ(good.version, kCertBundleVersion);
}

TEST(CertBundleTest, MakeRejectsBadInput) {
  std::vector<std::string> chain = LoadChain("good_leaf_chain.pem");
  ExpectError(MakeCertBundle(kHost, 443, {}, 0x9c, std::nullopt, Now()),
              absl::StatusCode::kInvalidArgument, "chain is empty");
  ExpectError(
      MakeCertBundle(kHost, 443, {"not a cert"}, 0x9c, std::nullopt, Now()),
      absl::StatusCode::kInvalidArgument,
      "chain certificate 0 is not a DER X.509 certificate");
  ExpectError(
      MakeCertBundle("bad host!", 443, chain, 0x9c, std::nullopt, Now()),
      absl::StatusCode::kInvalidArgument, "has a character");
  ExpectError(MakeCertBundle(kHost, 0, chain, 0x9c, std::nullopt, Now()),
              absl::StatusCode::kInvalidArgument, "port is 0");
  ExpectError(
      MakeCertBundle(kHost, 443, chain, 0x9c, std::string("1234567"), Now()),
      absl::StatusCode::kInvalidArgument, "orbit is 7 bytes");
  // A trailing dot is dropped; case is kept.
  absl::StatusOr<CertBundle> dotted = MakeCertBundle(
      "WWW.Example.test.", 443, chain, 0x9c, std::nullopt, Now());
  ASSERT_TRUE(dotted.ok()) << dotted.status();
  EXPECT_EQ(dotted->host, "WWW.Example.test");
}

TEST(CertBundleTest, PointerRoundTrip) {
  for (const char* url : {"http://cdn1.example.test/www.example.test.crt",
                          "http://cdn.example.test:8443/b/x.crt?v=1"}) {
    absl::StatusOr<std::vector<std::string>> strings =
        EncodeBundlePointerTxt(url);
    ASSERT_TRUE(strings.ok()) << strings.status();
    EXPECT_EQ(absl::StrJoin(*strings, ""), absl::StrCat("v=cb1; url=", url));
    absl::StatusOr<BundleTxtRecord> record = ParseBundleTxt(*strings);
    ASSERT_TRUE(record.ok()) << record.status();
    ASSERT_TRUE(std::holds_alternative<BundlePointer>(*record));
    EXPECT_EQ(std::get<BundlePointer>(*record).url, url);
  }
}

TEST(CertBundleTest, TxtName) {
  EXPECT_EQ(BundleTxtName("WWW.Example.TEST."), "_certbundle.www.example.test");
  EXPECT_EQ(BundleTxtName(kHost), "_certbundle.www.example.test");
}

// --- TXT string splitting ----------------------------------------------------

TEST(CertBundleTest, TxtSplitsInto255ByteStrings) {
  CertBundle bundle = MakeBundle("good_leaf_chain.pem");
  absl::StatusOr<std::vector<std::string>> strings = EncodeBundleTxt(bundle);
  ASSERT_TRUE(strings.ok()) << strings.status();
  ASSERT_GT(strings->size(), 1u);
  for (size_t i = 0; i + 1 < strings->size(); ++i)
    EXPECT_EQ((*strings)[i].size(), kMaxTxtStringBytes) << "string " << i;
  EXPECT_GT(strings->back().size(), 0u);
  EXPECT_LE(strings->back().size(), kMaxTxtStringBytes);
  std::string record = absl::StrJoin(*strings, "");
  absl::StatusOr<std::string> file = EncodeBundleFile(bundle, true);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(record, absl::StrCat("v=cb1; b=", absl::Base64Escape(*file)));

  // A record split elsewhere (by another tool, or a zone file's own
  // splitting) concatenates to the same bundle.
  for (size_t chunk : {1, 7, 100, 254, 255}) {
    std::vector<std::string> resplit;
    for (size_t i = 0; i < record.size(); i += chunk)
      resplit.push_back(record.substr(i, chunk));
    absl::StatusOr<BundleTxtRecord> parsed = ParseBundleTxt(resplit);
    ASSERT_TRUE(parsed.ok()) << "chunk " << chunk << ": " << parsed.status();
    EXPECT_EQ(std::get<CertBundle>(*parsed), bundle);
  }
  // 256 bytes is not a DNS character-string.
  ExpectError(ParseBundleTxt({record.substr(0, 256), record.substr(256)}),
              absl::StatusCode::kInvalidArgument, "TXT string 0 is 256 bytes");
}

// --- truncation --------------------------------------------------------------

TEST(CertBundleTest, EveryTruncationOfTheFileIsRejected) {
  CertBundle bundle = MakeBundle("good_leaf_chain.pem");
  for (bool compress : {true, false}) {
    absl::StatusOr<std::string> file = EncodeBundleFile(bundle, compress);
    ASSERT_TRUE(file.ok());
    for (size_t n = 0; n < file->size(); ++n) {
      absl::StatusOr<CertBundle> decoded =
          DecodeBundleFile(absl::string_view(*file).substr(0, n));
      ASSERT_FALSE(decoded.ok()) << (compress ? "zlib" : "plain")
                                 << " file truncated to " << n << " bytes";
      EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(CertBundleTest, EveryTruncationOfTheTxtRecordIsRejected) {
  CertBundle bundle = MakeBundle("good_ecdsa_leaf_chain.pem");
  absl::StatusOr<std::vector<std::string>> strings = EncodeBundleTxt(bundle);
  ASSERT_TRUE(strings.ok());
  std::string record = absl::StrJoin(*strings, "");
  for (size_t n = 0; n < record.size(); ++n) {
    std::vector<std::string> truncated;
    for (size_t i = 0; i < n; i += kMaxTxtStringBytes)
      truncated.push_back(
          record.substr(i, std::min(kMaxTxtStringBytes, n - i)));
    if (truncated.empty()) truncated.push_back("");
    absl::StatusOr<BundleTxtRecord> parsed = ParseBundleTxt(truncated);
    EXPECT_FALSE(parsed.ok()) << "record truncated to " << n << " bytes";
  }
  // Dropping whole strings (a lost string) is rejected too.
  for (size_t keep = 1; keep < strings->size(); ++keep) {
    std::vector<std::string> fewer(strings->begin(), strings->begin() + keep);
    EXPECT_FALSE(ParseBundleTxt(fewer).ok()) << keep << " strings";
  }
}

// --- zlib --------------------------------------------------------------------

TEST(CertBundleTest, ZlibBombIsRejected) {
  // 16 MiB of zeros deflates to about 16 KB: well inside the file limit,
  // far outside the inflated-chain limit.
  std::string bomb = Zlib(std::string(16 << 20, '\0'));
  ASSERT_LT(bomb.size(), kMaxBundleFileBytes);
  netstack::prefetch::CertBundle proto = GoodProto();
  proto.clear_chain();
  proto.set_chain_zlib(bomb);
  ExpectError(DecodeBundleFile(FileOf(proto)),
              absl::StatusCode::kResourceExhausted,
              "chain_zlib inflates to more than 65536 bytes");
  // One byte over the limit is already too much; exactly the limit is not.
  std::string at_limit = U24(std::string(kMaxBundleChainBytes - 3, 'x'));
  proto.set_chain_zlib(Zlib(at_limit));
  absl::StatusOr<CertBundle> ok = DecodeBundleFile(FileOf(proto));
  EXPECT_TRUE(ok.ok()) << ok.status();
  proto.set_chain_zlib(Zlib(at_limit + "y"));
  ExpectError(DecodeBundleFile(FileOf(proto)),
              absl::StatusCode::kResourceExhausted, "inflates to more than");
  // Through TXT as well.
  proto.set_chain_zlib(bomb);
  std::string record =
      absl::StrCat("v=cb1; b=", absl::Base64Escape(FileOf(proto)));
  std::vector<std::string> strings;
  for (size_t i = 0; i < record.size(); i += 255)
    strings.push_back(record.substr(i, 255));
  ExpectError(ParseBundleTxt(strings), absl::StatusCode::kResourceExhausted,
              "inflates to more than");
}

TEST(CertBundleTest, BadZlibIsRejected) {
  std::string framed;
  for (const std::string& der : LoadChain("good_leaf_chain.pem"))
    framed += U24(der);
  std::string z = Zlib(framed);
  netstack::prefetch::CertBundle proto = GoodProto();
  proto.clear_chain();

  proto.set_chain_zlib(z);
  absl::StatusOr<CertBundle> good = DecodeBundleFile(FileOf(proto));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->chain, LoadChain("good_leaf_chain.pem"));

  proto.set_chain_zlib(z.substr(0, z.size() / 2));
  ExpectError(DecodeBundleFile(FileOf(proto)),
              absl::StatusCode::kInvalidArgument, "chain_zlib is truncated");
  proto.set_chain_zlib(z + "junk");
  ExpectError(DecodeBundleFile(FileOf(proto)),
              absl::StatusCode::kInvalidArgument,
              "4 bytes after the zlib stream");
  std::string corrupt = z;
  corrupt[0] ^= 0xff;  // the zlib header
  proto.set_chain_zlib(corrupt);
  ExpectError(DecodeBundleFile(FileOf(proto)),
              absl::StatusCode::kInvalidArgument, "chain_zlib is corrupt");
  // Inflated bytes that are not u24-framed certificates.
  proto.set_chain_zlib(Zlib(framed.substr(0, framed.size() - 1)));
  ExpectError(DecodeBundleFile(FileOf(proto)),
              absl::StatusCode::kInvalidArgument, "certificate 1 is truncated");
  // Both chain forms at once.
  proto.set_chain_zlib(z);
  proto.add_chain("x");
  ExpectError(DecodeBundleFile(FileOf(proto)),
              absl::StatusCode::kInvalidArgument, "both chain and chain_zlib");
}

// --- the file form's other errors
// ----------------------------------------------

TEST(CertBundleTest, FileErrors) {
  ExpectError(DecodeBundleFile("<!DOCTYPE html><html>404</html>"),
              absl::StatusCode::kInvalidArgument,
              "not a certificate bundle file (bad magic");
  ExpectError(DecodeBundleFile(""), absl::StatusCode::kInvalidArgument,
              "bad magic");
  netstack::prefetch::CertBundle proto = GoodProto();
  std::string file = FileOf(proto);
  ASSERT_TRUE(DecodeBundleFile(file).ok());
  ExpectError(DecodeBundleFile(file + "x"), absl::StatusCode::kInvalidArgument,
              "1 bytes after the message");
  ExpectError(DecodeBundleFile(file, file.size() - 1),
              absl::StatusCode::kResourceExhausted, "more than the limit");
  ExpectError(DecodeBundleFile(FrameFile("\xff\xff\xff")),
              absl::StatusCode::kInvalidArgument, "does not parse (protobuf)");

  auto spoiled = [&](auto&& spoil) {
    netstack::prefetch::CertBundle p = GoodProto();
    spoil(p);
    return DecodeBundleFile(FileOf(p));
  };
  ExpectError(spoiled([](auto& p) { p.set_version(3); }),
              absl::StatusCode::kUnimplemented,
              "unsupported CertBundle version 3");
  // Version 2's field in a version-1 message, or present but false.
  ExpectError(spoiled([](auto& p) { p.set_tcp_fast_open_no_cookie(true); }),
              absl::StatusCode::kInvalidArgument,
              "version 1 carries tcp_fast_open_no_cookie");
  ExpectError(spoiled([](auto& p) {
                p.set_version(2);
                p.set_tcp_fast_open_no_cookie(false);
              }),
              absl::StatusCode::kInvalidArgument, "present but false");
  ExpectError(spoiled([](auto& p) { p.set_version(0); }),
              absl::StatusCode::kUnimplemented, "version 0");
  ExpectError(spoiled([](auto& p) { p.set_port(70000); }),
              absl::StatusCode::kInvalidArgument, "port 70000");
  ExpectError(spoiled([](auto& p) { p.set_port(0); }),
              absl::StatusCode::kInvalidArgument, "port 0");
  ExpectError(spoiled([](auto& p) { p.set_cipher_suite(0x10000); }),
              absl::StatusCode::kInvalidArgument, "not a 16-bit value");
  ExpectError(spoiled([](auto& p) { p.clear_chain(); }),
              absl::StatusCode::kInvalidArgument, "chain is empty");
  ExpectError(spoiled([](auto& p) { p.add_chain(""); }),
              absl::StatusCode::kInvalidArgument, "certificate 2 is empty");
  ExpectError(spoiled([](auto& p) {
                for (int i = 0; i < 7; ++i) p.add_chain(p.chain(0));
              }),
              absl::StatusCode::kResourceExhausted, "9 certificates");
  ExpectError(spoiled([](auto& p) { p.set_orbit("short"); }),
              absl::StatusCode::kInvalidArgument, "orbit is 5 bytes");
  ExpectError(spoiled([](auto& p) { p.set_host(""); }),
              absl::StatusCode::kInvalidArgument, "host is empty");
  ExpectError(spoiled([](auto& p) { p.set_host("a..b"); }),
              absl::StatusCode::kInvalidArgument, "empty or over-long label");
  ExpectError(spoiled([](auto& p) { p.set_host("\xff\xfe.test"); }),
              absl::StatusCode::kInvalidArgument, "has a character");
  ExpectError(spoiled([](auto& p) { p.set_not_after(-1); }),
              absl::StatusCode::kInvalidArgument,
              "not_after -1 is out of range");
  ExpectError(spoiled([](auto& p) { p.set_created(int64_t{1} << 62); }),
              absl::StatusCode::kInvalidArgument, "created");
  // An orbit that is present but empty is not "no orbit".
  ExpectError(spoiled([](auto& p) { p.set_orbit(""); }),
              absl::StatusCode::kInvalidArgument, "orbit is 0 bytes");
}

// --- TXT errors
// ----------------------------------------------------------------

TEST(CertBundleTest, MalformedTxtRecords) {
  using absl::StatusCode;
  ExpectError(ParseBundleTxt({}), StatusCode::kInvalidArgument, "no strings");
  ExpectError(ParseBundleTxt({""}), StatusCode::kInvalidArgument, "no v= tag");
  ExpectError(ParseBundleTxt({"v=spf1 -all"}), StatusCode::kUnimplemented,
              "unsupported certbundle TXT version \"spf1 -all\"");
  ExpectError(ParseBundleTxt({"v=cb2; b=AAAA"}), StatusCode::kUnimplemented,
              "version \"cb2\" (want cb1)");
  ExpectError(ParseBundleTxt({"v=cb1"}), StatusCode::kInvalidArgument,
              "no field after v=cb1");
  ExpectError(ParseBundleTxt({"v=cb1; x=1"}), StatusCode::kInvalidArgument,
              "unknown field");
  ExpectError(ParseBundleTxt({"v=cb1; b="}), StatusCode::kInvalidArgument,
              "b= is empty");
  ExpectError(ParseBundleTxt({"v=cb1; b=abc"}), StatusCode::kInvalidArgument,
              "not a multiple of 4");
  ExpectError(ParseBundleTxt({"v=cb1; b=ab*d"}), StatusCode::kInvalidArgument,
              "not valid base64");
  ExpectError(ParseBundleTxt({"v=cb1; b=ab d"}), StatusCode::kInvalidArgument,
              "not valid base64");
  ExpectError(ParseBundleTxt({"v=cb1; b=PGh0bWw+"}),  // "<html>"
              StatusCode::kInvalidArgument, "certbundle TXT b=: not a certif");
  ExpectError(ParseBundleTxt({"v=cb1; url=ftp://cdn.example.test/x.crt"}),
              StatusCode::kInvalidArgument, "is not http://");
  ExpectError(ParseBundleTxt({"v=cb1; url=HTTP://cdn.example.test/x.crt"}),
              StatusCode::kInvalidArgument, "is not http://");
  // https:// too: the fetcher takes http:// only, and the bundle is
  // verified on its own.
  ExpectError(ParseBundleTxt({"v=cb1; url=https://cdn.example.test/x.crt"}),
              StatusCode::kInvalidArgument, "is not http://");
  ExpectError(ParseBundleTxt({"v=cb1; url=javascript:alert(1)"}),
              StatusCode::kInvalidArgument, "is not http://");
  ExpectError(ParseBundleTxt({"v=cb1; url=http://cdn.example.test/a b"}),
              StatusCode::kInvalidArgument, "space, control or non-ASCII");
  ExpectError(ParseBundleTxt({"v=cb1; url=http://"}),
              StatusCode::kInvalidArgument, "not a valid URL");
  ExpectError(ParseBundleTxt({"v=cb1; url=http://u@cdn.example.test/"}),
              StatusCode::kInvalidArgument, "userinfo");
  ExpectError(ParseBundleTxt({"v=cb1; url=http://cdn.example.test:99999/"}),
              StatusCode::kInvalidArgument, "not a valid URL");
  ExpectError(ParseBundleTxt({"v=cb1; url=http://cdn.example.test:0/"}),
              StatusCode::kInvalidArgument, "port 0");
  ExpectError(EncodeBundlePointerTxt("file:///etc/passwd"),
              StatusCode::kInvalidArgument, "is not http://");
  // Oversize: more than the limit in all, with every string legal.
  std::vector<std::string> big(300, std::string(255, 'A'));
  big[0] = "v=cb1; b=" + std::string(246, 'A');
  ExpectError(ParseBundleTxt(big), StatusCode::kResourceExhausted,
              "more than 65535 bytes");
  ExpectError(ParseBundleTxt({"v=cb1; b=AAAA"}, 4),
              StatusCode::kResourceExhausted, "more than 4 bytes");
  // Tabs and several spaces after ';' are fine; the pointer survives.
  absl::StatusOr<BundleTxtRecord> spaced =
      ParseBundleTxt({"v=cb1;\t  url=http://cdn.example.test/x.crt"});
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(std::get<BundlePointer>(*spaced).url,
            "http://cdn.example.test/x.crt");
}

// --- ValidateBundleShape
// ---------------------------------------------------------

TEST(CertBundleTest, ValidateShape) {
  using absl::StatusCode;
  CertBundle bundle = MakeBundle("good_leaf_chain.pem");
  EXPECT_TRUE(ValidateBundleShape(bundle, kHost, 443, Now()).ok());
  EXPECT_TRUE(
      ValidateBundleShape(bundle, "WWW.EXAMPLE.TEST.", 443, Now()).ok());

  ExpectError(ValidateBundleShape(bundle, "other.example.test", 443, Now()),
              StatusCode::kFailedPrecondition,
              "bundle is for host \"www.example.test\", not "
              "\"other.example.test\"");
  ExpectError(ValidateBundleShape(bundle, "www.example.test.evil", 443, Now()),
              StatusCode::kFailedPrecondition, "bundle is for host");
  ExpectError(ValidateBundleShape(bundle, kHost, 8443, Now()),
              StatusCode::kFailedPrecondition, "port 443, not 8443");
  ExpectError(ValidateBundleShape(bundle, kHost, 443,
                                  bundle.not_after + absl::Seconds(1)),
              StatusCode::kFailedPrecondition, "bundle expired at 2045-01-01");
  ExpectError(ValidateBundleShape(MakeBundle("expired_leaf_chain.pem"), kHost,
                                  443, Now()),
              StatusCode::kFailedPrecondition, "bundle expired at 2021-01-01");

  CertBundle b = bundle;
  b.not_after += absl::Seconds(1);
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kInvalidArgument,
              "later than the chain's earliest notAfter");
  b = bundle;
  b.created = Now() + absl::Hours(2);
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kFailedPrecondition, "created in the future");
  b = bundle;
  b.chain[1] = "garbage";
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kInvalidArgument,
              "chain certificate 1 is not a DER X.509 certificate");
  b = bundle;
  b.chain[0] += '\0';  // a whole certificate and then a byte
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kInvalidArgument, "chain certificate 0 is not");
  b = bundle;
  b.chain.clear();
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kInvalidArgument, "chain is empty");
  b = bundle;
  b.chain.assign(kMaxBundleChainLength + 1, bundle.chain[0]);
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kResourceExhausted, "more than 8");
  b = bundle;
  b.orbit = "1234567";
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kInvalidArgument, "orbit is 7 bytes, not 8");
  b = bundle;
  b.version = 3;
  ExpectError(ValidateBundleShape(b, kHost, 443, Now()),
              StatusCode::kUnimplemented, "version 3");
  // The encoders refuse what the decoders would reject.
  ExpectError(EncodeBundleFile(b, true), StatusCode::kUnimplemented,
              "version 3");
  ExpectError(EncodeBundleTxt(b), StatusCode::kUnimplemented, "version 3");
  b = bundle;
  b.tcp_fast_open_no_cookie = true;  // without raising the version
  ExpectError(EncodeBundleFile(b, true), StatusCode::kInvalidArgument,
              "version-1 bundle cannot say tcp_fast_open_no_cookie");
}

// --- version 2: TCP Fast Open without a cookie ------------------------------

TEST(CertBundleTest, FastOpenNoCookieRoundTripsThroughEveryCarrier) {
  CertBundle bundle = MakeBundle("good_leaf_chain.pem");
  EXPECT_EQ(bundle.version, kCertBundleVersion);
  EXPECT_FALSE(bundle.tcp_fast_open_no_cookie);
  SetTcpFastOpenNoCookie(&bundle);
  EXPECT_EQ(bundle.version, kCertBundleVersionFastOpen);
  for (bool compress : {false, true}) {
    absl::StatusOr<std::string> file = EncodeBundleFile(bundle, compress);
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<CertBundle> decoded = DecodeBundleFile(*file);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, bundle);
    EXPECT_TRUE(decoded->tcp_fast_open_no_cookie);
    EXPECT_EQ(decoded->version, 2u);
  }
  absl::StatusOr<std::vector<std::string>> txt = EncodeBundleTxt(bundle);
  ASSERT_TRUE(txt.ok()) << txt.status();
  absl::StatusOr<BundleTxtRecord> record = ParseBundleTxt(*txt);
  ASSERT_TRUE(record.ok()) << record.status();
  ASSERT_TRUE(std::holds_alternative<CertBundle>(*record));
  EXPECT_EQ(std::get<CertBundle>(*record), bundle);
  EXPECT_TRUE(ValidateBundleShape(bundle, kHost, 443, Now()).ok());
  // A bundle without the field stays version 1, readable by older clients.
  absl::StatusOr<std::string> v1 =
      EncodeBundleFile(MakeBundle("good_leaf_chain.pem"), true);
  ASSERT_TRUE(v1.ok());
  netstack::prefetch::CertBundle proto;
  ASSERT_TRUE(proto.ParseFromString(v1->substr(kBundleFileMagicSize + 3)));
  EXPECT_EQ(proto.version(), 1u);
  EXPECT_FALSE(proto.has_tcp_fast_open_no_cookie());
}

// --- sizes (README table)
// -------------------------------------------------------

TEST(CertBundleTest, ReportSizes) {
  std::printf(
      "\n| chain (cert/testdata) | certs | DER | file plain | file zlib | TXT "
      "record | TXT strings |\n| --- | --- | --- | --- | --- | --- | --- |\n");
  // RSA with an orbit (a Snap Start server), ECDSA without (it cannot be).
  for (const char* name :
       {"good_leaf_chain.pem", "good_ecdsa_leaf_chain.pem"}) {
    bool rsa = std::string(name) == "good_leaf_chain.pem";
    CertBundle bundle = MakeBundle(
        name, rsa ? std::optional<std::string>(kOrbit) : std::nullopt);
    size_t der = 0;
    for (const std::string& c : bundle.chain) der += c.size();
    absl::StatusOr<std::string> plain = EncodeBundleFile(bundle, false);
    absl::StatusOr<std::string> zlib = EncodeBundleFile(bundle, true);
    absl::StatusOr<std::vector<std::string>> txt = EncodeBundleTxt(bundle);
    ASSERT_TRUE(plain.ok() && zlib.ok() && txt.ok());
    size_t txt_bytes = 0;
    for (const std::string& s : *txt) txt_bytes += s.size();
    std::printf("| %s%s | %zu | %zu | %zu | %zu | %zu | %zu |\n", name,
                rsa ? " + orbit" : "", bundle.chain.size(), der, plain->size(),
                zlib->size(), txt_bytes, txt->size());
    EXPECT_LT(zlib->size(), plain->size());
    // The TXT record is base64 of the compressed file plus the prefix.
    EXPECT_EQ(txt_bytes, 9 + (zlib->size() + 2) / 3 * 4);
  }
}

}  // namespace
}  // namespace net
