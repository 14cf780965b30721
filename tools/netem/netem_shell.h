// RunShell makes a packet-level link and runs a command behind it: a new
// network namespace for the command, a TUN device on each side, the
// addresses and routes of a point-to-point link between them, and a
// PacketForwarder on a net::EventLoop in this process that moves the packets
// through the emulated link until the command exits. Then it stops every
// process left in the namespace, writes the statistics and returns the
// command's exit status. Nothing outlives it: the TUN devices go with their
// descriptors, the namespace with its last process.
//
// Addresses come from 198.19.0.0/16 (the benchmarking range, RFC 2544): a
// shell at nesting depth D uses 198.19.D.(4K+1) on netem's side and
// 198.19.D.(4K+2) on the command's, K the first pair free in this
// namespace. Nested shells route through their parents (forwarding is
// turned on in the namespaces netem made, never in the machine's).

#ifndef TOOLS_NETEM_NETEM_SHELL_H_
#define TOOLS_NETEM_NETEM_SHELL_H_

#include "tools/netem/shell_options.h"

namespace netem {

// Runs `netem shell`; returns the process exit status (see ShellUsageText).
int RunShell(const ShellOptions& options);

}  // namespace netem

#endif  // TOOLS_NETEM_NETEM_SHELL_H_
