#include "net/timing/har.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/net_errors.h"
#include "net/timing/load_timing_test_util.h"
#include "net/timing/phases.h"

namespace net {
namespace {

HarOptions Options() {
  HarOptions o;
  o.anchor.ticks = At(0);
  o.anchor.wall = absl::FromUnixSeconds(1714566896);  // 2024-05-01 12:34:56Z
  return o;
}

bool Has(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

absl::Duration Sum(const RequestPhases& p) {
  return p.blocked.duration() + p.dns.duration() + p.connect.duration() +
         p.send.duration() + p.wait.duration() + p.receive.duration();
}

TEST(PhasesTest, FreshHttpsConnectionTilesTheRequest) {
  RequestPhases p = ComputeRequestPhases(HttpsTiming());
  EXPECT_EQ(p.blocked.duration(), absl::Milliseconds(1));
  EXPECT_EQ(p.dns.duration(), absl::Milliseconds(40));
  EXPECT_EQ(p.connect.duration(), absl::Milliseconds(300));
  EXPECT_EQ(p.ssl.duration(), absl::Milliseconds(200));
  EXPECT_EQ(p.send.duration(), absl::Microseconds(500));
  EXPECT_EQ(p.wait.duration(), absl::Microseconds(99500));
  EXPECT_EQ(p.receive.duration(), absl::Milliseconds(1));
  EXPECT_EQ(Sum(p), p.total());
  EXPECT_EQ(p.total(), absl::Milliseconds(442));
  EXPECT_FALSE(p.failed);
}

TEST(PhasesTest, ReusedConnectionHasNoDnsOrConnect) {
  RequestPhases p = ComputeRequestPhases(ReusedConnectionTiming());
  EXPECT_FALSE(p.dns.present);
  EXPECT_FALSE(p.connect.present);
  EXPECT_FALSE(p.ssl.present);
  EXPECT_EQ(p.blocked.duration(), absl::Milliseconds(3));
  EXPECT_EQ(Sum(p), absl::Milliseconds(5));
}

TEST(PhasesTest, CurlPointsAreCumulativeOverThePhases) {
  CurlPoints c = ComputeCurlPoints(ComputeRequestPhases(HttpsTiming()), true);
  EXPECT_EQ(c.namelookup, At(41));
  EXPECT_EQ(c.connect, At(141));
  EXPECT_EQ(c.appconnect, At(341));
  EXPECT_EQ(c.pretransfer, At(341.5));
  EXPECT_EQ(c.starttransfer, At(441));
  EXPECT_EQ(c.total, At(442));
  // A reused connection: no lookup and no connect, at the start.
  const LoadTiming reused = ReusedConnectionTiming();
  c = ComputeCurlPoints(ComputeRequestPhases(reused), true);
  EXPECT_EQ(c.namelookup, reused.start);
  EXPECT_EQ(c.connect, reused.start);
  EXPECT_EQ(c.appconnect, reused.start);
  EXPECT_EQ(c.pretransfer, At(3));
  EXPECT_EQ(c.starttransfer, At(4));
  // Plain HTTP has no appconnect.
  LoadTiming http = HttpsTiming();
  http.https = false;
  http.ssl_start = TimeTicks();
  c = ComputeCurlPoints(ComputeRequestPhases(http), false);
  EXPECT_TRUE(c.appconnect.is_null());
  EXPECT_EQ(c.connect, At(341));
}

TEST(PhasesTest, FailureDuringTlsEndsThere) {
  LoadTiming t = HttpsTiming();
  t.connect_end = t.request_start = t.response_start = t.response_end =
      TimeTicks();
  t.failed_at = At(200);
  RequestPhases p = ComputeRequestPhases(t);
  EXPECT_TRUE(p.failed);
  EXPECT_EQ(p.connect.end, At(200));
  EXPECT_EQ(p.ssl.duration(), absl::Milliseconds(59));
  EXPECT_FALSE(p.send.present);
  EXPECT_FALSE(p.wait.present);
  EXPECT_EQ(Sum(p), absl::Milliseconds(200));
}

TEST(PhasesTest, PointsOutOfOrderAreClamped) {
  LoadTiming t = HttpsTiming();
  t.dns_end = At(0.5);       // before dns_start
  t.response_end = At(400);  // before response_start
  RequestPhases p = ComputeRequestPhases(t);
  for (const PhaseInterval* phase :
       {&p.blocked, &p.dns, &p.connect, &p.ssl, &p.send, &p.wait, &p.receive})
    EXPECT_GE(phase->duration(), absl::ZeroDuration());
  EXPECT_EQ(Sum(p), p.total());
}

TEST(HarTest, LogHeaderAndEntry) {
  HarOptions o = Options();
  o.creator_version = "9.9";
  std::string har = LoadTimingsToHar({HttpsTiming()}, o);
  EXPECT_TRUE(Has(har, "\"version\": \"1.2\"")) << har;
  EXPECT_TRUE(Has(har, "\"name\": \"netstack-fetch\""));
  EXPECT_TRUE(Has(har, "\"version\": \"9.9\""));
  EXPECT_FALSE(Has(har, "\"pages\""));
  EXPECT_TRUE(
      Has(har, "\"startedDateTime\": \"2024-05-01T12:34:56.000+00:00\""))
      << har;
  EXPECT_TRUE(Has(har, "\"time\": 442,"));
  EXPECT_TRUE(Has(har, "\"blocked\": 1,"));
  EXPECT_TRUE(Has(har, "\"dns\": 40,"));
  EXPECT_TRUE(Has(har, "\"connect\": 300,"));
  EXPECT_TRUE(Has(har, "\"ssl\": 200,"));
  EXPECT_TRUE(Has(har, "\"send\": 0.5,"));
  EXPECT_TRUE(Has(har, "\"wait\": 99.5,"));
  EXPECT_TRUE(Has(har, "\"receive\": 1\n"));
  EXPECT_TRUE(Has(har, "\"serverIPAddress\": \"127.0.0.1\""));
  EXPECT_TRUE(Has(har, "\"connection\": \"1\""));
  EXPECT_TRUE(Has(har, "\"cache\": {}"));
  EXPECT_TRUE(Has(har, "\"_dnsSource\": \"network\""));
  EXPECT_TRUE(Has(har, "\"_certSource\": \"handshake\""));
  EXPECT_TRUE(Has(har, "\"_tls\": {"));
  EXPECT_FALSE(Has(har, "\"_error\""));
}

// A request over HTTP/2: the _h2 facts, HTTP/2 as the version.
TEST(HarTest, Http2Facts) {
  LoadTiming t = HttpsTiming();
  t.ssl.alpn = "h2";
  t.h2.used = true;
  t.h2.stream_id = 3;
  t.h2.session = SessionUse::kReused;
  t.h2.session_id = "https://a.test via 127.0.0.1:5000";
  t.h2.server_settings = {{"MAX_CONCURRENT_STREAMS", 128},
                          {"INITIAL_WINDOW_SIZE", 65536}};
  t.h2.weight = 147;
  t.h2.depends_on = 1;
  t.priority = LOWEST;
  std::string har = LoadTimingsToHar({t}, Options());
  EXPECT_TRUE(Has(har, "\"httpVersion\": \"HTTP/2\"")) << har;
  EXPECT_TRUE(Has(har, "\"_h2\": {")) << har;
  EXPECT_TRUE(Has(har, "\"streamId\": 3,")) << har;
  EXPECT_TRUE(Has(har, "\"session\": \"reused\",")) << har;
  EXPECT_TRUE(Has(har, "\"MAX_CONCURRENT_STREAMS\": 128,")) << har;
  EXPECT_TRUE(Has(har, "\"INITIAL_WINDOW_SIZE\": 65536\n")) << har;
  EXPECT_TRUE(Has(har, "\"coalesced\": false,")) << har;
  EXPECT_TRUE(Has(har, "\"weight\": 147,")) << har;
  EXPECT_TRUE(Has(har, "\"dependsOn\": 1\n")) << har;
  EXPECT_TRUE(Has(har, "\"_priority\": \"LOWEST\"")) << har;
  // And the trace line.
  const std::string json = LoadTimingToJson(t);
  EXPECT_TRUE(
      Has(json,
          "\"h2\":{\"streamId\":3,\"session\":\"reused\",\"sessionId\":"
          "\"https://a.test via 127.0.0.1:5000\",\"settings\":{"
          "\"MAX_CONCURRENT_STREAMS\":128,\"INITIAL_WINDOW_SIZE\":65536},"
          "\"retry\":\"\",\"coalesced\":false,\"coalescedBy\":\"\","
          "\"coalescedOnto\":\"\",\"notCoalescedReason\":\"\","
          "\"weight\":147,\"dependsOn\":1}"))
      << json;
  EXPECT_TRUE(Has(json, "\"priority\":\"LOWEST\"")) << json;
  // Coalesced onto another origin's session.
  t.h2.session = SessionUse::kPooled;
  t.h2.coalesced = true;
  t.h2.coalesced_by = "originFrame";
  t.h2.coalesced_onto = "https://b.test";
  EXPECT_TRUE(Has(LoadTimingToJson(t), "\"session\":\"pooled\",\"sessionId\":"))
      << LoadTimingToJson(t);
  EXPECT_TRUE(Has(LoadTimingToJson(t),
                  "\"coalesced\":true,\"coalescedBy\":\"originFrame\","
                  "\"coalescedOnto\":\"https://b.test\""))
      << LoadTimingToJson(t);
  EXPECT_FALSE(Has(LoadTimingToJson(HttpsTiming()), "\"h2\""));
}

TEST(HarTest, StartedDateTimeFollowsTheAnchorAndZone) {
  HarOptions o = Options();
  o.time_zone = absl::FixedTimeZone(2 * 3600);
  LoadTiming t = HttpsTiming();
  t.start = At(1234.5678);
  std::string har = LoadTimingsToHar({t}, o);
  EXPECT_TRUE(
      Has(har, "\"startedDateTime\": \"2024-05-01T14:34:57.234+02:00\""))
      << har;
}

TEST(HarTest, ReusedConnectionSaysMinusOneAndSharesTheConnection) {
  LoadTiming first = HttpsTiming();
  LoadTiming second;
  second.url = "https://www.example.test/2";
  second.https = true;
  second.socket_reused = true;
  second.remote_address = first.remote_address;
  second.start = At(500);
  second.request_start = At(501);
  second.response_start = At(502);
  second.response_end = At(503);
  LoadTiming third = HttpsTiming();  // a new connection to the same address
  std::string har = LoadTimingsToHar({first, second, third}, Options());
  EXPECT_TRUE(Has(har, "\"dns\": -1,"));
  EXPECT_TRUE(Has(har, "\"connect\": -1,"));
  EXPECT_TRUE(Has(har, "\"ssl\": -1,"));
  const size_t c1 = har.find("\"connection\": \"1\"");
  ASSERT_NE(c1, std::string::npos);
  const size_t c1b = har.find("\"connection\": \"1\"", c1 + 1);
  EXPECT_NE(c1b, std::string::npos) << har;
  EXPECT_TRUE(Has(har, "\"connection\": \"2\""));
}

TEST(HarTest, ExtrasFillHeadersCookiesAndRedirect) {
  LoadTiming t = HttpsTiming();
  t.url = "https://www.example.test/a/b?x=1&y=a%20b+c&z#frag";
  t.status_code = 302;
  HarOptions o = Options();
  HarEntryExtras x;
  x.request_headers = {{"Host", "www.example.test"}, {"Cookie", "a=1; b=two"}};
  x.request_headers_size = 80;
  x.response_headers_raw =
      "HTTP/1.1 302 Found\r\n"
      "Location: c?d=1\r\n"
      "Set-Cookie: sid=xyz; Path=/; Expires=Wed, 01 May 2024 13:00:00 GMT; "
      "HttpOnly\r\n"
      "Content-Type: text/plain\r\n"
      "\r\n";
  o.extras = {x};
  std::string har = LoadTimingsToHar({t}, o);
  EXPECT_TRUE(
      Has(har, "\"url\": \"https://www.example.test/a/b?x=1&y=a%20b+c&z\""))
      << har;
  EXPECT_TRUE(Has(har, "\"name\": \"y\",\n              \"value\": \"a b c\""))
      << har;
  EXPECT_TRUE(Has(har, "\"name\": \"z\",\n              \"value\": \"\""));
  EXPECT_TRUE(Has(har, "\"name\": \"b\",\n              \"value\": \"two\""));
  EXPECT_TRUE(Has(har, "\"statusText\": \"Found\""));
  EXPECT_TRUE(Has(har, "\"httpVersion\": \"HTTP/1.1\""));
  EXPECT_TRUE(Has(har, "\"redirectURL\": \"https://www.example.test/a/c?d=1\""))
      << har;
  EXPECT_TRUE(Has(har, "\"expires\": \"2024-05-01T13:00:00.000+00:00\""));
  EXPECT_TRUE(Has(har, "\"httpOnly\": true"));
  EXPECT_TRUE(Has(har, "\"secure\": false"));
  EXPECT_TRUE(Has(har, "\"mimeType\": \"text/plain\""));
  EXPECT_TRUE(Has(har, "\"headersSize\": 80,"));
  EXPECT_TRUE(Has(har, absl::StrCat("\"headersSize\": ",
                                    x.response_headers_raw.size(), ",")));
}

TEST(HarTest, FailedRequest) {
  std::string har = LoadTimingsToHar({FailedDnsTiming()}, Options());
  EXPECT_TRUE(Has(har, "\"_error\": \"ERR_NAME_NOT_RESOLVED\"")) << har;
  EXPECT_TRUE(
      Has(har, absl::StrCat("\"_errorCode\": ", ERR_NAME_NOT_RESOLVED)));
  EXPECT_TRUE(Has(har, "\"status\": 0,"));
  EXPECT_TRUE(Has(har, "\"bodySize\": -1"));
  EXPECT_TRUE(Has(har, "\"time\": 30,"));
  EXPECT_TRUE(Has(har, "\"dns\": 29,"));
  EXPECT_TRUE(Has(har, "\"send\": 0,"));
  EXPECT_FALSE(Has(har, "\"serverIPAddress\""));
}

TEST(HarTest, StackFactsAsCustomFields) {
  LoadTiming t = HttpsTiming();
  t.dns_source = DnsSource::kPrefetch;
  t.ssl.snap_start = SnapStartOutcome::kAccepted;
  t.cert_bundle.present = true;
  t.cert_bundle.used = true;
  t.cert_bundle.source = "dns";
  t.cert_bundle.prevalidated = true;
  t.cert_bundle.started = At(-100);
  t.cert_bundle.received = At(-60);
  t.cert_bundle.ready = At(-10);
  t.cert_bundle.rejected = {"bad \"sig\""};
  std::string har = LoadTimingsToHar({t}, Options());
  EXPECT_TRUE(Has(har, "\"_dnsSource\": \"prefetch\""));
  EXPECT_TRUE(Has(har, "\"_certSource\": \"prefetch\""));
  EXPECT_TRUE(Has(har, "\"_snapStart\": {\n          \"state\": \"accepted\""))
      << har;
  EXPECT_TRUE(Has(har, "\"startedMs\": -100,"));
  EXPECT_TRUE(Has(har, "\"readyMs\": -10,"));
  EXPECT_TRUE(Has(har, "\"bad \\\"sig\\\"\""));
  EXPECT_TRUE(Has(har, "\"_obc\": {"));
  EXPECT_TRUE(Has(har, "\"_revocation\": {"));
}

TEST(HarTest, InvalidUtf8BecomesReplacementCharacter) {
  LoadTiming t = HttpsTiming();
  t.url = "https://www.example.test/\xFF\xC3\xA9";
  std::string har = LoadTimingsToHar({t}, Options());
  EXPECT_TRUE(Has(har, "https://www.example.test/\xEF\xBF\xBD\xC3\xA9"));
}

TEST(HarTest, PageGroupsEntries) {
  HarOptions o = Options();
  o.page_title = "a \"page\"";
  std::string har = LoadTimingsToHar({HttpsTiming(), HttpsTiming()}, o);
  EXPECT_TRUE(Has(har, "\"pages\": [")) << har;
  EXPECT_TRUE(Has(har, "\"title\": \"a \\\"page\\\"\""));
  size_t refs = 0;
  for (size_t pos = har.find("\"pageref\": \"page_1\"");
       pos != std::string::npos;
       pos = har.find("\"pageref\": \"page_1\"", pos + 1))
    ++refs;
  EXPECT_EQ(refs, 2u);
}

TEST(HarTest, EmptyRunIsAValidLog) {
  std::string har = LoadTimingsToHar({}, Options());
  EXPECT_TRUE(Has(har, "\"entries\": []")) << har;
}

TEST(ParseHttpHeaderBlockTest, StatusLineFoldingAndLf) {
  std::string start;
  auto headers = ParseHttpHeaderBlock(
      "HTTP/1.0 404 Not Found\nA: 1\nB:  two words  \n\tcontinued\n\nC: no\n",
      &start);
  EXPECT_EQ(start, "HTTP/1.0 404 Not Found");
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0], std::make_pair(std::string("A"), std::string("1")));
  EXPECT_EQ(headers[1].second, "two words continued");
  headers = ParseHttpHeaderBlock("GET http://a:80/ HTTP/1.1\r\nHost: a\r\n\r\n",
                                 &start);
  EXPECT_EQ(start, "GET http://a:80/ HTTP/1.1");
  ASSERT_EQ(headers.size(), 1u);
  headers = ParseHttpHeaderBlock("Host: a\r\n", &start);
  EXPECT_EQ(start, "");
  ASSERT_EQ(headers.size(), 1u);
}

}  // namespace
}  // namespace net
