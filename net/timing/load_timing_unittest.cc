#include "net/timing/load_timing.h"

#include "gtest/gtest.h"
#include "net/timing/load_timing_test_util.h"

namespace net {
namespace {

TEST(LoadTimingTest, JsonHasEveryPointInOrder) {
  LoadTiming t = HttpsTiming();
  t.ssl.false_start = true;
  std::string json = LoadTimingToJson(t);
  const char* names[] = {"startTime",         "fetchStart",
                         "domainLookupStart", "domainLookupEnd",
                         "connectStart",      "secureConnectionStart",
                         "connectEnd",        "requestStart",
                         "responseStart",     "responseEnd"};
  size_t last = 0;
  for (const char* name : names) {
    size_t pos = json.find(std::string("\"") + name + "\":");
    ASSERT_NE(pos, std::string::npos) << name;
    EXPECT_GT(pos, last) << name;
    last = pos;
  }
  EXPECT_NE(json.find("\"domainLookupEnd\":41.000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"secureConnectionStart\":141.000"), std::string::npos);
  EXPECT_NE(json.find("\"falseStart\":true"), std::string::npos);
}

TEST(LoadTimingTest, PlainHttpHasNoSecureConnectionStart) {
  LoadTiming t = HttpsTiming();
  t.https = false;
  std::string json = LoadTimingToJson(t);
  EXPECT_EQ(json.find("secureConnectionStart"), std::string::npos);
  EXPECT_EQ(json.find("\"tls\""), std::string::npos);
}

TEST(LoadTimingTest, ReusedConnectionCollapsesOntoFetchStart) {
  std::string json = LoadTimingToJson(ReusedConnectionTiming());
  EXPECT_NE(json.find("\"connectEnd\":2.000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"secureConnectionStart\":2.000"), std::string::npos)
      << json;
}

TEST(LoadTimingTest, FailedRequestHasNullPointsAndARequestSlice) {
  LoadTiming t;
  t.https = true;
  t.url = "https://a.test/";
  t.start = At(0);
  t.fetch_start = At(0);
  t.dns_start = At(0);
  t.dns_end = At(1);
  t.connect_start = At(1);
  t.failed_at = At(3);
  t.net_error = -102;
  std::string json = LoadTimingToJson(t);
  EXPECT_NE(json.find("\"connectStart\":1.000,\"secureConnectionStart\":null,"
                      "\"connectEnd\":null"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"failedAt\":3.000"), std::string::npos);
  std::string events = LoadTimingsToTraceEvents({t});
  EXPECT_NE(
      events.find("\"name\":\"request\",\"cat\":\"net\",\"ph\":\"X\",\"pid\":1,"
                  "\"tid\":1,\"ts\":0,\"dur\":3000"),
      std::string::npos)
      << events;
}

TEST(LoadTimingTest, TraceEventsAreCompleteEvents) {
  std::string json = LoadTimingsToTraceEvents({HttpsTiming(), HttpsTiming()});
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(
      json.find("\"name\":\"tls_handshake\",\"cat\":\"net\",\"ph\":\"X\""),
      std::string::npos);
  EXPECT_NE(json.find("\"tid\":2"), std::string::npos);
  EXPECT_NE(json.find("\"ts\":141000,\"dur\":200000"), std::string::npos)
      << json;
}

TEST(LoadTimingTest, PrefetchedBundleIsTheCertificateSource) {
  LoadTiming t = HttpsTiming();
  EXPECT_NE(LoadTimingToJson(t).find("\"cert\":{\"source\":\"handshake\""),
            std::string::npos);
  EXPECT_EQ(LoadTimingToJson(t).find("\"bundle\""), std::string::npos);
  t.cert_bundle.present = true;
  t.cert_bundle.used = true;
  t.cert_bundle.source = "cdn";
  t.cert_bundle.via = "http://cdn1.example.test/b/www.example.test.crt";
  t.cert_bundle.bytes = 1528;
  t.cert_bundle.prevalidated = true;
  t.cert_bundle.started = At(-500);
  t.cert_bundle.received = At(-450);
  t.cert_bundle.ready = At(-150);
  t.cert_bundle.age = absl::Milliseconds(500);
  t.cert_bundle.rejected = {
      "dns: TXT _certbundle.www.example.test: no \"v=cb1\""};
  std::string json = LoadTimingToJson(t);
  EXPECT_NE(json.find("\"cert\":{\"source\":\"prefetch\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"bundle\":{\"used\":true,\"source\":\"cdn\""),
            std::string::npos)
      << json;
  EXPECT_NE(
      json.find("\"fetchMs\":50.000,\"readyMs\":350.000,\"ageMs\":500.000"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find("no \\\"v=cb1\\\""), std::string::npos) << json;
  // The job appears once on the prefetch track, however many requests.
  std::string events = LoadTimingsToTraceEvents({t, t});
  size_t first = events.find("\"bundle_fetch\"");
  ASSERT_NE(first, std::string::npos) << events;
  EXPECT_EQ(events.find("\"bundle_fetch\"", first + 1), std::string::npos);
  EXPECT_NE(events.find("\"prevalidation\""), std::string::npos);
  EXPECT_NE(events.find("prefetch (bundles, prevalidation)"),
            std::string::npos);
}

TEST(LoadTimingTest, HttpsRecordAndEch) {
  LoadTiming t = HttpsTiming();
  // Not asked: no httpsRecord at all; TLS says GREASE or none.
  std::string json = LoadTimingToJson(t);
  EXPECT_EQ(json.find("httpsRecord"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ech\":\"none\""), std::string::npos) << json;
  EXPECT_EQ(json.find("echRetry"), std::string::npos) << json;

  t.dns_https.status = HttpsRecordStatus::kNone;
  t.dns_https.source = DnsSource::kNetwork;
  json = LoadTimingToJson(t);
  EXPECT_NE(json.find("\"dns\":{\"source\":\"network\",\"httpsRecord\":{"
                      "\"status\":\"none\",\"source\":\"network\","
                      "\"aliasChain\":[],\"waitMs\":0.000,\"detail\":\"\"}}"),
            std::string::npos)
      << json;

  t.dns_https.status = HttpsRecordStatus::kUsed;
  t.dns_https.priority = 1;
  t.dns_https.target = "www.example.test";
  t.dns_https.alpn = {"h2"};
  t.dns_https.port = 8443;
  t.dns_https.ech_config_list = "x";
  t.dns_https.wait = absl::Microseconds(1500);
  t.ssl.ech = EchOutcome::kRejected;
  t.ssl.ech_retry = EchRetry::kAccepted;
  t.ssl.sni_on_wire = "public.example.test";
  json = LoadTimingToJson(t);
  EXPECT_NE(json.find("\"priority\":1,\"target\":\"www.example.test\","
                      "\"alpn\":[\"h2\"],\"noDefaultAlpn\":false,"
                      "\"port\":8443,\"ipv4hint\":[],\"ipv6hint\":[],"
                      "\"ech\":true"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"waitMs\":1.500"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ech\":\"rejected\",\"echRetry\":\"accepted\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"sniOnWire\":\"public.example.test\""),
            std::string::npos);
}

TEST(LoadTimingTest, EscapesStrings) {
  EXPECT_EQ(JsonEscape("a\"b\\c\n\x01"), "a\\\"b\\\\c\\n\\u0001");
}

}  // namespace
}  // namespace net
