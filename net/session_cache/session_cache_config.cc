#include "net/session_cache/session_cache_config.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace net {

absl::string_view EvictionPolicyName(EvictionPolicy policy) {
  switch (policy) {
    case EvictionPolicy::kFifo:
      return "fifo";
    case EvictionPolicy::kLru:
      return "lru";
    case EvictionPolicy::kRandom:
      return "rr";
    case EvictionPolicy::kPred:
      return "pred";
    case EvictionPolicy::kBelady:
      return "opt";
  }
  return "?";
}

absl::Status ValidateSessionCacheConfig(const SessionCacheConfig& config) {
  if (config.capacity == 0)
    return absl::InvalidArgumentError("capacity must be at least 1");
  if (config.capacity > (size_t{1} << 31)) {
    return absl::InvalidArgumentError("capacity above 2^31 entries");
  }
  if (config.ways > 0 && config.capacity % config.ways != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("capacity ", config.capacity,
                     " is not a multiple of ways ", config.ways));
  }
  if (config.shards == 0)
    return absl::InvalidArgumentError("shards must be at least 1");
  if (config.grace < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("grace period must not be negative");
  }
  return absl::OkStatus();
}

absl::StatusOr<SessionCacheConfig> ParseSessionCacheSpec(
    absl::string_view spec) {
  std::vector<absl::string_view> policy_size =
      absl::StrSplit(spec, absl::MaxSplits(':', 1));
  if (policy_size.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("session cache '", spec, "' is not POLICY:N[,WAYS]"));
  }
  SessionCacheConfig config;
  absl::string_view name = policy_size[0];
  if (name == "fifo") {
    config.policy = EvictionPolicy::kFifo;
  } else if (name == "lru") {
    config.policy = EvictionPolicy::kLru;
  } else if (name == "rr" || name == "random") {
    config.policy = EvictionPolicy::kRandom;
  } else if (name == "pred") {
    config.policy = EvictionPolicy::kPred;
  } else if (name == "opt") {
    config.policy = EvictionPolicy::kBelady;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown session cache policy '", name,
                     "' (fifo, lru, rr, pred, opt)"));
  }
  std::vector<absl::string_view> numbers = absl::StrSplit(policy_size[1], ',');
  uint64_t capacity = 0;
  uint64_t ways = 0;
  if (numbers.size() > 2 || !absl::SimpleAtoi(numbers[0], &capacity) ||
      (numbers.size() == 2 &&
       (!absl::SimpleAtoi(numbers[1], &ways) || ways == 0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "session cache '", spec, "': N and WAYS must be positive integers"));
  }
  config.capacity = capacity;
  config.ways = ways;
  absl::Status status = ValidateSessionCacheConfig(config);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("session cache '", spec, "': ", status.message()));
  }
  return config;
}

}  // namespace net
