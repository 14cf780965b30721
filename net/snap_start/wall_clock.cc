#include "net/snap_start/wall_clock.h"

#include "absl/time/clock.h"

namespace net {

const SystemWallClock* SystemWallClock::GetInstance() {
  static const SystemWallClock* const instance = new SystemWallClock();
  return instance;
}

absl::Time SystemWallClock::Now() const { return absl::Now(); }

}  // namespace net
