// trace_sample: prints the trace JSON (net/timing's LoadTimingToJson, what
// `fetch --trace-json` writes, one object per line) of two synthetic
// requests, for the trace glossary's test (trace_glossary_test.py):
//   1. an https request with every part of the trace filled in: an HTTPS
//      record, ECH (rejected, then retried), TCP Fast
//      Open, SPDY, Snap Start, the handshake choice, certificate
//      compression, an origin-bound certificate, revocation checks (with
//      times and a detail), a certificate bundle that was rejected once and
//      then not used, and a failure time;
//      It was deferred for a device bound session's refresh;
//   2. a plain-HTTP request on a fresh connection (no tls, obc, cert): a
//      DBSC registration.
// So every key the writer can emit appears at least once. No network: the
// fields are set directly, times are fixed.

#include <iostream>

#include "cert/cert_verifier.h"
#include "net/base/net_errors.h"
#include "net/timing/load_timing.h"

namespace net {
namespace {

TimeTicks At(double ms) {
  return TimeTicks() + absl::Seconds(1) + absl::Microseconds(ms * 1000);
}

LoadTiming Everything() {
  LoadTiming t;
  t.start = At(0);
  t.fetch_start = At(0.1);
  t.dns_start = At(0.2);
  t.dns_end = At(40.2);
  t.connect_start = At(40.2);
  t.ssl_start = At(40.3);
  t.connect_end = At(40.4);
  t.request_start = At(40.5);
  t.response_start = At(140.5);
  t.response_end = At(141);
  t.failed_at = At(141.5);
  t.url = "https://slow.example.test/";
  t.status_code = 200;
  t.net_error = ERR_CONNECTION_RESET;
  t.dns_source = DnsSource::kPrefetch;
  HttpsRecordInfo& h = t.dns_https;
  h.status = HttpsRecordStatus::kUsed;
  h.source = DnsSource::kPrefetch;
  h.alias_chain = {"pool.example.test"};
  h.priority = 1;
  h.target = "pool.example.test";
  h.alpn = {"h2", "http/1.1"};
  h.port = 443;
  h.ipv4_hints = {*IPAddress::Parse("198.18.0.14")};
  h.ipv6_hints = {*IPAddress::Parse("2001:db8::14")};
  h.ech_config_list = "(an ECHConfigList)";
  h.records = 1;
  h.compatible_records = 1;
  h.addresses_from_hints = true;
  h.wait = absl::Milliseconds(2);
  h.detail = "example";
  t.remote_address = "198.18.0.14:443";
  t.https = true;
  t.tcp_fast_open.mode = TcpFastOpenMode::kNoCookie;
  t.tcp_fast_open.outcome = TcpFastOpenOutcome::kAccepted;
  t.tcp_fast_open.syn_data_bytes = 517;
  t.tcp_fast_open.detail = "bundle: no cookie needed";
  t.spdy.used = true;
  t.spdy.stream_id = 3;
  t.spdy.session = SessionUse::kPooled;
  t.spdy.session_id = "https://a.example.test:443 via 198.19.0.2:41234";
  t.spdy.credential_slot = 1;
  t.spdy.credential_sent = true;
  t.spdy.retry = "refused stream (GOAWAY)";
  // Synthetic: one request carries both protocols' facts, so the sample
  // fills every key.
  t.h2.used = true;
  t.h2.stream_id = 5;
  t.h2.session_id = "https://slow.example.test:443 via 198.19.0.2:41236";
  t.h2.server_settings = {{"MAX_CONCURRENT_STREAMS", 128},
                          {"INITIAL_WINDOW_SIZE", 65536}};
  t.h2.retry =
      "refused stream (REFUSED_STREAM or GOAWAY): retried on a new session";
  t.h2.session = SessionUse::kPooled;
  t.h2.coalesced = true;
  t.h2.coalesced_by = "dns";
  t.h2.coalesced_onto = "https://slow12.example.test";
  t.h2.not_coalesced_reason = "";
  t.h2.weight = 256;
  t.h2.depends_on = 3;
  t.priority = MEDIUM;
  t.quic.used = true;
  t.quic.version = 1;
  t.quic.session = SessionUse::kNew;
  t.quic.stream_id = 0;
  t.quic.handshake = absl::Microseconds(1210);
  t.quic.packets_sent = 9;
  t.quic.packets_received = 11;
  t.quic.packets_lost = 1;
  t.quic.handshake_rtts = 1;
  t.quic.address_token = "sent";
  t.quic.close_reason = "idle timeout: no packet from 127.0.0.1:4433 for 30s";
  t.quic.alt_svc = "h3=\":443\"; ma=2592000";
  t.quic.fallback =
      "ERR_QUIC_HANDSHAKE_TIMEOUT: no QUIC handshake with 127.0.0.1:4433 "
      "within 3s (no UDP answer); retried over TCP";
  t.body_bytes = 1024;
  t.header_bytes = 120;
  // A request held until its device bound session's refresh ended.
  t.dbsc.role = DbscRole::kRequest;
  t.dbsc.session_id = "s1";
  t.dbsc.outcome = DbscOutcome::kRefreshed;
  t.dbsc.alg = "ES256";
  t.dbsc.refresh = absl::Milliseconds(101);
  t.dbsc.deferred = absl::Milliseconds(102);
  t.dbsc.detail = "dbsc_auth missing";
  SSLInfo& s = t.ssl;
  s.version = "TLSv1.2";
  s.cipher = "TLS_RSA_WITH_AES_128_GCM_SHA256";
  s.group = "";
  s.alpn = "spdy/3";
  s.waited_for_session = true;
  s.session_wait = absl::Milliseconds(3);
  s.snap_start = SnapStartOutcome::kAccepted;
  s.snap_start_detail = "orbit from a dns bundle";
  s.early_data = EarlyDataState::kNotOffered;
  s.early_data_reason = "disabled";
  s.cert_compression.algorithm = "brotli";
  s.ech = EchOutcome::kRejected;
  s.ech_retry = EchRetry::kAccepted;
  s.ech_detail =
      "the server rejected the ECH configuration offered; retried once on a "
      "new connection with the server's retry configurations: accepted";
  s.sni_on_wire = "public.example.test";
  s.cert_compression.compressed_bytes = 1543;
  s.cert_compression.uncompressed_bytes = 1993;
  s.obc.source = ObcSource::kPooledKey;
  s.obc.elapsed = absl::Microseconds(200);
  s.obc.generation_time = absl::Milliseconds(2);
  s.cert_verify.error = OK;
  s.cert_verify.verify_duration = absl::Milliseconds(1);
  s.cert_verify.detail = "ignored (insecure): ERR_CERT_AUTHORITY_INVALID";
  s.cert_verify.revocation_source = RevocationSource::kPrevalidated;
  s.cert_verify.revocation_outcome = RevocationOutcome::kGood;
  RevocationCheck check;
  check.depth = 0;
  check.method = "ocsp";
  check.source = RevocationSource::kPrevalidated;
  check.outcome = RevocationOutcome::kGood;
  check.start = At(-50);
  check.end = At(-20);
  check.detail = "good until +5 min";
  s.cert_verify.revocation_checks.push_back(check);
  t.handshake_choice = {"snap_start", 2, "tls_full", 3};
  CertBundleTrace& b = t.cert_bundle;
  b.present = true;
  b.used = true;
  b.source = "dns";
  b.via = "_certbundle.slow.example.test";
  b.bytes = 2221;
  b.prevalidated = true;
  b.started = At(-100);
  b.received = At(-60);
  b.ready = At(-20);
  b.age = absl::Milliseconds(100);
  b.rejected = {"cdn: HTTP 404"};
  b.not_used_because = "example";
  return t;
}

LoadTiming PlainHttp() {
  LoadTiming t;
  t.start = At(0);
  t.fetch_start = At(0);
  t.dns_start = At(0.1);
  t.dns_end = At(0.2);
  t.connect_start = At(0.2);
  t.connect_end = At(100.2);
  t.request_start = At(100.3);
  t.response_start = At(200.3);
  t.response_end = At(200.5);
  t.url = "http://slow.example.test/";
  t.status_code = 200;
  t.net_error = OK;
  t.dns_source = DnsSource::kCache;
  t.remote_address = "198.18.0.14:80";
  t.body_bytes = 10;
  t.header_bytes = 80;
  // The registration POST the stack made after a login response.
  t.dbsc.role = DbscRole::kRegistration;
  t.dbsc.session_id = "s1";
  t.dbsc.outcome = DbscOutcome::kRegistered;
  t.dbsc.alg = "ES256";
  t.dbsc.key_source = "pooled";
  t.dbsc.registered = absl::Milliseconds(200.6);
  return t;
}

}  // namespace
}  // namespace net

int main() {
  std::cout << net::LoadTimingToJson(net::Everything()) << "\n"
            << net::LoadTimingToJson(net::PlainHttp()) << "\n";
  return 0;
}
