#include "tools/fetch/prefetch_steps.h"

#include <iostream>
#include <memory>

#include "net/base/net_errors.h"
#include "net/base/tick_clock.h"
#include "tools/fetch/verbose_log.h"

namespace net {

void WaitForPrefetch(NetworkContext* context, EventLoop* loop,
                     const std::vector<std::string>& hosts,
                     const std::string& why, bool verbose) {
  if (hosts.empty()) return;
  if (verbose)
    std::cerr << "* prefetching " << hosts.size() << " host(s): " << why
              << "\n";
  loop->Run();
  if (verbose) PrintBundleRecords(std::cerr, context, hosts);
}

void PrefetchAndWait(NetworkContext* context, EventLoop* loop,
                     const std::vector<std::string>& hosts,
                     const std::string& why, bool verbose) {
  if (hosts.empty()) return;
  context->Prefetch(hosts, [loop] { loop->Quit(); });
  WaitForPrefetch(context, loop, hosts, why, verbose);
}

void PrevalidateAndWait(NetworkContext* context, EventLoop* loop,
                        const std::string& host, const std::vector<Url>& urls,
                        bool verbose, bool quiet) {
  uint16_t port = 443;
  for (const Url& u : urls) {
    if (u.host() == host && u.SchemeIsCryptographic()) port = u.port();
  }
  std::unique_ptr<NetworkContext::Request> request;
  std::string detail;
  const TimeTicks start = TimeTicks::Now();
  int result = OK;
  int rv = context->PrevalidateHost(
      host, port,
      [&](int r) {
        result = r;
        loop->Quit();
      },
      &request, &detail);
  if (rv == ERR_IO_PENDING) {
    loop->Run();
    rv = result;
  }
  if (verbose || (rv != OK && !quiet)) {
    std::cerr << "* prevalidated " << host << ": " << ErrorToShortString(rv)
              << " in " << absl::ToDoubleMilliseconds(TimeTicks::Now() - start)
              << " ms" << (detail.empty() ? "" : ": ") << detail << "\n";
  }
}

}  // namespace net
