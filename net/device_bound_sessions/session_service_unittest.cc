// SessionService with a scripted fetcher, a real key pool, and fake clocks
// (monotonic for durations and backoff, wall for cookie and session
// expiry): registration, the deferral state machine (bound, deferred,
// coalesced, challenged, refreshed, failed, backed off, ended), and what
// the traces say.

#include "net/device_bound_sessions/session_service.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cert/obc/key_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/worker_pool.h"
#include "net/device_bound_sessions/proof.h"
#include "net/device_bound_sessions/structured_headers.h"
#include "net/http/cookie_jar.h"

namespace net {
namespace {

using ::testing::HasSubstr;

constexpr char kLogin[] = "https://www.example.test/dbsc/login";
constexpr char kRegister[] = "https://www.example.test/dbsc/register";
constexpr char kRefresh[] = "https://www.example.test/dbsc/refresh";
constexpr char kProtected[] = "https://www.example.test/dbsc/protected";

Url U(absl::string_view s) { return *Url::Parse(s); }

std::string Instructions(const std::string& id = "s1",
                         const std::string& extra = "") {
  return absl::StrCat(
      R"({"session_identifier":")", id,
      R"(","refresh_url":"/dbsc/refresh","scope":{"include_site":false,)",
      R"("scope_specification":[{"type":"exclude","path":"/dbsc/login"}]},)",
      R"("credentials":[{"type":"cookie","name":"auth",)",
      R"("attributes":"Path=/; Secure; HttpOnly"}])", extra, "}");
}

// The fetcher tests answer by hand. Like URLRequest, a response's
// Set-Cookie headers go to the jar before the caller hears of it.
class FakeFetcher : public SessionFetcher {
 public:
  struct PostCall {
    Url url;
    HttpHeaderList headers;
    Callback callback;
    bool cancelled = false;
    std::string Header(absl::string_view name) const {
      for (const auto& [n, v] : headers)
        if (absl::EqualsIgnoreCase(n, name)) return v;
      return "";
    }
  };
  class Handle : public Request {
   public:
    explicit Handle(PostCall* post) : post_(post) {}
    ~Handle() override { post_->cancelled = true; }

   private:
    PostCall* post_;
  };

  FakeFetcher(CookieJar* jar, std::function<absl::Time()> now)
      : jar_(jar), now_(std::move(now)) {}

  void Post(const Url& url, HttpHeaderList headers, Callback callback,
            std::unique_ptr<Request>* out) override {
    posts.push_back(std::make_unique<PostCall>());
    posts.back()->url = url;
    posts.back()->headers = std::move(headers);
    posts.back()->callback = std::move(callback);
    *out = std::make_unique<Handle>(posts.back().get());
  }

  // Answers post |i| with |status|, header lines ("Name: v\r\n") and a body.
  void Respond(size_t i, int status, const std::string& header_lines,
               const std::string& body = "") {
    ASSERT_LT(i, posts.size());
    ASSERT_FALSE(posts[i]->cancelled);
    SessionFetchResult result;
    result.url = posts[i]->url;
    absl::StatusOr<HttpResponseHeaders> headers = HttpResponseHeaders::Parse(
        absl::StrCat("HTTP/1.1 ", status, " X\r\n", header_lines,
                     "Content-Length: ", body.size(), "\r\n\r\n"));
    ASSERT_TRUE(headers.ok()) << headers.status();
    for (const auto& [name, value] : headers->headers()) {
      if (absl::EqualsIgnoreCase(name, "set-cookie"))
        (void)jar_->SetCookie(result.url, value, now_());
    }
    result.headers = *headers;
    result.body = body;
    result.timing.url = result.url.spec();
    result.timing.status_code = status;
    EventLoop::Current()->PostTask(
        [cb = std::move(posts[i]->callback), r = std::move(result)]() mutable {
          std::move(cb)(std::move(r));
        });
  }
  void Fail(size_t i, int error) {
    SessionFetchResult result;
    result.net_error = error;
    result.error_detail = "scripted";
    result.url = posts[i]->url;
    EventLoop::Current()->PostTask(
        [cb = std::move(posts[i]->callback), r = std::move(result)]() mutable {
          std::move(cb)(std::move(r));
        });
  }

