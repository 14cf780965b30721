// har_waterfall_sample HAR_FILE SVG_FILE: writes the HAR and the waterfall
// of a synthetic run for the schema and rendering checks:
//   1. http://example.test/old?...   plain HTTP, DNS from the network, 301
//      to another origin
//   2. https://www.example.test/     DNS from a prefetch, certificate from a
//      prefetched and prevalidated bundle, Snap Start accepted, 302
//   3. https://www.example.test/final  the same socket reused, 200, an OBC
//   4. https://cdn.example.test/...  full TLS 1.2 handshake with a fresh
//      OCSP check on the critical path; a URL that needs escaping
//   5. https://missing.example.test/ ERR_NAME_NOT_RESOLVED
// Times are fixed (ms from the first event); the wall clock anchor is
// 2024-05-01T12:34:56.000Z.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cert/cert_verifier.h"
#include "net/base/net_errors.h"
#include "net/timing/har.h"
#include "net/timing/load_timing.h"
#include "net/timing/waterfall.h"

namespace net {
namespace {

TimeTicks At(double ms) {
  return TimeTicks::FromMicroseconds(1'000'000 +
                                     static_cast<int64_t>(ms * 1000));
}

void Run(std::vector<LoadTiming>* timings,
         std::vector<HarEntryExtras>* extras) {
  // 1. Plain HTTP, cold, redirected to https on another host.
  LoadTiming t1;
  t1.url = "http://example.test/old?q=1&r=a%20b#top";
  t1.start = At(100);
  t1.fetch_start = At(100.2);
  t1.dns_start = At(100.3);
  t1.dns_end = At(140.5);
  t1.connect_start = At(140.6);
  t1.connect_end = At(240.9);
  t1.request_start = At(241.0);
  t1.response_start = At(341.2);
  t1.response_end = At(341.5);
  t1.status_code = 301;
  t1.dns_source = DnsSource::kNetwork;
  t1.remote_address = "127.0.0.10:80";
  t1.header_bytes = 96;
  timings->push_back(t1);
  HarEntryExtras x1;
  x1.request_headers = {{"Host", "example.test"},
                        {"User-Agent", "netstack-fetch/1.0"},
                        {"Accept", "*/*"}};
  x1.request_headers_size = 92;
  x1.response_headers_raw =
      "HTTP/1.1 301 Moved Permanently\r\n"
      "Location: https://www.example.test/\r\n"
      "Content-Length: 0\r\n"
      "\r\n";
  extras->push_back(x1);

  // 2. Prefetched DNS and bundle, Snap Start.
  LoadTiming t2;
  t2.url = "https://www.example.test/";
  t2.https = true;
  t2.start = At(342.0);
  t2.fetch_start = At(342.1);
  t2.dns_start = At(342.2);
  t2.dns_end = At(342.2);
  t2.connect_start = At(342.3);
  t2.ssl_start = At(442.5);
  t2.connect_end = At(443.1);
  t2.request_start = At(443.2);
  t2.response_start = At(543.4);
  t2.response_end = At(543.6);
  t2.status_code = 302;
  t2.dns_source = DnsSource::kPrefetch;
  t2.remote_address = "127.0.0.11:443";
  t2.ssl.version = "TLSv1.2";
  t2.ssl.cipher = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";
  t2.ssl.group = "X25519";
  t2.ssl.snap_start = SnapStartOutcome::kAccepted;
  t2.ssl.snap_start_detail = "orbit and server random predicted";
  t2.ssl.cert_verify.error = 0;
  t2.ssl.cert_verify.revocation_source = RevocationSource::kPrevalidated;
  t2.ssl.cert_verify.revocation_outcome = RevocationOutcome::kGood;
  RevocationCheck prevalidated;
  prevalidated.depth = 0;
  prevalidated.method = "ocsp";
  prevalidated.source = RevocationSource::kPrevalidated;
  prevalidated.outcome = RevocationOutcome::kGood;
  prevalidated.start = At(41);
  prevalidated.end = At(88);
  t2.ssl.cert_verify.revocation_checks.push_back(prevalidated);
  t2.cert_bundle.present = true;
  t2.cert_bundle.used = true;
  t2.cert_bundle.source = "dns";
  t2.cert_bundle.via = "_certbundle.www.example.test TXT";
  t2.cert_bundle.bytes = 2911;
  t2.cert_bundle.prevalidated = true;
  t2.cert_bundle.started = At(0);
  t2.cert_bundle.received = At(40.2);
  t2.cert_bundle.ready = At(90.4);
  t2.cert_bundle.age = absl::Milliseconds(251.6);
  t2.header_bytes = 170;
  timings->push_back(t2);
  HarEntryExtras x2;
  x2.request_headers = {{"Host", "www.example.test"},
                        {"User-Agent", "netstack-fetch/1.0"},
                        {"Accept", "*/*"}};
  x2.response_headers_raw =
      "HTTP/1.1 302 Found\r\n"
      "Location: /final#frag\r\n"
      "Set-Cookie: sid=abc123; Path=/; Domain=www.example.test; "
      "Expires=Wed, 01 May 2024 13:34:56 GMT; Secure; HttpOnly\r\n"
      "Content-Length: 0\r\n"
      "\r\n";
  extras->push_back(x2);

  // 3. The same connection, reused; an OBC.
  LoadTiming t3;
  t3.url = "https://www.example.test/final";
  t3.https = true;
  t3.socket_reused = true;
  t3.start = At(544.0);
  t3.fetch_start = At(544.1);
  t3.request_start = At(544.3);
  t3.response_start = At(644.5);
  t3.response_end = At(660.0);
  t3.status_code = 200;
  t3.dns_source = DnsSource::kReused;
  t3.remote_address = "127.0.0.11:443";
  t3.ssl = t2.ssl;
  t3.ssl.obc.source = ObcSource::kPooledKey;
  t3.ssl.obc.algorithm = KeyAlgorithm::kEcdsaP256;
  t3.ssl.obc.elapsed = absl::Microseconds(350);
  t3.ssl.obc.generation_time = absl::Milliseconds(2);
  t3.cert_bundle = t2.cert_bundle;  // the same job: drawn once
  t3.body_bytes = 5120;
  t3.header_bytes = 120;
  timings->push_back(t3);
  HarEntryExtras x3;
  x3.request_headers = {{"Host", "www.example.test"},
                        {"User-Agent", "netstack-fetch/1.0"},
                        {"Cookie", "sid=abc123; theme=dark"}};
  x3.response_headers_raw =
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: text/html; charset=utf-8\r\n"
      "Content-Length: 5120\r\n"
      "X-Folded: first\r\n"
      "  second\r\n"
      "\r\n";
  extras->push_back(x3);

  // 4. A full TLS 1.2 handshake with OCSP on the critical path; a URL
  // with characters that need escaping in JSON and XML.
  LoadTiming t4;
  t4.url =
      "https://cdn.example.test/app.js?a=1&b=<x>&c=\"q\"&d='\xC3\xA9'&e=\xFF";
  t4.https = true;
  t4.start = At(661.0);
  t4.fetch_start = At(661.0);
  t4.dns_start = At(661.1);
  t4.dns_end = At(661.2);
  t4.connect_start = At(661.3);
  t4.ssl_start = At(761.5);
  t4.connect_end = At(1253.0);
  t4.request_start = At(1253.1);
  t4.response_start = At(1353.3);
  t4.response_end = At(1380.0);
  t4.status_code = 200;
  t4.dns_source = DnsSource::kCache;
  t4.remote_address = "[::1]:443";
  t4.ssl.version = "TLSv1.2";
  t4.ssl.cipher = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
  t4.ssl.false_start = true;
  t4.ssl.cert_verify.error = 0;
  t4.ssl.cert_verify.verify_duration = absl::Milliseconds(292);
  t4.ssl.cert_verify.revocation_source = RevocationSource::kFresh;
  t4.ssl.cert_verify.revocation_outcome = RevocationOutcome::kGood;
  t4.ssl.cert_verify.revocation_duration = absl::Milliseconds(291);
  RevocationCheck fresh;
  fresh.depth = 0;
  fresh.method = "ocsp";
  fresh.source = RevocationSource::kFresh;
  fresh.outcome = RevocationOutcome::kGood;
  fresh.start = At(861.8);
  fresh.end = At(1152.8);
  t4.ssl.cert_verify.revocation_checks.push_back(fresh);
  t4.body_bytes = 48213;
  timings->push_back(t4);
  HarEntryExtras x4;
  x4.response_headers_raw =
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: application/javascript\r\n"
      "\r\n";
  extras->push_back(x4);

  // 5. Name not resolved.
  LoadTiming t5;
  t5.url = "https://missing.example.test/";
  t5.https = true;
  t5.start = At(1381.0);
  t5.fetch_start = At(1381.0);
  t5.dns_start = At(1381.1);
  t5.failed_at = At(1421.3);
  t5.net_error = ERR_NAME_NOT_RESOLVED;
  t5.dns_source = DnsSource::kNetwork;
  timings->push_back(t5);
  extras->push_back(HarEntryExtras());
}

}  // namespace
}  // namespace net

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: har_waterfall_sample HAR_FILE SVG_FILE\n";
    return 2;
  }
  std::vector<net::LoadTiming> timings;
  net::HarOptions options;
  net::Run(&timings, &options.extras);
  options.creator_version = "sample";
  options.page_title = "netstack sample run";
  options.anchor.ticks = net::At(0);
  options.anchor.wall = absl::FromUnixSeconds(1714566896);  // 12:34:56Z
  std::ofstream(argv[1]) << net::LoadTimingsToHar(timings, options);
  std::ofstream(argv[2]) << net::LoadTimingsToWaterfallSvg(timings);
  return 0;
}
