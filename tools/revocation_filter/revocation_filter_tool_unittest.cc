#include "tools/revocation_filter/revocation_filter_tool.h"

#include <openssl/asn1.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cert/ocsp_test_util.h"
#include "cert/revocation_filter.h"
#include "cert/x509_util.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"
#include "tools/revocation_filter/filter_inputs.h"

namespace net {
namespace {

const std::string kData = "cert/testdata/";
// 2026-01-01: the fixtures (2025-2045) are valid, expired_leaf (2020-2021)
// is not.
constexpr int64_t kNow = 1767225600;

struct ToolRun {
  int rc;
  std::string out, err;
};

ToolRun Tool(std::vector<std::string> args) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  ToolRun r;
  r.rc = RunRevocationFilterTool(args, out, err);
  for (auto [f, s] : {std::pair{out, &r.out}, std::pair{err, &r.err}}) {
    std::fflush(f);
    std::rewind(f);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s->append(buf, n);
    std::fclose(f);
  }
  return r;
}

// A CRL of the test intermediate listing |serials|.
std::string WriteCrl(const std::string& path,
                     const std::vector<uint64_t>& serials) {
  FILE* f = fopen((kData + "good_intermediate.pem").c_str(), "r");
  bssl::UniquePtr<X509> issuer(PEM_read_X509(f, nullptr, nullptr, nullptr));
  fclose(f);
  bssl::UniquePtr<EVP_PKEY> key = LoadPemKey(kData + "good_intermediate.key");
  bssl::UniquePtr<X509_CRL> crl(X509_CRL_new());
  X509_CRL_set_version(crl.get(), X509_CRL_VERSION_2);
  X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(issuer.get()));
  bssl::UniquePtr<ASN1_TIME> t(ASN1_TIME_set(nullptr, kNow - 3600));
  X509_CRL_set1_lastUpdate(crl.get(), t.get());
  for (uint64_t serial : serials) {
    X509_REVOKED* r = X509_REVOKED_new();
    bssl::UniquePtr<ASN1_INTEGER> s(ASN1_INTEGER_new());
    ASN1_INTEGER_set_uint64(s.get(), serial);
    X509_REVOKED_set_serialNumber(r, s.get());
    X509_REVOKED_set_revocationDate(r, t.get());
    X509_CRL_add0_revoked(crl.get(), r);
  }
  X509_CRL_sort(crl.get());
  EXPECT_TRUE(X509_CRL_sign(crl.get(), key.get(), EVP_sha256()));
  uint8_t* der = nullptr;
  int len = i2d_X509_CRL(crl.get(), &der);
  EXPECT_GT(len, 0);
  EXPECT_TRUE(
      WriteFileAtomically(path, std::string(reinterpret_cast<char*>(der), len))
          .ok());
  OPENSSL_free(der);
  return path;
}

class RevocationFilterToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/revocation_filter_tool";
    mkdir(dir_.c_str(), 0700);
    issued_ = dir_ + "/issued";
    mkdir(issued_.c_str(), 0700);
    for (const char* name :
         {"good_leaf.pem", "good_ecdsa_leaf.pem", "bad_name_leaf.pem",
          "expired_leaf.pem", "good_intermediate.pem"}) {
      ASSERT_TRUE(WriteFileAtomically(issued_ + "/" + name,
                                      *ReadFileToString(kData + name))
                      .ok());
    }
    filter_ = dir_ + "/filter";
  }

  // The filter of root + intermediate with bad_name_leaf (1005) revoked.
  ToolRun Build(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"build",
                                     "--issuer",
                                     kData + "good_root.pem",
                                     "--issuer",
                                     kData + "good_intermediate.pem",
                                     "--issued",
                                     issued_,
                                     "--revoked",
                                     WriteCrl(dir_ + "/crl.der", {0x1005}),
                                     "--out",
                                     filter_,
                                     "--now",
                                     absl::StrCat(kNow)};
    args.insert(args.end(), extra.begin(), extra.end());
    return Tool(args);
  }

  std::string dir_, issued_, filter_;
};

