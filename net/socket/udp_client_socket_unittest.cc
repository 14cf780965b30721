// UDPClientSocket against a plain UDP socket on loopback: datagrams both
// ways (a Read that waits, one that has data at once, a datagram longer
// than the buffer cut to it), datagrams from another sender dropped by the
// kernel, and a peer port with nobody bound (ICMP port unreachable) read as
// ERR_CONNECTION_REFUSED.

#include "net/socket/udp_client_socket.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

// A bound UDP socket on 127.0.0.1 (blocking, for the test's side).
class RawUdp {
 public:
  RawUdp() {
    fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t len = sizeof(a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    endpoint_.FromSockAddr(reinterpret_cast<sockaddr*>(&a), len);
  }
  ~RawUdp() { close(fd_); }
  const IPEndPoint& endpoint() const { return endpoint_; }
  void SendTo(const IPEndPoint& to, const std::string& data) {
    sockaddr_storage s;
    socklen_t len = to.ToSockAddr(&s);
    ASSERT_EQ(sendto(fd_, data.data(), data.size(), 0,
                     reinterpret_cast<sockaddr*>(&s), len),
              static_cast<ssize_t>(data.size()));
  }
  std::string Receive(IPEndPoint* from) {
    char buf[2048];
    sockaddr_storage s;
    socklen_t len = sizeof(s);
    ssize_t n = recvfrom(fd_, buf, sizeof(buf), 0,
                         reinterpret_cast<sockaddr*>(&s), &len);
    from->FromSockAddr(reinterpret_cast<sockaddr*>(&s), len);
    return std::string(buf, n > 0 ? n : 0);
  }

 private:
  int fd_ = -1;
  IPEndPoint endpoint_;
};

TEST(UDPClientSocketTest, ExchangesDatagrams) {
  EventLoop loop;
  RawUdp server;
  UDPClientSocket client;
  ASSERT_EQ(OK, client.Connect(server.endpoint()));
  IPEndPoint local, peer;
  ASSERT_EQ(OK, client.GetLocalAddress(&local));
  ASSERT_EQ(OK, client.GetPeerAddress(&peer));
  EXPECT_EQ(peer, server.endpoint());
  EXPECT_NE(local.port(), 0);

  // A Read with nothing there waits.
  auto in = std::make_shared<IOBuffer>(1500);
  TestCompletionCallback read_cb;
  ASSERT_EQ(ERR_IO_PENDING, client.Read(in, 1500, read_cb.callback()));

  auto out = std::make_shared<IOBuffer>(absl::string_view("hello"));
  TestCompletionCallback write_cb;
  EXPECT_EQ(5, write_cb.GetResult(client.Write(out, 5, write_cb.callback())));
  IPEndPoint from;
  EXPECT_EQ("hello", server.Receive(&from));
  EXPECT_EQ(from, local);

  server.SendTo(local, "world!");
  EXPECT_EQ(6, read_cb.WaitForResult());
  EXPECT_EQ("world!", std::string(in->data(), 6));

  // Two datagrams stay two; the second is longer than the buffer: cut.
  server.SendTo(local, "one");
  server.SendTo(local, std::string(100, 'x'));
  TestCompletionCallback cb;
  EXPECT_EQ(3, cb.GetResult(client.Read(in, 1500, cb.callback())));
  EXPECT_EQ(10, cb.GetResult(client.Read(in, 10, cb.callback())));
  EXPECT_EQ(std::string(10, 'x'), std::string(in->data(), 10));
}

TEST(UDPClientSocketTest, DatagramsFromOthersAreNotRead) {
  EventLoop loop;
  RawUdp server, stranger;
  UDPClientSocket client;
  ASSERT_EQ(OK, client.Connect(server.endpoint()));
  IPEndPoint local;
  ASSERT_EQ(OK, client.GetLocalAddress(&local));
  stranger.SendTo(local, "spoofed");
  server.SendTo(local, "real");
  auto in = std::make_shared<IOBuffer>(1500);
  TestCompletionCallback cb;
  EXPECT_EQ(4, cb.GetResult(client.Read(in, 1500, cb.callback())));
  EXPECT_EQ("real", std::string(in->data(), 4));
}

TEST(UDPClientSocketTest, NobodyListeningIsConnectionRefused) {
  EventLoop loop;
  IPEndPoint closed;
  {
    RawUdp gone;  // a port that was bound a moment ago and is free now
    closed = gone.endpoint();
  }
  UDPClientSocket client;
  ASSERT_EQ(OK, client.Connect(closed));
  auto out = std::make_shared<IOBuffer>(absl::string_view("anyone?"));
  TestCompletionCallback write_cb;
  EXPECT_EQ(7, write_cb.GetResult(client.Write(out, 7, write_cb.callback())));
  auto in = std::make_shared<IOBuffer>(1500);
  TestCompletionCallback read_cb;
  EXPECT_EQ(ERR_CONNECTION_REFUSED,
            read_cb.GetResult(client.Read(in, 1500, read_cb.callback())));
}

TEST(UDPClientSocketTest, ClosedSocketRefusesIo) {
  EventLoop loop;
  UDPClientSocket client;
  auto buf = std::make_shared<IOBuffer>(16);
  EXPECT_EQ(ERR_SOCKET_NOT_CONNECTED, client.Read(buf, 16, nullptr));
  EXPECT_EQ(ERR_SOCKET_NOT_CONNECTED, client.Write(buf, 16, nullptr));
  RawUdp server;
  ASSERT_EQ(OK, client.Connect(server.endpoint()));
  EXPECT_EQ(ERR_SOCKET_IS_CONNECTED, client.Connect(server.endpoint()));
  client.Close();
  EXPECT_EQ(ERR_SOCKET_NOT_CONNECTED, client.Read(buf, 16, nullptr));
}

}  // namespace
}  // namespace net
