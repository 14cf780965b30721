#include "net/timing/waterfall.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "cert/cert_verifier.h"
#include "net/base/net_errors.h"
#include "net/base/url.h"
#include "net/timing/phases.h"
#include "net/timing/xml_escape.h"

namespace net {
namespace {

// Off-the-critical-path jobs (not DevTools phases).
constexpr char kColorBundleFetch[] = "#795548";
constexpr char kColorPrevalidation[] = "#E91E63";
constexpr char kColorRevocation[] = "#F44336";
constexpr char kColorFailure[] = "#D32F2F";

constexpr int kWidth = 1100;
constexpr double kLabelX = 10;
constexpr double kChartX0 = 380;
constexpr double kChartX1 = kWidth - 80;  // room for the duration label
constexpr double kAxisY = 58;             // the axis line
constexpr double kRowH = 22;
constexpr double kThin = 7;    // DevTools: stalled, DNS, connect, SSL
constexpr double kThick = 13;  // request, waiting, download
constexpr size_t kLabelChars = 52;

// SvgText makes |s| safe in XML text and attribute values, as valid UTF-8.
std::string SvgText(absl::string_view s) { return XmlEscape(ToValidUtf8(s)); }

// Truncate keeps at most |max| code points of valid UTF-8 |s|, ending in an
// ellipsis when it cuts.
std::string Truncate(const std::string& s, size_t max) {
  const std::string valid = ToValidUtf8(s);
  size_t count = 0;
  for (size_t i = 0; i < valid.size(); ++i) {
    if ((static_cast<unsigned char>(valid[i]) & 0xC0) == 0x80) continue;
    if (++count == max) {
      // Is there more after this code point?
      size_t next = i + 1;
      while (next < valid.size() &&
             (static_cast<unsigned char>(valid[next]) & 0xC0) == 0x80)
        ++next;
      if (next < valid.size()) return valid.substr(0, i) + "\xE2\x80\xA6";
      break;
    }
  }
  return valid;
}

std::string Num(double v) { return absl::StrFormat("%.1f", v); }

std::string MsText(absl::Duration d) {
  const double ms = absl::ToDoubleMilliseconds(d);
  return ms >= 100 ? absl::StrFormat("%.0f ms", ms)
                   : absl::StrFormat("%.1f ms", ms);
}

struct Segment {
  TimeTicks begin;
  TimeTicks end;
  const char* color;
  std::string name;
  double height;
};

struct Marker {
  TimeTicks at;
  bool failure;  // else a DNS-prefetch diamond
  std::string tooltip;
};

struct Row {
  std::string label;
  std::string tooltip;
  bool off_path = false;
  std::vector<Segment> segments;
  std::vector<Segment> under;  // thin bars under the main bar
  std::vector<Marker> markers;
  std::string duration;  // right of the bar
};

// DrawMarker draws a failure cross or a DNS-prefetch diamond centred on
// (x, y), with |tooltip| as its title.
void DrawMarker(bool failure, double x, double y, const std::string& tooltip,
                std::string* svg) {
  if (failure) {
    absl::StrAppend(svg, "<path d=\"M", Num(x - 4), " ", Num(y - 4), " L",
                    Num(x + 4), " ", Num(y + 4), " M", Num(x - 4), " ",
                    Num(y + 4), " L", Num(x + 4), " ", Num(y - 4),
                    "\" stroke=\"", kColorFailure,
                    "\" stroke-width=\"2.5\" fill=\"none\">");
  } else {
    absl::StrAppend(svg, "<path d=\"M", Num(x), " ", Num(y - 6), " L",
                    Num(x + 6), " ", Num(y), " L", Num(x), " ", Num(y + 6),
                    " L", Num(x - 6), " ", Num(y),
                    " Z\" fill=\"#FFFFFF\" stroke=\"", kWaterfallColorDns,
                    "\" stroke-width=\"2\">");
  }
  absl::StrAppend(svg, "<title>", SvgText(tooltip), "</title></path>\n");
}

std::string HostOf(const std::string& url) {
  auto parsed = Url::Parse(url);
  return parsed.ok() ? parsed->host() : url;
}

// NiceStep returns 1, 2 or 5 times a power of ten, about |span| / 8.
double NiceStep(double span_ms) {
  const double raw = std::max(span_ms, 0.001) / 8;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

}  // namespace

std::string LoadTimingsToWaterfallSvg(const std::vector<LoadTiming>& timings) {
  std::vector<Row> off_rows;
  std::vector<Row> rows;
  std::set<std::pair<std::string, int64_t>> bundle_jobs;
  std::set<std::tuple<std::string, int, int64_t>> checks_seen;
  std::set<std::string> dns_prefetched;
  bool any_failure = false;

  for (size_t i = 0; i < timings.size(); ++i) {
    const LoadTiming& t = timings[i];
    const RequestPhases p = ComputeRequestPhases(t);
    Row row;
    const std::string outcome =
        t.net_error != OK   ? ErrorToShortString(t.net_error)
        : t.status_code > 0 ? absl::StrCat(t.status_code)
                            : "";
    row.tooltip = absl::StrCat(i + 1, ". ", t.method, " ", t.url, " ", outcome);
    row.label =
        Truncate(absl::StrCat(i + 1, ". ", t.method, " ", outcome, " ", t.url),
                 kLabelChars);
    if (!p.start.is_null()) {
      row.duration = MsText(p.total());
      auto add = [&](const PhaseInterval& phase, TimeTicks begin, TimeTicks end,
                     const char* color, const char* name, double height) {
        if (!phase.present || end <= begin) return;
        row.segments.push_back({begin, end, color, name, height});
      };
      add(p.blocked, p.blocked.begin, p.blocked.end, kWaterfallColorStalled,
          "Stalled", kThin);
      add(p.dns, p.dns.begin, p.dns.end, kWaterfallColorDns,
          absl::StrCat("DNS lookup (", DnsSourceToString(t.dns_source), ")")
              .c_str(),
          kThin);
      add(p.connect, p.connect.begin,
          p.ssl.present ? p.ssl.begin : p.connect.end, kWaterfallColorConnect,
          "Initial connection (TCP)", kThin);
      add(p.ssl, p.ssl.begin, p.ssl.end, kWaterfallColorSsl,
          t.ssl.version.empty() ? "SSL" : t.ssl.version.c_str(), kThin);
      add(p.send, p.send.begin, p.send.end, kWaterfallColorSend, "Request sent",
          kThick);
      add(p.wait, p.wait.begin, p.wait.end, kWaterfallColorWait,
          "Waiting (TTFB)", kThick);
      add(p.receive, p.receive.begin, p.receive.end, kWaterfallColorReceive,
          "Content download", kThick);
      if (p.failed && (t.net_error != OK || !t.failed_at.is_null())) {
        row.markers.push_back({p.end, true, absl::StrCat("failed: ", outcome)});
        any_failure = true;
      }
    }

    // Revocation checks: during the request (fresh, stapled) under its bar;
    // prevalidated, cached or earlier ones off the critical path.
    if (t.https) {
      for (const RevocationCheck& c : t.ssl.cert_verify.revocation_checks) {
        if (c.start.is_null() || c.end.is_null() || c.end < c.start) continue;
        const std::string what =
            absl::StrCat(c.method, " depth ", c.depth, " (",
                         RevocationSourceToString(c.source), ", ",
                         RevocationOutcomeToString(c.outcome), ")");
        const bool off = c.source == RevocationSource::kPrevalidated ||
                         c.source == RevocationSource::kCache ||
                         (!t.start.is_null() && c.end <= t.start);
        if (!off) {
          row.under.push_back({c.start, c.end, kColorRevocation,
                               absl::StrCat("revocation check: ", what), 3});
          continue;
        }
        if (!checks_seen.insert({c.method, c.depth, c.start.ToMicroseconds()})
                 .second)
          continue;
        Row job;
        job.off_path = true;
        job.label = Truncate(
            absl::StrCat("OCSP/CRL ", what, " ", HostOf(t.url)), kLabelChars);
        job.tooltip = absl::StrCat("revocation check ", what, " for ", t.url,
                                   ", off the critical path");
        job.segments.push_back({c.start, c.end, kColorRevocation,
                                absl::StrCat("revocation check: ", what),
                                kThick});
        job.duration = MsText(c.end - c.start);
        off_rows.push_back(std::move(job));
      }
    }

    // The certificate-bundle prefetch job, once however many used it.
    const CertBundleTrace& b = t.cert_bundle;
    if (b.present && !b.started.is_null() &&
        bundle_jobs.insert({b.via, b.started.ToMicroseconds()}).second) {
      Row job;
      job.off_path = true;
      job.label = Truncate(absl::StrCat("bundle prefetch ", b.source, " ",
                                        b.via.empty() ? HostOf(t.url) : b.via),
                           kLabelChars);
      job.tooltip = absl::StrCat(
          "certificate bundle prefetch for ", HostOf(t.url), " via ", b.source,
          " ", b.via, ", ", b.bytes, " bytes",
          b.from_cache ? ", from cache" : "", b.used ? ", used" : ", not used",
          b.not_used_because.empty() ? "" : ": ", b.not_used_because,
          "; off the critical path");
      if (!b.received.is_null() && b.received > b.started)
        job.segments.push_back({b.started, b.received, kColorBundleFetch,
                                absl::StrCat("bundle fetch (", b.source, ")"),
                                kThick});
      const TimeTicks verify_from =
          b.received.is_null() ? b.started : b.received;
      if (!b.ready.is_null() && b.ready > verify_from)
        job.segments.push_back({verify_from, b.ready, kColorPrevalidation,
                                b.prevalidated
                                    ? "prevalidation (verify + revocation)"
                                    : "verification",
                                kThick});
      const TimeTicks job_end = !b.ready.is_null()      ? b.ready
                                : !b.received.is_null() ? b.received
                                                        : b.started;
      job.duration = MsText(job_end - b.started);
      off_rows.push_back(std::move(job));
    }

    // A DNS prefetch: the record says only that the answer came from it.
    if (t.dns_source == DnsSource::kPrefetch &&
        dns_prefetched.insert(HostOf(t.url)).second && !p.start.is_null()) {
      Row job;
      job.off_path = true;
      job.label =
          Truncate(absl::StrCat("DNS prefetch ", HostOf(t.url)), kLabelChars);
      job.tooltip = absl::StrCat(
          "DNS prefetch of ", HostOf(t.url),
          ": the lookup ran before the request (its times are not in the "
          "trace); the marker is where request ",
          i + 1, " took the answer");
      job.markers.push_back(
          {p.dns.present ? p.dns.begin : p.start, false, job.tooltip});
      job.duration = "prefetched";
      off_rows.push_back(std::move(job));
    }
    rows.push_back(std::move(row));
  }

  // Off-path rows in the order their jobs started.
  auto first_event = [](const Row& r) {
    TimeTicks first;
    for (const Segment& seg : r.segments)
      if (first.is_null() || seg.begin < first) first = seg.begin;
    for (const Marker& m : r.markers)
      if (first.is_null() || m.at < first) first = m.at;
    return first;
  };
  std::stable_sort(off_rows.begin(), off_rows.end(),
                   [&](const Row& a, const Row& b) {
                     return first_event(a) < first_event(b);
                   });

  // The time axis: from the earliest event to the latest.
  TimeTicks origin, last;
  auto extend = [&](TimeTicks v) {
    if (v.is_null()) return;
    if (origin.is_null() || v < origin) origin = v;
    if (last.is_null() || v > last) last = v;
  };
  for (const std::vector<Row>* list : {&off_rows, &rows}) {
    for (const Row& r : *list) {
      for (const Segment& s : r.segments) extend(s.begin), extend(s.end);
      for (const Segment& s : r.under) extend(s.begin), extend(s.end);
      for (const Marker& m : r.markers) extend(m.at);
    }
  }
  for (const LoadTiming& t : timings) extend(t.start);
  const double span_ms =
      origin.is_null() ? 0 : absl::ToDoubleMilliseconds(last - origin);
  const double step = NiceStep(span_ms);
  const double axis_ms = std::max(step, std::ceil(span_ms / step) * step);
  auto x_of = [&](TimeTicks v) {
    return kChartX0 + absl::ToDoubleMilliseconds(v - origin) / axis_ms *
                          (kChartX1 - kChartX0);
  };

  // Vertical layout.
  double y = kAxisY + 8;
  const double off_header_y = y;
  if (!off_rows.empty()) y += kRowH + off_rows.size() * kRowH;
  const double requests_header_y = y;
  y += kRowH;
  const double rows_y = y;
  y += std::max<size_t>(rows.size(), 1) * kRowH;
  const double grid_bottom = y;

  // The legend: what appears, DevTools phases first.
  enum Shape { kBar, kDashedBar, kDiamond, kCross };
  struct LegendItem {
    const char* color;
    std::string name;
    Shape shape;
  };
  std::vector<LegendItem> legend = {
      {kWaterfallColorStalled, "Stalled", kBar},
      {kWaterfallColorDns, "DNS lookup", kBar},
      {kWaterfallColorConnect, "Initial connection", kBar},
      {kWaterfallColorSsl, "SSL/TLS", kBar},
      {kWaterfallColorSend, "Request sent", kBar},
      {kWaterfallColorWait, "Waiting (TTFB)", kBar},
      {kWaterfallColorReceive, "Content download", kBar},
  };
  bool any_bundle = false, any_prevalidation = false, any_revocation = false,
       any_dns_prefetch = false;
  for (const std::vector<Row>* list : {&off_rows, &rows}) {
    for (const Row& r : *list) {
      for (const Segment& s : r.segments) {
        any_bundle |= s.color == kColorBundleFetch;
        any_prevalidation |= s.color == kColorPrevalidation;
        any_revocation |= s.color == kColorRevocation;
      }
      any_revocation |= !r.under.empty();
      for (const Marker& m : r.markers) any_dns_prefetch |= !m.failure;
    }
  }
  if (any_bundle)
    legend.push_back(
        {kColorBundleFetch, "Bundle fetch (prefetch)", kDashedBar});
  if (any_prevalidation)
    legend.push_back({kColorPrevalidation, "Prevalidation", kDashedBar});
  if (any_revocation)
    legend.push_back({kColorRevocation, "OCSP/CRL check", kBar});
  if (any_dns_prefetch)
    legend.push_back(
        {kWaterfallColorDns, "DNS prefetch (answer used)", kDiamond});
  if (any_failure) legend.push_back({kColorFailure, "Failed", kCross});
  // Lay the legend out in lines (about 7 px per character of 12 px text).
  std::vector<std::pair<double, double>> legend_xy;
  double lx = kLabelX, ly = grid_bottom + 22;
  for (const LegendItem& item : legend) {
    const double w = 16 + 7.0 * item.name.size() + 18;
    if (lx + w > kWidth - 10) {
      lx = kLabelX;
      ly += 20;
    }
    legend_xy.emplace_back(lx, ly);
    lx += w;
  }
  const int height = static_cast<int>(std::ceil(ly + 16));

  std::string svg = absl::StrCat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"",
      kWidth, "\" height=\"", height, "\" viewBox=\"0 0 ", kWidth, " ", height,
      "\" font-family=\"Arial, Helvetica, sans-serif\" font-size=\"12\">\n");
  absl::StrAppend(
      &svg, "<title>",
      SvgText(absl::StrCat("Waterfall of ", timings.size(), " requests")),
      "</title>\n");
  // Background and frame: the picture's extent, edge to edge.
  absl::StrAppend(&svg, "<rect x=\"0.5\" y=\"0.5\" width=\"", kWidth - 1,
                  "\" height=\"", height - 1,
                  "\" fill=\"#FFFFFF\" stroke=\"#BDBDBD\"/>\n");
  absl::StrAppend(
      &svg, "<text x=\"", Num(kLabelX), "\" y=\"20\" font-size=\"14\" ",
      "font-weight=\"bold\">",
      SvgText(absl::StrCat("Waterfall: ", rows.size(), " request",
                           rows.size() == 1 ? "" : "s", ", ", Num(span_ms),
                           " ms from the first event")),
      "</text>\n");

