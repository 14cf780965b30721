#include "net/base/net_errors.h"

#include <errno.h>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(NetErrorsTest, NamesAreStable) {
  EXPECT_EQ(ErrorToString(OK), "net::OK");
  EXPECT_EQ(ErrorToShortString(ERR_NAME_NOT_RESOLVED), "ERR_NAME_NOT_RESOLVED");
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED, -105);
  EXPECT_EQ(ERR_CERT_REVOKED, -205);
  EXPECT_EQ(ErrorToShortString(-99999), "<unknown net error -99999>");
}

TEST(NetErrorsTest, MapsSystemErrors) {
  EXPECT_EQ(MapSystemError(ECONNREFUSED), ERR_CONNECTION_REFUSED);
  EXPECT_EQ(MapConnectError(ETIMEDOUT), ERR_CONNECTION_TIMED_OUT);
  EXPECT_EQ(MapSystemError(EAGAIN), ERR_IO_PENDING);
}

}  // namespace
}  // namespace net
