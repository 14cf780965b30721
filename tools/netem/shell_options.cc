#include "tools/netem/shell_options.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace netem {
namespace {

constexpr double kMaxMs = 3'600'000;

// The link of one path as flags set it, before it becomes two PipeParams.
struct LinkSpec {
  PipeParams up, down;
};

absl::StatusOr<double> Number(absl::string_view flag, absl::string_view value,
                              double min, double max) {
  double v = 0;
  if (!absl::SimpleAtod(value, &v) || !std::isfinite(v) || v < min || v > max) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " wants a number from ", min, " to ", max,
                     ", got '", value, "'"));
  }
  return v;
}

int64_t MsToNs(double ms) { return std::llround(ms * 1e6); }

// The flags without a value.
bool IsSwitch(absl::string_view name) {
  absl::ConsumePrefix(&name, "uplink-") ||
      absl::ConsumePrefix(&name, "downlink-");
  return name == "reorder" || name == "drop-syn-data";
}

// Applies one link flag (name without "--") to |spec|. Flags that are not
// link flags return NotFound so the caller can try its own.
absl::Status ApplyLinkFlag(absl::string_view name, absl::string_view value,
                           LinkSpec* spec) {
  auto both = [&](auto&& f) {
    f(spec->up);
    f(spec->down);
  };
  absl::string_view dir_name = name;
  std::vector<PipeParams*> dirs = {&spec->up, &spec->down};
  if (absl::ConsumePrefix(&dir_name, "uplink-")) {
    dirs = {&spec->up};
  } else if (absl::ConsumePrefix(&dir_name, "downlink-")) {
    dirs = {&spec->down};
  }
  if (name == "rtt-ms") {
    absl::StatusOr<double> v = Number(name, value, 0, kMaxMs);
    if (!v.ok()) return v.status();
    both([&](PipeParams& p) { p.delay_ns = MsToNs(*v / 2); });
  } else if (dir_name == "delay-ms") {
    absl::StatusOr<double> v = Number(name, value, 0, kMaxMs);
    if (!v.ok()) return v.status();
    for (PipeParams* p : dirs) p->delay_ns = MsToNs(*v);
  } else if (dir_name == "jitter-ms") {
    absl::StatusOr<double> v = Number(name, value, 0, kMaxMs);
    if (!v.ok()) return v.status();
    for (PipeParams* p : dirs) p->jitter_ns = MsToNs(*v);
  } else if (name == "reorder") {
    both([&](PipeParams& p) { p.reorder = true; });
  } else if (dir_name == "drop-syn-data") {
    for (PipeParams* p : dirs) p->drop_syn_data = true;
  } else if (dir_name == "duplicate-syn") {
    absl::StatusOr<double> v = Number(name, value, 0, kMaxMs);
    if (!v.ok()) return v.status();
    for (PipeParams* p : dirs) p->duplicate_syn_data_after_ns = MsToNs(*v);
  } else if (dir_name == "rate-mbps") {
    absl::StatusOr<double> v = Number(name, value, 0.001, 100'000);
    if (!v.ok()) return v.status();
    for (PipeParams* p : dirs) {
      p->rate_bps = *v * 1e6;
      p->trace.reset();
    }
  } else if (dir_name == "trace" && dirs.size() == 1) {
    absl::StatusOr<DeliveryTrace> trace =
        DeliveryTrace::Load(std::string(value));
    if (!trace.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, ": ", trace.status().message()));
    }
    dirs[0]->trace = *std::move(trace);
    dirs[0]->rate_bps = 0;
  } else if (dir_name == "loss") {
    absl::StatusOr<double> v = Number(name, value, 0, 0.99);
    if (!v.ok()) return v.status();
    for (PipeParams* p : dirs) {
      p->loss.kind = LossParams::Kind::kBernoulli;
      p->loss.rate = *v;
    }
  } else if (dir_name == "loss-burst") {
    std::vector<absl::string_view> parts = absl::StrSplit(value, ',');
    if (parts.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, " wants RATE,MEAN_BURST (e.g. 0.01,4), got '", value,
          "'"));
    }
    absl::StatusOr<double> rate = Number(name, parts[0], 0, 0.99);
    if (!rate.ok()) return rate.status();
    absl::StatusOr<double> burst = Number(name, parts[1], 1, 10'000);
    if (!burst.ok()) return burst.status();
    // Good -> Bad has probability RATE / (MEAN_BURST (1 - RATE)), which must
    // not exceed 1: a high rate needs long bursts.
    if (*rate / (*burst * (1 - *rate)) > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, ": a loss rate of ", *rate,
          " needs a mean burst of at least ", *rate / (1 - *rate), " packets"));
    }
    for (PipeParams* p : dirs) {
      p->loss.kind = LossParams::Kind::kGilbert;
      p->loss.rate = *rate;
      p->loss.mean_burst = *burst;
    }
  } else if (dir_name == "queue") {
    absl::StatusOr<QueueParams> q = QueueParams::Parse(value);
    if (!q.ok()) return q.status();
    for (PipeParams* p : dirs) p->queue = *q;
  } else if (name == "seed") {
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(value, &seed)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--seed wants a non-negative integer, got '", value, "'"));
    }
    spec->up.seed = seed;
    // The two directions draw from different streams.
    spec->down.seed = seed + 0x5bd1e995;
  } else {
    return absl::NotFoundError(name);
  }
  return absl::OkStatus();
}

