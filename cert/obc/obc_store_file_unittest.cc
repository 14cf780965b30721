// ObcStoreFile and ProfileLock: round trip, atomic replacement, and
// detection of every kind of damage (bit flips anywhere, truncation at
// every length, wrong frame, records that do not hang together).

#include "cert/obc/obc_store_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cert/obc/obc_crypto.h"
#include "cert/obc/obc_store.pb.h"
#include "gtest/gtest.h"
#include "net/base/test_file_util.h"

namespace net {
namespace {

namespace pb = ::netstack::cert::obc;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

std::shared_ptr<const ObcRecord> MakeRecord(const std::string& input,
                                            ScopeMode mode,
                                            KeyAlgorithm algorithm) {
  ObcKeyMaterial material = MakeKeyMaterial(algorithm, absl::Now()).value();
  auto record = std::make_shared<ObcRecord>();
  record->scope = ObcScope::ForInput(input, mode).value();
  record->algorithm = algorithm;
  record->cert_der = material.cert_der;
  record->key_pkcs8 = material.key_pkcs8;
  record->key = std::move(material.key);
  record->created_unix_seconds = 1700000000;
  return record;
}

class ObcStoreFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        testing::TempDir(), "/obc_file_",
        testing::UnitTest::GetInstance()->current_test_info()->name());
    mkdir(dir_.c_str(), 0700);
    path_ = absl::StrCat(dir_, "/", ObcStoreFile::kFileName);
    unlink(path_.c_str());
    records_ = {
        MakeRecord("https://a.example.test", ScopeMode::kOrigin,
                   KeyAlgorithm::kEcdsaP256),
        MakeRecord("https://b.example.test", ScopeMode::kRegistrableDomain,
                   KeyAlgorithm::kRsa1024),
        MakeRecord("https://[::1]:8443", ScopeMode::kOrigin,
                   KeyAlgorithm::kEd25519),
    };
  }

  std::string dir_;
  std::string path_;
  std::vector<std::shared_ptr<const ObcRecord>> records_;
};

TEST_F(ObcStoreFileTest, MissingFileIsEmpty) {
  absl::StatusOr<std::vector<ObcRecord>> loaded = ObcStoreFile::Load(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->empty());
}

TEST_F(ObcStoreFileTest, RoundTrip) {
  ASSERT_TRUE(ObcStoreFile::Save(path_, records_).ok());
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(TemporariesOf(path_).empty());

  absl::StatusOr<std::vector<ObcRecord>> loaded = ObcStoreFile::Load(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), records_.size());
  for (size_t i = 0; i < records_.size(); ++i) {
    const ObcRecord& got = (*loaded)[i];
    EXPECT_EQ(got.scope, records_[i]->scope);
    EXPECT_EQ(got.algorithm, records_[i]->algorithm);
    EXPECT_EQ(got.cert_der, records_[i]->cert_der);
    EXPECT_EQ(got.key_pkcs8, records_[i]->key_pkcs8);
    EXPECT_EQ(EVP_PKEY_cmp(got.key.get(), records_[i]->key.get()), 1);
    EXPECT_EQ(got.created_unix_seconds, 1700000000);
  }
  // Saving again replaces the file.
  records_.pop_back();
  ASSERT_TRUE(ObcStoreFile::Save(path_, records_).ok());
  EXPECT_EQ(ObcStoreFile::Load(path_)->size(), 2u);
}

TEST_F(ObcStoreFileTest, EveryBitFlipIsDetected) {
  const std::string good = ObcStoreFile::Serialize(records_);
  ASSERT_TRUE(ObcStoreFile::Parse(good, "good").ok());
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] ^= mask;
      absl::StatusOr<std::vector<ObcRecord>> parsed =
          ObcStoreFile::Parse(bad, "bad");
      ASSERT_FALSE(parsed.ok()) << "flip " << int(mask) << " at byte " << i
                                << " of " << good.size() << " went unnoticed";
      EXPECT_TRUE(absl::IsDataLoss(parsed.status())) << parsed.status();
    }
  }
}

TEST_F(ObcStoreFileTest, EveryTruncationIsDetected) {
  const std::string good = ObcStoreFile::Serialize(records_);
  for (size_t len = 0; len < good.size(); ++len) {
    absl::StatusOr<std::vector<ObcRecord>> parsed =
        ObcStoreFile::Parse(good.substr(0, len), "short");
    ASSERT_FALSE(parsed.ok())
        << "truncation to " << len << " bytes went unnoticed";
    EXPECT_TRUE(absl::IsDataLoss(parsed.status()));
  }
  // Appended junk too.
  EXPECT_FALSE(ObcStoreFile::Parse(good + std::string(1, '\0'), "long").ok());
  EXPECT_FALSE(ObcStoreFile::Parse(good + good, "doubled").ok());
}

TEST_F(ObcStoreFileTest, CorruptFileIsReportedAndLeftUntouched) {
  ASSERT_TRUE(ObcStoreFile::Save(path_, records_).ok());
  std::string bytes = ReadFile(path_);
  bytes[bytes.size() / 2] ^= 0x10;
  WriteFile(path_, bytes);
  absl::StatusOr<std::vector<ObcRecord>> loaded = ObcStoreFile::Load(path_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::IsDataLoss(loaded.status()));
  EXPECT_NE(loaded.status().message().find("corrupt"), std::string::npos);
  EXPECT_EQ(ReadFile(path_), bytes);
  // Garbage and an empty file are corrupt too (our writes never make either).
  WriteFile(path_, "this is not a store");
  EXPECT_TRUE(absl::IsDataLoss(ObcStoreFile::Load(path_).status()));
  WriteFile(path_, "");
  EXPECT_TRUE(absl::IsDataLoss(ObcStoreFile::Load(path_).status()));
}

