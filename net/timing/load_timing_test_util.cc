#include "net/timing/load_timing_test_util.h"

#include <cstdint>

#include "absl/strings/match.h"
#include "net/base/net_errors.h"

namespace net {

TimeTicks At(double ms) {
  return TimeTicks::FromMicroseconds(1'000'000 +
                                     static_cast<int64_t>(ms * 1000));
}

LoadTimingBuilder::LoadTimingBuilder(const std::string& url) {
  t_.url = url;
  t_.https = absl::StartsWith(url, "https://");
}

LoadTimingBuilder& LoadTimingBuilder::Start(double start,
                                            std::optional<double> fetch_start) {
  t_.start = At(start);
  if (fetch_start) t_.fetch_start = At(*fetch_start);
  return *this;
}

LoadTimingBuilder& LoadTimingBuilder::Dns(double start, double end,
                                          DnsSource source) {
  t_.dns_start = At(start);
  t_.dns_end = At(end);
  t_.dns_source = source;
  return *this;
}

LoadTimingBuilder& LoadTimingBuilder::DnsStart(double start, DnsSource source) {
  t_.dns_start = At(start);
  t_.dns_source = source;
  return *this;
}

LoadTimingBuilder& LoadTimingBuilder::Connect(double start, double end) {
  t_.connect_start = At(start);
  t_.connect_end = At(end);
  return *this;
}

LoadTimingBuilder& LoadTimingBuilder::Tls(double ssl_start) {
  t_.ssl_start = At(ssl_start);
  return *this;
}

LoadTimingBuilder& LoadTimingBuilder::Exchange(double request,
                                               double response_start,
                                               double response_end,
                                               int status) {
  t_.request_start = At(request);
  t_.response_start = At(response_start);
  t_.response_end = At(response_end);
  t_.status_code = status;
  return *this;
}

LoadTimingBuilder& LoadTimingBuilder::From(const std::string& remote_address) {
  t_.remote_address = remote_address;
  return *this;
}

LoadTimingBuilder& LoadTimingBuilder::Failed(double at, int net_error) {
  t_.failed_at = At(at);
  t_.net_error = net_error;
  return *this;
}

LoadTiming HttpsTiming() {
  LoadTiming t = LoadTimingBuilder("https://www.example.test/")
                     .Start(0, 1)
                     .Dns(1, 41, DnsSource::kNetwork)
                     .Connect(41, 341)
                     .Tls(141)
                     .Exchange(341.5, 441, 442, 200)
                     .From("127.0.0.1:443")
                     .Build();
  t.ssl.version = "TLSv1.2";
  return t;
}

LoadTiming ReusedConnectionTiming() {
  // No URL, but https: the tests of a reused connection look only at its
  // points.
  LoadTiming t = LoadTimingBuilder("").Start(0, 2).Build();
  t.https = true;
  t.socket_reused = true;
  t.request_start = At(3);
  t.response_start = At(4);
  t.response_end = At(5);
  return t;
}

LoadTiming FailedDnsTiming() {
  return LoadTimingBuilder("https://missing.test/")
      .Start(0)
      .DnsStart(1, DnsSource::kNone)
      .Failed(30, ERR_NAME_NOT_RESOLVED)
      .Build();
}

}  // namespace net