  // Row backgrounds (stripes; off-path rows tinted).
  auto row_background = [&](double top, int index, bool off_path) {
    const char* fill = off_path ? "#FFF8E1" : index % 2 ? "#F5F5F5" : "";
    if (*fill)
      absl::StrAppend(&svg, "<rect x=\"1\" y=\"", Num(top), "\" width=\"",
                      kWidth - 2, "\" height=\"", Num(kRowH), "\" fill=\"",
                      fill, "\"/>\n");
  };
  for (size_t i = 0; i < off_rows.size(); ++i)
    row_background(off_header_y + kRowH * (i + 1), i, true);
  for (size_t i = 0; i < rows.size(); ++i)
    row_background(rows_y + kRowH * i, i, false);

  // Axis, ticks and grid.
  absl::StrAppend(&svg, "<g stroke=\"#9E9E9E\" stroke-width=\"1\">\n");
  absl::StrAppend(&svg, "<line x1=\"", Num(kChartX0), "\" y1=\"", Num(kAxisY),
                  "\" x2=\"", Num(kChartX1), "\" y2=\"", Num(kAxisY), "\"/>\n");
  const int ticks = static_cast<int>(std::lround(axis_ms / step));
  for (int k = 0; k <= ticks; ++k) {
    const double x = kChartX0 + (kChartX1 - kChartX0) * k / ticks;
    absl::StrAppend(&svg, "<line x1=\"", Num(x), "\" y1=\"", Num(kAxisY - 5),
                    "\" x2=\"", Num(x), "\" y2=\"", Num(grid_bottom),
                    "\" stroke=\"", k == 0 ? "#9E9E9E" : "#E0E0E0", "\"/>\n");
  }
  absl::StrAppend(&svg, "</g>\n<g font-size=\"11\" fill=\"#424242\" ",
                  "text-anchor=\"middle\">\n");
  const int decimals =
      step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  for (int k = 0; k <= ticks; ++k) {
    const double x = kChartX0 + (kChartX1 - kChartX0) * k / ticks;
    absl::StrAppend(&svg, "<text x=\"", Num(x), "\" y=\"", Num(kAxisY - 9),
                    "\">", absl::StrFormat("%.*f", decimals, step * k),
                    k == ticks ? " ms" : "", "</text>\n");
  }
  absl::StrAppend(&svg, "</g>\n");

