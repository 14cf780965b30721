#include "net/base/worker_pool.h"

namespace net {

WorkerPool::WorkerPool(int threads) {
  if (threads < 1) threads = 1;
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] { WorkerMain(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::PostTask(absl::AnyInvocable<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  work_ready_.notify_one();
}

void WorkerPool::PostTaskAndReply(absl::AnyInvocable<void()> work,
                                  absl::AnyInvocable<void()> reply) {
  EventLoop* loop = EventLoop::Current();
  PostTask([loop, work = std::move(work), reply = std::move(reply)]() mutable {
    work();
    loop->PostTask(std::move(reply));
  });
}

void WorkerPool::WorkerMain() {
  for (;;) {
    absl::AnyInvocable<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_ready_.wait(lock,
                       [this] { return !queue_.empty() || shutting_down_; });
      if (queue_.empty()) return;  // Shutting down with nothing left.
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace net
