#include "net/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace net {
namespace internal {

void DCheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: Check failed: %s\n", file, line, condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal
}  // namespace net
