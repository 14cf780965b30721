#include "net/timing/har.h"

#include <map>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "cert/cert_verifier.h"
#include "net/base/net_errors.h"
#include "net/base/url.h"
#include "net/timing/phases.h"

namespace net {
namespace {

bool IsValidUtf8(absl::string_view s) { return ToValidUtf8(s) == s; }

// A small ordered JSON tree, printed with two-space indentation.
class Json {
 public:
  static Json Object() { return Json(kObject); }
  static Json Array() { return Json(kArray); }
  static Json Str(absl::string_view s) {
    Json j(kLiteral);
    j.literal_ = absl::StrCat("\"", JsonEscape(ToValidUtf8(s)), "\"");
    return j;
  }
  static Json Int(int64_t v) {
    Json j(kLiteral);
    j.literal_ = absl::StrCat(v);
    return j;
  }
  static Json Bool(bool v) {
    Json j(kLiteral);
    j.literal_ = v ? "true" : "false";
    return j;
  }
  // Ms is a duration in milliseconds with microsecond precision, without
  // trailing zeros ("41", "0.25").
  static Json Ms(absl::Duration d) {
    Json j(kLiteral);
    const int64_t us = absl::ToInt64Microseconds(d);
    std::string s =
        absl::StrFormat("%s%d.%03d", us < 0 ? "-" : "",
                        (us < 0 ? -us : us) / 1000, (us < 0 ? -us : us) % 1000);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    j.literal_ = s == "-0" ? "0" : s;
    return j;
  }

  Json& Set(absl::string_view key, Json value) {
    members_.emplace_back(std::string(key), std::move(value));
    return members_.back().second;
  }
  Json& Add(Json value) {
    members_.emplace_back(std::string(), std::move(value));
    return members_.back().second;
  }

  void Print(int indent, std::string* out) const {
    if (kind_ == kLiteral) {
      *out += literal_;
      return;
    }
    const char* open = kind_ == kObject ? "{" : "[";
    const char* close = kind_ == kObject ? "}" : "]";
    if (members_.empty()) {
      absl::StrAppend(out, open, close);
      return;
    }
    *out += open;
    const std::string pad(2 * (indent + 1), ' ');
    for (size_t i = 0; i < members_.size(); ++i) {
      absl::StrAppend(out, i ? ",\n" : "\n", pad);
      if (kind_ == kObject)
        absl::StrAppend(out, "\"", JsonEscape(members_[i].first), "\": ");
      members_[i].second.Print(indent + 1, out);
    }
    absl::StrAppend(out, "\n", std::string(2 * indent, ' '), close);
  }

 private:
  enum Kind { kLiteral, kObject, kArray };
  explicit Json(Kind kind) : kind_(kind) {}
  Kind kind_;
  std::string literal_;
  std::vector<std::pair<std::string, Json>> members_;
};

Json NameValues(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Json list = Json::Array();
  for (const auto& [name, value] : pairs) {
    Json& item = list.Add(Json::Object());
    item.Set("name", Json::Str(name));
    item.Set("value", Json::Str(value));
  }
  return list;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// application/x-www-form-urlencoded decoding: %XX and '+'.
std::string PercentDecode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 &&
        HexDigit(s[i + 2]) >= 0) {
      out.push_back(
          static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i] == '+' ? ' ' : s[i]);
    }
  }
  return out;
}

// The URL without its fragment (HAR: "fragments are not included").
std::string UrlWithoutFragment(const std::string& url) {
  return url.substr(0, url.find('#'));
}

std::vector<std::pair<std::string, std::string>> QueryString(
    const std::string& url) {
  std::vector<std::pair<std::string, std::string>> params;
  const std::string u = UrlWithoutFragment(url);
  const size_t q = u.find('?');
  if (q == std::string::npos) return params;
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(u).substr(q + 1), '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    params.emplace_back(PercentDecode(part.substr(0, eq)),
                        eq == absl::string_view::npos
                            ? ""
                            : PercentDecode(part.substr(eq + 1)));
  }
  return params;
}

