// What servers say to a DBSC client, parsed strictly: the
// Secure-Session-Registration and Secure-Session-Challenge response headers
// (structured fields, draft section "DBSC Formats") and the JSON session
// instructions a registration or refresh response carries (draft sections
// "JSON Session Instruction Format" through "JSON Session Credentials
// Format").
//
// Bounded: a response starts at most kMaxRegistrationsPerResponse
// registrations; instructions are at most kMaxInstructionsBytes with capped
// lists and strings (a refusal names the limit). Unknown JSON keys are
// ignored, as the draft only lists keys that "can exist"; known keys of the
// wrong type, missing required keys and bad values are errors. Fuzzed by
// session_config_fuzzer.cc. Pure functions; thread-safe.

#ifndef NET_DEVICE_BOUND_SESSIONS_SESSION_CONFIG_H_
#define NET_DEVICE_BOUND_SESSIONS_SESSION_CONFIG_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/device_bound_sessions/session.h"

namespace net {

inline constexpr char kRegistrationHeader[] = "Secure-Session-Registration";
inline constexpr char kChallengeHeader[] = "Secure-Session-Challenge";
inline constexpr char kResponseHeader[] = "Secure-Session-Response";
inline constexpr char kSessionIdHeader[] = "Sec-Secure-Session-Id";
inline constexpr char kSkippedHeader[] = "Secure-Session-Skipped";

inline constexpr size_t kMaxRegistrationsPerResponse = 4;
inline constexpr size_t kMaxInstructionsBytes = 64 * 1024;
inline constexpr size_t kMaxSessionIdBytes = 256;
inline constexpr size_t kMaxChallengeBytes = 1024;
inline constexpr size_t kMaxCredentials = 16;
inline constexpr size_t kMaxScopeRules = 64;
inline constexpr size_t kMaxRefreshInitiators = 64;

// RegistrationParams is one usable entry of Secure-Session-Registration
// (draft "Process session registration"): the algorithms offered (tokens),
// the endpoint's path (resolved against the response's URL by the caller),
// and the optional challenge and authorization strings.
struct RegistrationParams {
  std::vector<std::string> algorithms;
  std::string path;
  std::optional<std::string> challenge;
  std::optional<std::string> authorization;
};

// ParseRegistrationHeader parses the combined field value. A value that is
// not a structured List is InvalidArgument; entries the draft says to skip
// (not an inner list, no string "path", a non-string challenge or
// authorization) are left out, and so is any entry past
// kMaxRegistrationsPerResponse. |skipped| (optional) gets a reason per
// skipped entry.
[[nodiscard]] absl::StatusOr<std::vector<RegistrationParams>>
ParseRegistrationHeader(absl::string_view value,
                        std::vector<std::string>* skipped = nullptr);

// ChallengeParams is one entry of Secure-Session-Challenge: a challenge
// string for the session named by its "id" parameter.
struct ChallengeParams {
  std::string challenge;
  std::string session_id;
};

// ParseChallengeHeader parses the combined field value; entries without a
// string item and a string "id" are skipped, as the draft's "Cache
// challenge" does.
[[nodiscard]] absl::StatusOr<std::vector<ChallengeParams>> ParseChallengeHeader(
    absl::string_view value);

// SessionInstructions: the JSON session instructions.
struct SessionInstructions {
  // False: the server ends the session ("continue": false); nothing else
  // is then required.
  bool continue_session = true;
  std::string session_identifier;
  std::optional<std::string> refresh_url;
  std::optional<std::string> scope_origin;
  bool include_site = false;
  std::vector<SessionScopeRule> scope_rules;
  struct Credential {
    std::string name;
    std::string attributes;
  };
  std::vector<Credential> credentials;
  std::vector<std::string> allowed_refresh_initiators;
};

// ParseSessionInstructions parses a registration or refresh response body.
// InvalidArgument naming the key and the problem.
[[nodiscard]] absl::StatusOr<SessionInstructions> ParseSessionInstructions(
    absl::string_view body);

}  // namespace net

#endif  // NET_DEVICE_BOUND_SESSIONS_SESSION_CONFIG_H_
