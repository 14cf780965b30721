// LoadTiming fixtures shared by the net/timing unit tests and the
// har_waterfall_sample program: At (a tick from milliseconds),
// LoadTimingBuilder (a request's points phase by phase), and three ready-made
// requests.

#ifndef NET_TIMING_LOAD_TIMING_TEST_UTIL_H_
#define NET_TIMING_LOAD_TIMING_TEST_UTIL_H_

#include <optional>
#include <string>

#include "net/base/tick_clock.h"
#include "net/timing/load_timing.h"

namespace net {

// At returns the tick |ms| milliseconds after a fixed origin one second into
// the clock, so that small negative offsets (prefetch jobs that started before
// the request) are valid too. Sub-microsecond parts are truncated.
TimeTicks At(double ms);

// LoadTimingBuilder sets a LoadTiming's points phase by phase, in
// milliseconds from At(0); a phase not named stays null (did not happen).
// Every other field is the caller's to set on what Build returns.
class LoadTimingBuilder {
 public:
  // A request for |url|; https when the URL's scheme is.
  explicit LoadTimingBuilder(const std::string& url);

  // start, and fetch_start when given.
  LoadTimingBuilder& Start(double start,
                           std::optional<double> fetch_start = std::nullopt);
  // A lookup from |start| to |end| (same-tick for a prefetched or cached
  // name), answered from |source|.
  LoadTimingBuilder& Dns(double start, double end, DnsSource source);
  // A lookup that began at |start| and never ended (it failed).
  LoadTimingBuilder& DnsStart(double start, DnsSource source);
  // The transport connect; with Tls, the handshake's start inside it.
  LoadTimingBuilder& Connect(double start, double end);
  LoadTimingBuilder& Tls(double ssl_start);
  // The request written at |request|, the first response byte at
  // |response_start|, the last at |response_end|, with |status|.
  LoadTimingBuilder& Exchange(double request, double response_start,
                              double response_end, int status);
  // The peer, as "ip:port" or "[ipv6]:port".
  LoadTimingBuilder& From(const std::string& remote_address);
  // The request failed at |at| with |net_error|.
  LoadTimingBuilder& Failed(double at, int net_error);

  const LoadTiming& Build() const { return t_; }

 private:
  LoadTiming t_;
};

// HttpsTiming is an https request for https://www.example.test/ on a fresh
// connection, TLSv1.2, status 200, from 127.0.0.1:443 with DNS from the
// network: blocked 0-1 ms, DNS 1-41, connect 41-341 with TLS 141-341, send
// 341-341.5, wait 341.5-441, receive 441-442.
LoadTiming HttpsTiming();

// ReusedConnectionTiming is an https request on a reused connection: start 0,
// fetch start 2, request 3, response 4, end 5 ms; no DNS or connect points.
LoadTiming ReusedConnectionTiming();

// FailedDnsTiming is an https request for https://missing.test/ that started
// at 0, began DNS at 1 ms and failed at 30 ms with ERR_NAME_NOT_RESOLVED.
LoadTiming FailedDnsTiming();

}  // namespace net

#endif  // NET_TIMING_LOAD_TIMING_TEST_UTIL_H_
