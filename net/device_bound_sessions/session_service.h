// SessionService: Device Bound Session Credentials for one profile (the
// W3C WebAppSec DBSC draft), the DeviceBoundSessionDelegate URLRequests
// consult.
//
//  - Registration (draft "Process session registration", "Send request",
//    "Create session"): a response's Secure-Session-Registration starts,
//    beside the request and off its critical path, a RegistrationJob: a
//    P-256 key from the OBC KeyPool (pre-generated on a worker), a proof
//    JWT over the header's challenge signed with it (proof.h), a POST to
//    the registration endpoint, and the session instructions in the answer
//    checked and stored in the profile's SessionStore with the key.
//  - Deferral and refresh (draft "Identify session needing refresh",
//    "Changes to the Fetch specification"): a request in a session's scope
//    whose bound cookie is missing (expired) waits while a RefreshJob POSTs
//    to the refresh URL with Sec-Secure-Session-Id and, when a challenge is
//    cached, a proof; a 403 with a new Secure-Session-Challenge makes it
//    sign the new challenge and try once more. One refresh per session at a
//    time; every request waiting for it goes on when it ends, with the
//    cookie the refresh stored, or without it (the draft: a network error,
//    407, 429, 3xx or 5xx keeps the session; any other 4xx, bad
//    instructions or "continue": false end it), then carrying
//    Secure-Session-Skipped. After a failure the session backs off
//    (doubling from Options::backoff_initial): requests meanwhile go at
//    once, skipped.
//  - Challenges on any response are cached for the next proof.
//
// Every registration and refresh POST leaves a LoadTiming with a dbsc
// object (TakeTraces: the tool writes them beside its own requests), and
// the requests' own traces say what DBSC did to them.
//
// Not done: algorithms other than ES256 (RS256, "none"), key sharing
// between sessions (provider_* parameters), the include_site
// registrations that need /.well-known/device-bound-sessions, proactive
// refresh before expiry, SameSite in credential matching.
//
// Ownership: the NetworkContext owns it. The store, cookie jar, key pool
// and fetcher are not owned and must outlive it; it must outlive every
// URLRequest whose context points at it (their Deferrals point into it).
// Destroying it cancels its jobs. Network-thread affine.

#ifndef NET_DEVICE_BOUND_SESSIONS_SESSION_SERVICE_H_
#define NET_DEVICE_BOUND_SESSIONS_SESSION_SERVICE_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "net/base/thread_checker.h"
#include "net/base/tick_clock.h"
#include "net/base/weak_ptr.h"
#include "net/device_bound_sessions/session_config.h"
#include "net/device_bound_sessions/session_fetcher.h"
#include "net/device_bound_sessions/session_store.h"
#include "net/timing/load_timing.h"
#include "net/url_request/device_bound_session_delegate.h"

namespace net {

class CookieJar;
class KeyPool;

struct SessionServiceOptions {
  // A refresh that failed (network error, 5xx ...) makes the session skip
  // refreshes this long, doubling per failure in a row up to the maximum.
  absl::Duration backoff_initial = absl::Seconds(1);
  absl::Duration backoff_max = absl::Minutes(5);
  // Registrations running at once; more registration headers meanwhile are
  // ignored (and the trace says so).
  size_t max_registrations = 8;
  // Refreshes running at once (one per session at most).
  size_t max_refreshes = 64;
  // How long a session lives without being used; each deferral extends it
  // (the draft recommends the maximum cookie lifetime).
  absl::Duration session_lifetime = absl::Hours(24 * 400);
  // Traces of the service's own POSTs kept for TakeTraces (oldest dropped).
  size_t max_traces = 256;
  // Durations (trace, backoff). Not owned.
  const TickClock* clock = DefaultTickClock::GetInstance();
  // Wall time (cookie and session expiry, the proof's iat).
  std::function<absl::Time()> now = [] { return absl::Now(); };
};

class SessionService : public DeviceBoundSessionDelegate {
 public:
  using Options = SessionServiceOptions;

