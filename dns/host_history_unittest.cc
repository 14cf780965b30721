#include "dns/host_history.h"

#include <fstream>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(HostHistoryTest, RanksAndRoundTripsThroughAnAtomicSave) {
  std::string path = ::testing::TempDir() + "/history_roundtrip.pb";
  std::remove(path.c_str());
  auto empty = HostHistory::Load(path);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  HostHistory history;
  absl::Time t = absl::FromUnixSeconds(1'800'000'000);
  for (int i = 0; i < 3; ++i) history.RecordVisit("a.test", t);
  history.RecordVisit("b.test", t);
  history.RecordVisit("c.test", t + absl::Seconds(1));
  history.RecordVisit("C.TEST", t);
  ASSERT_TRUE(history.Save(path).ok());
  auto loaded = HostHistory::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->TopHosts(2),
            (std::vector<std::string>{"a.test", "c.test"}));
  EXPECT_EQ(loaded->visits("c.test"), 2u);
  // No temporary file is left behind.
  std::ifstream tmp(path + ".tmp");
  EXPECT_FALSE(tmp.good());
}

TEST(HostHistoryTest, CorruptFileIsReportedAndLeftAlone) {
  std::string path = ::testing::TempDir() + "/history_corrupt.pb";
  std::ofstream(path) << "this is not a protobuf \xff\xff\xff";
  auto loaded = HostHistory::Load(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("corrupt"), std::string::npos);
  std::ifstream still(path);
  std::string contents((std::istreambuf_iterator<char>(still)), {});
  EXPECT_EQ(contents.substr(0, 4), "this");
}

}  // namespace
}  // namespace net