TEST_F(RevocationFilterToolTest, BuildsAFilterThatAnswersForTheFixtures) {
  ToolRun b = Build({"--stats"});
  ASSERT_EQ(b.rc, 0) << b.err;
  // R = {1005}; S = {1001, 1002, 1003}; expired_leaf left out.
  EXPECT_NE(b.out.find("filter 1 of 2 issuers, 1 revoked and 3 valid "
                       "certificates (1 expired left out)"),
            std::string::npos)
      << b.out;
  EXPECT_NE(b.out.find("level 1: elements=1 tested=3"), std::string::npos)
      << b.out;
  ToolRun good =
      Tool({"check", "--filter", filter_, kData + "good_leaf_chain.pem"});
  EXPECT_EQ(good.rc, kRevocationFilterExitOk) << good.err;
  EXPECT_EQ(good.out, "answer: good\ndetail: filter 1: not revoked\n");
  ToolRun revoked =
      Tool({"check", "--filter", filter_, kData + "bad_name_leaf_chain.pem"});
  EXPECT_EQ(revoked.rc, kRevocationFilterExitRevoked);
  EXPECT_EQ(revoked.out, "answer: revoked\ndetail: filter 1: revoked\n");
  // The intermediate, with the root as its issuer.
  ToolRun inter =
      Tool({"check", "--filter", filter_, "--issuer", kData + "good_root.pem",
            kData + "good_intermediate.pem"});
  EXPECT_EQ(inter.rc, kRevocationFilterExitOk) << inter.out << inter.err;
  ToolRun other =
      Tool({"check", "--filter", filter_, "--issuer",
            kData + "untrusted_root.pem", kData + "untrusted_leaf.pem"});
  EXPECT_EQ(other.rc, kRevocationFilterExitNotCovered);
  EXPECT_NE(other.out.find("answer: not_covered"), std::string::npos);

  ToolRun info = Tool({"info", filter_});
  ASSERT_EQ(info.rc, 0) << info.err;
  for (const char* line :
       {"kind: filter\n", "format_version: 1\n", "sequence: 1\n",
        "created: 2026-01-01T00:00:00Z (1767225600)\n",
        // The latest notBefore of the valid certificates.
        "coverage: 2025-01-01T00:00:00Z (1735689600)\n", "issuers: 2\n",
        "Netstack Test Intermediate\n", "Netstack Test Root\n",
        "inverted: no\n", "hash: sha256\n"}) {
    EXPECT_NE(info.out.find(line), std::string::npos) << line << info.out;
  }
  std::string bytes = *ReadFileToString(filter_);
  EXPECT_NE(info.out.find(absl::StrCat("bytes: ", bytes.size(), "\n")),
            std::string::npos);
}

TEST_F(RevocationFilterToolTest, StashCarriesOnlyWhatIsNew) {
  ASSERT_EQ(Build().rc, 0);
  // The CA has since revoked good_leaf (1002) too.
  std::string crl = WriteCrl(dir_ + "/crl2.der", {0x1005, 0x1002});
  std::string stash = dir_ + "/stash";
  ToolRun s =
      Tool({"stash", "--filter", filter_, "--issuer",
            kData + "good_intermediate.pem", "--revoked", crl, "--number", "1",
            "--out", stash, "--now", absl::StrCat(kNow + 60)});
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_NE(s.out.find("stash 1 of filter 1, 1 new revocations (1 already in "
                       "the filter"),
            std::string::npos)
      << s.out;
  ToolRun info = Tool({"info", stash});
  ASSERT_EQ(info.rc, 0) << info.err;
  EXPECT_NE(info.out.find("kind: stash\n"), std::string::npos);
  EXPECT_NE(info.out.find("revoked: 1\n"), std::string::npos);
  EXPECT_NE(info.out.find(" 1002\n"), std::string::npos) << info.out;
  ToolRun check = Tool({"check", "--filter", filter_, "--stash", stash,
                        kData + "good_leaf_chain.pem"});
  EXPECT_EQ(check.rc, kRevocationFilterExitRevoked);
  EXPECT_EQ(check.out,
            "answer: revoked\ndetail: stash 1 of filter 1: revoked\n");
}

