// EventLoop runs the relay's handlers (listeners, connections, UDP
// mappings) on net/base's event loop (net::EventLoop: one epoll loop for the
// whole project, no second one here). It keeps the handlers, owns them, maps
// each watched descriptor back to its handler and tag, and turns the
// handlers' absolute wake-up times into one net::OneShotTimer. Handlers may
// be added and watch descriptors before Run(); Run() creates the
// net::EventLoop on the calling thread (the relay's own), applies them, and
// returns after Quit(). Only Quit() is thread-safe.

#ifndef TOOLS_NETEM_EVENT_LOOP_H_
#define TOOLS_NETEM_EVENT_LOOP_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <vector>

#include "absl/status/status.h"
#include "net/base/event_loop.h"
#include "tools/netem/socket_address.h"

namespace netem {

// Returns CLOCK_MONOTONIC in nanoseconds.
int64_t MonotonicNowNs();

class EventLoop : public net::FdWatcher {
 public:
  // A file descriptor watched for a Handler, with the interest set currently
  // registered. The handler owns the descriptor.
  struct WatchedFd {
    ScopedFd fd;
    int tag = 0;          // passed back to OnFdReady()
    uint32_t events = 0;  // current interest (EPOLLIN, EPOLLOUT); 0 = none
    // The registration with net::EventLoop; declared after |fd| so that it
    // is dropped before the descriptor closes.
    std::unique_ptr<net::FdWatchController> watch;
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
  ~EventLoop() override;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Nothing to set up (the net::EventLoop is made by Run()); kept so that
  // callers need not know. Always OK.
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

  // Runs a net::EventLoop on this thread until Quit(), then deletes every
  // handler (newest first), which closes their sockets.
  void Run();

  // Makes Run() return (or not start). Thread-safe.
  void Quit();

  size_t handler_count() const { return handlers_.size(); }

 private:
  struct Wake {
    int64_t when_ns;
    uint64_t id;
    bool operator>(const Wake& o) const { return when_ns > o.when_ns; }
  };
  struct Owner {
    uint64_t id;
    int tag;
  };

  // net::FdWatcher: a watched descriptor is ready; its handler hears EPOLLIN
  // or EPOLLOUT (errors and hang-ups come as whichever it watches).
  void OnFdReadable(int fd) override { Dispatch(fd, EPOLLIN_BIT); }
  void OnFdWritable(int fd) override { Dispatch(fd, EPOLLOUT_BIT); }
  static constexpr uint32_t EPOLLIN_BIT = 0x001;   // EPOLLIN
  static constexpr uint32_t EPOLLOUT_BIT = 0x004;  // EPOLLOUT

  void AddHandler(std::unique_ptr<Handler> handler);
  void ApplyWatch(WatchedFd* watched);
  void Dispatch(int fd, uint32_t events);
  void RunDueTimers();
  void ArmTimer();
  void Reap();

  std::atomic<bool> quit_{false};
  std::mutex mu_;
  net::EventLoop* net_loop_ = nullptr;  // while Run() runs; guarded by mu_
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::unique_ptr<Handler>> handlers_;
  std::map<int, Owner> owners_;      // watched descriptor -> handler
  std::vector<WatchedFd*> pending_;  // watched before Run()
  std::vector<uint64_t> closing_;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<Wake>> wakes_;
  int64_t armed_ns_ = -1;  // the wake-up net::OneShotTimer is set for
  std::unique_ptr<net::OneShotTimer> timer_;
};

}  // namespace netem

#endif  // TOOLS_NETEM_EVENT_LOOP_H_
