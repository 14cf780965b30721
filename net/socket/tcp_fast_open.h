// TCP Fast Open (RFC 7413) on the client: how a connection may use it
// (TcpFastOpenMode, chosen by whoever creates the socket), what happened
// (TcpFastOpenInfo, which the socket reports for the trace's tcp.fastOpen),
// and the names the trace uses. Plain values; no I/O.
//
// Linux semantics (TCP_FASTOPEN_CONNECT): connect() returns at once and the
// first write goes out in the SYN when the kernel holds a cookie for the
// server (from an earlier connection) or may send without one
// (TCP_FASTOPEN_NO_COOKIE, for a server that said it takes SYN data without
// a cookie). Otherwise the SYN asks for a cookie and the data waits for the
// handshake, as without Fast Open.

#ifndef NET_SOCKET_TCP_FAST_OPEN_H_
#define NET_SOCKET_TCP_FAST_OPEN_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "net/base/tick_clock.h"

namespace net {

enum class TcpFastOpenMode {
  kOff,
  // SYN data only with a cookie the kernel already holds; otherwise the SYN
  // asks for one (the next connection can use it).
  kWithCookie,
  // SYN data without a cookie: the server said it takes it (its bundle).
  kNoCookie,
};

enum class TcpFastOpenOutcome {
  kOff,              // not asked for
  kCookieRequested,  // no data in the SYN; it asked for a cookie
  kPending,          // data went in the SYN; no SYN-ACK yet
  kAccepted,         // the SYN-ACK acknowledged the SYN's data
  kNotAccepted,      // the server ignored it; the kernel resent it
  // No SYN-ACK came within the fallback delay after a SYN with data (a
  // path that drops such SYNs): a connection without Fast Open raced it
  // and won, and carried the data instead.
  kFallback,
};

// The trace's names: "off", "cookie_requested", "pending", "accepted",
// "not_accepted", "fallback".
const char* TcpFastOpenOutcomeToString(TcpFastOpenOutcome outcome);
const char* TcpFastOpenModeToString(TcpFastOpenMode mode);

// TcpConnectOptions: how a TCP client socket connects.
struct TcpConnectOptions {
  TcpFastOpenMode fast_open = TcpFastOpenMode::kOff;
  // With data in the SYN: when no SYN-ACK has come this long after it, a
  // second connection without Fast Open races the first (whichever is
  // established first carries the data). Zero: no race (the kernel's own
  // SYN retransmission, a second later, is the fallback).
  absl::Duration fast_open_fallback_delay = absl::ZeroDuration();
};

// TcpFastOpenInfo: what a connection did with Fast Open.
struct TcpFastOpenInfo {
  TcpFastOpenMode mode = TcpFastOpenMode::kOff;
  TcpFastOpenOutcome outcome = TcpFastOpenOutcome::kOff;
  // Bytes of application data the kernel put in the SYN.
  int64_t syn_data_bytes = 0;
  // Why the outcome is what it is when it is not the plain one ("" else).
  std::string detail;
};

// TcpFastOpenHints: what a session knows about each server's (host:port)
// Fast Open beyond the kernel's cookie cache — that the server takes SYN
// data without a cookie (its verified certificate bundle said so), and that
// Fast Open went wrong there (a fallback: SYNs with data dropped on the
// path; or data without a cookie ignored), which keeps later connections
// off it (off Fast Open, or back to cookies) for kFailureMemory. Bounded:
// past kMaxEntries an arbitrary entry goes. Owned by the HTTP session;
// network-thread affine.
class TcpFastOpenHints {
 public:
  static constexpr size_t kMaxEntries = 1024;
  static constexpr absl::Duration kFailureMemory = absl::Hours(1);

  // |enabled| false: OptionsFor always says off. |fallback_delay|: see
  // TcpConnectOptions (given to connections that put data in the SYN).
  TcpFastOpenHints(bool enabled, absl::Duration fallback_delay,
                   const TickClock* clock);

  bool enabled() const { return enabled_; }
  // A verified bundle says |key| takes SYN data without a cookie.
  void NoteNoCookie(const std::string& key);
  // How a connection to |key| connects. |replay_safe|: what the SYN would
  // carry may be replayed by the network without harm (a TLS ClientHello,
  // whose early data has its own rules; a GET or HEAD without a body).
  TcpConnectOptions OptionsFor(const std::string& key, bool replay_safe) const;
  // What a connection to |key| did.
  void NoteOutcome(const std::string& key, const TcpFastOpenInfo& info);

 private:
  struct Entry {
    bool no_cookie = false;
    TimeTicks no_cookie_failed;  // null: never
    TimeTicks fallback;          // null: never
  };
  Entry& Slot(const std::string& key);

  const bool enabled_;
  const absl::Duration fallback_delay_;
  const TickClock* const clock_;
  absl::flat_hash_map<std::string, Entry> entries_;
};

}  // namespace net

#endif  // NET_SOCKET_TCP_FAST_OPEN_H_
