// TestCompletionCallback: a CompletionOnceCallback for tests that can wait
// for its result by running the current EventLoop.
//
//   TestCompletionCallback cb;
//   int rv = socket->Connect(cb.callback());
//   EXPECT_EQ(OK, cb.GetResult(rv));  // Runs the loop only if rv is pending.

#ifndef NET_BASE_TEST_COMPLETION_CALLBACK_H_
#define NET_BASE_TEST_COMPLETION_CALLBACK_H_

#include "net/base/event_loop.h"
#include "net/base/net_errors.h"

namespace net {

class TestCompletionCallback {
 public:
  CompletionOnceCallback callback() {
    have_result_ = false;
    return [this](int result) {
      result_ = result;
      have_result_ = true;
      ++run_count_;
      if (waiting_) EventLoop::Current()->Quit();
    };
  }
  // WaitForResult runs the loop until the callback has run.
  int WaitForResult() {
    if (!have_result_) {
      waiting_ = true;
      EventLoop::Current()->Run();
      waiting_ = false;
    }
    have_result_ = false;
    return result_;
  }
  // GetResult returns |rv| unless it is ERR_IO_PENDING, then waits.
  int GetResult(int rv) { return rv == ERR_IO_PENDING ? WaitForResult() : rv; }
  bool have_result() const { return have_result_; }
  int run_count() const { return run_count_; }

 private:
  int result_ = 0;
  bool have_result_ = false;
  bool waiting_ = false;
  int run_count_ = 0;
};

}  // namespace net

#endif  // NET_BASE_TEST_COMPLETION_CALLBACK_H_