// "Cookie: a=1; b=2" -> [{a,1},{b,2}].
void AddRequestCookies(const std::string& header, Json* cookies) {
  for (absl::string_view part : absl::StrSplit(header, ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    Json& c = cookies->Add(Json::Object());
    c.Set("name", Json::Str(part.substr(0, eq)));
    c.Set("value",
          Json::Str(eq == absl::string_view::npos ? absl::string_view()
                                                  : part.substr(eq + 1)));
  }
}

// Set-Cookie (RFC 6265 syntax) -> a HAR cookie with its attributes.
void AddResponseCookie(const std::string& header, const HarOptions& options,
                       Json* cookies) {
  std::vector<absl::string_view> parts = absl::StrSplit(header, ';');
  absl::string_view pair = absl::StripAsciiWhitespace(parts[0]);
  const size_t eq = pair.find('=');
  if (eq == absl::string_view::npos) return;  // not a cookie (RFC 6265 5.2)
  Json& c = cookies->Add(Json::Object());
  c.Set("name", Json::Str(absl::StripAsciiWhitespace(pair.substr(0, eq))));
  c.Set("value", Json::Str(absl::StripAsciiWhitespace(pair.substr(eq + 1))));
  bool http_only = false, secure = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view attr = absl::StripAsciiWhitespace(parts[i]);
    const size_t aeq = attr.find('=');
    const std::string name =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(attr.substr(0, aeq)));
    const absl::string_view value =
        aeq == absl::string_view::npos
            ? absl::string_view()
            : absl::StripAsciiWhitespace(attr.substr(aeq + 1));
    if (name == "path" || name == "domain") {
      c.Set(name, Json::Str(value));
    } else if (name == "expires") {
      absl::Time when;
      std::string err;
      for (const char* format :
           {"%a, %d %b %Y %H:%M:%S GMT", "%a, %d-%b-%Y %H:%M:%S GMT",
            "%A, %d-%b-%y %H:%M:%S GMT"}) {
        if (absl::ParseTime(format, std::string(value), absl::UTCTimeZone(),
                            &when, &err)) {
          c.Set("expires",
                Json::Str(FormatHarDateTime(when, options.time_zone)));
          break;
        }
      }
    } else if (name == "httponly") {
      http_only = true;
    } else if (name == "secure") {
      secure = true;
    }
  }
  c.Set("httpOnly", Json::Bool(http_only));
  c.Set("secure", Json::Bool(secure));
}

std::string HeaderValue(
    const std::vector<std::pair<std::string, std::string>>& headers,
    absl::string_view name) {
  for (const auto& [n, v] : headers)
    if (absl::EqualsIgnoreCase(n, name)) return v;
  return "";
}

// "[::1]:443" -> "::1"; "10.0.0.1:443" -> "10.0.0.1".
std::string IpOf(const std::string& address) {
  if (absl::StartsWith(address, "[")) {
    const size_t close = address.find(']');
    return address.substr(
        1, close == std::string::npos ? std::string::npos : close - 1);
  }
  const size_t colon = address.rfind(':');
  if (colon != std::string::npos && address.find(':') == colon)
    return address.substr(0, colon);
  return address;
}

std::string HttpVersionFromAlpn(const std::string& alpn) {
  if (alpn.empty() || alpn == "http/1.1") return "HTTP/1.1";
  if (alpn == "h2") return "HTTP/2";
  return alpn;  // "spdy/3": what Chrome's HAR said for SPDY
}

// A phase's HAR value: its length, or -1 if it did not apply.
Json Phase(const PhaseInterval& p) {
  return p.present ? Json::Ms(p.duration()) : Json::Int(-1);
}
// send, wait and receive are required and non-negative.
Json RequiredPhase(const PhaseInterval& p) { return Json::Ms(p.duration()); }

