// DbscServer: the server side of Device Bound Session Credentials (the W3C
// DBSC draft) for the test server, the descendant of its channel-bound
// cookies (channel_bound_cookie.h). Where a channel-bound cookie is tied to
// the TLS connection's client certificate, and so cannot pass a
// TLS-terminating proxy, a DBSC session is tied to a key the client proves
// in HTTP headers, and the cookie it guards lives only seconds.
//
//   GET  /dbsc/login      200 with Secure-Session-Registration: a fresh
//                         challenge and an authorization value
//   POST /dbsc/register   verifies the proof (ES256 with the jwk it
//                         presents, the challenge issued at login, unused
//                         and unexpired, the authorization, aud = this URL,
//                         iat recent); answers the session instructions, the
//                         short-lived bound cookie (dbsc_auth, Max-Age
//                         cookie_lifetime) and the next challenge
//   POST /dbsc/refresh    Sec-Secure-Session-Id names the session; without
//                         a proof, or with one over an unknown, used
//                         (replayed) or expired challenge: 403 and a new
//                         Secure-Session-Challenge; with a proof that does
//                         not verify with the session's key: 401 (the
//                         client ends the session); else a new cookie and
//                         the next challenge
//   GET  /dbsc/protected  200 only with a valid, unexpired dbsc_auth of a
//                         live session; 403 otherwise (the server checks
//                         the expiry itself: a thief who ignores Max-Age
//                         gains nothing)
//
// Each answer carries a log fragment for the request's log line:
// "dbsc":"login|registered|refreshed|challenged|accepted|refused" and
// "dbsc_reason" (expired, missing, bad_proof, replayed_proof, ...), plus
// the proof's jti, the proof itself (dbsc_proof: what a proxy's log or a
// thief would see; tests replay it) and the client's Secure-Session-Skipped
// when present.
//
// Behind a TLS-terminating reverse proxy the expected aud is built from
// the Host header and X-Forwarded-Proto. State (sessions, challenges) is in
// memory, bounded, FIFO-evicted; the cookie MAC key is random per process.
// Owned by the TestServer; used on its event loop only.

#ifndef TOOLS_TESTSERVER_DBSC_SERVER_H_
#define TOOLS_TESTSERVER_DBSC_SERVER_H_

#include <openssl/base.h>
#include <openssl/evp.h>

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace net {

struct DbscServerConfig {
  // The bound cookie's lifetime (Max-Age, and enforced by the server).
  absl::Duration cookie_lifetime = absl::Seconds(10);
  // A challenge can be answered this long after it was issued, once.
  absl::Duration challenge_lifetime = absl::Seconds(60);
  // A proof's iat may be this far from the server's clock.
  absl::Duration max_clock_skew = absl::Minutes(5);
  size_t max_sessions = 10000;
  size_t max_challenges = 10000;
};

// What a route needs of a request.
struct DbscRequest {
  std::string method;
  std::string path;  // without the query
  // The Host header and whether the client's connection is TLS (directly,
  // or at a proxy that says X-Forwarded-Proto: https).
  std::string host;
  bool tls = false;
  std::string forwarded_proto;
  std::string cookie_header;
  std::string session_response;  // Secure-Session-Response
  std::string session_id;        // Sec-Secure-Session-Id
  std::string authorization;
  std::string skipped;  // Secure-Session-Skipped
};

struct DbscResponse {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Fields for the request's JSON log line, each starting with ','.
  std::string log;
};

class DbscServer {
 public:
  static constexpr char kCookieName[] = "dbsc_auth";

  explicit DbscServer(
      DbscServerConfig config,
      std::function<absl::Time()> now = [] { return absl::Now(); });
  ~DbscServer();
  DbscServer(const DbscServer&) = delete;
  DbscServer& operator=(const DbscServer&) = delete;

  // Handle answers a /dbsc/ route, or nullopt for any other path.
  std::optional<DbscResponse> Handle(const DbscRequest& request);

  size_t session_count() const { return sessions_.size(); }

 private:
  struct Challenge {
    std::string session_id;  // "" for a registration challenge
    std::string authorization;
    absl::Time issued;
    bool used = false;
  };
  struct ServerSession {
    bssl::UniquePtr<EVP_PKEY> key;
    absl::Time created;
    int refreshes = 0;
  };

  DbscResponse Login(const DbscRequest& request);
  DbscResponse Register(const DbscRequest& request);
  DbscResponse Refresh(const DbscRequest& request);
  DbscResponse Protected(const DbscRequest& request);

  // A fresh challenge for |session_id| ("" at login), remembered.
  std::string IssueChallenge(const std::string& session_id,
                             const std::string& authorization);
  // The URL the client addressed (the proof's expected aud).
  std::string ExpectedAudience(const DbscRequest& request) const;
  // A bound cookie for |session_id|: "id.expiry_ms.mac" base64url-encoded.
  std::string IssueCookie(const std::string& session_id);
  // The session a cookie value is for, or the refusal reason.
  std::optional<std::string> VerifyCookie(const std::string& value,
                                          std::string* reason) const;
  std::string Mac(const std::string& message) const;
  std::string Random(size_t bytes) const;

  const DbscServerConfig config_;
  const std::function<absl::Time()> now_;
  std::string secret_;
  std::map<std::string, Challenge> challenges_;
  std::deque<std::string> challenge_order_;
  std::map<std::string, ServerSession> sessions_;
  std::deque<std::string> session_order_;
};

}  // namespace net

#endif  // TOOLS_TESTSERVER_DBSC_SERVER_H_
