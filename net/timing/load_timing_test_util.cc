#include "net/timing/load_timing_test_util.h"

#include <cstdint>

#include "net/base/net_errors.h"

namespace net {

TimeTicks At(double ms) {
  return TimeTicks::FromMicroseconds(1'000'000 +
                                     static_cast<int64_t>(ms * 1000));
}

LoadTiming HttpsTiming() {
  LoadTiming t;
  t.url = "https://www.example.test/";
  t.https = true;
  t.start = At(0);
  t.fetch_start = At(1);
  t.dns_start = At(1);
  t.dns_end = At(41);
  t.connect_start = At(41);
  t.ssl_start = At(141);
  t.connect_end = At(341);
  t.request_start = At(341.5);
  t.response_start = At(441);
  t.response_end = At(442);
  t.status_code = 200;
  t.remote_address = "127.0.0.1:443";
  t.dns_source = DnsSource::kNetwork;
  t.ssl.version = "TLSv1.2";
  return t;
}

LoadTiming ReusedConnectionTiming() {
  LoadTiming t;
  t.https = true;
  t.socket_reused = true;
  t.start = At(0);
  t.fetch_start = At(2);
  t.request_start = At(3);
  t.response_start = At(4);
  t.response_end = At(5);
  return t;
}

LoadTiming FailedDnsTiming() {
  LoadTiming t;
  t.url = "https://missing.test/";
  t.https = true;
  t.start = At(0);
  t.dns_start = At(1);
  t.failed_at = At(30);
  t.net_error = ERR_NAME_NOT_RESOLVED;
  return t;
}

}  // namespace net
