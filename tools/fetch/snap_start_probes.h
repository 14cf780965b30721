// fetch --snap-start-probe: instead of fetching, per URL resolve, connect
// through the context, run net/snap_start's truncated handshake and print
// one JSON object (the chain's length, cipher suite and orbit, or the
// error). A tool mode over the context's ConnectTransport.

#ifndef TOOLS_FETCH_SNAP_START_PROBES_H_
#define TOOLS_FETCH_SNAP_START_PROBES_H_

#include <vector>

#include "net/base/event_loop.h"
#include "net/base/url.h"
#include "net/context/network_context.h"

namespace net {

// RunSnapStartProbes probes each of |urls| in turn, running |loop| while a
// step waits; prints to stdout (errors also to stderr, unless |quiet|).
// Returns fetch's exit code: 0 if every probe succeeded, else 35.
int RunSnapStartProbes(NetworkContext* context, EventLoop* loop,
                       const std::vector<Url>& urls, bool quiet);

}  // namespace net

#endif  // TOOLS_FETCH_SNAP_START_PROBES_H_
