#!/usr/bin/env python3
"""Handshake round trips: how many RTTs a cold or resumed HTTPS fetch costs per TLS mode.

    handshake_rtt.py --fetch BIN --testserver BIN --netem BIN --world BIN
                     [--rtt-ms 100] [--runs 10] [--out DIR] [--strict]

(Normally run as `bazel run //tools/experiments:handshake_rtt -- [--rtt-ms R] [--runs N]
[--out DIR]`; the launcher (run_experiment.sh) fills in the four binaries from the
runfiles.)

Starts one local world (tools/world, without nginx) whose `slow` (TLS <= 1.3) and `slow12`
(TLS 1.2 only) origins sit behind netem at --rtt-ms, then, run after run, fetches each
configuration below in a fresh `fetch` process and reads its Resource Timing trace
(`--trace-json -`). The configurations are interleaved within every run (and their order rotates
from run to run) so that machine noise hits all of them alike.

  tls12_full         slow12, --tls-max 1.2 --no-false-start     expect 4 RTT
  tls12_false_start  slow12, --tls-max 1.2                      expect 3 RTT
  tls13_full         slow,   --tls-max 1.3                      expect 3 RTT
  tls12_resumed      slow12, --tls-max 1.2 --repeat 2, 2nd req  expect 3 RTT
  tls13_resumed      slow,   --tls-max 1.3 --repeat 2, 2nd req  expect 3 RTT (no 0-RTT)
  snap_start         slow12, --snap-start (orbit learned in the warm-up, kept in a profile;
                     no ticket across processes: the full form, premaster in the
                     ClientHello)                                         expect 2 RTT
  snap_start_ticket  slow12, --snap-start --repeat 2, 2nd req (ticket form) expect 2 RTT
  tcp_baseline       an http origin behind netem, if the world has one    expect 2 RTT

Prints a table (median and min/max of responseEnd, connectEnd and connectEnd - connectStart,
responseEnd in RTTs, ratio to tls12_full) and, with --out, writes DIR/handshake_rtt.csv (the
summary) and DIR/handshake_rtt_runs.csv (every measured request). Exit codes: 0 ok, 1 a fetch
failed or the world did not start, 2 bad usage, 3 --strict and a median is more than
--tolerance RTT away from its expectation.

Python 3, standard library only.
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import exp_common  # noqa: E402
from exp_common import ExperimentError, fmt_range, out_dir, summarize  # noqa: E402

# name, origin key, fetch flags, repeat (take the last request), expected RTTs, checks on the
# measured request's trace.
CONFIGS = [
    ("tls12_full", "slow12", ["--tls-max", "1.2", "--no-false-start"], 1, 4,
     {"version": "TLSv1.2", "resumed": False, "falseStart": False}),
    ("tls12_false_start", "slow12", ["--tls-max", "1.2"], 1, 3,
     {"version": "TLSv1.2", "resumed": False, "falseStart": True}),
    ("tls13_full", "slow", ["--tls-max", "1.3"], 1, 3,
     {"version": "TLSv1.3", "resumed": False}),
    ("tls12_resumed", "slow12", ["--tls-max", "1.2"], 2, 3,
     {"version": "TLSv1.2", "resumed": True}),
    ("tls13_resumed", "slow", ["--tls-max", "1.3"], 2, 3,
     {"version": "TLSv1.3", "resumed": True}),
    # TLS Snap Start (net/snap_start): the request rides in the ClientHello. {profile} is one
    # profile directory per experiment; the warm-up round learns the server's orbit into it.
    ("snap_start", "slow12", ["--snap-start", "--profile", "{profile}"], 1, 2,
     {"version": "TLSv1.2", "resumed": False, "snapStart": "accepted"}),
    ("snap_start_ticket", "slow12", ["--snap-start", "--profile", "{profile}"], 2, 2,
     {"version": "TLSv1.2", "resumed": True, "snapStart": "accepted"}),
]
BASELINE = "tcp_baseline"
BASELINE_EXPECTED_RTTS = 2
REFERENCE = "tls12_full"

CSV_COLUMNS = ["config", "runs", "median_ms", "min_ms", "max_ms", "median_rtts",
               "ratio_to_tls12_full", "median_connect_ms"]
RUNS_CSV_COLUMNS = ["run", "config", "order", "startTime", "connectStart",
                    "secureConnectionStart", "connectEnd", "requestStart", "responseStart",
                    "responseEnd", "setup_ms", "tls_version", "resumed", "falseStart"]


def log(msg):
    sys.stderr.write("handshake_rtt: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Measures cold and resumed TLS 1.2 / 1.3 fetches through a netem link "
                    "(see tools/experiments/README.md).")
    ap.add_argument("--rtt-ms", type=int, default=100,
                    help="round trip netem adds to the slow origins (default 100)")
    ap.add_argument("--runs", type=int, default=10,
                    help="measurements per configuration (default 10)")
    ap.add_argument("--out", metavar="DIR",
                    help="write DIR/handshake_rtt.csv and DIR/handshake_rtt_runs.csv; a relative "
                         "DIR is taken from $BUILD_WORKSPACE_DIRECTORY under `bazel run`")
    ap.add_argument("--strict", action="store_true",
                    help="exit 3 if a median is more than --tolerance RTT off its expectation")
    ap.add_argument("--tolerance", type=float, default=0.6,
                    help="allowed |median RTTs - expected| for the check (default 0.6)")
    ap.add_argument("--keep-world", action="store_true",
                    help="keep the world's directory (PKI, logs) instead of deleting it")
    ap.add_argument("--fetch", required=True, help="fetch binary")
    ap.add_argument("--testserver", required=True, help="testserver binary")
    ap.add_argument("--netem", required=True, help="netem binary")
    ap.add_argument("--world", required=True, help="the //tools/world:world launcher")
    args = ap.parse_args(argv)
    if args.rtt_ms <= 0:
        ap.error("--rtt-ms must be positive (the experiment counts round trips)")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    exp_common.check_executable(ap, args, ("fetch", "testserver", "netem", "world"))
    return args


# -- the world ------------------------------------------------------------------------------------

def make_world(args, directory):
    """The world without nginx or DNS; its `slow` and `slow12` origins behind netem at --rtt-ms."""
    return exp_common.World(args.world, directory, [
        "--testserver", args.testserver, "--netem", args.netem, "--rtt-ms", str(args.rtt_ms),
        "--no-nginx", "--no-dns"], log)


def find_baseline_origin(world_info):
    """An http origin behind netem (the plain-TCP baseline), or None."""
    for key, o in world_info.get("origins", {}).items():
        if o.get("scheme") == "http" and (o.get("server") == "netem" or o.get("rtt_ms")):
            return key
    return None


# -- measuring ------------------------------------------------------------------------------------

def run_fetch(args, world_json, name, url, flags, repeat, checks):
    argv = exp_common.client_prefix(world_json) + [
            args.fetch, "--world", world_json, "--revocation", "off", "--trace-json", "-",
            "-o", "/dev/null",
            "--max-time", "60"] + flags
    if repeat > 1:
        argv += ["--repeat", str(repeat)]
    argv.append(url)
    cmd = " ".join(argv)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
    except subprocess.TimeoutExpired:
        raise ExperimentError("%s: fetch did not finish within 120 s\n  command: %s" % (name, cmd))
    stderr = p.stderr.decode(errors="replace").strip()
    if p.returncode != 0:
        raise ExperimentError("%s: fetch failed with exit code %d\n  command: %s%s" % (
            name, p.returncode, cmd, "\n  stderr: " + stderr if stderr else ""))
    traces = []
    for line in p.stdout.decode(errors="replace").splitlines():
        line = line.strip()
        if line:
            try:
                traces.append(json.loads(line))
            except ValueError:
                raise ExperimentError("%s: fetch printed a line that is not JSON: %r\n"
                                      "  command: %s" % (name, line[:200], cmd))
    if len(traces) != repeat:
        raise ExperimentError("%s: expected %d trace object(s), got %d\n  command: %s" % (
            name, repeat, len(traces), cmd))
    t = traces[-1]
    problems = []
    if t.get("status") != 200 or t.get("error") != "OK":
        problems.append("status %s, error %s" % (t.get("status"), t.get("error")))
    if t.get("socketReused"):
        problems.append("the measured request reused a socket (no handshake to measure)")
    tls = t.get("tls")
    if checks is None:  # plain TCP
        if tls:
            problems.append("expected no TLS, got %s" % tls.get("version"))
    else:
        if not tls:
            problems.append("no TLS details in the trace")
        else:
            for k, want in sorted(checks.items()):
                if tls.get(k) != want:
                    problems.append("tls.%s is %r, expected %r" % (k, tls.get(k), want))
    for k in ("connectStart", "connectEnd", "responseEnd"):
        if not isinstance(t.get(k), (int, float)):
            problems.append("no %s in the trace" % k)
    if problems:
        raise ExperimentError("%s: unexpected fetch result: %s\n  command: %s\n  trace: %s" % (
            name, "; ".join(problems), cmd, json.dumps(t)))
    # Timing points are relative to the request's startTime (0 in fetch's traces).
    base = t.get("startTime") or 0.0
    rel = lambda k: (t[k] - base) if isinstance(t.get(k), (int, float)) else None  # noqa: E731
    return {
        "startTime": base,
        "connectStart": rel("connectStart"),
        "secureConnectionStart": rel("secureConnectionStart"),
        "connectEnd": rel("connectEnd"),
        "requestStart": rel("requestStart"),
        "responseStart": rel("responseStart"),
        "responseEnd": rel("responseEnd"),
        "setup_ms": t["connectEnd"] - t["connectStart"],
        "tls_version": (tls or {}).get("version", ""),
        "resumed": (tls or {}).get("resumed", ""),
        "falseStart": (tls or {}).get("falseStart", ""),
    }


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    base_tmp = os.environ.get("TEST_TMPDIR") or None
    world_dir = tempfile.mkdtemp(prefix="handshake_rtt-world-", dir=base_tmp)
    world = make_world(args, world_dir)
    failed = True
    try:
        info = world.start()
        world_json = os.path.join(world_dir, "world.json")
        rtt = float(info.get("rtt_ms") or args.rtt_ms)
        origins = info.get("origins", {})
        for key in ("slow", "slow12"):
            if key not in origins:
                raise ExperimentError("the world has no `%s` origin (skipped: %s)" % (
                    key, info.get("skipped", {}).get(key, "?")))
            if float(origins[key].get("rtt_ms") or 0) != rtt:
                raise ExperimentError("origin %s has rtt_ms %s, expected %s" % (
                    key, origins[key].get("rtt_ms"), rtt))

        profile = os.path.join(tempfile.mkdtemp(prefix="handshake-rtt-"), "profile")
        configs = [(n, origins[o]["url"], [x.replace("{profile}", profile) for x in f], r, e, c)
                   for (n, o, f, r, e, c) in CONFIGS]
        baseline_key = find_baseline_origin(info)
        if baseline_key:
            configs.append((BASELINE, origins[baseline_key]["url"], [], 1,
                            BASELINE_EXPECTED_RTTS, None))
            baseline_note = "plain-TCP baseline: origin `%s` (%s)" % (
                baseline_key, origins[baseline_key]["url"])
        else:
            baseline_note = ("plain-TCP baseline skipped: the world has no http origin behind "
                             "netem (www_http and static are plain HTTP but not behind netem)")
        log(baseline_note)
        log("slow   = %s\n              slow12 = %s" % (origins["slow"]["url"],
                                                       origins["slow12"]["url"]))

        # One discarded round first: the servers' first handshakes pay one-off costs (page-ins,
        # lazily initialised crypto) that are not round trips.
        log("warm-up round (discarded)")
        for name, url, flags, repeat, _, checks in configs:
            # Snap Start learns the orbit in its warm-up: no outcome to check yet.
            run_fetch(args, world_json, name + " (warm-up)", url, flags, repeat,
                      {} if "--snap-start" in flags else checks)

        samples = {c[0]: [] for c in configs}
        rows = []
        for run in range(args.runs):
            world.check_alive()
            k = run % len(configs)
            order = configs[k:] + configs[:k]  # rotate so no config always goes first
            for pos, (name, url, flags, repeat, _, checks) in enumerate(order):
                m = run_fetch(args, world_json, name, url, flags, repeat, checks)
                samples[name].append(m)
                rows.append(dict(m, run=run + 1, config=name, order=pos + 1))
            log("run %d/%d: %s" % (run + 1, args.runs, "  ".join(
                "%s=%.0f" % (c[0], samples[c[0]][-1]["responseEnd"]) for c in configs)))
        world.check_alive()

        # -- summary ------------------------------------------------------------------------
        ref_median = statistics.median(m["responseEnd"] for m in samples[REFERENCE])
        summary = []
        for name, url, flags, repeat, expected, checks in configs:
            ms = samples[name]
            resp = [m["responseEnd"] for m in ms]
            conn = [m["connectEnd"] for m in ms]
            setup = [m["setup_ms"] for m in ms]
            med, lo, hi = summarize(resp)
            summary.append({
                "config": name, "runs": len(ms), "median_ms": med, "min_ms": lo, "max_ms": hi,
                "median_rtts": med / rtt, "ratio_to_tls12_full": med / ref_median,
                "median_connect_ms": statistics.median(setup),
                "resp": resp, "conn": conn, "setup": setup, "expected": expected,
                "ok": abs(med / rtt - expected) <= args.tolerance,
            })

        print("handshake_rtt: RTT %g ms (netem), "
              "%d run(s) per configuration, fresh fetch process per measurement" % (
                  rtt, args.runs))
        print("times in ms relative to the request's startTime: median [min-max]")
        print()
        hdr = ("config", "runs", "responseEnd", "RTTs", "expect", "vs tls12_full",
               "connectEnd", "TCP+TLS setup", "setup RTTs")
        table = []
        for s in summary:
            table.append((s["config"], str(s["runs"]), fmt_range(s["resp"]),
                          "%.2f" % s["median_rtts"], "%d%s" % (s["expected"],
                                                               "" if s["ok"] else " (!)"),
                          "%.2f" % s["ratio_to_tls12_full"], fmt_range(s["conn"]),
                          fmt_range(s["setup"]),
                          "%.2f" % (s["median_connect_ms"] / rtt)))
        widths = [max(len(r[i]) for r in table + [hdr]) for i in range(len(hdr))]
        line = lambda r: "  ".join(  # noqa: E731
            (c.ljust(w) if i == 0 else c.rjust(w)) for i, (c, w) in enumerate(zip(r, widths)))
        print(line(hdr))
        print(line(tuple("-" * w for w in widths)))
        for r in table:
            print(line(r))
        print()
        print(baseline_note)
        off = [s for s in summary if not s["ok"]]
        if off:
            print("CHECK: %s off the expected RTT count by more than %.2f RTT" % (
                ", ".join("%s (%.2f, expected %d)" % (s["config"], s["median_rtts"],
                                                    s["expected"]) for s in off),
                args.tolerance))
        else:
            print("CHECK: every median is within %.2f RTT of its expectation "
                  "(tls12_full 4, false start / 1.3 / resumed 3, Snap Start 2%s)" % (
                      args.tolerance, ", TCP 2" if baseline_key else ""))

        if args.out:
            d = out_dir(args.out)
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, "handshake_rtt.csv")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(CSV_COLUMNS)
                for s in summary:
                    w.writerow([s["config"], s["runs"]] + [
                        "%.3f" % s[c] for c in CSV_COLUMNS[2:]])
            runs_path = os.path.join(d, "handshake_rtt_runs.csv")
            with open(runs_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=RUNS_CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for r in rows:
                    w.writerow({k: ("%.3f" % v if isinstance(v, float) else v)
                                for k, v in r.items()})
            print("wrote %s and %s" % (path, runs_path))
        sys.stdout.flush()
        failed = False
        if args.strict and off:
            return 3
        return 0
    except ExperimentError as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        world.tear_down(keep=failed or args.keep_world)


if __name__ == "__main__":
    sys.exit(main())
