#include "net/base/file_util.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(FileUtilTest, WritesAtomicallyAndReadsBack) {
  std::string path = ::testing::TempDir() + "/file_util_roundtrip";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string("second\0bytes", 12)).ok());
  auto read = ReadFileToString(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, std::string("second\0bytes", 12));
  EXPECT_NE(access((path + ".tmp").c_str(), F_OK), 0);  // no temporary left
}

TEST(FileUtilTest, FailuresNameTheFileAndLeaveTheOldContents) {
  auto missing = ReadFileToString("/nonexistent/dir/file");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/dir/file"),
            std::string::npos);
  absl::Status status = WriteFileAtomically("/nonexistent/dir/file", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("/nonexistent/dir/file.tmp"),
            std::string::npos);
}

}  // namespace
}  // namespace net
