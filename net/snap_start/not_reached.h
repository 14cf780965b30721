// SNAP_START_NOTREACHED() marks code a state machine must never reach (the
// default case of every DoLoop). Debug builds (no NDEBUG: Bazel's fastbuild
// and dbg, so every test run) abort there with the location; optimized
// builds go on, and the caller then returns ERR_UNEXPECTED.
//
// Local to net/snap_start until net/base grows a DCHECK family; then this
// becomes NOTREACHED().

#ifndef NET_SNAP_START_NOT_REACHED_H_
#define NET_SNAP_START_NOT_REACHED_H_

#include <cstdio>
#include <cstdlib>

namespace net {
namespace snap_start_internal {

inline void NotReached(const char* file, int line) {
#ifndef NDEBUG
  std::fprintf(stderr, "%s:%d: NOTREACHED\n", file, line);
  std::abort();
#else
  (void)file;
  (void)line;
#endif
}

}  // namespace snap_start_internal
}  // namespace net

#define SNAP_START_NOTREACHED() \
  ::net::snap_start_internal::NotReached(__FILE__, __LINE__)

#endif  // NET_SNAP_START_NOT_REACHED_H_
