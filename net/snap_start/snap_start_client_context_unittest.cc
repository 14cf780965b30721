// SnapStartClientContext's state file: what a profile keeps of each server's
// Snap Start information survives a restart, and a damaged file (cut at any
// byte, a flipped bit, bytes appended, the unframed format of an older
// version) is refused with the file's name and the reason, never misread.

#include "net/snap_start/snap_start_client_context.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_messages.h"

namespace net {
namespace {

SnapStartInfo MakeInfo(char fill) {
  SnapStartInfo info;
  info.chain_der = {std::string(300, fill), std::string(200, fill + 1)};
  info.cipher_suite = kTlsRsaWithAes128GcmSha256;
  info.orbit.fill(static_cast<uint8_t>(fill));
  ServerHello hello;
  hello.version = kTls12Version;
  hello.random = std::string(32, 'r');
  hello.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.has_extensions = true;
  SnapStartServerInfo server_info;
  server_info.orbit = info.orbit;
  server_info.cipher_suite = kTlsRsaWithAes128GcmSha256;
  hello.extensions.emplace_back(kSnapStartExtension,
                                SerializeSnapStartServerExtension(server_info));
  info.server_hello = SerializeServerHello(hello);
  return info;
}

class SnapStartStateFileTest : public ::testing::Test {
 protected:
  SnapStartStateFileTest() {
    const char* tmp = getenv("TEST_TMPDIR");
    path_ = absl::StrCat(tmp ? tmp : "/tmp", "/snap_start_state_", getpid());
    unlink(path_.c_str());
    options_.state_file = path_;
  }
  ~SnapStartStateFileTest() override { unlink(path_.c_str()); }

  // Writes two servers' information through a context; returns the file.
  std::string WriteState() {
    auto context = SnapStartClientContext::Create(nullptr, options_);
    EXPECT_TRUE(context.ok()) << context.status();
    (*context)->PutInfo("a.example.test:443", MakeInfo('a'));
    (*context)->PutInfo("b.example.test:443", MakeInfo('b'));
    EXPECT_EQ((*context)->persist_error(), "");
    absl::StatusOr<std::string> bytes = ReadFileToString(path_);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.ok() ? *bytes : std::string();
  }

  void ExpectRefused(const std::string& bytes, const std::string& why) {
    ASSERT_TRUE(WriteFileAtomically(path_, bytes).ok());
    auto context = SnapStartClientContext::Create(nullptr, options_);
    ASSERT_FALSE(context.ok()) << "accepted: " << why;
    EXPECT_TRUE(absl::IsDataLoss(context.status())) << context.status();
    EXPECT_TRUE(absl::StrContains(context.status().message(), path_))
        << context.status();
  }

  std::string path_;
  SnapStartClientOptions options_;
};

TEST_F(SnapStartStateFileTest, SurvivesARestart) {
  WriteState();
  auto context = SnapStartClientContext::Create(nullptr, options_);
  ASSERT_TRUE(context.ok()) << context.status();
  const SnapStartInfo* a = (*context)->GetInfo("a.example.test:443");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->chain_der, MakeInfo('a').chain_der);
  EXPECT_EQ(a->orbit, MakeInfo('a').orbit);
  EXPECT_EQ(a->server_hello, MakeInfo('a').server_hello);
  EXPECT_FALSE(a->verified);  // re-verified before use, never trusted as is
  ASSERT_NE((*context)->GetInfo("b.example.test:443"), nullptr);
}

// Storing what the file already holds does not rewrite it (each write is a
// whole-file rewrite with fsync, on the network thread); a change does.
TEST_F(SnapStartStateFileTest, UnchangedInformationIsNotRewritten) {
  WriteState();
  auto inode = [this] {
    struct stat st {};
    EXPECT_EQ(stat(path_.c_str(), &st), 0);
    return st.st_ino;
  };
  auto context = SnapStartClientContext::Create(nullptr, options_);
  ASSERT_TRUE(context.ok()) << context.status();
  const ino_t before = inode();
  (*context)->PutInfo("a.example.test:443", MakeInfo('a'));
  EXPECT_EQ(inode(), before);
  (*context)->PutInfo("a.example.test:443", MakeInfo('c'));
  EXPECT_NE(inode(), before);
  auto reloaded = SnapStartClientContext::Create(nullptr, options_);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ((*reloaded)->GetInfo("a.example.test:443")->orbit,
            MakeInfo('c').orbit);
}

TEST_F(SnapStartStateFileTest, DamageIsDetectedNotMisread) {
  const std::string good = WriteState();
  ASSERT_FALSE(good.empty());
  for (size_t cut = 0; cut < good.size(); ++cut) {
    ExpectRefused(good.substr(0, cut), absl::StrCat("cut at ", cut));
  }
  for (size_t i = 0; i < good.size(); i += 7) {
    std::string flipped = good;
    flipped[i] ^= 0x10;
    ExpectRefused(flipped, absl::StrCat("bit flipped at ", i));
  }
  ExpectRefused(good + "x", "a byte appended");
  // The unframed format of the previous version.
  std::map<std::string, SnapStartInfo> infos = {{"a:443", MakeInfo('a')}};
  ExpectRefused(SnapStartClientContext::Serialize(infos), "unframed");
}

}  // namespace
}  // namespace net
