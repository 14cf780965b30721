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

}  // namespace net
