// StrikeRegister: the server's replay defence for Snap Start. A suggested
// server random is time(4) || orbit(8) || random(20); it is accepted at most
// once, ever:
//   - its orbit must be this server's;
//   - its time must lie within +-window of the server's clock, and after the
//     horizon (the time before which the register cannot know what it
//     accepted);
//   - it must not be in the register. Entries older than the window are
//     pruned (the time check rejects them anyway); when the register is full,
//     the oldest entry is evicted and the horizon moves up to its time, which
//     narrows the window rather than forgetting a strike.
// Across restarts: without a state file the register starts with its horizon
// at now + window, so for one window after a start every attempt recovers
// (QUIC's DENY_REQUESTS_AT_STARTUP). With a state file it persists a
// high-water mark, fsynced before any random at or past the persisted mark is
// accepted, and a restart sets the horizon there: nothing accepted before the
// restart can be accepted again, and the startup period is at most one
// high-water step. A state file that does not exist yet means a fresh orbit:
// no startup period.
//
// A rejection is not an error: the handshake goes to recovery. Owned by the
// server's Snap Start context; thread-safe.

#ifndef NET_SNAP_START_STRIKE_REGISTER_H_
#define NET_SNAP_START_STRIKE_REGISTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/snap_start/tls12_messages.h"

namespace net {

struct StrikeRegisterConfig {
  Orbit orbit{};
  absl::Duration window = absl::Seconds(10);
  size_t max_entries = 100000;
  // Optional: where the high-water mark persists (see above).
  std::string state_file;
  // How far past an accepted time the persisted mark is set, so that most
  // acceptances need no write.
  absl::Duration high_water_step = absl::Seconds(2);
};

class StrikeRegister {
 public:
  enum class Result {
    kAccepted,
    kBadOrbit,
    kTimeOutsideWindow,
    kBeforeHorizon,  // includes the startup period
    kReplay,
    kStateWriteFailed,
  };
  static const char* ResultToString(Result result);

  // Create reads the state file if configured; a corrupt one is an error
  // (never silently reset: that would allow replays).
  static absl::StatusOr<std::unique_ptr<StrikeRegister>> Create(
      const StrikeRegisterConfig& config, absl::Time now);

  // Insert checks |suggested_random| (32 bytes) and records it if accepted.
  Result Insert(absl::string_view suggested_random, absl::Time now);

  const Orbit& orbit() const { return config_.orbit; }
  uint32_t horizon() const;
  size_t size() const;

 private:
  explicit StrikeRegister(const StrikeRegisterConfig& config);

  const StrikeRegisterConfig config_;
  mutable std::mutex mu_;
  uint32_t horizon_ ABSL_GUARDED_BY(mu_) = 0;
  uint32_t persisted_mark_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<std::string> seen_ ABSL_GUARDED_BY(mu_);
  std::multimap<uint32_t, std::string> by_time_ ABSL_GUARDED_BY(mu_);
};

}  // namespace net

#endif  // NET_SNAP_START_STRIKE_REGISTER_H_
