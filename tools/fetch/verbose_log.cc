#include "tools/fetch/verbose_log.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cert/obc/obc_types.h"
#include "prefetch/bundle_source.h"
#include "prefetch/cert_prefetcher.h"

namespace net {

void PrefetchLog::OnHostPrefetched(const std::string& host, int result,
                                   const HostResolveResult& answer) {
  if (!verbose) return;
  *out_ << "* prefetched " << host << ": "
        << (result == OK ? "OK" : ErrorToShortString(result)) << " ("
        << DnsSourceToString(answer.source) << ")\n";
}

void PrintBundleRecords(std::ostream& out, NetworkContext* context,
                        const std::vector<std::string>& hosts) {
  if (!context->cert_prefetcher()) return;
  for (const std::string& host : hosts) {
    const auto& ports = context->params().prefetch_ports;
    auto port = ports.find(host);
    const PrefetchRecord* record = context->cert_prefetcher()->Record(
        host, port != ports.end() ? port->second : 443);
    if (!record) continue;
    out << "* bundle for " << record->host << ":" << record->port << ": "
        << (record->state == PrefetchRecord::State::kReady
                ? absl::StrCat(BundleSourceTypeToString(record->fetched.source),
                               " ", record->fetched.via,
                               record->prevalidated ? ", prevalidated" : "")
                : std::string("none usable"))
        << "\n";
    for (const std::string& why : record->rejected)
      out << "*   rejected: " << why << "\n";
  }
}

void PrintVerboseTransfer(std::ostream& out, const VerboseTransfer& transfer) {
  const LoadTiming& t = *transfer.timing;
  out << "* " << t.url << " (round " << transfer.round + 1 << ")\n";
  // "Connected" only once the connection is made (curl's "Connected to"),
  // else the address that was tried.
  if (!t.remote_address.empty())
    out << "* "
        << (t.socket_reused              ? "Reusing"
            : !t.connect_end.is_null()   ? "Connected to"
            : !t.connect_start.is_null() ? "Failed to connect to"
                                         : "Trying")
        << " " << t.remote_address
        << " (dns: " << DnsSourceToString(t.dns_source) << ")\n";
  if (t.https && !t.ssl.version.empty()) {
    out << "* TLS " << t.ssl.version << " " << t.ssl.cipher
        << (t.ssl.group.empty() ? "" : " " + t.ssl.group)
        << " alpn=" << (t.ssl.alpn.empty() ? "-" : t.ssl.alpn)
        << (t.ssl.resumed ? " resumed" : " full-handshake")
        << (t.ssl.false_start ? " false-start" : "")
        << (t.ssl.early_data != EarlyDataState::kNotOffered
                ? std::string(" early-data=") +
                      EarlyDataStateToString(t.ssl.early_data)
                : "")
        << (t.ssl.waited_for_session ? " (waited for a coalesced session)" : "")
        << "\n";
    if (t.ssl.obc.source != ObcSource::kNone) {
      out << "* OBC " << ObcSourceToString(t.ssl.obc.source) << " "
          << KeyAlgorithmToString(t.ssl.obc.algorithm) << " "
          << t.ssl.obc.ElapsedMs() << " ms\n";
    }
  }
  if (t.spdy.used) {
    out << "* SPDY stream " << t.spdy.stream_id << " on session "
        << t.spdy.session_id << " (" << SessionUseToString(t.spdy.session)
        << "), credential slot " << t.spdy.credential_slot
        << (t.spdy.credential_sent ? " (CREDENTIAL sent)" : "") << "\n";
    if (!t.spdy.retry.empty()) out << "* SPDY retry: " << t.spdy.retry << "\n";
  }
  if (t.h2.used) {
    out << "* HTTP/2 stream " << t.h2.stream_id << " on session "
        << t.h2.session_id << " (" << SessionUseToString(t.h2.session) << ")\n";
    if (t.h2.coalesced)
      out << "* HTTP/2 coalesced onto " << t.h2.coalesced_onto << "'s session ("
          << t.h2.coalesced_by << ")\n";
    if (!t.h2.not_coalesced_reason.empty())
      out << "* HTTP/2 not coalesced: " << t.h2.not_coalesced_reason << "\n";
    if (!t.h2.retry.empty()) out << "* HTTP/2 retry: " << t.h2.retry << "\n";
  }
  if (!transfer.request_line.empty()) {
    out << "> " << transfer.request_line << "\n";
    for (const auto& [name, value] : transfer.request_headers)
      out << "> " << name << ": " << value << "\n";
    out << ">\n";
  }
  if (!transfer.response_head.empty())
    out << "< " << absl::StrReplaceAll(transfer.response_head, {{"\n", "\n< "}})
        << "\n";
  for (const std::string& why : transfer.rejected_cookies)
    out << "* cookie ignored: " << why << "\n";
  out << "* trace " << LoadTimingToJson(t) << "\n";
}

}  // namespace net
