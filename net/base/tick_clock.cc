#include "net/base/tick_clock.h"

#include <time.h>

namespace net {

TimeTicks TimeTicks::Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  // +1 so that a real reading is never the null value.
  return TimeTicks::FromMicroseconds(int64_t{ts.tv_sec} * 1'000'000 +
                                     ts.tv_nsec / 1000 + 1);
}

const DefaultTickClock* DefaultTickClock::GetInstance() {
  static const DefaultTickClock* instance = new DefaultTickClock();
  return instance;
}

}  // namespace net
