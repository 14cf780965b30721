// EventLoop is the single thread that runs a netem relay: an epoll set for
// socket readiness plus a CLOCK_MONOTONIC timerfd armed at the earliest
// pending wake-up, which gives timers microsecond-level accuracy. The loop
// owns every Handler added to it (listeners, TCP connections, UDP mappings)
// and destroys them when they Close() or when the loop is torn down. All
// methods except Quit() must be called on the loop thread (or before Run()).

#ifndef TOOLS_NETEM_EVENT_LOOP_H_
#define TOOLS_NETEM_EVENT_LOOP_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <queue>
#include <vector>

#include "absl/status/status.h"
#include "tools/netem/socket_address.h"

namespace netem {

// Returns CLOCK_MONOTONIC in nanoseconds.
int64_t MonotonicNowNs();

class EventLoop {
 public:
  // A file descriptor watched for a Handler, with the interest set currently
  // registered. The handler owns the descriptor.
  struct WatchedFd {
    ScopedFd fd;
    int tag = 0;          // passed back to OnFdReady()
    uint32_t events = 0;  // current epoll interest; 0 = not registered
  };

  // Something the loop drives. Subclasses are created, passed to Add(), and
  // then started; they call Close() when finished and are deleted by the
  // loop once the current callback returns.
  class Handler {
   public:
    virtual ~Handler() = default;
    Handler(const Handler&) = delete;
    Handler& operator=(const Handler&) = delete;

    // A watched descriptor with tag `tag` reported `events` (EPOLLIN, ...).
    virtual void OnFdReady(int tag, uint32_t events) = 0;
    // A wake-up requested with WakeAt() is due (possibly a stale one).
    virtual void OnTimer(int64_t now_ns) {}

    uint64_t id() const { return id_; }
    bool closed() const { return closed_; }

   protected:
    explicit Handler(EventLoop* loop) : loop_(loop) {}
    EventLoop* loop() const { return loop_; }
    // Sets the epoll interest of `watched` to `events` (0 removes it, so a
    // socket that is hung up but not wanted does not spin the loop).
    void Watch(WatchedFd* watched, uint32_t events);
    // Asks for OnTimer() at or soon after `when_ns`.
    void WakeAt(int64_t when_ns);
    // Marks this handler finished; the loop deletes it after the callback.
    void Close();

   private:
    friend class EventLoop;
    EventLoop* const loop_;
    uint64_t id_ = 0;
    bool closed_ = false;
  };

  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Creates the epoll set, timerfd and wake-up eventfd.
  absl::Status Init();

  // Takes ownership of `handler` and returns it.
  template <typename T>
  T* Add(std::unique_ptr<T> handler) {
    T* raw = handler.get();
    AddHandler(std::unique_ptr<Handler>(std::move(handler)));
    return raw;
  }

  // Returns the live handler with `id`, or nullptr if it is gone.
  Handler* Find(uint64_t id) const;

  // Runs until Quit(), then deletes every handler (newest first), which
  // closes their sockets.
  void Run();

  // Makes Run() return. Safe from any thread and from signal-free contexts.
  void Quit();

  size_t handler_count() const { return handlers_.size(); }

 private:
  struct Wake {
    int64_t when_ns;
    uint64_t id;
    bool operator>(const Wake& o) const { return when_ns > o.when_ns; }
  };

  void AddHandler(std::unique_ptr<Handler> handler);
  void RunDueTimers();
  void ArmTimer();
  void Reap();

  ScopedFd epoll_fd_;
  ScopedFd timer_fd_;
  ScopedFd wake_fd_;
  std::atomic<bool> quit_{false};
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::unique_ptr<Handler>> handlers_;
  std::vector<uint64_t> closing_;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<Wake>> wakes_;
  int64_t armed_ns_ = -1;  // absolute expiry programmed in timer_fd_
};

}  // namespace netem

#endif  // TOOLS_NETEM_EVENT_LOOP_H_
