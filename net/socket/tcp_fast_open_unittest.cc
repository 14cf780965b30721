// TCP Fast Open with the kernel's real TCP: the test process moves into a
// network namespace of its own (root; nothing of the machine's changes) whose
// loopback takes SYN data (net.ipv4.tcp_fastopen=3 there), then connects our
// TCPClientSocket to our TCPServerSocket in each mode. A path that drops
// SYNs carrying data (a middlebox) is a socket filter on the listener, which
// the kernel runs on every segment before TCP sees it. And TcpFastOpenHints,
// the session's per-server memory and RTT estimate, on a test clock.

#include "net/socket/tcp_fast_open.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/base/tick_clock.h"
#include "net/socket/tcp_client_socket.h"
#include "net/socket/tcp_server_socket.h"

namespace net {
namespace {

// Enters a new network namespace with lo up and Fast Open on for clients
// and servers. Returns "" or why it could not.
std::string EnterPrivateNetworkNamespace() {
  if (unshare(CLONE_NEWNET) != 0)
    return std::string("unshare(CLONE_NEWNET): ") + strerror(errno) +
           " (the test needs root)";
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  bool up = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
            (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) == 0);
  if (fd >= 0) close(fd);
  if (!up) return std::string("bringing lo up: ") + strerror(errno);
  int sysctl = open("/proc/sys/net/ipv4/tcp_fastopen", O_WRONLY | O_CLOEXEC);
  bool set = sysctl >= 0 && write(sysctl, "3", 1) == 1;
  if (sysctl >= 0) close(sysctl);
  if (!set) return std::string("net.ipv4.tcp_fastopen: ") + strerror(errno);
  return "";
}

class TcpFastOpenTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setup_error_ = EnterPrivateNetworkNamespace();
  }
  void SetUp() override { ASSERT_EQ(setup_error_, ""); }

  // A listener on 127.0.0.1 (server Fast Open as given; queue 0: off).
  void Listen(int queue, bool no_cookie) {
    server_ = std::make_unique<TCPServerSocket>();
    if (queue > 0) server_->SetFastOpen(queue, no_cookie);
    ASSERT_EQ(OK,
              server_->Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 16));
    ASSERT_EQ(OK, server_->GetLocalAddress(&address_));
  }

  // The listener's path drops every SYN that carries data, as a middlebox
  // would: a classic BPF filter (offset 0 is the TCP header) that drops a
  // segment with SYN set and more bytes than its header.
  void DropSynData() {
    sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 13),  // flags
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x02, 0, 7),
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 12),  // data offset << 4
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
        BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 2),  // header bytes
        BPF_STMT(BPF_MISC | BPF_TAX, 0),
        BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0),           // SYN with data: dropped
        BPF_STMT(BPF_RET | BPF_K, 0xffffffff),  // the rest
    };
    sock_fprog prog{static_cast<unsigned short>(sizeof(code) / sizeof(code[0])),
                    code};
    ASSERT_EQ(0, setsockopt(server_->fd_for_testing(), SOL_SOCKET,
                            SO_ATTACH_FILTER, &prog, sizeof(prog)))
        << strerror(errno);
  }

  struct Exchange {
    TcpFastOpenInfo client;
    TcpFastOpenInfo server;
    std::string received;
    // From Connect to the client's read of the answer.
    absl::Duration elapsed;
  };
  // Connects with |mode|, writes "hello" and "world" in one turn, reads
  // them on the server, answers "ok" and reads that on the client.
  Exchange Run(TcpFastOpenMode mode) {
    TcpConnectOptions options;
    options.fast_open = mode;
    return Run(options);
  }
  Exchange Run(const TcpConnectOptions& options) {
    Exchange e;
    const absl::Time start = absl::Now();
    TCPClientSocket client(address_, absl::Seconds(5), options);
    TestCompletionCallback connect_cb, accept_cb;
    std::unique_ptr<StreamSocket> accepted;
    int accept_rv = server_->Accept(&accepted, accept_cb.callback());
    EXPECT_EQ(OK, connect_cb.GetResult(client.Connect(connect_cb.callback())));
    for (const char* word : {"hello", "world"}) {
      auto buf = std::make_shared<IOBuffer>(absl::string_view(word));
      TestCompletionCallback write_cb;
      EXPECT_EQ(5,
                write_cb.GetResult(client.Write(buf, 5, write_cb.callback())));
    }
    EXPECT_EQ(OK, accept_cb.GetResult(accept_rv));
    if (!accepted) return e;
    e.server = accepted->GetTcpFastOpenInfo();
    while (e.received.size() < 10) {
      auto in = std::make_shared<IOBuffer>(64);
      TestCompletionCallback read_cb;
      int n = read_cb.GetResult(accepted->Read(in, 64, read_cb.callback()));
      if (n <= 0) break;
      e.received.append(in->data(), n);
    }
    auto ok = std::make_shared<IOBuffer>(absl::string_view("ok"));
    TestCompletionCallback write_cb;
    EXPECT_EQ(2,
              write_cb.GetResult(accepted->Write(ok, 2, write_cb.callback())));
    auto in = std::make_shared<IOBuffer>(16);
    TestCompletionCallback read_cb;
    EXPECT_EQ(2, read_cb.GetResult(client.Read(in, 16, read_cb.callback())));
    e.elapsed = absl::Now() - start;
    e.client = client.GetTcpFastOpenInfo();
    return e;
  }

  static std::string setup_error_;
  EventLoop loop_;
  std::unique_ptr<TCPServerSocket> server_;
  IPEndPoint address_;
};

