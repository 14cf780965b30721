#include "tools/fetch/write_out.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cert/cert_verifier.h"
#include "cert/obc/obc_types.h"
#include "net/socket/tcp_fast_open.h"
#include "net/timing/phases.h"
#include "tools/fetch/exit_codes.h"

namespace net {

std::vector<std::pair<std::string, std::string>> WriteOutVariables(
    const WriteOutTransfer& transfer) {
  const LoadTiming& t = *transfer.timing;
  const std::vector<LoadTiming>& hops = *transfer.hops;
  const TimeTicks start = hops.empty() ? t.start : hops.front().start;
  auto secs = [&](TimeTicks v) {
    return v.is_null()
               ? std::string("0.000000")
               : absl::StrFormat("%.6f", absl::ToDoubleSeconds(v - start));
  };
  int connects = t.socket_reused || t.connect_start.is_null() ? 0 : 1;
  for (const LoadTiming& hop : hops)
    connects += hop.socket_reused || hop.connect_start.is_null() ? 0 : 1;
  const size_t colon = t.remote_address.rfind(':');
  const std::string remote_ip = t.remote_address.substr(0, colon);
  const std::string remote_port =
      colon == std::string::npos ? "" : t.remote_address.substr(colon + 1);
  // curl's points, cut from the same phases as HAR and the waterfall.
  const CurlPoints c = ComputeCurlPoints(ComputeRequestPhases(t), t.https);
  const int result = transfer.result;
  return {
      {"http_code", absl::StrFormat("%03d", t.status_code)},
      {"response_code", absl::StrFormat("%03d", t.status_code)},
      {"time_namelookup", secs(c.namelookup)},
      {"time_connect", secs(c.connect)},
      {"time_appconnect", secs(c.appconnect)},
      {"time_pretransfer", secs(c.pretransfer)},
      {"time_starttransfer", secs(c.starttransfer)},
      {"time_redirect", hops.empty() ? "0.000000" : secs(t.start)},
      {"time_total", secs(c.total)},
      {"size_download", absl::StrCat(t.body_bytes)},
      {"size_header", absl::StrCat(t.header_bytes)},
      {"num_connects", absl::StrCat(connects)},
      {"num_redirects", absl::StrCat(hops.size())},
      {"url_effective", transfer.url_effective},
      {"redirect_url", transfer.redirect_url},
      {"remote_ip", remote_ip},
      {"remote_port", remote_port},
      {"ssl_verify_result",
       t.https && t.ssl.cert_verify.error != OK && !t.ssl.resumed ? "1" : "0"},
      {"errormsg", result < 0 ? transfer.error_detail : ""},
      {"exitcode", absl::StrCat(result < 0 ? ExitCodeForError(result) : 0)},
      // This stack's own.
      {"snap_start", t.ssl.snap_start == SnapStartOutcome::kNone
                         ? "none"
                         : SnapStartOutcomeToString(t.ssl.snap_start)},
      {"cert_source", !t.https             ? "none"
                      : t.cert_bundle.used ? "prefetch"
                      : t.ssl.resumed      ? "session"
                                           : "handshake"},
      {"cert_bundle_source",
       t.cert_bundle.used ? t.cert_bundle.source : "none"},
      {"revocation_source",
       t.https ? RevocationSourceToString(t.ssl.cert_verify.revocation_source)
               : "none"},
      {"obc_source", ObcSourceToString(t.ssl.obc.source)},
      {"tls_version", t.ssl.version},
      {"early_data",
       t.https ? EarlyDataStateToString(t.ssl.early_data) : "none"},
      {"tcp_fast_open", TcpFastOpenOutcomeToString(t.tcp_fast_open.outcome)},
      {"cert_compression", t.ssl.cert_compression.algorithm.empty()
                               ? "none"
                               : t.ssl.cert_compression.algorithm},
  };
}

namespace {

bool IsNumeric(absl::string_view name) {
  return absl::StartsWith(name, "time_") || absl::StartsWith(name, "size_") ||
         absl::StartsWith(name, "num_") || name == "http_code" ||
         name == "response_code" || name == "remote_port" ||
         name == "ssl_verify_result" || name == "exitcode";
}

// A numeric variable's value as a JSON number ("200", "0.012345"; "" and
// "000" as 0).
std::string JsonNumber(const std::string& value) {
  double d;
  if (!absl::SimpleAtod(value, &d)) return "0";
  int64_t i;
  if (absl::SimpleAtoi(value, &i)) return absl::StrCat(i);
  return value;
}

}  // namespace

std::string FormatWriteOut(const std::string& format,
                           const WriteOutTransfer& transfer,
                           std::vector<std::string>* unknown) {
  const std::vector<std::pair<std::string, std::string>> vars =
      WriteOutVariables(transfer);
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '\\' && i + 1 < format.size()) {
      char c = format[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
      continue;
    }
    if (format.compare(i, 2, "%{") == 0) {
      size_t end = format.find('}', i);
      if (end != std::string::npos) {
        std::string name = format.substr(i + 2, end - i - 2);
        if (name == "json") {
          out += "{";
          for (size_t v = 0; v < vars.size(); ++v) {
            const auto& [var, value] = vars[v];
            absl::StrAppend(&out, v ? "," : "", "\"", var, "\":",
                            IsNumeric(var)
                                ? JsonNumber(value)
                                : absl::StrCat("\"", JsonEscape(value), "\""));
          }
          out += "}";
        } else {
          bool known = false;
          for (const auto& [var, value] : vars) {
            if (var == name) {
              out += value;
              known = true;
            }
          }
          if (!known && unknown) unknown->push_back(name);
        }
        i = end;
        continue;
      }
    }
    if (format.compare(i, 2, "%%") == 0) ++i;
    out += format[i];
  }
  return out;
}

}  // namespace net
