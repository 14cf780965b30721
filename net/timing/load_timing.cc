#include "net/timing/load_timing.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

std::string Ms(absl::Duration d) {
  return absl::StrFormat("%.3f", absl::ToDoubleMilliseconds(d));
}

// The W3C points in order. For a reused connection the lookup and connect
// points collapse onto fetchStart; otherwise a point that did not happen
// stays null.
struct Point {
  const char* name;
  TimeTicks value;
};

std::vector<Point> OrderedPoints(const LoadTiming& t) {
  TimeTicks fetch = t.fetch_start.is_null() ? t.start : t.fetch_start;
  auto or_fetch = [&](TimeTicks v) {
    return v.is_null() && t.socket_reused ? fetch : v;
  };
  std::vector<Point> points = {
      {"startTime", t.start},
      {"fetchStart", fetch},
      {"domainLookupStart", or_fetch(t.dns_start)},
      {"domainLookupEnd", or_fetch(t.dns_end)},
      {"connectStart", or_fetch(t.connect_start)},
  };
  if (t.https)
    points.push_back({"secureConnectionStart", or_fetch(t.ssl_start)});
  points.push_back({"connectEnd", or_fetch(t.connect_end)});
  points.push_back({"requestStart", t.request_start});
  points.push_back({"responseStart", t.response_start});
  points.push_back({"responseEnd", t.response_end});
  return points;
}

}  // namespace

const char* SessionUseToString(SessionUse use) {
  switch (use) {
    case SessionUse::kNone:
      return "";
    case SessionUse::kNew:
      return "new";
    case SessionUse::kReused:
      return "reused";
    case SessionUse::kPooled:
      return "pooled";
  }
  return "";
}

const char* DbscRoleToString(DbscRole role) {
  switch (role) {
    case DbscRole::kNone:
      return "";
    case DbscRole::kRequest:
      return "request";
    case DbscRole::kRegistering:
      return "registering";
    case DbscRole::kRegistration:
      return "registration";
    case DbscRole::kRefresh:
      return "refresh";
  }
  return "";
}

const char* DbscOutcomeToString(DbscOutcome outcome) {
  switch (outcome) {
    case DbscOutcome::kNone:
      return "";
    case DbscOutcome::kStarted:
      return "started";
    case DbscOutcome::kRegistered:
      return "registered";
    case DbscOutcome::kRefreshed:
      return "refreshed";
    case DbscOutcome::kChallenged:
      return "challenged";
    case DbscOutcome::kEnded:
      return "ended";
    case DbscOutcome::kFailed:
      return "failed";
    case DbscOutcome::kSkipped:
      return "skipped";
    case DbscOutcome::kBound:
      return "bound";
  }
  return "";
}

// ",\"bundle\":{...}": cert.bundle, times from the prefetch trigger.
static void AppendCertBundle(const LoadTiming& t, std::string* json) {
  const CertBundleTrace& b = t.cert_bundle;
  auto since_trigger = [&](TimeTicks v) {
    return v.is_null() || b.started.is_null() ? std::string("null")
                                              : Ms(v - b.started);
  };
  absl::StrAppend(json, ",\"bundle\":{\"used\":", b.used ? "true" : "false",
                  ",\"source\":\"", b.source, "\",\"via\":\"",
                  JsonEscape(b.via), "\",\"bytes\":", b.bytes,
                  ",\"fromCache\":", b.from_cache ? "true" : "false",
                  ",\"prevalidated\":", b.prevalidated ? "true" : "false",
                  ",\"fetchMs\":", since_trigger(b.received),
                  ",\"readyMs\":", since_trigger(b.ready),
                  ",\"ageMs\":", Ms(b.age), ",\"rejected\":[");
  for (size_t i = 0; i < b.rejected.size(); ++i)
    absl::StrAppend(json, i ? "," : "", "\"", JsonEscape(b.rejected[i]), "\"");
  *json += "]";
  if (!b.not_used_because.empty())
    absl::StrAppend(json, ",\"notUsedBecause\":\"",
                    JsonEscape(b.not_used_because), "\"");
  *json += "}";
}

// A JSON array of strings.
static std::string JsonStrings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i)
    absl::StrAppend(&out, i ? "," : "", "\"", JsonEscape(items[i]), "\"");
  return out + "]";
}

