#include "tools/netem/event_loop.h"

#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>

#include "absl/time/time.h"

namespace netem {

static_assert(EPOLLIN == 0x001 && EPOLLOUT == 0x004, "epoll bits");

int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void EventLoop::Handler::Watch(WatchedFd* watched, uint32_t events) {
  if (!watched->fd.is_valid() || watched->events == events) return;
  watched->events = events;
  loop_->owners_[watched->fd.get()] = Owner{id_, watched->tag};
  loop_->ApplyWatch(watched);
}

void EventLoop::Handler::WakeAt(int64_t when_ns) {
  loop_->wakes_.push(Wake{when_ns, id_});
  loop_->ArmTimer();
}

void EventLoop::Handler::Close() {
  if (closed_) return;
  closed_ = true;
  loop_->closing_.push_back(id_);
}

EventLoop::EventLoop() = default;

EventLoop::~EventLoop() {
  // Newest first: UDP mappings go before the listener that created them.
  while (!handlers_.empty()) handlers_.erase(std::prev(handlers_.end()));
}

absl::Status EventLoop::Init() { return absl::OkStatus(); }

void EventLoop::AddHandler(std::unique_ptr<Handler> handler) {
  handler->id_ = ++next_id_;
  handlers_[handler->id_] = std::move(handler);
}

EventLoop::Handler* EventLoop::Find(uint64_t id) const {
  auto it = handlers_.find(id);
  return it == handlers_.end() || it->second->closed_ ? nullptr
                                                      : it->second.get();
}

void EventLoop::ApplyWatch(WatchedFd* watched) {
  net::EventLoop* loop = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    loop = net_loop_;
  }
  if (loop == nullptr) {
    pending_.push_back(watched);  // Run() applies it
    return;
  }
  if (!watched->watch) {
    watched->watch = std::make_unique<net::FdWatchController>();
  }
  watched->watch->Watch(loop, watched->fd.get(), watched->events & EPOLLIN,
                        watched->events & EPOLLOUT, this);
}

void EventLoop::Dispatch(int fd, uint32_t events) {
  auto it = owners_.find(fd);
  if (it == owners_.end()) return;
  if (Handler* h = Find(it->second.id)) {
    h->OnFdReady(it->second.tag, events);
    Reap();
    ArmTimer();
  }
}

void EventLoop::Quit() {
  quit_.store(true);
  std::lock_guard<std::mutex> lock(mu_);
  if (net_loop_ != nullptr) net_loop_->Quit();
}

void EventLoop::Reap() {
  // Deleting a handler drops its registrations and closes its sockets.
  while (!closing_.empty()) {
    uint64_t id = closing_.back();
    closing_.pop_back();
    for (auto it = owners_.begin(); it != owners_.end();) {
      it = it->second.id == id ? owners_.erase(it) : std::next(it);
    }
    handlers_.erase(id);
  }
}

void EventLoop::RunDueTimers() {
  int64_t now = MonotonicNowNs();
  while (!wakes_.empty() && wakes_.top().when_ns <= now) {
    uint64_t id = wakes_.top().id;
    wakes_.pop();
    if (Handler* h = Find(id)) {
      h->OnTimer(now);
      Reap();
    }
    if (wakes_.empty() || wakes_.top().when_ns > now) {
      now = MonotonicNowNs();
    }
  }
}

void EventLoop::ArmTimer() {
  if (!timer_) return;  // not running yet: Run() arms it
  int64_t next = wakes_.empty() ? -1 : wakes_.top().when_ns;
  if (next == armed_ns_ && timer_->IsRunning()) return;
  armed_ns_ = next;
  if (next < 0) {
    timer_->Stop();
    return;
  }
  int64_t wait = next - MonotonicNowNs();
  timer_->Start(absl::Nanoseconds(wait > 0 ? wait : 0), [this] {
    armed_ns_ = -1;
    RunDueTimers();
    ArmTimer();
  });
}

void EventLoop::Run() {
  // The default 50 us timer slack would be a visible share of the error
  // budget; ask the kernel to fire timers as exactly as it can.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  net::EventLoop loop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!quit_.load()) net_loop_ = &loop;
  }
  if (net_loop_ != nullptr) {
    timer_ = std::make_unique<net::OneShotTimer>();
    std::vector<WatchedFd*> pending;
    pending.swap(pending_);
    for (WatchedFd* w : pending) ApplyWatch(w);
    RunDueTimers();
    ArmTimer();
    loop.Run();
    {
      std::lock_guard<std::mutex> lock(mu_);
      net_loop_ = nullptr;
    }
  }
  // Handlers go while the net::EventLoop still exists: their descriptors
  // unregister from it.
  while (!handlers_.empty()) handlers_.erase(std::prev(handlers_.end()));
  owners_.clear();
  timer_.reset();
}

}  // namespace netem