std::string TcpFastOpenTest::setup_error_;

TEST_F(TcpFastOpenTest, NoCookieBothWritesOfTheTurnRideInTheSyn) {
  Listen(16, /*no_cookie=*/true);
  Exchange e = Run(TcpFastOpenMode::kNoCookie);
  EXPECT_EQ(e.received, "helloworld");
  EXPECT_EQ(e.client.mode, TcpFastOpenMode::kNoCookie);
  EXPECT_EQ(e.client.outcome, TcpFastOpenOutcome::kAccepted);
  EXPECT_EQ(e.client.syn_data_bytes, 10);
  EXPECT_EQ(e.server.outcome, TcpFastOpenOutcome::kAccepted);
}

TEST_F(TcpFastOpenTest, ServerWithoutFastOpenIgnoresTheDataWhichIsResent) {
  Listen(0, false);
  Exchange e = Run(TcpFastOpenMode::kNoCookie);
  EXPECT_EQ(e.received, "helloworld");
  EXPECT_EQ(e.client.outcome, TcpFastOpenOutcome::kNotAccepted);
  EXPECT_EQ(e.client.syn_data_bytes, 10);
  EXPECT_NE(e.client.detail, "");
  EXPECT_EQ(e.server.outcome, TcpFastOpenOutcome::kOff);
}

TEST_F(TcpFastOpenTest, CookieRequestedThenUsed) {
  Listen(16, /*no_cookie=*/false);
  // No earlier test met a listener that issues cookies (a no-cookie one
  // issues none), so the first connection can only ask for one.
  Exchange first = Run(TcpFastOpenMode::kWithCookie);
  EXPECT_EQ(first.received, "helloworld");
  Exchange second = Run(TcpFastOpenMode::kWithCookie);
  EXPECT_EQ(second.received, "helloworld");
  EXPECT_EQ(second.client.outcome, TcpFastOpenOutcome::kAccepted);
  EXPECT_EQ(second.server.outcome, TcpFastOpenOutcome::kAccepted);
  EXPECT_EQ(first.client.outcome, TcpFastOpenOutcome::kCookieRequested);
  EXPECT_EQ(first.client.syn_data_bytes, 0);
  EXPECT_EQ(first.server.outcome, TcpFastOpenOutcome::kOff);
}

