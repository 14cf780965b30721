#include "dns/host_resolver.h"

#include "gtest/gtest.h"
#include "net/base/test_completion_callback.h"

namespace net {
namespace {

TEST(HostResolverTest, OverridesAndLiteralsAnswerSynchronously) {
  EventLoop loop;
  WorkerPool pool(1);
  SystemHostResolver resolver(&pool);
  auto entry = ResolveOverride::Parse("WWW.example.test:443:127.0.0.11");
  ASSERT_TRUE(entry.ok());
  resolver.AddOverride(*entry);
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  EXPECT_EQ(OK, resolver.Resolve(
                    "www.example.test", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kOverride);
  EXPECT_EQ(result.addresses[0].ToString(), "127.0.0.11");
  EXPECT_EQ(OK, resolver.Resolve(
                    "::1", 443, &result, [](int) {}, &request));
  EXPECT_EQ(result.source, DnsSource::kLiteral);
  // A prefetch (port 0) is for any port: the host's override answers it.
  HostResolveResult prefetched;
  EXPECT_EQ(OK, resolver.Prefetch(
                    "www.example.test", 0, &prefetched, [](int) {}, &request));
  EXPECT_EQ(prefetched.source, DnsSource::kOverride);
  EXPECT_EQ(prefetched.addresses[0].ToString(), "127.0.0.11");
}

TEST(HostResolverTest, ResolvesLocalhostOnTheWorkerPool) {
  EventLoop loop;
  WorkerPool pool(1);
  SystemHostResolver resolver(&pool);
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  TestCompletionCallback cb;
  int rv = resolver.Resolve("localhost", 80, &result, cb.callback(), &request);
  ASSERT_EQ(ERR_IO_PENDING, rv);
  EXPECT_EQ(OK, cb.WaitForResult());
  EXPECT_FALSE(result.addresses.empty());
  EXPECT_EQ(result.source, DnsSource::kNetwork);
}

TEST(HostResolverTest, UnknownNameIsNameNotResolved) {
  EventLoop loop;
  WorkerPool pool(1);
  SystemHostResolver resolver(&pool);
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  TestCompletionCallback cb;
  int rv = resolver.Resolve("no-such-host.invalid", 80, &result, cb.callback(),
                            &request);
  EXPECT_EQ(ERR_NAME_NOT_RESOLVED, cb.GetResult(rv));
}

TEST(HostResolverTest, CancelledRequestNeverCallsBack) {
  EventLoop loop;
  WorkerPool pool(1);
  SystemHostResolver resolver(&pool);
  HostResolveResult result;
  std::unique_ptr<HostResolver::Request> request;
  bool called = false;
  ASSERT_EQ(ERR_IO_PENDING, resolver.Resolve(
                                "localhost", 80, &result,
                                [&](int) { called = true; }, &request));
  request.reset();
  loop.PostDelayedTask(absl::Milliseconds(200), [&] { loop.Quit(); });
  loop.Run();
  EXPECT_FALSE(called);
}

TEST(HostResolverTest, BadOverridesAreRejected) {
  for (const char* bad : {"", "host", "host:443", "host:0:1.2.3.4",
                          "host:443:nope", ":443:1.2.3.4"}) {
    EXPECT_FALSE(ResolveOverride::Parse(bad).ok()) << bad;
  }
  EXPECT_TRUE(ResolveOverride::Parse("h:443:[::1]").ok());
}

}  // namespace
}  // namespace net
