#include "net/timing/phases.h"

#include <algorithm>
#include <initializer_list>

namespace net {

RequestPhases ComputeRequestPhases(const LoadTiming& t) {
  RequestPhases p;
  p.start = t.start;
  p.end = t.start;
  if (t.start.is_null()) return p;

  TimeTicks last = t.start;
  for (TimeTicks v : {t.fetch_start, t.dns_start, t.dns_end, t.connect_start,
                      t.ssl_start, t.connect_end, t.request_start,
                      t.response_start, t.response_end, t.failed_at}) {
    if (!v.is_null() && v > last) last = v;
  }
  const TimeTicks end = !t.response_end.is_null() ? t.response_end
                        : !t.failed_at.is_null()  ? t.failed_at
                                                  : last;
  p.end = std::max(end, t.start);
  p.failed = t.response_end.is_null();

  TimeTicks cursor = t.start;
  PhaseInterval* last_phase = nullptr;
  // The phase runs from the cursor to |to|; a phase whose end point is
  // missing (the failure cut it short) runs to the end.
  auto advance = [&](PhaseInterval* phase, TimeTicks to) {
    if (to.is_null()) to = p.end;
    phase->present = true;
    phase->begin = cursor;
    phase->end = std::min(std::max(to, cursor), p.end);
    cursor = phase->end;
    last_phase = phase;
  };

  TimeTicks first_network = !t.dns_start.is_null()       ? t.dns_start
                            : !t.connect_start.is_null() ? t.connect_start
                                                         : t.request_start;
  advance(&p.blocked, first_network.is_null() ? p.end : first_network);
  if (!t.dns_start.is_null()) advance(&p.dns, t.dns_end);
  if (!t.connect_start.is_null()) {
    advance(&p.connect, t.connect_end);
    if (t.https && !t.ssl_start.is_null()) {
      p.ssl.present = true;
      p.ssl.begin =
          std::min(std::max(t.ssl_start, p.connect.begin), p.connect.end);
      p.ssl.end = p.connect.end;
    }
  }
  if (!t.request_start.is_null()) {
    advance(&p.send, t.request_start);
    advance(&p.wait, t.response_start);
  }
  if (!t.response_start.is_null()) advance(&p.receive, t.response_end);
  // Whatever is left (points missing in the middle) belongs to the last
  // phase reached, so that the phases tile [start, end].
  if (cursor < p.end) {
    last_phase->end = p.end;
    if (last_phase == &p.connect && p.ssl.present) p.ssl.end = p.end;
  }
  return p;
}

CurlPoints ComputeCurlPoints(const RequestPhases& p, bool https) {
  CurlPoints c;
  if (p.start.is_null()) return c;
  auto end_or = [](const PhaseInterval& phase, TimeTicks previous) {
    return phase.present ? phase.end : previous;
  };
  // No lookup: done when the connect began, or (a reused connection)
  // before anything happened, as curl's near-zero times there.
  c.namelookup = p.dns.present       ? p.dns.end
                 : p.connect.present ? p.connect.begin
                                     : p.start;
  c.connect = p.connect.present ? (p.ssl.present ? p.ssl.begin : p.connect.end)
                                : c.namelookup;
  const TimeTicks secured = end_or(p.connect, c.connect);
  if (https) c.appconnect = secured;
  c.pretransfer = end_or(p.send, secured);
  c.starttransfer = end_or(p.wait, c.pretransfer);
  c.total = p.end;
  return c;
}

std::string ToValidUtf8(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    size_t len = 0;
    uint32_t min = 0;
    if (c < 0x80) {
      out.push_back(c);
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      min = 0x10000;
    }
    bool ok = len > 0 && i + len <= s.size();
    uint32_t cp = ok ? (c & (0x7F >> len)) : 0;
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) {
        ok = false;
      } else {
        cp = (cp << 6) | (cc & 0x3F);
      }
    }
    if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)))
      ok = false;
    if (ok) {
      out.append(s.data() + i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace net