TEST_F(TcpFastOpenTest, OffIsOff) {
  Listen(16, /*no_cookie=*/true);
  Exchange e = Run(TcpFastOpenMode::kOff);
  EXPECT_EQ(e.received, "helloworld");
  EXPECT_EQ(e.client.outcome, TcpFastOpenOutcome::kOff);
  EXPECT_EQ(e.server.outcome, TcpFastOpenOutcome::kOff);
}

TEST_F(TcpFastOpenTest, RefusedDeferredConnectFailsTheWrite) {
  // Nobody listens: the deferred connect's refusal arrives through the
  // pending Read (or the next call), as a connect error.
  Listen(16, true);
  IPEndPoint dead = address_;
  server_.reset();
  TcpConnectOptions options;
  options.fast_open = TcpFastOpenMode::kNoCookie;
  TCPClientSocket client(dead, absl::Seconds(5), options);
  TestCompletionCallback connect_cb;
  ASSERT_EQ(OK, connect_cb.GetResult(client.Connect(connect_cb.callback())));
  auto buf = std::make_shared<IOBuffer>(absl::string_view("hello"));
  TestCompletionCallback write_cb;
  EXPECT_EQ(5, write_cb.GetResult(client.Write(buf, 5, write_cb.callback())));
  auto in = std::make_shared<IOBuffer>(16);
  TestCompletionCallback read_cb;
  EXPECT_EQ(ERR_CONNECTION_REFUSED,
            read_cb.GetResult(client.Read(in, 16, read_cb.callback())));
}

TEST_F(TcpFastOpenTest, AReadFirstSendsTheSynWithoutData) {
  // A server that speaks first: the client reads before it writes, so the
  // deferred SYN leaves at once, without data, and the greeting arrives.
  Listen(16, /*no_cookie=*/true);
  TcpConnectOptions options;
  options.fast_open = TcpFastOpenMode::kNoCookie;
  TCPClientSocket client(address_, absl::Seconds(5), options);
  TestCompletionCallback connect_cb, accept_cb;
  std::unique_ptr<StreamSocket> accepted;
  int accept_rv = server_->Accept(&accepted, accept_cb.callback());
  ASSERT_EQ(OK, connect_cb.GetResult(client.Connect(connect_cb.callback())));
  auto in = std::make_shared<IOBuffer>(16);
  TestCompletionCallback read_cb;
  int read_rv = client.Read(in, 16, read_cb.callback());
  ASSERT_EQ(OK, accept_cb.GetResult(accept_rv));
  auto hello = std::make_shared<IOBuffer>(absl::string_view("220 hi"));
  TestCompletionCallback write_cb;
  EXPECT_EQ(6,
            write_cb.GetResult(accepted->Write(hello, 6, write_cb.callback())));
  EXPECT_EQ(6, read_cb.GetResult(read_rv));
  EXPECT_EQ(std::string(in->data(), 6), "220 hi");
  EXPECT_EQ(client.GetTcpFastOpenInfo().syn_data_bytes, 0);
}

TEST_F(TcpFastOpenTest, EveryConnectionReportsItsHandshakeRtt) {
  // The kernel's SYN-to-SYN-ACK sample, with Fast Open or without.
  Listen(16, /*no_cookie=*/true);
  for (TcpFastOpenMode mode :
       {TcpFastOpenMode::kOff, TcpFastOpenMode::kNoCookie}) {
    Exchange e = Run(mode);
    EXPECT_GT(e.client.handshake_rtt, absl::ZeroDuration())
        << TcpFastOpenModeToString(mode);
    EXPECT_LT(e.client.handshake_rtt, absl::Milliseconds(100))
        << TcpFastOpenModeToString(mode);
    EXPECT_EQ(ConnectionRttSample(e.client, absl::Seconds(3)),
              e.client.handshake_rtt);
  }
}

