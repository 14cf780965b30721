// QuicClientContext's store of NEW_TOKEN tokens (RFC 9000 8.1.3): per
// server, each taken once, newest first, and bounded in count, size and
// age whatever servers send.

#include "net/quic/quic_client_context.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace net {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1800000000);

TEST(QuicClientContextTokenTest, TokensArePerServerAndUsedOnce) {
  QuicClientContext context(nullptr);
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "");
  context.AddToken("a.test:443", "token-a", kT0);
  context.AddToken("b.test:443", "token-b", kT0);
  EXPECT_EQ(context.TokenCount("a.test:443"), 1u);
  EXPECT_EQ(context.TakeToken("a.test:8443", kT0), "");  // another port
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "token-a");
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "");  // used once
  EXPECT_EQ(context.TakeToken("b.test:443", kT0), "token-b");
}

TEST(QuicClientContextTokenTest, NewestFirstAndFourPerServer) {
  QuicClientContext context(nullptr);
  for (int i = 0; i < 6; ++i)
    context.AddToken("a.test:443", absl::StrCat("t", i), kT0);
  EXPECT_EQ(context.TokenCount("a.test:443"),
            QuicClientContext::kMaxTokensPerServer);
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "t5");
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "t4");
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "t3");
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "t2");
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), "");  // t0, t1 dropped
}

TEST(QuicClientContextTokenTest, EmptyAndOversizedTokensAreNotKept) {
  QuicClientContext context(nullptr);
  context.AddToken("a.test:443", "", kT0);
  context.AddToken("a.test:443",
                   std::string(QuicClientContext::kMaxTokenSize + 1, 'x'), kT0);
  EXPECT_EQ(context.TokenCount("a.test:443"), 0u);
  const std::string largest(QuicClientContext::kMaxTokenSize, 'y');
  context.AddToken("a.test:443", largest, kT0);
  EXPECT_EQ(context.TakeToken("a.test:443", kT0), largest);
}

TEST(QuicClientContextTokenTest, OldTokensAreDropped) {
  QuicClientContext context(nullptr);
  context.AddToken("a.test:443", "old", kT0);
  context.AddToken("a.test:443", "new", kT0 + absl::Hours(20));
  const absl::Time later = kT0 + QuicClientContext::kMaxTokenAge +
                           absl::Hours(1);  // "old" expired, "new" not
  EXPECT_EQ(context.TakeToken("a.test:443", later), "new");
  EXPECT_EQ(context.TokenCount("a.test:443"), 0u);
  context.AddToken("a.test:443", "stale", kT0);
  EXPECT_EQ(context.TakeToken("a.test:443", later), "");
  EXPECT_EQ(context.TokenCount("a.test:443"), 0u);
}

TEST(QuicClientContextTokenTest, ServersAreBounded) {
  QuicClientContext context(nullptr);
  const size_t n = QuicClientContext::kMaxTokenServers;
  for (size_t i = 0; i < n + 10; ++i)
    context.AddToken(absl::StrCat("s", i, ".test:443"), "t", kT0);
  // The ten servers whose tokens came first are gone.
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(context.TokenCount(absl::StrCat("s", i, ".test:443")), 0u) << i;
  for (size_t i = 10; i < n + 10; ++i)
    EXPECT_EQ(context.TokenCount(absl::StrCat("s", i, ".test:443")), 1u) << i;
  // A server that got a token again is the most recent one: it stays.
  context.AddToken("s10.test:443", "again", kT0);
  context.AddToken("another.test:443", "t", kT0);
  EXPECT_EQ(context.TokenCount("s10.test:443"), 2u);
  EXPECT_EQ(context.TokenCount("s11.test:443"), 0u);
}

}  // namespace
}  // namespace net
