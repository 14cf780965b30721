// WallClock: the time of day, as the Snap Start server reads it for the
// strike register (suggested randoms carry the client's gmt_unix_time),
// session tickets and its own hello randoms. Production uses
// SystemWallClock; tests inject a clock they move (the monotonic TickClock of
// net/base cannot stand in: these times are compared with the peer's).

#ifndef NET_SNAP_START_WALL_CLOCK_H_
#define NET_SNAP_START_WALL_CLOCK_H_

#include "absl/time/time.h"

namespace net {

class WallClock {
 public:
  virtual ~WallClock() = default;
  virtual absl::Time Now() const = 0;
};

// SystemWallClock reads the system clock. GetInstance() is never destroyed.
class SystemWallClock : public WallClock {
 public:
  static const SystemWallClock* GetInstance();
  absl::Time Now() const override;
};

}  // namespace net

#endif  // NET_SNAP_START_WALL_CLOCK_H_
