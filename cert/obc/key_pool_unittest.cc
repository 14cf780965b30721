// KeyPool: fills on workers, answers from the pool synchronously, makes a
// waiting request's key on a worker (never on the network thread), claims
// running refills, cancels, and reports failures.

#include "cert/obc/key_pool.h"

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "cert/obc/obc_test_util.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

class KeyPoolTest : public testing::Test {
 protected:
  KeyPool::Options OptionsWith(std::array<int, 4> depth) {
    KeyPool::Options options;
    options.target_depth = depth;
    options.generator = generator_.AsGenerator();
    return options;
  }

  EventLoop loop_;
  GatedGenerator generator_;
  WorkerPool workers_{2};
};

TEST_F(KeyPoolTest, FillsToDepthAndAnswersSynchronously) {
  KeyPool pool(&workers_, OptionsWith({3, 1, 0, 0}));
  TestCompletionCallback full;
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kEcdsaP256), 3);
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kRsa1024), 1);

  KeyPool::TakeResult result;
  std::unique_ptr<KeyPool::Request> request;
  TestCompletionCallback cb;
  EXPECT_EQ(OK, pool.Take(KeyAlgorithm::kEcdsaP256, &result, cb.callback(),
                          &request));
  EXPECT_FALSE(request);
  EXPECT_TRUE(result.pooled);
  EXPECT_EQ(result.wait, absl::ZeroDuration());
  EXPECT_EQ(KeyAlgorithmOf(result.material.key.get()),
            KeyAlgorithm::kEcdsaP256);
  EXPECT_GT(result.material.generation_time, absl::ZeroDuration());
  EXPECT_EQ(pool.stats().hits, 1u);
  // The take started a refill.
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kEcdsaP256), 2);
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 1);
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kEcdsaP256), 3);
}

TEST_F(KeyPoolTest, MissGeneratesOnAWorkerNeverOnTheNetworkThread) {
  KeyPool pool(&workers_, OptionsWith({0, 0, 0, 0}));
  EXPECT_EQ(generator_.started(), 0);
  KeyPool::TakeResult result;
  std::unique_ptr<KeyPool::Request> request;
  TestCompletionCallback cb;
  int rv = pool.Take(KeyAlgorithm::kRsa1024, &result, cb.callback(), &request);
  ASSERT_EQ(rv, ERR_IO_PENDING);
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kRsa1024), 1);
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_FALSE(result.pooled);
  EXPECT_GT(result.wait, absl::ZeroDuration());
  EXPECT_GE(result.wait, result.material.generation_time);
  EXPECT_EQ(KeyAlgorithmOf(result.material.key.get()), KeyAlgorithm::kRsa1024);
  EXPECT_EQ(pool.stats().misses, 1u);
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kRsa1024),
            0);  // Depth 0: no refill.
  for (std::thread::id id : generator_.threads())
    EXPECT_NE(id, std::this_thread::get_id());
}

TEST_F(KeyPoolTest, EachWaiterGetsItsOwnJobAtOnce) {
  KeyPool pool(&workers_, OptionsWith({0, 0, 0, 0}));
  generator_.Close();
  KeyPool::TakeResult results[3];
  std::unique_ptr<KeyPool::Request> requests[3];
  TestCompletionCallback cbs[3];
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ERR_IO_PENDING, pool.Take(KeyAlgorithm::kEcdsaP256, &results[i],
                                        cbs[i].callback(), &requests[i]));
  }
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 3);
  generator_.Open();
  std::set<std::string> keys;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(OK, cbs[i].WaitForResult());
    keys.insert(results[i].material.key_pkcs8);
  }
  EXPECT_EQ(keys.size(), 3u);  // Three distinct keys.
}

TEST_F(KeyPoolTest, MissClaimsTheRunningRefill) {
  generator_.Close();
  KeyPool pool(&workers_, OptionsWith({1, 0, 0, 0}));
  generator_.WaitForStarted(1);  // The refill is running (held).
  KeyPool::TakeResult result;
  std::unique_ptr<KeyPool::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(ERR_IO_PENDING, pool.Take(KeyAlgorithm::kEcdsaP256, &result,
                                      cb.callback(), &request));
  // No job of its own: the running refill serves the request, and one more
  // refill restores the depth (2 in flight, not 3).
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 2);
  generator_.Open();
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_FALSE(result.pooled);
  // Then the pool refills to depth 1.
  TestCompletionCallback full;
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  EXPECT_EQ(generator_.started(), 2);
}

// Refills on a separate (background-priority) pool: a waiting request gets a
// job on the main pool at once instead of waiting for a held refill, and
// the refill after a hit runs on the refill pool.
thread_local bool tls_refill_thread = false;