// Frames around a hand-made payload, to reach the record checks behind the
// checksum.
std::string Frame(const pb::OriginBoundCerts& certs,
                  uint32_t magic = ObcStoreFile::kMagic,
                  uint32_t version = ObcStoreFile::kVersion) {
  pb::OriginBoundCertFile file;
  file.set_magic(magic);
  file.set_version(version);
  certs.SerializeToString(file.mutable_payload());
  file.set_payload_sha256(Sha256(file.payload()));
  return file.SerializeAsString();
}

pb::OriginBoundCerts PayloadOf(const std::string& file_bytes) {
  pb::OriginBoundCertFile file;
  EXPECT_TRUE(file.ParseFromString(file_bytes));
  pb::OriginBoundCerts certs;
  EXPECT_TRUE(certs.ParseFromString(file.payload()));
  return certs;
}

TEST_F(ObcStoreFileTest, InconsistentRecordsAreDetected) {
  const pb::OriginBoundCerts good =
      PayloadOf(ObcStoreFile::Serialize(records_));
  ASSERT_TRUE(ObcStoreFile::Parse(Frame(good), "x").ok());

  auto expect_corrupt = [](const std::string& bytes, const char* what) {
    absl::StatusOr<std::vector<ObcRecord>> parsed =
        ObcStoreFile::Parse(bytes, "x");
    EXPECT_TRUE(absl::IsDataLoss(parsed.status()))
        << what << ": " << parsed.status();
  };
  expect_corrupt(Frame(good, 0x12345678), "magic");
  expect_corrupt(Frame(good, ObcStoreFile::kMagic, 2), "version");

  pb::OriginBoundCerts swapped_certs = good;
  swapped_certs.mutable_certs(0)->set_certificate(good.certs(1).certificate());
  expect_corrupt(Frame(swapped_certs), "certificate of another record");

  pb::OriginBoundCerts swapped_keys = good;
  swapped_keys.mutable_certs(0)->set_private_key(good.certs(1).private_key());
  expect_corrupt(Frame(swapped_keys), "key of another record");

  pb::OriginBoundCerts duplicate = good;
  *duplicate.add_certs() = good.certs(0);
  expect_corrupt(Frame(duplicate), "duplicate scope");

  pb::OriginBoundCerts wrong_algorithm = good;
  wrong_algorithm.mutable_certs(0)->set_algorithm(pb::KEY_ALGORITHM_RSA_2048);
  expect_corrupt(Frame(wrong_algorithm), "algorithm");

  pb::OriginBoundCerts unknown_algorithm = good;
  unknown_algorithm.mutable_certs(0)->set_algorithm(
      pb::KEY_ALGORITHM_UNSPECIFIED);
  expect_corrupt(Frame(unknown_algorithm), "unknown algorithm");

  pb::OriginBoundCerts bad_scope = good;
  bad_scope.mutable_certs(0)->set_scope("https://A.example.test:443");
  expect_corrupt(Frame(bad_scope), "non-canonical scope");

  pb::OriginBoundCerts no_mode = good;
  no_mode.mutable_certs(0)->set_scope_mode(pb::SCOPE_MODE_UNSPECIFIED);
  expect_corrupt(Frame(no_mode), "scope mode");
}

TEST_F(ObcStoreFileTest, FailedSaveLeavesTheOldFile) {
  ASSERT_TRUE(ObcStoreFile::Save(path_, records_).ok());
  const std::string before = ReadFile(path_);
  // A write that fails halfway (the file size limit) fails the save.
  {
    ScopedFileSizeLimit limit(8);
    EXPECT_FALSE(ObcStoreFile::Save(path_, {}).ok());
  }
  EXPECT_EQ(ReadFile(path_), before);
  EXPECT_TRUE(TemporariesOf(path_).empty());
}

TEST_F(ObcStoreFileTest, ProfileLockIsExclusive) {
  absl::StatusOr<std::unique_ptr<ProfileLock>> first =
      ProfileLock::Acquire(dir_);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<ProfileLock>> second =
      ProfileLock::Acquire(dir_);
  EXPECT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
  first->reset();
  EXPECT_TRUE(ProfileLock::Acquire(dir_).ok());
  EXPECT_FALSE(ProfileLock::Acquire(absl::StrCat(dir_, "/missing")).ok());
}

TEST_F(ObcStoreFileTest, WriterDropsStaleWrites) {
  ObcFileWriter writer(path_, nullptr);
  ASSERT_TRUE(writer.Write(2, records_).ok());
  // An older snapshot arriving late must not replace the newer file.
  ASSERT_TRUE(writer.Write(1, {}).ok());
  EXPECT_EQ(ObcStoreFile::Load(path_)->size(), records_.size());
  ASSERT_TRUE(writer.Write(3, {}).ok());
  EXPECT_EQ(ObcStoreFile::Load(path_)->size(), 0u);
}

}  // namespace
}  // namespace net
