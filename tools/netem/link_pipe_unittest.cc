#include "tools/netem/link_pipe.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/netem/delivery_trace.h"
#include "tools/netem/loss_model.h"
#include "tools/netem/packet_queue.h"

namespace netem {
namespace {

constexpr int64_t kMs = 1'000'000;

std::string PacketOf(size_t bytes, char fill = 'x') {
  return std::string(bytes, fill);
}

// Runs |pipe| forward event by event until |until_ns|, recording each
// delivery's time and first byte.
struct Delivery {
  int64_t at_ns;
  char tag;
  size_t size;
};
std::vector<Delivery> Drain(LinkPipe& pipe, int64_t until_ns) {
  std::vector<Delivery> out;
  for (;;) {
    std::optional<int64_t> next = pipe.NextEventNs();
    if (!next || *next > until_ns) break;
    pipe.Deliver(*next, [&](const std::string& p) {
      out.push_back({*next, p[0], p.size()});
    });
  }
  return out;
}

TEST(LinkPipeTest, DelayOnly) {
  PipeParams params;
  params.delay_ns = 50 * kMs;
  LinkPipe pipe(params);
  pipe.Enqueue(PacketOf(100, 'a'), 0);
  pipe.Enqueue(PacketOf(100, 'b'), 3 * kMs);
  std::vector<Delivery> d = Drain(pipe, 1000 * kMs);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].at_ns, 50 * kMs);
  EXPECT_EQ(d[0].tag, 'a');
  EXPECT_EQ(d[1].at_ns, 53 * kMs);
  EXPECT_EQ(pipe.stats().packets_out, 2u);
  EXPECT_EQ(pipe.stats().bytes_out, 200u);
}

TEST(LinkPipeTest, NothingDeliveredEarly) {
  PipeParams params;
  params.delay_ns = 10 * kMs;
  LinkPipe pipe(params);
  pipe.Enqueue(PacketOf(10), 0);
  int delivered = 0;
  pipe.Deliver(10 * kMs - 1, [&](const std::string&) { ++delivered; });
  EXPECT_EQ(delivered, 0);
  pipe.Deliver(10 * kMs, [&](const std::string&) { ++delivered; });
  EXPECT_EQ(delivered, 1);
  EXPECT_FALSE(pipe.NextEventNs().has_value());
}

