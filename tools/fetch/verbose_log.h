// fetch -v: what the run tells the user on stderr about prefetching (each
// host prefetched, each bundle record) and about each transfer (connection,
// TLS, OBC, SPDY, the cookie sent, the response head, cookies ignored, the
// trace entry). Presentation only.

#ifndef TOOLS_FETCH_VERBOSE_LOG_H_
#define TOOLS_FETCH_VERBOSE_LOG_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "dns/dns_prefetcher.h"
#include "net/context/network_context.h"
#include "net/timing/load_timing.h"

namespace net {

// PrefetchLog prints each prefetched host's outcome when verbose.
class PrefetchLog : public DnsPrefetcher::Observer {
 public:
  explicit PrefetchLog(std::ostream* out) : out_(out) {}
  bool verbose = false;
  void OnHostPrefetched(const std::string& host, int result,
                        const HostResolveResult& answer) override;

 private:
  std::ostream* const out_;
};

// PrintBundleRecords prints what bundle prefetching did for each of
// |hosts| (the source, or none usable, and every rejection); nothing
// without bundle prefetching.
void PrintBundleRecords(std::ostream& out, NetworkContext* context,
                        const std::vector<std::string>& hosts);

// What -v says about one finished transfer.
struct VerboseTransfer {
  const LoadTiming* timing = nullptr;  // the final hop's; not owned
  int round = 0;                       // from 0
  // The final request as sent: "GET /path HTTP/1.1", then its headers
  // (empty when no request went out).
  std::string request_line;
  std::vector<std::pair<std::string, std::string>> request_headers;
  std::string response_head;  // raw, "" if none
  std::vector<std::string> rejected_cookies;
};
void PrintVerboseTransfer(std::ostream& out, const VerboseTransfer& transfer);

}  // namespace net

#endif  // TOOLS_FETCH_VERBOSE_LOG_H_
