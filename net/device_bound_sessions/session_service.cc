#include "net/device_bound_sessions/session_service.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cert/obc/key_pool.h"
#include "net/base/event_loop.h"
#include "net/base/ip_endpoint.h"
#include "net/device_bound_sessions/proof.h"
#include "net/device_bound_sessions/structured_headers.h"
#include "net/http/cookie_jar.h"

namespace net {
namespace {

// Secure-Session-Skipped reasons (draft section of that header).
constexpr char kUnreachable[] = "unreachable";
constexpr char kServerError[] = "server_error";
constexpr char kQuotaExceeded[] = "quota_exceeded";

// All values of header |name|, combined as one structured field.
std::optional<std::string> CombinedHeader(const HttpResponseHeaders& headers,
                                          absl::string_view name) {
  std::vector<std::string> values;
  for (const auto& [n, v] : headers.headers()) {
    if (absl::EqualsIgnoreCase(n, name)) values.push_back(v);
  }
  if (values.empty()) return std::nullopt;
  return CombineFieldLines(values);
}

// A Secure-Session-Skipped list member: TOKEN;session_identifier="ID".
std::string SkippedMember(absl::string_view token, const std::string& id) {
  absl::StatusOr<std::string> quoted = SerializeSfString(id);
  return absl::StrCat(token,
                      ";session_identifier=", quoted.ok() ? *quoted : "\"\"");
}

// The draft allows a plain-http refresh URL only on localhost.
bool IsLocalhost(const std::string& host) {
  if (host == "localhost" || absl::EndsWith(host, ".localhost")) return true;
  std::optional<IPAddress> address = IPAddress::Parse(host);
  if (!address) return false;
  if (address->IsIPv4()) return address->bytes()[0] == 127;
  return *address == *IPAddress::Parse("::1");
}

// "A cookie with the credential's attributes could be set by a response
// from |url|" (draft "Cache challenge" and "Create session").
bool CouldBeSetBy(const SessionCredential& c, const Url& url) {
  if (c.secure && !url.SchemeIsCryptographic()) return false;
  return c.host_only ? url.host() == c.domain
                     : DomainMatches(url.host(), c.domain);
}

std::string HttpStatusText(int status) { return absl::StrCat("HTTP ", status); }

}  // namespace

// Waiter: a request held for a refresh (its Deferral). Owned by the
// URLRequest; the job it waits for points back at it until it ends.
class SessionService::Waiter : public DeviceBoundSessionDelegate::Deferral {
 public:
  Waiter(RefreshJob* job, DeviceBoundSessionRequestState* state,
         CompletionOnceCallback callback, TimeTicks start)
      : job_(job),
        state_(state),
        callback_(std::move(callback)),
        start_(start) {}
  ~Waiter() override;

  void Detach() { job_ = nullptr; }

  // The refresh ended: the request's trace says how, and it goes on from a
  // task (never from inside the job).
  void Finish(DbscTrace trace, const std::string& skipped, TimeTicks now) {
    job_ = nullptr;
    trace.deferred = now - start_;
    state_->trace = std::move(trace);
    if (!skipped.empty()) state_->skipped.push_back(skipped);
    EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
      if (!weak) return;
      CompletionOnceCallback callback = std::move(weak->callback_);
      std::move(callback)(OK);
    });
  }

 private:
  RefreshJob* job_;
  DeviceBoundSessionRequestState* const state_;
  CompletionOnceCallback callback_;
  const TimeTicks start_;
  WeakPtrFactory<Waiter> weak_factory_{this};
};

// RegistrationJob: take a key, sign, POST, create the session.
class SessionService::RegistrationJob {
 public:
  RegistrationJob(SessionService* service, Url endpoint,
                  RegistrationParams params, TimeTicks trigger)
      : service_(service),
        endpoint_(std::move(endpoint)),
        params_(std::move(params)),
        trigger_(trigger) {}

  void Start() { RunLoop(OK); }
  bool done() const { return done_; }

