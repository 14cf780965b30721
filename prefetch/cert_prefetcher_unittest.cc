// CertPrefetcher, the sources and the PrefetchCache with scripted DNS and
// HTTP, the real verifier over cert/testdata, and a real TLS server for the
// truncated handshake's fallback path.

#include "prefetch/cert_prefetcher.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cert/basic_cert_verifier.h"
#include "cert/prevalidator.h"
#include "cert/x509_util.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/base/file_util.h"
#include "net/base/test_completion_callback.h"
#include "net/http/default_client_socket_factory.h"
#include "net/socket/client_socket_factory.h"
#include "net/socket/tcp_server_socket.h"
#include "net/ssl/ssl_server_context.h"
#include "net/ssl/ssl_server_socket.h"
#include "prefetch/dns_bundle_source.h"
#include "prefetch/http_bundle_sources.h"
#include "prefetch/truncated_bundle_source.h"

namespace net {
namespace {

constexpr char kHost[] = "www.example.test";
constexpr uint16_t kPort = 443;
const std::string kOrbit = "\x01\x02\x03\x04\x05\x06\x07\x08";

std::vector<std::string> LoadChain(const std::string& name) {
  absl::StatusOr<std::vector<std::string>> chain =
      LoadPemCertificatesFromFile("cert/testdata/" + name);
  EXPECT_TRUE(chain.ok()) << chain.status();
  return chain.ok() ? *chain : std::vector<std::string>();
}

CertBundle MakeBundle(const std::string& host, const std::string& chain_file,
                      uint16_t port = kPort) {
  absl::StatusOr<CertBundle> bundle = MakeCertBundle(
      host, port, LoadChain(chain_file), 0x009c, kOrbit, absl::Now());
  EXPECT_TRUE(bundle.ok()) << bundle.status();
  return *bundle;
}

std::string File(const CertBundle& bundle) {
  return *EncodeBundleFile(bundle, /*compress=*/true);
}

// Answers TXT lookups from a map; A lookups are not used here.
class FakeTxtResolver : public HostResolver {
 public:
  std::map<std::string, std::vector<std::string>> txt;
  int lookups = 0;
  int Resolve(const std::string& host, uint16_t port, HostResolveResult* result,
              CompletionOnceCallback callback,
              std::unique_ptr<Request>* out_request) override {
    result->addresses = {IPAddress::IPv4Localhost()};
    return OK;
  }
  int ResolveTxt(const std::string& name, std::vector<std::string>* records,
                 CompletionOnceCallback callback,
                 std::unique_ptr<Request>* out_request) override {
    ++lookups;
    auto it = txt.find(name);
    int rv = it == txt.end() ? ERR_NAME_NOT_RESOLVED : OK;
    if (rv == OK) *records = it->second;
    EventLoop::Current()->PostTask([callback = std::move(callback),
                                    rv]() mutable { std::move(callback)(rv); });
    return ERR_IO_PENDING;
  }
};

// Serves URLs from a map after a per-URL delay; counts and cancels.
class FakeUrlFetcher : public UrlFetcher {
 public:
  struct Answer {
    int error = OK;
    std::string body;
    absl::Duration delay = absl::ZeroDuration();
  };
  std::map<std::string, Answer> answers;
  std::vector<std::string> fetched;
  int cancelled = 0;

  class FakeRequest : public Request {
   public:
    explicit FakeRequest(FakeUrlFetcher* owner) : owner_(owner) {}
    ~FakeRequest() override {
      if (!done) ++owner_->cancelled;
    }
    bool done = false;
    OneShotTimer timer;

   private:
    FakeUrlFetcher* owner_;
  };

  void Fetch(const std::string& url, const std::string&, const std::string&,
             Callback callback, std::unique_ptr<Request>* out) override {
    fetched.push_back(url);
    auto request = std::make_unique<FakeRequest>(this);
    FakeRequest* raw = request.get();
    auto it = answers.find(url);
    Answer answer = it == answers.end()
                        ? Answer{ERR_FAILED, "(HTTP status 404)"}
                        : it->second;
    raw->timer.Start(answer.delay,
                     [raw, answer, callback = std::move(callback)]() mutable {
                       raw->done = true;
                       std::move(callback)(answer.error, answer.body);
                     });
    *out = std::move(request);
  }
};

class CertPrefetcherTest : public ::testing::Test {
 protected:
  CertPrefetcherTest() {
    auto verifier =
        BasicCertVerifier::Create({"cert/testdata/good_root.pem"}, false);
    EXPECT_TRUE(verifier.ok());
    verifier_ = std::move(*verifier);
    prevalidator_ = std::make_unique<Prevalidator>(verifier_.get());
  }