Json Timings(const RequestPhases& p) {
  Json timings = Json::Object();
  timings.Set("blocked", Phase(p.blocked));
  timings.Set("dns", Phase(p.dns));
  timings.Set("connect", Phase(p.connect));
  timings.Set("ssl", Phase(p.ssl));
  timings.Set("send", RequiredPhase(p.send));
  timings.Set("wait", RequiredPhase(p.wait));
  timings.Set("receive", RequiredPhase(p.receive));
  return timings;
}

// Sets |key| to the milliseconds from |origin| to |v|, if both happened.
void SetSince(Json* object, absl::string_view key, TimeTicks origin,
              TimeTicks v) {
  if (!v.is_null() && !origin.is_null()) object->Set(key, Json::Ms(v - origin));
}

void AddStackFacts(const LoadTiming& t, Json* entry) {
  entry->Set("_priority", Json::Str(RequestPriorityToString(t.priority)));
  entry->Set("_dnsSource", Json::Str(DnsSourceToString(t.dns_source)));
  if (t.dns_https.status != HttpsRecordStatus::kNotQueried) {
    const HttpsRecordInfo& h = t.dns_https;
    Json& https = entry->Set("_httpsRecord", Json::Object());
    https.Set("status", Json::Str(HttpsRecordStatusToString(h.status)));
    if (h.used()) {
      https.Set("priority", Json::Int(h.priority));
      https.Set("target", Json::Str(h.target));
      https.Set("port", Json::Int(h.port.value_or(0)));
      https.Set("ech", Json::Bool(!h.ech_config_list.empty()));
    }
    https.Set("detail", Json::Str(h.detail));
  }
  entry->Set("_socketReused", Json::Bool(t.socket_reused));
  if (t.spdy.used) {
    Json& spdy = entry->Set("_spdy", Json::Object());
    spdy.Set("streamId", Json::Int(t.spdy.stream_id));
    spdy.Set("session", Json::Str(SessionUseToString(t.spdy.session)));
    spdy.Set("sessionId", Json::Str(t.spdy.session_id));
    spdy.Set("credentialSlot", Json::Int(t.spdy.credential_slot));
    spdy.Set("credentialSent", Json::Bool(t.spdy.credential_sent));
  }
  if (t.h2.used) {
    Json& h2 = entry->Set("_h2", Json::Object());
    h2.Set("streamId", Json::Int(t.h2.stream_id));
    h2.Set("session", Json::Str(SessionUseToString(t.h2.session)));
    h2.Set("sessionId", Json::Str(t.h2.session_id));
    Json& settings = h2.Set("settings", Json::Object());
    for (const auto& [name, value] : t.h2.server_settings)
      settings.Set(name, Json::Int(value));
    h2.Set("retry", Json::Str(t.h2.retry));
    h2.Set("coalesced", Json::Bool(t.h2.coalesced));
    h2.Set("coalescedBy", Json::Str(t.h2.coalesced_by));
    h2.Set("coalescedOnto", Json::Str(t.h2.coalesced_onto));
    h2.Set("notCoalescedReason", Json::Str(t.h2.not_coalesced_reason));
    h2.Set("weight", Json::Int(t.h2.weight));
    h2.Set("dependsOn", Json::Int(t.h2.depends_on));
  }
  if (t.net_error != OK) {
    entry->Set("_error", Json::Str(ErrorToShortString(t.net_error)));
    entry->Set("_errorCode", Json::Int(t.net_error));
  }
  if (!t.https) return;
  const SSLInfo& s = t.ssl;
  Json& tls = entry->Set("_tls", Json::Object());
  tls.Set("version", Json::Str(s.version));
  tls.Set("cipher", Json::Str(s.cipher));
  tls.Set("group", Json::Str(s.group));
  tls.Set("alpn", Json::Str(s.alpn));
  tls.Set("resumed", Json::Bool(s.resumed));
  tls.Set("falseStart", Json::Bool(s.false_start));
  tls.Set("waitedForSession", Json::Bool(s.waited_for_session));
  tls.Set("sessionWaitMs", Json::Ms(s.session_wait));
  tls.Set("ech", Json::Str(EchOutcomeToString(s.ech)));
  if (s.ech_retry != EchRetry::kNone)
    tls.Set("echRetry", Json::Str(EchRetryToString(s.ech_retry)));
  tls.Set("sniOnWire", Json::Str(s.sni_on_wire));

  entry->Set("_certSource", Json::Str(t.cert_bundle.used ? "prefetch"
                                      : s.resumed        ? "session"
                                                         : "handshake"));
  const CertVerifyResult& v = s.cert_verify;
  Json& verify = entry->Set("_certVerify", Json::Object());
  verify.Set("result", Json::Str(ErrorToShortString(v.error)));
  verify.Set("ms", Json::Ms(v.verify_duration));
  Json& rev = entry->Set("_revocation", Json::Object());
  rev.Set("source", Json::Str(RevocationSourceToString(v.revocation_source)));
  rev.Set("outcome",
          Json::Str(RevocationOutcomeToString(v.revocation_outcome)));
  rev.Set("ms", Json::Ms(v.revocation_duration));
  Json& checks = rev.Set("checks", Json::Array());
  for (const RevocationCheck& c : v.revocation_checks) {
    Json& check = checks.Add(Json::Object());
    check.Set("depth", Json::Int(c.depth));
    check.Set("method", Json::Str(c.method));
    check.Set("source", Json::Str(RevocationSourceToString(c.source)));
    check.Set("outcome", Json::Str(RevocationOutcomeToString(c.outcome)));
    if (!c.start.is_null() && !c.end.is_null()) {
      SetSince(&check, "startedMs", t.start, c.start);
      SetSince(&check, "endMs", t.start, c.end);
    }
    if (!c.detail.empty()) check.Set("detail", Json::Str(c.detail));
  }

  if (s.snap_start != SnapStartOutcome::kNone) {
    Json& snap = entry->Set("_snapStart", Json::Object());
    snap.Set("state", Json::Str(SnapStartOutcomeToString(s.snap_start)));
    snap.Set("detail", Json::Str(s.snap_start_detail));
  }

  Json& obc = entry->Set("_obc", Json::Object());
  obc.Set("source", Json::Str(ObcSourceToString(s.obc.source)));
  if (s.obc.source != ObcSource::kNone) {
    obc.Set("algorithm", Json::Str(KeyAlgorithmToString(s.obc.algorithm)));
    obc.Set("ms", Json::Ms(s.obc.elapsed));
    obc.Set("generationMs", Json::Ms(s.obc.generation_time));
    obc.Set("coalesced", Json::Bool(s.obc.coalesced));
  }

  const CertBundleTrace& b = t.cert_bundle;
  if (b.present) {
    Json& bundle = entry->Set("_certBundle", Json::Object());
    bundle.Set("used", Json::Bool(b.used));
    bundle.Set("source", Json::Str(b.source));
    bundle.Set("via", Json::Str(b.via));
    bundle.Set("bytes", Json::Int(b.bytes));
    bundle.Set("fromCache", Json::Bool(b.from_cache));
    bundle.Set("prevalidated", Json::Bool(b.prevalidated));
    // The prefetch job's times, relative to this request's start: negative
    // = before the request, i.e. off its critical path.
    SetSince(&bundle, "startedMs", t.start, b.started);
    SetSince(&bundle, "receivedMs", t.start, b.received);
    SetSince(&bundle, "readyMs", t.start, b.ready);
    bundle.Set("ageMs", Json::Ms(b.age));
    Json& rejected = bundle.Set("rejected", Json::Array());
    for (const std::string& r : b.rejected) rejected.Add(Json::Str(r));
    if (!b.not_used_because.empty())
      bundle.Set("notUsedBecause", Json::Str(b.not_used_because));
  }
}

}  // namespace

