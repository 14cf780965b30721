#include "net/base/worker_pool.h"

#include <atomic>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(WorkerPoolTest, RepliesRunOnTheNetworkThread) {
  EventLoop loop;
  WorkerPool pool(2);
  std::thread::id network_thread = std::this_thread::get_id();
  std::atomic<int> worked{0};
  int replies = 0;
  for (int i = 0; i < 10; ++i) {
    pool.PostTaskAndReply(
        [&] {
          EXPECT_NE(std::this_thread::get_id(), network_thread);
          ++worked;
        },
        [&] {
          EXPECT_EQ(std::this_thread::get_id(), network_thread);
          if (++replies == 10) loop.Quit();
        });
  }
  loop.Run();
  EXPECT_EQ(worked.load(), 10);
  EXPECT_EQ(replies, 10);
}

TEST(WorkerPoolTest, ResultIsPassedToReply) {
  EventLoop loop;
  WorkerPool pool(1);
  int got = 0;
  pool.PostTaskAndReplyWithResult<int>([] { return 6 * 7; },
                                       [&](int v) {
                                         got = v;
                                         loop.Quit();
                                       });
  loop.Run();
  EXPECT_EQ(got, 42);
}

}  // namespace
}  // namespace net
