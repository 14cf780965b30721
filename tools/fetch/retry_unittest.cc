#include "tools/fetch/retry.h"

#include "gtest/gtest.h"
#include "net/base/net_errors.h"

namespace net {
namespace {

TEST(RetryTest, CurlsTransientOutcomesOnly) {
  FetchOptions o;
  o.retry = 3;
  std::string why;
  for (int status : {408, 429, 500, 502, 503, 504})
    EXPECT_TRUE(RetryDelay(o, OK, status, "", 0, absl::ZeroDuration(), &why))
        << status;
  for (int status : {200, 301, 404, 501, 505})
    EXPECT_FALSE(RetryDelay(o, OK, status, "", 0, absl::ZeroDuration(), &why))
        << status;
  EXPECT_TRUE(
      RetryDelay(o, ERR_TIMED_OUT, 0, "", 0, absl::ZeroDuration(), &why));
  EXPECT_EQ(why, "Timeout");
  EXPECT_FALSE(RetryDelay(o, ERR_CONNECTION_REFUSED, 0, "", 0,
                          absl::ZeroDuration(), &why));
  EXPECT_FALSE(RetryDelay(o, ERR_NAME_NOT_RESOLVED, 0, "", 0,
                          absl::ZeroDuration(), &why));
  o.retry_connrefused = true;
  EXPECT_TRUE(RetryDelay(o, ERR_CONNECTION_REFUSED, 0, "", 0,
                         absl::ZeroDuration(), &why));
  // No retries left.
  EXPECT_FALSE(RetryDelay(o, OK, 503, "", 3, absl::ZeroDuration(), &why));
  o.retry = 0;
  EXPECT_FALSE(RetryDelay(o, OK, 503, "", 0, absl::ZeroDuration(), &why));
}

TEST(RetryTest, DelaysAsCurl) {
  FetchOptions o;
  o.retry = 20;
  std::string why;
  auto delay = [&](int done, const std::string& retry_after = "") {
    return *RetryDelay(o, OK, 503, retry_after, done, absl::ZeroDuration(),
                       &why);
  };
  EXPECT_EQ(delay(0), absl::Seconds(1));
  EXPECT_EQ(delay(1), absl::Seconds(2));
  EXPECT_EQ(delay(3), absl::Seconds(8));
  EXPECT_EQ(delay(15), absl::Minutes(10));     // capped
  EXPECT_EQ(delay(0, "7"), absl::Seconds(7));  // Retry-After, seconds form
  EXPECT_EQ(delay(0, "Wed, 21 Oct 2015 07:28:00 GMT"), absl::Seconds(1));
  o.retry_delay = absl::Seconds(3);
  EXPECT_EQ(delay(5, "7"), absl::Seconds(3));  // --retry-delay wins
  o.retry_max_time = absl::Seconds(10);
  EXPECT_FALSE(RetryDelay(o, OK, 503, "", 0, absl::Seconds(8), &why));
  EXPECT_TRUE(RetryDelay(o, OK, 503, "", 0, absl::Seconds(6), &why));
}

}  // namespace
}  // namespace net