  auto section = [&](double top, const std::string& text) {
    absl::StrAppend(&svg, "<text x=\"", Num(kLabelX), "\" y=\"", Num(top + 15),
                    "\" font-weight=\"bold\" fill=\"#212121\">", SvgText(text),
                    "</text>\n");
  };
  auto draw_row = [&](const Row& r, double top) {
    const double mid = top + kRowH / 2;
    absl::StrAppend(&svg, "<g>\n<title>", SvgText(r.tooltip), "</title>\n");
    absl::StrAppend(&svg, "<text x=\"", Num(kLabelX + (r.off_path ? 8 : 0)),
                    "\" y=\"", Num(mid + 4), "\"",
                    r.off_path ? " font-style=\"italic\" fill=\"#5D4037\""
                               : " fill=\"#212121\"",
                    ">", SvgText(r.label), "</text>\n");
    double bar_end = kChartX0;
    for (const Segment& s : r.segments) {
      const double x = x_of(s.begin);
      const double w = std::max(1.0, x_of(s.end) - x);
      bar_end = std::max(bar_end, x + w);
      absl::StrAppend(
          &svg, "<rect x=\"", Num(x), "\" y=\"", Num(mid - s.height / 2),
          "\" width=\"", Num(w), "\" height=\"", Num(s.height), "\" fill=\"",
          s.color, "\"",
          r.off_path ? " stroke=\"#5D4037\" stroke-width=\"0.8\" "
                       "stroke-dasharray=\"3,2\""
                     : "",
          "><title>",
          SvgText(absl::StrCat(s.name, ": ", MsText(s.end - s.begin))),
          "</title></rect>\n");
    }
    for (const Segment& s : r.under) {
      const double x = x_of(s.begin);
      const double w = std::max(1.0, x_of(s.end) - x);
      absl::StrAppend(
          &svg, "<rect x=\"", Num(x), "\" y=\"", Num(mid + kThick / 2 + 1),
          "\" width=\"", Num(w), "\" height=\"", Num(s.height), "\" fill=\"",
          s.color, "\"><title>",
          SvgText(absl::StrCat(s.name, ": ", MsText(s.end - s.begin))),
          "</title></rect>\n");
    }
    for (const Marker& m : r.markers) {
      const double x = x_of(m.at);
      bar_end = std::max(bar_end, x + 5);
      DrawMarker(m.failure, x, mid, m.tooltip, &svg);
    }
    if (!r.duration.empty()) {
      absl::StrAppend(&svg, "<text x=\"", Num(bar_end + 4), "\" y=\"",
                      Num(mid + 4), "\" font-size=\"11\" fill=\"#616161\">",
                      SvgText(r.duration), "</text>\n");
    }
    absl::StrAppend(&svg, "</g>\n");
  };