  std::unique_ptr<CertPrefetcher> MakePrefetcher(
      std::vector<BundleSourceType> order, bool prevalidate = true) {
    CertPrefetcherOptions options;
    options.source_order = std::move(order);
    options.prevalidate = prevalidate;
    options.source_timeout = absl::Milliseconds(300);
    return std::make_unique<CertPrefetcher>(
        options, std::vector<BundleSource*>{&dns_, &well_known_, &cdn_},
        prevalidator_.get(), &cache_);
  }

  const PrefetchRecord* Run(CertPrefetcher* prefetcher,
                            const std::string& host = kHost,
                            uint16_t port = kPort) {
    prefetcher->Prefetch(host, port);
    prefetcher->WhenIdle([this] { loop_.Quit(); });
    loop_.Run();
    return prefetcher->Record(host, port);
  }

  EventLoop loop_;
  std::unique_ptr<BasicCertVerifier> verifier_;
  std::unique_ptr<Prevalidator> prevalidator_;
  FakeTxtResolver resolver_;
  FakeUrlFetcher fetcher_;
  PrefetchCache cache_;
  DnsBundleSource dns_{&resolver_, &fetcher_};
  WellKnownBundleSource well_known_{&fetcher_};
  CdnBundleSource cdn_{
      &fetcher_,
      {"http://cdn1.test/b", "http://cdn2.test/b", "http://cdn3.test/b"}};
};

TEST_F(CertPrefetcherTest, DnsTxtBundleIsVerifiedAndPrevalidated) {
  resolver_.txt["_certbundle.www.example.test"] = {absl::StrJoin(
      *EncodeBundleTxt(MakeBundle(kHost, "good_leaf_chain.pem")), "")};
  auto prefetcher = MakePrefetcher({BundleSourceType::kDns});
  const PrefetchRecord* record = Run(prefetcher.get());
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->state, PrefetchRecord::State::kReady);
  EXPECT_TRUE(record->prevalidated);
  EXPECT_EQ(record->fetched.source, BundleSourceType::kDns);
  EXPECT_EQ(record->fetched.bundle.orbit, kOrbit);
  EXPECT_GT(record->fetched.bytes, 1000u);
  // The connection layer finds the prevalidated answer for this chain.
  EXPECT_NE(prevalidator_->Lookup(record->fetched.bundle.chain, kHost),
            nullptr);
}

// A source's failure that is known at once still comes from a task, and
// destroying the request first (its owner going away) means no callback.
TEST_F(CertPrefetcherTest, ImmediateFailureIsPostedAndCancellable) {
  CdnBundleSource none(&fetcher_, {});
  int calls = 0;
  std::string message;
  std::unique_ptr<BundleSource::Request> request;
  none.Fetch(
      kHost, kPort,
      [&](absl::StatusOr<FetchedBundle> result) {
        ++calls;
        message = std::string(result.status().message());
      },
      &request);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(calls, 0);  // never inside Fetch
  loop_.RunUntilIdle();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(message, "no CDN configured");
  none.Fetch(
      kHost, kPort, [&](absl::StatusOr<FetchedBundle>) { ++calls; }, &request);
  request.reset();
  loop_.RunUntilIdle();
  EXPECT_EQ(calls, 1);
}

TEST_F(CertPrefetcherTest, TxtPointerIsFollowed) {
  resolver_.txt["_certbundle.www.example.test"] = {
      "some other record", "v=cb1; url=http://cdn9.test/www.example.test.crt"};
  fetcher_.answers["http://cdn9.test/www.example.test.crt"] = {
      OK, File(MakeBundle(kHost, "good_leaf_chain.pem"))};
  auto prefetcher = MakePrefetcher({BundleSourceType::kDns});
  const PrefetchRecord* record = Run(prefetcher.get());
  ASSERT_EQ(record->state, PrefetchRecord::State::kReady);
  EXPECT_NE(record->fetched.via.find("cdn9.test"), std::string::npos);
}

TEST_F(CertPrefetcherTest, AnotherHostsChainIsRejectedAndTheNextSourceUsed) {
  // DNS carries a perfectly valid bundle — for another host.
  resolver_.txt["_certbundle.www.example.test"] = {
      absl::StrJoin(*EncodeBundleTxt(MakeBundle("other.example.test",
                                                "bad_name_leaf_chain.pem")),
                    "")};
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, File(MakeBundle(kHost, "good_leaf_chain.pem"))};
  auto prefetcher =
      MakePrefetcher({BundleSourceType::kDns, BundleSourceType::kWellKnown});
  const PrefetchRecord* record = Run(prefetcher.get());
  ASSERT_EQ(record->state, PrefetchRecord::State::kReady);
  EXPECT_EQ(record->fetched.source, BundleSourceType::kWellKnown);
  ASSERT_EQ(record->rejected.size(), 1u);
  EXPECT_NE(record->rejected[0].find("dns: "), std::string::npos);
  EXPECT_NE(record->rejected[0].find("other.example.test"), std::string::npos)
      << record->rejected[0];
}

