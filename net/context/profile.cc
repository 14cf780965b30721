#include "net/context/profile.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace net {
namespace {

// Prefixed keeps |status|'s code and names the store in its message.
absl::Status Prefixed(absl::string_view what, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(what, status.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Profile>> Profile::Open(const Options& options,
                                                       absl::Time now) {
  std::unique_ptr<Profile> profile(new Profile());
  profile->persistent_ = !options.dir.empty() && !options.private_profile;
  const bool dbsc = options.cookies && options.device_bound_sessions;
  if (!profile->persistent_) {
    if (options.cookies) profile->cookie_jar_ = std::make_unique<CookieJar>();
    if (dbsc) profile->dbsc_store_ = std::make_unique<SessionStore>();
    return profile;
  }
  profile->dir_ = options.dir;
  if (mkdir(options.dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat(
        "profile: cannot create ", options.dir, ": ", std::strerror(errno)));
  }
  absl::StatusOr<std::unique_ptr<FileLock>> lock =
      FileLock::Acquire(profile->PathFor(kLockFileName),
                        absl::StrCat("the profile ", options.dir,
                                     " is in use by another process"));
  if (!lock.ok()) return Prefixed("profile: ", lock.status());
  profile->lock_ = *std::move(lock);
  // Temporaries a killed run left behind are nobody's now that we hold the
  // lock; the files they were going to replace are intact.
  for (absl::string_view name :
       {absl::string_view(HostHistory::kFileName),
        absl::string_view(kRevocationCacheFileName),
        absl::string_view(CookieJar::kFileName),
        absl::string_view(SessionStore::kFileName),
        absl::string_view(kSnapStartFileName),
        absl::string_view(kPrefetchCacheFileName),
        absl::string_view(RevocationFilterStore::kFilterFileName),
        absl::string_view(RevocationFilterStore::kStashFileName)})
    RemoveStaleTemporaries(profile->PathFor(name));

  absl::StatusOr<HostHistory> history =
      HostHistory::Load(profile->PathFor(HostHistory::kFileName));
  if (!history.ok()) return Prefixed("profile: ", history.status());
  profile->host_history_ = *std::move(history);

  absl::StatusOr<RevocationCache> revocation =
      RevocationCache::Load(profile->PathFor(kRevocationCacheFileName));
  if (!revocation.ok()) return Prefixed("profile: ", revocation.status());
  profile->revocation_cache_ = *std::move(revocation);

  absl::StatusOr<RevocationFilterStore> filter = RevocationFilterStore::Load(
      profile->PathFor(RevocationFilterStore::kFilterFileName),
      profile->PathFor(RevocationFilterStore::kStashFileName));
  if (!filter.ok()) return Prefixed("profile: ", filter.status());
  profile->revocation_filter_ = *std::move(filter);

  if (options.cookies) {
    absl::StatusOr<CookieJar> jar =
        CookieJar::Load(profile->PathFor(CookieJar::kFileName), now);
    if (!jar.ok()) return Prefixed("cookies: ", jar.status());
    profile->cookie_jar_ = std::make_unique<CookieJar>(*std::move(jar));
  }
  if (dbsc) {
    absl::StatusOr<SessionStore> sessions =
        SessionStore::Load(profile->PathFor(SessionStore::kFileName), now);
    if (!sessions.ok())
      return Prefixed("device bound sessions: ", sessions.status());
    profile->dbsc_store_ = std::make_unique<SessionStore>(*std::move(sessions));
  }
  return profile;
}

Profile::~Profile() { NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_); }

std::string Profile::PathFor(absl::string_view name) const {
  if (!persistent_) return "";
  return absl::StrCat(dir_, "/", name);
}

absl::Status Profile::Save(absl::Time now) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!persistent_) return absl::OkStatus();
  std::vector<std::string> failures;
  absl::Status status = host_history_.Save(PathFor(HostHistory::kFileName));
  if (!status.ok()) failures.emplace_back(status.message());
  status = revocation_cache_.Save(PathFor(kRevocationCacheFileName));
  if (!status.ok()) failures.emplace_back(status.message());
  if (revocation_filter_.changed()) {
    status =
        revocation_filter_.Save(PathFor(RevocationFilterStore::kFilterFileName),
                                PathFor(RevocationFilterStore::kStashFileName));
    if (!status.ok()) failures.emplace_back(status.message());
  }
  if (cookie_jar_ && cookie_jar_->changed()) {
    status = cookie_jar_->Save(PathFor(CookieJar::kFileName), now);
    if (!status.ok()) failures.emplace_back(status.message());
  }
  if (dbsc_store_ && dbsc_store_->changed()) {
    status = dbsc_store_->Save(PathFor(SessionStore::kFileName), now);
    if (!status.ok()) failures.emplace_back(status.message());
  }
  if (failures.empty()) return absl::OkStatus();
  return absl::InternalError(absl::StrJoin(failures, "; "));
}

}  // namespace net