  std::vector<std::unique_ptr<PostCall>> posts;

 private:
  CookieJar* jar_;
  std::function<absl::Time()> now_;
};

// The claims of the proof in a post's Secure-Session-Response, verified
// with |key| (null: the header's own jwk).
absl::StatusOr<VerifiedDbscProof> ProofOf(const FakeFetcher::PostCall& post,
                                          const EVP_PKEY* key) {
  absl::StatusOr<SfItem> item =
      ParseSfItem(post.Header("Secure-Session-Response"));
  if (!item.ok()) return item.status();
  if (!item->bare.is_string())
    return absl::InvalidArgumentError("the header is no string");
  return VerifyDbscProof(item->bare.string, key);
}

class SessionServiceTest : public ::testing::Test {
 protected:
  SessionServiceTest()
      : workers_(1),
        key_pool_(&workers_, KeyPool::Options()),
        fetcher_(&jar_, [this] { return wall_; }) {
    SessionServiceOptions options;
    options.clock = &clock_;
    options.now = [this] { return wall_; };
    options.backoff_initial = absl::Seconds(2);
    options.backoff_max = absl::Seconds(5);
    service_ = std::make_unique<SessionService>(options, &store_, &jar_,
                                                &key_pool_, &fetcher_);
  }

  // Runs until |what| holds (tasks, and key generation on the worker).
  template <typename Pred>
  void RunUntil(Pred what) {
    for (int i = 0; i < 2000 && !what(); ++i) {
      loop_.RunUntilIdle();
      if (!what()) absl::SleepFor(absl::Milliseconds(1));
    }
    ASSERT_TRUE(what());
  }

  HttpResponseHeaders Response(const std::string& lines) {
    return *HttpResponseHeaders::Parse(
        absl::StrCat("HTTP/1.1 200 OK\r\n", lines, "\r\n"));
  }

  // The login response asks for a session; the registration is answered
  // with the instructions, a 10 s bound cookie and the next challenge.
  void Register() {
    DeviceBoundSessionRequestState login;
    service_->OnResponseHeaders(
        U(kLogin), U(kLogin).GetOrigin(),
        Response("Secure-Session-Registration: (ES256);path=\"/dbsc/register\";"
                 "challenge=\"c1\";authorization=\"a1\"\r\n"),
        &login);
    EXPECT_EQ(login.trace.role, DbscRole::kRegistering);
    EXPECT_EQ(login.trace.outcome, DbscOutcome::kStarted);
    RunUntil([&] { return fetcher_.posts.size() == 1; });
    clock_.Advance(absl::Milliseconds(40));
    fetcher_.Respond(
        0, 200,
        "Set-Cookie: auth=v1; Max-Age=10; Path=/; Secure; HttpOnly\r\n"
        "Secure-Session-Challenge: \"c2\";id=\"s1\"\r\n",
        Instructions());
    RunUntil([&] { return service_->idle(); });
    ASSERT_NE(store_.Find("example.test", "s1"), nullptr);
  }

  int Defer(const char* url, DeviceBoundSessionRequestState* state, int* result,
            std::unique_ptr<DeviceBoundSessionDelegate::Deferral>* deferral) {
    *result = 1;
    return service_->MaybeDeferRequest(
        U(url), U(kLogin).GetOrigin(), state,
        [result](int rv) { *result = rv; }, deferral);
  }