TEST_F(CertPrefetcherTest, ChainForTheHostButWrongNameFailsVerification) {
  // A bundle that claims www.example.test but carries a leaf whose names do
  // not cover it: shape checks pass, verification must not.
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, File(MakeBundle(kHost, "bad_name_leaf_chain.pem"))};
  auto prefetcher = MakePrefetcher({BundleSourceType::kWellKnown});
  const PrefetchRecord* record = Run(prefetcher.get());
  EXPECT_EQ(record->state, PrefetchRecord::State::kFailed);
  ASSERT_EQ(record->rejected.size(), 1u);
  EXPECT_NE(record->rejected[0].find("does not verify"), std::string::npos)
      << record->rejected[0];
  EXPECT_EQ(cache_.Lookup(kHost, kPort, absl::Now()), nullptr);
}

TEST_F(CertPrefetcherTest, UntrustedRootIsRejected) {
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, File(MakeBundle(kHost, "untrusted_leaf_chain.pem"))};
  auto prefetcher = MakePrefetcher({BundleSourceType::kWellKnown});
  const PrefetchRecord* record = Run(prefetcher.get());
  EXPECT_EQ(record->state, PrefetchRecord::State::kFailed);
  EXPECT_NE(record->rejected[0].find("ERR_CERT"), std::string::npos)
      << record->rejected[0];
}

TEST_F(CertPrefetcherTest, MalformedTxtAndHtmlAreRejectedWithReasons) {
  resolver_.txt["_certbundle.www.example.test"] = {"v=cb1; b=!!!notbase64"};
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, "<html>not found</html>"};
  auto prefetcher =
      MakePrefetcher({BundleSourceType::kDns, BundleSourceType::kWellKnown});
  const PrefetchRecord* record = Run(prefetcher.get());
  EXPECT_EQ(record->state, PrefetchRecord::State::kFailed);
  ASSERT_EQ(record->rejected.size(), 2u);
  EXPECT_NE(record->rejected[0].find("base64"), std::string::npos)
      << record->rejected[0];
  EXPECT_NE(record->rejected[1].find("well-known"), std::string::npos)
      << record->rejected[1];
}

TEST_F(CertPrefetcherTest, CdnRaceTakesTheFirstValidAnswerAndCancelsTheRest) {
  const std::string file = File(MakeBundle(kHost, "good_leaf_chain.pem"));
  // cdn1: 404 at once; cdn2: valid but slow; cdn3: valid and quick.
  fetcher_.answers["http://cdn2.test/b/www.example.test.crt"] = {
      OK, file, absl::Milliseconds(200)};
  fetcher_.answers["http://cdn3.test/b/www.example.test.crt"] = {
      OK, file, absl::Milliseconds(10)};
  auto prefetcher = MakePrefetcher({BundleSourceType::kCdn});
  const PrefetchRecord* record = Run(prefetcher.get());
  ASSERT_EQ(record->state, PrefetchRecord::State::kReady);
  EXPECT_EQ(record->fetched.via, "http://cdn3.test/b/www.example.test.crt");
  EXPECT_EQ(fetcher_.fetched.size(), 3u);
  EXPECT_EQ(fetcher_.cancelled, 1);  // cdn2's request
  EXPECT_LT(
      absl::ToDoubleMilliseconds(record->bundle_received - record->started),
      150);
}

TEST_F(CertPrefetcherTest, CdnsThatAllFailSayWhy) {
  auto prefetcher = MakePrefetcher({BundleSourceType::kCdn});
  const PrefetchRecord* record = Run(prefetcher.get());
  EXPECT_EQ(record->state, PrefetchRecord::State::kFailed);
  EXPECT_NE(record->rejected[0].find("no CDN had a valid bundle"),
            std::string::npos);
  EXPECT_NE(record->rejected[0].find("cdn3.test"), std::string::npos);
}

