#include "net/ssl/ssl_info.h"

namespace net {

const char* SnapStartOutcomeToString(SnapStartOutcome outcome) {
  switch (outcome) {
    case SnapStartOutcome::kNone:
      return "";
    case SnapStartOutcome::kLearned:
      return "learned";
    case SnapStartOutcome::kAttempted:
      return "attempted";
    case SnapStartOutcome::kAccepted:
      return "accepted";
    case SnapStartOutcome::kRecovered:
      return "recovered";
    case SnapStartOutcome::kRejected:
      return "rejected";
  }
  return "";
}

const char* EarlyDataStateToString(EarlyDataState state) {
  switch (state) {
    case EarlyDataState::kNotOffered:
      return "not_offered";
    case EarlyDataState::kOffered:
      return "offered";
    case EarlyDataState::kAccepted:
      return "accepted";
    case EarlyDataState::kRejected:
      return "rejected";
  }
  return "";
}

const char* EchOutcomeToString(EchOutcome outcome) {
  switch (outcome) {
    case EchOutcome::kNone:
      return "none";
    case EchOutcome::kGrease:
      return "grease";
    case EchOutcome::kAccepted:
      return "accepted";
    case EchOutcome::kRejected:
      return "rejected";
  }
  return "none";
}

const char* EchRetryToString(EchRetry retry) {
  switch (retry) {
    case EchRetry::kNone:
      return "";
    case EchRetry::kAccepted:
      return "accepted";
    case EchRetry::kRejected:
      return "rejected";
    case EchRetry::kWithoutEch:
      return "without_ech";
    case EchRetry::kFailed:
      return "failed";
  }
  return "";
}

}  // namespace net