  if (!off_rows.empty()) {
    section(off_header_y,
            "Off the critical path: prefetch and prevalidation jobs");
    for (size_t i = 0; i < off_rows.size(); ++i)
      draw_row(off_rows[i], off_header_y + kRowH * (i + 1));
  }
  section(requests_header_y, "Requests");
  if (rows.empty()) {
    absl::StrAppend(&svg, "<text x=\"", Num(kLabelX), "\" y=\"",
                    Num(rows_y + 15),
                    "\" fill=\"#757575\">no requests</text>\n");
  }
  for (size_t i = 0; i < rows.size(); ++i)
    draw_row(rows[i], rows_y + kRowH * i);

  // Legend.
  absl::StrAppend(&svg, "<g font-size=\"12\" fill=\"#212121\">\n");
  for (size_t i = 0; i < legend.size(); ++i) {
    const auto [x, ly2] = legend_xy[i];
    const LegendItem& item = legend[i];
    if (item.shape == kDiamond || item.shape == kCross) {
      DrawMarker(item.shape == kCross, x + 6, ly2 - 4, item.name, &svg);
    } else {
      absl::StrAppend(&svg, "<rect x=\"", Num(x), "\" y=\"", Num(ly2 - 10),
                      "\" width=\"12\" height=\"12\" fill=\"", item.color, "\"",
                      item.shape == kDashedBar
                          ? " stroke=\"#5D4037\" stroke-width=\"0.8\""
                            " stroke-dasharray=\"3,2\""
                          : "",
                      "/>\n");
    }
    absl::StrAppend(&svg, "<text x=\"", Num(x + 16), "\" y=\"", Num(ly2), "\">",
                    SvgText(item.name), "</text>\n");
  }
  absl::StrAppend(&svg, "</g>\n</svg>\n");
  return svg;
}

}  // namespace net