TEST_F(CertPrefetcherTest, SourceThatNeverAnswersTimesOut) {
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, "", absl::Seconds(30)};
  resolver_.txt["_certbundle.www.example.test"] = {absl::StrJoin(
      *EncodeBundleTxt(MakeBundle(kHost, "good_leaf_chain.pem")), "")};
  auto prefetcher =
      MakePrefetcher({BundleSourceType::kWellKnown, BundleSourceType::kDns});
  const PrefetchRecord* record = Run(prefetcher.get());
  ASSERT_EQ(record->state, PrefetchRecord::State::kReady);
  EXPECT_EQ(record->fetched.source, BundleSourceType::kDns);
  EXPECT_NE(record->rejected[0].find("timed out"), std::string::npos);
  EXPECT_EQ(fetcher_.cancelled, 1);
}

TEST_F(CertPrefetcherTest, SecondPrefetchComesFromTheCache) {
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, File(MakeBundle(kHost, "good_leaf_chain.pem"))};
  {
    auto prefetcher = MakePrefetcher({BundleSourceType::kWellKnown});
    ASSERT_EQ(Run(prefetcher.get())->state, PrefetchRecord::State::kReady);
  }
  auto prefetcher = MakePrefetcher({BundleSourceType::kWellKnown});
  const PrefetchRecord* record = Run(prefetcher.get());
  EXPECT_EQ(record->state, PrefetchRecord::State::kReady);
  EXPECT_TRUE(record->from_cache);
  EXPECT_EQ(fetcher_.fetched.size(), 1u);
}

TEST_F(CertPrefetcherTest, DuplicatePrefetchesJoinAndQueueIsBounded) {
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, File(MakeBundle(kHost, "good_leaf_chain.pem")),
      absl::Milliseconds(20)};
  auto prefetcher = MakePrefetcher({BundleSourceType::kWellKnown});
  for (int i = 0; i < 5; ++i) prefetcher->Prefetch(kHost, kPort);
  // Far more hosts than the queue holds: the rest are dropped, counted.
  for (int i = 0; i < 100; ++i)
    prefetcher->Prefetch(absl::StrCat("h", i, ".example.test"), kPort);
  prefetcher->WhenIdle([this] { loop_.Quit(); });
  loop_.Run();
  EXPECT_EQ(fetcher_.fetched[0],
            "http://www.example.test/.well-known/cert-bundle");
  EXPECT_EQ(prefetcher->jobs_started() + prefetcher->jobs_dropped(), 101u);
  EXPECT_GT(prefetcher->jobs_dropped(), 0u);
  EXPECT_LE(prefetcher->jobs_started(), 4u + 32u);
}

TEST_F(CertPrefetcherTest, WithoutPrevalidationTheBundleIsOnlyShapeChecked) {
  fetcher_.answers["http://www.example.test/.well-known/cert-bundle"] = {
      OK, File(MakeBundle(kHost, "good_leaf_chain.pem"))};
  auto prefetcher =
      MakePrefetcher({BundleSourceType::kWellKnown}, /*prevalidate=*/false);
  const PrefetchRecord* record = Run(prefetcher.get());
  EXPECT_EQ(record->state, PrefetchRecord::State::kReady);
  EXPECT_FALSE(record->prevalidated);
  EXPECT_EQ(prevalidator_->jobs_started(), 0u);
}