 private:
  enum State {
    STATE_NONE,
    STATE_TAKE_KEY,
    STATE_TAKE_KEY_COMPLETE,
    STATE_SEND,
    STATE_SEND_COMPLETE,
  };

  void RunLoop(int rv) {
    do {
      State state = next_state_;
      next_state_ = STATE_NONE;
      switch (state) {
        case STATE_TAKE_KEY:
          rv = DoTakeKey();
          break;
        case STATE_TAKE_KEY_COMPLETE:
          rv = DoTakeKeyComplete(rv);
          break;
        case STATE_SEND:
          rv = DoSend();
          break;
        case STATE_SEND_COMPLETE:
          rv = DoSendComplete();
          break;
        case STATE_NONE:
          return;
      }
    } while (rv != ERR_IO_PENDING && next_state_ != STATE_NONE);
  }

  int DoTakeKey() {
    next_state_ = STATE_TAKE_KEY_COMPLETE;
    if (!service_->key_pool_) return ERR_OBC_KEY_GENERATION_FAILED;
    return service_->key_pool_->Take(
        KeyAlgorithm::kEcdsaP256, &take_, [this](int rv) { RunLoop(rv); },
        &key_request_);
  }

  int DoTakeKeyComplete(int rv) {
    key_request_.reset();
    if (rv != OK) {
      Finish(DbscOutcome::kFailed,
             absl::StrCat("no session key: ", ErrorToShortString(rv)));
      return OK;
    }
    key_source_ = take_.pooled ? "pooled" : "generated";
    next_state_ = STATE_SEND;
    return OK;
  }

  int DoSend() {
    HttpHeaderList headers;
    // The draft sends a proof when the header gave a challenge or an
    // authorization ("Send request").
    if (params_.challenge || params_.authorization) {
      DbscProofClaims claims;
      claims.audience = endpoint_.spec();
      claims.challenge = params_.challenge.value_or("");
      claims.issued_at = absl::ToUnixSeconds(service_->options_.now());
      claims.authorization = params_.authorization;
      absl::StatusOr<std::string> jwt =
          SignDbscProof(take_.material.key.get(), claims, /*include_jwk=*/true);
      absl::StatusOr<std::string> value =
          jwt.ok() ? SerializeSfString(*jwt) : jwt.status();
      if (!value.ok()) {
        Finish(DbscOutcome::kFailed, std::string(value.status().message()));
        return OK;
      }
      ++service_->stats_.proofs_signed;
      alg_ = kDbscProofAlgorithm;
      headers.emplace_back(kResponseHeader, *value);
    }
    if (params_.authorization)
      headers.emplace_back("Authorization", *params_.authorization);
    next_state_ = STATE_SEND_COMPLETE;
    service_->fetcher_->Post(
        endpoint_, std::move(headers),
        [this](SessionFetchResult result) {
          result_ = std::move(result);
          RunLoop(OK);
        },
        &fetch_);
    return ERR_IO_PENDING;
  }

  int DoSendComplete() {
    fetch_.reset();
    const SessionFetchResult& r = result_;
    if (r.net_error != OK || !r.headers) {
      Finish(DbscOutcome::kFailed, absl::StrCat(ErrorToShortString(r.net_error),
                                                ": ", r.error_detail));
      return OK;
    }
    const int status = r.headers->status_code();
    if (status < 200 || status >= 300) {
      // The draft creates nothing on any other status (a registration has
      // no session id for a 403 to retry with).
      Finish(DbscOutcome::kFailed, HttpStatusText(status));
      service_->CacheChallenges(r.url, *r.headers);
      return OK;
    }
    std::string id;
    absl::Status created = service_->CreateSession(
        r, endpoint_, /*session_id=*/"", std::move(take_.material.key),
        take_.material.key_pkcs8, &id);
    session_id_ = id;
    if (created.ok()) {
      Finish(DbscOutcome::kRegistered, "");
    } else {
      Finish(DbscOutcome::kFailed, std::string(created.message()));
    }
    service_->CacheChallenges(r.url, *r.headers);
    return OK;
  }

