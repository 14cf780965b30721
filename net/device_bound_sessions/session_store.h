// SessionStore: one profile's device bound sessions (draft "Session
// store"): registrable domain -> session identifier -> Session, bounded,
// persisted with the profile (<profile>/device_bound_sessions.pb) unless the
// profile is private.
//
// Limits: at most Limits::max_per_site sessions per registrable domain (a
// further registration for that site is refused, so one site cannot push
// another's sessions out) and max_total in all (the least recently used
// session goes first, as cookies do).
//
// Persistence: Serialize/Parse a framed protobuf (net/base/framed_file.h:
// magic, version, SHA-256) holding every session with its private key as
// PKCS#8 (unencrypted, mode 0600, as the OBC store and browsers' key stores
// on Linux keep keys); Load checks every record (identifiers, URLs, the key
// is P-256, no duplicates) and reports any damage as DataLoss naming the
// file, which it never modifies; Save replaces the file atomically. Expired
// sessions are dropped on load and save.
//
// Owned by the Profile (one per profile); the SessionService reads and
// changes it on the network thread. Not thread-safe. Time is passed in.

#ifndef NET_DEVICE_BOUND_SESSIONS_SESSION_STORE_H_
#define NET_DEVICE_BOUND_SESSIONS_SESSION_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "net/device_bound_sessions/session.h"

namespace net {

// SessionStoreLimits: see above.
struct SessionStoreLimits {
  size_t max_per_site = 8;
  size_t max_total = 256;
};

class SessionStore {
 public:
  static constexpr char kFileName[] = "device_bound_sessions.pb";
  static constexpr uint32_t kMagic = 0x31534244;  // "DBS1"
  static constexpr uint32_t kVersion = 1;

  using Limits = SessionStoreLimits;

  SessionStore() = default;
  explicit SessionStore(Limits limits) : limits_(limits) {}
  SessionStore(SessionStore&&) = default;
  SessionStore& operator=(SessionStore&&) = default;

  // Add stores |session| under (session->site, session->id), replacing a
  // session there. ResourceExhausted when its site already has
  // max_per_site other sessions; past max_total the least recently used
  // session of another site is evicted.
  absl::Status Add(std::unique_ptr<Session> session);
  // Find returns the session or null.
  Session* Find(const std::string& site, const std::string& id);
  // Remove deletes the session (its key with it); false if there was none.
  bool Remove(const std::string& site, const std::string& id);
  // SessionsForSite returns |site|'s sessions in identifier order.
  std::vector<Session*> SessionsForSite(const std::string& site);
  // RemoveExpired drops sessions whose expiry is not after |now|.
  void RemoveExpired(absl::Time now);
  void DeleteAll();
  size_t size() const { return sessions_.size(); }

  // NoteChanged records a change made to a session in place (a cached
  // challenge, a new expiry), so that the next Save writes it.
  void NoteChanged() { changed_ = true; }
  bool changed() const { return changed_; }

  std::string Serialize(absl::Time now) const;
  // Parse is Load on bytes; |name| names the file in errors.
  [[nodiscard]] static absl::StatusOr<SessionStore> Parse(
      const std::string& bytes, const std::string& name, absl::Time now,
      Limits limits = Limits());
  // Load reads |path|; a missing file is an empty store.
  [[nodiscard]] static absl::StatusOr<SessionStore> Load(
      const std::string& path, absl::Time now, Limits limits = Limits());
  // Save atomically replaces |path| (mode 0600). On error the old file is
  // untouched and changed() stays true.
  absl::Status Save(const std::string& path, absl::Time now);

 private:
  using Key = std::pair<std::string, std::string>;  // (site, id)

  Limits limits_;
  std::map<Key, std::unique_ptr<Session>> sessions_;
  bool changed_ = false;
};

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_SESSION_STORE_H_
