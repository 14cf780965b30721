#include "cert/cert_verifier.h"

namespace net {

const char* RevocationSourceToString(RevocationSource source) {
  switch (source) {
    case RevocationSource::kNotChecked:
      return "not_checked";
    case RevocationSource::kFresh:
      return "fresh";
    case RevocationSource::kCache:
      return "cache";
    case RevocationSource::kPrevalidated:
      return "prevalidated";
    case RevocationSource::kStapled:
      return "stapled";
    case RevocationSource::kFilter:
      return "filter";
    case RevocationSource::kFilterStash:
      return "filter_stash";
  }
  return "unknown";
}

const char* RevocationOutcomeToString(RevocationOutcome outcome) {
  switch (outcome) {
    case RevocationOutcome::kNotChecked:
      return "not_checked";
    case RevocationOutcome::kGood:
      return "good";
    case RevocationOutcome::kRevoked:
      return "revoked";
    case RevocationOutcome::kSoftFailed:
      return "soft_failed";
    case RevocationOutcome::kNoInfo:
      return "no_info";
    case RevocationOutcome::kUnableToCheck:
      return "unable_to_check";
  }
  return "unknown";
}

}  // namespace net
