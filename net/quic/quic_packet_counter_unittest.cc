#include "net/quic/quic_packet_counter.h"

#include <string>

#include "gtest/gtest.h"

namespace net {
namespace {

TEST(QuicPacketCounterTest, CountsNgtcp2Records) {
  QuicPacketCounter counter;
  // ngtcp2 1.11's own shapes (lib/ngtcp2_qlog.c).
  counter.OnQlogRecord(
      "\x1e{\"time\":0.5,\"name\":\"transport:packet_sent\",\"data\":{"
      "\"frames\":[{\"frame_type\":\"ping\"}],\"header\":{}}}\n");
  counter.OnQlogRecord(
      "\x1e{\"time\":1.5,\"name\":\"transport:packet_received\",\"data\":{}}"
      "\n");
  counter.OnQlogRecord(
      "\x1e{\"time\":2,\"name\":\"transport:packet_sent\",\"data\":{}}\n");
  counter.OnQlogRecord(
      "\x1e{\"time\":3,\"name\":\"recovery:packet_lost\",\"data\":{"
      "\"header\":{\"packet_type\":\"1RTT\",\"packet_number\":7}}}\n");
  counter.OnQlogRecord(
      "\x1e{\"time\":3,\"name\":\"recovery:metrics_updated\",\"data\":{}}\n");
  // The qlog header record and the final record carry no event name.
  counter.OnQlogRecord("\x1e{\"qlog_version\":\"0.3\",\"trace\":{}}\n");
  EXPECT_EQ(counter.counts().sent, 2u);
  EXPECT_EQ(counter.counts().received, 1u);
  EXPECT_EQ(counter.counts().lost, 1u);
  EXPECT_EQ(counter.malformed(), 1u);
}

TEST(QuicPacketCounterTest, MalformedRecordsAreNamed) {
  EXPECT_FALSE(ParseQlogEventName("").ok());
  EXPECT_FALSE(ParseQlogEventName("{\"name\":\"x\"}").ok());  // no RS
  EXPECT_FALSE(ParseQlogEventName("\x1e[\"name\"]").ok());
  EXPECT_FALSE(ParseQlogEventName("\x1e{\"name\":\"unterminated").ok());
  EXPECT_FALSE(ParseQlogEventName("\x1e{\"name\":\"a\\\"b\"}").ok());
  // A name past the first kMaxNameOffset bytes is not looked for.
  std::string far = "\x1e{\"pad\":\"" + std::string(kMaxNameOffset, 'x') +
                    "\",\"name\":\"transport:packet_sent\"}";
  EXPECT_FALSE(ParseQlogEventName(far).ok());
  auto name = ParseQlogEventName("\x1e{\"name\":\"a:b\"}");
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, "a:b");
  EXPECT_EQ(*ParseQlogEventName("\x1e{\"name\":\"\"}"), "");
}

}  // namespace
}  // namespace net
