// LoadTiming: the Navigation Timing-style record of one request, on the
// monotonic clock, plus the facts that explain the numbers (DNS source, TLS,
// certificate verification, connection reuse).
//
// net/ records absolute TimeTicks (null = did not happen); ToJson() presents
// them as W3C Resource Timing offsets in milliseconds from startTime, from
// one ordered table of fields. Filled by HttpNetworkTransaction; owned by
// whoever reads the trace.

#ifndef NET_TIMING_LOAD_TIMING_H_
#define NET_TIMING_LOAD_TIMING_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "dns/dns_source.h"
#include "dns/https_record_info.h"
#include "net/base/json_escape.h"
#include "net/base/request_priority.h"
#include "net/base/tick_clock.h"
#include "net/socket/tcp_fast_open.h"
#include "net/ssl/ssl_info.h"

namespace net {

// CertBundleTrace: what certificate-bundle prefetching (prefetch/) did for
// the request's host. Filled by the connection layer's observer
// (net/context) after the TLS handshake.
struct CertBundleTrace {
  // The host was prefetched (a bundle job ran for host:port).
  bool present = false;
  // The handshake used the bundle: the server's leaf is the bundle's and the
  // verification answer was the prevalidated one, or Snap Start predicted
  // from it. Then the trace's cert.source is "prefetch".
  bool used = false;
  std::string source;  // dns, well-known, cdn, truncated; "" if none usable
  std::string via;     // the record or URL
  int64_t bytes = 0;   // of the carrier
  bool from_cache = false;
  bool prevalidated = false;
  TimeTicks started;   // the prefetch trigger
  TimeTicks received;  // the bundle arrived
  TimeTicks ready;     // verified and prevalidated (or given up)
  absl::Duration age = absl::ZeroDuration();  // at use
  // Why each rejected bundle or failed source was not used, in order; and
  // why a ready bundle did not serve this connection.
  std::vector<std::string> rejected;
  std::string not_used_because;
};

// How a request got the multiplexed session (SPDY/3, HTTP/2) it went on:
// this request's connection made it (new), an open session to the origin
// (reused), or IP pooling: a session made for another origin whose
// certificate covers this one (pooled).
enum class SessionUse { kNone, kNew, kReused, kPooled };
// The trace's word: "", "new", "reused" or "pooled".
const char* SessionUseToString(SessionUse use);

// SPDY facts of a request that went over a SPDY/3 session (issue 13).
struct SpdyTrace {
  bool used = false;
  uint32_t stream_id = 0;
  SessionUse session = SessionUse::kNone;
  // Which session: its origin and local address ("https://a:443 via
  // 127.0.0.1:41234"), the same for every request it carried.
  std::string session_id;
  // The CREDENTIAL slot the SYN_STREAM named (0: the handshake's
  // certificate or none) and whether this request sent the CREDENTIAL.
  int credential_slot = 0;
  bool credential_sent = false;
  // Why the request was sent again, if it was ("INVALID_CREDENTIALS: retried
  // on a direct connection", "refused stream (GOAWAY)").
  std::string retry;
};

// HTTP/2 facts of a request that went over an HTTP/2 session (issue 24).
struct Http2Trace {
  bool used = false;
  uint32_t stream_id = 0;
  // kNew (this request's connection made the session), kReused (an open
  // session to the origin carried it) or kPooled (a session made for another
  // origin carried it: coalesced).
  SessionUse session = SessionUse::kNone;
  // Which session: its origin and local address, the same for every request
  // it carried.
  std::string session_id;
  // Coalescing (RFC 9113 9.1.1, RFC 8336): the request went over a session
  // made for another origin (|coalesced_onto|, serialized), found by DNS
  // ("dns": the origin resolved to the session's address) or by the
  // session's ORIGIN frames ("originFrame", no lookup).
  bool coalesced = false;
  std::string coalesced_onto;
  std::string coalesced_by;
  // Why an open session that could have carried the request did not
  // ("certificate", "obc", "misdirected", "originFrame"), if one could.
  std::string not_coalesced_reason;
  // The HEADERS frame's priority: weight (1-256) and the stream it depends
  // on (0: the root).
  int weight = 0;
  uint32_t depends_on = 0;
  // The SETTINGS the server sent (name, value), e.g. MAX_CONCURRENT_STREAMS
  // 128: each name once with its last value, in the order first seen; empty
  // if none had arrived.
  std::vector<std::pair<std::string, uint32_t>> server_settings;
  // Why the request was sent again, if it was ("refused stream (GOAWAY):
  // retried on a new session").
  std::string retry;
};

// QUIC and HTTP/3 facts (issue 25): of a request that went over HTTP/3
// (used), or of a QUIC attempt that fell back to TCP (fallback says why).
struct QuicTrace {
  bool used = false;
  // The QUIC version as a number (1: QUIC v1, RFC 9000).
  uint32_t version = 0;
  // kNew (this request's connection made the session) or kReused (the
  // origin's open HTTP/3 session carried it).
  SessionUse session = SessionUse::kNone;
  int64_t stream_id = -1;
  // The QUIC handshake: from the first Initial to the handshake completed
  // (ngtcp2's handshake_completed; the server's Finished verified).
  absl::Duration handshake = absl::ZeroDuration();
  // QUIC packets of the connection so far (when the response ended, or the
  // request failed): sent, received, declared lost by loss detection.
  uint64_t packets_sent = 0;
  uint64_t packets_received = 0;
  uint64_t packets_lost = 0;
  // 0-RTT: "none" (not offered: no ticket for the origin, or one without
  // early data), "accepted", "rejected" (the early requests were sent again
  // in 1-RTT on the same connection); the connection's, as QUIC decided it.
  std::string zero_rtt = "none";
  // BoringSSL's reason when 0-RTT was offered and not accepted.
  std::string zero_rtt_reason;
  // This request went in 0-RTT packets.
  bool sent_early = false;
  // Round trips the connection's handshake made requests wait, from what
  // happened (QuicConnectionFacts::handshake_rtts): 0 with 0-RTT accepted,
  // else 1, +1 per Retry, +1 when the anti-amplification limit held the
  // server's first flight back; -1 (JSON null) when the handshake did not
  // complete.
  int handshake_rtts = -1;
  // Whether the connection's Initial carried an address validation token
  // from an earlier connection's NEW_TOKEN frame: "sent" or "none".
  std::string address_token = "none";
  // How the connection ended, if it did while the request was on it.
  std::string close_reason;
  // Why this request left QUIC for TCP ("" if it did not).
  std::string fallback;
  // The Alt-Svc value that sent it to HTTP/3 ("" when --http3 did).
  std::string alt_svc;
  // The DNS HTTPS record whose ALPN set offered h3 and sent it to HTTP/3,
  // in words ("alpn=h3,h2 target=www.example.test port=443"); "" if none.
  std::string https_record;
};

// What Device Bound Session Credentials (net/device_bound_sessions) did
// with a request (issue 26). role kNone: nothing, and the trace has no
// dbsc object.
enum class DbscRole {
  kNone,
  // A request in a session's scope (its bound cookie was there, or it was
  // deferred until a refresh ended).
  kRequest,
  // A response that asked for a session (Secure-Session-Registration): the
  // registration started beside it.
  kRegistering,
  // The registration POST the stack made (its own trace entry).
  kRegistration,
  // A refresh POST the stack made (its own trace entry, one per attempt).
  kRefresh,
};
enum class DbscOutcome {
  kNone,
  kStarted,     // a registration began
  kRegistered,  // a session was created
  kRefreshed,   // a refresh answered 2xx (new bound cookies)
  kChallenged,  // 403 with a new challenge: the proof is made again
  kEnded,       // the session was terminated (the draft's rules)
  kFailed,      // no session, or the refresh failed and the session stays
  kSkipped,     // the refresh was not tried (backing off after failures)
  kBound,       // the bound cookie was there: nothing to do
};
// The trace's words: "request", "registering", "registration", "refresh";
// "started", "registered", "refreshed", "challenged", "ended", "failed",
// "skipped", "bound" ("" for kNone).
const char* DbscRoleToString(DbscRole role);
const char* DbscOutcomeToString(DbscOutcome outcome);

struct DbscTrace {
  DbscRole role = DbscRole::kNone;
  std::string session_id;
  DbscOutcome outcome = DbscOutcome::kNone;
  // The proof's algorithm ("ES256") when one was signed for this step.
  std::string alg;
  // Registration: "pooled" (the key pool had a key) or "generated" (the
  // registration waited for one).
  std::string key_source;
  // Registration: from the response that asked for the session to the
  // session stored. Refresh: the whole refresh (every attempt), on its last
  // attempt's entry. Request: how long it was held for a refresh (its
  // LoadTiming starts after that). Null when it does not apply.
  std::optional<absl::Duration> registered;
  std::optional<absl::Duration> refresh;
  std::optional<absl::Duration> deferred;
  // Why, in words, when it failed, ended or was skipped.
  std::string detail;
};

struct LoadTiming {
  // W3C Resource Timing points.
  TimeTicks start;           // startTime: the request was created
  TimeTicks fetch_start;     // fetchStart: about to look for a connection
  TimeTicks dns_start;       // domainLookupStart
  TimeTicks dns_end;         // domainLookupEnd
  TimeTicks connect_start;   // connectStart: TCP connect begins
  TimeTicks ssl_start;       // secureConnectionStart: TLS handshake begins
  TimeTicks connect_end;     // connectEnd: transport (and TLS) ready
  TimeTicks request_start;   // requestStart: first request byte written
  TimeTicks response_start;  // responseStart: first response byte read
  TimeTicks response_end;    // responseEnd: last body byte read
  // When the request failed (null if it did not). Not a W3C point: the
  // trace-event export ends the request's slice there.
  TimeTicks failed_at;