  void Finish(DbscOutcome outcome, std::string detail) {
    LoadTiming timing = result_.timing;
    if (timing.url.empty()) timing.url = endpoint_.spec();
    timing.method = "POST";
    DbscTrace& t = timing.dbsc;
    t.role = DbscRole::kRegistration;
    t.session_id = session_id_;
    t.outcome = outcome;
    t.alg = alg_;
    t.key_source = key_source_;
    t.registered = service_->options_.clock->NowTicks() - trigger_;
    t.detail = std::move(detail);
    if (outcome == DbscOutcome::kRegistered) {
      ++service_->stats_.registered;
    } else {
      ++service_->stats_.registrations_failed;
    }
    service_->AddTrace(std::move(timing));
    done_ = true;
    service_->OnRegistrationDone(this);
  }

  SessionService* const service_;
  const Url endpoint_;
  const RegistrationParams params_;
  const TimeTicks trigger_;
  State next_state_ = STATE_TAKE_KEY;
  KeyPool::TakeResult take_;
  std::unique_ptr<KeyPool::Request> key_request_;
  std::unique_ptr<SessionFetcher::Request> fetch_;
  SessionFetchResult result_;
  std::string key_source_;
  std::string alg_;
  std::string session_id_;
  bool done_ = false;
};

// RefreshJob: POST to the refresh URL, once more after a 403 challenge;
// every waiting request goes on when it ends.
class SessionService::RefreshJob {
 public:
  RefreshJob(SessionService* service, SessionKey key, TimeTicks start)
      : service_(service), key_(std::move(key)), start_(start) {}
  ~RefreshJob() {
    // Requests still waiting (the service is going away, and with it their
    // context): they hear nothing more.
    for (Waiter* waiter : waiters_) waiter->Detach();
  }

  void AddWaiter(Waiter* waiter) { waiters_.push_back(waiter); }
  void RemoveWaiter(Waiter* waiter) {
    waiters_.erase(std::remove(waiters_.begin(), waiters_.end(), waiter),
                   waiters_.end());
  }
  bool done() const { return done_; }

  void Start() { Send(); }

 private:
  // Challenges answered with a new proof, at most.
  static constexpr int kMaxChallengeRetries = 1;

  void Send() {
    Session* session = service_->store_->Find(key_.first, key_.second);
    if (!session)
      return Finish(nullptr, DbscOutcome::kEnded, "the session is gone", "");
    HttpHeaderList headers;
    absl::StatusOr<std::string> id = SerializeSfString(session->id);
    if (!id.ok())
      return Finish(nullptr, DbscOutcome::kEnded, "bad session id", "");
    headers.emplace_back(kSessionIdHeader, *id);
    attempt_alg_.clear();
    if (session->cached_challenge) {
      DbscProofClaims claims;
      claims.audience = session->refresh_url.spec();
      claims.challenge = *session->cached_challenge;
      claims.issued_at = absl::ToUnixSeconds(service_->options_.now());
      absl::StatusOr<std::string> jwt =
          SignDbscProof(session->key.get(), claims, /*include_jwk=*/false);
      absl::StatusOr<std::string> value =
          jwt.ok() ? SerializeSfString(*jwt) : jwt.status();
      if (value.ok()) {
        ++service_->stats_.proofs_signed;
        attempt_alg_ = kDbscProofAlgorithm;
        headers.emplace_back(kResponseHeader, *value);
      }
    }
    refresh_url_ = session->refresh_url;
    service_->fetcher_->Post(
        refresh_url_, std::move(headers),
        [this](SessionFetchResult result) {
          OnSendComplete(std::move(result));
        },
        &fetch_);
  }

