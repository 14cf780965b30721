// LoadTiming fixtures shared by the net/timing unit tests.

#ifndef NET_TIMING_LOAD_TIMING_TEST_UTIL_H_
#define NET_TIMING_LOAD_TIMING_TEST_UTIL_H_

#include "net/base/tick_clock.h"
#include "net/timing/load_timing.h"

namespace net {

// At returns the tick |ms| milliseconds after a fixed origin one second into
// the clock, so that small negative offsets (prefetch jobs that started before
// the request) are valid too. Sub-microsecond parts are truncated.
TimeTicks At(double ms);

// HttpsTiming is an https request for https://www.example.test/ on a fresh
// connection, TLSv1.2, status 200, from 127.0.0.1:443 with DNS from the
// network: blocked 0-1 ms, DNS 1-41, connect 41-341 with TLS 141-341, send
// 341-341.5, wait 341.5-441, receive 441-442.
LoadTiming HttpsTiming();

// ReusedConnectionTiming is an https request on a reused connection: start 0,
// fetch start 2, request 3, response 4, end 5 ms; no DNS or connect points.
LoadTiming ReusedConnectionTiming();

// FailedDnsTiming is an https request for https://missing.test/ that started
// at 0, began DNS at 1 ms and failed at 30 ms with ERR_NAME_NOT_RESOLVED.
LoadTiming FailedDnsTiming();

}  // namespace net

#endif  // NET_TIMING_LOAD_TIMING_TEST_UTIL_H_
