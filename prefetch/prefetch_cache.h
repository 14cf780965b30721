// PrefetchCache: the certificate bundles a profile has prefetched, keyed by
// "host:port", each with its source and when it was fetched, kept until the
// earliest of the chain's notAfter and a bound (max_age) after fetching.
//
// A persistent profile keeps the cache in one file (Profile's
// "cert_bundles"): public data only — chains, orbits, ServerHello templates;
// never a verification or revocation result, so a bundle loaded from disk is
// verified again before use. The file is framed (magic, count, records,
// SHA-256 of everything before it): truncation or corruption anywhere is
// reported, and the file is left as it is. A private profile never loads or
// saves (empty path).
//
// Owned by the NetworkContext; network-thread affine. A value (Load and
// Parse return it), so it has no ThreadChecker of its own: its users
// (CertPrefetcher, NetworkContext) check their thread.

#ifndef PREFETCH_PREFETCH_CACHE_H_
#define PREFETCH_PREFETCH_CACHE_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prefetch/bundle_source.h"

namespace net {

class PrefetchCache {
 public:
  static constexpr char kFileName[] = "cert_bundles";
  // At most this many entries; the oldest fetched are dropped first.
  static constexpr size_t kMaxEntries = 1000;

  struct Entry {
    FetchedBundle fetched;
    absl::Time fetched_at;
    absl::Time expires;
  };

  explicit PrefetchCache(absl::Duration max_age = absl::Hours(24))
      : max_age_(max_age) {}

  // Load reads |path| ("" or a missing file: an empty cache). Expired
  // entries are dropped. DataLoss for a damaged file.
  [[nodiscard]] static absl::StatusOr<PrefetchCache> Load(
      const std::string& path, absl::Time now,
      absl::Duration max_age = absl::Hours(24));
  // Save writes the cache atomically to |path| (a no-op for "").
  absl::Status Save(const std::string& path) const;

  static std::string Key(const std::string& host, uint16_t port);

  // Put stores a fetched bundle; it expires at the earlier of its notAfter
  // and |now| + max_age.
  void Put(const FetchedBundle& fetched, absl::Time now);
  // Lookup returns the unexpired entry for host:port, or null.
  const Entry* Lookup(const std::string& host, uint16_t port,
                      absl::Time now) const;
  void Remove(const std::string& host, uint16_t port);
  size_t size() const { return entries_.size(); }

  // The file format (net/base/framed_file's frame, magic "PFC2"), exposed
  // for tests and the fuzzer. |name| names the file in errors.
  std::string Serialize() const;
  [[nodiscard]] static absl::StatusOr<PrefetchCache> Parse(
      const std::string& bytes, absl::Time now,
      absl::Duration max_age = absl::Hours(24),
      const std::string& name = "prefetch cache");

 private:
  absl::Duration max_age_;
  std::map<std::string, Entry> entries_;
};

}  // namespace net

#endif  // PREFETCH_PREFETCH_CACHE_H_