  void OnSendComplete(SessionFetchResult r) {
    fetch_.reset();
    if (r.headers) service_->CacheChallenges(r.url, *r.headers);
    if (r.net_error != OK || !r.headers) {
      return Finish(
          &r, DbscOutcome::kFailed,
          absl::StrCat(ErrorToShortString(r.net_error), ": ", r.error_detail),
          kUnreachable);
    }
    const int status = r.headers->status_code();
    // The draft's "Send request", in its order.
    if (status == 407 || status == 429 || (status >= 300 && status < 400))
      return Finish(&r, DbscOutcome::kFailed, HttpStatusText(status),
                    kServerError);
    if (status == 403) {
      // A new challenge: sign it and try again (once; a server that keeps
      // refusing a fresh proof ends the session rather than looping).
      if (attempts_ < kMaxChallengeRetries &&
          service_->store_->Find(key_.first, key_.second)) {
        ++attempts_;
        ++service_->stats_.challenges;
        LoadTiming timing = Trace(r, DbscOutcome::kChallenged,
                                  "403: signing the new challenge");
        service_->AddTrace(std::move(timing));
        return Send();
      }
      return Finish(&r, DbscOutcome::kEnded,
                    "403 again after a proof over the new challenge", "");
    }
    if (status >= 400 && status < 500)
      return Finish(&r, DbscOutcome::kEnded, HttpStatusText(status), "");
    if (status >= 500)
      return Finish(&r, DbscOutcome::kFailed, HttpStatusText(status),
                    kServerError);
    if (r.body.empty()) return Finish(&r, DbscOutcome::kRefreshed, "", "");
    // New instructions (the same key).
    Session* session = service_->store_->Find(key_.first, key_.second);
    if (!session)
      return Finish(&r, DbscOutcome::kEnded, "the session is gone", "");
    std::string stored_id;
    absl::Status updated = service_->CreateSession(
        r, refresh_url_, key_.second, bssl::UpRef(session->key),
        session->key_pkcs8, &stored_id);
    if (!updated.ok())
      return Finish(&r, DbscOutcome::kEnded, std::string(updated.message()),
                    "");
    Finish(&r, DbscOutcome::kRefreshed, "", "");
  }

  LoadTiming Trace(const SessionFetchResult& r, DbscOutcome outcome,
                   std::string detail) const {
    LoadTiming timing = r.timing;
    if (timing.url.empty()) timing.url = refresh_url_.spec();
    timing.method = "POST";
    timing.dbsc.role = DbscRole::kRefresh;
    timing.dbsc.session_id = key_.second;
    timing.dbsc.outcome = outcome;
    timing.dbsc.alg = attempt_alg_;
    timing.dbsc.detail = std::move(detail);
    return timing;
  }

