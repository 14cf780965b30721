// Device Bound Session Credentials end to end in one process: our client
// (NetworkContext: URLRequest, the SessionService, the profile) against
// the test server's /dbsc/ routes over loopback HTTPS, with a 1 s bound
// cookie. Registration at login, the cookie accepted, then expired and the
// request deferred while the session refreshes; the session and its key
// persist in a profile directory and work on its next run; a private
// profile writes nothing; --no-dbsc (params) leaves the cookie expired.

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "net/base/event_loop.h"
#include "net/context/network_context.h"
#include "net/device_bound_sessions/session_service.h"
#include "net/device_bound_sessions/session_store.h"
#include "net/url_request/url_request_test_util.h"
#include "tools/testserver/test_server.h"

namespace net {
namespace {

constexpr char kHost[] = "www.example.test";

struct Fetched {
  int result = ERR_IO_PENDING;
  int status = 0;
  std::string body;
  LoadTiming timing;
};

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  return out;
}

class DbscIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TestServerConfig config;
    config.https_listen.push_back(*IPEndPoint::Parse("127.0.0.1:0"));
    config.ssl.cert_chain_file = "cert/testdata/good_leaf_chain.pem";
    config.ssl.key_file = "cert/testdata/good_leaf.key";
    config.quiet = true;
    config.dbsc.cookie_lifetime = absl::Seconds(1);
    server_ = std::make_unique<TestServer>(config);
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->bound()[0].second.port();
    char tmpl[] = "/tmp/dbsc_integration_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& dir : dirs_) {
      for (const std::string& f : Files(dir)) unlink((dir + "/" + f).c_str());
      rmdir(dir.c_str());
    }
    rmdir(root_.c_str());
  }

  std::unique_ptr<NetworkContext> NewContext(const std::string& profile,
                                             bool private_profile = false,
                                             bool dbsc = true) {
    NetworkContextParams params;
    params.trust_anchor_files = {"cert/testdata/good_root.pem"};
    params.resolve_overrides = {
        *ResolveOverride::Parse(absl::StrCat(kHost, ":", port_, ":127.0.0.1"))};
    params.revocation = RevocationPolicy::Mode::kOff;
    params.session.ssl_config.alpn_protos = {"http/1.1"};
    params.device_bound_sessions = dbsc;
    if (!profile.empty()) {
      params.profile_dir = root_ + "/" + profile;
      dirs_.push_back(params.profile_dir);
    }
    params.private_profile = private_profile;
    absl::StatusOr<std::unique_ptr<NetworkContext>> context =
        NetworkContext::Create(std::move(params));
    EXPECT_TRUE(context.ok()) << context.status();
    return *std::move(context);
  }

  Fetched Get(NetworkContext* context, const std::string& path) {
    TestURLRequestDelegate delegate;
    auto request = context->CreateRequest(
        *Url::Parse(absl::StrCat("https://", kHost, ":", port_, path)),
        &delegate);
    request->Start();
    delegate.RunUntilComplete();
    Fetched f;
    f.result = delegate.result();
    f.body = delegate.body();
    if (request->response_headers())
      f.status = request->response_headers()->status_code();
    f.timing = request->load_timing();
    return f;
  }

  // Runs the loop until the context's background work (registrations
  // included) is done.
  void WaitIdle(NetworkContext* context) {
    bool idle = false;
    context->WhenIdle([&] {
      idle = true;
      loop_.Quit();
    });
    if (!idle) loop_.Run();
  }

  void Shutdown(std::unique_ptr<NetworkContext> context) {
    absl::Status saved;
    context->Shutdown([&](absl::Status s) {
      saved = s;
      loop_.Quit();
    });
    loop_.Run();
    EXPECT_TRUE(saved.ok()) << saved;
  }

  void Login(NetworkContext* context) {
    Fetched login = Get(context, "/dbsc/login");
    ASSERT_EQ(login.status, 200);
    EXPECT_EQ(login.timing.dbsc.role, DbscRole::kRegistering);
    EXPECT_EQ(login.timing.dbsc.outcome, DbscOutcome::kStarted);
    WaitIdle(context);
    std::vector<LoadTiming> traces = context->TakeDeviceBoundSessionTraces();
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].dbsc.role, DbscRole::kRegistration);
    EXPECT_EQ(traces[0].dbsc.outcome, DbscOutcome::kRegistered)
        << traces[0].dbsc.detail;
    EXPECT_EQ(traces[0].status_code, 200);
    EXPECT_EQ(traces[0].method, "POST");
    EXPECT_TRUE(absl::EndsWith(traces[0].url, "/dbsc/register"));
    EXPECT_GT(*traces[0].dbsc.registered, absl::ZeroDuration());
  }

  // Waits past the 1 s bound cookie.
  static void Expire() { absl::SleepFor(absl::Milliseconds(1100)); }

  // A request for /dbsc/protected after the cookie expired: deferred,
  // refreshed, then accepted.
  void ExpectDeferredAndRefreshed(NetworkContext* context) {
    Fetched f = Get(context, "/dbsc/protected");
    EXPECT_EQ(f.status, 200) << f.body;
    EXPECT_EQ(f.timing.dbsc.role, DbscRole::kRequest);
    EXPECT_EQ(f.timing.dbsc.outcome, DbscOutcome::kRefreshed)
        << f.timing.dbsc.detail;
    ASSERT_TRUE(f.timing.dbsc.deferred.has_value());
    EXPECT_GT(*f.timing.dbsc.deferred, absl::ZeroDuration());
    EXPECT_EQ(f.timing.dbsc.alg, "ES256");
    std::vector<LoadTiming> traces = context->TakeDeviceBoundSessionTraces();
    ASSERT_FALSE(traces.empty());
    EXPECT_EQ(traces.back().dbsc.role, DbscRole::kRefresh);
    EXPECT_EQ(traces.back().dbsc.outcome, DbscOutcome::kRefreshed);
    EXPECT_TRUE(absl::EndsWith(traces.back().url, "/dbsc/refresh"));
  }

  EventLoop loop_;
  std::unique_ptr<TestServer> server_;
  uint16_t port_ = 0;
  std::string root_;
  std::vector<std::string> dirs_;
};

