// RequestPhases: one request's LoadTiming cut into the consecutive phases
// that HAR's timings and the waterfall picture show (blocked, DNS, connect
// with TLS inside it, send, wait, receive). Shared by har.cc and
// waterfall.cc so that both tell the same story.
//
// The cut points are the Resource Timing points, so the phases tile
// [startTime, end] without gaps or overlaps (ssl lies inside connect):
//   blocked  startTime -> the first of domainLookupStart, connectStart,
//            requestStart (queueing before the network: fetchStart and the
//            pool)
//   dns      domainLookupStart -> domainLookupEnd
//   connect  -> connectEnd (TCP and TLS; from domainLookupEnd when there was
//            a lookup, so the hand-off between the two is counted)
//   ssl      secureConnectionStart -> connectEnd (inside connect)
//   send     -> requestStart (the request built and handed to the socket
//            once the connection is ready; LoadTiming has no write end)
//   wait     requestStart -> responseStart (TTFB)
//   receive  responseStart -> responseEnd
// end is responseEnd, or failed_at for a failed request: the phase the
// failure cut short ends there and the later ones did not happen. A reused
// connection has no dns, connect or ssl.

#ifndef NET_TIMING_PHASES_H_
#define NET_TIMING_PHASES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"
#include "net/timing/load_timing.h"

namespace net {

struct PhaseInterval {
  // present = the phase happened (it may be empty: begin == end).
  bool present = false;
  TimeTicks begin;
  TimeTicks end;
  absl::Duration duration() const {
    return present ? end - begin : absl::ZeroDuration();
  }
};

struct RequestPhases {
  TimeTicks start;  // startTime (null if the record has no start)
  TimeTicks end;    // responseEnd, failed_at, or the last point reached
  PhaseInterval blocked, dns, connect, ssl, send, wait, receive;
  // The request failed before responseEnd.
  bool failed = false;
  absl::Duration total() const { return end - start; }
};

// ComputeRequestPhases cuts |t| as described above. Points out of order are
// clamped so that every phase is non-negative and the phases other than
// ssl sum to total() exactly (in microseconds).
RequestPhases ComputeRequestPhases(const LoadTiming& t);

// CurlPoints: curl's -w time points (time_namelookup, time_connect, ...)
// cut from the same phases, so fetch's -w, its --compare table, HAR and the
// waterfall agree. Cumulative: a phase that did not happen ends where the
// previous one did; a reused connection's lookup and connect are at the
// start. appconnect is null for plain HTTP (curl prints 0 there).
struct CurlPoints {
  TimeTicks namelookup;     // the lookup done
  TimeTicks connect;        // TCP connected (TLS begins)
  TimeTicks appconnect;     // TLS done (https only)
  TimeTicks pretransfer;    // the request about to go
  TimeTicks starttransfer;  // the first response byte
  TimeTicks total;          // the end (responseEnd, or the failure)
};
CurlPoints ComputeCurlPoints(const RequestPhases& p, bool https);

// ToValidUtf8 returns |s| with every byte that does not belong to a valid
// UTF-8 sequence replaced by U+FFFD (JSON and XML output must be UTF-8).
std::string ToValidUtf8(absl::string_view s);

}  // namespace net

#endif  // NET_TIMING_PHASES_H_