TEST_F(TcpFastOpenTest, DroppedSynDataIsRacedAfterTheGivenDelay) {
  Listen(16, /*no_cookie=*/true);
  DropSynData();
  // Without data the SYN passes.
  EXPECT_EQ(Run(TcpFastOpenMode::kOff).received, "helloworld");
  TcpConnectOptions options;
  options.fast_open = TcpFastOpenMode::kNoCookie;
  options.fast_open_fallback_delay = absl::Milliseconds(40);
  options.fast_open_fallback_basis = "as the test says";
  Exchange e = Run(options);
  EXPECT_EQ(e.received, "helloworld");
  EXPECT_EQ(e.client.outcome, TcpFastOpenOutcome::kFallback);
  EXPECT_EQ(e.client.syn_data_bytes, 10);
  EXPECT_NE(e.client.detail.find("raced after 40 ms (as the test says)"),
            std::string::npos)
      << e.client.detail;
  // The winner's handshake RTT.
  EXPECT_GT(e.client.handshake_rtt, absl::ZeroDuration());
  EXPECT_EQ(e.server.outcome, TcpFastOpenOutcome::kOff);
  // The race, not the kernel's own SYN retransmission (a second later).
  EXPECT_GE(e.elapsed, absl::Milliseconds(40));
  EXPECT_LT(e.elapsed, absl::Milliseconds(500));
}

// The session's way: a first connection to the server without data in its
// SYN measures the RTT; the hints then make the next connection's race
// start about one RTT (here the floor: loopback's RTT is microseconds)
// after a SYN with data, not after the configured 250 ms.
TEST_F(TcpFastOpenTest, WithAnRttSampleTheRaceStartsAfterAboutOneRtt) {
  Listen(16, /*no_cookie=*/true);
  DropSynData();
  TcpFastOpenHints hints(true, absl::Milliseconds(250),
                         DefaultTickClock::GetInstance());
  const std::string key = absl::StrCat("127.0.0.1:", address_.port());
  hints.NoteNoCookie(key);  // as a bundle would say

  // No sample yet: the configured delay, and the trace says why.
  TcpConnectOptions options = hints.OptionsFor(key, true);
  EXPECT_EQ(options.fast_open_fallback_delay, absl::Milliseconds(250));
  Exchange slow = Run(options);
  EXPECT_EQ(slow.client.outcome, TcpFastOpenOutcome::kFallback);
  EXPECT_NE(slow.client.detail.find("raced after 250 ms (the configured delay: "
                                    "no RTT known for this server)"),
            std::string::npos)
      << slow.client.detail;
  EXPECT_GE(slow.elapsed, absl::Milliseconds(250));

  // A connection without Fast Open: its sample.
  Exchange plain = Run(TcpFastOpenMode::kOff);
  hints.NoteRtt("127.0.0.1", ConnectionRttSample(plain.client, plain.elapsed));
  ASSERT_TRUE(hints.RttFor("127.0.0.1").has_value());
  EXPECT_EQ(*hints.RttFor("127.0.0.1"), plain.client.handshake_rtt);

  options = hints.OptionsFor(key, true);
  EXPECT_EQ(options.fast_open, TcpFastOpenMode::kNoCookie);
  EXPECT_EQ(options.fast_open_fallback_delay,
            TcpFastOpenHints::kMinFallbackDelay);
  Exchange fast = Run(options);
  EXPECT_EQ(fast.received, "helloworld");
  EXPECT_EQ(fast.client.outcome, TcpFastOpenOutcome::kFallback);
  EXPECT_NE(fast.client.detail.find("raced after 10 ms (the floor; 1.1 x RTT"),
            std::string::npos)
      << fast.client.detail;
  std::printf(
      "dropped SYN data on loopback: %.1f ms with no RTT known, "
      "%.1f ms with RTT %.3f ms\n",
      absl::ToDoubleMilliseconds(slow.elapsed),
      absl::ToDoubleMilliseconds(fast.elapsed),
      absl::ToDoubleMilliseconds(plain.client.handshake_rtt));
  EXPECT_GE(fast.elapsed, TcpFastOpenHints::kMinFallbackDelay);
  EXPECT_LT(fast.elapsed, absl::Milliseconds(150));
}

