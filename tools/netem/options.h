// Options is the parsed command line of the netem tool: which addresses to
// relay and the link to emulate between them. ParseCommandLine() builds it
// from argv; the caller owns the result and hands it to a Relay.

#ifndef TOOLS_NETEM_OPTIONS_H_
#define TOOLS_NETEM_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/netem/link_model.h"
#include "tools/netem/socket_address.h"

namespace netem {

enum class Protocol { kTcp, kUdp };

// Returns "tcp" or "udp".
const char* ProtocolName(Protocol protocol);

// One relay: accept on `listen` (port 0 picks a free port) and forward to
// `target`.
struct Forward {
  Protocol protocol = Protocol::kTcp;
  SocketAddress listen;
  SocketAddress target;
};

struct Options {
  std::vector<Forward> forwards;
  LinkParams link;
  // A UDP client mapping with no traffic for this long is closed.
  int64_t udp_idle_timeout_ns = 60'000'000'000;
  // True when --help was given; nothing else is meaningful then.
  bool help = false;
};

// Parses the netem command line (argv[0] is skipped). Flags take their value
// as the next argument or after '='. Returns InvalidArgument with a message
// fit for the user on unknown flags, missing or malformed values, --rtt-ms
// combined with --up-delay-ms/--down-delay-ms, or no --tcp/--udp at all.
[[nodiscard]] absl::StatusOr<Options> ParseCommandLine(int argc,
                                                       const char* const* argv);

// Parses "LISTEN_ADDR:PORT=TARGET_ADDR:PORT". The target port must not be 0.
[[nodiscard]] absl::StatusOr<Forward> ParseForward(Protocol protocol,
                                                   absl::string_view spec);

// The --help text.
std::string UsageText();

}  // namespace netem

#endif  // TOOLS_NETEM_OPTIONS_H_
