// Chromium's HTTP/2 priorities: the request priority's SPDY/3 priority and
// weight, the RFC 9218 header, and the dependency chain by urgency then age.

#include "net/http2/http2_priority.h"

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(Http2PriorityTest, SpdyPriorityAndWeightOfEachLevel) {
  EXPECT_EQ(RequestPriorityToSpdyPriority(HIGHEST), 0);
  EXPECT_EQ(RequestPriorityToSpdyPriority(MEDIUM), 1);
  EXPECT_EQ(RequestPriorityToSpdyPriority(LOW), 2);
  EXPECT_EQ(RequestPriorityToSpdyPriority(LOWEST), 3);
  EXPECT_EQ(RequestPriorityToSpdyPriority(IDLE), 4);
  EXPECT_EQ(RequestPriorityToSpdyPriority(THROTTLED), 5);
  // Chromium's Spdy3PriorityToHttp2Weight: seven equal steps of 255.9 / 7.
  const int weights[] = {256, 220, 183, 147, 110, 74, 37, 1};
  for (int p = 0; p < 8; ++p)
    EXPECT_EQ(SpdyPriorityToHttp2Weight(p), weights[p]);
  EXPECT_EQ(SpdyPriorityToHttp2Weight(-1), 256);
  EXPECT_EQ(SpdyPriorityToHttp2Weight(9), 1);
}

TEST(Http2PriorityTest, Rfc9218FieldValue) {
  EXPECT_EQ(PriorityFieldValue(HIGHEST, true), "u=0, i");
  EXPECT_EQ(PriorityFieldValue(HIGHEST, false), "u=0");
  EXPECT_EQ(PriorityFieldValue(MEDIUM, true), "u=1, i");
  EXPECT_EQ(PriorityFieldValue(LOW, false), "u=2");
  // Urgency 3 is the default: not written.
  EXPECT_EQ(PriorityFieldValue(LOWEST, true), "i");
  EXPECT_EQ(PriorityFieldValue(LOWEST, false), "");
  EXPECT_EQ(PriorityFieldValue(IDLE, false), "u=4");
  EXPECT_EQ(PriorityFieldValue(THROTTLED, true), "u=5, i");
}

// Every stream depends exclusively on the newest open stream of its own or
// the nearest more urgent priority: one chain, most urgent first.
TEST(Http2PriorityTest, DependencyChainByUrgencyThenAge) {
  Http2PriorityDependencies deps;
  EXPECT_EQ(deps.OnStreamCreation(1, LOWEST),
            (Http2StreamPriority{0, 147, true}));
  // More urgent than everything open: the root.
  EXPECT_EQ(deps.OnStreamCreation(3, HIGHEST),
            (Http2StreamPriority{0, 256, true}));
  // Same priority as 3: after it.
  EXPECT_EQ(deps.OnStreamCreation(5, HIGHEST),
            (Http2StreamPriority{3, 256, true}));
  // MEDIUM: after the newest HIGHEST (no MEDIUM open).
  EXPECT_EQ(deps.OnStreamCreation(7, MEDIUM),
            (Http2StreamPriority{5, 220, true}));
  // LOWEST: after the newest LOWEST (1), not the newest stream.
  EXPECT_EQ(deps.OnStreamCreation(9, LOWEST),
            (Http2StreamPriority{1, 147, true}));
  // IDLE: nothing at IDLE; the nearest more urgent is LOWEST's newest.
  EXPECT_EQ(deps.OnStreamCreation(11, IDLE),
            (Http2StreamPriority{9, 110, true}));
  EXPECT_EQ(deps.OnStreamCreation(13, THROTTLED),
            (Http2StreamPriority{11, 74, true}));
  EXPECT_EQ(deps.size(), 7u);

  // Closed streams are no parents.
  deps.OnStreamDestruction(5);
  deps.OnStreamDestruction(3);
  deps.OnStreamDestruction(99);  // unknown: nothing
  EXPECT_EQ(deps.OnStreamCreation(15, HIGHEST),
            (Http2StreamPriority{0, 256, true}));
  EXPECT_EQ(deps.OnStreamCreation(17, LOW),
            (Http2StreamPriority{7, 183, true}));
  deps.OnStreamDestruction(7);
  EXPECT_EQ(deps.OnStreamCreation(19, MEDIUM),
            (Http2StreamPriority{15, 220, true}));
  EXPECT_EQ(deps.size(), 7u);
}

TEST(Http2PriorityTest, AllHighestIsTheOldChain) {
  // What the session sent before requests had priorities: each HIGHEST
  // stream after the one before, weight 256.
  Http2PriorityDependencies deps;
  int32_t parent = 0;
  for (int32_t id = 1; id < 40; id += 2) {
    EXPECT_EQ(deps.OnStreamCreation(id, HIGHEST),
              (Http2StreamPriority{parent, 256, true}));
    parent = id;
  }
}

TEST(Http2PriorityTest, RecordingAnIdTwiceChangesNothing) {
  Http2PriorityDependencies deps;
  deps.OnStreamCreation(1, LOW);
  deps.OnStreamCreation(3, LOW);
  EXPECT_EQ(deps.OnStreamCreation(1, LOW), (Http2StreamPriority{0, 183, true}));
  EXPECT_EQ(deps.size(), 2u);
  EXPECT_EQ(deps.OnStreamCreation(5, LOW), (Http2StreamPriority{3, 183, true}));
}

}  // namespace
}  // namespace net
