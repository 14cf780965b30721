#include "net/timing/waterfall.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/timing/load_timing_test_util.h"

namespace net {
namespace {

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + 1))
    ++n;
  return n;
}

// A small well-formedness check: balanced, properly nested elements, quoted
// attributes, no raw '<' or '&' outside markup and entity references.
// (The script test parses the sample with a real XML parser as well.)
::testing::AssertionResult WellFormed(const std::string& xml) {
  std::vector<std::string> stack;
  size_t i = 0;
  if (xml.compare(0, 5, "<?xml") == 0) i = xml.find("?>") + 2;
  int roots = 0;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      const size_t semi = xml.find(';', i);
      const std::string ref = xml.substr(i, semi - i + 1);
      if (ref != "&amp;" && ref != "&lt;" && ref != "&gt;" && ref != "&quot;" &&
          ref != "&apos;")
        return ::testing::AssertionFailure() << "bad reference at " << i;
      i = semi + 1;
      continue;
    }
    if (xml[i] != '<') {
      if (xml[i] == '>')
        return ::testing::AssertionFailure() << "raw '>' at " << i;
      ++i;
      continue;
    }
    // A tag: find its end, skipping quoted attribute values.
    size_t j = i + 1;
    char quote = 0;
    for (; j < xml.size(); ++j) {
      if (quote) {
        if (xml[j] == quote) quote = 0;
        if (xml[j] == '<')
          return ::testing::AssertionFailure() << "'<' in attribute at " << j;
      } else if (xml[j] == '"' || xml[j] == '\'') {
        quote = xml[j];
      } else if (xml[j] == '>') {
        break;
      } else if (xml[j] == '<') {
        return ::testing::AssertionFailure() << "'<' inside a tag at " << j;
      }
    }
    if (j >= xml.size()) return ::testing::AssertionFailure() << "open tag";
    std::string tag = xml.substr(i + 1, j - i - 1);
    if (tag[0] == '/') {
      std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name)
        return ::testing::AssertionFailure()
               << "</" << name << "> closes "
               << (stack.empty() ? "nothing" : stack.back());
      stack.pop_back();
    } else {
      const bool self_closing = tag.back() == '/';
      std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
      if (stack.empty()) ++roots;
      if (!self_closing) stack.push_back(name);
    }
    i = j + 1;
  }
  if (!stack.empty())
    return ::testing::AssertionFailure()
           << "<" << stack.back() << "> not closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " roots";
  return ::testing::AssertionSuccess();
}

TEST(WaterfallTest, OneRowWithDevtoolsColours) {
  LoadTiming t = HttpsTiming();
  t.ssl.version = "TLSv1.3";
  std::string svg = LoadTimingsToWaterfallSvg({t});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(svg.compare(0, 38, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"),
            0);
  EXPECT_NE(
      svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1100\""),
      std::string::npos);
  for (const char* color :
       {kWaterfallColorStalled, kWaterfallColorDns, kWaterfallColorConnect,
        kWaterfallColorSsl, kWaterfallColorSend, kWaterfallColorWait,
        kWaterfallColorReceive})
    EXPECT_NE(svg.find(absl::StrCat("fill=\"", color, "\"")), std::string::npos)
        << color;
  EXPECT_NE(svg.find("1. GET 200 https://www.example.test/"),
            std::string::npos);
  EXPECT_NE(svg.find("442 ms"), std::string::npos);
  EXPECT_NE(svg.find("TLSv1.3: 200 ms"), std::string::npos);
  // The axis: 0 to 500 ms in steps of 100.
  EXPECT_NE(svg.find(">0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">500 ms</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("Off the critical path"), std::string::npos);
}

TEST(WaterfallTest, EscapesUrls) {
  LoadTiming t = HttpsTiming();
  t.url = "https://a.test/?q=<b>&c=\"d\"&e='f'&g=\x01\xFF";
  std::string svg = LoadTimingsToWaterfallSvg({t});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("q=&lt;b&gt;&amp;c=&quot;d&quot;&amp;e=&apos;f&apos;"
                     "&amp;g=?\xEF\xBF\xBD"),
            std::string::npos)
      << svg;
}