  struct Stats {
    uint64_t registrations_started = 0;
    uint64_t registered = 0;
    uint64_t registrations_failed = 0;
    uint64_t refreshes = 0;      // refresh jobs started
    uint64_t refreshed = 0;      // ... that got a 2xx
    uint64_t proofs_signed = 0;  // registration and refresh proofs
    uint64_t challenges = 0;     // 403s answered with a new proof
    uint64_t ended = 0;          // sessions terminated
    uint64_t refresh_failures = 0;
    uint64_t deferred_requests = 0;
    uint64_t skipped_requests = 0;  // went without a refresh (backoff)
  };

  // None of the pointers is owned (see the top).
  SessionService(Options options, SessionStore* store, CookieJar* jar,
                 KeyPool* key_pool, SessionFetcher* fetcher);
  ~SessionService() override;
  SessionService(const SessionService&) = delete;
  SessionService& operator=(const SessionService&) = delete;

  // DeviceBoundSessionDelegate.
  int MaybeDeferRequest(const Url& url, const Origin& initiator,
                        DeviceBoundSessionRequestState* state,
                        CompletionOnceCallback callback,
                        std::unique_ptr<Deferral>* out_deferral) override;
  void OnResponseHeaders(const Url& url, const Origin& initiator,
                         const HttpResponseHeaders& headers,
                         DeviceBoundSessionRequestState* state) override;

  // WhenIdle runs |done| from a task once no registration or refresh runs.
  void WhenIdle(absl::AnyInvocable<void()> done);
  bool idle() const { return registrations_.empty() && refreshes_.empty(); }

  // TakeTraces hands over the traces of the POSTs made so far, in the
  // order they ended.
  std::vector<LoadTiming> TakeTraces();

  const Stats& stats() const { return stats_; }
  SessionStore* store() { return store_; }

 private:
  class RegistrationJob;
  class RefreshJob;
  class Waiter;
  using SessionKey = std::pair<std::string, std::string>;  // (site, id)

  struct Backoff {
    int failures = 0;  // in a row
    TimeTicks until;
  };

  // Starts a registration for one header entry; false (with |why|) if not.
  bool StartRegistration(const Url& response_url, const Origin& initiator,
                         const RegistrationParams& params, std::string* why);
  // The draft's "Cache challenge" for a response from |url|.
  void CacheChallenges(const Url& url, const HttpResponseHeaders& headers);
  // The draft's "Create session" from instructions in |result|'s body, for
  // a registration (|session_id| empty) or a refresh of |session_id|.
  // Registered/refreshed (OK) or why not.
  absl::Status CreateSession(const SessionFetchResult& result,
                             const Url& destination,
                             const std::string& session_id,
                             bssl::UniquePtr<EVP_PKEY> key,
                             const std::string& key_pkcs8,
                             std::string* stored_id);
  // Removes a session (the draft's "terminate the session").
  void EndSession(const SessionKey& key);
  // Drops the backoff of sessions the store no longer holds.
  void ForgetBackoffOfGoneSessions();
  void AddTrace(LoadTiming timing);
  // A job ended: out of the running set at once, destroyed from a task.
  void OnRegistrationDone(RegistrationJob* job);
  void OnRefreshDone(const SessionKey& key);
  void ReapLater();

  Options options_;
  SessionStore* const store_;
  CookieJar* const jar_;
  KeyPool* const key_pool_;
  SessionFetcher* const fetcher_;
  std::vector<std::unique_ptr<RegistrationJob>> registrations_;
  std::map<SessionKey, std::unique_ptr<RefreshJob>> refreshes_;
  std::vector<std::unique_ptr<RegistrationJob>> finished_registrations_;
  std::vector<std::unique_ptr<RefreshJob>> finished_refreshes_;
  std::map<SessionKey, Backoff> backoff_;
  std::vector<LoadTiming> traces_;
  std::vector<absl::AnyInvocable<void()>> idle_waiters_;
  Stats stats_;
  ThreadChecker thread_checker_;
  WeakPtrFactory<SessionService> weak_factory_{this};
};

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_SESSION_SERVICE_H_
