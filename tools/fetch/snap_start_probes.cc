#include "tools/fetch/snap_start_probes.h"

#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/snap_start/snap_start_probe.h"
#include "net/timing/load_timing.h"

namespace net {

int RunSnapStartProbes(NetworkContext* context, EventLoop* loop,
                       const std::vector<Url>& urls, bool quiet) {
  int wait_result = OK;
  auto quit = [&](int rv) {
    wait_result = rv;
    loop->Quit();
  };
  auto wait = [&](int rv) {
    if (rv != ERR_IO_PENDING) return rv;
    loop->Run();
    return wait_result;
  };
  int exit_code = 0;
  for (const Url& url : urls) {
    std::unique_ptr<StreamSocket> tcp;
    std::unique_ptr<NetworkContext::Request> request;
    int r = wait(context->ConnectTransport(url.host(), url.port(), &tcp, quit,
                                           &request));
    std::string detail;
    SnapStartProbeResult result;
    if (r == OK) {
      SnapStartProbe probe(std::move(tcp), url.host());
      r = wait(probe.Run(quit));
      detail = probe.error_detail();
      result = probe.result();
    }
    std::string json =
        absl::StrCat("{\"url\":\"", JsonEscape(url.spec()), "\",\"result\":\"",
                     ErrorToShortString(r), "\"");
    if (r == OK) {
      absl::StrAppend(
          &json, ",\"chain_length\":", result.chain_der.size(),
          absl::StrFormat(",\"cipher_suite\":\"0x%04x\"", result.cipher_suite));
      if (result.orbit)
        absl::StrAppend(&json, ",\"orbit\":\"", OrbitToHex(*result.orbit),
                        "\"");
    } else {
      absl::StrAppend(&json, ",\"detail\":\"", JsonEscape(detail), "\"");
      if (!quiet)
        std::cerr << "fetch: probe " << url.spec() << ": "
                  << ErrorToShortString(r) << " " << detail << "\n";
      exit_code = 35;
    }
    std::cout << json << "}\n";
  }
  return exit_code;
}

}  // namespace net
