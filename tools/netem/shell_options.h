// ShellOptions is the parsed command line of `netem shell`: the emulated
// link (per direction and per path), the inner namespace's settings and the
// command to run. ParseShellCommandLine() builds it; RunShell() takes it.

#ifndef TOOLS_NETEM_SHELL_OPTIONS_H_
#define TOOLS_NETEM_SHELL_OPTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/netem/packet_forwarder.h"

namespace netem {

struct ShellOptions {
  // Every path, the default one last (PacketForwarder's order).
  std::vector<PathParams> paths;
  std::string stats_file;  // "" none, "-" stderr
  std::string ready_file;  // JSON written once CMD runs
  // Sysctls of the inner namespace ("net.ipv4.tcp_fastopen", "0x607").
  std::vector<std::pair<std::string, std::string>> sysctls;
  // Initial congestion and receive windows (segments; 0: the kernel's) on
  // CMD's default route, and on netem's side of the link (the route that
  // servers in the outer namespace use to reach CMD).
  int initcwnd = 0;
  int initrwnd = 0;
  int outer_initcwnd = 0;
  int outer_initrwnd = 0;
  int mtu = 1500;
  bool quiet = false;
  std::vector<std::string> command;
  bool help = false;
};

// Parses `netem shell ...` (argv[0] is "netem", argv[1] "shell"). Returns
// InvalidArgument with a message fit for the user.
[[nodiscard]] absl::StatusOr<ShellOptions> ParseShellCommandLine(
    int argc, const char* const* argv);

// The --help text of `netem shell`.
std::string ShellUsageText();

}  // namespace netem

#endif  // TOOLS_NETEM_SHELL_OPTIONS_H_
