// OutputFiles: -o per URL, -O from the path, files opened at the first
// write and closed by the URL's last transfer, write errors.

#include "tools/fetch/output_files.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace net {
namespace {

std::string Read(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(OutputFilesTest, OutputsPerUrlOpenedLateClosedByTheLastTransfer) {
  const std::string dir = ::testing::TempDir();
  FetchOptions options;
  options.output_files = {dir + "/a.txt", "-"};
  options.remote_name = true;
  std::vector<Url> urls = {*Url::Parse("http://x.test/a"),
                           *Url::Parse("http://x.test/b"),
                           *Url::Parse("http://x.test/dir/c.html?q=1")};
  OutputFiles outputs;
  ASSERT_FALSE(outputs.Init(options, urls));
  EXPECT_EQ(outputs.Name(0), dir + "/a.txt");
  EXPECT_EQ(outputs.Name(1), "the output");  // "-": stdout
  EXPECT_EQ(outputs.Name(2), "c.html");      // -O

  std::remove((dir + "/a.txt").c_str());
  outputs.TransferStarted(0);
  outputs.TransferStarted(0);
  EXPECT_FALSE(std::ifstream(dir + "/a.txt")) << "opened before any body";
  ASSERT_TRUE(outputs.Write(0, "hello "));
  ASSERT_TRUE(outputs.Write(0, "world"));
  EXPECT_TRUE(outputs.TransferEnded(0));
  EXPECT_EQ(Read(dir + "/a.txt"), "hello world");  // flushed as written
  EXPECT_TRUE(outputs.TransferEnded(0));           // the last one closes
  EXPECT_TRUE(outputs.CloseAll());
}

TEST(OutputFilesTest, RemoteNameNeedsAFileName) {
  FetchOptions options;
  options.remote_name = true;
  OutputFiles outputs;
  absl::optional<std::string> error =
      outputs.Init(options, {*Url::Parse("http://x.test/dir/")});
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("names no file"), std::string::npos) << *error;
}

TEST(OutputFilesTest, UnwritableFileIsAWriteError) {
  FetchOptions options;
  options.output_files = {"/nonexistent-dir/out"};
  OutputFiles outputs;
  ASSERT_FALSE(outputs.Init(options, {*Url::Parse("http://x.test/")}));
  outputs.TransferStarted(0);
  EXPECT_FALSE(outputs.Write(0, "x"));
  EXPECT_TRUE(outputs.TransferEnded(0));
}

}  // namespace
}  // namespace net
