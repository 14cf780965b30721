#!/usr/bin/env python3
"""vs_chromium: headless Chromium and our fetch as the same client host of the packet-level
world, first visits on the same link, interleaved (issue 20 item 8).

Rows, each a first visit with a fresh profile (Chromium: a new --user-data-dir; ours: a new
in-memory profile), to the world's slowed origins (--rtt-ms, default 100 ms):
  chromium_http        Chromium, plain HTTP (slow_http)
  chromium_tls13       Chromium, TLS 1.3 (slow), the world's root in a throw-away NSS database
  fetch_http           fetch, plain HTTP
  fetch_tls13          fetch, TLS 1.3
  fetch_snap_start     fetch --snap-start with the certificate bundle prefetched through DNS
                       and prevalidated before the click (--bundle-sources dns --prefetch)
Neither client pays DNS on the click: Chromium maps the names (--host-resolver-rules), fetch
uses the world's addresses (--no-world-dns), and the Snap Start row prefetches the name with
its bundle before the click. Navigation Timing comes from Chromium over the DevTools protocol
(tools/experiments/chromium.py), Resource Timing from fetch's trace: responseEnd from startTime,
in ms and in RTT.

Writes OUT/vs_chromium.csv (a row per configuration: median, min, max responseEnd, median
connectEnd, RTT), OUT/vs_chromium_runs.csv, OUT/vs_chromium.svg and OUT/vs_chromium.txt.

  bazel run -c opt //tools/experiments:vs_chromium -- [--runs 10] [--rtt-ms 100] [--out DIR]
"""

import argparse
import os
import statistics
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium  # noqa: E402
import exp_common  # noqa: E402

CONFIGS = [
    # (name, client, origin key, fetch flags, label)
    ("chromium_http", "chromium", "slow_http", None, "Chromium, plain HTTP"),
    ("chromium_tls13", "chromium", "slow", None, "Chromium, TLS 1.3 first visit"),
    ("fetch_http", "fetch", "slow_http", ["--no-world-dns"], "fetch, plain HTTP"),
    ("fetch_tls13", "fetch", "slow", ["--no-world-dns", "--tls-max", "1.3"],
     "fetch, TLS 1.3 first visit"),
    ("fetch_snap_start", "fetch", "slow",
     ["--snap-start", "--bundle-sources", "dns", "--prefetch", "slow.example.test"],
     "fetch, Snap Start (prefetched bundle)"),
]
COLORS = {"chromium": "#e45756", "fetch": "#4c78a8"}


