// dnslookup: resolve names with the stack's c-ares resolver, like a tiny dig.
//   dnslookup --server ADDR:PORT [--no-edns] [--timeout SEC] [--txt] NAME...
// Prints one line per address, or per TXT record (strings joined), and the
// elapsed milliseconds on stderr. Exit 0 if every name resolved, 6 if one
// did not (the error named on stderr), 2 on bad usage.

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "dns/cares_host_resolver.h"
#include "net/base/event_loop.h"

int main(int argc, char** argv) {
  net::CaresResolverConfig config;
  bool txt = false;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--server" && i + 1 < argc) {
      config.servers.push_back(argv[++i]);
    } else if (flag == "--no-edns") {
      config.edns = false;
    } else if (flag == "--txt") {
      txt = true;
    } else if (flag == "--timeout" && i + 1 < argc) {
      double s;
      if (!absl::SimpleAtod(argv[++i], &s) || s <= 0) {
        std::cerr << "dnslookup: --timeout needs seconds > 0\n";
        return 2;
      }
      config.attempt_timeout = absl::Seconds(s);
    } else if (flag == "--help" || flag == "-h" || flag[0] == '-') {
      std::cerr << "usage: dnslookup [--server ADDR:PORT]... [--no-edns] "
                   "[--timeout SEC] "
                   "[--txt] NAME...\n";
      return flag == "--help" || flag == "-h" ? 0 : 2;
    } else {
      names.push_back(flag);
    }
  }
  if (names.empty()) {
    std::cerr << "dnslookup: no name given\n";
    return 2;
  }
  net::EventLoop loop;
  auto resolver = net::CaresHostResolver::Create(config);
  if (!resolver.ok()) {
    std::cerr << "dnslookup: " << resolver.status().message() << "\n";
    return 2;
  }
  int exit_code = 0;
  for (const std::string& name : names) {
    net::HostResolveResult result;
    std::vector<std::string> records;
    std::unique_ptr<net::HostResolver::Request> request;
    int rv = net::ERR_IO_PENDING;
    auto done = [&](int r) {
      rv = r;
      loop.Quit();
    };
    net::TimeTicks start = net::TimeTicks::Now();
    int sync = txt ? (*resolver)->ResolveTxt(name, &records, done, &request)
                   : (*resolver)->Resolve(name, 0, &result, done, &request);
    if (sync != net::ERR_IO_PENDING) {
      rv = sync;
    } else {
      loop.Run();
    }
    std::cerr << name << ": " << net::ErrorToShortString(rv) << " in "
              << absl::ToDoubleMilliseconds(net::TimeTicks::Now() - start)
              << " ms\n";
    if (rv != net::OK) {
      exit_code = 6;
      continue;
    }
    if (txt) {
      for (const std::string& r : records) std::cout << r << "\n";
    } else {
      for (const net::IPAddress& a : result.addresses)
        std::cout << a.ToString() << "\n";
    }
  }
  return exit_code;
}
