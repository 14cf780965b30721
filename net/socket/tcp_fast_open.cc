#include "net/socket/tcp_fast_open.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace net {
namespace {

// "a" of "a:443", "[::1]" of "[::1]:443"; a key without a port is a host.
std::string HostOfKey(const std::string& key) {
  const size_t colon = key.rfind(':');
  if (colon == std::string::npos || key.find(']', colon) != std::string::npos)
    return key;
  return key.substr(0, colon);
}

}  // namespace

std::string FormatMs(absl::Duration d) {
  const double ms = absl::ToDoubleMilliseconds(d);
  const bool whole = ms >= 10 || ms == static_cast<int64_t>(ms);
  return absl::StrFormat("%.*f ms", whole ? 0 : ms < 1 ? 3 : 1, ms);
}

absl::Duration ConnectionRttSample(const TcpFastOpenInfo& info,
                                   absl::Duration handshake) {
  if (info.handshake_rtt > absl::ZeroDuration()) return info.handshake_rtt;
  if (info.mode == TcpFastOpenMode::kOff && handshake > absl::ZeroDuration())
    return handshake;
  return absl::ZeroDuration();
}

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

namespace {

// DelayFromRtt: FallbackDelay without the sampler's name.
std::pair<absl::Duration, std::string> DelayFromRtt(
    absl::Duration configured, std::optional<absl::Duration> rtt) {
  constexpr double kRttFactor = TcpFastOpenHints::kRttFactor;
  constexpr absl::Duration kRttMargin = TcpFastOpenHints::kRttMargin;
  constexpr absl::Duration kMinFallbackDelay =
      TcpFastOpenHints::kMinFallbackDelay;
  if (configured <= absl::ZeroDuration()) return {absl::ZeroDuration(), ""};
  if (!rtt) {
    return {configured, absl::StrCat("the configured delay: no RTT known for "
                                     "this server")};
  }
  // Whole microseconds: 1.1 x 40 ms is 44 ms, not a nanosecond more.
  const absl::Duration from_rtt =
      absl::Microseconds(
          std::llround(absl::ToDoubleMicroseconds(*rtt) * kRttFactor)) +
      kRttMargin;
  if (from_rtt >= configured) {
    return {configured, absl::StrCat("the configured delay; ", kRttFactor,
                                     " x RTT ", FormatMs(*rtt), " + ",
                                     FormatMs(kRttMargin), " is more")};
  }
  if (from_rtt < kMinFallbackDelay) {
    return {std::min(kMinFallbackDelay, configured),
            absl::StrCat("the floor; ", kRttFactor, " x RTT ", FormatMs(*rtt),
                         " + ", FormatMs(kRttMargin), " is less")};
  }
  return {from_rtt, absl::StrCat(kRttFactor, " x RTT ", FormatMs(*rtt), " + ",
                                 FormatMs(kRttMargin))};
}

}  // namespace

const char* RttSampleSourceName(RttSampleSource source) {
  switch (source) {
    case RttSampleSource::kConnection:
      return "an earlier connection";
    case RttSampleSource::kPreconnect:
      return "a preconnect";
    case RttSampleSource::kBundleProbe:
      return "the truncated-handshake probe";
    case RttSampleSource::kRttProbe:
      return "the RTT probe";
  }
  return "?";
}

std::pair<absl::Duration, std::string> TcpFastOpenHints::FallbackDelay(
    absl::Duration configured, std::optional<absl::Duration> rtt,
    std::optional<RttSampleSource> source) {
  auto [delay, basis] = DelayFromRtt(configured, rtt);
  if (rtt && source && !basis.empty())
    absl::StrAppend(&basis, "; RTT from ", RttSampleSourceName(*source));
  return {delay, std::move(basis)};
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
  const std::string host = HostOfKey(key);
  auto [delay, basis] =
      FallbackDelay(fallback_delay_, RttFor(host), RttSourceFor(host));
  options.fast_open_fallback_delay = delay;
  options.fast_open_fallback_basis = std::move(basis);
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

void TcpFastOpenHints::NoteRtt(const std::string& host, absl::Duration rtt,
                               RttSampleSource source) {
  if (!enabled_ || rtt <= absl::ZeroDuration()) return;
  const TimeTicks now = clock_->NowTicks();
  auto it = rtts_.find(host);
  if (it == rtts_.end()) {
    if (rtts_.size() >= kMaxEntries) rtts_.erase(rtts_.begin());
    rtts_[host] = RttEntry{rtt, source, now, now};
    return;
  }
  RttEntry& e = it->second;
  // A smaller sample is the new minimum; a minimum past its window gives
  // way to whatever the path measures now.
  if (rtt <= e.min_rtt || now - e.min_at >= kRttWindow) {
    e.min_rtt = rtt;
    e.min_source = source;
    e.min_at = now;
  }
  e.last_sample = now;
}

void TcpFastOpenHints::OnServerRttSample(const std::string& host,
                                         absl::Duration rtt) {
  NoteRtt(host, rtt, RttSampleSource::kBundleProbe);
}

std::optional<absl::Duration> TcpFastOpenHints::RttFor(
    const std::string& host) const {
  auto it = rtts_.find(host);
  if (it == rtts_.end()) return std::nullopt;
  if (clock_->NowTicks() - it->second.last_sample >= kRttMemory)
    return std::nullopt;
  return it->second.min_rtt;
}

std::optional<RttSampleSource> TcpFastOpenHints::RttSourceFor(
    const std::string& host) const {
  if (!RttFor(host)) return std::nullopt;
  return rtts_.at(host).min_source;
}

}  // namespace net