HarClockAnchor HarClockAnchor::Now() {
  HarClockAnchor anchor;
  anchor.ticks = TimeTicks::Now();
  anchor.wall = absl::Now();
  return anchor;
}

std::string FormatHarDateTime(absl::Time t, absl::TimeZone zone) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3S%Ez", t, zone);
}

std::vector<std::pair<std::string, std::string>> ParseHttpHeaderBlock(
    const std::string& raw, std::string* start_line) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (start_line) start_line->clear();
  bool first = true;
  for (absl::string_view line : absl::StrSplit(raw, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    if (line.empty()) {
      if (first) continue;
      break;  // the blank line ends the block
    }
    const size_t colon = line.find(':');
    const bool is_field =
        colon != absl::string_view::npos && colon > 0 &&
        line.substr(0, colon).find_first_of(" \t") == absl::string_view::npos;
    if (first && !is_field && line[0] != ' ' && line[0] != '\t') {
      if (start_line) *start_line = std::string(line);
    } else if ((line[0] == ' ' || line[0] == '\t') && !headers.empty()) {
      // Obsolete line folding: a continuation of the previous value.
      absl::StrAppend(&headers.back().second, " ",
                      absl::StripAsciiWhitespace(line));
    } else if (is_field) {
      headers.emplace_back(
          std::string(line.substr(0, colon)),
          std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
    }
    first = false;
  }
  return headers;
}

std::string LoadTimingsToHar(const std::vector<LoadTiming>& timings,
                             const HarOptions& options) {
  const HarClockAnchor anchor =
      options.anchor.ticks.is_null() ? HarClockAnchor::Now() : options.anchor;
  auto date_time = [&](TimeTicks t) {
    return FormatHarDateTime(anchor.ToWall(t), options.time_zone);
  };

  Json root = Json::Object();
  Json& log = root.Set("log", Json::Object());
  log.Set("version", Json::Str("1.2"));
  Json& creator = log.Set("creator", Json::Object());
  creator.Set("name", Json::Str("netstack-fetch"));
  creator.Set("version", Json::Str(options.creator_version));
  const bool with_page = !options.page_title.empty();
  if (with_page) {
    TimeTicks first;
    for (const LoadTiming& t : timings)
      if (!t.start.is_null() && (first.is_null() || t.start < first))
        first = t.start;
    Json& page = log.Set("pages", Json::Array()).Add(Json::Object());
    page.Set("startedDateTime",
             Json::Str(first.is_null()
                           ? FormatHarDateTime(anchor.wall, options.time_zone)
                           : date_time(first)));
    page.Set("id", Json::Str("page_1"));
    page.Set("title", Json::Str(options.page_title));
    Json& page_timings = page.Set("pageTimings", Json::Object());
    page_timings.Set("onContentLoad", Json::Int(-1));
    page_timings.Set("onLoad", Json::Int(-1));
  }

  Json& entries = log.Set("entries", Json::Array());
  std::map<std::string, int> latest_connection;  // remote address -> id
  int connections = 0;
  const HarEntryExtras no_extras;
  for (size_t i = 0; i < timings.size(); ++i) {
    const LoadTiming& t = timings[i];
    const HarEntryExtras& x =
        i < options.extras.size() ? options.extras[i] : no_extras;
    const RequestPhases phases = ComputeRequestPhases(t);

    std::string status_line;
    const std::vector<std::pair<std::string, std::string>> response_headers =
        ParseHttpHeaderBlock(x.response_headers_raw, &status_line);
    // "HTTP/1.1 200 OK" -> version, reason.
    std::vector<absl::string_view> status_parts =
        absl::StrSplit(status_line, absl::MaxSplits(' ', 2));
    const bool have_status_line =
        status_parts.size() >= 2 && absl::StartsWith(status_parts[0], "HTTP/");
    const bool have_response = t.status_code > 0;
    std::string http_version =
        have_status_line ? std::string(status_parts[0])
                         : HttpVersionFromAlpn(t.https ? t.ssl.alpn : "");

    Json& entry = entries.Add(Json::Object());
    if (with_page) entry.Set("pageref", Json::Str("page_1"));
    entry.Set("startedDateTime",
              Json::Str(t.start.is_null()
                            ? FormatHarDateTime(anchor.wall, options.time_zone)
                            : date_time(t.start)));
    entry.Set("time", Json::Ms(phases.total()));

    Json& request = entry.Set("request", Json::Object());
    request.Set("method", Json::Str(t.method));
    request.Set("url", Json::Str(UrlWithoutFragment(t.url)));
    request.Set("httpVersion", Json::Str(http_version));
    Json& request_cookies = request.Set("cookies", Json::Array());
    for (const auto& [name, value] : x.request_headers)
      if (absl::EqualsIgnoreCase(name, "Cookie"))
        AddRequestCookies(value, &request_cookies);
    request.Set("headers", NameValues(x.request_headers));
    request.Set("queryString", NameValues(QueryString(t.url)));
    if (!x.request_body.empty() && !x.request_body_mime_type.empty()) {
      Json& post = request.Set("postData", Json::Object());
      post.Set("mimeType", Json::Str(x.request_body_mime_type));
      const bool text = IsValidUtf8(x.request_body);
      post.Set("text", Json::Str(text ? x.request_body : ""));
      if (!text)
        post.Set("comment", Json::Str(absl::StrCat("binary body of ",
                                                   x.request_body.size(),
                                                   " bytes not included")));
    }
    request.Set("headersSize", Json::Int(x.request_headers_size));
    request.Set("bodySize",
                Json::Int(static_cast<int64_t>(x.request_body.size())));

    Json& response = entry.Set("response", Json::Object());
    response.Set("status", Json::Int(t.status_code));
    std::string status_text = x.status_text;
    if (status_text.empty() && have_status_line && status_parts.size() == 3)
      status_text = std::string(status_parts[2]);
    response.Set("statusText", Json::Str(status_text));
    response.Set("httpVersion", Json::Str(have_response ? http_version : ""));
    Json& response_cookies = response.Set("cookies", Json::Array());
    for (const auto& [name, value] : response_headers)
      if (absl::EqualsIgnoreCase(name, "Set-Cookie"))
        AddResponseCookie(value, options, &response_cookies);
    response.Set("headers", NameValues(response_headers));
    Json& content = response.Set("content", Json::Object());
    content.Set("size", Json::Int(t.body_bytes));
    std::string mime = x.mime_type.empty()
                           ? HeaderValue(response_headers, "Content-Type")
                           : x.mime_type;
    content.Set("mimeType", Json::Str(mime.empty() ? "x-unknown" : mime));
    std::string location = HeaderValue(response_headers, "Location");
    if (!location.empty()) {
      auto base = Url::Parse(t.url);
      if (base.ok()) {
        auto resolved = base->Resolve(location);
        if (resolved.ok()) location = resolved->spec();
      }
    }
    response.Set("redirectURL", Json::Str(location));
    response.Set(
        "headersSize",
        Json::Int(!x.response_headers_raw.empty()
                      ? static_cast<int64_t>(x.response_headers_raw.size())
                  : have_response && t.header_bytes > 0 ? t.header_bytes
                                                        : -1));
    response.Set("bodySize", Json::Int(have_response ? t.body_bytes : -1));

    entry.Set("cache", Json::Object());
    entry.Set("timings", Timings(phases));

    if (!t.remote_address.empty())
      entry.Set("serverIPAddress", Json::Str(IpOf(t.remote_address)));
    std::string connection = x.connection;
    if (connection.empty() && !t.remote_address.empty()) {
      auto it = latest_connection.find(t.remote_address);
      if (!t.socket_reused || it == latest_connection.end()) {
        latest_connection[t.remote_address] = ++connections;
        connection = absl::StrCat(connections);
      } else {
        connection = absl::StrCat(it->second);
      }
    }
    if (!connection.empty()) entry.Set("connection", Json::Str(connection));
    if (!x.comment.empty()) entry.Set("comment", Json::Str(x.comment));
    AddStackFacts(t, &entry);
  }

  std::string out;
  root.Print(0, &out);
  out += "\n";
  return out;
}

}  // namespace net