absl::StatusOr<PathParams> ParsePath(absl::string_view spec,
                                     const LinkSpec& base) {
  size_t eq = spec.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--path wants PREFIX=FLAG=VALUE,... (e.g. 198.18.0.53/32=rtt-ms=40), "
        "got '",
        spec, "'"));
  }
  PathParams path;
  path.name = std::string(spec.substr(0, eq));
  std::vector<absl::string_view> prefix = absl::StrSplit(path.name, '/');
  struct in_addr addr;
  int len = 32;
  if (prefix.size() > 2 ||
      inet_pton(AF_INET, std::string(prefix[0]).c_str(), &addr) != 1 ||
      (prefix.size() == 2 &&
       (!absl::SimpleAtoi(prefix[1], &len) || len < 1 || len > 32))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--path: '", path.name, "' is not an IPv4 prefix (A.B.C.D[/LEN])"));
  }
  path.prefix = ntohl(addr.s_addr);
  path.prefix_len = len;
  LinkSpec link = base;
  for (absl::string_view flag : absl::StrSplit(spec.substr(eq + 1), ',')) {
    size_t feq = flag.find('=');
    absl::string_view name = flag.substr(0, feq);
    absl::string_view value =
        feq == absl::string_view::npos ? "" : flag.substr(feq + 1);
    if ((feq == absl::string_view::npos) != IsSwitch(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--path ", path.name, ": '", flag, "' is not FLAG=VALUE"));
    }
    absl::Status s = ApplyLinkFlag(name, value, &link);
    if (absl::IsNotFound(s)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--path ", path.name, ": unknown link flag '", name, "'"));
    }
    if (!s.ok()) return s;
  }
  path.uplink = link.up;
  path.downlink = link.down;
  return path;
}

}  // namespace

absl::StatusOr<ShellOptions> ParseShellCommandLine(int argc,
                                                   const char* const* argv) {
  ShellOptions o;
  LinkSpec link;
  std::vector<std::string> path_specs;
  int i = 2;
  for (; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      return o;
    }
    if (!absl::StartsWith(arg, "--")) break;  // the command starts here
    absl::string_view name = arg.substr(2);
    std::string value;
    size_t eq = name.find('=');
    if (eq != absl::string_view::npos) {
      value = std::string(name.substr(eq + 1));
      name = name.substr(0, eq);
    } else if (!IsSwitch(name) && name != "quiet") {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
    }
    absl::Status s = ApplyLinkFlag(name, value, &link);
    if (s.ok()) continue;
    if (!absl::IsNotFound(s)) return s;
    if (name == "path") {
      path_specs.push_back(value);
    } else if (name == "stats") {
      o.stats_file = value;
    } else if (name == "ready-file") {
      o.ready_file = value;
    } else if (name == "quiet") {
      o.quiet = true;
    } else if (name == "sysctl") {
      // The key becomes a path under /proc/sys: no '/' and no "..".
      size_t seq = value.find('=');
      absl::string_view key = absl::string_view(value).substr(0, seq);
      if (seq == std::string::npos || key.empty() ||
          key.find('/') != absl::string_view::npos ||
          key.find("..") != absl::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--sysctl wants KEY=VALUE (e.g. net.ipv4.tcp_fastopen=0x607), "
            "got '",
            value, "'"));
      }
      o.sysctls.emplace_back(value.substr(0, seq), value.substr(seq + 1));
    } else if (name == "initcwnd" || name == "initrwnd" ||
               name == "outer-initcwnd" || name == "outer-initrwnd") {
      int* window = name == "initcwnd"         ? &o.initcwnd
                    : name == "initrwnd"       ? &o.initrwnd
                    : name == "outer-initcwnd" ? &o.outer_initcwnd
                                               : &o.outer_initrwnd;
      if (!absl::SimpleAtoi(value, window) || *window < 1 || *window > 1000) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--", name, " wants 1 to 1000 segments, got '", value, "'"));
      }
    } else if (name == "mtu") {
      if (!absl::SimpleAtoi(value, &o.mtu) || o.mtu < 576 || o.mtu > 65535) {
        return absl::InvalidArgumentError(
            absl::StrCat("--mtu wants 576 to 65535, got '", value, "'"));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
  }
  for (; i < argc; ++i) o.command.push_back(argv[i]);
  if (o.command.empty()) {
    return absl::InvalidArgumentError(
        "no command: netem shell [FLAGS] -- CMD [ARGS]");
  }
  link.up.mtu = link.down.mtu = o.mtu;
  for (const std::string& spec : path_specs) {
    absl::StatusOr<PathParams> path = ParsePath(spec, link);
    if (!path.ok()) return path.status();
    path->uplink.mtu = path->downlink.mtu = o.mtu;
    o.paths.push_back(*std::move(path));
  }
  // Longest prefix first, so the first match is the most specific.
  std::stable_sort(o.paths.begin(), o.paths.end(),
                   [](const PathParams& a, const PathParams& b) {
                     return a.prefix_len > b.prefix_len;
                   });
  PathParams def;
  def.name = "default";
  def.uplink = link.up;
  def.downlink = link.down;
  o.paths.push_back(std::move(def));
  return o;
}

