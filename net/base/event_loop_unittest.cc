#include "net/base/event_loop.h"

#include <unistd.h>

#include <array>
#include <functional>
#include <memory>
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
  // Delays count from posting: the clock starts before the first post.
  TimeTicks start = TimeTicks::Now();
  loop.PostDelayedTask(absl::Milliseconds(30), [&] {
    order.push_back(30);
    loop.Quit();
  });
  loop.PostDelayedTask(absl::Milliseconds(10), [&] { order.push_back(10); });
  EventLoop::TimerId cancelled = loop.PostDelayedTask(
      absl::Milliseconds(20), [&] { order.push_back(20); });
  loop.CancelDelayedTask(cancelled);
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

void BusyWait(absl::Duration d) {
  TimeTicks until = TimeTicks::Now() + d;
  while (TimeTicks::Now() < until) {
  }
}

// A watcher that never drains its pipe: the descriptor stays ready on every
// turn, and each callback costs 3 ms.
class SlowNeverDrainingReader : public FdWatcher {
 public:
  void OnFdReadable(int fd) override {
    ++calls;
    BusyWait(absl::Milliseconds(3));
  }
  void OnFdWritable(int fd) override {}
  int calls = 0;
};

// Timers fire on time even when more descriptors are ready than one turn
// dispatches (64) and each callback is slow: the loop runs due timers
// between callbacks, not only between turns.
TEST(EventLoopTest, TimersFireOnTimeWhileManyDescriptorsStayReady) {
  EventLoop loop;
  constexpr int kPipes = 100;
  std::vector<std::array<int, 2>> pipes(kPipes);
  std::vector<std::unique_ptr<FdWatchController>> controllers;
  SlowNeverDrainingReader reader;
  for (auto& p : pipes) {
    ASSERT_EQ(pipe(p.data()), 0);
    ASSERT_EQ(write(p[1], "x", 1), 1);
    controllers.push_back(std::make_unique<FdWatchController>());
    ASSERT_TRUE(controllers.back()->Watch(&loop, p[0], true, false, &reader));
  }
  TimeTicks start = TimeTicks::Now();
  TimeTicks fired;
  loop.PostDelayedTask(absl::Milliseconds(30), [&] {
    fired = TimeTicks::Now();
    loop.Quit();
  });
  loop.Run();
  EXPECT_GT(reader.calls, 0);
  EXPECT_GE(fired - start, absl::Milliseconds(30));
  // One turn of 64 callbacks takes about 190 ms.
  EXPECT_LT(fired - start, absl::Milliseconds(30 + 50));
  controllers.clear();
  for (auto& p : pipes) {
    close(p[0]);
    close(p[1]);
  }
}

// Timers fire on time behind a backlog of posted tasks, too.
TEST(EventLoopTest, TimersFireOnTimeBehindABacklogOfPostedTasks) {
  EventLoop loop;
  int ran = 0;
  for (int i = 0; i < 300; ++i) {
    loop.PostTask([&] {
      ++ran;
      BusyWait(absl::Milliseconds(1));
    });
  }
  TimeTicks start = TimeTicks::Now();
  TimeTicks fired;
  int ran_before_timer = -1;
  loop.PostDelayedTask(absl::Milliseconds(20), [&] {
    fired = TimeTicks::Now();
    ran_before_timer = ran;
  });
  while (ran < 300 || fired.is_null()) loop.RunUntilIdle();
  EXPECT_GE(fired - start, absl::Milliseconds(20));
  EXPECT_LT(fired - start, absl::Milliseconds(20 + 50));
  EXPECT_LT(ran_before_timer, 300);
  // Posted tasks still run in order and all of them run.
  EXPECT_EQ(ran, 300);
}

}  // namespace
}  // namespace net