TEST(WaterfallTest, LongUrlsAreTruncatedOnACodePoint) {
  LoadTiming t = HttpsTiming();
  t.url = "https://a.test/";
  for (int i = 0; i < 40; ++i) t.url += "\xC3\xA9";  // e-acute
  std::string svg = LoadTimingsToWaterfallSvg({t});
  EXPECT_TRUE(WellFormed(svg));
  EXPECT_NE(svg.find("\xC3\xA9\xE2\x80\xA6</text>"), std::string::npos) << svg;
}

TEST(WaterfallTest, PrefetchJobsOnTheirOwnRowsOnce) {
  LoadTiming a = HttpsTiming();
  a.start = At(100);
  a.fetch_start = a.dns_start = a.dns_end = At(100);
  a.dns_source = DnsSource::kPrefetch;
  a.cert_bundle.present = true;
  a.cert_bundle.used = true;
  a.cert_bundle.source = "well-known";
  a.cert_bundle.via = "https://www.example.test/.well-known/certbundle";
  a.cert_bundle.prevalidated = true;
  a.cert_bundle.started = At(0);
  a.cert_bundle.received = At(30);
  a.cert_bundle.ready = At(80);
  a.connect_start = At(100);
  a.ssl_start = At(200);
  a.connect_end = At(201);
  a.request_start = At(201);
  a.response_start = At(301);
  a.response_end = At(302);
  LoadTiming b = a;  // a second request that used the same job
  b.url = "https://www.example.test/2";
  std::string svg = LoadTimingsToWaterfallSvg({a, b});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_NE(svg.find("Off the critical path"), std::string::npos);
  EXPECT_EQ(Count(svg, ">bundle prefetch well-known "), 1u) << svg;
  EXPECT_EQ(Count(svg, ">DNS prefetch www.example.test<"), 1u);
  EXPECT_NE(svg.find("bundle fetch (well-known): 30.0 ms"), std::string::npos);
  EXPECT_NE(svg.find("prevalidation (verify + revocation): 50.0 ms"),
            std::string::npos);
  EXPECT_NE(svg.find("Bundle fetch (prefetch)</text>"), std::string::npos);
}

TEST(WaterfallTest, RevocationOnAndOffThePath) {
  LoadTiming t = HttpsTiming();
  RevocationCheck fresh;
  fresh.method = "ocsp";
  fresh.source = RevocationSource::kFresh;
  fresh.start = At(200);
  fresh.end = At(300);
  RevocationCheck prevalidated = fresh;
  prevalidated.method = "crl";
  prevalidated.depth = 1;
  prevalidated.source = RevocationSource::kPrevalidated;
  prevalidated.start = At(-50);
  prevalidated.end = At(-20);
  t.ssl.cert_verify.revocation_checks = {fresh, prevalidated};
  std::string svg = LoadTimingsToWaterfallSvg({t});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_NE(svg.find("revocation check: ocsp depth 0 (fresh"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">OCSP/CRL crl depth 1 (prevalidated"), std::string::npos)
      << svg;
}

TEST(WaterfallTest, FailedRequestHasACross) {
  std::string svg = LoadTimingsToWaterfallSvg({FailedDnsTiming()});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_NE(svg.find("1. GET ERR_NAME_NOT_RESOLVED https://missing.test/"),
            std::string::npos);
  EXPECT_NE(svg.find("failed: ERR_NAME_NOT_RESOLVED"), std::string::npos);
}

TEST(WaterfallTest, EmptyRun) {
  std::string svg = LoadTimingsToWaterfallSvg({});
  EXPECT_TRUE(WellFormed(svg)) << svg;
  EXPECT_NE(svg.find("no requests"), std::string::npos);
}

}  // namespace
}  // namespace net