  // Ends the refresh: the last attempt's trace (|r|, if a POST was made),
  // the session's fate, and every waiting request released.
  void Finish(const SessionFetchResult* r, DbscOutcome outcome,
              std::string detail, absl::string_view skipped_token) {
    const TimeTicks now = service_->options_.clock->NowTicks();
    if (outcome == DbscOutcome::kRefreshed) {
      // A 2xx that brought none of the bound cookies would send every later
      // request of the session to the refresh endpoint again: the session
      // stays (the draft) but backs off, as after a failure.
      Session* session = service_->store_->Find(key_.first, key_.second);
      if (session && service_->jar_) {
        const absl::Time wall = service_->options_.now();
        bool any = false;
        for (const CanonicalCookie& cookie : service_->jar_->AllCookies()) {
          if (cookie.IsExpired(wall)) continue;
          for (const SessionCredential& c : session->credentials)
            any |= c.SatisfiedBy(cookie);
        }
        if (!any) {
          outcome = DbscOutcome::kFailed;
          detail = absl::StrCat("the refresh set no bound cookie (",
                                session->credentials[0].name, ")");
          skipped_token = kServerError;
        }
      }
    }
    if (outcome == DbscOutcome::kRefreshed) {
      ++service_->stats_.refreshed;
      service_->backoff_.erase(key_);
    } else if (outcome == DbscOutcome::kEnded) {
      ++service_->stats_.ended;
      service_->EndSession(key_);
    } else {
      ++service_->stats_.refresh_failures;
      service_->ForgetBackoffOfGoneSessions();
      Backoff& b = service_->backoff_[key_];
      ++b.failures;
      absl::Duration wait = service_->options_.backoff_initial;
      for (int i = 1; i < b.failures && wait < service_->options_.backoff_max;
           ++i)
        wait *= 2;
      b.until = now + std::min(wait, service_->options_.backoff_max);
    }
    if (r) {
      LoadTiming timing = Trace(*r, outcome, detail);
      timing.dbsc.refresh = now - start_;
      service_->AddTrace(std::move(timing));
    }
    DbscTrace summary;
    summary.role = DbscRole::kRequest;
    summary.session_id = key_.second;
    summary.outcome = outcome;
    summary.alg = attempt_alg_;
    summary.refresh = now - start_;
    summary.detail = detail;
    const std::string skipped =
        skipped_token.empty() ? "" : SkippedMember(skipped_token, key_.second);
    std::vector<Waiter*> waiters;
    waiters.swap(waiters_);
    for (Waiter* waiter : waiters) waiter->Finish(summary, skipped, now);
    done_ = true;
    service_->OnRefreshDone(key_);
  }

  SessionService* const service_;
  const SessionKey key_;
  const TimeTicks start_;
  Url refresh_url_;
  int attempts_ = 0;
  std::string attempt_alg_;
  std::vector<Waiter*> waiters_;
  std::unique_ptr<SessionFetcher::Request> fetch_;
  bool done_ = false;
};

SessionService::Waiter::~Waiter() {
  if (job_) job_->RemoveWaiter(this);
}

SessionService::SessionService(Options options, SessionStore* store,
                               CookieJar* jar, KeyPool* key_pool,
                               SessionFetcher* fetcher)
    : options_(std::move(options)),
      store_(store),
      jar_(jar),
      key_pool_(key_pool),
      fetcher_(fetcher) {}

SessionService::~SessionService() {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  // Jobs first: they point here.
  refreshes_.clear();
  registrations_.clear();
  finished_refreshes_.clear();
  finished_registrations_.clear();
}

