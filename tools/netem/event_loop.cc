#include "tools/netem/event_loop.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace netem {
namespace {

// epoll tokens: handler id in the high bits, the handler's tag in the low 16.
constexpr uint64_t kTimerToken = 0;
constexpr uint64_t kWakeToken = 1;
constexpr int kTagBits = 16;

uint64_t Token(uint64_t id, int tag) {
  return (id << kTagBits) | static_cast<uint16_t>(tag);
}

}  // namespace

int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void EventLoop::Handler::Watch(WatchedFd* watched, uint32_t events) {
  if (!watched->fd.is_valid() || watched->events == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = Token(id_, watched->tag);
  int op = watched->events == 0 ? EPOLL_CTL_ADD
           : events == 0        ? EPOLL_CTL_DEL
                                : EPOLL_CTL_MOD;
  if (epoll_ctl(loop_->epoll_fd_.get(), op, watched->fd.get(), &ev) == 0) {
    watched->events = events;
  }
}

void EventLoop::Handler::WakeAt(int64_t when_ns) {
  loop_->wakes_.push(Wake{when_ns, id_});
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

absl::Status EventLoop::Init() {
  epoll_fd_.reset(epoll_create1(EPOLL_CLOEXEC));
  timer_fd_.reset(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  wake_fd_.reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!epoll_fd_.is_valid() || !timer_fd_.is_valid() || !wake_fd_.is_valid()) {
    return absl::InternalError(
        absl::StrCat("event loop setup: ", std::strerror(errno)));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kTimerToken;
  epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, timer_fd_.get(), &ev);
  ev.data.u64 = kWakeToken;
  epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, wake_fd_.get(), &ev);
  return absl::OkStatus();
}

void EventLoop::AddHandler(std::unique_ptr<Handler> handler) {
  handler->id_ = ++next_id_;  // ids 0 and 1 are the loop's own tokens
  handlers_[handler->id_] = std::move(handler);
}

EventLoop::Handler* EventLoop::Find(uint64_t id) const {
  auto it = handlers_.find(id);
  return it == handlers_.end() || it->second->closed_ ? nullptr
                                                      : it->second.get();
}

void EventLoop::Quit() {
  quit_.store(true);
  uint64_t one = 1;
  // The eventfd cannot overflow here; a failed write only means it is
  // already readable.
  [[maybe_unused]] ssize_t n = write(wake_fd_.get(), &one, sizeof(one));
}

void EventLoop::Reap() {
  // Deleting a handler closes its sockets, which also drops them from epoll.
  // Events already fetched for it are skipped because its id is gone.
  while (!closing_.empty()) {
    uint64_t id = closing_.back();
    closing_.pop_back();
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
  int64_t next = wakes_.empty() ? -1 : wakes_.top().when_ns;
  if (next == armed_ns_) return;
  itimerspec spec{};
  if (next >= 0) {
    // An absolute expiry cannot be lost to the time spent getting here; a
    // value of zero would disarm, so clamp to 1 ns.
    int64_t when = next > 0 ? next : 1;
    spec.it_value.tv_sec = when / 1'000'000'000;
    spec.it_value.tv_nsec = when % 1'000'000'000;
  }
  timerfd_settime(timer_fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_ns_ = next;
}

void EventLoop::Run() {
  // The default 50 us timer slack would be a visible share of the error
  // budget; ask the kernel to fire timers as exactly as it can.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  constexpr int kMaxEvents = 256;
  epoll_event events[kMaxEvents];
  while (!quit_.load()) {
    RunDueTimers();
    ArmTimer();
    int n = epoll_wait(epoll_fd_.get(), events, kMaxEvents, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      uint64_t token = events[i].data.u64;
      if (token == kTimerToken) {
        uint64_t expirations;
        [[maybe_unused]] ssize_t r =
            read(timer_fd_.get(), &expirations, sizeof(expirations));
        armed_ns_ = -1;
        continue;
      }
      if (token == kWakeToken) {
        uint64_t count;
        [[maybe_unused]] ssize_t r =
            read(wake_fd_.get(), &count, sizeof(count));
        continue;
      }
      if (Handler* h = Find(token >> kTagBits)) {
        h->OnFdReady(static_cast<int>(token & ((1 << kTagBits) - 1)),
                     events[i].events);
        Reap();
      }
    }
  }
  while (!handlers_.empty()) handlers_.erase(std::prev(handlers_.end()));
}

}  // namespace netem