TEST_F(TcpFastOpenTest, AcceptedBeforeTheDelaySaysNothingOfARace) {
  // The SYN-ACK came before the race was due: no second connection, no
  // detail. (A race that starts and then loses to the SYN-ACK needs a path
  // slower than loopback; tests/tfo_test.py has one.)
  Listen(16, /*no_cookie=*/true);
  TcpConnectOptions options;
  options.fast_open = TcpFastOpenMode::kNoCookie;
  options.fast_open_fallback_delay = absl::Milliseconds(200);
  Exchange e = Run(options);
  EXPECT_EQ(e.client.outcome, TcpFastOpenOutcome::kAccepted);
  EXPECT_EQ(e.client.detail, "");
}

TEST(TcpFastOpenHintsTest, ModesAndMemory) {
  SimpleTestTickClock clock;
  TcpFastOpenHints off(false, absl::Milliseconds(250), &clock);
  EXPECT_EQ(off.OptionsFor("a:443", true).fast_open, TcpFastOpenMode::kOff);

  TcpFastOpenHints hints(true, absl::Milliseconds(250), &clock);
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open,
            TcpFastOpenMode::kWithCookie);
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open_fallback_delay,
            absl::Milliseconds(250));
  // A POST's request never rides in a SYN.
  EXPECT_EQ(hints.OptionsFor("a:443", false).fast_open, TcpFastOpenMode::kOff);
  hints.NoteNoCookie("a:443");
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open,
            TcpFastOpenMode::kNoCookie);
  EXPECT_EQ(hints.OptionsFor("b:443", true).fast_open,
            TcpFastOpenMode::kWithCookie);

  // Data without a cookie ignored: back to cookies for a while.
  TcpFastOpenInfo ignored;
  ignored.mode = TcpFastOpenMode::kNoCookie;
  ignored.outcome = TcpFastOpenOutcome::kNotAccepted;
  hints.NoteOutcome("a:443", ignored);
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open,
            TcpFastOpenMode::kWithCookie);
  clock.Advance(TcpFastOpenHints::kFailureMemory);
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open,
            TcpFastOpenMode::kNoCookie);

  // A fallback (SYNs with data dropped): no Fast Open for a while.
  TcpFastOpenInfo dropped;
  dropped.mode = TcpFastOpenMode::kNoCookie;
  dropped.outcome = TcpFastOpenOutcome::kFallback;
  hints.NoteOutcome("a:443", dropped);
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open, TcpFastOpenMode::kOff);
  clock.Advance(TcpFastOpenHints::kFailureMemory - absl::Seconds(1));
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open, TcpFastOpenMode::kOff);
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open,
            TcpFastOpenMode::kNoCookie);
}

TEST(TcpFastOpenHintsTest, Bounded) {
  SimpleTestTickClock clock;
  TcpFastOpenHints hints(true, absl::ZeroDuration(), &clock);
  for (size_t i = 0; i < 3 * TcpFastOpenHints::kMaxEntries; ++i)
    hints.NoteNoCookie("host" + std::to_string(i) + ":443");
  size_t remembered = 0;
  for (size_t i = 0; i < 3 * TcpFastOpenHints::kMaxEntries; ++i) {
    if (hints.OptionsFor("host" + std::to_string(i) + ":443", true).fast_open ==
        TcpFastOpenMode::kNoCookie)
      ++remembered;
  }
  EXPECT_LE(remembered, TcpFastOpenHints::kMaxEntries);
  EXPECT_GT(remembered, 0u);
}

