// fetch's steps before its transfers: --prefetch (DNS and certificate
// bundles, waited for) and --prevalidate (a probe handshake, then the
// chain's verification and revocation check), each run to completion on
// the tool's event loop and told on stderr with -v.

#ifndef TOOLS_FETCH_PREFETCH_STEPS_H_
#define TOOLS_FETCH_PREFETCH_STEPS_H_

#include <string>
#include <vector>

#include "net/base/event_loop.h"
#include "net/base/url.h"
#include "net/context/network_context.h"

namespace net {

// Runs |loop| until the prefetch of |hosts| (already started, its callback
// quitting |loop|) is done; with |verbose| says why and what it found.
void WaitForPrefetch(NetworkContext* context, EventLoop* loop,
                     const std::vector<std::string>& hosts,
                     const std::string& why, bool verbose);

// Prefetches |hosts| and waits for them.
void PrefetchAndWait(NetworkContext* context, EventLoop* loop,
                     const std::vector<std::string>& hosts,
                     const std::string& why, bool verbose);

// --prevalidate HOST for the port the URLs name (443 without one); says the
// outcome on stderr when verbose, or when it failed and not |quiet|. A
// failed prevalidation only means the fetch checks on its own.
void PrevalidateAndWait(NetworkContext* context, EventLoop* loop,
                        const std::string& host, const std::vector<Url>& urls,
                        bool verbose, bool quiet);

}  // namespace net

#endif  // TOOLS_FETCH_PREFETCH_STEPS_H_