TEST_F(KeyPoolTest, RefillWorkersServeRefillsButNeverAWaiter) {
  WorkerPool refill_workers(1);
  refill_workers.PostTask([] { tls_refill_thread = true; });
  std::mutex mu;
  std::condition_variable changed;
  bool refills_open = false;
  int refill_jobs = 0, waiter_jobs = 0;
  KeyPool::Options options;
  options.target_depth = {1, 0, 0, 0};
  options.refill_workers = &refill_workers;
  options.generator =
      [&](KeyAlgorithm algorithm) -> absl::StatusOr<ObcKeyMaterial> {
    {
      std::unique_lock<std::mutex> lock(mu);
      if (tls_refill_thread) {
        ++refill_jobs;
        changed.notify_all();
        changed.wait(lock, [&] { return refills_open; });
      } else {
        ++waiter_jobs;
      }
    }
    return MakeKeyMaterial(algorithm, absl::Now());
  };
  KeyPool pool(&workers_, options);
  // The initial fill is a refill: on the refill pool, held there.
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 1);
  KeyPool::TakeResult result;
  std::unique_ptr<KeyPool::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(ERR_IO_PENDING, pool.Take(KeyAlgorithm::kEcdsaP256, &result,
                                      cb.callback(), &request));
  // A job of its own, beside the held refill.
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 2);
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_FALSE(result.pooled);
  {
    std::unique_lock<std::mutex> lock(mu);
    // The held refill has started (or is about to) on the refill thread.
    changed.wait(lock, [&] { return refill_jobs >= 1; });
    EXPECT_EQ(waiter_jobs, 1);
    EXPECT_EQ(refill_jobs, 1);
    refills_open = true;
    changed.notify_all();
  }
  TestCompletionCallback full;
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  // A hit starts the next refill on the refill pool.
  KeyPool::TakeResult hit;
  ASSERT_EQ(OK,
            pool.Take(KeyAlgorithm::kEcdsaP256, &hit, cb.callback(), &request));
  EXPECT_TRUE(hit.pooled);
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(refill_jobs, 2);
  EXPECT_EQ(waiter_jobs, 1);
}

TEST_F(KeyPoolTest, RefillDelayDefersRefillsButNotWaiters) {
  KeyPool::Options options = OptionsWith({1, 0, 0, 0});
  options.refill_delay = absl::Milliseconds(60);
  KeyPool pool(&workers_, options);
  TestCompletionCallback full;
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  EXPECT_EQ(generator_.started(), 1);  // The initial fill is not delayed.

  KeyPool::TakeResult hit;
  std::unique_ptr<KeyPool::Request> request;
  TestCompletionCallback cb;
  const absl::Time taken = absl::Now();
  ASSERT_EQ(OK,
            pool.Take(KeyAlgorithm::kEcdsaP256, &hit, cb.callback(), &request));
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 0);  // Deferred.
  // A miss meanwhile gets its own job at once, and only that.
  KeyPool::TakeResult miss;
  ASSERT_EQ(ERR_IO_PENDING, pool.Take(KeyAlgorithm::kEcdsaP256, &miss,
                                      cb.callback(), &request));
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 1);
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 0);
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kEcdsaP256), 0);
  // The refill comes when the delay is over.
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  EXPECT_GE(absl::Now() - taken, absl::Milliseconds(60));
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kEcdsaP256), 1);
  EXPECT_EQ(generator_.started(), 3);
}

TEST_F(KeyPoolTest, CancelledTakeLeavesTheKeyInThePool) {
  KeyPool pool(&workers_, OptionsWith({0, 0, 0, 0}));
  generator_.Close();
  KeyPool::TakeResult result;
  std::unique_ptr<KeyPool::Request> request;
  bool ran = false;
  ASSERT_EQ(ERR_IO_PENDING, pool.Take(
                                KeyAlgorithm::kEcdsaP256, &result,
                                [&ran](int) { ran = true; }, &request));
  request.reset();
  generator_.Open();
  while (pool.pooled_count(KeyAlgorithm::kEcdsaP256) == 0) {
    loop_.RunUntilIdle();
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_FALSE(ran);
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256), 0);
}

TEST_F(KeyPoolTest, DestroyingThePoolCancelsRequests) {
  auto pool = std::make_unique<KeyPool>(&workers_, OptionsWith({0, 0, 0, 0}));
  generator_.Close();
  KeyPool::TakeResult result;
  std::unique_ptr<KeyPool::Request> request;
  bool ran = false;
  ASSERT_EQ(ERR_IO_PENDING, pool->Take(
                                KeyAlgorithm::kEcdsaP256, &result,
                                [&ran](int) { ran = true; }, &request));
  pool.reset();
  generator_.Open();
  generator_.WaitForStarted(1);
  absl::SleepFor(absl::Milliseconds(50));
  loop_.RunUntilIdle();
  EXPECT_FALSE(ran);
  request.reset();  // Safe after the pool is gone.
}

TEST_F(KeyPoolTest, GenerationFailureFailsTheWaiter) {
  KeyPool pool(&workers_, OptionsWith({0, 0, 0, 0}));
  generator_.FailFromNowOn();
  KeyPool::TakeResult result;
  std::unique_ptr<KeyPool::Request> request;
  TestCompletionCallback cb;
  ASSERT_EQ(ERR_IO_PENDING, pool.Take(KeyAlgorithm::kEcdsaP256, &result,
                                      cb.callback(), &request));
  EXPECT_EQ(ERR_OBC_KEY_GENERATION_FAILED, cb.WaitForResult());
  EXPECT_EQ(pool.stats().failures, 1u);
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEcdsaP256),
            0);  // No retry storm.
}

TEST_F(KeyPoolTest, SetTargetDepthStartsRefilling) {
  KeyPool pool(&workers_, OptionsWith({0, 0, 0, 0}));
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kRsa2048), 0);
  pool.SetTargetDepth(KeyAlgorithm::kEd25519, 2);
  EXPECT_EQ(pool.in_flight_count(KeyAlgorithm::kEd25519),
            1);  // max_refill_jobs
  TestCompletionCallback full;
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kEd25519), 2);
}

TEST_F(KeyPoolTest, DefaultOptionsPoolEcdsaWithRealGeneration) {
  KeyPool pool(&workers_, KeyPool::Options());
  TestCompletionCallback full;
  EXPECT_EQ(OK, full.GetResult(pool.WaitUntilFull(full.callback())));
  EXPECT_EQ(pool.target_depth(KeyAlgorithm::kEcdsaP256), 4);
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kEcdsaP256), 4);
  EXPECT_EQ(pool.pooled_count(KeyAlgorithm::kRsa2048), 0);
}

}  // namespace
}  // namespace net
