#include "tools/netem/connect_delay_socket_factory.h"

#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"
#include "net/http/default_client_socket_factory.h"
#include "net/socket/tcp_server_socket.h"

namespace net {
namespace {

TEST(ConnectDelaySocketFactoryTest, DelaysOnlyConfiguredEndpoints) {
  EventLoop loop;
  TCPServerSocket server;
  ASSERT_EQ(OK, server.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 8));
  IPEndPoint address;
  server.GetLocalAddress(&address);
  ConnectDelaySocketFactory factory(GetDefaultClientSocketFactory());
  factory.AddLink(address, absl::Milliseconds(50));

  TestCompletionCallback cb;
  auto delayed = factory.CreateTransportClientSocket(address, absl::Seconds(1));
  TimeTicks start = TimeTicks::Now();
  EXPECT_EQ(OK, cb.GetResult(delayed->Connect(cb.callback())));
  EXPECT_GE(TimeTicks::Now() - start, absl::Milliseconds(50));
  EXPECT_TRUE(delayed->IsConnected());

  IPEndPoint other(address.address(), address.port() == 1 ? 2 : 1);
  auto plain = factory.CreateTransportClientSocket(other, absl::Seconds(1));
  start = TimeTicks::Now();
  // A refused connection is reported as is, without the emulated delay.
  EXPECT_EQ(ERR_CONNECTION_REFUSED,
            cb.GetResult(plain->Connect(cb.callback())));
  EXPECT_LT(TimeTicks::Now() - start, absl::Milliseconds(50));
}

}  // namespace
}  // namespace net
