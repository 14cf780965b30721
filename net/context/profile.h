// Profile: the per-profile state a NetworkContext keeps between runs — the
// host history (the DNS prefetcher's startup list), the revocation cache, the
// revocation filter and its stashes (CRLite, cert/revocation_filter_store.h),
// the cookie jar, the device bound sessions with their keys — and where the
// stores that manage their own files (origin-bound certificates, Snap Start
// server information) keep theirs.
//
// A persistent profile is a directory (created 0700) locked for the
// Profile's lifetime: a second Profile on the same directory, in this process
// or another, fails to open with a clear error instead of racing it. A
// private profile (incognito), or one without a directory, lives in memory
// only: nothing is read from or written to disk, and no directory is created.
//
// Owned by the NetworkContext; network-thread affine.

#ifndef NET_CONTEXT_PROFILE_H_
#define NET_CONTEXT_PROFILE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cert/revocation_checker.h"
#include "cert/revocation_filter_store.h"
#include "dns/host_history.h"
#include "net/base/file_util.h"
#include "net/base/thread_checker.h"
#include "net/device_bound_sessions/session_store.h"
#include "net/http/cookie_jar.h"

namespace net {

class Profile {
 public:
  static constexpr char kLockFileName[] = "profile.lock";
  static constexpr char kRevocationCacheFileName[] = "revocation_cache";
  static constexpr char kSnapStartFileName[] = "snap_start";
  // prefetch/'s PrefetchCache file (PrefetchCache::kFileName).
  static constexpr char kPrefetchCacheFileName[] = "cert_bundles";

  struct Options {
    // The profile directory; empty means an in-memory profile.
    std::string dir;
    // Private (incognito): memory only even with a directory.
    bool private_profile = false;
    // Keep a cookie jar (loaded from and saved to the profile).
    bool cookies = true;
    // Keep device bound sessions (with cookies only: they bind cookies).
    bool device_bound_sessions = true;
  };

  // Open creates (0700) and locks the directory of a persistent profile and
  // loads its stores. A damaged file is an error naming it and is left as it
  // is; a missing one is an empty store.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Profile>> Open(
      const Options& options, absl::Time now);
  ~Profile();

  // persistent is whether anything is saved to disk.
  bool persistent() const { return persistent_; }
  const std::string& dir() const { return dir_; }

  HostHistory* host_history() { return &host_history_; }
  RevocationCache* revocation_cache() { return &revocation_cache_; }
  // The revocation filter (empty until one is installed or loaded); saved in
  // the directory (RevocationFilterStore::kFilterFileName, kStashFileName)
  // when it changed.
  RevocationFilterStore* revocation_filter() { return &revocation_filter_; }
  // Null when cookies are off.
  CookieJar* cookie_jar() { return cookie_jar_.get(); }
  // The device bound sessions (net/device_bound_sessions), their private
  // keys included: saved with the profile, never elsewhere. Null when off
  // (or cookies are).
  SessionStore* device_bound_sessions() { return dbsc_store_.get(); }

  // PathFor is the file |name| in a persistent profile, "" otherwise (the
  // convention of the stores that keep their own files: "" = memory only).
  std::string PathFor(absl::string_view name) const;

  // Save writes every store of a persistent profile (a no-op otherwise). It
  // tries every store even when one fails, and reports every failure.
  absl::Status Save(absl::Time now);

 private:
  Profile() = default;

  bool persistent_ = false;
  std::string dir_;
  std::unique_ptr<FileLock> lock_;
  HostHistory host_history_;
  RevocationCache revocation_cache_;
  RevocationFilterStore revocation_filter_;
  std::unique_ptr<CookieJar> cookie_jar_;
  std::unique_ptr<SessionStore> dbsc_store_;
  ThreadChecker thread_checker_;
};

}  // namespace net

#endif  // NET_CONTEXT_PROFILE_H_
