// Trace replay: runs a recorded sequence of client connections through a
// SessionCache and counts resumptions (hits), the way a TLS server would see
// them. This is also where Belady's offline optimum (EvictionPolicy::kBelady,
// "opt") gets what it needs: the true time of each client's next request,
// computed from the whole trace by NextRequestTimes().
//
// Plain functions over caller-owned vectors; nothing is kept.

#ifndef NET_SESSION_CACHE_TRACE_REPLAY_H_
#define NET_SESSION_CACHE_TRACE_REPLAY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "net/base/tick_clock.h"
#include "net/session_cache/session_cache_config.h"
#include "net/session_cache/session_index.h"

namespace net {

// One connection of one client, in time order within the trace.
struct TraceRequest {
  TimeTicks time;
  uint32_t client = 0;
  // What the client announces as its next connect (X-Next-Connect); PRED
  // reads it, FIFO/LRU/RR ignore it. kNoNextConnect: nothing announced.
  TimeTicks announced_next = kNoNextConnect;
  // Whether the request counts towards the hit rate (the paper leaves out
  // each client's first request, which cannot hit).
  bool counted = true;
};

struct ReplayResult {
  uint64_t requests = 0;
  uint64_t counted = 0;
  uint64_t hits = 0;  // counted requests that found their session cached
  SessionCacheStats stats;
  double hit_rate() const {
    return counted ? static_cast<double>(hits) / counted : 0;
  }
};

// NextRequestTimes returns, for each request of |trace| (sorted by time), the
// time of the same client's next request, or kNoNextConnect if it has none.
std::vector<TimeTicks> NextRequestTimes(const std::vector<TraceRequest>& trace);

// Replay runs |trace| through a fresh SessionCache built from |config|. Each
// request looks up its client's session (one per client, keyed by client
// id); a miss makes a new session. Then the session is stored (Put) with a
// next-connect time: the true next request for kBelady (NextRequestTimes),
// the announced one for every other policy. Returns InvalidArgument for a bad
// config.
[[nodiscard]] absl::StatusOr<ReplayResult> Replay(
    const std::vector<TraceRequest>& trace, const SessionCacheConfig& config);

}  // namespace net

#endif  // NET_SESSION_CACHE_TRACE_REPLAY_H_
