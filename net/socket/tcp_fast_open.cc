#include "net/socket/tcp_fast_open.h"

namespace net {

const char* TcpFastOpenOutcomeToString(TcpFastOpenOutcome outcome) {
  switch (outcome) {
    case TcpFastOpenOutcome::kOff:
      return "off";
    case TcpFastOpenOutcome::kCookieRequested:
      return "cookie_requested";
    case TcpFastOpenOutcome::kPending:
      return "pending";
    case TcpFastOpenOutcome::kAccepted:
      return "accepted";
    case TcpFastOpenOutcome::kNotAccepted:
      return "not_accepted";
    case TcpFastOpenOutcome::kFallback:
      return "fallback";
  }
  return "off";
}

const char* TcpFastOpenModeToString(TcpFastOpenMode mode) {
  switch (mode) {
    case TcpFastOpenMode::kOff:
      return "off";
    case TcpFastOpenMode::kWithCookie:
      return "cookie";
    case TcpFastOpenMode::kNoCookie:
      return "no_cookie";
  }
  return "off";
}

TcpFastOpenHints::TcpFastOpenHints(bool enabled, absl::Duration fallback_delay,
                                   const TickClock* clock)
    : enabled_(enabled), fallback_delay_(fallback_delay), clock_(clock) {}

TcpFastOpenHints::Entry& TcpFastOpenHints::Slot(const std::string& key) {
  auto it = entries_.find(key);
  if (it != entries_.end()) return it->second;
  if (entries_.size() >= kMaxEntries) entries_.erase(entries_.begin());
  return entries_[key];
}

void TcpFastOpenHints::NoteNoCookie(const std::string& key) {
  Slot(key).no_cookie = true;
}

TcpConnectOptions TcpFastOpenHints::OptionsFor(const std::string& key,
                                               bool replay_safe) const {
  TcpConnectOptions options;
  if (!enabled_ || !replay_safe) return options;
  const TimeTicks now = clock_->NowTicks();
  auto recent = [&](TimeTicks t) {
    return !t.is_null() && now - t < kFailureMemory;
  };
  options.fast_open = TcpFastOpenMode::kWithCookie;
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    const Entry& e = it->second;
    if (recent(e.fallback)) {
      options.fast_open = TcpFastOpenMode::kOff;
      return options;
    }
    if (e.no_cookie && !recent(e.no_cookie_failed))
      options.fast_open = TcpFastOpenMode::kNoCookie;
  }
  options.fast_open_fallback_delay = fallback_delay_;
  return options;
}

void TcpFastOpenHints::NoteOutcome(const std::string& key,
                                   const TcpFastOpenInfo& info) {
  if (info.outcome == TcpFastOpenOutcome::kFallback) {
    Slot(key).fallback = clock_->NowTicks();
  } else if (info.outcome == TcpFastOpenOutcome::kNotAccepted &&
             info.mode == TcpFastOpenMode::kNoCookie) {
    Slot(key).no_cookie_failed = clock_->NowTicks();
  }
}

}  // namespace net
