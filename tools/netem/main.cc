// netem: a userspace link emulator. `netem shell ...` emulates a link at the
// packet level (network namespaces and TUN devices); `netem --tcp/--udp ...`
// is the older TCP/UDP relay. See README.md.

#include <signal.h>

#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/netem/netem_shell.h"
#include "tools/netem/options.h"
#include "tools/netem/relay.h"
#include "tools/netem/shell_options.h"

int main(int argc, char** argv) {
  if (argc > 1 && absl::string_view(argv[1]) == "shell") {
    // The packet level: a namespace behind an emulated link.
    absl::StatusOr<netem::ShellOptions> shell =
        netem::ParseShellCommandLine(argc, argv);
    if (!shell.ok()) {
      std::fprintf(stderr,
                   "netem shell: %s\nRun 'netem shell --help' for usage.\n",
                   std::string(shell.status().message()).c_str());
      return 2;
    }
    if (shell->help) {
      std::fputs(netem::ShellUsageText().c_str(), stdout);
      return 0;
    }
    return netem::RunShell(*shell);
  }
  absl::StatusOr<netem::Options> options = netem::ParseCommandLine(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "netem: %s\nRun 'netem --help' for usage.\n",
                 std::string(options.status().message()).c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(netem::UsageText().c_str(), stdout);
    return 0;
  }

  // Block the stop signals before any thread starts so that only sigwait()
  // below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  netem::Relay relay(*options);
  if (absl::Status status = relay.Start(); !status.ok()) {
    std::fprintf(stderr, "netem: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  for (const netem::ListenerInfo& listener : relay.listeners()) {
    std::printf("%s\n", listener.ToString().c_str());
  }
  std::printf("ready\n");
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  relay.Stop();
  return 0;
}
