#include "net/base/net_errors.h"

#include <errno.h>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(NetErrorsTest, NamesAreStable) {
  EXPECT_EQ(ErrorToString(OK), "net::OK");
  EXPECT_EQ(ErrorToShortString(ERR_NAME_NOT_RESOLVED), "ERR_NAME_NOT_RESOLVED");
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED, -403);
  EXPECT_EQ(ERR_CERT_REVOKED, -205);
  EXPECT_EQ(ERR_SSL_PROTOCOL_ERROR, -503);
  EXPECT_EQ(ERR_SNAP_START_REJECTED, -700);
  EXPECT_EQ(ERR_OBC_KEY_GENERATION_FAILED, -750);
  EXPECT_EQ(ErrorToShortString(-99999), "<unknown net error -99999>");
}

// Every error lies in the range its name says (net_error_list.h): a TLS
// error among the connection errors would be classified (and given fetch's
// exit code) as a connection error.
TEST(NetErrorsTest, EveryErrorIsInItsNamedRange) {
  struct Rule {
    const char* prefix;
    NetErrorArea area;
  };
  const Rule rules[] = {
      {"ERR_SSL_", NetErrorArea::kTls},
      {"ERR_ECH_", NetErrorArea::kTls},
      {"ERR_CERT_", NetErrorArea::kCertificate},
      {"ERR_DNS_", NetErrorArea::kDns},
      {"ERR_NAME_NOT_RESOLVED", NetErrorArea::kDns},
      {"ERR_CONNECTION_", NetErrorArea::kConnection},
      {"ERR_SOCKET_", NetErrorArea::kConnection},
      {"ERR_ADDRESS_", NetErrorArea::kConnection},
      {"ERR_SPDY_", NetErrorArea::kSpdy},
      {"ERR_HTTP2_", NetErrorArea::kSpdy},
      {"ERR_PREFETCH_", NetErrorArea::kPrefetch},
      {"ERR_SNAP_START_", NetErrorArea::kSnapStart},
      {"ERR_OBC_", NetErrorArea::kObc},
      {"ERR_QUIC_", NetErrorArea::kQuic},
      {"ERR_HTTP3_", NetErrorArea::kQuic},
  };
  int checked = 0;
#define NET_ERROR(label, value)                                             \
  for (const Rule& rule : rules) {                                          \
    const std::string name = "ERR_" #label;                                 \
    if (name.rfind(rule.prefix, 0) == 0) {                                  \
      ++checked;                                                            \
      EXPECT_EQ(GetNetErrorArea(value), rule.area)                          \
          << name << " (" << value << ") is in the "                        \
          << NetErrorAreaToString(GetNetErrorArea(value)) << " range, not " \
          << NetErrorAreaToString(rule.area);                               \
    }                                                                       \
  }                                                                         \
  EXPECT_NE(GetNetErrorArea(value), NetErrorArea::kUnknown) << #label;      \
  EXPECT_EQ(ErrorToShortString(value), "ERR_" #label);
#include "net/base/net_error_list.h"
#undef NET_ERROR
  EXPECT_GT(checked, 20);
  EXPECT_EQ(GetNetErrorArea(OK), NetErrorArea::kOk);
}

TEST(NetErrorsTest, MapsSystemErrors) {
  EXPECT_EQ(MapSystemError(ECONNREFUSED), ERR_CONNECTION_REFUSED);
  EXPECT_EQ(MapConnectError(ETIMEDOUT), ERR_CONNECTION_TIMED_OUT);
  EXPECT_EQ(MapSystemError(EAGAIN), ERR_IO_PENDING);
}

}  // namespace
}  // namespace net
