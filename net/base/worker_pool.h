// WorkerPool: threads for CPU-heavy or blocking work (key generation, chain
// building, getaddrinfo), whose results come back to the network thread as
// posted tasks.
//
// Owned by whoever creates it (usually the process's network context); the
// destructor finishes queued work and joins the threads. Replies are posted
// to the EventLoop that was current on the posting thread; that loop must
// outlive the pool.

#ifndef NET_BASE_WORKER_POOL_H_
#define NET_BASE_WORKER_POOL_H_

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "net/base/event_loop.h"

namespace net {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // PostTask runs |task| on a worker thread. Thread-safe.
  void PostTask(absl::AnyInvocable<void()> task);

  // PostTaskAndReply runs |work| on a worker, then |reply| on the calling
  // thread's EventLoop. Must be called on a thread with an EventLoop.
  void PostTaskAndReply(absl::AnyInvocable<void()> work,
                        absl::AnyInvocable<void()> reply);

  // PostTaskAndReplyWithResult runs |work| on a worker and passes its result
  // to |reply| on the calling thread's EventLoop.
  template <typename R>
  void PostTaskAndReplyWithResult(absl::AnyInvocable<R()> work,
                                  absl::AnyInvocable<void(R)> reply) {
    EventLoop* loop = EventLoop::Current();
    PostTask(
        [loop, work = std::move(work), reply = std::move(reply)]() mutable {
          R result = work();
          loop->PostTask(
              [reply = std::move(reply), result = std::move(result)]() mutable {
                reply(std::move(result));
              });
        });
  }

  int thread_count() const { return static_cast<int>(threads_.size()); }

 private:
  void WorkerMain();

  // std::mutex, not absl::Mutex: the first contended absl::Mutex wait in a
  // process makes Debian's Abseil measure the CPU frequency by sleeping
  // (~6 ms on a VM without tsc_freq_khz), which a one-shot fetch paid on its
  // critical path (tools/experiments vs_curl, process mode).
  std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<absl::AnyInvocable<void()>> queue_;  // guarded by mu_
  bool shutting_down_ = false;                    // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace net

#endif  // NET_BASE_WORKER_POOL_H_