TEST_F(RevocationFilterToolTest, KeyListsWork) {
  auto chain = LoadPemCertificatesFromFile(kData + "good_leaf_chain.pem");
  ASSERT_TRUE(chain.ok());
  auto facts = GetCertificateFilterFacts((*chain)[0], (*chain)[1]);
  ASSERT_TRUE(facts.ok());
  std::string issuer_hex =
      absl::BytesToHexString(facts->key.issuer_spki_sha256);
  std::string list = dir_ + "/issued.txt";
  ASSERT_TRUE(
      WriteFileAtomically(
          list, absl::StrCat("# two keys\n", issuer_hex, " 1002 1735689600 ",
                             kNow + 1000, "\n", issuer_hex, " 00ff 1700000000 ",
                             kNow + 1000, "\n\n"))
          .ok());
  std::string revoked = dir_ + "/revoked.txt";
  ASSERT_TRUE(
      WriteFileAtomically(revoked, absl::StrCat(issuer_hex, " 00ff\n")).ok());
  ToolRun b = Tool({"build", "--issuer", kData + "good_intermediate.pem",
                    "--issued", list, "--revoked", revoked, "--out", filter_,
                    "--now", absl::StrCat(kNow)});
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_NE(b.out.find("1 revoked and 1 valid"), std::string::npos) << b.out;
  EXPECT_EQ(
      Tool({"check", "--filter", filter_, kData + "good_leaf_chain.pem"}).rc,
      kRevocationFilterExitOk);
  // A line naming an issuer that is not an --issuer.
  ASSERT_TRUE(
      WriteFileAtomically(revoked, absl::StrCat(std::string(64, 'a'), " 01\n"))
          .ok());
  ToolRun bad = Tool({"build", "--issuer", kData + "good_intermediate.pem",
                      "--revoked", revoked, "--out", filter_});
  EXPECT_EQ(bad.rc, kRevocationFilterExitError);
  EXPECT_NE(bad.err.find(revoked + ":1: issuer is none of the --issuer"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(ParseKeyListLine("zz 01").ok());
  EXPECT_FALSE(ParseKeyListLine(std::string(64, 'a') + " 1").ok());
  EXPECT_FALSE(ParseKeyListLine(std::string(64, 'a') + " 01 5").ok());
  EXPECT_TRUE(ParseKeyListLine(std::string(64, 'a') + "\t01").ok());
}

TEST_F(RevocationFilterToolTest, ErrorsAndUsage) {
  EXPECT_EQ(Tool({}).rc, kRevocationFilterExitUsage);
  ToolRun help = Tool({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("usage: revocation_filter"), std::string::npos);
  EXPECT_EQ(Tool({"frobnicate"}).rc, kRevocationFilterExitUsage);
  EXPECT_EQ(Tool({"build", "--out", filter_}).rc, kRevocationFilterExitUsage);
  EXPECT_EQ(Tool({"build", "--bogus"}).rc, kRevocationFilterExitUsage);
  EXPECT_EQ(Tool({"build", "--now", "soon"}).rc, kRevocationFilterExitUsage);
  // A certificate of an issuer that is not an --issuer.
  ASSERT_TRUE(
      WriteFileAtomically(issued_ + "/untrusted_leaf.pem",
                          *ReadFileToString(kData + "untrusted_leaf.pem"))
          .ok());
  ToolRun b = Build();
  EXPECT_EQ(b.rc, kRevocationFilterExitError);
  EXPECT_NE(b.err.find("untrusted_leaf.pem: a certificate (DNS:www.example."
                       "test) issued by none of the --issuer certificates"),
            std::string::npos)
      << b.err;
  std::remove((issued_ + "/untrusted_leaf.pem").c_str());
  // A CRL by someone else.
  ToolRun crl = Tool({"build", "--issuer", kData + "good_root.pem", "--revoked",
                      WriteCrl(dir_ + "/crl3.der", {1}), "--out", filter_});
  EXPECT_EQ(crl.rc, kRevocationFilterExitError);
  EXPECT_NE(crl.err.find("a CRL signed by none of the --issuer"),
            std::string::npos)
      << crl.err;
  // A damaged filter: the named error.
  ASSERT_EQ(Build().rc, 0);
  std::string bytes = *ReadFileToString(filter_);
  bytes[20] ^= 4;
  ASSERT_TRUE(WriteFileAtomically(filter_, bytes).ok());
  ToolRun info = Tool({"info", filter_});
  EXPECT_EQ(info.rc, kRevocationFilterExitError);
  EXPECT_NE(info.err.find("checksum_mismatch"), std::string::npos) << info.err;
  ToolRun check =
      Tool({"check", "--filter", filter_, kData + "good_leaf_chain.pem"});
  EXPECT_EQ(check.rc, kRevocationFilterExitError);
  EXPECT_NE(check.err.find("checksum_mismatch"), std::string::npos);
}

}  // namespace
}  // namespace net