std::string ShellUsageText() {
  return R"(usage: netem shell [LINK FLAGS] [--path PREFIX=FLAG=V,...]... [OPTIONS] -- CMD [ARGS]

Runs CMD in a new network namespace whose only route is an emulated link
to the namespace netem was started in (which must not be the machine's
own: start it under `unshare -n` or inside tools/world). Packets cross
two TUN devices and netem's user-space queues. CMD finds netem's side of
the link in $NETEM_PEER and its own address in $NETEM_ADDRESS. Shells
nest: run netem shell as CMD of another.

Link flags (each direction; prefix uplink- or downlink- for one, e.g.
--uplink-rate-mbps; uplink is from CMD's side):
  --rtt-ms MS            round trip: MS/2 each way
  --delay-ms MS          one-way delay
  --jitter-ms MS         extra delay drawn from [0, MS] per packet; never
                         reorders unless --reorder
  --reorder              let jitter reorder packets
  --rate-mbps R          a constant rate (Mbit/s; default unlimited)
  --uplink-trace F, --downlink-trace F
                         a recorded link: Mahimahi's format, one line per
                         1500-byte delivery opportunity (ms), repeating
                         (tools/netem/traces/)
  --loss P               independent random loss, 0 <= P < 1
  --loss-burst P,LEN     bursty loss (Gilbert model): rate P, mean LEN
                         packets lost in a row
  --queue Q              unlimited (default) | droptail:PACKETS |
                         droptail:BYTESb | codel[:TARGET_MS,INTERVAL_MS[,LIMIT]]
  --drop-syn-data        drop every TCP SYN that carries data (TCP Fast
                         Open), as a middlebox that refuses them would
  --duplicate-syn MS     deliver each TCP SYN that carries data again MS
                         after the original (a network replaying it)
  --seed N               random seed for loss and jitter (default 1)
Paths:
  --path PREFIX=FLAG=V,...
                         a different link for traffic to and from PREFIX on
                         netem's side (e.g. 198.18.0.53/32=rtt-ms=40): it
                         starts from the link flags above and changes what
                         it names; repeatable, longest prefix wins
Options:
  --mtu N                both devices' MTU; larger packets are dropped (1500)
  --initcwnd N, --initrwnd N
                         initial congestion / receive window (segments) on
                         CMD's default route
  --outer-initcwnd N, --outer-initrwnd N
                         the same on netem's side: the route servers in the
                         outer namespace take to CMD
  --sysctl KEY=VALUE     set a sysctl in CMD's namespace (repeatable), e.g.
                         net.ipv4.tcp_fastopen=0x607
  --stats FILE           write per-direction statistics as JSON on exit
                         (- for stderr)
  --ready-file FILE      write {"pid", "address", "peer", ...} as JSON once
                         CMD runs
  --quiet                no notes on stderr

Exit status: CMD's (128+N if a signal N ended it); 2 bad flags; 1 the link
could not be made (the message says why: no root, no /dev/net/tun, or the
machine's own namespace).
)";
}

}  // namespace netem