int SessionService::MaybeDeferRequest(const Url& url, const Origin& initiator,
                                      DeviceBoundSessionRequestState* state,
                                      CompletionOnceCallback callback,
                                      std::unique_ptr<Deferral>* out_deferral) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  const std::string site = SiteOf(url.host());
  const absl::Time now = options_.now();
  std::vector<Session*> sessions = store_->SessionsForSite(site);
  if (sessions.empty()) return OK;
  std::vector<CanonicalCookie> cookies = jar_->GetCookies(url, now);
  for (Session* session : sessions) {
    const SessionKey key(site, session->id);
    if (session->expiry <= now) {
      EndSession(key);
      continue;
    }
    if (std::find(state->deferred_sessions.begin(),
                  state->deferred_sessions.end(),
                  key) != state->deferred_sessions.end())
      continue;
    if (!session->IncludesUrl(url) || !session->AllowsRefreshFrom(initiator))
      continue;
    std::optional<std::string> missing =
        session->MissingCredential(url, cookies);
    if (!missing) {
      // In use: the last to be evicted (not worth a profile write alone).
      session->last_use = now;
      state->trace = DbscTrace();
      state->trace.role = DbscRole::kRequest;
      state->trace.session_id = session->id;
      state->trace.outcome = DbscOutcome::kBound;
      continue;
    }
    state->deferred_sessions.push_back(key);
    session->expiry = now + options_.session_lifetime;
    session->last_use = now;
    store_->NoteChanged();

    auto job_it = refreshes_.find(key);
    auto backoff = backoff_.find(key);
    const TimeTicks ticks = options_.clock->NowTicks();
    std::string skip_reason;
    if (job_it == refreshes_.end() && backoff != backoff_.end() &&
        ticks < backoff->second.until) {
      skip_reason = absl::StrCat(
          *missing, " missing; backing off after ", backoff->second.failures,
          " failed refresh", backoff->second.failures == 1 ? "" : "es",
          " (next try in ",
          absl::FormatDuration(absl::Trunc(backoff->second.until - ticks,
                                           absl::Milliseconds(1))),
          ")");
    } else if (job_it == refreshes_.end() &&
               refreshes_.size() >= options_.max_refreshes) {
      skip_reason = absl::StrCat(*missing, " missing; ", refreshes_.size(),
                                 " refreshes already running");
    }
    if (!skip_reason.empty()) {
      // The draft lets the user agent skip a refresh to protect the site
      // and itself; the request goes at once, saying so.
      ++stats_.skipped_requests;
      state->trace = DbscTrace();
      state->trace.role = DbscRole::kRequest;
      state->trace.session_id = session->id;
      state->trace.outcome = DbscOutcome::kSkipped;
      state->trace.detail = std::move(skip_reason);
      // The user agent's own choice: quota_exceeded (draft,
      // "Secure-Session-Skipped").
      state->skipped.push_back(SkippedMember(kQuotaExceeded, session->id));
      continue;
    }
    RefreshJob* job;
    bool start = false;
    if (job_it == refreshes_.end()) {
      auto created = std::make_unique<RefreshJob>(this, key, ticks);
      job = created.get();
      refreshes_.emplace(key, std::move(created));
      ++stats_.refreshes;
      start = true;
    } else {
      job = job_it->second.get();
    }
    auto waiter =
        std::make_unique<Waiter>(job, state, std::move(callback), ticks);
    job->AddWaiter(waiter.get());
    *out_deferral = std::move(waiter);
    ++stats_.deferred_requests;
    // Started after the waiter is in: a job that ended at once (the
    // session vanished) still releases it, from a task.
    if (start) job->Start();
    return ERR_IO_PENDING;
  }
  return OK;
}

void SessionService::OnResponseHeaders(const Url& url, const Origin& initiator,
                                       const HttpResponseHeaders& headers,
                                       DeviceBoundSessionRequestState* state) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  CacheChallenges(url, headers);
  std::optional<std::string> value =
      CombinedHeader(headers, kRegistrationHeader);
  if (!value) return;
  DbscTrace trace;
  trace.role = DbscRole::kRegistering;
  std::vector<std::string> why;
  absl::StatusOr<std::vector<RegistrationParams>> entries =
      ParseRegistrationHeader(*value, &why);
  int started = 0;
  if (!entries.ok()) {
    why.emplace_back(entries.status().message());
  } else {
    for (const RegistrationParams& params : *entries) {
      std::string reason;
      if (StartRegistration(url, initiator, params, &reason)) {
        ++started;
      } else {
        why.push_back(std::move(reason));
      }
    }
  }
  trace.outcome = started ? DbscOutcome::kStarted : DbscOutcome::kFailed;
  trace.detail = absl::StrJoin(why, "; ");
  state->trace = std::move(trace);
}

bool SessionService::StartRegistration(const Url& response_url,
                                       const Origin& initiator,
                                       const RegistrationParams& params,
                                       std::string* why) {
  if (std::find(params.algorithms.begin(), params.algorithms.end(),
                kDbscProofAlgorithm) == params.algorithms.end()) {
    *why = absl::StrCat("no supported algorithm (ES256) among (",
                        absl::StrJoin(params.algorithms, " "), ")");
    return false;
  }
  absl::StatusOr<Url> endpoint = response_url.Resolve(params.path);
  if (!endpoint.ok()) {
    *why = absl::StrCat("registration path: ", endpoint.status().message());
    return false;
  }
  // "Send request": the originating request and the endpoint are same-site.
  if (!IsSameSite(response_url.GetOrigin(), endpoint->GetOrigin())) {
    *why = absl::StrCat("the registration endpoint ", endpoint->spec(),
                        " is not same-site with ", response_url.spec());
    return false;
  }
  if (registrations_.size() >= options_.max_registrations) {
    *why =
        absl::StrCat(registrations_.size(), " registrations already running");
    return false;
  }
  auto job = std::make_unique<RegistrationJob>(this, *endpoint, params,
                                               options_.clock->NowTicks());
  RegistrationJob* raw = job.get();
  registrations_.push_back(std::move(job));
  ++stats_.registrations_started;
  raw->Start();
  return true;
}

