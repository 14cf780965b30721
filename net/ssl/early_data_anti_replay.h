// EarlyDataAntiReplay: the test server's replay defence for TLS 1.3 early
// data (0-RTT), a strike register keyed by the ticket (PSK identity) the
// ClientHello offers.
//
// Early data travels in the client's first flight, so an attacker who
// records a ClientHello with early data can send it again; the server
// cannot tell the copy from the original by cryptography alone (RFC 8446
// section 8). Two defences combine here:
//   - Freshness (BoringSSL): a ClientHello whose ticket age differs from the
//     server's view by more than 60 s gets no 0-RTT. A copy replayed later
//     than kMaxReplayWindow (2 x 60 s, plus a margin for the one-second
//     granularity) after the original is therefore refused whatever we do.
//   - The strike register (this class): within that window, the first
//     ClientHello that offers early data with a ticket is admitted and every
//     later one with the same ticket is refused (0-RTT rejected; the
//     connection still resumes in 1-RTT). Entries are kept for the window
//     only, so memory is bounded by the 0-RTT attempts of two minutes, not
//     by the ticket lifetime (days) as single-use tickets in a server-side
//     session store would need. When the register is full it fails closed:
//     0-RTT is rejected until entries expire, never admitted unchecked.
// Keyed by ticket rather than by the whole ClientHello: a client that
// (wrongly) reuses a ticket is refused too, which makes each ticket
// single-use for 0-RTT within the window (RFC 8446 8.1's guarantee, at 8.2's
// cost). The register is per process: several servers sharing ticket keys
// would need a shared one (or per-server ticket keys).
//
// Thread-safe.

#ifndef NET_SSL_EARLY_DATA_ANTI_REPLAY_H_
#define NET_SSL_EARLY_DATA_ANTI_REPLAY_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"

namespace net {

class EarlyDataAntiReplay {
 public:
  // BoringSSL's ticket-age tolerance (kMaxTicketAgeSkewSeconds) twice, plus
  // a margin for ages counted in whole seconds.
  static constexpr absl::Duration kMaxReplayWindow = absl::Seconds(125);

  // |clock| (null: the default) must outlive the register.
  explicit EarlyDataAntiReplay(absl::Duration window = kMaxReplayWindow,
                               size_t max_entries = 100000,
                               const TickClock* clock = nullptr);
  EarlyDataAntiReplay(const EarlyDataAntiReplay&) = delete;
  EarlyDataAntiReplay& operator=(const EarlyDataAntiReplay&) = delete;

  enum class Verdict { kAdmitted, kReplayed, kFull };
  // Admit records |ticket| (a ClientHello's first PSK identity): kAdmitted
  // the first time within the window, kReplayed after that, kFull (not
  // recorded) when the register is full.
  Verdict Admit(absl::string_view ticket);

  size_t size() const;
  uint64_t admitted() const;
  uint64_t replayed() const;
  uint64_t refused_full() const;

 private:
  void ExpireLocked(TimeTicks now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const absl::Duration window_;
  const size_t max_entries_;
  const TickClock* const clock_;
  mutable std::mutex mu_;
  // SHA-256 of each ticket seen within the window, and when, oldest first.
  absl::flat_hash_set<std::string> seen_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<TimeTicks, std::string>> order_ ABSL_GUARDED_BY(mu_);
  uint64_t admitted_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t replayed_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t refused_full_ ABSL_GUARDED_BY(mu_) = 0;
};

const char* EarlyDataVerdictToString(EarlyDataAntiReplay::Verdict verdict);

}  // namespace net

#endif  // NET_SSL_EARLY_DATA_ANTI_REPLAY_H_
