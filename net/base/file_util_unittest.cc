#include "net/base/file_util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/test_file_util.h"

namespace net {
namespace {

std::string FreshDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/" + name;
  std::string cmd = "rm -rf '" + dir + "'";
  EXPECT_EQ(system(cmd.c_str()), 0);
  EXPECT_EQ(mkdir(dir.c_str(), 0700), 0);
  return dir;
}

std::set<std::string> FilesIn(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.insert(name);
  }
  closedir(d);
  return names;
}

TEST(FileUtilTest, WritesAtomicallyAndReadsBack) {
  std::string dir = FreshDir("file_util_roundtrip");
  std::string path = dir + "/file";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string("second\0bytes", 12)).ok());
  auto read = ReadFileToString(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, std::string("second\0bytes", 12));
  // A bound: refused past it, without reading on (/dev/zero never ends).
  auto bounded = ReadFileToString("/dev/zero", 100000);
  EXPECT_TRUE(absl::IsResourceExhausted(bounded.status())) << bounded.status();
  auto within = ReadFileToString(path, read->size());
  ASSERT_TRUE(within.ok()) << within.status();
  EXPECT_EQ(*within, *read);
  EXPECT_TRUE(absl::IsResourceExhausted(
      ReadFileToString(path, read->size() - 1).status()));
  EXPECT_EQ(FilesIn(dir), std::set<std::string>{"file"});  // no temporary
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(FileUtilTest, FailuresNameTheFileAndLeaveTheOldContents) {
  auto missing = ReadFileToString("/nonexistent/dir/file");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_NE(missing.status().message().find("/nonexistent/dir/file"),
            std::string::npos);
  absl::Status status = WriteFileAtomically("/nonexistent/dir/file", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("/nonexistent/dir/file.tmp."),
            std::string::npos)
      << status;

  // Reading a directory is an I/O error, not "missing".
  std::string dir = FreshDir("file_util_failures");
  EXPECT_FALSE(absl::IsNotFound(ReadFileToString(dir).status()));

  // A write that fails halfway leaves the old file and no temporary.
  std::string path = dir + "/file";
  ASSERT_TRUE(WriteFileAtomically(path, "old contents").ok());
  {
    ScopedFileSizeLimit limit(4);
    status = WriteFileAtomically(path, std::string(100, 'n'));
  }
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("write"), std::string::npos) << status;
  EXPECT_EQ(*ReadFileToString(path), "old contents");
  EXPECT_EQ(FilesIn(dir), std::set<std::string>{"file"});

  // A rename that fails (a directory in the file's place) also cleans up.
  std::string blocked = dir + "/blocked";
  ASSERT_EQ(mkdir(blocked.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((blocked + "/inside").c_str(), 0700), 0);
  status = WriteFileAtomically(blocked, "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("rename"), std::string::npos) << status;
  EXPECT_EQ(FilesIn(dir), (std::set<std::string>{"blocked", "file"}));
}

// Many writers at once, in threads and in processes: each call uses its own
// temporary, every call succeeds, and the file is always one whole write.
TEST(FileUtilTest, ConcurrentWritersNeverCollide) {
  std::string dir = FreshDir("file_util_concurrent");
  std::string path = dir + "/shared";
  constexpr int kProcesses = 4;
  constexpr int kThreads = 4;
  constexpr int kWrites = 50;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::vector<std::thread> threads;
      std::atomic<int> failed{0};
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          for (int i = 0; i < kWrites; ++i) {
            std::string data(1000 + 37 * t + i, static_cast<char>('a' + t));
            if (!WriteFileAtomically(path, data).ok()) ++failed;
          }
        });
      }
      for (auto& thread : threads) thread.join();
      _exit(failed.load() == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  // Meanwhile every read sees one writer's whole file.
  int reads = 0;
  size_t exited = 0;
  while (exited < children.size()) {
    for (pid_t& pid : children) {
      int status = 0;
      if (pid == 0 || waitpid(pid, &status, WNOHANG) != pid) continue;
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      pid = 0;
      ++exited;
    }
    absl::StatusOr<std::string> now = ReadFileToString(path);
    if (!now.ok()) continue;
    ++reads;
    EXPECT_FALSE(now->empty());
    EXPECT_EQ(now->find_first_not_of((*now)[0]), std::string::npos);
  }
  EXPECT_EQ(FilesIn(dir), std::set<std::string>{"shared"});
  EXPECT_GT(reads, 0);
}

TEST(FileUtilTest, RemoveStaleTemporaries) {
  std::string dir = FreshDir("file_util_stale");
  std::string path = dir + "/store.pb";
  for (const char* name :
       {"store.pb", "store.pb.tmp", "store.pb.tmp.123.0", "store.pb.tmp.999.7",
        "store.pbx", "other.tmp.1.1", "store.pb.tmpfoo"}) {
    ASSERT_TRUE(WriteFileAtomically(dir + "/" + name, "x").ok());
  }
  EXPECT_EQ(RemoveStaleTemporaries(path), 3);
  EXPECT_EQ(FilesIn(dir),
            (std::set<std::string>{"other.tmp.1.1", "store.pb", "store.pbx",
                                   "store.pb.tmpfoo"}));
  EXPECT_EQ(RemoveStaleTemporaries(dir + "/missing/x"), 0);
}

}  // namespace
}  // namespace net
