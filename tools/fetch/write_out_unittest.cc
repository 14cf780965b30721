// -w: curl's variables from a transfer's trace (times from the first hop's
// start), escapes, %{json}, and the error variables.

#include "tools/fetch/write_out.h"

#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

TimeTicks Ms(int ms) {
  return TimeTicks::FromMicroseconds(1000000 + ms * 1000);
}

// An https request on a fresh connection at 100-150 ms, after one redirect
// hop at 0-90 ms.
struct Fixture {
  Fixture() {
    hop.start = Ms(0);
    hop.connect_start = Ms(5);
    hop.response_end = Ms(90);
    hop.status_code = 301;
    t.start = Ms(100);
    t.dns_start = Ms(101);
    t.dns_end = Ms(110);
    t.connect_start = Ms(110);
    t.ssl_start = Ms(120);
    t.connect_end = Ms(130);
    t.request_start = Ms(131);
    t.response_start = Ms(140);
    t.response_end = Ms(150);
    t.https = true;
    t.status_code = 200;
    t.body_bytes = 1234;
    t.header_bytes = 56;
    t.remote_address = "127.0.0.2:8443";
    t.ssl.version = "TLSv1.3";
    hops = {hop};
    transfer.timing = &t;
    transfer.hops = &hops;
    transfer.url_effective = "https://a.test/final";
  }
  LoadTiming hop, t;
  std::vector<LoadTiming> hops;
  WriteOutTransfer transfer;
};

TEST(WriteOutTest, CurlVariables) {
  Fixture f;
  EXPECT_EQ(FormatWriteOut("%{http_code} %{num_redirects} %{url_effective} "
                           "%{num_connects} %{size_download}\\n",
                           f.transfer),
            "200 1 https://a.test/final 2 1234\n");
  EXPECT_EQ(FormatWriteOut("%{time_namelookup} %{time_connect} "
                           "%{time_appconnect} %{time_pretransfer} "
                           "%{time_starttransfer} %{time_redirect} "
                           "%{time_total}",
                           f.transfer),
            "0.110000 0.120000 0.130000 0.131000 0.140000 0.100000 0.150000");
  EXPECT_EQ(FormatWriteOut("%{remote_ip}:%{remote_port} %{tls_version} "
                           "%{cert_source} %{exitcode}",
                           f.transfer),
            "127.0.0.2:8443 TLSv1.3 handshake 0");
}

TEST(WriteOutTest, EscapesPercentAndUnknownVariables) {
  Fixture f;
  std::vector<std::string> unknown;
  EXPECT_EQ(
      FormatWriteOut("a\\tb\\rc %% %{nope}|%{http_code", f.transfer, &unknown),
      "a\tb\rc % |%{http_code");
  EXPECT_EQ(unknown, std::vector<std::string>{"nope"});
}

TEST(WriteOutTest, JsonHasEveryVariable) {
  Fixture f;
  const std::string json = FormatWriteOut("%{json}", f.transfer);
  for (const auto& [name, value] : WriteOutVariables(f.transfer)) {
    EXPECT_NE(json.find("\"" + name + "\":"), std::string::npos) << name;
  }
  // Numbers as numbers, as curl's %{json}; strings quoted.
  EXPECT_NE(json.find("\"http_code\":200,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"remote_port\":8443,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"time_total\":0."), std::string::npos) << json;
  EXPECT_NE(json.find("\"tls_version\":\"TLSv1.3\""), std::string::npos)
      << json;
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '}');
}

TEST(WriteOutTest, ErrorsAndRedirectUrl) {
  Fixture f;
  f.hops.clear();
  f.t.response_end = TimeTicks();
  f.t.failed_at = Ms(120);
  f.transfer.result = ERR_TOO_MANY_REDIRECTS;
  f.transfer.error_detail = "maximum (3) redirects followed";
  f.transfer.redirect_url = "https://a.test/next";
  EXPECT_EQ(FormatWriteOut("%{exitcode}|%{errormsg}|%{redirect_url}|"
                           "%{time_total}|%{time_redirect}|%{num_redirects}",
                           f.transfer),
            "47|maximum (3) redirects followed|https://a.test/next|"
            "0.020000|0.000000|0");
  f.transfer.result = OK;
  EXPECT_EQ(FormatWriteOut("%{errormsg}", f.transfer), "");
}

}  // namespace
}  // namespace net
