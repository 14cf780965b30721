// HostCache: DNS answers by (name, kind) with the TTLs the answers carried,
// negative entries for NXDOMAIN / no data (RFC 2308: the SOA minimum,
// bounded), and a size bound with least-recently-used eviction (expired
// entries are dropped when looked up).
//
// Entries remember whether a prefetch filled them, so the first request
// that uses one can report source "prefetch" (later ones "cache"). Owned by
// the resolver; network thread only. The clock is not owned.

#ifndef DNS_HOST_CACHE_H_
#define DNS_HOST_CACHE_H_

#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "dns/https_record_info.h"
#include "net/base/ip_endpoint.h"
#include "net/base/net_errors.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"

namespace net {

class HostCache {
 public:
  // kHttps: a name's HTTPS records (RFC 9460) as the resolver evaluated
  // them, aliases followed, keyed by the query name (the host for port 443,
  // "_PORT._https.HOST" otherwise).
  enum class Kind { kAddresses, kTxt, kHttps };

  struct Entry {
    int error = OK;  // OK, or the negative answer (ERR_NAME_NOT_RESOLVED)
    std::vector<IPAddress> addresses;
    std::vector<std::string> texts;
    // kHttps: what the records say (status none for a negative answer).
    std::shared_ptr<const HttpsRecordInfo> https;
    bool from_prefetch = false;
    TimeTicks expires;
  };

  HostCache(size_t max_entries, const TickClock* clock,
            absl::Duration max_negative_ttl = absl::Minutes(5));

  // Lookup returns the live entry or null. It moves the entry to the front
  // of the LRU order and clears |from_prefetch| after reporting it through
  // |was_prefetched|.
  const Entry* Lookup(const std::string& name, Kind kind,
                      bool* was_prefetched = nullptr);
  // Set stores |entry| for |ttl| (negative entries: capped by the bound).
  void Set(const std::string& name, Kind kind, Entry entry, absl::Duration ttl);
  void Clear();

  size_t size() const { return entries_.size(); }
  size_t evictions() const { return evictions_; }
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }

 private:
  struct Slot {
    Entry entry;
    std::list<std::string>::iterator lru;
  };
  static std::string KeyFor(const std::string& name, Kind kind);
  void Evict();

  const size_t max_entries_;
  const TickClock* const clock_;
  const absl::Duration max_negative_ttl_;
  absl::flat_hash_map<std::string, Slot> entries_;
  std::list<std::string> lru_;  // front = most recent
  size_t evictions_ = 0;
  size_t hits_ = 0;
  size_t misses_ = 0;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // DNS_HOST_CACHE_H_
