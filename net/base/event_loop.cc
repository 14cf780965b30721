#include "net/base/event_loop.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

namespace net {
namespace {

thread_local EventLoop* g_current_loop = nullptr;

// Registration ids 1 and 2 are reserved for the loop's own descriptors.
constexpr uint64_t kWakeReg = 1;
constexpr uint64_t kTimerReg = 2;

[[noreturn]] void DieWithErrno(const char* what) {
  std::cerr << "EventLoop: " << what << ": " << std::strerror(errno) << "\n";
  std::abort();
}

int64_t NowUs() { return TimeTicks::Now().ToMicroseconds(); }

}  // namespace

EventLoop::EventLoop() : thread_id_(std::this_thread::get_id()) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0 || timer_fd_ < 0) DieWithErrno("create");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeReg;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0)
    DieWithErrno("epoll_ctl wake");
  ev.data.u64 = kTimerReg;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, timer_fd_, &ev) != 0)
    DieWithErrno("epoll_ctl timer");
  next_watch_id_ = 3;
  if (g_current_loop == nullptr) g_current_loop = this;
}

EventLoop::~EventLoop() {
  for (auto& [reg, controller] : watches_) {
    controller->reg_ = 0;
    controller->loop_ = nullptr;
  }
  if (g_current_loop == this) g_current_loop = nullptr;
  close(timer_fd_);
  {
    // Another thread's PostTask or Quit writes the wake-up under the lock:
    // it finishes before the descriptor is closed (and its number reused).
    std::lock_guard<std::mutex> lock(mu_);
    close(wake_fd_);
    wake_fd_ = -1;
  }
  close(epoll_fd_);
}

EventLoop* EventLoop::Current() { return g_current_loop; }

void EventLoop::PostTask(Task task) {
  std::lock_guard<std::mutex> lock(mu_);
  posted_.push_back(std::move(task));
  WakeLocked();
}

void EventLoop::WakeLocked() {
  // Under mu_: the loop's thread may return from Run and destroy the loop as
  // soon as it sees the task or quit_, and the destructor closes wake_fd_
  // under mu_ too. A full eventfd counter already guarantees a wake-up.
  uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!write(wake_fd_, &one, sizeof(one));
}

EventLoop::TimerId EventLoop::PostDelayedTask(absl::Duration delay, Task task) {
  TimerId id = next_timer_id_++;
  int64_t deadline = NowUs() + absl::ToInt64Microseconds(delay);
  timers_.emplace(TimerKey{deadline, id}, std::move(task));
  timer_deadlines_[id] = deadline;
  return id;
}

void EventLoop::CancelDelayedTask(TimerId id) {
  auto it = timer_deadlines_.find(id);
  if (it == timer_deadlines_.end()) return;
  timers_.erase(TimerKey{it->second, id});
  timer_deadlines_.erase(it);
}

void EventLoop::Quit() {
  std::lock_guard<std::mutex> lock(mu_);
  quit_ = true;
  WakeLocked();
}

void EventLoop::Run() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (quit_) {
        quit_ = false;
        return;
      }
    }
    RunOnce(/*may_block=*/true);
  }
}

void EventLoop::RunUntilIdle() {
  while (RunOnce(/*may_block=*/false)) {
  }
}

bool EventLoop::RunPostedTasks() {
  std::deque<Task> tasks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks.swap(posted_);
  }
  // Only the tasks queued when the turn began (a task that posts another
  // does not extend it), and due timers between them: a long backlog must
  // not hold a deadline back.
  for (Task& task : tasks) {
    task();
    RunTimersIfDue();
  }
  return !tasks.empty();
}

bool EventLoop::RunExpiredTimers() {
  bool ran = false;
  int64_t now = NowUs();
  // Only timers that existed when this call began: a timer that re-arms
  // itself with no delay runs once per call, not forever.
  const TimerId first_new_id = next_timer_id_;
  while (!timers_.empty() && timers_.begin()->first.deadline_us <= now) {
    auto it = timers_.begin();
    if (it->first.id >= first_new_id) {
      // Added during this call: leave it for the next one, and look for a
      // due timer that is older.
      auto old = std::find_if(it, timers_.end(), [&](const auto& entry) {
        return entry.first.deadline_us > now || entry.first.id < first_new_id;
      });
      if (old == timers_.end() || old->first.deadline_us > now) break;
      it = old;
    }
    Task task = std::move(it->second);
    timer_deadlines_.erase(it->first.id);
    timers_.erase(it);
    task();
    ran = true;
  }
  return ran;
}

void EventLoop::RunTimersIfDue() {
  if (!timers_.empty() && timers_.begin()->first.deadline_us <= NowUs())
    RunExpiredTimers();
}

