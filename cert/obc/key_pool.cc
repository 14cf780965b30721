#include "cert/obc/key_pool.h"

#include <algorithm>
#include <utility>

namespace net {

class KeyPool::RequestImpl : public KeyPool::Request {
 public:
  RequestImpl(KeyPool* pool, KeyAlgorithm algorithm, TakeResult* result,
              CompletionOnceCallback callback, TimeTicks start)
      : pool_(pool),
        algorithm_(algorithm),
        result_(result),
        callback_(std::move(callback)),
        start_(start) {}
  ~RequestImpl() override {
    if (pool_ != nullptr) pool_->CancelRequest(this);
  }

  KeyAlgorithm algorithm() const { return algorithm_; }
  TimeTicks start() const { return start_; }
  TakeResult* result() const { return result_; }
  // Detach unhooks the request from the pool and hands back its callback.
  CompletionOnceCallback Detach() {
    pool_ = nullptr;
    return std::move(callback_);
  }

 private:
  KeyPool* pool_;
  const KeyAlgorithm algorithm_;
  TakeResult* const result_;
  CompletionOnceCallback callback_;
  const TimeTicks start_;
};

KeyPool::KeyPool(WorkerPool* workers, Options options)
    : workers_(workers), options_(std::move(options)) {
  if (!options_.generator) {
    options_.generator = [](KeyAlgorithm algorithm) {
      return MakeKeyMaterial(algorithm, absl::Now());
    };
  }
  for (KeyAlgorithm a : kAllKeyAlgorithms) {
    state(a).target =
        std::max(0, options_.target_depth[static_cast<size_t>(a)]);
    StartJobs(a);
  }
}

KeyPool::~KeyPool() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  for (AlgorithmState& s : states_) {
    for (RequestImpl* request : s.waiters) request->Detach();
  }
}

int KeyPool::Take(KeyAlgorithm algorithm, TakeResult* result,
                  CompletionOnceCallback callback,
                  std::unique_ptr<Request>* out_request) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  AlgorithmState& s = state(algorithm);
  if (!s.pooled.empty()) {
    ++stats_.hits;
    result->material = std::move(s.pooled.front());
    s.pooled.pop_front();
    result->pooled = true;
    result->wait = absl::ZeroDuration();
    if (options_.refill_delay > absl::ZeroDuration()) {
      s.refill_deferred = true;
      s.refill_timer.Start(options_.refill_delay, [this, algorithm] {
        state(algorithm).refill_deferred = false;
        StartJobs(algorithm);
      });
    }
    StartJobs(algorithm);  // Top the pool back up (unless deferred).
    return OK;
  }
  ++stats_.misses;
  auto request = std::make_unique<RequestImpl>(
      this, algorithm, result, std::move(callback), options_.clock->NowTicks());
  s.waiters.push_back(request.get());
  *out_request = std::move(request);
  StartJobs(algorithm);
  return ERR_IO_PENDING;
}

void KeyPool::SetTargetDepth(KeyAlgorithm algorithm, int depth) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  AlgorithmState& s = state(algorithm);
  s.target = std::max(0, depth);
  s.refill_deferred = false;
  s.refill_timer.Stop();
  StartJobs(algorithm);
}

int KeyPool::WaitUntilFull(CompletionOnceCallback callback) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (IsFull()) return OK;
  full_waiters_.push_back(std::move(callback));
  return ERR_IO_PENDING;
}

bool KeyPool::IsFull() const {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  for (const AlgorithmState& s : states_) {
    if (static_cast<int>(s.pooled.size()) < s.target) return false;
  }
  return true;
}

void KeyPool::StartJobs(KeyAlgorithm algorithm) {
  AlgorithmState& s = state(algorithm);
  const int waiting = static_cast<int>(s.waiters.size());
  WorkerPool* const refill_pool = options_.refill_workers;
  auto start_job = [this, algorithm, &s](bool background) {
    ++s.in_flight;
    if (background) ++s.in_flight_background;
    Generator generator = options_.generator;
    WorkerPool* pool = background ? options_.refill_workers : workers_;
    pool->PostTaskAndReplyWithResult<absl::StatusOr<ObcKeyMaterial>>(
        [generator, algorithm] { return generator(algorithm); },
        [weak = weak_factory_.GetWeakPtr(), algorithm,
         background](absl::StatusOr<ObcKeyMaterial> material) {
          if (KeyPool* pool = weak.get())
            pool->OnKeyMade(algorithm, background, std::move(material));
        });
  };
  if (refill_pool == nullptr) {
    // Every waiting request gets a job of its own at once (a running refill
    // counts: it will finish first), so a miss never queues behind refills.
    while (s.in_flight < waiting) start_job(false);
    if (s.refill_deferred) return;
    // Refill up to the target, a bounded number of jobs at a time.
    while (static_cast<int>(s.pooled.size()) + s.in_flight <
               s.target + waiting &&
           s.in_flight < waiting + options_.max_refill_jobs) {
      start_job(false);
    }
    return;
  }
  // Background refills do not count for waiters: a waiter must not depend
  // on a low-priority job. Whichever key comes first serves it.
  while (s.in_flight - s.in_flight_background < waiting) start_job(false);
  if (s.refill_deferred) return;
  while (static_cast<int>(s.pooled.size()) + s.in_flight < s.target + waiting &&
         s.in_flight_background < options_.max_refill_jobs) {
    start_job(true);
  }
}

void KeyPool::OnKeyMade(KeyAlgorithm algorithm, bool background,
                        absl::StatusOr<ObcKeyMaterial> material) {
  AlgorithmState& s = state(algorithm);
  --s.in_flight;
  if (background) --s.in_flight_background;
  std::vector<std::pair<CompletionOnceCallback, int>> to_run;
  if (material.ok()) {
    ++stats_.generated;
    if (!s.waiters.empty()) {
      RequestImpl* request = s.waiters.front();
      s.waiters.pop_front();
      TakeResult* result = request->result();
      result->material = std::move(*material);
      result->pooled = false;
      result->wait = options_.clock->NowTicks() - request->start();
      to_run.emplace_back(request->Detach(), OK);
    } else {
      s.pooled.push_back(std::move(*material));
    }
  } else {
    ++stats_.failures;
    // A failed job fails the request that was waiting longest; generation
    // errors come from allocation failures, so retrying would not help it.
    if (!s.waiters.empty()) {
      RequestImpl* request = s.waiters.front();
      s.waiters.pop_front();
      to_run.emplace_back(request->Detach(), ERR_OBC_KEY_GENERATION_FAILED);
    }
  }
  // Refill only after successes: a generator that keeps failing must not
  // spin the workers. The next Take() tries again.
  if (material.ok() || !s.waiters.empty()) StartJobs(algorithm);
  if (IsFull()) {
    for (CompletionOnceCallback& cb : full_waiters_)
      to_run.emplace_back(std::move(cb), OK);
    full_waiters_.clear();
  }
  // Callbacks last, each guarded: any of them may destroy the pool.
  WeakPtr<KeyPool> weak = weak_factory_.GetWeakPtr();
  for (auto& [callback, rv] : to_run) {
    if (!weak) return;
    callback(rv);
  }
}

void KeyPool::CancelRequest(RequestImpl* request) {
  AlgorithmState& s = state(request->algorithm());
  auto it = std::find(s.waiters.begin(), s.waiters.end(), request);
  if (it != s.waiters.end()) s.waiters.erase(it);
  // The job started for it keeps running; its key goes to the pool.
}

}  // namespace net