void SessionService::CacheChallenges(const Url& url,
                                     const HttpResponseHeaders& headers) {
  std::optional<std::string> value = CombinedHeader(headers, kChallengeHeader);
  if (!value) return;
  absl::StatusOr<std::vector<ChallengeParams>> challenges =
      ParseChallengeHeader(*value);
  if (!challenges.ok()) return;
  const std::string site = SiteOf(url.host());
  for (const ChallengeParams& c : *challenges) {
    Session* session = store_->Find(site, c.session_id);
    if (!session) continue;
    for (const SessionCredential& credential : session->credentials) {
      if (!CouldBeSetBy(credential, url)) continue;
      session->cached_challenge = c.challenge;
      store_->NoteChanged();
      break;
    }
  }
}

absl::Status SessionService::CreateSession(const SessionFetchResult& result,
                                           const Url& destination,
                                           const std::string& session_id,
                                           bssl::UniquePtr<EVP_PKEY> key,
                                           const std::string& key_pkcs8,
                                           std::string* stored_id) {
  absl::StatusOr<SessionInstructions> instructions =
      ParseSessionInstructions(result.body);
  if (!instructions.ok()) return instructions.status();
  if (!instructions->continue_session)
    return absl::FailedPreconditionError(
        "the server ended the session (\"continue\": false)");
  const std::string& id = instructions->session_identifier;
  if (!session_id.empty() && id != session_id)
    return absl::InvalidArgumentError(
        absl::StrCat("session_identifier \"", id, "\" is not the session's (\"",
                     session_id, "\")"));
  const Origin destination_origin = destination.GetOrigin();
  Origin origin = destination_origin;
  if (instructions->scope_origin) {
    absl::StatusOr<Url> parsed = Url::Parse(*instructions->scope_origin);
    if (!parsed.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("scope.origin ", *instructions->scope_origin,
                       " is no http(s) origin"));
    origin = parsed->GetOrigin();
  }
  if (!IsSameSite(origin, destination_origin))
    return absl::InvalidArgumentError(absl::StrCat(
        "scope.origin ", origin.Serialize(), " is not same-site with ",
        destination_origin.Serialize()));
  Url refresh = destination;
  if (instructions->refresh_url) {
    absl::StatusOr<Url> resolved =
        destination.Resolve(*instructions->refresh_url);
    if (!resolved.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("refresh_url: ", resolved.status().message()));
    refresh = *resolved;
  }
  if (!refresh.SchemeIsCryptographic() && !IsLocalhost(refresh.host()))
    return absl::InvalidArgumentError(absl::StrCat(
        "the refresh URL ", refresh.spec(), " is neither https nor localhost"));
  if (!IsSameSite(refresh.GetOrigin(), destination_origin))
    return absl::InvalidArgumentError(
        absl::StrCat("the refresh URL ", refresh.spec(), " is not same-site"));
  const std::string site = SiteOf(destination.host());
  if (instructions->include_site) {
    if (origin.host() != site)
      return absl::InvalidArgumentError(
          "include_site needs the scope origin to be the site itself");
    if (destination.host() != site && session_id.empty())
      return absl::UnimplementedError(
          "include_site from a subdomain needs the "
          "/.well-known/device-bound-sessions check, not implemented here");
  }
  std::vector<SessionCredential> credentials;
  std::vector<std::string> unset;
  for (const SessionInstructions::Credential& c : instructions->credentials) {
    absl::StatusOr<SessionCredential> credential =
        MakeSessionCredential(c.name, c.attributes, destination);
    if (credential.ok()) {
      credentials.push_back(*std::move(credential));
    } else if (absl::IsFailedPrecondition(credential.status())) {
      unset.emplace_back(credential.status().message());
    } else {
      return credential.status();
    }
  }
  if (credentials.empty())
    return absl::FailedPreconditionError(absl::StrCat(
        "no bound cookie could be set: ",
        unset.empty() ? "none configured" : absl::StrJoin(unset, "; ")));

  const absl::Time now = options_.now();
  auto session = std::make_unique<Session>();
  session->id = id;
  session->site = site;
  session->refresh_url = refresh;
  session->scope.origin = origin;
  session->scope.include_site = instructions->include_site;
  session->scope.rules = instructions->scope_rules;
  session->credentials = std::move(credentials);
  session->allowed_refresh_initiators =
      instructions->allowed_refresh_initiators;
  session->key = std::move(key);
  session->key_pkcs8 = key_pkcs8;
  session->creation = now;
  if (Session* old = store_->Find(site, id)) {
    session->creation = old->creation;
    session->cached_challenge = old->cached_challenge;
  }
  session->expiry = now + options_.session_lifetime;
  session->last_use = now;
  absl::Status added = store_->Add(std::move(session));
  if (!added.ok()) return added;
  *stored_id = id;
  return absl::OkStatus();
}

