#!/usr/bin/env python3
"""first_visit_1rtt: a first HTTPS visit in ONE round trip (issue 22 item 7). TCP Fast Open
carries Snap Start's first flight (ClientHello, the predicted server flight's hash, the
encrypted request) in the SYN, announced by the prefetched certificate bundle; the server's
first flight after the SYN-ACK carries the response.

Rows, on the packet-level world (the kernel's SYN crosses netem's link), fresh profiles, for
each RTT (--rtts-ms, default 50 100 200: one world each), interleaved run by run:
  http               fetch, plain HTTP (slow_http)
  http_tfo_first     fetch --tcp-fast-open, plain HTTP, the kernel's cookie cache flushed
                     first (a true first visit: the SYN can only ask for a cookie)
  http_tfo_cookie    the same with the cookie the previous connection got (a return visit
                     as far as the kernel is concerned)
  tls13              fetch, TLS 1.3 first visit, OCSP on the critical path
  chromium_tls13     headless Chromium, TLS 1.3 first visit (no online revocation check)
  snap               fetch --snap-start, the bundle from DNS, prevalidated before the click
  snap_tfo           the same + --tcp-fast-open: the bundle says the server takes SYN data
                     without a cookie
  tls13_0rtt_tfo     a return visit: TLS 1.3 resumed with 0-RTT early data and TFO (the
                     second of two fetches in one process; the cookie from the first)
DNS and OCSP as in prefetch_latency: the name is resolved before the click (--prefetch, for
Chromium --host-resolver-rules), revocation is checked (soft-fail OCSP, the world's responder)
unless prevalidated. Times are Resource/Navigation Timing's responseEnd from startTime, in ms
and in RTT.

Writes OUT/first_visit_1rtt.csv (per RTT and configuration: median, min, max, median RTTs,
ratios to plain HTTP and to Chromium's TLS 1.3 first visit), OUT/first_visit_1rtt_runs.csv,
OUT/first_visit_1rtt.svg and OUT/first_visit_1rtt.txt.

  bazel run -c opt //tools/experiments:first_visit_1rtt -- [--runs 10] [--rtts-ms 50 100 200]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402
import exp_common  # noqa: E402

SNAP = ["--snap-start", "--bundle-sources", "dns", "--revocation", "soft"]
CONFIGS = [
    # (name, client, origin key, fetch flags, label)
    ("http", "fetch", "slow_http", ["--revocation", "off"], "plain HTTP"),
    ("http_tfo_first", "fetch", "slow_http", ["--revocation", "off", "--tcp-fast-open"],
     "plain HTTP + TFO, first (no cookie)"),
    ("http_tfo_cookie", "fetch", "slow_http", ["--revocation", "off", "--tcp-fast-open"],
     "plain HTTP + TFO, cookie cached"),
    ("tls13", "fetch", "slow", ["--tls-max", "1.3", "--revocation", "soft"],
     "TLS 1.3 first visit (OCSP)"),
    ("chromium_tls13", "chromium", "slow", None, "Chromium, TLS 1.3 first visit"),
    ("snap", "fetch", "slow", SNAP, "Snap Start, prefetched bundle"),
    ("snap_tfo", "fetch", "slow", SNAP + ["--tcp-fast-open"],
     "Snap Start, prefetched bundle + TFO"),
    ("tls13_0rtt_tfo", "fetch", "slow", ["--tls-max", "1.3", "--revocation", "soft",
                                         "--early-data", "--tcp-fast-open", "--repeat", "2"],
     "TLS 1.3 resumed + 0-RTT + TFO (return)"),
]
# What each row's trace must say (tcp.fastOpen, tls.snapStart, tls.earlyData); None: anything.
EXPECT = {
    "http": ("off", None, None),
    "http_tfo_first": ("cookie_requested", None, None),
    "http_tfo_cookie": ("accepted", None, None),
    "tls13": ("off", None, None),
    "snap": ("off", "accepted", None),
    "snap_tfo": ("accepted", "accepted", None),
    "tls13_0rtt_tfo": ("accepted", None, "accepted"),
}
COLORS = {"chromium": "#e45756", "fetch": "#4c78a8", "tfo": "#54a24b"}


def log(msg):
    sys.stderr.write("first_visit_1rtt: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="visits per configuration (10)")
    ap.add_argument("--rtts-ms", type=int, nargs="+", default=[50, 100, 200],
                    help="the slowed origins' RTTs, a world each (50 100 200)")
    ap.add_argument("--out", default="tools/experiments/results/first_visit_1rtt",
                    help="output directory")
    ap.add_argument("--no-chromium", action="store_true",
                    help="leave Chromium's row out (it is required otherwise)")
    ap.add_argument("--keep-world", action="store_true")
    for b in ("fetch", "testserver", "netem", "world", "certbundle"):
        ap.add_argument("--" + b, required=True)
    args = ap.parse_args(argv)
    if args.runs < 1 or any(r <= 0 for r in args.rtts_ms):
        ap.error("--runs and --rtts-ms must be positive")
    exp_common.check_executable(ap, args, ("fetch", "testserver", "netem", "world"))
    if not args.no_chromium:
        why = chromium.available()
        if why:
            ap.error(why + " (or --no-chromium)")
    return args


def visit_chromium(world, url, rules, nss_home):
    try:
        e = chromium.visit_as(world.client_prefix(), url, rules, nss_home)
    except RuntimeError as err:
        raise exp_common.ExperimentError(str(err))
    return {"responseEnd": e["responseEnd"], "fromConnectStart": None,
            "version": e.get("chromium_version")}


def flush_tcp_metrics(world):
    """Forgets the client host's TFO cookies (and every cached TCP metric): the kernel's
    tcp_metrics of the client's namespace only."""
    p = subprocess.run(world.client_prefix() + ["ip", "tcp_metrics", "flush", "all"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise exp_common.ExperimentError("ip tcp_metrics flush failed: %s" % p.stderr.strip())


def visit_fetch(args, world, url, flags, name, host_port):
    extra = []
    if name.startswith("snap"):
        extra = ["--prefetch", host_port]  # the name and its bundle, before the click
    else:
        extra = ["--prefetch", host_port.split(":")[0]]  # the name only
    traces, _, _, _ = exp_common.run_fetch(
        args.fetch, ["--world", world.json_path, "-o", os.devnull] + flags + extra + [url],
        name, prefix=world.client_prefix())
    t = traces[-1]
    if t.get("error") not in (None, "OK"):
        raise exp_common.ExperimentError("%s: %s" % (name, t.get("error")))
    want = EXPECT.get(name)
    got = (t.get("tcp", {}).get("fastOpen"), t.get("tls", {}).get("snapStart"),
           t.get("tls", {}).get("earlyData"))
    if want:
        for w, g, what in zip(want, got, ("tcp.fastOpen", "tls.snapStart", "tls.earlyData")):
            if w is not None and g != w:
                raise exp_common.ExperimentError("%s: %s is %s, not %s" % (name, what, g, w))
    return {"responseEnd": exp_common.rel(t, "responseEnd"),
            "fromConnectStart": t["responseEnd"] - t["connectStart"],
            "fast_open": got[0], "syn_bytes": t.get("tcp", {}).get("synDataBytes", 0)}


def run_rtt(args, rtt, scratch, runs):
    world = exp_common.World(args.world, os.path.join(scratch, "world-%d" % rtt), [
        "--link", "packet", "--rtt-ms", str(rtt), "--testserver", args.testserver,
        "--netem", args.netem, "--certbundle", args.certbundle], log)
    ok = False
    version = None
    try:
        info = world.start()
        origins = info["origins"]
        rules = ",".join("MAP %s %s" % (o["host"], o["address"]) for o in origins.values())
        home = None
        if not args.no_chromium:
            home = os.path.join(scratch, "home-%d" % rtt)
            os.makedirs(home)
            chromium.make_nss_home(info["trust_anchors"], home)
        for i in range(args.runs):
            for name, client, key, flags, _ in CONFIGS:
                o = origins[key]
                if client == "chromium":
                    if args.no_chromium:
                        continue
                    r = visit_chromium(world, o["url"], rules, home)
                    version = r.pop("version")
                else:
                    if name == "http_tfo_first":
                        flush_tcp_metrics(world)
                    r = visit_fetch(args, world, o["url"], flags, name,
                                    "%s:%d" % (o["host"], o["port"]))
                r.update(rtt_ms=rtt, run=i, config=name, rtts=r["responseEnd"] / rtt)
                runs.append(r)
                log("rtt %d run %d %-16s responseEnd %7.1f ms (%.2f RTT)" % (
                    rtt, i, name, r["responseEnd"], r["rtts"]))
            world.check_alive()
        ok = True
    finally:
        world.tear_down(keep=args.keep_world or not ok)
    return version


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = exp_common.out_dir(args.out)
    os.makedirs(out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="first_visit_1rtt-")
    runs = []
    version = None
    for rtt in args.rtts_ms:
        version = run_rtt(args, rtt, scratch, runs) or version
    rows = []
    configs = [c for c in CONFIGS if not (args.no_chromium and c[1] == "chromium")]
    for rtt in args.rtts_ms:
        base = {}
        for name, client, key, flags, label in configs:
            mine = [r for r in runs if r["config"] == name and r["rtt_ms"] == rtt]
            ends = [r["responseEnd"] for r in mine]
            rows.append({
                "rtt_ms": rtt, "config": name, "client": client, "label": label,
                "runs": len(mine), "median_ms": statistics.median(ends), "min_ms": min(ends),
                "max_ms": max(ends), "median_rtts": statistics.median(ends) / rtt})
            base[name] = rows[-1]["median_ms"]
        for r in rows:
            if r["rtt_ms"] != rtt:
                continue
            r["x_http"] = r["median_ms"] / base["http"]
            r["x_chromium_tls13"] = (r["median_ms"] / base["chromium_tls13"]
                                     if "chromium_tls13" in base else "")
    exp_common.write_csv(os.path.join(out, "first_visit_1rtt.csv"),
                         ["rtt_ms", "config", "client", "runs", "median_ms", "min_ms", "max_ms",
                          "median_rtts", "x_http", "x_chromium_tls13"], rows)
    exp_common.write_csv(os.path.join(out, "first_visit_1rtt_runs.csv"),
                         ["rtt_ms", "run", "config", "responseEnd", "fromConnectStart", "rtts",
                          "fast_open", "syn_bytes"], runs)

    def color(r):
        return COLORS["chromium"] if r["client"] == "chromium" else (
            COLORS["tfo"] if "tfo" in r["config"] else COLORS["fetch"])

    with open(os.path.join(out, "first_visit_1rtt.svg"), "w") as f:
        f.write(exp_common.bar_chart_svg(
            "First visit in round trips: TCP Fast Open + Snap Start from a prefetched bundle",
            "responseEnd from startTime in RTTs, median of %d interleaved fresh-profile visits "
            "per RTT (%s ms); packet-level link" % (
                args.runs, "/".join(str(r) for r in args.rtts_ms)),
            "RTT", [{"label": "%d ms: %s" % (r["rtt_ms"], r["label"]),
                     "value": r["median_rtts"], "lo": r["min_ms"] / r["rtt_ms"],
                     "hi": r["max_ms"] / r["rtt_ms"], "color": color(r),
                     "annotation": "%.1f ms, %.2f RTT" % (r["median_ms"], r["median_rtts"])}
                    for r in rows],
            notes=["Green: TCP Fast Open. DNS resolved before the click; OCSP on the critical "
                   "path unless prevalidated (Snap Start rows); %s." % (version or "no Chromium")],
            right_w=170))
    with open(os.path.join(out, "first_visit_1rtt.txt"), "w") as f:
        f.write("first_visit_1rtt: RTT %s ms, %d runs, %s\n" % (
            "/".join(str(r) for r in args.rtts_ms), args.runs, version or "no Chromium"))
        exp_common.print_table(
            ("RTT", "configuration", "median ms", "min", "max", "RTTs", "x HTTP",
             "x Chromium TLS 1.3"),
            [(r["rtt_ms"], r["label"], "%.1f" % r["median_ms"], "%.1f" % r["min_ms"],
              "%.1f" % r["max_ms"], "%.2f" % r["median_rtts"], "%.2f" % r["x_http"],
              "%.2f" % r["x_chromium_tls13"] if r["x_chromium_tls13"] != "" else "-")
             for r in rows], out=f)
    with open(os.path.join(out, "first_visit_1rtt.txt")) as f:
        sys.stdout.write(f.read())
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except exp_common.ExperimentError as e:
        log("error: %s" % e)
        sys.exit(1)