TEST(TcpFastOpenHintsTest, FallbackDelayFromRtt) {
  using H = TcpFastOpenHints;
  const absl::Duration configured = absl::Milliseconds(250);
  auto [none, none_why] = H::FallbackDelay(configured, std::nullopt);
  EXPECT_EQ(none, configured);
  EXPECT_EQ(none_why, "the configured delay: no RTT known for this server");
  auto [one, one_why] = H::FallbackDelay(configured, absl::Milliseconds(100));
  EXPECT_EQ(one, absl::Milliseconds(115));
  EXPECT_EQ(one_why, "1.1 x RTT 100 ms + 5 ms");
  auto [far, far_why] = H::FallbackDelay(configured, absl::Milliseconds(300));
  EXPECT_EQ(far, configured);
  EXPECT_EQ(far_why, "the configured delay; 1.1 x RTT 300 ms + 5 ms is more");
  auto [near, near_why] = H::FallbackDelay(configured, absl::Microseconds(80));
  EXPECT_EQ(near, H::kMinFallbackDelay);
  EXPECT_EQ(near_why, "the floor; 1.1 x RTT 0.080 ms + 5 ms is less");
  // A configured delay below the floor stays; zero means no race.
  EXPECT_EQ(
      H::FallbackDelay(absl::Milliseconds(8), absl::Microseconds(80)).first,
      absl::Milliseconds(8));
  EXPECT_EQ(
      H::FallbackDelay(absl::ZeroDuration(), absl::Milliseconds(100)).first,
      absl::ZeroDuration());
}

TEST(TcpFastOpenHintsTest, RttEstimateIsAnAgedMinimum) {
  SimpleTestTickClock clock;
  TcpFastOpenHints hints(true, absl::Milliseconds(250), &clock);
  EXPECT_FALSE(hints.RttFor("a").has_value());
  hints.NoteRtt("a", absl::Milliseconds(120));
  hints.NoteRtt("a", absl::Milliseconds(100));
  // One inflated sample (a retransmitted SYN) does not move it.
  hints.NoteRtt("a", absl::Seconds(1));
  EXPECT_EQ(hints.RttFor("a"), absl::Milliseconds(100));
  // Nonsense is ignored.
  hints.NoteRtt("a", absl::ZeroDuration());
  hints.NoteRtt("a", -absl::Milliseconds(5));
  EXPECT_EQ(hints.RttFor("a"), absl::Milliseconds(100));
  // A minimum older than the window gives way to the next sample (the path
  // changed), larger or not; then smaller ones win again.
  clock.Advance(TcpFastOpenHints::kRttWindow);
  hints.NoteRtt("a", absl::Milliseconds(140));
  EXPECT_EQ(hints.RttFor("a"), absl::Milliseconds(140));
  hints.NoteRtt("a", absl::Milliseconds(130));
  EXPECT_EQ(hints.RttFor("a"), absl::Milliseconds(130));
  // No sample for kRttMemory: forgotten.
  clock.Advance(TcpFastOpenHints::kRttMemory - absl::Seconds(1));
  EXPECT_EQ(hints.RttFor("a"), absl::Milliseconds(130));
  clock.Advance(absl::Seconds(1));
  EXPECT_FALSE(hints.RttFor("a").has_value());
}

TEST(TcpFastOpenHintsTest, OptionsForUseTheHostsRtt) {
  SimpleTestTickClock clock;
  TcpFastOpenHints hints(true, absl::Milliseconds(250), &clock);
  // Through the observer interface, as prefetch probes report.
  ServerRttObserver* observer = &hints;
  observer->OnServerRttSample("a", absl::Milliseconds(40));
  hints.NoteNoCookie("a:443");
  TcpConnectOptions options = hints.OptionsFor("a:443", true);
  EXPECT_EQ(options.fast_open, TcpFastOpenMode::kNoCookie);
  EXPECT_EQ(options.fast_open_fallback_delay, absl::Milliseconds(49));
  EXPECT_EQ(options.fast_open_fallback_basis,
            "1.1 x RTT 40 ms + 5 ms; RTT from the truncated-handshake probe");
  // Any port of the host: the path is the same.
  EXPECT_EQ(hints.OptionsFor("a:80", true).fast_open_fallback_delay,
            absl::Milliseconds(49));
  options = hints.OptionsFor("b:443", true);
  EXPECT_EQ(options.fast_open_fallback_delay, absl::Milliseconds(250));
  EXPECT_EQ(options.fast_open_fallback_basis,
            "the configured delay: no RTT known for this server");
  // IPv6 literals keep their brackets apart from the port.
  hints.NoteRtt("[::1]", absl::Milliseconds(20));
  EXPECT_EQ(hints.OptionsFor("[::1]:443", true).fast_open_fallback_delay,
            absl::Milliseconds(27));
  // Off, or not replay-safe: no race to time.
  EXPECT_EQ(hints.OptionsFor("a:443", false).fast_open_fallback_delay,
            absl::ZeroDuration());
  TcpFastOpenHints off(false, absl::Milliseconds(250), &clock);
  off.NoteRtt("a", absl::Milliseconds(40));
  EXPECT_FALSE(off.RttFor("a").has_value());
}

