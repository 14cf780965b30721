// Trace files: HAR extras of a hop, which flags want traces, and the files
// written (one JSON object per request; HAR; an unwritable path fails).

#include "tools/fetch/trace_files.h"

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(TraceFilesTest, HarExtras) {
  HttpResponseHeaders response =
      *HttpResponseHeaders::Parse("HTTP/1.1 200 OK\r\nA: b\r\n\r\n");
  HarEntryExtras extras = HarExtrasFor({{"Host", "a.test"}}, "x=1", &response);
  EXPECT_EQ(extras.request_headers, (HttpHeaderList{{"Host", "a.test"}}));
  EXPECT_EQ(extras.request_body, "x=1");
  EXPECT_EQ(extras.request_body_mime_type, "application/x-www-form-urlencoded");
  EXPECT_EQ(extras.response_headers_raw, response.raw());
  extras = HarExtrasFor({}, "", nullptr);
  EXPECT_EQ(extras.request_body_mime_type, "");
  EXPECT_EQ(extras.response_headers_raw, "");
}

TEST(TraceFilesTest, WritesWhatIsAskedFor) {
  FetchOptions options;
  EXPECT_FALSE(WantsTraces(options));
  const std::string dir = ::testing::TempDir();
  options.trace_json_file = dir + "/trace.json";
  options.har_file = dir + "/run.har";
  EXPECT_TRUE(WantsTraces(options));
  LoadTiming a, b;
  a.url = "https://a.test/";
  a.status_code = 301;
  a.start = TimeTicks::FromMicroseconds(1000000);
  b = a;
  b.status_code = 200;
  ASSERT_TRUE(WriteTraceFiles(
      options, {a, b},
      {HarExtrasFor({}, "", nullptr), HarExtrasFor({}, "", nullptr)}));
  std::ifstream json(options.trace_json_file);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(json, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("\"status\":301"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"status\":200"), std::string::npos) << lines[1];
  std::ifstream har(options.har_file);
  std::stringstream har_text;
  har_text << har.rdbuf();
  EXPECT_NE(har_text.str().find("\"entries\""), std::string::npos);

  options.silent = true;  // the message is not the point here
  options.har_file = "/nonexistent-dir/run.har";
  EXPECT_FALSE(WriteTraceFiles(options, {a}, {HarExtrasFor({}, "", nullptr)}));
}

}  // namespace
}  // namespace net
