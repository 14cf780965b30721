// HostHistory: the hosts one profile visited, with counts, persisted as a
// protobuf (dns/host_history.proto). The DNS prefetcher resolves its top-N
// hosts at startup, as browsers do.
//
// The file is framed (net/base/framed_file.h: magic, version, SHA-256 of the
// payload), so a file cut at any byte or damaged anywhere is reported as
// corrupt (DataLoss, naming the file) and left as it is; it is never silently
// replaced or read as empty. Save goes through WriteFileAtomically
// (net/base/file_util.h): a crash leaves either the old or the new history,
// never a torn one.

#ifndef DNS_HOST_HISTORY_H_
#define DNS_HOST_HISTORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace net {

class HostHistory {
 public:
  static constexpr char kFileName[] = "host_history.pb";
  static constexpr uint32_t kMagic = 0x31534848;  // "HHS1" little-endian
  // Version 1 was an unframed protobuf; Load rejects it with a message that
  // says so.
  static constexpr uint32_t kVersion = 2;

  // Load reads |path|; a missing file is an empty history. DataLoss for a
  // damaged file or one of another version; other I/O errors as
  // ReadFileToString.
  [[nodiscard]] static absl::StatusOr<HostHistory> Load(
      const std::string& path);
  absl::Status Save(const std::string& path) const;

  // Serialize is Save's content; Parse is Load on bytes (|name| is used in
  // error messages).
  std::string Serialize() const;
  [[nodiscard]] static absl::StatusOr<HostHistory> Parse(
      const std::string& bytes, const std::string& name);

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
