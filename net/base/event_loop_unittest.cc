#include "net/base/event_loop.h"

#include <unistd.h>

#include <vector>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(EventLoopTest, PostedTasksRunInOrder) {
  EventLoop loop;
  std::vector<int> order;
  loop.PostTask([&] { order.push_back(1); });
  loop.PostTask([&] {
    order.push_back(2);
    loop.PostTask([&] { order.push_back(4); });
  });
  loop.PostTask([&] { order.push_back(3); });
  loop.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4}));
}

TEST(EventLoopTest, DelayedTasksRunByDeadlineAndCancel) {
  EventLoop loop;
  std::vector<int> order;
  loop.PostDelayedTask(absl::Milliseconds(30), [&] {
    order.push_back(30);
    loop.Quit();
  });
  loop.PostDelayedTask(absl::Milliseconds(10), [&] { order.push_back(10); });
  EventLoop::TimerId cancelled = loop.PostDelayedTask(
      absl::Milliseconds(20), [&] { order.push_back(20); });
  loop.CancelDelayedTask(cancelled);
  TimeTicks start = TimeTicks::Now();
  loop.Run();
  absl::Duration elapsed = TimeTicks::Now() - start;
  EXPECT_EQ(order, (std::vector<int>{10, 30}));
  EXPECT_GE(elapsed, absl::Milliseconds(30));
  EXPECT_EQ(loop.pending_timer_count(), 0u);
}

TEST(EventLoopTest, OneShotTimerStopsWhenDestroyed) {
  EventLoop loop;
  bool fired = false;
  {
    OneShotTimer timer;
    timer.Start(absl::Milliseconds(1), [&] { fired = true; });
    EXPECT_TRUE(timer.IsRunning());
  }
  loop.PostDelayedTask(absl::Milliseconds(5), [&] { loop.Quit(); });
  loop.Run();
  EXPECT_FALSE(fired);
}

class PipeReader : public FdWatcher {
 public:
  void OnFdReadable(int fd) override {
    char buf[16];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) data.append(buf, n);
    if (on_read) on_read();
  }
  void OnFdWritable(int fd) override { ++writable; }
  std::string data;
  int writable = 0;
  std::function<void()> on_read;
};

TEST(EventLoopTest, WatchesDescriptorsAndStopsWatching) {
  EventLoop loop;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  PipeReader reader;
  auto controller = std::make_unique<FdWatchController>();
  ASSERT_TRUE(controller->Watch(&loop, fds[0], true, false, &reader));
  EXPECT_EQ(loop.watched_fd_count(), 1u);
  reader.on_read = [&] { loop.Quit(); };
  std::thread writer([&] { (void)!write(fds[1], "hello", 5); });
  loop.Run();
  writer.join();
  EXPECT_EQ(reader.data, "hello");
  // A callback that destroys its own controller must be safe.
  reader.on_read = [&] { controller.reset(); };
  (void)!write(fds[1], "x", 1);
  loop.RunUntilIdle();
  EXPECT_EQ(loop.watched_fd_count(), 0u);
  close(fds[0]);
  close(fds[1]);
}

TEST(EventLoopTest, PostTaskFromAnotherThreadWakesTheLoop) {
  EventLoop loop;
  bool ran = false;
  std::thread other([&] {
    usleep(10000);
    loop.PostTask([&] {
      ran = true;
      loop.Quit();
    });
  });
  loop.Run();
  other.join();
  EXPECT_TRUE(ran);
}

TEST(EventLoopTest, TimerFiresWithSubMillisecondPrecision) {
  EventLoop loop;
  TimeTicks start = TimeTicks::Now();
  TimeTicks fired;
  loop.PostDelayedTask(absl::Milliseconds(20), [&] {
    fired = TimeTicks::Now();
    loop.Quit();
  });
  loop.Run();
  EXPECT_GE(fired - start, absl::Milliseconds(20));
  // Generous for a noisy machine; the point is no millisecond rounding-up
  // of every wait.
  EXPECT_LT(fired - start, absl::Milliseconds(40));
}

}  // namespace
}  // namespace net
