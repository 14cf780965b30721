// DnsPrefetcher resolves host names before they are needed, so a later
// request finds the answer in the cache (source "prefetch", zero lookup time
// on its critical path).
//
// Prefetch(hosts) drops duplicates (queued, in flight, or already
// prefetched) and runs at most |max_concurrent| lookups at a time. The
// triggers a browser has feed it: an explicit list, the links of a fetched
// page (ExtractLinkHosts), and a startup list (HostHistory::TopHosts).
//
// Extension point: observers are told when each host's prefetch finishes —
// "when a host is prefetched, also do X" (the certificate-bundle prefetcher
// hooks in here).
//
// The resolver and observers are not owned and must outlive the prefetcher.
// Network thread only.

#ifndef DNS_DNS_PREFETCHER_H_
#define DNS_DNS_PREFETCHER_H_

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/any_invocable.h"
#include "absl/strings/string_view.h"
#include "dns/host_resolver.h"
#include "net/base/thread_checker.h"
#include "net/base/url.h"

namespace net {

class DnsPrefetcher {
 public:
  class Observer {
   public:
    virtual ~Observer() = default;
    // |result| is OK or the lookup's error; |answer| the addresses found.
    virtual void OnHostPrefetched(const std::string& host, int result,
                                  const HostResolveResult& answer) = 0;
  };

  // |ports| names the https port of a host prefetched for an origin on a
  // known port (its HTTPS record is the port's); others are prefetched with
  // port 0 (HostResolver::Prefetch: port unknown).
  explicit DnsPrefetcher(HostResolver* resolver, size_t max_concurrent = 8,
                         std::map<std::string, uint16_t> ports = {});
  ~DnsPrefetcher();

  void AddObserver(Observer* observer) { observers_.push_back(observer); }

  void Prefetch(const std::vector<std::string>& hosts);
  // WhenIdle runs |callback| (from a posted task) once nothing is queued or
  // in flight.
  void WhenIdle(absl::AnyInvocable<void()> callback);

  size_t started() const { return started_; }
  size_t completed() const { return completed_; }
  size_t duplicates_dropped() const { return duplicates_; }
  size_t in_flight() const { return in_flight_.size(); }
  size_t max_in_flight_seen() const { return max_in_flight_seen_; }

 private:
  struct Lookup {
    HostResolveResult result;
    std::unique_ptr<HostResolver::Request> request;
  };
  void StartMore();
  void OnDone(const std::string& host, int result);
  void MaybeIdle();

  HostResolver* const resolver_;
  const size_t max_concurrent_;
  const std::map<std::string, uint16_t> ports_;
  std::vector<Observer*> observers_;
  std::deque<std::string> queue_;
  absl::flat_hash_set<std::string> seen_;
  absl::flat_hash_map<std::string, std::unique_ptr<Lookup>> in_flight_;
  std::vector<absl::AnyInvocable<void()>> idle_callbacks_;
  size_t started_ = 0;
  size_t completed_ = 0;
  size_t duplicates_ = 0;
  size_t max_in_flight_seen_ = 0;
  ThreadChecker thread_checker_;
};

// LowerCaseKeys returns |ports| keyed by lower-case host names (the form
// DnsPrefetcher hands hosts to its observers in).
std::map<std::string, uint16_t> LowerCaseKeys(
    std::map<std::string, uint16_t> ports);

// ExtractLinkHosts returns the distinct hosts of the http(s) links in an
// HTML page (href links first, then src), resolved against |base|, in order
// of appearance, without |base|'s own host.
std::vector<std::string> ExtractLinkHosts(absl::string_view html,
                                          const Url& base);

}  // namespace net

#endif  // DNS_DNS_PREFETCHER_H_
