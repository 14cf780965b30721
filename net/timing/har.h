// HAR 1.2 export of a run's LoadTiming records (the HTTP Archive format of
// http://www.softwareishard.com/blog/har-12-spec/), for `fetch --har FILE`.
//
// One entry per request, in the order given. Each entry's timings (blocked,
// dns, connect, ssl, send, wait, receive) come from the Resource Timing
// points as net/timing/phases.h cuts them: they tile the request, so they
// add up to the entry's time exactly (ssl lies inside connect, as HAR 1.2
// asks; -1 marks a phase that did not apply, e.g. dns and connect on a
// reused connection). What LoadTiming does not hold (headers, status text,
// MIME type) comes from a HarEntryExtras the caller fills per entry.
//
// This stack's facts travel as custom fields (HAR: names start with "_"):
// _dnsSource, _socketReused, _error and _errorCode (failed requests), and on
// https _tls, _certSource, _certVerify, _revocation, _snapStart, _obc and
// _certBundle (when the host was prefetched). Times inside them are
// milliseconds; _revocation checks and _certBundle jobs carry startedMs /
// endMs relative to the entry's startedDateTime (negative = before the
// request, off the critical path).

#ifndef NET_TIMING_HAR_H_
#define NET_TIMING_HAR_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "net/base/tick_clock.h"
#include "net/timing/load_timing.h"

namespace net {

// HarClockAnchor ties the monotonic clock of LoadTiming to the wall clock:
// |wall| is the wall-clock time at |ticks|. startedDateTime of a request is
// wall + (start - ticks).
struct HarClockAnchor {
  TimeTicks ticks;  // null: not set
  absl::Time wall = absl::UnixEpoch();
  // Now reads both clocks, back to back.
  static HarClockAnchor Now();
  absl::Time ToWall(TimeTicks t) const { return wall + (t - ticks); }
};

// HarEntryExtras: what one entry needs beyond its LoadTiming. Every field
// may stay empty; the entry then says "unknown" the HAR way (-1, "").
struct HarEntryExtras {
  // The request headers as sent, in order (name, value). A Cookie header
  // also fills request.cookies.
  std::vector<std::pair<std::string, std::string>> request_headers;
  // Bytes from the request line to the blank line included, or -1.
  int64_t request_headers_size = -1;
  // A request body: its size is request.bodySize; with a MIME type it also
  // becomes request.postData (its text only if it is valid UTF-8).
  std::string request_body;
  std::string request_body_mime_type;
  // The response head as received, status line to blank line (what
  // HttpResponseHeaders::raw() holds; CRLF or LF). headers, cookies (from
  // Set-Cookie), httpVersion, statusText, redirectURL (Location, resolved
  // against the URL), content.mimeType (Content-Type) and headersSize come
  // from it.
  std::string response_headers_raw;
  // Override the status line's reason phrase and Content-Type.
  std::string status_text;
  std::string mime_type;
  // Overrides entry.connection. By default connections are numbered in
  // order of appearance: a request on a reused socket gets the number of
  // the latest connection to the same remote address.
  std::string connection;
  std::string comment;
};

struct HarOptions {
  // log.creator is {"name": "netstack-fetch", "version": creator_version}.
  std::string creator_version = "1.0";
  // Wall clock for startedDateTime. If anchor.ticks is null, the export
  // reads HarClockAnchor::Now() (right for records of this process's run).
  HarClockAnchor anchor;
  // The zone startedDateTime is written in ("+00:00" for UTC).
  absl::TimeZone time_zone = absl::UTCTimeZone();
  // Parallel to the timings; entries beyond its size have no extras.
  std::vector<HarEntryExtras> extras;
  // Non-empty: log.pages holds one page ("page_1", this title, starting
  // with the first request) and every entry refers to it. Empty: no pages.
  std::string page_title;
};

// LoadTimingsToHar returns the HAR 1.2 document (a JSON object with "log",
// pretty-printed, UTF-8: invalid UTF-8 in URLs or headers becomes U+FFFD)
// for |timings|, one entry per record in order.
std::string LoadTimingsToHar(const std::vector<LoadTiming>& timings,
                             const HarOptions& options);

// FormatHarDateTime formats |t| as ISO 8601 with milliseconds and the zone
// offset, e.g. "2024-05-01T12:34:56.789+00:00".
std::string FormatHarDateTime(absl::Time t, absl::TimeZone zone);

// ParseHttpHeaderBlock splits a raw header block (an optional start line,
// then "Name: value" lines up to a blank line; CRLF or LF; obsolete line
// folding joined) into (name, value) pairs, values trimmed. |start_line|
// receives the first line when it is a request or status line.
std::vector<std::pair<std::string, std::string>> ParseHttpHeaderBlock(
    const std::string& raw, std::string* start_line);

}  // namespace net

#endif  // NET_TIMING_HAR_H_
