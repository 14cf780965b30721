// The README's embedding example, compiled and run against an in-process
// origin: create a context, prefetch a host, fetch a URL, read its trace.
// Keep the block between the EXAMPLE markers in sync with README.md.

#include <atomic>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "net/context/test_https_server.h"

// EXAMPLE BEGIN
#include <iostream>
#include <string>

#include "net/base/event_loop.h"
#include "net/context/network_context.h"
#include "net/timing/load_timing.h"

// Fetches |url| with a context that trusts |root_pem| and resolves |host| to
// |address|; prints the body and the request's trace; returns a net error.
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

  // Fetch: start the transaction, then read the body until 0 or an error.
  auto transaction = (*context)->CreateTransaction();
  net::HttpRequestInfo request;
  request.url = *parsed;
  int result = net::ERR_IO_PENDING;
  auto buf = std::make_shared<net::IOBuffer>(16 * 1024);
  std::string body;
  std::function<void(int)> on_read = [&](int rv) {
    while (rv > 0) {
      body.append(buf->data(), rv);
      rv = transaction->Read(buf, 16 * 1024, on_read);
    }
    if (rv != net::ERR_IO_PENDING) {
      result = rv;
      loop.Quit();
    }
  };
  int rv = transaction->Start(request, [&](int rv) {
    if (rv == net::OK)
      return on_read(transaction->Read(buf, 16 * 1024, on_read));
    result = rv;
    loop.Quit();
  });
  if (rv == net::ERR_IO_PENDING) loop.Run();

  // The trace: W3C Resource Timing names, in ms from startTime.
  std::cout << body << net::LoadTimingToJson(transaction->load_timing())
            << "\n";
  return result;
}
// EXAMPLE END

namespace net {
namespace {

TEST(EmbeddingExampleTest, FetchesAndTraces) {
  // The example owns its loop, so the origin runs on a thread of its own.
  std::atomic<int> port{0};
  std::atomic<EventLoop*> server_loop{nullptr};
  std::thread server_thread([&] {
    EventLoop loop;
    TestHttpsServer server;
    server_loop = &loop;
    port = server.address().port();
    loop.Run();
  });
  while (port == 0) std::this_thread::yield();
  testing::internal::CaptureStdout();
  int rv =
      FetchOnce(absl::StrCat("https://www.example.test:", port.load(), "/"),
                "cert/testdata/good_root.pem",
                absl::StrCat("www.example.test:", port.load(), ":127.0.0.1"));
  std::string out = testing::internal::GetCapturedStdout();
  server_loop.load()->Quit();
  server_thread.join();
  EXPECT_EQ(rv, OK);
  EXPECT_NE(out.find(TestHttpsServer::kBody), std::string::npos) << out;
  EXPECT_NE(out.find("\"responseEnd\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"domainLookupStart\""), std::string::npos) << out;
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
