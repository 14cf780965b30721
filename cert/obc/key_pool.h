// KeyPool: pre-generated OBC key pairs, per algorithm, kept at a target depth
// by the worker pool, so that a first visit to a site pays no key generation.
//
// Each pooled item is a fresh key with its scope-free self-signed
// certificate (see obc_crypto.h), both made on a worker thread. Take()
// answers synchronously from the pool when it can; on a miss it returns
// ERR_IO_PENDING and the request gets the next key a worker finishes (an
// already running refill if there is one, else a job started for it), never
// generating on the network thread. Every Take() and every finished key
// tops the pool back up, with at most |max_refill_jobs| refill jobs per
// algorithm at once so refills do not monopolise the worker pool.
//
// Two options keep a refill from competing with the page load that took
// the key (an RSA-2048 refill is tens of ms of CPU): |refill_delay| starts
// the refill a Take() sets off only that long after the last such Take(),
// and |refill_workers| runs refills on a pool whose threads run at
// background priority. A waiting request always gets a job of its own on
// |workers| at once, never waiting for a delayed or background refill.
//
// Pooled keys live in memory only. Persisting unused keys would let a crash
// between "key presented to site A" and "A's certificate saved" hand the
// same key to site B on the next start, linking A and B.
//
// Owned by the network context, shared by every profile's store (pooled
// keys belong to no one yet). Created, used and destroyed on the network
// thread, where an EventLoop must be current. |workers| must outlive it.
// Destroying the pool cancels outstanding requests (their callbacks never
// run); jobs still on workers finish and their keys are dropped.

#ifndef CERT_OBC_KEY_POOL_H_
#define CERT_OBC_KEY_POOL_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "cert/obc/obc_crypto.h"
#include "cert/obc/obc_types.h"
#include "net/base/event_loop.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/base/worker_pool.h"

namespace net {

class KeyPool {
 public:
  // Generator makes one key with its certificate. It runs on worker threads,
  // concurrently, so it must be thread-safe. Tests inject slow or counting
  // generators; production uses MakeKeyMaterial.
  using Generator = std::function<absl::StatusOr<ObcKeyMaterial>(KeyAlgorithm)>;

  struct Options {
    // Target depth per algorithm, indexed by KeyAlgorithm. The default keeps
    // four ECDSA P-256 keys (the default algorithm) and no others; callers
    // that use RSA raise theirs with SetTargetDepth().
    std::array<int, kAllKeyAlgorithms.size()> target_depth = {4, 0, 0, 0};
    // Refill jobs per algorithm that may run at once (on top of one job per
    // waiting request).
    int max_refill_jobs = 1;
    // Where refill jobs (keys no request is waiting for yet) run; null:
    // |workers|. Jobs for waiting requests always run on |workers|. Not
    // owned; must outlive the pool.
    WorkerPool* refill_workers = nullptr;
    // A Take() answered from the pool starts its refill this much later
    // (and a further Take() in the meantime pushes it back). Zero: at once.
    // The initial fill and SetTargetDepth() are not delayed.
    absl::Duration refill_delay = absl::ZeroDuration();
    // Null means MakeKeyMaterial(algorithm, absl::Now()).
    Generator generator;
    // Measures how long requests wait. Not owned; must outlive the pool.
    const TickClock* clock = DefaultTickClock::GetInstance();
  };

  // TakeResult is what Take() hands over.
  struct TakeResult {
    ObcKeyMaterial material;
    // True if the key was waiting in the pool when Take() was called.
    bool pooled = false;
    // How long the request waited (zero when pooled).
    absl::Duration wait = absl::ZeroDuration();
  };

  // Request is an outstanding Take(); destroying it cancels the take (the
  // key, when it comes, goes to the pool instead).
  class Request {
   public:
    virtual ~Request() = default;
  };

  struct Stats {
    uint64_t hits = 0;       // Take() answered from the pool.
    uint64_t misses = 0;     // Take() had to wait.
    uint64_t generated = 0;  // Keys finished by workers.
    uint64_t failures = 0;   // Generator errors.
  };

  // The pool starts filling at once. |workers| is not owned.
  KeyPool(WorkerPool* workers, Options options);
  ~KeyPool();
  KeyPool(const KeyPool&) = delete;
  KeyPool& operator=(const KeyPool&) = delete;

  // Take removes a key of |algorithm| from the pool into |*result| and
  // returns OK. If none is pooled it returns ERR_IO_PENDING, and |callback|
  // later runs with OK (|*result| filled) or ERR_OBC_KEY_GENERATION_FAILED.
  // |*result| must stay valid until then or until |*out_request| is
  // destroyed.
  int Take(KeyAlgorithm algorithm, TakeResult* result,
           CompletionOnceCallback callback,
           std::unique_ptr<Request>* out_request);

  // SetTargetDepth changes how many keys of |algorithm| are kept ready and
  // starts refilling if needed. Extra keys above a lowered depth are kept.
  void SetTargetDepth(KeyAlgorithm algorithm, int depth);

  // WaitUntilFull returns OK if every algorithm has its target depth pooled,
  // else ERR_IO_PENDING and runs |callback| with OK once it has. For
  // benchmarks and tests that want a warm pool.
  int WaitUntilFull(CompletionOnceCallback callback);

  int target_depth(KeyAlgorithm algorithm) const {
    return state(algorithm).target;
  }
  int pooled_count(KeyAlgorithm algorithm) const {
    return static_cast<int>(state(algorithm).pooled.size());
  }
  // in_flight_count is the number of keys of |algorithm| being generated.
  int in_flight_count(KeyAlgorithm algorithm) const {
    return state(algorithm).in_flight;
  }
  const Stats& stats() const { return stats_; }

 private:
  class RequestImpl;
  struct AlgorithmState {
    int target = 0;
    int in_flight = 0;
    // Of |in_flight|, the jobs on |refill_workers|.
    int in_flight_background = 0;
    // Refills wait for |refill_timer| (refill_delay after the last hit).
    bool refill_deferred = false;
    OneShotTimer refill_timer;
    std::deque<ObcKeyMaterial> pooled;
    std::deque<RequestImpl*> waiters;
  };

  AlgorithmState& state(KeyAlgorithm a) {
    return states_[static_cast<size_t>(a)];
  }
  const AlgorithmState& state(KeyAlgorithm a) const {
    return states_[static_cast<size_t>(a)];
  }
  bool IsFull() const;
  // StartJobs starts one job per waiter without one, then refills.
  void StartJobs(KeyAlgorithm algorithm);
  void OnKeyMade(KeyAlgorithm algorithm, bool background,
                 absl::StatusOr<ObcKeyMaterial> material);
  void CancelRequest(RequestImpl* request);

  WorkerPool* const workers_;
  Options options_;
  std::array<AlgorithmState, kAllKeyAlgorithms.size()> states_;
  std::vector<CompletionOnceCallback> full_waiters_;
  Stats stats_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<KeyPool> weak_factory_{this};
};

}  // namespace net

#endif  // CERT_OBC_KEY_POOL_H_
