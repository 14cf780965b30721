#include "net/socket/socket_test_util.h"

#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

TEST(SocketTestUtilTest, ScriptedReadsAndWrites) {
  EventLoop loop;
  MockRead reads[] = {MockRead(ASYNC, "hello "), MockRead(SYNC, "world"),
                      MockRead(SYNC, OK)};
  MockWrite writes[] = {MockWrite(ASYNC, "request")};
  StaticSocketDataProvider data(reads, writes);
  MockClientSocketFactory factory;
  factory.AddSocketDataProvider(&data);
  auto socket = factory.CreateTransportClientSocket(
      IPEndPoint(IPAddress::IPv4Localhost(), 443), absl::Seconds(1), {});
  TestCompletionCallback cb;
  EXPECT_EQ(OK, cb.GetResult(socket->Connect(cb.callback())));
  auto out = std::make_shared<IOBuffer>(absl::string_view("request"));
  EXPECT_EQ(7, cb.GetResult(socket->Write(out, 7, cb.callback())));
  auto buf = std::make_shared<IOBuffer>(64);
  EXPECT_EQ(6, cb.GetResult(socket->Read(buf, 64, cb.callback())));
  EXPECT_EQ(5, cb.GetResult(socket->Read(buf, 64, cb.callback())));
  EXPECT_EQ(0, cb.GetResult(socket->Read(buf, 64, cb.callback())));
  EXPECT_TRUE(data.AllReadDataConsumed());
  EXPECT_TRUE(data.AllWriteDataConsumed());
  EXPECT_TRUE(data.write_mismatches().empty());
}

TEST(SocketTestUtilTest, WrongWriteIsReported) {
  EventLoop loop;
  MockWrite writes[] = {MockWrite(SYNC, "expected")};
  StaticSocketDataProvider data({}, writes);
  MockClientSocketFactory factory;
  factory.AddSocketDataProvider(&data);
  auto socket =
      factory.CreateTransportClientSocket(IPEndPoint(), absl::Seconds(1), {});
  TestCompletionCallback cb;
  ASSERT_EQ(OK, socket->Connect(cb.callback()));
  auto out = std::make_shared<IOBuffer>(absl::string_view("different"));
  EXPECT_EQ(ERR_UNEXPECTED, socket->Write(out, 9, cb.callback()));
  EXPECT_EQ(data.write_mismatches().size(), 1u);
}

}  // namespace
}  // namespace net
