#include "net/base/thread_checker.h"

#include <thread>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(ThreadCheckerTest, KnowsItsThread) {
  ThreadChecker checker;
  EXPECT_TRUE(checker.CalledOnValidThread());
  bool other = true;
  std::thread([&] { other = checker.CalledOnValidThread(); }).join();
  EXPECT_FALSE(other);
}

TEST(ThreadCheckerDeathTest, CheckFailsOnAnotherThread) {
  if (!NET_DCHECK_IS_ON()) GTEST_SKIP() << "NET_DCHECK is compiled out";
  ThreadChecker checker;
  EXPECT_DEATH(
      std::thread([&] { NET_DCHECK_CALLED_ON_VALID_THREAD(checker); }).join(),
      "Check failed");
}

}  // namespace
}  // namespace net
