#include "net/base/check.h"

#include "gtest/gtest.h"
#include "net/base/sanitizer.h"

namespace net {
namespace {

int evaluations = 0;
bool Counted(bool value) {
  ++evaluations;
  return value;
}

// Built three ways (BUILD.bazel): as is (no NDEBUG: on), with -DNDEBUG (off)
// and with -DNDEBUG -DNETSTACK_DCHECK (on, as the sanitizer configs do).
TEST(CheckTest, OnExactlyWhenItShouldBe) {
#if defined(NDEBUG) && !defined(NETSTACK_DCHECK)
  EXPECT_EQ(NET_DCHECK_IS_ON(), 0);
#else
  EXPECT_EQ(NET_DCHECK_IS_ON(), 1);
#endif
}

TEST(CheckTest, PassingChecksAreSilent) {
  evaluations = 0;
  NET_DCHECK(Counted(true));
  NET_DCHECK(1 + 1 == 2);
  EXPECT_EQ(evaluations, NET_DCHECK_IS_ON() ? 1 : 0);
}

TEST(CheckTest, FailingCheckAbortsWithTheConditionAndPlace) {
  if (!NET_DCHECK_IS_ON()) {
    // Compiled out: not evaluated, not fatal.
    evaluations = 0;
    NET_DCHECK(Counted(false));
    NET_NOTREACHED();
    EXPECT_EQ(evaluations, 0);
    return;
  }
  EXPECT_DEATH(NET_DCHECK(Counted(false)),
               "check_unittest.cc:[0-9]+: Check failed: Counted\\(false\\)");
  EXPECT_DEATH(NET_NOTREACHED(),
               "check_unittest.cc:[0-9]+: Check failed: "
               "NOTREACHED");
}

TEST(CheckTest, UsableAsAStatement) {
  int x = 3;
  if (x > 2)
    NET_DCHECK(x == 3);
  else
    NET_NOTREACHED();
  switch (x) {
    case 3:
      break;
    default:
      NET_NOTREACHED();
  }
  SUCCEED();
}

TEST(SanitizerTest, NameMatchesTheEnvironment) {
  const char* env = std::getenv("NETSTACK_SANITIZER");
  if (env != nullptr && env[0] != '\0') {
    EXPECT_STREQ(SanitizerName(), env);
    EXPECT_EQ(SanitizerSlowdown(), 5);
  }
#if NETSTACK_UNDER_SANITIZER
  EXPECT_TRUE(UnderSanitizer());
#endif
  if (!UnderSanitizer()) {
    EXPECT_EQ(SanitizerSlowdown(), 1);
  }
}

}  // namespace
}  // namespace net