void EventLoop::ArmTimerFd() {
  int64_t deadline = timers_.empty() ? 0 : timers_.begin()->first.deadline_us;
  if (deadline == armed_deadline_us_) return;
  armed_deadline_us_ = deadline;
  itimerspec spec{};
  if (deadline != 0) {
    // TimeTicks::Now() adds 1 us to CLOCK_MONOTONIC; undo it here.
    int64_t mono_us = deadline - 1;
    spec.it_value.tv_sec = mono_us / 1'000'000;
    spec.it_value.tv_nsec = (mono_us % 1'000'000) * 1000;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0)
      spec.it_value.tv_nsec = 1;
  }
  if (timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr) != 0)
    DieWithErrno("timerfd_settime");
}

bool EventLoop::RunOnce(bool may_block) {
  bool did_work = RunPostedTasks();
  did_work |= RunExpiredTimers();

  bool has_posted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    has_posted = !posted_.empty() || quit_;
  }
  ArmTimerFd();
  int timeout_ms = (may_block && !has_posted && !did_work) ? -1 : 0;

  epoll_event events[64];
  int n = epoll_wait(epoll_fd_, events, 64, timeout_ms);
  if (n < 0) {
    if (errno == EINTR) return did_work;
    DieWithErrno("epoll_wait");
  }
  for (int i = 0; i < n; ++i) {
    uint64_t reg = events[i].data.u64;
    if (reg == kWakeReg) {
      uint64_t value;
      (void)!read(wake_fd_, &value, sizeof(value));
      continue;
    }
    if (reg == kTimerReg) {
      uint64_t expirations;
      (void)!read(timer_fd_, &expirations, sizeof(expirations));
      armed_deadline_us_ = -1;
      continue;
    }
    did_work = true;
    // Due timers run between descriptor callbacks, not only between turns:
    // up to 64 slow callbacks must not hold a deadline back.
    if (i > 0) RunTimersIfDue();
    uint32_t ev = events[i].events;
    // Look the registration up before each callback: an earlier callback in
    // this batch may have stopped or destroyed it.
    auto it = watches_.find(reg);
    if (it == watches_.end()) continue;
    FdWatchController* c = it->second;
    bool error = ev & (EPOLLERR | EPOLLHUP);
    if ((ev & EPOLLIN || error) && (c->events_ & EPOLLIN)) {
      c->watcher_->OnFdReadable(c->fd_);
    }
    it = watches_.find(reg);
    if (it == watches_.end()) continue;
    c = it->second;
    if ((ev & EPOLLOUT || error) && (c->events_ & EPOLLOUT)) {
      c->watcher_->OnFdWritable(c->fd_);
    }
  }
  return did_work || n > 0;
}

uint64_t EventLoop::AddWatch(int fd, uint32_t events,
                             FdWatchController* controller) {
  uint64_t reg = next_watch_id_++;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = reg;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return 0;
  watches_[reg] = controller;
  return reg;
}

void EventLoop::ModifyWatch(uint64_t reg, int fd, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = reg;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0)
    DieWithErrno("epoll_ctl mod");
}

void EventLoop::RemoveWatch(uint64_t reg, int fd) {
  // The descriptor may already be closed; that removed it from epoll.
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  watches_.erase(reg);
}

FdWatchController::~FdWatchController() { StopWatching(); }

bool FdWatchController::Watch(EventLoop* loop, int fd, bool read, bool write,
                              FdWatcher* watcher) {
  uint32_t events = (read ? EPOLLIN : 0) | (write ? EPOLLOUT : 0);
  if (events == 0) {
    StopWatching();
    return true;
  }
  if (reg_ != 0 && (loop != loop_ || fd != fd_)) StopWatching();
  watcher_ = watcher;
  if (reg_ == 0) {
    loop_ = loop;
    fd_ = fd;
    reg_ = loop->AddWatch(fd, events, this);
    events_ = events;
    return reg_ != 0;
  }
  if (events != events_) {
    loop_->ModifyWatch(reg_, fd_, events);
    events_ = events;
  }
  return true;
}

void FdWatchController::StopWatching() {
  if (reg_ == 0) return;
  if (loop_) loop_->RemoveWatch(reg_, fd_);
  reg_ = 0;
  events_ = 0;
  loop_ = nullptr;
  fd_ = -1;
}

void OneShotTimer::Start(absl::Duration delay, EventLoop::Task task) {
  Stop();
  loop_ = EventLoop::Current();
  id_ = loop_->PostDelayedTask(delay, [this, task = std::move(task)]() mutable {
    id_ = 0;
    task();
  });
}

void OneShotTimer::Stop() {
  if (id_ != 0 && loop_) loop_->CancelDelayedTask(id_);
  id_ = 0;
}

}  // namespace net
