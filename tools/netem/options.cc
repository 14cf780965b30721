#include "tools/netem/options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace netem {
namespace {

// An hour is far beyond any link worth emulating and keeps the nanosecond
// arithmetic well inside int64.
constexpr double kMaxMs = 3'600'000;

absl::StatusOr<double> ParseNonNegative(absl::string_view flag,
                                        const std::string& value, double max) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || errno != 0 || end != value.c_str() + value.size() ||
      !std::isfinite(v) || v < 0 || v > max) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " wants a number between 0 and ", max, ", got '", value, "'"));
  }
  return v;
}

int64_t MsToNs(double ms) { return std::llround(ms * 1e6); }

}  // namespace

const char* ProtocolName(Protocol protocol) {
  return protocol == Protocol::kTcp ? "tcp" : "udp";
}

absl::StatusOr<Forward> ParseForward(Protocol protocol,
                                     absl::string_view spec) {
  size_t eq = spec.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", ProtocolName(protocol),
        " wants LISTEN_ADDR:PORT=TARGET_ADDR:PORT", ", got '", spec, "'"));
  }
  Forward forward;
  forward.protocol = protocol;
  absl::StatusOr<SocketAddress> listen =
      SocketAddress::Parse(spec.substr(0, eq));
  if (!listen.ok()) return listen.status();
  absl::StatusOr<SocketAddress> target =
      SocketAddress::Parse(spec.substr(eq + 1));
  if (!target.ok()) return target.status();
  if (target->port() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("target port must not be 0 in '", spec, "'"));
  }
  forward.listen = *listen;
  forward.target = *target;
  return forward;
}

absl::StatusOr<Options> ParseCommandLine(int argc, const char* const* argv) {
  Options options;
  std::optional<double> rtt_ms, up_ms, down_ms;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    }
    if (arg.rfind("--", 0) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg, "'"));
    }
    std::string flag = arg;
    std::string value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    static const char* const kFlags[] = {
        "--tcp",           "--udp",       "--rtt-ms",    "--up-delay-ms",
        "--down-delay-ms", "--jitter-ms", "--rate-kbps", "--seed"};
    bool known = false;
    for (const char* f : kFlags) known = known || flag == f;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '", flag, "'"));
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
      }
      value = argv[++i];
    }
    if (flag == "--tcp" || flag == "--udp") {
      absl::StatusOr<Forward> forward = ParseForward(
          flag == "--tcp" ? Protocol::kTcp : Protocol::kUdp, value);
      if (!forward.ok()) return forward.status();
      options.forwards.push_back(*forward);
    } else if (flag == "--seed") {
      if (!absl::SimpleAtoi(value, &options.link.seed) ||
          value.find_first_not_of("0123456789") != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--seed wants a non-negative integer, got '", value, "'"));
      }
    } else if (flag == "--rate-kbps") {
      absl::StatusOr<double> kbps = ParseNonNegative(flag, value, 1e9);
      if (!kbps.ok()) return kbps.status();
      if (*kbps <= 0) {
        return absl::InvalidArgumentError("--rate-kbps must be above 0");
      }
      options.link.rate_bps = *kbps * 1000;
    } else {
      absl::StatusOr<double> ms = ParseNonNegative(flag, value, kMaxMs);
      if (!ms.ok()) return ms.status();
      if (flag == "--rtt-ms") rtt_ms = *ms;
      if (flag == "--up-delay-ms") up_ms = *ms;
      if (flag == "--down-delay-ms") down_ms = *ms;
      if (flag == "--jitter-ms") options.link.jitter_ns = MsToNs(*ms);
    }
  }
  if (rtt_ms && (up_ms || down_ms)) {
    return absl::InvalidArgumentError(
        "--rtt-ms cannot be combined with --up-delay-ms/--down-delay-ms");
  }
  if (rtt_ms) {
    options.link.up_delay_ns = MsToNs(*rtt_ms / 2);
    options.link.down_delay_ns = MsToNs(*rtt_ms / 2);
  } else {
    options.link.up_delay_ns = MsToNs(up_ms.value_or(0));
    options.link.down_delay_ns = MsToNs(down_ms.value_or(0));
  }
  if (options.forwards.empty()) {
    return absl::InvalidArgumentError("give at least one --tcp or --udp");
  }
  return options;
}

std::string UsageText() {
  return R"(usage: netem --tcp LISTEN_ADDR:PORT=TARGET_ADDR:PORT [--tcp ...]
             [--udp LISTEN_ADDR:PORT=TARGET_ADDR:PORT ...]
             [--rtt-ms R | --up-delay-ms U --down-delay-ms D]
             [--jitter-ms J] [--rate-kbps K] [--seed N]

Userspace link emulator: relays TCP connections and UDP datagrams to a
target, adding delay, jitter and a bandwidth limit.

  --tcp L=T          relay TCP from listen address L to target T (repeatable)
  --udp L=T          relay UDP from L to T, one upstream socket per client
  --rtt-ms R         round-trip time to add: R/2 each way (fractions allowed)
  --up-delay-ms U    one-way delay client -> target
  --down-delay-ms D  one-way delay target -> client
  --jitter-ms J      extra delay drawn uniformly from [0, J] per chunk;
                     never reorders bytes or a flow's datagrams
  --rate-kbps K      bandwidth per direction in kbit/s (1 kbit = 1000 bit),
                     shared by all connections
  --seed N           seed for the jitter generator (default 1)
  --help             this text

Addresses are A.B.C.D:PORT, localhost:PORT or [IPv6]:PORT. Listen port 0
picks a free port. Once all listeners are bound, prints one line per
listener, e.g. "listening tcp 127.0.0.1:4431 -> 127.0.0.1:443", then "ready".
Runs until SIGINT or SIGTERM. Exit codes: 0 ok, 1 runtime error, 2 bad flags.
)";
}

}  // namespace netem