static std::string JsonAddresses(const std::vector<IPAddress>& addresses) {
  std::vector<std::string> text;
  for (const IPAddress& a : addresses) text.push_back(a.ToString());
  return JsonStrings(text);
}

// ",\"httpsRecord\":{...}": dns.httpsRecord, when the lookup asked.
static void AppendHttpsRecord(const LoadTiming& t, std::string* json) {
  const HttpsRecordInfo& h = t.dns_https;
  if (h.status == HttpsRecordStatus::kNotQueried) return;
  absl::StrAppend(json, ",\"httpsRecord\":{\"status\":\"",
                  HttpsRecordStatusToString(h.status), "\",\"source\":\"",
                  DnsSourceToString(h.source), "\"");
  if (h.used()) {
    absl::StrAppend(
        json, ",\"priority\":", h.priority, ",\"target\":\"",
        JsonEscape(h.target), "\",\"alpn\":", JsonStrings(h.alpn),
        ",\"noDefaultAlpn\":", h.no_default_alpn ? "true" : "false",
        ",\"port\":", h.port ? absl::StrCat(*h.port) : std::string("null"),
        ",\"ipv4hint\":", JsonAddresses(h.ipv4_hints),
        ",\"ipv6hint\":", JsonAddresses(h.ipv6_hints),
        ",\"ech\":", h.ech_config_list.empty() ? "false" : "true",
        ",\"records\":", h.records, ",\"addressesFrom\":\"",
        h.addresses_from_hints ? "hints" : "a_aaaa", "\"");
  }
  absl::StrAppend(json, ",\"aliasChain\":", JsonStrings(h.alias_chain),
                  ",\"waitMs\":", Ms(h.wait), ",\"detail\":\"",
                  JsonEscape(h.detail), "\"}");
}

