// TCP Fast Open with the kernel's real TCP: the test process moves into a
// network namespace of its own (root; nothing of the machine's changes) whose
// loopback takes SYN data (net.ipv4.tcp_fastopen=3 there), then connects our
// TCPClientSocket to our TCPServerSocket in each mode. And TcpFastOpenHints,
// the session's per-server memory, on a test clock.

#include "net/socket/tcp_fast_open.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

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

  struct Exchange {
    TcpFastOpenInfo client;
    TcpFastOpenInfo server;
    std::string received;
  };
  // Connects with |mode|, writes "hello" and "world" in one turn, reads
  // them on the server, answers "ok" and reads that on the client.
  Exchange Run(TcpFastOpenMode mode) {
    Exchange e;
    TcpConnectOptions options;
    options.fast_open = mode;
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

}  // namespace
}  // namespace net
