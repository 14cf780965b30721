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
#include <optional>
#include <string>
#include <utility>

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
  // Why the delay is what it is, for the trace's fastOpenDetail ("1.1 x RTT
  // 101 ms + 5 ms", "no RTT known for this server"); "" for a given one.
  std::string fast_open_fallback_basis;
};

// TcpFastOpenInfo: what a connection did with Fast Open.
struct TcpFastOpenInfo {
  TcpFastOpenMode mode = TcpFastOpenMode::kOff;
  TcpFastOpenOutcome outcome = TcpFastOpenOutcome::kOff;
  // Bytes of application data the kernel put in the SYN.
  int64_t syn_data_bytes = 0;
  // Why the outcome is what it is when it is not the plain one ("" else).
  std::string detail;
  // The handshake's round trip as the kernel measured it (TCP_INFO's
  // tcpi_rtt when the SYN-ACK came: its SYN-to-SYN-ACK sample), zero when
  // unknown (not a TCPClientSocket, or not established). Here because the
  // next connection's fallback delay is made of it, and every socket over a
  // transport already forwards this struct; not in the trace.
  absl::Duration handshake_rtt = absl::ZeroDuration();
};

// FormatMs: "101 ms", "4.2 ms", "0.008 ms" (more digits the shorter it
// is), as the trace's details write durations.
std::string FormatMs(absl::Duration d);

// ConnectionRttSample: the round-trip sample an established connection
// gives — the kernel's (|info|.handshake_rtt) when known; else, for a
// connection that asked for no Fast Open (its Connect spanned the TCP
// handshake: connectStart to the transport's end), |handshake|. With Fast
// Open asked for, Connect may have returned before the SYN left, so
// |handshake| says nothing. Zero: no sample.
absl::Duration ConnectionRttSample(const TcpFastOpenInfo& info,
                                   absl::Duration handshake);

// RttSampleSource: what measured a server's round trip, as the trace's
// fastOpenDetail names it ("RTT from a preconnect").
enum class RttSampleSource {
  kConnection,   // a request's own connection
  kPreconnect,   // net/context's Preconnector
  kBundleProbe,  // the truncated-handshake bundle source's probe
  kRttProbe,     // net/context's ServerRttProber
};
const char* RttSampleSourceName(RttSampleSource source);

// ServerRttObserver: told the round-trip time a connection to |host|
// measured. Connections made outside the HTTP session (prefetch probes)
// report through it, so the session's TcpFastOpenHints know a server's RTT
// before the first visit; net/context wires it (prefetch/ does not see the
// session).
class ServerRttObserver {
 public:
  virtual ~ServerRttObserver() = default;
  // |rtt| > 0; anything else is ignored.
  virtual void OnServerRttSample(const std::string& host,
                                 absl::Duration rtt) = 0;
};

// TcpFastOpenHints: what a session knows about each server's (host:port)
// Fast Open beyond the kernel's cookie cache — that the server takes SYN
// data without a cookie (its verified certificate bundle said so), and that
// Fast Open went wrong there (a fallback: SYNs with data dropped on the
// path; or data without a cookie ignored), which keeps later connections
// off it (off Fast Open, or back to cookies) for kFailureMemory. Bounded:
// past kMaxEntries an arbitrary entry goes. Owned by the HTTP session;
// network-thread affine.
//
// And each host's round-trip time, from every connection the session (and
// what reports through ServerRttObserver) makes to it, so a SYN with data
// that gets no SYN-ACK is raced after about one round trip of that server
// instead of the configured delay (FallbackDelay). Per host, not per port:
// the path's RTT does not depend on the port. The estimate is the minimum
// sample, aged: a path's propagation delay is its smallest RTT, queueing
// only adds to it, and one inflated sample (a retransmitted SYN, a loaded
// server) must not push the delay up to the configured one. The cost of an
// estimate too small is a race that was not needed (one SYN; the Fast Open
// connection still wins when its SYN-ACK comes first); of one too large,
// latency on a path that drops SYN data. A minimum older than kRttWindow
// gives way to the next sample (the path may have changed), and an
// estimate with no sample for kRttMemory is forgotten.
class TcpFastOpenHints : public ServerRttObserver {
 public:
  static constexpr size_t kMaxEntries = 1024;
  static constexpr absl::Duration kFailureMemory = absl::Hours(1);
  static constexpr absl::Duration kRttWindow = absl::Minutes(10);
  static constexpr absl::Duration kRttMemory = absl::Hours(1);
  // The fallback delay with an RTT known: kRttFactor x RTT + kRttMargin
  // (the SYN-ACK's own jitter and the event loop's), at least
  // kMinFallbackDelay, at most the configured delay.
  static constexpr double kRttFactor = 1.1;
  static constexpr absl::Duration kRttMargin = absl::Milliseconds(5);
  static constexpr absl::Duration kMinFallbackDelay = absl::Milliseconds(10);

  // FallbackDelay: the race's delay for a server whose RTT estimate is
  // |rtt| (none: |configured|), and why, in the trace's words. A zero
  // |configured| (no race) stays zero.
  // |source|, when given, is named after the formula ("...; RTT from the
  // RTT probe").
  static std::pair<absl::Duration, std::string> FallbackDelay(
      absl::Duration configured, std::optional<absl::Duration> rtt,
      std::optional<RttSampleSource> source = std::nullopt);

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
  // A round-trip sample of a connection to |host| (a key's host: "a" of
  // "a:443"). Ignored when disabled, or unless |rtt| > 0.
  void NoteRtt(const std::string& host, absl::Duration rtt,
               RttSampleSource source = RttSampleSource::kConnection);
  // ServerRttObserver: NoteRtt (from the truncated-handshake probe).
  void OnServerRttSample(const std::string& host, absl::Duration rtt) override;
  // The RTT estimate for |host|, if there is a current one.
  std::optional<absl::Duration> RttFor(const std::string& host) const;
  // What measured RttFor(|host|) (the minimum's sampler), if there is one.
  std::optional<RttSampleSource> RttSourceFor(const std::string& host) const;

 private:
  struct Entry {
    bool no_cookie = false;
    TimeTicks no_cookie_failed;  // null: never
    TimeTicks fallback;          // null: never
  };
  struct RttEntry {
    absl::Duration min_rtt;
    RttSampleSource min_source;
    TimeTicks min_at;       // when |min_rtt| was sampled
    TimeTicks last_sample;  // the latest sample's time
  };
  Entry& Slot(const std::string& key);

  const bool enabled_;
  const absl::Duration fallback_delay_;
  const TickClock* const clock_;
  absl::flat_hash_map<std::string, Entry> entries_;
  absl::flat_hash_map<std::string, RttEntry> rtts_;
};

}  // namespace net

#endif  // NET_SOCKET_TCP_FAST_OPEN_H_