TEST(LinkPipeTest, JitterNeverReordersUnlessAsked) {
  for (bool reorder : {false, true}) {
    PipeParams params;
    params.delay_ns = 10 * kMs;
    params.jitter_ns = 20 * kMs;
    params.reorder = reorder;
    LinkPipe pipe(params);
    for (int i = 0; i < 200; ++i) {
      pipe.Enqueue(PacketOf(10, static_cast<char>(i)), i * 100'000);
    }
    std::vector<Delivery> d = Drain(pipe, 10'000 * kMs);
    ASSERT_EQ(d.size(), 200u);
    int inversions = 0;
    for (size_t i = 1; i < d.size(); ++i) {
      if (static_cast<unsigned char>(d[i].tag) <
          static_cast<unsigned char>(d[i - 1].tag)) {
        ++inversions;
      }
      EXPECT_GE(d[i].at_ns, d[i - 1].at_ns);
    }
    if (reorder) {
      EXPECT_GT(inversions, 10);
    } else {
      EXPECT_EQ(inversions, 0);
    }
  }
}

TEST(LinkPipeTest, ConstantRateSerializes) {
  PipeParams params;
  params.rate_bps = 12e6;  // 1500 bytes = 1 ms
  params.delay_ns = 5 * kMs;
  LinkPipe pipe(params);
  for (int i = 0; i < 10; ++i) pipe.Enqueue(PacketOf(1500), 0);
  std::vector<Delivery> d = Drain(pipe, 1000 * kMs);
  ASSERT_EQ(d.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(d[i].at_ns, (i + 1) * kMs + 5 * kMs) << i;
  }
  // The tenth packet waited 9 ms in the queue.
  EXPECT_NEAR(pipe.stats().QueueDelayQuantileMs(1.0), 9.0, 1e-9);
  EXPECT_NEAR(pipe.stats().QueueDelayQuantileMs(0.0), 0.0, 1e-9);
}

TEST(LinkPipeTest, RateDoesNotDriftWithLateWakeUps) {
  // Deliver called late (as a busy loop would) must not slow the link: the
  // next packet starts when the previous one ended, not when we woke up.
  PipeParams params;
  params.rate_bps = 12e6;
  LinkPipe pipe(params);
  for (int i = 0; i < 100; ++i) pipe.Enqueue(PacketOf(1500), 0);
  std::vector<int64_t> times;
  for (int64_t t = 0; t <= 200 * kMs; t += 3 * kMs + 7) {
    pipe.Deliver(t, [&](const std::string&) { times.push_back(t); });
  }
  ASSERT_EQ(times.size(), 100u);
  EXPECT_LE(times.back(), 100 * kMs + 3 * kMs + 7);
}

TEST(LinkPipeTest, DropTailPackets) {
  PipeParams params;
  params.rate_bps = 12e6;
  params.queue = *QueueParams::Parse("droptail:5");
  LinkPipe pipe(params);
  for (int i = 0; i < 20; ++i) pipe.Enqueue(PacketOf(1500), 0);
  EXPECT_EQ(pipe.stats().drops_queue, 15u);
  EXPECT_EQ(Drain(pipe, 1000 * kMs).size(), 5u);
  EXPECT_EQ(pipe.stats().max_queue_packets, 5u);
}

TEST(LinkPipeTest, DropTailBytes) {
  PipeParams params;
  params.rate_bps = 12e6;
  params.queue = *QueueParams::Parse("droptail:4000b");
  LinkPipe pipe(params);
  for (int i = 0; i < 4; ++i) pipe.Enqueue(PacketOf(1500), 0);
  EXPECT_EQ(pipe.stats().drops_queue, 2u);  // 1500 + 1500 fit, 4500 not
  pipe.Enqueue(PacketOf(900), 0);           // 3900 fits
  EXPECT_EQ(pipe.stats().drops_queue, 2u);
}

TEST(LinkPipeTest, AFloodIntoALongDelayStaysBounded) {
  PipeParams params;
  params.delay_ns = 3600'000 * kMs;  // an hour on the wire
  params.max_in_flight_bytes = 100'000;
  LinkPipe pipe(params);
  for (int i = 0; i < 1000; ++i) {
    pipe.Enqueue(PacketOf(1000), i);
    pipe.Deliver(i, [](const std::string&) {});
  }
  EXPECT_EQ(pipe.stats().drops_queue, 900u);
  EXPECT_EQ(Drain(pipe, 3601'000 * kMs).size(), 100u);
  // Once delivered, the room is there again.
  pipe.Enqueue(PacketOf(1000), 3601'000 * kMs);
  EXPECT_EQ(Drain(pipe, 7300'000 * kMs).size(), 1u);
}

TEST(LinkPipeTest, MtuDrops) {
  PipeParams params;
  params.mtu = 1400;
  LinkPipe pipe(params);
  pipe.Enqueue(PacketOf(1401), 0);
  pipe.Enqueue(PacketOf(1400), 0);
  EXPECT_EQ(pipe.stats().drops_mtu, 1u);
  EXPECT_EQ(Drain(pipe, kMs).size(), 1u);
}

TEST(LinkPipeTest, CoDelRemovesAStandingQueueDropTailKeeps) {
  // A burst leaves 200 ms of queue, then packets arrive at exactly the link's
  // rate for 5 s: drop-tail keeps the standing queue for good (CoDel's "bad
  // queue"), CoDel drops until packets wait less than its 5 ms target.
  for (const char* discipline : {"droptail:1000", "codel"}) {
    PipeParams params;
    params.rate_bps = 12e6;  // one 1500-byte packet per ms
    params.queue = *QueueParams::Parse(discipline);
    LinkPipe pipe(params);
    for (int i = 0; i < 200; ++i) pipe.Enqueue(PacketOf(1500), 0);
    for (int i = 0; i < 5000; ++i) {
      pipe.Deliver(i * kMs, [](const std::string&) {});
      pipe.Enqueue(PacketOf(1500), i * kMs);
    }
    Drain(pipe, 100'000 * kMs);
    const PipeStats& s = pipe.stats();
    if (std::string(discipline) == "codel") {
      // About 195 drops remove the standing queue; RFC 8289's control law
      // spaces them interval/sqrt(count) apart (about 2.8 s for 195), so
      // the median over the 5 s is tens of ms, not 200.
      EXPECT_GE(s.drops_codel, 180u);
      EXPECT_LE(s.drops_codel, 260u);
      EXPECT_LT(s.QueueDelayQuantileMs(0.5), 50.0);
    } else {
      EXPECT_EQ(s.drops_codel, 0u);
      EXPECT_GT(s.QueueDelayQuantileMs(0.5), 150.0);
    }
    EXPECT_EQ(s.drops_queue, 0u) << discipline;
  }
}

TEST(LinkPipeTest, CoDelIdleWithoutStandingQueue) {
  PipeParams params;
  params.rate_bps = 12e6;
  params.queue = *QueueParams::Parse("codel");
  LinkPipe pipe(params);
  for (int i = 0; i < 1000; ++i) {
    pipe.Deliver(i * 2 * kMs, [](const std::string&) {});
    pipe.Enqueue(PacketOf(1500), i * 2 * kMs);  // half the link's rate
  }
  Drain(pipe, 10'000 * kMs);
  EXPECT_EQ(pipe.stats().drops_codel, 0u);
  EXPECT_EQ(pipe.stats().packets_out, 1000u);
}

TEST(LinkPipeTest, TraceDeliversOnOpportunities) {
  // Opportunities at 1, 1, 3 ms, then repeating every 3 ms (period = last).
  absl::StatusOr<DeliveryTrace> trace = DeliveryTrace::Parse("1\n1\n3\n");
  ASSERT_TRUE(trace.ok()) << trace.status();
  PipeParams params;
  params.trace = *trace;
  LinkPipe pipe(params);
  for (int i = 0; i < 5; ++i) pipe.Enqueue(PacketOf(1500, 'a' + i), 0);
  std::vector<Delivery> d = Drain(pipe, 100 * kMs);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].at_ns, 1 * kMs);
  EXPECT_EQ(d[1].at_ns, 1 * kMs);
  EXPECT_EQ(d[2].at_ns, 3 * kMs);
  EXPECT_EQ(d[3].at_ns, 4 * kMs);  // the next period's 1 ms
  EXPECT_EQ(d[4].at_ns, 4 * kMs);
}

TEST(LinkPipeTest, TraceOpportunitiesPassUnusedAndSmallPacketsShare) {
  absl::StatusOr<DeliveryTrace> trace = DeliveryTrace::Parse("2\n4\n");
  ASSERT_TRUE(trace.ok());
  PipeParams params;
  params.trace = *trace;
  LinkPipe pipe(params);
  // Arrives after the 2 ms and 4 ms opportunities: waits for 6 (2 + 4).
  pipe.Enqueue(PacketOf(500, 'a'), 5 * kMs);
  pipe.Enqueue(PacketOf(500, 'b'), 5 * kMs);
  pipe.Enqueue(PacketOf(1000, 'c'), 5 * kMs);  // 500 in one, 500 in the next
  std::vector<Delivery> d = Drain(pipe, 100 * kMs);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].at_ns, 6 * kMs);
  EXPECT_EQ(d[1].at_ns, 6 * kMs);
  EXPECT_EQ(d[2].at_ns, 8 * kMs);
}

TEST(DeliveryTraceTest, RejectsBadTraces) {
  EXPECT_FALSE(DeliveryTrace::Parse("").ok());
  EXPECT_FALSE(DeliveryTrace::Parse("0\n").ok());
  EXPECT_FALSE(DeliveryTrace::Parse("5\n3\n").ok());
  EXPECT_FALSE(DeliveryTrace::Parse("1\nabc\n").ok());
  EXPECT_FALSE(DeliveryTrace::Parse("-1\n4\n").ok());
  EXPECT_TRUE(DeliveryTrace::Parse("# comment\n0\n\n4 # x\n").ok());
  EXPECT_FALSE(DeliveryTrace::Load("/nonexistent/trace").ok());
}

TEST(DeliveryTraceTest, ShippedTracesParse) {
  for (const char* name : {"tools/netem/traces/constant-12mbps.trace",
                           "tools/netem/traces/cellular-variable.trace"}) {
    absl::StatusOr<DeliveryTrace> t = DeliveryTrace::Load(name);
    ASSERT_TRUE(t.ok()) << name << ": " << t.status();
    EXPECT_GT(t->mean_rate_bps(), 1e6) << name;
  }
  absl::StatusOr<DeliveryTrace> constant =
      DeliveryTrace::Load("tools/netem/traces/constant-12mbps.trace");
  ASSERT_TRUE(constant.ok());
  EXPECT_NEAR(constant->mean_rate_bps(), 12e6, 1e3);
}

TEST(LossModelTest, BernoulliRateWithinTheBinomialInterval) {
  LossParams p;
  p.kind = LossParams::Kind::kBernoulli;
  p.rate = 0.02;
  LossModel m(p, 7);
  const int n = 200'000;
  int lost = 0;
  for (int i = 0; i < n; ++i) lost += m.Drop();
  // 99% interval: rate +- 2.576 sqrt(p(1-p)/n).
  double half = 2.576 * std::sqrt(0.02 * 0.98 / n);
  EXPECT_NEAR(static_cast<double>(lost) / n, 0.02, half);
}

TEST(LossModelTest, GilbertRateAndMeanBurst) {
  LossParams p;
  p.kind = LossParams::Kind::kGilbert;
  p.rate = 0.05;
  p.mean_burst = 4;
  LossModel m(p, 11);
  const int n = 1'000'000;
  int lost = 0, bursts = 0;
  bool prev = false;
  for (int i = 0; i < n; ++i) {
    bool d = m.Drop();
    lost += d;
    if (d && !prev) ++bursts;
    prev = d;
  }
  EXPECT_NEAR(static_cast<double>(lost) / n, 0.05, 0.005);
  EXPECT_NEAR(static_cast<double>(lost) / bursts, 4.0, 0.2);
}

TEST(LossModelTest, NoneNeverDrops) {
  LossModel m(LossParams{}, 1);
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(m.Drop());
}

TEST(LinkPipeTest, LossIsCountedAndNotDelivered) {
  PipeParams params;
  params.loss.kind = LossParams::Kind::kBernoulli;
  params.loss.rate = 0.5;
  LinkPipe pipe(params);
  for (int i = 0; i < 1000; ++i) pipe.Enqueue(PacketOf(100), i);
  size_t delivered = Drain(pipe, kMs).size();
  EXPECT_EQ(delivered + pipe.stats().drops_loss, 1000u);
  EXPECT_GT(pipe.stats().drops_loss, 400u);
  EXPECT_LT(pipe.stats().drops_loss, 600u);
}

TEST(QueueParamsTest, Parse) {
  EXPECT_EQ(QueueParams::Parse("unlimited")->kind,
            QueueParams::Kind::kUnlimited);
  EXPECT_EQ(QueueParams::Parse("droptail:100")->limit, 100);
  EXPECT_EQ(QueueParams::Parse("droptail:150000b")->kind,
            QueueParams::Kind::kDropTailBytes);
  absl::StatusOr<QueueParams> codel = QueueParams::Parse("codel:10,200,50");
  ASSERT_TRUE(codel.ok());
  EXPECT_EQ(codel->codel_target_ns, 10 * kMs);
  EXPECT_EQ(codel->codel_interval_ns, 200 * kMs);
  EXPECT_EQ(codel->limit, 50);
  for (const char* bad : {"", "droptail", "droptail:0", "droptail:-1",
                          "droptail:100b", "codel:1", "codel:x,y", "red"}) {
    EXPECT_FALSE(QueueParams::Parse(bad).ok()) << bad;
  }
}

TEST(PipeStatsTest, JsonHasEveryField) {
  PipeParams params;
  params.rate_bps = 12e6;
  LinkPipe pipe(params);
  pipe.Enqueue(PacketOf(1500), 0);
  pipe.Enqueue(PacketOf(1500), 0);
  Drain(pipe, 100 * kMs);
  std::string json = pipe.stats().ToJson();
  for (const char* key : {"\"packets_in\": 2", "\"bytes_out\": 3000",
                          "\"loss\": 0", "\"codel\": 0", "\"mtu\": 0",
                          "\"queue\": 0", "\"p99\": 1.000", "\"max\": 1.000"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
}

}  // namespace
}  // namespace netem

namespace netem {
namespace {

// An IPv4 TCP segment with |flags| and |payload| bytes of data.
std::string Ipv4Tcp(uint8_t flags, size_t payload, size_t tcp_options = 0) {
  const size_t tcp_header = 20 + tcp_options;
  const size_t total = 20 + tcp_header + payload;
  std::string p(total, '\0');
  p[0] = 0x45;
  p[2] = static_cast<char>(total >> 8);
  p[3] = static_cast<char>(total);
  p[9] = 6;
  p[20 + 12] = static_cast<char>((tcp_header / 4) << 4);
  p[20 + 13] = static_cast<char>(flags);
  return p;
}

std::string Ipv6Tcp(uint8_t flags, size_t payload) {
  std::string p(40 + 20 + payload, '\0');
  p[0] = 0x60;
  p[4] = static_cast<char>((20 + payload) >> 8);
  p[5] = static_cast<char>(20 + payload);
  p[6] = 6;
  p[40 + 12] = 0x50;
  p[40 + 13] = static_cast<char>(flags);
  return p;
}

constexpr uint8_t kSyn = 0x02, kAck = 0x10;

// The TCP checksum of an IPv4 |packet| (pseudo-header included), computed
// from scratch, with the checksum field taken as zero.
uint16_t FullTcpChecksum(std::string packet) {
  auto* p = reinterpret_cast<uint8_t*>(packet.data());
  const size_t ihl = (p[0] & 0x0f) * 4;
  const size_t total = p[2] << 8 | p[3];
  p[ihl + 16] = p[ihl + 17] = 0;
  uint32_t sum = 0;
  auto add16 = [&](const uint8_t* b, size_t n) {
    for (size_t i = 0; i + 1 < n; i += 2) sum += b[i] << 8 | b[i + 1];
    if (n % 2) sum += b[n - 1] << 8;
  };
  add16(p + 12, 8);  // source and destination addresses
  sum += 6;
  sum += static_cast<uint32_t>(total - ihl);
  add16(p + ihl, total - ihl);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

TEST(SynDataTest, SourcePortRewriteKeepsTheChecksumRight) {
  std::string syn = Ipv4Tcp(kSyn, 333, 20);
  for (size_t i = 12; i < syn.size(); ++i)
    syn[i] = static_cast<char>(i * 37 + 11);  // addresses, ports, data
  syn[9] = 6;
  syn[20 + 12] = static_cast<char>((40 / 4) << 4);
  syn[20 + 13] = kSyn;
  const uint16_t sum = FullTcpChecksum(syn);
  syn[20 + 16] = static_cast<char>(sum >> 8);
  syn[20 + 17] = static_cast<char>(sum);
  ASSERT_TRUE(IsTcpSynWithData(syn));
  for (uint16_t port : {1, 1024, 40000, 65535}) {
    std::string copy = syn;
    SetTcpSourcePort(&copy, port);
    EXPECT_EQ(
        (static_cast<uint8_t>(copy[20]) << 8) | static_cast<uint8_t>(copy[21]),
        port);
    EXPECT_EQ(TcpSourcePort(copy), port);
    const uint16_t want = FullTcpChecksum(copy);
    EXPECT_EQ(
        (static_cast<uint8_t>(copy[36]) << 8) | static_cast<uint8_t>(copy[37]),
        want)
        << port;
  }
}

TEST(SynDataTest, RecognizesOnlySynsCarryingData) {
  EXPECT_TRUE(IsTcpSynWithData(Ipv4Tcp(kSyn, 500, 20)));
  EXPECT_TRUE(IsTcpSynWithData(Ipv6Tcp(kSyn, 1)));
  EXPECT_FALSE(IsTcpSynWithData(Ipv4Tcp(kSyn, 0, 20)));       // plain SYN
  EXPECT_FALSE(IsTcpSynWithData(Ipv4Tcp(kSyn | kAck, 500)));  // SYN-ACK
  EXPECT_FALSE(IsTcpSynWithData(Ipv4Tcp(kAck, 500)));
  EXPECT_FALSE(IsTcpSynWithData(Ipv6Tcp(kSyn, 0)));
  std::string udp = Ipv4Tcp(kSyn, 100);
  udp[9] = 17;
  EXPECT_FALSE(IsTcpSynWithData(udp));
  // Every truncation of a SYN with data is refused, never read past.
  const std::string syn = Ipv4Tcp(kSyn, 100, 12);
  for (size_t n = 0; n < syn.size(); ++n)
    EXPECT_FALSE(IsTcpSynWithData(syn.substr(0, n))) << n;
  // Header lengths that lie.
  std::string bad_ihl = syn;
  bad_ihl[0] = 0x44;  // 16-byte IP header
  EXPECT_FALSE(IsTcpSynWithData(bad_ihl));
  std::string bad_doff = syn;
  bad_doff[20 + 12] = static_cast<char>(0xf0);  // 60 bytes, past the data
  EXPECT_TRUE(IsTcpSynWithData(bad_doff));      // 60 < 20 + 32 + 100
  bad_doff[3] = static_cast<char>(20 + 40);     // total: headers only
  bad_doff[2] = 0;
  EXPECT_FALSE(IsTcpSynWithData(bad_doff));
}

TEST(SynDataTest, DropAndDuplicate) {
  PipeParams params;
  params.delay_ns = 10 * 1'000'000;
  params.drop_syn_data = true;
  {
    LinkPipe pipe(params);
    pipe.Enqueue(Ipv4Tcp(kSyn, 300), 0);
    pipe.Enqueue(Ipv4Tcp(kSyn, 0), 0);
    pipe.Enqueue(Ipv4Tcp(kAck, 300), 0);
    EXPECT_EQ(pipe.stats().drops_syn_data, 1u);
    EXPECT_EQ(Drain(pipe, 1'000'000'000).size(), 2u);
  }
  params.drop_syn_data = false;
  params.duplicate_syn_data_after_ns = 500 * 1'000'000;
  LinkPipe pipe(params);
  pipe.Enqueue(Ipv4Tcp(kSyn, 300), 0);
  pipe.Enqueue(Ipv4Tcp(kAck, 10), 1'000'000);
  std::vector<Delivery> d = Drain(pipe, 2'000'000'000);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(pipe.stats().duplicated_syn_data, 1u);
  // The original and what followed it are not held back by the copy.
  EXPECT_EQ(d[0].at_ns, 10'000'000);
  EXPECT_EQ(d[1].at_ns, 11'000'000);
  EXPECT_EQ(d[2].at_ns, 510'000'000);
  EXPECT_EQ(d[2].size, d[0].size);
  // The copy comes from the next source port.
  std::vector<std::string> packets;
  LinkPipe again(params);
  std::string syn = Ipv4Tcp(kSyn, 300);
  syn[20] = 0x12;
  syn[21] = 0x34;
  again.Enqueue(syn, 0);
  for (int64_t t : {10'000'000, 510'000'000})
    again.Deliver(t, [&](const std::string& p) { packets.push_back(p); });
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_EQ(packets[0][21], 0x34);
  EXPECT_EQ(packets[1][21], 0x35);
}

}  // namespace
}  // namespace netem