  // Facts.
  std::string url;
  std::string method = "GET";
  // The request's priority (HIGHEST for a navigation).
  RequestPriority priority = HIGHEST;
  int status_code = 0;
  int net_error = 0;  // OK or the failure
  DnsSource dns_source = DnsSource::kNone;
  // The origin's DNS HTTPS record (RFC 9460), as the lookup found it
  // (dns.httpsRecord; absent when not queried).
  HttpsRecordInfo dns_https;
  // The transport peer ("ip:port"): the proxy's, through a proxy.
  std::string remote_address;
  // The HTTP proxy the request went through ("http://host:port", never its
  // credentials), or "direct".
  std::string proxy = "direct";
  bool socket_reused = false;
  // The connection was opened and handshaked ahead of the request
  // (preconnect) and this request is its first user.
  bool socket_preconnected = false;
  bool https = false;
  SSLInfo ssl;
  // Which TLS handshake the connection made for this request chose, and the
  // next best (empty for plain HTTP and reused connections).
  HandshakeChoice handshake_choice;
  // What the connection made for this request did with TCP Fast Open
  // (mode off for a reused or pooled connection).
  TcpFastOpenInfo tcp_fast_open;
  CertBundleTrace cert_bundle;
  SpdyTrace spdy;
  Http2Trace h2;
  QuicTrace quic;
  DbscTrace dbsc;
  int64_t body_bytes = 0;
  int64_t header_bytes = 0;
};

// ToJson returns one JSON object (single line) for |timing|. Times are
// milliseconds relative to startTime with microsecond precision. Every
// W3C point appears (secureConnectionStart only for https); a point that did
// not happen, as in a failed request, is null. For a reused connection the
// lookup and connect points equal fetchStart, as in W3C.
std::string LoadTimingToJson(const LoadTiming& timing);

// ToTraceEvents returns a Chrome trace-event JSON document (the object form,
// {"traceEvents": [...]}) with one track per request (and one "prefetch"
// track for the certificate-bundle jobs the requests used: bundle fetch,
// then prevalidation) and a complete ("X")
// event per phase; Perfetto and chrome://tracing open it.
std::string LoadTimingsToTraceEvents(const std::vector<LoadTiming>& timings);

}  // namespace net

#endif  // NET_TIMING_LOAD_TIMING_H_