std::string LoadTimingToJson(const LoadTiming& t) {
  std::string json = "{";
  absl::StrAppend(&json, "\"name\":\"", JsonEscape(t.url), "\"");
  // Points that did not happen (a failed request) are null.
  for (const Point& p : OrderedPoints(t)) {
    if (p.value.is_null()) {
      absl::StrAppend(&json, ",\"", p.name, "\":null");
    } else {
      absl::StrAppend(&json, ",\"", p.name, "\":", Ms(p.value - t.start));
    }
  }
  if (!t.failed_at.is_null())
    absl::StrAppend(&json, ",\"failedAt\":", Ms(t.failed_at - t.start));
  absl::StrAppend(&json, ",\"method\":\"", t.method, "\"");
  absl::StrAppend(&json, ",\"priority\":\"",
                  RequestPriorityToString(t.priority), "\"");
  absl::StrAppend(&json, ",\"status\":", t.status_code);
  absl::StrAppend(&json, ",\"error\":\"", ErrorToShortString(t.net_error),
                  "\"");
  absl::StrAppend(&json, ",\"dns\":{\"source\":\"",
                  DnsSourceToString(t.dns_source), "\"");
  AppendHttpsRecord(t, &json);
  json += "}";
  absl::StrAppend(&json, ",\"remoteAddress\":\"", JsonEscape(t.remote_address),
                  "\"");
  absl::StrAppend(&json, ",\"proxy\":\"", JsonEscape(t.proxy), "\"");
  absl::StrAppend(
      &json, ",\"socketReused\":", t.socket_reused ? "true" : "false",
      ",\"socketPreconnected\":", t.socket_preconnected ? "true" : "false");
  {
    const TcpFastOpenInfo& f = t.tcp_fast_open;
    absl::StrAppend(&json, ",\"tcp\":{\"fastOpen\":\"",
                    TcpFastOpenOutcomeToString(f.outcome), "\"");
    if (f.mode != TcpFastOpenMode::kOff) {
      absl::StrAppend(&json, ",\"fastOpenMode\":\"",
                      TcpFastOpenModeToString(f.mode),
                      "\",\"synDataBytes\":", f.syn_data_bytes,
                      ",\"fastOpenDetail\":\"", JsonEscape(f.detail), "\"");
    }
    json += "}";
  }
  if (t.spdy.used) {
    absl::StrAppend(
        &json, ",\"spdy\":{\"streamId\":", t.spdy.stream_id, ",\"session\":\"",
        SessionUseToString(t.spdy.session), "\",\"sessionId\":\"",
        JsonEscape(t.spdy.session_id),
        "\",\"credentialSlot\":", t.spdy.credential_slot,
        ",\"credentialSent\":", t.spdy.credential_sent ? "true" : "false",
        ",\"retry\":\"", JsonEscape(t.spdy.retry), "\"}");
  }
  if (t.h2.used) {
    absl::StrAppend(&json, ",\"h2\":{\"streamId\":", t.h2.stream_id,
                    ",\"session\":\"", SessionUseToString(t.h2.session),
                    "\",\"sessionId\":\"", JsonEscape(t.h2.session_id),
                    "\",\"settings\":{");
    for (size_t i = 0; i < t.h2.server_settings.size(); ++i) {
      absl::StrAppend(&json, i ? "," : "", "\"",
                      JsonEscape(t.h2.server_settings[i].first),
                      "\":", t.h2.server_settings[i].second);
    }
    absl::StrAppend(
        &json, "},\"retry\":\"", JsonEscape(t.h2.retry),
        "\",\"coalesced\":", t.h2.coalesced ? "true" : "false",
        ",\"coalescedBy\":\"", JsonEscape(t.h2.coalesced_by),
        "\",\"coalescedOnto\":\"", JsonEscape(t.h2.coalesced_onto),
        "\",\"notCoalescedReason\":\"", JsonEscape(t.h2.not_coalesced_reason),
        "\",\"weight\":", t.h2.weight, ",\"dependsOn\":", t.h2.depends_on, "}");
  }
  if (t.quic.used || !t.quic.fallback.empty()) {
    const QuicTrace& q = t.quic;
    absl::StrAppend(
        &json, ",\"quic\":{\"used\":", q.used ? "true" : "false",
        ",\"version\":", q.version, ",\"session\":\"",
        SessionUseToString(q.session), "\",\"streamId\":", q.stream_id,
        ",\"handshakeMs\":", Ms(q.handshake),
        ",\"packetsSent\":", q.packets_sent,
        ",\"packetsReceived\":", q.packets_received,
        ",\"packetsLost\":", q.packets_lost, ",\"zeroRtt\":\"",
        JsonEscape(q.zero_rtt), "\",\"zeroRttReason\":\"",
        JsonEscape(q.zero_rtt_reason),
        "\",\"sentEarly\":", q.sent_early ? "true" : "false",
        ",\"handshakeRtts\":",
        q.handshake_rtts < 0 ? std::string("null")
                             : absl::StrCat(q.handshake_rtts),
        ",\"addressToken\":\"", JsonEscape(q.address_token), "\"",
        ",\"closeReason\":\"", JsonEscape(q.close_reason), "\",\"fallback\":\"",
        JsonEscape(q.fallback), "\",\"altSvc\":\"", JsonEscape(q.alt_svc),
        "\",\"httpsRecord\":\"", JsonEscape(q.https_record), "\"}");
  }
  if (t.dbsc.role != DbscRole::kNone) {
    const DbscTrace& d = t.dbsc;
    auto ms_or_null = [](const std::optional<absl::Duration>& v) {
      return v ? Ms(*v) : std::string("null");
    };
    absl::StrAppend(&json, ",\"dbsc\":{\"role\":\"", DbscRoleToString(d.role),
                    "\",\"sessionId\":\"", JsonEscape(d.session_id),
                    "\",\"outcome\":\"", DbscOutcomeToString(d.outcome),
                    "\",\"alg\":\"", d.alg, "\",\"keySource\":\"", d.key_source,
                    "\",\"registeredMs\":", ms_or_null(d.registered),
                    ",\"refreshMs\":", ms_or_null(d.refresh),
                    ",\"deferredMs\":", ms_or_null(d.deferred),
                    ",\"detail\":\"", JsonEscape(d.detail), "\"}");
  }
  absl::StrAppend(&json, ",\"encodedBodySize\":", t.body_bytes);
  absl::StrAppend(&json, ",\"headerSize\":", t.header_bytes);
  if (t.https) {
    const SSLInfo& s = t.ssl;
    absl::StrAppend(
        &json, ",\"tls\":{\"version\":\"", s.version, "\",\"cipher\":\"",
        s.cipher, "\",\"group\":\"", s.group, "\",\"alpn\":\"",
        JsonEscape(s.alpn), "\",\"resumed\":", s.resumed ? "true" : "false",
        ",\"falseStart\":", s.false_start ? "true" : "false",
        ",\"waitedForSession\":", s.waited_for_session ? "true" : "false",
        ",\"sessionWaitMs\":", Ms(s.session_wait),
        s.snap_start == SnapStartOutcome::kNone
            ? std::string()
            : absl::StrCat(",\"snapStart\":\"",
                           SnapStartOutcomeToString(s.snap_start),
                           "\",\"snapStartDetail\":\"",
                           JsonEscape(s.snap_start_detail), "\""),
        t.handshake_choice.chosen.empty()
            ? std::string()
            : absl::StrCat(
                  ",\"handshake\":{\"chosen\":\"", t.handshake_choice.chosen,
                  "\",\"rtts\":", t.handshake_choice.rtts, ",\"runnerUp\":",
                  t.handshake_choice.runner_up.empty()
                      ? std::string("null")
                      : absl::StrCat("\"", t.handshake_choice.runner_up, "\""),
                  ",\"runnerUpRtts\":", t.handshake_choice.runner_up_rtts, "}"),
        ",\"earlyData\":\"", EarlyDataStateToString(s.early_data),
        "\",\"earlyDataReason\":\"", JsonEscape(s.early_data_reason),
        "\",\"ech\":\"", EchOutcomeToString(s.ech), "\"",
        s.ech_retry == EchRetry::kNone
            ? std::string()
            : absl::StrCat(",\"echRetry\":\"", EchRetryToString(s.ech_retry),
                           "\""),
        ",\"echDetail\":\"", JsonEscape(s.ech_detail), "\",\"sniOnWire\":\"",
        JsonEscape(s.sni_on_wire), "\",\"certCompression\":",
        s.cert_compression.algorithm.empty()
            ? std::string("null")
            : absl::StrCat("{\"algorithm\":\"", s.cert_compression.algorithm,
                           "\",\"compressedBytes\":",
                           s.cert_compression.compressed_bytes,
                           ",\"uncompressedBytes\":",
                           s.cert_compression.uncompressed_bytes, "}"),
        "}");
    absl::StrAppend(&json, ",\"obc\":{\"source\":\"",
                    ObcSourceToString(s.obc.source), "\"");
    if (s.obc.source != ObcSource::kNone) {
      absl::StrAppend(&json, ",\"algorithm\":\"",
                      KeyAlgorithmToString(s.obc.algorithm),
                      "\",\"ms\":", Ms(s.obc.elapsed),
                      ",\"generationMs\":", Ms(s.obc.generation_time));
    }
    json += "}";
    const CertVerifyResult& v = s.cert_verify;
    absl::StrAppend(&json, ",\"cert\":{\"source\":\"",
                    t.cert_bundle.used ? "prefetch"
                    : s.resumed        ? "session"
                                       : "handshake",
                    "\",\"verifyResult\":\"", ErrorToShortString(v.error), "\"",
                    v.detail.empty() ? "" : ",\"verifyDetail\":\"",
                    v.detail.empty() ? std::string()
                                     : absl::StrCat(JsonEscape(v.detail), "\""),
                    ",\"verifyMs\":", Ms(v.verify_duration),
                    ",\"revocation\":{\"source\":\"",
                    RevocationSourceToString(v.revocation_source),
                    "\",\"outcome\":\"",
                    RevocationOutcomeToString(v.revocation_outcome),
                    "\",\"ms\":", Ms(v.revocation_duration), ",\"checks\":[");
    bool first_check = true;
    for (const RevocationCheck& c : v.revocation_checks) {
      absl::StrAppend(&json, first_check ? "" : ",", "{\"depth\":", c.depth,
                      ",\"method\":\"", c.method, "\",\"source\":\"",
                      RevocationSourceToString(c.source), "\",\"outcome\":\"",
                      RevocationOutcomeToString(c.outcome), "\"");
      if (!c.start.is_null() && !c.end.is_null()) {
        absl::StrAppend(&json, ",\"startMs\":", Ms(c.start - t.start),
                        ",\"endMs\":", Ms(c.end - t.start));
      }
      if (!c.detail.empty())
        absl::StrAppend(&json, ",\"detail\":\"", JsonEscape(c.detail), "\"");
      json += "}";
      first_check = false;
    }
    json += "]}";
    if (t.cert_bundle.present) AppendCertBundle(t, &json);
    json += "}";
  }
  json += "}";
  return json;
}