TEST(PrefetchCacheTest, RoundTripAndEveryTruncationIsDetected) {
  PrefetchCache cache;
  FetchedBundle fetched;
  fetched.bundle = MakeBundle(kHost, "good_leaf_chain.pem");
  fetched.source = BundleSourceType::kCdn;
  fetched.bytes = 1234;
  fetched.via = "http://cdn1.test/b/www.example.test.crt";
  fetched.server_hello = "hello template";
  const absl::Time now = absl::Now();
  cache.Put(fetched, now);
  std::string bytes = cache.Serialize();
  absl::StatusOr<PrefetchCache> parsed = PrefetchCache::Parse(bytes, now);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const PrefetchCache::Entry* entry = parsed->Lookup(kHost, kPort, now);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->fetched.bundle, fetched.bundle);
  EXPECT_EQ(entry->fetched.via, fetched.via);
  EXPECT_EQ(entry->fetched.server_hello, fetched.server_hello);
  EXPECT_EQ(entry->fetched.source, BundleSourceType::kCdn);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(PrefetchCache::Parse(bytes.substr(0, n), now).ok()) << n;
  }
  for (size_t i = 0; i < bytes.size(); i += 13) {
    std::string flipped = bytes;
    flipped[i] ^= 1;
    absl::StatusOr<PrefetchCache> bad =
        PrefetchCache::Parse(flipped, now, absl::Hours(24), "/p/cache");
    ASSERT_FALSE(bad.ok()) << i;
    EXPECT_TRUE(absl::IsDataLoss(bad.status())) << bad.status();
    EXPECT_NE(bad.status().message().find("/p/cache"), std::string::npos);
  }
  // The unframed file of the previous version is refused, saying so.
  absl::StatusOr<PrefetchCache> old_format =
      PrefetchCache::Parse(std::string("PFC1\0\0\0\0", 8), now);
  ASSERT_FALSE(old_format.ok());
  EXPECT_NE(old_format.status().message().find("older version"),
            std::string::npos);
  // An entry past its bound is dropped at load.
  EXPECT_EQ(PrefetchCache::Parse(bytes, now + absl::Hours(25))->size(), 0u);
}

// The truncated handshake against a TLS 1.3 BoringSSL server: no Snap Start
// there, so the chain comes from a handshake aborted at verification.
TEST(TruncatedBundleSourceTest, ChainFromAnAbortedHandshake) {
  EventLoop loop;
  SSLServerConfig config;
  config.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
  config.key_file = "cert/testdata/good_leaf.key";
  config.version_min = TLS1_3_VERSION;
  auto server_context = SSLServerContext::Create(config);
  ASSERT_TRUE(server_context.ok());
  TCPServerSocket listener;
  ASSERT_EQ(OK, listener.Listen(IPEndPoint(IPAddress::IPv4Localhost(), 0), 8));
  IPEndPoint address;
  listener.GetLocalAddress(&address);
  std::vector<std::unique_ptr<SSLServerSocket>> connections;
  std::unique_ptr<StreamSocket> accepted;
  std::function<void()> accept = [&] {
    for (;;) {
      int rv = listener.Accept(&accepted, [&](int rv) {
        if (rv == OK) {
          connections.push_back(std::make_unique<SSLServerSocket>(
              std::move(accepted), server_context->get()));
          connections.back()->Handshake([](int) {});
        }
        accept();
      });
      if (rv != OK) return;
      connections.push_back(std::make_unique<SSLServerSocket>(
          std::move(accepted), server_context->get()));
      connections.back()->Handshake([](int) {});
    }
  };
  accept();
  FakeTxtResolver resolver;
  // Each probe connection's round trip goes to the observer (the session's
  // TCP Fast Open hints, in net/context).
  struct Samples : ServerRttObserver {
    void OnServerRttSample(const std::string& host,
                           absl::Duration rtt) override {
      seen.emplace_back(host, rtt);
    }
    std::vector<std::pair<std::string, absl::Duration>> seen;
  } samples;
  TruncatedBundleSource source(&resolver, GetDefaultClientSocketFactory(),
                               absl::Seconds(5), /*fast_open=*/false,
                               /*connect_to=*/nullptr, &samples);
  std::unique_ptr<BundleSource::Request> request;
  absl::StatusOr<FetchedBundle> result = absl::UnknownError("not run");
  source.Fetch(
      kHost, address.port(),
      [&](absl::StatusOr<FetchedBundle> r) {
        result = std::move(r);
        loop.Quit();
      },
      &request);
  loop.Run();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->bundle.chain, LoadChain("good_leaf_chain.pem"));
  EXPECT_FALSE(result->bundle.orbit.has_value());
  EXPECT_EQ(result->source, BundleSourceType::kTruncated);
  // Two connections: the Snap Start probe's and the aborted handshake's.
  ASSERT_EQ(samples.seen.size(), 2u);
  for (const auto& [host, rtt] : samples.seen) {
    EXPECT_EQ(host, kHost);
    EXPECT_GT(rtt, absl::ZeroDuration());
    EXPECT_LT(rtt, absl::Seconds(1));
  }
}

TEST(BundleSourceListTest, Parses) {
  auto list = ParseBundleSourceList("dns,well-known,cdn,truncated");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 4u);
  EXPECT_FALSE(ParseBundleSourceList("dns,dns").ok());
  EXPECT_FALSE(ParseBundleSourceList("ftp").ok());
}

}  // namespace
}  // namespace net
