#include "net/base/request_priority.h"

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(RequestPriorityTest, NamesRoundTripInAnyCase) {
  for (int p = MINIMUM_PRIORITY; p <= MAXIMUM_PRIORITY; ++p) {
    const auto priority = static_cast<RequestPriority>(p);
    EXPECT_EQ(ParseRequestPriority(RequestPriorityToString(priority)),
              priority);
  }
  EXPECT_EQ(ParseRequestPriority("lowest"), LOWEST);
  EXPECT_EQ(ParseRequestPriority("Medium"), MEDIUM);
  EXPECT_EQ(RequestPriorityToString(THROTTLED), std::string("THROTTLED"));
  EXPECT_EQ(RequestPriorityToString(HIGHEST), std::string("HIGHEST"));
}

TEST(RequestPriorityTest, UnknownNamesAreRefused) {
  EXPECT_EQ(ParseRequestPriority(""), std::nullopt);
  EXPECT_EQ(ParseRequestPriority("HIGH"), std::nullopt);
  EXPECT_EQ(ParseRequestPriority("5"), std::nullopt);
  EXPECT_EQ(ParseRequestPriority("HIGHEST "), std::nullopt);
}

TEST(RequestPriorityTest, OrderIsUrgency) {
  EXPECT_LT(THROTTLED, IDLE);
  EXPECT_LT(IDLE, LOWEST);
  EXPECT_LT(LOWEST, LOW);
  EXPECT_LT(LOW, MEDIUM);
  EXPECT_LT(MEDIUM, HIGHEST);
}

}  // namespace
}  // namespace net