TEST_F(DbscIntegrationTest, RegisterRefreshAndPersist) {
  auto context = NewContext("a");
  Login(context.get());
  Fetched ok = Get(context.get(), "/dbsc/protected");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.timing.dbsc.outcome, DbscOutcome::kBound);
  EXPECT_FALSE(ok.timing.dbsc.deferred.has_value());

  Expire();
  ExpectDeferredAndRefreshed(context.get());
  EXPECT_EQ(context->device_bound_sessions()->stats().refreshed, 1u);
  Shutdown(std::move(context));
  struct stat st;
  ASSERT_EQ(stat((root_ + "/a/" + SessionStore::kFileName).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // The next run of the profile: the session and its key came back.
  context = NewContext("a");
  EXPECT_EQ(context->profile()->device_bound_sessions()->size(), 1u);
  Expire();
  ExpectDeferredAndRefreshed(context.get());
  Shutdown(std::move(context));
}

TEST_F(DbscIntegrationTest, PrivateProfileWritesNothing) {
  auto context = NewContext("p", /*private_profile=*/true);
  Login(context.get());
  Expire();
  ExpectDeferredAndRefreshed(context.get());
  Shutdown(std::move(context));
  struct stat st;
  EXPECT_NE(stat((root_ + "/p").c_str(), &st), 0);  // not even created
}

TEST_F(DbscIntegrationTest, WithoutDbscTheCookieJustExpires) {
  auto context = NewContext("", false, /*dbsc=*/false);
  Fetched login = Get(context.get(), "/dbsc/login");
  EXPECT_EQ(login.timing.dbsc.role, DbscRole::kNone);
  EXPECT_EQ(context->device_bound_sessions(), nullptr);
  Fetched f = Get(context.get(), "/dbsc/protected");
  EXPECT_EQ(f.status, 403);
  EXPECT_TRUE(context->TakeDeviceBoundSessionTraces().empty());
  Shutdown(std::move(context));
}

}  // namespace
}  // namespace net