void SessionService::ForgetBackoffOfGoneSessions() {
  // Sessions the store dropped on its own (evicted at its bounds) leave
  // their backoff here: at most as many entries as the store holds.
  for (auto it = backoff_.begin(); it != backoff_.end();) {
    it = store_->Find(it->first.first, it->first.second) ? std::next(it)
                                                         : backoff_.erase(it);
  }
}

void SessionService::EndSession(const SessionKey& key) {
  store_->Remove(key.first, key.second);
  backoff_.erase(key);
}

void SessionService::AddTrace(LoadTiming timing) {
  if (traces_.size() >= options_.max_traces) traces_.erase(traces_.begin());
  timing.ssl.cert_verify.verified_chain_der.clear();
  traces_.push_back(std::move(timing));
}

void SessionService::OnRegistrationDone(RegistrationJob* job) {
  for (auto it = registrations_.begin(); it != registrations_.end(); ++it) {
    if (it->get() != job) continue;
    finished_registrations_.push_back(std::move(*it));
    registrations_.erase(it);
    break;
  }
  ReapLater();
}

void SessionService::OnRefreshDone(const SessionKey& key) {
  auto it = refreshes_.find(key);
  if (it != refreshes_.end()) {
    finished_refreshes_.push_back(std::move(it->second));
    refreshes_.erase(it);
  }
  ReapLater();
}

void SessionService::ReapLater() {
  // A finished job is destroyed from a task: it is still on the stack. Out
  // of the maps already, so a new refresh of the session can start now.
  EventLoop::Current()->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (!weak) return;
    weak->finished_registrations_.clear();
    weak->finished_refreshes_.clear();
    if (!weak->idle()) return;
    std::vector<absl::AnyInvocable<void()>> waiters;
    waiters.swap(weak->idle_waiters_);
    for (auto& done : waiters) std::move(done)();
  });
}

void SessionService::WhenIdle(absl::AnyInvocable<void()> done) {
  NET_DCHECK_CALLED_ON_VALID_THREAD(thread_checker_);
  if (!idle()) {
    idle_waiters_.push_back(std::move(done));
    return;
  }
  EventLoop::Current()->PostTask(std::move(done));
}

std::vector<LoadTiming> SessionService::TakeTraces() {
  std::vector<LoadTiming> out;
  out.swap(traces_);
  return out;
}

}  // namespace net