std::string LoadTimingsToTraceEvents(const std::vector<LoadTiming>& timings) {
  // Timestamps are absolute monotonic microseconds, relative to the
  // earliest request, so parallel requests line up.
  TimeTicks origin;
  for (const LoadTiming& t : timings) {
    if (!t.start.is_null() && (origin.is_null() || t.start < origin))
      origin = t.start;
    // A prefetch job started before the requests that used it.
    const TimeTicks job =
        t.cert_bundle.present ? t.cert_bundle.started : TimeTicks();
    if (!job.is_null() && job < origin) origin = job;
  }
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  bool first = true;
  auto event = [&](int tid, const char* name, TimeTicks begin, TimeTicks end,
                   const std::string& args) {
    if (begin.is_null() || end.is_null() || end < begin) return;
    if (!first) out += ",";
    first = false;
    absl::StrAppend(&out, "{\"name\":\"", name,
                    "\",\"cat\":\"net\",\"ph\":\"X\",\"pid\":1,\"tid\":", tid,
                    ",\"ts\":", (begin - origin) / absl::Microseconds(1),
                    ",\"dur\":", (end - begin) / absl::Microseconds(1),
                    ",\"args\":{", args, "}}");
  };
  // The prefetch track (tid 0): each bundle job once, however many
  // requests used it.
  std::set<std::pair<std::string, int64_t>> jobs_seen;
  for (const LoadTiming& t : timings) {
    const CertBundleTrace& b = t.cert_bundle;
    if (!b.present || b.started.is_null()) continue;
    if (!jobs_seen.insert({b.via, (b.started - origin) / absl::Microseconds(1)})
             .second)
      continue;
    if (jobs_seen.size() == 1) {
      if (!first) out += ",";
      first = false;
      out +=
          "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
          "\"args\":{\"name\":\"prefetch (bundles, prevalidation)\"}}";
    }
    event(0, "bundle_fetch", b.started, b.received,
          absl::StrCat("\"source\":\"", b.source, "\",\"via\":\"",
                       JsonEscape(b.via), "\",\"bytes\":", b.bytes,
                       ",\"fromCache\":", b.from_cache ? "true" : "false"));
    event(0, b.prevalidated ? "prevalidation" : "verification", b.received,
          b.ready, "");
  }
  int tid = 0;
  for (const LoadTiming& t : timings) {
    ++tid;
    if (!first) out += ",";
    first = false;
    absl::StrAppend(
        &out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":", tid,
        ",\"args\":{\"name\":\"", JsonEscape(t.url), "\"}}");
    TimeTicks end = !t.response_end.is_null() ? t.response_end
                    : !t.failed_at.is_null()  ? t.failed_at
                                              : t.response_start;
    event(tid, "request", t.start, end,
          absl::StrCat("\"url\":\"", JsonEscape(t.url),
                       "\",\"status\":", t.status_code, ",\"error\":\"",
                       ErrorToShortString(t.net_error), "\""));
    event(tid, "dns", t.dns_start, t.dns_end,
          absl::StrCat("\"source\":\"", DnsSourceToString(t.dns_source), "\""));
    // A phase cut short by a failure ends where the request failed.
    auto end_or_failed = [&](TimeTicks v) {
      return v.is_null() ? t.failed_at : v;
    };
    event(tid, "tcp_connect", t.connect_start,
          end_or_failed(t.ssl_start.is_null() ? t.connect_end : t.ssl_start),
          "");
    if (t.https) {
      event(tid, "tls_handshake", t.ssl_start, end_or_failed(t.connect_end),
            absl::StrCat(
                "\"version\":\"", t.ssl.version,
                "\",\"resumed\":", t.ssl.resumed ? "true" : "false",
                ",\"falseStart\":", t.ssl.false_start ? "true" : "false",
                ",\"earlyData\":\"", EarlyDataStateToString(t.ssl.early_data),
                "\",\"ech\":\"", EchOutcomeToString(t.ssl.ech), "\"",
                t.ssl.snap_start == SnapStartOutcome::kNone
                    ? std::string()
                    : absl::StrCat(",\"snapStart\":\"",
                                   SnapStartOutcomeToString(t.ssl.snap_start),
                                   "\"")));
    }
    event(tid, "request_sent_to_first_byte", t.request_start, t.response_start,
          "");
    event(tid, "response_body", t.response_start, t.response_end,
          absl::StrCat("\"bytes\":", t.body_bytes));
  }
  out += "]}";
  return out;
}

}  // namespace net
