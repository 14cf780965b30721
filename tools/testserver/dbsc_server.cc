#include "tools/testserver/dbsc_server.h"

#include <openssl/hmac.h>
#include <openssl/mem.h>
#include <openssl/rand.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/device_bound_sessions/json.h"
#include "net/device_bound_sessions/proof.h"
#include "net/device_bound_sessions/structured_headers.h"
#include "net/timing/load_timing.h"
#include "tools/testserver/channel_bound_cookie.h"

namespace net {
namespace {

constexpr char kRegisterPath[] = "/dbsc/register";
constexpr char kRefreshPath[] = "/dbsc/refresh";

std::string LogField(absl::string_view key, absl::string_view value) {
  return absl::StrCat(",\"", key, "\":\"", JsonEscape(std::string(value)),
                      "\"");
}

DbscResponse Answer(int status, std::string body, std::string verdict,
                    std::string reason = "") {
  DbscResponse r;
  r.status = status;
  r.body = std::move(body);
  r.log = LogField("dbsc", verdict);
  if (!reason.empty()) r.log += LogField("dbsc_reason", reason);
  return r;
}

// The string inside a structured-field String header, or nullopt.
std::optional<std::string> SfString(const std::string& value) {
  absl::StatusOr<SfItem> item = ParseSfItem(value);
  if (!item.ok() || !item->bare.is_string()) return std::nullopt;
  return item->bare.string;
}

std::string ChallengeHeader(const std::string& challenge,
                            const std::string& session_id) {
  return absl::StrCat(*SerializeSfString(challenge),
                      ";id=", *SerializeSfString(session_id));
}

}  // namespace

DbscServer::DbscServer(DbscServerConfig config, std::function<absl::Time()> now)
    : config_(config), now_(std::move(now)), secret_(Random(32)) {}

DbscServer::~DbscServer() = default;

std::string DbscServer::Random(size_t bytes) const {
  std::string out(bytes, '\0');
  RAND_bytes(reinterpret_cast<uint8_t*>(out.data()), out.size());
  return out;
}

std::string DbscServer::Mac(const std::string& message) const {
  uint8_t mac[EVP_MAX_MD_SIZE];
  unsigned mac_len = 0;
  HMAC(EVP_sha256(), secret_.data(), secret_.size(),
       reinterpret_cast<const uint8_t*>(message.data()), message.size(), mac,
       &mac_len);
  return std::string(reinterpret_cast<const char*>(mac), mac_len);
}

std::optional<DbscResponse> DbscServer::Handle(const DbscRequest& request) {
  const bool post = request.method == "POST";
  DbscResponse response;
  if (request.path == "/dbsc/login" && !post) {
    response = Login(request);
  } else if (request.path == kRegisterPath && post) {
    response = Register(request);
  } else if (request.path == kRefreshPath && post) {
    response = Refresh(request);
  } else if (request.path == "/dbsc/protected" && !post) {
    response = Protected(request);
  } else if (absl::StartsWith(request.path, "/dbsc/")) {
    response = Answer(405, "no such DBSC route for this method\n", "refused",
                      "method");
  } else {
    return std::nullopt;
  }
  if (!request.skipped.empty())
    response.log += LogField("dbsc_skipped", request.skipped);
  // What an observer of the requests sees (a proxy's log, a thief): the
  // proof, for tests that replay it.
  if (!request.session_response.empty())
    response.log += LogField("dbsc_proof", request.session_response);
  return response;
}

std::string DbscServer::IssueChallenge(const std::string& session_id,
                                       const std::string& authorization) {
  std::string challenge = Base64UrlEncode(Random(16));
  while (challenges_.size() >= config_.max_challenges) {
    challenges_.erase(challenge_order_.front());
    challenge_order_.pop_front();
  }
  challenges_[challenge] = {session_id, authorization, now_(), false};
  challenge_order_.push_back(challenge);
  return challenge;
}

std::string DbscServer::ExpectedAudience(const DbscRequest& request) const {
  const bool https =
      request.tls || absl::EqualsIgnoreCase(request.forwarded_proto, "https");
  return absl::StrCat(https ? "https" : "http", "://",
                      absl::AsciiStrToLower(request.host), request.path);
}

std::string DbscServer::IssueCookie(const std::string& session_id) {
  const int64_t expiry_ms =
      absl::ToUnixMillis(now_() + config_.cookie_lifetime);
  const std::string payload = absl::StrCat(session_id, ".", expiry_ms);
  return absl::StrCat(Base64UrlEncode(payload), ".",
                      Base64UrlEncode(Mac(payload)));
}

std::optional<std::string> DbscServer::VerifyCookie(const std::string& value,
                                                    std::string* reason) const {
  std::vector<std::string> parts = absl::StrSplit(value, '.');
  absl::StatusOr<std::string> payload = parts.size() == 2
                                            ? Base64UrlDecode(parts[0])
                                            : absl::InvalidArgumentError("");
  absl::StatusOr<std::string> mac = parts.size() == 2
                                        ? Base64UrlDecode(parts[1])
                                        : absl::InvalidArgumentError("");
  if (!payload.ok() || !mac.ok()) {
    *reason = "malformed";
    return std::nullopt;
  }
  const std::string expected = Mac(*payload);
  if (mac->size() != expected.size() ||
      CRYPTO_memcmp(mac->data(), expected.data(), expected.size()) != 0) {
    *reason = "invalid";
    return std::nullopt;
  }
  std::vector<std::string> fields = absl::StrSplit(*payload, '.');
  int64_t expiry_ms = 0;
  if (fields.size() != 2 || !absl::SimpleAtoi(fields[1], &expiry_ms)) {
    *reason = "malformed";
    return std::nullopt;
  }
  if (absl::ToUnixMillis(now_()) >= expiry_ms) {
    *reason = "expired";
    return std::nullopt;
  }
  if (!sessions_.count(fields[0])) {
    *reason = "unknown_session";
    return std::nullopt;
  }
  return fields[0];
}

DbscResponse DbscServer::Login(const DbscRequest& request) {
  const std::string authorization = Base64UrlEncode(Random(12));
  const std::string challenge = IssueChallenge("", authorization);
  DbscResponse r =
      Answer(200, "logged in: a device bound session is asked for\n", "login");
  r.headers.emplace_back(
      "Secure-Session-Registration",
      absl::StrCat("(ES256);path=", *SerializeSfString(kRegisterPath),
                   ";challenge=", *SerializeSfString(challenge),
                   ";authorization=", *SerializeSfString(authorization)));
  r.log += LogField("dbsc_challenge", challenge);
  return r;
}

DbscResponse DbscServer::Register(const DbscRequest& request) {
  std::optional<std::string> jwt = SfString(request.session_response);
  if (!jwt)
    return Answer(400, "no Secure-Session-Response proof\n", "refused",
                  "no_proof");
  absl::StatusOr<VerifiedDbscProof> proof = VerifyDbscProof(*jwt, nullptr);
  if (!proof.ok())
    return Answer(401, absl::StrCat(proof.status().message(), "\n"), "refused",
                  "bad_proof");
  const DbscProofClaims& claims = proof->claims;
  auto it = challenges_.find(claims.challenge);
  if (it == challenges_.end() || !it->second.session_id.empty()) {
    DbscResponse r = Answer(401, "the proof's challenge was not issued here\n",
                            "refused", "unknown_challenge");
    r.log += LogField("dbsc_jti", claims.challenge);
    return r;
  }
  Challenge& challenge = it->second;
  std::string reason;
  if (challenge.used) {
    reason = "replayed_proof";
  } else if (now_() - challenge.issued > config_.challenge_lifetime) {
    reason = "expired_challenge";
  } else if (claims.authorization.value_or("") != challenge.authorization) {
    reason = "bad_authorization";
  } else if (claims.audience != ExpectedAudience(request)) {
    reason = "bad_audience";
  } else if (absl::AbsDuration(absl::FromUnixSeconds(claims.issued_at) -
                               now_()) > config_.max_clock_skew) {
    reason = "stale_proof";
  }
  if (!reason.empty()) {
    DbscResponse r =
        Answer(401,
               absl::StrCat("registration refused: ", reason, " (aud ",
                            claims.audience, ", expected ",
                            ExpectedAudience(request), ")\n"),
               "refused", reason);
    r.log += LogField("dbsc_jti", claims.challenge);
    return r;
  }
  challenge.used = true;

  const std::string id = HexEncode(Random(8));
  while (sessions_.size() >= config_.max_sessions) {
    sessions_.erase(session_order_.front());
    session_order_.pop_front();
  }
  sessions_[id] = {std::move(proof->jwk), now_(), 0};
  session_order_.push_back(id);

  JsonValue::Members rule = {{"type", JsonValue::String("exclude")},
                             {"path", JsonValue::String("/dbsc/login")}};
  JsonValue::Members scope = {
      {"include_site", JsonValue::Bool(false)},
      {"scope_specification",
       JsonValue::Array({JsonValue::Object(std::move(rule))})}};
  JsonValue::Members credential = {
      {"type", JsonValue::String("cookie")},
      {"name", JsonValue::String(kCookieName)},
      {"attributes", JsonValue::String("Path=/; Secure; HttpOnly")}};
  JsonValue::Members instructions = {
      {"session_identifier", JsonValue::String(id)},
      {"refresh_url", JsonValue::String(kRefreshPath)},
      {"scope", JsonValue::Object(std::move(scope))},
      {"credentials",
       JsonValue::Array({JsonValue::Object(std::move(credential))})}};
  DbscResponse r =
      Answer(200, JsonValue::Object(std::move(instructions)).Serialize() + "\n",
             "registered");
  r.content_type = "application/json";
  r.headers.emplace_back(
      "Set-Cookie",
      absl::StrCat(kCookieName, "=", IssueCookie(id),
                   "; Max-Age=", absl::ToInt64Seconds(config_.cookie_lifetime),
                   "; Path=/; Secure; HttpOnly"));
  r.headers.emplace_back("Secure-Session-Challenge",
                         ChallengeHeader(IssueChallenge(id, ""), id));
  r.log +=
      LogField("dbsc_session", id) + LogField("dbsc_jti", claims.challenge);
  return r;
}

DbscResponse DbscServer::Refresh(const DbscRequest& request) {
  std::optional<std::string> id = SfString(request.session_id);
  if (!id)
    return Answer(400, "no Sec-Secure-Session-Id\n", "refused",
                  "no_session_id");
  auto session = sessions_.find(*id);
  if (session == sessions_.end()) {
    DbscResponse r =
        Answer(401, "unknown session\n", "refused", "unknown_session");
    r.log += LogField("dbsc_session", *id);
    return r;
  }
  // Every 403 carries a new challenge the client can sign.
  auto challenge_again = [&](std::string reason, std::string jti) {
    DbscResponse r =
        Answer(403, absl::StrCat("sign a new challenge: ", reason, "\n"),
               reason == "no_proof" ? "challenged" : "refused", reason);
    r.headers.emplace_back("Secure-Session-Challenge",
                           ChallengeHeader(IssueChallenge(*id, ""), *id));
    r.log += LogField("dbsc_session", *id);
    if (!jti.empty()) r.log += LogField("dbsc_jti", jti);
    return r;
  };
  std::optional<std::string> jwt = SfString(request.session_response);
  if (!jwt) return challenge_again("no_proof", "");
  absl::StatusOr<VerifiedDbscProof> proof =
      VerifyDbscProof(*jwt, session->second.key.get());
  if (!proof.ok()) {
    DbscResponse r = Answer(401, absl::StrCat(proof.status().message(), "\n"),
                            "refused", "bad_proof");
    r.log += LogField("dbsc_session", *id);
    return r;
  }
  const DbscProofClaims& claims = proof->claims;
  if (claims.audience != ExpectedAudience(request)) {
    DbscResponse r = Answer(401, "the proof is for another URL\n", "refused",
                            "bad_audience");
    r.log += LogField("dbsc_session", *id);
    return r;
  }
  auto it = challenges_.find(claims.challenge);
  if (it == challenges_.end() || it->second.session_id != *id)
    return challenge_again("unknown_challenge", claims.challenge);
  if (it->second.used)
    return challenge_again("replayed_proof", claims.challenge);
  if (now_() - it->second.issued > config_.challenge_lifetime)
    return challenge_again("expired_challenge", claims.challenge);
  if (absl::AbsDuration(absl::FromUnixSeconds(claims.issued_at) - now_()) >
      config_.max_clock_skew)
    return challenge_again("stale_proof", claims.challenge);
  it->second.used = true;
  ++session->second.refreshes;
  DbscResponse r = Answer(200, "", "refreshed");
  r.headers.emplace_back(
      "Set-Cookie",
      absl::StrCat(kCookieName, "=", IssueCookie(*id),
                   "; Max-Age=", absl::ToInt64Seconds(config_.cookie_lifetime),
                   "; Path=/; Secure; HttpOnly"));
  r.headers.emplace_back("Secure-Session-Challenge",
                         ChallengeHeader(IssueChallenge(*id, ""), *id));
  r.log +=
      LogField("dbsc_session", *id) + LogField("dbsc_jti", claims.challenge);
  return r;
}

DbscResponse DbscServer::Protected(const DbscRequest& request) {
  std::optional<std::string> value =
      FindCookie(request.cookie_header, kCookieName);
  if (!value)
    return Answer(403, "no dbsc_auth cookie: log in at /dbsc/login\n",
                  "refused", "missing");
  std::string reason;
  std::optional<std::string> id = VerifyCookie(*value, &reason);
  if (!id)
    return Answer(403, absl::StrCat("dbsc_auth refused: ", reason, "\n"),
                  "refused", reason);
  DbscResponse r =
      Answer(200,
             absl::StrCat("{\"session\":", JsonQuote(*id),
                          ",\"refreshes\":", sessions_[*id].refreshes, "}\n"),
             "accepted");
  r.content_type = "application/json";
  r.log += LogField("dbsc_session", *id);
  return r;
}

}  // namespace net