  EventLoop loop_;
  WorkerPool workers_;
  KeyPool key_pool_;
  SimpleTestTickClock clock_;
  absl::Time wall_ = absl::FromUnixSeconds(1'750'000'000);
  CookieJar jar_;
  SessionStore store_;
  FakeFetcher fetcher_;
  std::unique_ptr<SessionService> service_;
};

TEST_F(SessionServiceTest, RegistrationSignsTheChallengeAndStoresTheSession) {
  Register();
  const FakeFetcher::PostCall& post = *fetcher_.posts[0];
  EXPECT_EQ(post.url.spec(), kRegister);
  EXPECT_EQ(post.Header("Authorization"), "a1");
  absl::StatusOr<VerifiedDbscProof> proof = ProofOf(post, nullptr);
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_EQ(proof->claims.audience, kRegister);
  EXPECT_EQ(proof->claims.challenge, "c1");
  EXPECT_EQ(proof->claims.authorization, "a1");
  EXPECT_EQ(proof->claims.issued_at, absl::ToUnixSeconds(wall_));

  Session* s = store_.Find("example.test", "s1");
  EXPECT_EQ(s->refresh_url.spec(), kRefresh);
  EXPECT_EQ(s->scope.origin, U(kLogin).GetOrigin());
  EXPECT_EQ(s->credentials[0].name, "auth");
  EXPECT_EQ(s->cached_challenge, "c2");
  // The session's key is the one the proof presented.
  EXPECT_EQ(*PublicKeySpki(s->key.get()), *PublicKeySpki(proof->jwk.get()));
  EXPECT_FALSE(s->key_pkcs8.empty());

  std::vector<LoadTiming> traces = service_->TakeTraces();
  ASSERT_EQ(traces.size(), 1u);
  const DbscTrace& t = traces[0].dbsc;
  EXPECT_EQ(t.role, DbscRole::kRegistration);
  EXPECT_EQ(t.outcome, DbscOutcome::kRegistered);
  EXPECT_EQ(t.session_id, "s1");
  EXPECT_EQ(t.alg, "ES256");
  EXPECT_TRUE(t.key_source == "pooled" || t.key_source == "generated");
  EXPECT_EQ(t.registered, absl::Milliseconds(40));
  EXPECT_EQ(traces[0].method, "POST");
  EXPECT_EQ(service_->stats().registered, 1u);
}

// The deferral state machine: bound -> expired -> deferred (two requests,
// one refresh) -> 403 challenge -> new proof -> refreshed -> bound.
TEST_F(SessionServiceTest, ExpiredCookieDefersUntilTheRefreshEnds) {
  Register();
  service_->TakeTraces();
  DeviceBoundSessionRequestState a, b;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> da, db;
  int ra, rb;
  // Within the cookie's lifetime: nothing to do.
  EXPECT_EQ(Defer(kProtected, &a, &ra, &da), OK);
  EXPECT_EQ(a.trace.outcome, DbscOutcome::kBound);
  EXPECT_TRUE(a.deferred_sessions.empty());
  // Out of scope, or the refresh URL itself: not even looked at.
  DeviceBoundSessionRequestState other;
  EXPECT_EQ(Defer("https://www.example.test/dbsc/login", &other, &ra, &da), OK);
  EXPECT_EQ(Defer(kRefresh, &other, &ra, &da), OK);
  EXPECT_EQ(Defer("https://api.example.test/", &other, &ra, &da), OK);
  EXPECT_EQ(other.trace.role, DbscRole::kNone);

  wall_ += absl::Seconds(11);  // the bound cookie expired
  a = DeviceBoundSessionRequestState();
  ASSERT_EQ(Defer(kProtected, &a, &ra, &da), ERR_IO_PENDING);
  ASSERT_EQ(Defer(kProtected, &b, &rb, &db), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  ASSERT_EQ(fetcher_.posts.size(), 2u);  // one refresh for both
  EXPECT_EQ(ra, 1);
  Session* s = store_.Find("example.test", "s1");
  const FakeFetcher::PostCall& first = *fetcher_.posts[1];
  EXPECT_EQ(first.url.spec(), kRefresh);
  EXPECT_EQ(first.Header("Sec-Secure-Session-Id"), "\"s1\"");
  absl::StatusOr<VerifiedDbscProof> proof = ProofOf(first, s->key.get());
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_EQ(proof->claims.challenge, "c2");
  EXPECT_EQ(proof->claims.audience, kRefresh);
  EXPECT_FALSE(proof->jwk);  // no jwk on refresh

  // The server wants a fresher challenge.
  clock_.Advance(absl::Milliseconds(10));
  fetcher_.Respond(1, 403, "Secure-Session-Challenge: \"c3\";id=\"s1\"\r\n");
  loop_.RunUntilIdle();
  ASSERT_EQ(fetcher_.posts.size(), 3u);
  EXPECT_EQ(ra, 1);
  proof = ProofOf(*fetcher_.posts[2], s->key.get());
  ASSERT_TRUE(proof.ok());
  EXPECT_EQ(proof->claims.challenge, "c3");

  clock_.Advance(absl::Milliseconds(15));
  fetcher_.Respond(
      2, 200, "Set-Cookie: auth=v2; Max-Age=10; Path=/; Secure; HttpOnly\r\n");
  loop_.RunUntilIdle();
  EXPECT_EQ(ra, OK);
  EXPECT_EQ(rb, OK);
  for (DeviceBoundSessionRequestState* st : {&a, &b}) {
    EXPECT_EQ(st->trace.role, DbscRole::kRequest);
    EXPECT_EQ(st->trace.outcome, DbscOutcome::kRefreshed);
    EXPECT_EQ(st->trace.deferred, absl::Milliseconds(25));
    EXPECT_EQ(st->trace.refresh, absl::Milliseconds(25));
    EXPECT_EQ(st->trace.alg, "ES256");
    EXPECT_TRUE(st->skipped.empty());
  }
  // Asked again (as URLRequest does), the request goes: the session
  // deferred it once, and the cookie is back anyway.
  da.reset();
  EXPECT_EQ(Defer(kProtected, &a, &ra, &da), OK);
  DeviceBoundSessionRequestState fresh;
  EXPECT_EQ(Defer(kProtected, &fresh, &ra, &da), OK);
  EXPECT_EQ(fresh.trace.outcome, DbscOutcome::kBound);

  std::vector<LoadTiming> traces = service_->TakeTraces();
  ASSERT_EQ(traces.size(), 2u);
  EXPECT_EQ(traces[0].dbsc.role, DbscRole::kRefresh);
  EXPECT_EQ(traces[0].dbsc.outcome, DbscOutcome::kChallenged);
  EXPECT_EQ(traces[0].dbsc.refresh, std::nullopt);
  EXPECT_EQ(traces[1].dbsc.outcome, DbscOutcome::kRefreshed);
  EXPECT_EQ(traces[1].dbsc.refresh, absl::Milliseconds(25));
  EXPECT_EQ(service_->stats().challenges, 1u);
  EXPECT_EQ(service_->stats().deferred_requests, 2u);
}

// A refresh that fails keeps the session (the draft), releases the request
// without the cookie and with Secure-Session-Skipped, and backs off.
TEST_F(SessionServiceTest, FailedRefreshBacksOffAndSkips) {
  Register();
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState a;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> d;
  int r;
  ASSERT_EQ(Defer(kProtected, &a, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  fetcher_.Respond(1, 503, "");
  loop_.RunUntilIdle();
  EXPECT_EQ(r, OK);
  EXPECT_EQ(a.trace.outcome, DbscOutcome::kFailed);
  EXPECT_EQ(a.trace.detail, "HTTP 503");
  EXPECT_EQ(a.skipped,
            std::vector<std::string>{"server_error;session_identifier=\"s1\""});
  EXPECT_NE(store_.Find("example.test", "s1"), nullptr);

  // Within the backoff (2 s): no refresh, the request goes at once.
  DeviceBoundSessionRequestState b;
  EXPECT_EQ(Defer(kProtected, &b, &r, &d), OK);
  EXPECT_EQ(b.trace.outcome, DbscOutcome::kSkipped);
  EXPECT_THAT(b.trace.detail, HasSubstr("backing off after 1 failed refresh"));
  EXPECT_EQ(b.skipped, std::vector<std::string>{
                           "quota_exceeded;session_identifier=\"s1\""});
  EXPECT_EQ(fetcher_.posts.size(), 2u);

  // After it: tried again; a network error this time, and the backoff
  // doubles (4 s).
  clock_.Advance(absl::Seconds(2));
  DeviceBoundSessionRequestState c;
  ASSERT_EQ(Defer(kProtected, &c, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  ASSERT_EQ(fetcher_.posts.size(), 3u);
  fetcher_.Fail(2, ERR_CONNECTION_REFUSED);
  loop_.RunUntilIdle();
  EXPECT_EQ(c.trace.outcome, DbscOutcome::kFailed);
  EXPECT_THAT(c.trace.detail, HasSubstr("ERR_CONNECTION_REFUSED"));
  EXPECT_EQ(c.skipped,
            std::vector<std::string>{"unreachable;session_identifier=\"s1\""});
  clock_.Advance(absl::Seconds(3));
  DeviceBoundSessionRequestState e;
  EXPECT_EQ(Defer(kProtected, &e, &r, &d), OK);
  EXPECT_EQ(e.trace.outcome, DbscOutcome::kSkipped);
  clock_.Advance(absl::Seconds(1));
  DeviceBoundSessionRequestState f;
  EXPECT_EQ(Defer(kProtected, &f, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  // A success clears the backoff.
  fetcher_.Respond(
      3, 200, "Set-Cookie: auth=v2; Max-Age=10; Path=/; Secure; HttpOnly\r\n");
  loop_.RunUntilIdle();
  EXPECT_EQ(f.trace.outcome, DbscOutcome::kRefreshed);
  EXPECT_EQ(f.trace.detail, "");
  DeviceBoundSessionRequestState g;
  EXPECT_EQ(Defer(kProtected, &g, &r, &d), OK);  // no backoff left
  EXPECT_EQ(g.trace.outcome, DbscOutcome::kBound);
}

// A 2xx refresh that sets no bound cookie (here: not HttpOnly, so not the
// credential) keeps the session but backs off: otherwise every request of
// the session would go to the refresh endpoint again.
TEST_F(SessionServiceTest, RefreshWithoutTheCookieBacksOff) {
  Register();
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState a;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> d;
  int r;
  ASSERT_EQ(Defer(kProtected, &a, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  fetcher_.Respond(1, 200,
                   "Set-Cookie: auth=v2; Max-Age=10; Path=/; Secure\r\n");
  loop_.RunUntilIdle();
  EXPECT_EQ(r, OK);
  EXPECT_EQ(a.trace.outcome, DbscOutcome::kFailed);
  EXPECT_THAT(a.trace.detail, HasSubstr("set no bound cookie (auth)"));
  EXPECT_EQ(a.skipped,
            std::vector<std::string>{"server_error;session_identifier=\"s1\""});
  EXPECT_NE(store_.Find("example.test", "s1"), nullptr);
  DeviceBoundSessionRequestState b;
  EXPECT_EQ(Defer(kProtected, &b, &r, &d), OK);
  EXPECT_EQ(b.trace.outcome, DbscOutcome::kSkipped);
  EXPECT_EQ(fetcher_.posts.size(), 2u);
  EXPECT_EQ(service_->stats().refreshed, 0u);
  EXPECT_EQ(service_->stats().refresh_failures, 1u);
}

TEST_F(SessionServiceTest, RefusedRefreshEndsTheSession) {
  Register();
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState a;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> d;
  int r;
  ASSERT_EQ(Defer(kProtected, &a, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  fetcher_.Respond(1, 401, "");
  loop_.RunUntilIdle();
  EXPECT_EQ(r, OK);
  EXPECT_EQ(a.trace.outcome, DbscOutcome::kEnded);
  EXPECT_EQ(a.trace.detail, "HTTP 401");
  EXPECT_TRUE(a.skipped.empty());
  EXPECT_EQ(store_.size(), 0u);
  DeviceBoundSessionRequestState b;
  EXPECT_EQ(Defer(kProtected, &b, &r, &d), OK);
  EXPECT_EQ(b.trace.role, DbscRole::kNone);
}

TEST_F(SessionServiceTest, ChallengedTwiceEndsTheSession) {
  Register();
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState a;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> d;
  int r;
  ASSERT_EQ(Defer(kProtected, &a, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  fetcher_.Respond(1, 403, "Secure-Session-Challenge: \"c3\";id=\"s1\"\r\n");
  loop_.RunUntilIdle();
  fetcher_.Respond(2, 403, "Secure-Session-Challenge: \"c4\";id=\"s1\"\r\n");
  loop_.RunUntilIdle();
  EXPECT_EQ(r, OK);
  EXPECT_EQ(fetcher_.posts.size(), 3u);  // no loop
  EXPECT_EQ(a.trace.outcome, DbscOutcome::kEnded);
  EXPECT_THAT(a.trace.detail, HasSubstr("403 again"));
  EXPECT_EQ(store_.size(), 0u);
}

TEST_F(SessionServiceTest, RefreshInstructionsUpdateOrEndTheSession) {
  Register();
  Session* s = store_.Find("example.test", "s1");
  const std::string key = s->key_pkcs8;
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState a;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> d;
  int r;
  ASSERT_EQ(Defer(kProtected, &a, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  // New instructions: another scope rule, the same key.
  fetcher_.Respond(
      1, 200, "Set-Cookie: auth=v2; Max-Age=10; Path=/; Secure; HttpOnly\r\n",
      absl::StrCat(R"({"session_identifier":"s1","scope":)",
                   R"({"include_site":false,"scope_specification":)",
                   R"([{"type":"exclude","path":"/static"}]},)",
                   R"("credentials":[{"type":"cookie","name":"auth",)",
                   R"("attributes":"Path=/; Secure; HttpOnly"}]})"));
  loop_.RunUntilIdle();
  EXPECT_EQ(a.trace.outcome, DbscOutcome::kRefreshed);
  s = store_.Find("example.test", "s1");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->key_pkcs8, key);
  EXPECT_EQ(s->scope.rules[0].path, "/static");
  EXPECT_EQ(s->refresh_url.spec(), kRefresh);  // the URL that answered

  // Another session id in a refresh answer ends it.
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState b;
  ASSERT_EQ(Defer(kProtected, &b, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  fetcher_.Respond(2, 200, "", Instructions("s2"));
  loop_.RunUntilIdle();
  EXPECT_EQ(b.trace.outcome, DbscOutcome::kEnded);
  EXPECT_THAT(b.trace.detail, HasSubstr("is not the session's"));
  EXPECT_EQ(store_.size(), 0u);
}

TEST_F(SessionServiceTest, ContinueFalseEndsTheSession) {
  Register();
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState a;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> d;
  int r;
  ASSERT_EQ(Defer(kProtected, &a, &r, &d), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  fetcher_.Respond(1, 200, "", R"({"continue":false})");
  loop_.RunUntilIdle();
  EXPECT_EQ(a.trace.outcome, DbscOutcome::kEnded);
  EXPECT_EQ(store_.size(), 0u);
}

// A cancelled wait leaves the refresh running for the others; destroying
// the service with a refresh running cancels its POST.
TEST_F(SessionServiceTest, CancelledWaitAndServiceDestruction) {
  Register();
  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState a, b;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> da, db;
  int ra, rb;
  ASSERT_EQ(Defer(kProtected, &a, &ra, &da), ERR_IO_PENDING);
  ASSERT_EQ(Defer(kProtected, &b, &rb, &db), ERR_IO_PENDING);
  da.reset();
  loop_.RunUntilIdle();
  fetcher_.Respond(
      1, 200, "Set-Cookie: auth=v2; Max-Age=10; Path=/; Secure; HttpOnly\r\n");
  loop_.RunUntilIdle();
  EXPECT_EQ(ra, 1);  // never called
  EXPECT_EQ(rb, OK);
  EXPECT_EQ(a.trace.role, DbscRole::kNone);

  wall_ += absl::Seconds(11);
  DeviceBoundSessionRequestState c;
  std::unique_ptr<DeviceBoundSessionDelegate::Deferral> dc;
  int rc;
  ASSERT_EQ(Defer(kProtected, &c, &rc, &dc), ERR_IO_PENDING);
  loop_.RunUntilIdle();
  ASSERT_EQ(fetcher_.posts.size(), 3u);
  service_.reset();
  EXPECT_TRUE(fetcher_.posts[2]->cancelled);
  dc.reset();  // the wait outlived the job: harmless
  loop_.RunUntilIdle();
  EXPECT_EQ(rc, 1);
}

TEST_F(SessionServiceTest, RegistrationsThatCreateNothing) {
  struct Case {
    const char* header;
    const char* why;  // in the login trace (not started) or the POST's
    int status = 200;
    std::string body;
  };
  const Case kCases[] = {
      {"(RS256);path=\"/r\";challenge=\"c\"", "no supported algorithm"},
      {"(ES256);path=\"https://evil.test/r\";challenge=\"c\"", "not same-site"},
      {"ES256;path=\"/r\"", "not an inner list"},
      {"(ES256", "structured field"},
      {"(ES256);path=\"/r\";challenge=\"c\"", "HTTP 500", 500, ""},
      {"(ES256);path=\"/r\";challenge=\"c\"", "JSON", 200, "{"},
      {"(ES256);path=\"/r\";challenge=\"c\"", "\"continue\": false", 200,
       R"({"continue":false})"},
      {"(ES256);path=\"/r\";challenge=\"c\"", "neither https nor localhost",
       200,
       absl::StrReplaceAll(
           Instructions("s1"),
           {{"/dbsc/refresh", "http://www.example.test/refresh"}})},
      {"(ES256);path=\"/r\";challenge=\"c\"", "Partitioned", 200,
       absl::StrReplaceAll(Instructions("s1"),
                           {{"HttpOnly", "HttpOnly; Partitioned"}})},
      {"(ES256);path=\"/r\";challenge=\"c\"", "could not be set", 200,
       absl::StrReplaceAll(Instructions("s1"),
                           {{"Path=/;", "Domain=other.test;"}})},
      {"(ES256);path=\"/r\";challenge=\"c\"", "not same-site", 200,
       absl::StrReplaceAll(Instructions("s1"),
                           {{"\"include_site\":false",
                             "\"origin\":\"https://other.test\","
                             "\"include_site\":false"}})},
      {"(ES256);path=\"/r\";challenge=\"c\"", "well-known", 200,
       absl::StrReplaceAll(Instructions("s1"),
                           {{"\"include_site\":false",
                             "\"origin\":\"https://example.test\","
                             "\"include_site\":true"}})},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.header + std::string(" ") + c.body);
    const size_t posts = fetcher_.posts.size();
    DeviceBoundSessionRequestState login;
    service_->OnResponseHeaders(
        U(kLogin), U(kLogin).GetOrigin(),
        Response(
            absl::StrCat("Secure-Session-Registration: ", c.header, "\r\n")),
        &login);
    if (login.trace.outcome == DbscOutcome::kFailed) {
      EXPECT_THAT(login.trace.detail, HasSubstr(c.why));
      continue;
    }
    RunUntil([&] { return fetcher_.posts.size() == posts + 1; });
    fetcher_.Respond(posts, c.status, "", c.body);
    RunUntil([&] { return service_->idle(); });
    std::vector<LoadTiming> traces = service_->TakeTraces();
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].dbsc.outcome, DbscOutcome::kFailed);
    EXPECT_THAT(traces[0].dbsc.detail, HasSubstr(c.why));
    EXPECT_EQ(store_.size(), 0u);
  }
}

TEST_F(SessionServiceTest, WhenIdleWaitsForRegistrations) {
  bool idle = false;
  service_->WhenIdle([&] { idle = true; });
  loop_.RunUntilIdle();
  EXPECT_TRUE(idle);
  DeviceBoundSessionRequestState login;
  service_->OnResponseHeaders(
      U(kLogin), U(kLogin).GetOrigin(),
      Response("Secure-Session-Registration: (ES256);path=\"/r\"\r\n"), &login);
  idle = false;
  service_->WhenIdle([&] { idle = true; });
  RunUntil([&] { return fetcher_.posts.size() == 1; });
  EXPECT_FALSE(idle);
  // Neither challenge nor authorization: the draft sends no proof.
  EXPECT_EQ(fetcher_.posts[0]->Header("Secure-Session-Response"), "");
  fetcher_.Respond(0, 200, "", Instructions());
  RunUntil([&] { return idle; });
  EXPECT_NE(store_.Find("example.test", "s1"), nullptr);
}

}  // namespace
}  // namespace net
