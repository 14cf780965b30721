#include "net/device_bound_sessions/session_config.h"

#include "absl/strings/str_cat.h"
#include "net/device_bound_sessions/json.h"
#include "net/device_bound_sessions/structured_headers.h"

namespace net {
namespace {

constexpr size_t kMaxUrlText = 2048;
constexpr size_t kMaxCookieNameBytes = 4096;
constexpr size_t kMaxAttributesBytes = 1024;
constexpr size_t kMaxPatternBytes = 1024;

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("session instructions: ", what));
}

bool IsPrintableAscii(absl::string_view s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// Reads an optional string member |key| of |object| into |out| (at most
// |max| bytes). Absent: OK and |out| untouched.
absl::Status OptionalString(const JsonValue& object, absl::string_view key,
                            size_t max, std::optional<std::string>* out) {
  const JsonValue* v = object.Find(key);
  if (!v) return absl::OkStatus();
  if (!v->is_string())
    return absl::InvalidArgumentError(
        absl::StrCat("\"", key, "\" is not a string"));
  if (v->string_value().size() > max)
    return absl::InvalidArgumentError(
        absl::StrCat("\"", key, "\" is longer than ", max, " bytes"));
  *out = v->string_value();
  return absl::OkStatus();
}

absl::Status ParseScopeRule(const JsonValue& rule, size_t index,
                            SessionScopeRule* out) {
  const std::string where = absl::StrCat("scope_specification[", index, "]");
  if (!rule.is_object()) return Bad(absl::StrCat(where, " is not an object"));
  const JsonValue* type = rule.Find("type");
  if (!type || !type->is_string() ||
      (type->string_value() != "include" && type->string_value() != "exclude"))
    return Bad(absl::StrCat(where, ".type is not \"include\" or \"exclude\""));
  out->include = type->string_value() == "include";
  std::optional<std::string> domain, path;
  absl::Status status =
      OptionalString(rule, "domain", kMaxPatternBytes, &domain);
  if (status.ok())
    status = OptionalString(rule, "path", kMaxPatternBytes, &path);
  if (!status.ok()) return Bad(absl::StrCat(where, ": ", status.message()));
  if (domain) {
    if (domain->empty()) return Bad(absl::StrCat(where, ".domain is empty"));
    out->domain = *domain;
  }
  if (path) {
    if (path->empty() || (*path)[0] != '/')
      return Bad(absl::StrCat(where, ".path does not start with '/'"));
    out->path = *path;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<RegistrationParams>> ParseRegistrationHeader(
    absl::string_view value, std::vector<std::string>* skipped) {
  absl::StatusOr<std::vector<SfListMember>> list = ParseSfList(value);
  if (!list.ok()) return list.status();
  auto skip = [skipped](std::string why) {
    if (skipped) skipped->push_back(std::move(why));
  };
  std::vector<RegistrationParams> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const SfListMember& entry = (*list)[i];
    if (!entry.is_inner_list) {
      skip(absl::StrCat("entry ", i, " is not an inner list"));
      continue;
    }
    const SfBareItem* path = FindParameter(entry.params, "path");
    if (!path || !path->is_string()) {
      skip(absl::StrCat("entry ", i, " has no string path"));
      continue;
    }
    const SfBareItem* challenge = FindParameter(entry.params, "challenge");
    const SfBareItem* authorization =
        FindParameter(entry.params, "authorization");
    if ((challenge && !challenge->is_string()) ||
        (authorization && !authorization->is_string())) {
      skip(absl::StrCat("entry ", i,
                        " has a challenge or authorization that is no string"));
      continue;
    }
    if (out.size() == kMaxRegistrationsPerResponse) {
      skip(absl::StrCat("entry ", i, " is past the limit of ",
                        kMaxRegistrationsPerResponse, " per response"));
      continue;
    }
    RegistrationParams params;
    for (const SfItem& algorithm : entry.inner) {
      if (algorithm.bare.is_token())
        params.algorithms.push_back(algorithm.bare.string);
    }
    params.path = path->string;
    if (challenge) params.challenge = challenge->string;
    if (authorization) params.authorization = authorization->string;
    out.push_back(std::move(params));
  }
  return out;
}

absl::StatusOr<std::vector<ChallengeParams>> ParseChallengeHeader(
    absl::string_view value) {
  absl::StatusOr<std::vector<SfListMember>> list = ParseSfList(value);
  if (!list.ok()) return list.status();
  std::vector<ChallengeParams> out;
  for (const SfListMember& entry : *list) {
    if (entry.is_inner_list || !entry.item.bare.is_string()) continue;
    const SfBareItem* id = FindParameter(entry.item.params, "id");
    if (!id || !id->is_string()) continue;
    if (entry.item.bare.string.size() > kMaxChallengeBytes ||
        id->string.size() > kMaxSessionIdBytes)
      continue;
    out.push_back({entry.item.bare.string, id->string});
  }
  return out;
}

absl::StatusOr<SessionInstructions> ParseSessionInstructions(
    absl::string_view body) {
  JsonLimits limits;
  limits.max_bytes = kMaxInstructionsBytes;
  limits.max_depth = 8;
  absl::StatusOr<JsonValue> json = ParseJson(body, limits);
  if (!json.ok()) return Bad(json.status().message());
  if (!json->is_object()) return Bad("the body is not a JSON object");
  SessionInstructions out;

  if (const JsonValue* cont = json->Find("continue")) {
    if (!cont->is_bool()) return Bad("\"continue\" is not a boolean");
    out.continue_session = cont->bool_value();
  }
  std::optional<std::string> id;
  absl::Status status =
      OptionalString(*json, "session_identifier", kMaxSessionIdBytes, &id);
  if (!status.ok()) return Bad(status.message());
  if (id) out.session_identifier = *id;
  // "continue": false ends the session; nothing else is required then.
  if (!out.continue_session) return out;
  if (!id) return Bad("\"session_identifier\" is missing");
  if (id->empty()) return Bad("\"session_identifier\" is empty");
  if (!IsPrintableAscii(*id))
    return Bad("\"session_identifier\" is not printable ASCII");

  status = OptionalString(*json, "refresh_url", kMaxUrlText, &out.refresh_url);
  if (!status.ok()) return Bad(status.message());

  const JsonValue* scope = json->Find("scope");
  if (!scope) return Bad("\"scope\" is missing");
  if (!scope->is_object()) return Bad("\"scope\" is not an object");
  status = OptionalString(*scope, "origin", kMaxUrlText, &out.scope_origin);
  if (!status.ok()) return Bad(absl::StrCat("scope: ", status.message()));
  const JsonValue* include_site = scope->Find("include_site");
  if (!include_site) return Bad("\"scope.include_site\" is missing");
  if (!include_site->is_bool())
    return Bad("\"scope.include_site\" is not a boolean");
  out.include_site = include_site->bool_value();
  if (const JsonValue* rules = scope->Find("scope_specification")) {
    if (!rules->is_array())
      return Bad("\"scope.scope_specification\" is not an array");
    if (rules->array_items().size() > kMaxScopeRules)
      return Bad(absl::StrCat("more than ", kMaxScopeRules, " scope rules"));
    for (size_t i = 0; i < rules->array_items().size(); ++i) {
      SessionScopeRule rule;
      status = ParseScopeRule(rules->array_items()[i], i, &rule);
      if (!status.ok()) return status;
      out.scope_rules.push_back(std::move(rule));
    }
  }

  const JsonValue* credentials = json->Find("credentials");
  if (!credentials) return Bad("\"credentials\" is missing");
  if (!credentials->is_array()) return Bad("\"credentials\" is not an array");
  if (credentials->array_items().size() > kMaxCredentials)
    return Bad(absl::StrCat("more than ", kMaxCredentials, " credentials"));
  for (size_t i = 0; i < credentials->array_items().size(); ++i) {
    const JsonValue& c = credentials->array_items()[i];
    const std::string where = absl::StrCat("credentials[", i, "]");
    if (!c.is_object()) return Bad(absl::StrCat(where, " is not an object"));
    const JsonValue* type = c.Find("type");
    if (!type || !type->is_string())
      return Bad(absl::StrCat(where, ".type is missing"));
    if (type->string_value() != "cookie")
      return Bad(absl::StrCat(where, ".type ", JsonQuote(type->string_value()),
                              " is not \"cookie\""));
    std::optional<std::string> name, attributes;
    status = OptionalString(c, "name", kMaxCookieNameBytes, &name);
    if (status.ok())
      status =
          OptionalString(c, "attributes", kMaxAttributesBytes, &attributes);
    if (!status.ok()) return Bad(absl::StrCat(where, ": ", status.message()));
    if (!name || name->empty())
      return Bad(absl::StrCat(where, ".name is missing or empty"));
    out.credentials.push_back({*name, attributes.value_or("")});
  }

  if (const JsonValue* initiators = json->Find("allowed_refresh_initiators")) {
    if (!initiators->is_array())
      return Bad("\"allowed_refresh_initiators\" is not an array");
    if (initiators->array_items().size() > kMaxRefreshInitiators)
      return Bad(absl::StrCat("more than ", kMaxRefreshInitiators,
                              " allowed refresh initiators"));
    for (const JsonValue& pattern : initiators->array_items()) {
      if (!pattern.is_string() || pattern.string_value().empty() ||
          pattern.string_value().size() > kMaxPatternBytes)
        return Bad("an allowed refresh initiator is not a non-empty string");
      out.allowed_refresh_initiators.push_back(pattern.string_value());
    }
  }
  return out;
}

}  // namespace net