def log(msg):
    sys.stderr.write("vs_chromium: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="visits per configuration (10)")
    ap.add_argument("--rtt-ms", type=int, default=100, help="the slowed origins' RTT (100)")
    ap.add_argument("--out", default="tools/experiments/results/vs_chromium",
                    help="output directory")
    ap.add_argument("--keep-world", action="store_true")
    for b in ("fetch", "testserver", "netem", "world", "certbundle"):
        ap.add_argument("--" + b, required=True)
    args = ap.parse_args(argv)
    if args.runs < 1 or args.rtt_ms <= 0:
        ap.error("--runs and --rtt-ms must be positive")
    exp_common.check_executable(ap, args, ("fetch", "testserver", "netem", "world"))
    why = chromium.available()
    if why:
        ap.error(why)
    return args


def visit_chromium(world, url, rules, nss_home):
    try:
        e = chromium.visit_as(world.client_prefix(), url, rules, nss_home)
    except RuntimeError as err:
        raise exp_common.ExperimentError(str(err))
    return {"connectEnd": e["connectEnd"], "responseEnd": e["responseEnd"],
            "protocol": e.get("nextHopProtocol"), "version": e.get("chromium_version")}


def visit_fetch(args, world, url, flags, name):
    traces, _, _, _ = exp_common.run_fetch(
        args.fetch, ["--world", world.json_path, "--revocation", "off", "-o", os.devnull] +
        flags + [url], name, prefix=world.client_prefix())
    t = traces[-1]
    if t.get("error") not in (None, "OK"):
        raise exp_common.ExperimentError("%s: %s" % (name, t.get("error")))
    return {"connectEnd": exp_common.rel(t, "connectEnd"),
            "responseEnd": exp_common.rel(t, "responseEnd"),
            "snap_start": t.get("tls", {}).get("snapStart"),
            "dns_ms": (t.get("domainLookupEnd") or 0) - (t.get("domainLookupStart") or 0)}


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = exp_common.out_dir(args.out)
    os.makedirs(out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="vs_chromium-")
    world = exp_common.World(args.world, os.path.join(scratch, "world"), [
        "--link", "packet", "--rtt-ms", str(args.rtt_ms), "--testserver", args.testserver,
        "--netem", args.netem, "--certbundle", args.certbundle], log)
    ok = False
    try:
        info = world.start()
        rules = ",".join("MAP %s %s" % (o["host"], o["address"])
                         for o in info["origins"].values())
        home = os.path.join(scratch, "home")
        os.makedirs(home)
        chromium.make_nss_home(info["trust_anchors"], home)
        runs = []
        version = None
        for i in range(args.runs):
            for name, client, key, flags, _ in CONFIGS:
                url = info["origins"][key]["url"]
                if client == "chromium":
                    r = visit_chromium(world, url, rules, home)
                    version = r["version"]
                else:
                    r = visit_fetch(args, world, url, flags, name)
                    if name == "fetch_snap_start" and r["snap_start"] != "accepted":
                        raise exp_common.ExperimentError(
                            "run %d: Snap Start was %s, not accepted" % (i, r["snap_start"]))
                r.update(run=i, config=name, rtts=r["responseEnd"] / args.rtt_ms)
                runs.append(r)
                log("run %d %-18s responseEnd %7.1f ms (%.2f RTT)" % (
                    i, name, r["responseEnd"], r["rtts"]))
            world.check_alive()
        rows = []
        for name, client, key, flags, label in CONFIGS:
            mine = [r for r in runs if r["config"] == name]
            ends = [r["responseEnd"] for r in mine]
            rows.append({
                "config": name, "client": client, "label": label, "runs": len(mine),
                "median_ms": statistics.median(ends), "min_ms": min(ends),
                "max_ms": max(ends),
                "median_connect_ms": statistics.median(r["connectEnd"] for r in mine),
                "median_rtts": statistics.median(ends) / args.rtt_ms})
        base = {r["config"]: r["median_ms"] for r in rows}
        for r in rows:
            r["ratio_to_chromium_tls13"] = r["median_ms"] / base["chromium_tls13"]
        exp_common.write_csv(os.path.join(out, "vs_chromium.csv"),
                             ["config", "client", "runs", "median_ms", "min_ms", "max_ms",
                              "median_connect_ms", "median_rtts", "ratio_to_chromium_tls13"],
                             rows)
        exp_common.write_csv(os.path.join(out, "vs_chromium_runs.csv"),
                             ["run", "config", "connectEnd", "responseEnd", "rtts"], runs)
        with open(os.path.join(out, "vs_chromium.svg"), "w") as f:
            f.write(exp_common.bar_chart_svg(
                "First visit, headless Chromium and fetch on the same packet-level link",
                "responseEnd from startTime, median of %d interleaved fresh-profile visits; "
                "RTT %d ms; %s" % (args.runs, args.rtt_ms, version),
                "ms", [{"label": r["label"], "value": r["median_ms"], "lo": r["min_ms"],
                        "hi": r["max_ms"], "color": COLORS[r["client"]],
                        "annotation": "%.1f ms, %.2f RTT" % (r["median_ms"], r["median_rtts"])}
                       for r in rows],
                notes=["The kernel's own SYN crosses netem's link for both clients "
                       "(world --link packet); no DNS on the click."], right_w=170))
        with open(os.path.join(out, "vs_chromium.txt"), "w") as f:
            f.write("vs_chromium: RTT %d ms, %d runs, %s\n" % (args.rtt_ms, args.runs, version))
            exp_common.print_table(
                ("configuration", "median ms", "min", "max", "connectEnd", "RTT",
                 "x chromium tls1.3"),
                [(r["label"], "%.1f" % r["median_ms"], "%.1f" % r["min_ms"],
                  "%.1f" % r["max_ms"], "%.1f" % r["median_connect_ms"],
                  "%.2f" % r["median_rtts"], "%.2f" % r["ratio_to_chromium_tls13"])
                 for r in rows], out=f)
        with open(os.path.join(out, "vs_chromium.txt")) as f:
            sys.stdout.write(f.read())
        ok = True
    finally:
        world.tear_down(keep=args.keep_world or not ok, scratch_dirs=[scratch] if ok else [])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except exp_common.ExperimentError as e:
        log("error: %s" % e)
        sys.exit(1)
