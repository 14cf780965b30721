// The README's embedding example, compiled and run against an in-process
// origin: create a context, prefetch a host, fetch a URL that redirects and
// sets a cookie the next hop sends, read the trace, shut down.
// Keep the block between the EXAMPLE markers in sync with README.md.

#include <atomic>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "net/context/test_https_server.h"

// EXAMPLE BEGIN
#include <iostream>
#include <memory>
#include <string>

#include "net/base/event_loop.h"
#include "net/context/network_context.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request.h"

// Reads a request's body to its end, then quits the loop.
class BodyReader : public net::URLRequest::Delegate {
 public:
  explicit BodyReader(net::EventLoop* loop) : loop_(loop) {}
  int result = net::ERR_IO_PENDING;
  std::string body;

  void OnReceivedRedirect(net::URLRequest* request,
                          const net::RedirectInfo& redirect,
                          bool* defer_redirect) override {
    std::cout << "redirected to " << redirect.new_url.spec() << "\n";
  }
  void OnResponseStarted(net::URLRequest* request, int net_error) override {
    if (net_error != net::OK) return Done(net_error);
    ReadAll(request);
  }
  void OnReadCompleted(net::URLRequest* request, int bytes_read) override {
    if (bytes_read <= 0) return Done(bytes_read);
    body.append(buf_->data(), bytes_read);
    ReadAll(request);
  }

 private:
  void ReadAll(net::URLRequest* request) {
    int rv;
    while ((rv = request->Read(buf_, buf_->capacity())) > 0)
      body.append(buf_->data(), rv);
    if (rv != net::ERR_IO_PENDING) Done(rv);  // 0 at the end, or an error
  }
  void Done(int rv) {
    result = rv;
    loop_->Quit();
  }
  net::EventLoop* loop_;
  std::shared_ptr<net::IOBuffer> buf_ =
      std::make_shared<net::IOBuffer>(16 * 1024);
};

// Fetches |url| with a context that trusts |root_pem| and resolves |host| to
// |address|, following redirects with the profile's cookies; prints the
// body and the trace (one entry per hop); returns a net error.
int FetchOnce(const std::string& url, const std::string& root_pem,
              const std::string& host_port_address) {
  net::EventLoop loop;  // the network thread's loop; outlives the context
  net::NetworkContextParams params;
  params.trust_anchor_files = {root_pem};
  params.resolve_overrides = {*net::ResolveOverride::Parse(host_port_address)};
  params.revocation = net::RevocationPolicy::Mode::kOff;
  params.profile_dir = "";  // in memory; a directory persists the profile
  auto context = net::NetworkContext::Create(std::move(params));
  if (!context.ok()) {
    std::cerr << context.status() << "\n";
    return net::ERR_FAILED;
  }

  // Prefetch: resolve ahead of the click.
  auto parsed = net::Url::Parse(url);
  (*context)->Prefetch({parsed->host()}, [&] { loop.Quit(); });
  loop.Run();

  // Fetch: redirects are followed, each hop sends the cookies the jar has
  // for it (a redirect's Set-Cookie included); the delegate reads the body.
  BodyReader reader(&loop);
  auto request = (*context)->CreateRequest(*parsed, &reader);
  request->Start();
  loop.Run();
  std::cout << "cookie sent: " << request->cookie_header_sent() << "\n"
            << reader.body;

  // The trace: W3C Resource Timing names, in ms from each hop's startTime.
  for (const net::URLRequestHop& hop : request->hops())
    std::cout << net::LoadTimingToJson(hop.timing) << "\n";
  std::cout << net::LoadTimingToJson(request->load_timing()) << "\n";

  // Shut down: background work finishes, then the profile is saved.
  request.reset();
  (*context)->Shutdown([&](absl::Status status) { loop.Quit(); });
  loop.Run();
  return reader.result;
}
// EXAMPLE END

namespace net {
namespace {

TEST(EmbeddingExampleTest, FollowsARedirectWithCookiesAndTraces) {
  // The example owns its loop, so the origin runs on a thread of its own.
  std::atomic<int> port{0};
  std::atomic<EventLoop*> server_loop{nullptr};
  std::vector<std::pair<std::string, std::string>> seen;
  std::thread server_thread([&] {
    EventLoop loop;
    TestHttpsServer server;
    server_loop = &loop;
    port = server.address().port();
    loop.Run();
    seen = server.seen();
  });
  while (port == 0) std::this_thread::yield();
  testing::internal::CaptureStdout();
  int rv = FetchOnce(
      absl::StrCat("https://www.example.test:", port.load(), "/redirect"),
      "cert/testdata/good_root.pem",
      absl::StrCat("www.example.test:", port.load(), ":127.0.0.1"));
  std::string out = testing::internal::GetCapturedStdout();
  server_loop.load()->Quit();
  server_thread.join();
  EXPECT_EQ(rv, OK);
  EXPECT_NE(out.find(absl::StrCat(
                "redirected to https://www.example.test:", port.load(), "/\n")),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cookie sent: from=redirect\n"), std::string::npos) << out;
  EXPECT_NE(out.find(TestHttpsServer::kBody), std::string::npos) << out;
  // One trace entry per hop: the 302, then the 200.
  EXPECT_NE(out.find("\"status\":302"), std::string::npos) << out;
  EXPECT_NE(out.find("\"status\":200"), std::string::npos) << out;
  EXPECT_NE(out.find("\"domainLookupStart\""), std::string::npos) << out;
  // The server's view: the redirect hop carried no cookie, the next one the
  // redirect's.
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {"/redirect", ""}, {"/", "from=redirect"}}));
}

// The README shows this file's example verbatim (indented four spaces).
TEST(EmbeddingExampleTest, ReadmeShowsThisExample) {
  std::ifstream self("net/context/embedding_example_test.cc");
  std::ifstream readme("README.md");
  ASSERT_TRUE(self && readme);
  std::stringstream self_text, readme_text;
  self_text << self.rdbuf();
  readme_text << readme.rdbuf();
  std::string source = self_text.str();
  const std::string begin = "// EXAMPLE BEGIN\n", end = "// EXAMPLE END";
  size_t from = source.find(begin) + begin.size();
  std::string example = source.substr(from, source.find(end) - from);
  std::string indented;
  for (absl::string_view line : absl::StrSplit(example, '\n')) {
    if (!line.empty()) absl::StrAppend(&indented, "    ", line);
    indented += "\n";
  }
  indented.pop_back();  // the example's last newline
  EXPECT_NE(readme_text.str().find(indented), std::string::npos)
      << "README.md's embedding example differs from this file's";
}

}  // namespace
}  // namespace net