// The basis names what measured the minimum, and follows the minimum.
TEST(TcpFastOpenHintsTest, TheBasisNamesTheMinimumsSampler) {
  SimpleTestTickClock clock;
  TcpFastOpenHints hints(true, absl::Milliseconds(250), &clock);
  EXPECT_FALSE(hints.RttSourceFor("a").has_value());
  hints.NoteRtt("a", absl::Milliseconds(50), RttSampleSource::kRttProbe);
  EXPECT_EQ(hints.RttSourceFor("a"), RttSampleSource::kRttProbe);
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open_fallback_basis,
            "1.1 x RTT 50 ms + 5 ms; RTT from the RTT probe");
  hints.NoteRtt("a", absl::Milliseconds(60), RttSampleSource::kPreconnect);
  EXPECT_EQ(hints.RttSourceFor("a"), RttSampleSource::kRttProbe);
  hints.NoteRtt("a", absl::Milliseconds(45));
  EXPECT_EQ(hints.OptionsFor("a:443", true).fast_open_fallback_basis,
            "1.1 x RTT 45 ms + 5 ms; RTT from an earlier connection");
  // A delay that is not the formula's says so, with the sampler.
  hints.NoteRtt("b", absl::Milliseconds(300), RttSampleSource::kPreconnect);
  EXPECT_EQ(hints.OptionsFor("b:443", true).fast_open_fallback_basis,
            "the configured delay; 1.1 x RTT 300 ms + 5 ms is more; RTT from "
            "a preconnect");
  clock.Advance(TcpFastOpenHints::kRttMemory);
  EXPECT_FALSE(hints.RttSourceFor("a").has_value());
}

TEST(TcpFastOpenHintsTest, ConnectionRttSampleTakesTheKernelsFirst) {
  TcpFastOpenInfo info;
  // Not a kernel socket, no Fast Open: the handshake time.
  EXPECT_EQ(ConnectionRttSample(info, absl::Milliseconds(42)),
            absl::Milliseconds(42));
  EXPECT_EQ(ConnectionRttSample(info, absl::ZeroDuration()),
            absl::ZeroDuration());
  // Fast Open asked for: Connect may not have waited for the SYN-ACK.
  info.mode = TcpFastOpenMode::kWithCookie;
  EXPECT_EQ(ConnectionRttSample(info, absl::Microseconds(3)),
            absl::ZeroDuration());
  info.handshake_rtt = absl::Milliseconds(40);
  EXPECT_EQ(ConnectionRttSample(info, absl::Microseconds(3)),
            absl::Milliseconds(40));
  info.mode = TcpFastOpenMode::kOff;
  EXPECT_EQ(ConnectionRttSample(info, absl::Milliseconds(45)),
            absl::Milliseconds(40));
}

TEST(TcpFastOpenHintsTest, RttsAreBounded) {
  SimpleTestTickClock clock;
  TcpFastOpenHints hints(true, absl::Milliseconds(250), &clock);
  for (size_t i = 0; i < 3 * TcpFastOpenHints::kMaxEntries; ++i)
    hints.NoteRtt("host" + std::to_string(i), absl::Milliseconds(10));
  size_t remembered = 0;
  for (size_t i = 0; i < 3 * TcpFastOpenHints::kMaxEntries; ++i)
    remembered += hints.RttFor("host" + std::to_string(i)).has_value();
  EXPECT_EQ(remembered, TcpFastOpenHints::kMaxEntries);
}

}  // namespace
}  // namespace net
