// ThreadChecker: says whether the caller is on the thread that created the
// object — how a network-thread-affine class checks that it is used on its
// network thread. A member of the class; check it with
//
//   NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
//
// which, like NET_DCHECK, is compiled in for debug and sanitizer builds and
// costs nothing in -c opt (Chromium's THREAD_CHECKER, in small).

#ifndef NET_BASE_THREAD_CHECKER_H_
#define NET_BASE_THREAD_CHECKER_H_

#include <thread>

#include "net/base/check.h"

namespace net {

class ThreadChecker {
 public:
  ThreadChecker() : owner_(std::this_thread::get_id()) {}
  bool CalledOnValidThread() const {
    return std::this_thread::get_id() == owner_;
  }

 private:
  const std::thread::id owner_;
};

}  // namespace net

#define NET_DCHECK_CALLED_ON_VALID_THREAD(checker) \
  NET_DCHECK((checker).CalledOnValidThread())

#endif  // NET_BASE_THREAD_CHECKER_H_
