#include "dns/host_history.h"

#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <set>

#include "absl/strings/match.h"
#include "dns/host_history.pb.h"
#include "gtest/gtest.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"

namespace net {
namespace {

const absl::Time kT = absl::FromUnixSeconds(1'800'000'000);

HostHistory ThreeHosts() {
  HostHistory history;
  for (int i = 0; i < 3; ++i) history.RecordVisit("a.test", kT);
  history.RecordVisit("b.test", kT);
  history.RecordVisit("c.test", kT + absl::Seconds(1));
  history.RecordVisit("C.TEST", kT);
  return history;
}

std::string ReadAll(const std::string& path) { return *ReadFileToString(path); }

TEST(HostHistoryTest, RanksAndRoundTripsThroughAnAtomicSave) {
  std::string dir = ::testing::TempDir() + "/history_roundtrip";
  mkdir(dir.c_str(), 0700);
  std::string path = dir + "/" + HostHistory::kFileName;
  std::remove(path.c_str());
  auto empty = HostHistory::Load(path);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  ASSERT_TRUE(ThreeHosts().Save(path).ok());
  auto loaded = HostHistory::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->TopHosts(2),
            (std::vector<std::string>{"a.test", "c.test"}));
  EXPECT_EQ(loaded->visits("c.test"), 2u);
  // No temporary file is left behind.
  std::set<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) names.insert(e->d_name);
  closedir(d);
  EXPECT_EQ(names, (std::set<std::string>{".", "..", HostHistory::kFileName}));
}

TEST(HostHistoryTest, CorruptFileIsReportedAndLeftAlone) {
  std::string path = ::testing::TempDir() + "/history_corrupt.pb";
  std::ofstream(path) << "this is not a protobuf \xff\xff\xff";
  auto loaded = HostHistory::Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::IsDataLoss(loaded.status()));
  EXPECT_NE(loaded.status().message().find(path + " is corrupt"),
            std::string::npos)
      << loaded.status();
  EXPECT_NE(loaded.status().message().find("left untouched"),
            std::string::npos);
  std::ifstream still(path);
  std::string contents((std::istreambuf_iterator<char>(still)), {});
  EXPECT_EQ(contents.substr(0, 4), "this");
}

// The defect: a history cut to 2 bytes loaded silently as empty. Now every
// cut, from 0 bytes to one short of the whole, is reported and kept.
TEST(HostHistoryTest, EveryTruncationIsDetectedAndTheFileKept) {
  std::string path = ::testing::TempDir() + "/history_truncated.pb";
  const std::string good = ThreeHosts().Serialize();
  ASSERT_TRUE(HostHistory::Parse(good, "f").ok());
  for (size_t n = 0; n < good.size(); ++n) {
    std::string cut = good.substr(0, n);
    ASSERT_TRUE(WriteFileAtomically(path, cut).ok());
    absl::StatusOr<HostHistory> loaded = HostHistory::Load(path);
    ASSERT_TRUE(absl::IsDataLoss(loaded.status()))
        << "cut to " << n << " of " << good.size() << ": " << loaded.status();
    ASSERT_EQ(ReadAll(path), cut);
  }
  EXPECT_TRUE(absl::IsDataLoss(HostHistory::Parse(good + "x", "f").status()));
  EXPECT_TRUE(absl::IsDataLoss(HostHistory::Parse(good + good, "f").status()));
}

TEST(HostHistoryTest, EveryFlippedByteIsDetected) {
  const std::string good = ThreeHosts().Serialize();
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] ^= static_cast<char>(mask);
      ASSERT_TRUE(absl::IsDataLoss(HostHistory::Parse(bad, "f").status()))
          << "byte " << i << " ^ " << int(mask);
    }
  }
}

TEST(HostHistoryTest, OldUnframedFileIsRejectedWithAClearMessage) {
  // Version 1: a bare protobuf {version: 1, hosts: [...]}.
  std::string old("\x08\x01", 2);
  netstack::dns::HostHistory proto;
  auto* visit = proto.add_hosts();
  visit->set_host("a.test");
  visit->set_visits(3);
  old += proto.SerializeAsString();
  absl::StatusOr<HostHistory> loaded = HostHistory::Parse(old, "h.pb");
  ASSERT_TRUE(absl::IsDataLoss(loaded.status()));
  EXPECT_NE(loaded.status().message().find("older version"), std::string::npos)
      << loaded.status();
  EXPECT_NE(loaded.status().message().find("move it away"), std::string::npos);
}

TEST(HostHistoryTest, InconsistentPayloadIsCorrupt) {
  auto frame = [](const netstack::dns::HostHistory& proto) {
    return FrameFileContents(HostHistory::kMagic, HostHistory::kVersion,
                             proto.SerializeAsString());
  };
  netstack::dns::HostHistory proto;
  proto.add_hosts()->set_host("a.test");
  ASSERT_TRUE(HostHistory::Parse(frame(proto), "f").ok());
  netstack::dns::HostHistory duplicate = proto;
  duplicate.add_hosts()->set_host("a.test");
  EXPECT_NE(HostHistory::Parse(frame(duplicate), "f")
                .status()
                .message()
                .find("duplicate host a.test"),
            std::string::npos);
  netstack::dns::HostHistory empty_host = proto;
  empty_host.add_hosts();
  EXPECT_TRUE(
      absl::IsDataLoss(HostHistory::Parse(frame(empty_host), "f").status()));
  EXPECT_NE(
      HostHistory::Parse(FrameFileContents(HostHistory::kMagic, 3, ""), "f")
          .status()
          .message()
          .find("unknown version 3"),
      std::string::npos);
  EXPECT_TRUE(absl::IsDataLoss(
      HostHistory::Parse(
          FrameFileContents(HostHistory::kMagic, HostHistory::kVersion, "\xff"),
          "f")
          .status()));
}

TEST(HostHistoryTest, UnreadableFileIsAnErrorNotAnEmptyHistory) {
  // A directory in the file's place: reading fails, and that is not
  // "no history yet".
  std::string path = ::testing::TempDir() + "/history_is_a_directory";
  mkdir(path.c_str(), 0700);
  absl::StatusOr<HostHistory> loaded = HostHistory::Load(path);
  EXPECT_FALSE(loaded.ok());
}

}  // namespace
}  // namespace net
