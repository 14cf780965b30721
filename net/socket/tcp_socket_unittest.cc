#include <sys/socket.h>
#include <unistd.h>

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"
#include "net/socket/tcp_client_socket.h"
#include "net/socket/tcp_server_socket.h"

namespace net {
namespace {

class TCPSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(OK,
              server_.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 16));
    ASSERT_EQ(OK, server_.GetLocalAddress(&server_address_));
  }
  EventLoop loop_;
  TCPServerSocket server_;
  IPEndPoint server_address_;
};

TEST_F(TCPSocketTest, ConnectAcceptAndExchangeData) {
  TCPClientSocket client(server_address_, absl::Seconds(5));
  TestCompletionCallback connect_cb, accept_cb;
  std::unique_ptr<StreamSocket> accepted;
  int accept_rv = server_.Accept(&accepted, accept_cb.callback());
  int connect_rv = client.Connect(connect_cb.callback());
  EXPECT_EQ(OK, connect_cb.GetResult(connect_rv));
  EXPECT_EQ(OK, accept_cb.GetResult(accept_rv));
  ASSERT_TRUE(accepted);

  auto out = std::make_shared<IOBuffer>(absl::string_view("ping"));
  TestCompletionCallback write_cb;
  EXPECT_EQ(4, write_cb.GetResult(client.Write(out, 4, write_cb.callback())));

  auto in = std::make_shared<IOBuffer>(16);
  TestCompletionCallback read_cb;
  int n = read_cb.GetResult(accepted->Read(in, 16, read_cb.callback()));
  ASSERT_EQ(4, n);
  EXPECT_EQ(std::string(in->data(), 4), "ping");

  // A pending read completes with 0 at end of stream.
  int rv = client.Read(in, 16, read_cb.callback());
  EXPECT_EQ(ERR_IO_PENDING, rv);
  accepted.reset();
  EXPECT_EQ(0, read_cb.WaitForResult());
}

TEST_F(TCPSocketTest, RefusedPortGivesConnectionRefused) {
  // Find a port nobody listens on: bind, read the port, close.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_storage storage;
  socklen_t len =
      IPEndPoint(IPAddress::IPv4Localhost(), 0).ToSockAddr(&storage);
  ASSERT_EQ(0, bind(fd, reinterpret_cast<sockaddr*>(&storage), len));
  len = sizeof(storage);
  getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &len);
  IPEndPoint closed;
  closed.FromSockAddr(reinterpret_cast<sockaddr*>(&storage), len);
  close(fd);

  TCPClientSocket client(closed, absl::Seconds(5));
  TestCompletionCallback cb;
  EXPECT_EQ(ERR_CONNECTION_REFUSED,
            cb.GetResult(client.Connect(cb.callback())));
  EXPECT_FALSE(client.IsConnected());
}

TEST_F(TCPSocketTest, ConnectTimesOutWhenSynsAreDropped) {
  // A listener with a full accept queue drops further SYNs, so connect()
  // stays pending until our timer fires.
  TCPServerSocket full;
  ASSERT_EQ(OK, full.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 0));
  IPEndPoint address;
  ASSERT_EQ(OK, full.GetLocalAddress(&address));
  std::vector<std::unique_ptr<TCPClientSocket>> fillers;
  for (int i = 0; i < 4; ++i) {
    fillers.push_back(
        std::make_unique<TCPClientSocket>(address, absl::Milliseconds(200)));
    fillers.back()->Connect([](int) {});
  }
  loop_.PostDelayedTask(absl::Milliseconds(50), [&] { loop_.Quit(); });
  loop_.Run();

  TCPClientSocket client(address, absl::Milliseconds(300));
  TestCompletionCallback cb;
  TimeTicks start = TimeTicks::Now();
  EXPECT_EQ(ERR_CONNECTION_TIMED_OUT,
            cb.GetResult(client.Connect(cb.callback())));
  EXPECT_GE(TimeTicks::Now() - start, absl::Milliseconds(300));
}

TEST_F(TCPSocketTest, DestroyingASocketWithPendingReadIsSafe) {
  auto client =
      std::make_unique<TCPClientSocket>(server_address_, absl::Seconds(5));
  TestCompletionCallback connect_cb;
  std::unique_ptr<StreamSocket> accepted;
  TestCompletionCallback accept_cb;
  int accept_rv = server_.Accept(&accepted, accept_cb.callback());
  EXPECT_EQ(OK, connect_cb.GetResult(client->Connect(connect_cb.callback())));
  EXPECT_EQ(OK, accept_cb.GetResult(accept_rv));
  bool called = false;
  auto buf = std::make_shared<IOBuffer>(8);
  EXPECT_EQ(ERR_IO_PENDING, client->Read(buf, 8, [&](int) { called = true; }));
  client.reset();
  accepted->Write(std::make_shared<IOBuffer>(absl::string_view("x")), 1,
                  [](int) {});
  loop_.RunUntilIdle();
  EXPECT_FALSE(called);
  EXPECT_EQ(loop_.watched_fd_count(), 0u);
}

}  // namespace
}  // namespace net
