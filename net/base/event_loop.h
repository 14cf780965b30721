// EventLoop: the network thread's epoll loop with immediate tasks, timers and
// file-descriptor readiness watches.
//
// One EventLoop per network thread; it is created, run and destroyed on that
// thread and every object that watches descriptors or starts timers on it is
// affine to it. PostTask() and Quit() are the only thread-safe calls: worker
// threads return results to the network thread through PostTask().
//
// Timers use CLOCK_MONOTONIC through a timerfd with nanosecond resolution,
// so a 100 ms delay fires within a few tens of microseconds of 100 ms.

#ifndef NET_BASE_EVENT_LOOP_H_
#define NET_BASE_EVENT_LOOP_H_

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"

namespace net {

class FdWatchController;

// FdWatcher receives readiness notifications for a watched descriptor.
class FdWatcher {
 public:
  virtual ~FdWatcher() = default;
  virtual void OnFdReadable(int fd) = 0;
  virtual void OnFdWritable(int fd) = 0;
};

class EventLoop {
 public:
  using Task = absl::AnyInvocable<void()>;
  using TimerId = uint64_t;

  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Current returns the loop created on this thread, or null.
  static EventLoop* Current();

  // PostTask queues |task| to run on the loop's thread. Thread-safe.
  void PostTask(Task task);

  // PostDelayedTask runs |task| after |delay| and returns an id for
  // CancelDelayedTask. Network thread only. Prefer OneShotTimer.
  TimerId PostDelayedTask(absl::Duration delay, Task task);
  // CancelDelayedTask drops a pending delayed task; a no-op if it already ran.
  void CancelDelayedTask(TimerId id);

  // Run processes events until Quit() is called.
  void Run();
  // RunUntilIdle processes tasks, expired timers and ready descriptors until
  // none is left, without waiting.
  void RunUntilIdle();
  // Quit makes Run() return after the current event. Thread-safe.
  void Quit();

  bool RunsTasksOnCurrentThread() const {
    return std::this_thread::get_id() == thread_id_;
  }

  // Counters for tests and resource checks.
  size_t watched_fd_count() const { return watches_.size(); }
  size_t pending_timer_count() const { return timers_.size(); }

 private:
  friend class FdWatchController;
  struct TimerKey {
    int64_t deadline_us;
    TimerId id;
    bool operator<(const TimerKey& o) const {
      return deadline_us != o.deadline_us ? deadline_us < o.deadline_us
                                          : id < o.id;
    }
  };

  // One turn: run queued tasks and expired timers, then wait up to
  // |may_block| for descriptor events and dispatch them. Returns whether any
  // work was done. Expired timers also run between posted tasks and between
  // descriptor callbacks, so that a timer fires on time however much other
  // work is ready (as long as each callback itself returns promptly).
  bool RunOnce(bool may_block);
  // Writes the eventfd; mu_ held (see PostTask).
  void WakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool RunPostedTasks();
  bool RunExpiredTimers();
  // Runs expired timers if the earliest one is due.
  void RunTimersIfDue();
  void ArmTimerFd();

  uint64_t AddWatch(int fd, uint32_t events, FdWatchController* controller);
  void ModifyWatch(uint64_t reg, int fd, uint32_t events);
  void RemoveWatch(uint64_t reg, int fd);

  const std::thread::id thread_id_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;   // eventfd: PostTask from other threads.
  int timer_fd_ = -1;  // timerfd armed for the earliest timer.
  int64_t armed_deadline_us_ = -1;

  std::mutex mu_;
  std::deque<Task> posted_ ABSL_GUARDED_BY(mu_);
  bool quit_ ABSL_GUARDED_BY(mu_) = false;

  std::map<TimerKey, Task> timers_;
  absl::flat_hash_map<TimerId, int64_t> timer_deadlines_;
  TimerId next_timer_id_ = 1;

  absl::flat_hash_map<uint64_t, FdWatchController*> watches_;
  uint64_t next_watch_id_ = 1;
};

// FdWatchController registers one descriptor with a loop for read and/or
// write readiness (level-triggered) and unregisters when destroyed. The
// watcher must outlive the controller's registration.
class FdWatchController {
 public:
  FdWatchController() = default;
  ~FdWatchController();
  FdWatchController(const FdWatchController&) = delete;
  FdWatchController& operator=(const FdWatchController&) = delete;

  // Watch starts or updates the watch. Passing read=false, write=false
  // stops watching. Returns false if epoll refused the descriptor.
  bool Watch(EventLoop* loop, int fd, bool read, bool write,
             FdWatcher* watcher);
  void StopWatching();
  bool is_watching() const { return reg_ != 0; }

 private:
  friend class EventLoop;
  EventLoop* loop_ = nullptr;
  int fd_ = -1;
  uint64_t reg_ = 0;
  uint32_t events_ = 0;
  FdWatcher* watcher_ = nullptr;
};

// OneShotTimer runs a task once after a delay, on the current loop. Stopped
// when destroyed or restarted.
class OneShotTimer {
 public:
  OneShotTimer() = default;
  ~OneShotTimer() { Stop(); }
  OneShotTimer(const OneShotTimer&) = delete;
  OneShotTimer& operator=(const OneShotTimer&) = delete;

  void Start(absl::Duration delay, EventLoop::Task task);
  void Stop();
  bool IsRunning() const { return id_ != 0; }

 private:
  EventLoop* loop_ = nullptr;
  EventLoop::TimerId id_ = 0;
};

}  // namespace net

#endif  // NET_BASE_EVENT_LOOP_H_
