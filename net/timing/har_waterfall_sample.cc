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
#include "net/timing/load_timing_test_util.h"
#include "net/timing/waterfall.h"

namespace net {
namespace {

// An OCSP check of the leaf that said good, from |start| to |end| ms.
RevocationCheck GoodLeafOcsp(RevocationSource source, double start,
                             double end) {
  RevocationCheck check;
  check.depth = 0;
  check.method = "ocsp";
  check.source = source;
  check.outcome = RevocationOutcome::kGood;
  check.start = At(start);
  check.end = At(end);
  return check;
}

void Run(std::vector<LoadTiming>* timings,
         std::vector<HarEntryExtras>* extras) {
  // 1. Plain HTTP, cold, redirected to https on another host.
  LoadTiming t1 = LoadTimingBuilder("http://example.test/old?q=1&r=a%20b#top")
                      .Start(100, 100.2)
                      .Dns(100.3, 140.5, DnsSource::kNetwork)
                      .Connect(140.6, 240.9)
                      .Exchange(241.0, 341.2, 341.5, 301)
                      .From("127.0.0.10:80")
                      .Build();
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
  LoadTiming t2 = LoadTimingBuilder("https://www.example.test/")
                      .Start(342.0, 342.1)
                      .Dns(342.2, 342.2, DnsSource::kPrefetch)
                      .Connect(342.3, 443.1)
                      .Tls(442.5)
                      .Exchange(443.2, 543.4, 543.6, 302)
                      .From("127.0.0.11:443")
                      .Build();
  t2.ssl.version = "TLSv1.2";
  t2.ssl.cipher = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";
  t2.ssl.group = "X25519";
  t2.ssl.snap_start = SnapStartOutcome::kAccepted;
  t2.ssl.snap_start_detail = "orbit and server random predicted";
  t2.ssl.cert_verify.error = 0;
  t2.ssl.cert_verify.revocation_source = RevocationSource::kPrevalidated;
  t2.ssl.cert_verify.revocation_outcome = RevocationOutcome::kGood;
  t2.ssl.cert_verify.revocation_checks.push_back(
      GoodLeafOcsp(RevocationSource::kPrevalidated, 41, 88));
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
  LoadTiming t3 = LoadTimingBuilder("https://www.example.test/final")
                      .Start(544.0, 544.1)
                      .Exchange(544.3, 644.5, 660.0, 200)
                      .From("127.0.0.11:443")
                      .Build();
  t3.socket_reused = true;
  t3.dns_source = DnsSource::kReused;
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
  LoadTiming t4 = LoadTimingBuilder(
                      "https://cdn.example.test/"
                      "app.js?a=1&b=<x>&c=\"q\"&d='\xC3\xA9'&e=\xFF")
                      .Start(661.0, 661.0)
                      .Dns(661.1, 661.2, DnsSource::kCache)
                      .Connect(661.3, 1253.0)
                      .Tls(761.5)
                      .Exchange(1253.1, 1353.3, 1380.0, 200)
                      .From("[::1]:443")
                      .Build();
  t4.ssl.version = "TLSv1.2";
  t4.ssl.cipher = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
  t4.ssl.false_start = true;
  t4.ssl.cert_verify.error = 0;
  t4.ssl.cert_verify.verify_duration = absl::Milliseconds(292);
  t4.ssl.cert_verify.revocation_source = RevocationSource::kFresh;
  t4.ssl.cert_verify.revocation_outcome = RevocationOutcome::kGood;
  t4.ssl.cert_verify.revocation_duration = absl::Milliseconds(291);
  t4.ssl.cert_verify.revocation_checks.push_back(
      GoodLeafOcsp(RevocationSource::kFresh, 861.8, 1152.8));
  t4.body_bytes = 48213;
  timings->push_back(t4);
  HarEntryExtras x4;
  x4.response_headers_raw =
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: application/javascript\r\n"
      "\r\n";
  extras->push_back(x4);

  // 5. Name not resolved.
  timings->push_back(LoadTimingBuilder("https://missing.example.test/")
                         .Start(1381.0, 1381.0)
                         .DnsStart(1381.1, DnsSource::kNetwork)
                         .Failed(1421.3, ERR_NAME_NOT_RESOLVED)
                         .Build());
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
