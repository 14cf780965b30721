// An application that embeds netstack from another Bazel workspace: it
// fetches one URL with a NetworkContext and a URLRequest, following
// redirects with the profile's cookies, and prints the status, the body's
// size and the Resource Timing trace of each hop.
//
//   embed_example URL ROOT_PEM [HOST:PORT:ADDRESS]
//
// Exit code 0 on a complete 2xx response, 1 otherwise.

#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "net/base/event_loop.h"
#include "net/base/url.h"
#include "net/context/network_context.h"
#include "net/timing/load_timing.h"
#include "net/url_request/url_request.h"

namespace {

// Reads a request's body to its end, then quits the loop.
class BodyReader : public net::URLRequest::Delegate {
 public:
  explicit BodyReader(net::EventLoop* loop) : loop_(loop) {}
  int result = net::ERR_IO_PENDING;
  size_t body_bytes = 0;

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
    body_bytes += bytes_read;
    ReadAll(request);
  }

 private:
  void ReadAll(net::URLRequest* request) {
    int rv;
    while ((rv = request->Read(buf_, buf_->capacity())) > 0) body_bytes += rv;
    if (rv != net::ERR_IO_PENDING) Done(rv);
  }
  void Done(int rv) {
    result = rv;
    loop_->Quit();
  }
  net::EventLoop* loop_;
  std::shared_ptr<net::IOBuffer> buf_ =
      std::make_shared<net::IOBuffer>(16 * 1024);
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: embed_example URL ROOT_PEM [HOST:PORT:ADDRESS]\n";
    return 2;
  }
  auto url = net::Url::Parse(argv[1]);
  if (!url.ok()) {
    std::cerr << url.status() << "\n";
    return 2;
  }
  net::EventLoop loop;  // the network thread's loop; outlives the context
  net::NetworkContextParams params;
  params.trust_anchor_files = {argv[2]};
  if (argc == 4) {
    auto override = net::ResolveOverride::Parse(argv[3]);
    if (!override.ok()) {
      std::cerr << override.status() << "\n";
      return 2;
    }
    params.resolve_overrides = {*override};
  }
  params.revocation = net::RevocationPolicy::Mode::kOff;
  auto context = net::NetworkContext::Create(std::move(params));
  if (!context.ok()) {
    std::cerr << context.status() << "\n";
    return 1;
  }
  BodyReader reader(&loop);
  auto request = (*context)->CreateRequest(*url, &reader);
  request->Start();
  loop.Run();
  const int status = request->load_timing().status_code;
  std::cout << "status " << status << ", " << reader.body_bytes
            << " body bytes, " << net::ErrorToShortString(reader.result)
            << "\n";
  for (const net::URLRequestHop& hop : request->hops())
    std::cout << net::LoadTimingToJson(hop.timing) << "\n";
  std::cout << net::LoadTimingToJson(request->load_timing()) << "\n";
  request.reset();
  (*context)->Shutdown([&](absl::Status) { loop.Quit(); });
  loop.Run();
  return reader.result == net::OK && status >= 200 && status < 300 ? 0 : 1;
}
