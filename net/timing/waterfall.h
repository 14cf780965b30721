// A waterfall picture of a run's requests as a standalone SVG document, for
// `fetch --waterfall FILE.svg`.
//
// One row per request (in the order given, labelled with its number,
// method, status or error and URL) whose segments are the phases of
// net/timing/phases.h: stalled, DNS lookup, initial connection (TCP),
// SSL/TLS, request sent, waiting (TTFB), content download, in the colours
// of Chrome DevTools' network waterfall. Revocation checks made during a
// request (fresh OCSP/CRL) sit under its bar; a failed request ends in a
// red cross.
//
// Above the requests, rows "off the critical path" show what the trace
// says was done ahead of them: each certificate-bundle prefetch job once
// (bundle fetch, then prevalidation or verification), prevalidated or
// cached revocation checks with times, and DNS prefetches (the record only
// says the answer came from the prefetch, not when the lookup ran: a marker
// at the request's lookup). A time axis in milliseconds from the earliest
// event, grid lines and a legend complete it.
//
// The document declares its size (width, height and viewBox in pixels, at
// most a fixed width) and is well-formed XML: text is UTF-8 with &, <, >
// and quotes escaped.

#ifndef NET_TIMING_WATERFALL_H_
#define NET_TIMING_WATERFALL_H_

#include <string>
#include <vector>

#include "net/timing/load_timing.h"

namespace net {

// LoadTimingsToWaterfallSvg returns the SVG document for |timings|.
std::string LoadTimingsToWaterfallSvg(const std::vector<LoadTiming>& timings);

// The DevTools colours the picture uses (Chrome DevTools'
// NetworkWaterfallColumn: DNS #009688, initial connection #FF9800, SSL
// #9C27B0, waiting #00C853, content download #03A9F4, stalled #AAAAAA;
// request sent has no fill there, later versions use a blue-grey).
inline constexpr char kWaterfallColorStalled[] = "#AAAAAA";
inline constexpr char kWaterfallColorDns[] = "#009688";
inline constexpr char kWaterfallColorConnect[] = "#FF9800";
inline constexpr char kWaterfallColorSsl[] = "#9C27B0";
inline constexpr char kWaterfallColorSend[] = "#B0BEC5";
inline constexpr char kWaterfallColorWait[] = "#00C853";
inline constexpr char kWaterfallColorReceive[] = "#03A9F4";

}  // namespace net

#endif  // NET_TIMING_WATERFALL_H_
