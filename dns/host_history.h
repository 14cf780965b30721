// HostHistory: the hosts one profile visited, with counts, persisted as a
// protobuf (dns/host_history.proto). The DNS prefetcher resolves its top-N
// hosts at startup, as browsers do.
//
// Save goes through WriteFileAtomically (net/base/file_util.h): a crash
// leaves either the old or the new history, never a torn one. Load reports a
// corrupt file as an error; it is never silently replaced.

#ifndef DNS_HOST_HISTORY_H_
#define DNS_HOST_HISTORY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace net {

class HostHistory {
 public:
  static constexpr char kFileName[] = "host_history.pb";

  // Load reads |path|; a missing file is an empty history.
  [[nodiscard]] static absl::StatusOr<HostHistory> Load(
      const std::string& path);
  absl::Status Save(const std::string& path) const;

  void RecordVisit(const std::string& host, absl::Time when);
  // TopHosts returns up to |n| hosts, most visited first (ties: most recent).
  std::vector<std::string> TopHosts(size_t n) const;
  size_t size() const { return visits_.size(); }
  uint64_t visits(const std::string& host) const;

 private:
  struct Visits {
    uint64_t count = 0;
    int64_t last_unix = 0;
  };
  absl::flat_hash_map<std::string, Visits> visits_;
};

}  // namespace net

#endif  // DNS_HOST_HISTORY_H_
