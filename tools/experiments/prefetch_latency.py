#!/usr/bin/env python3
"""First-visit latency with prefetched, prevalidated certificate bundles (Stark et al.).

    prefetch_latency.py --fetch BIN --testserver BIN --netem BIN --world BIN
                        [--runs 15] [--out DIR] [--rtt-ms 50] [--ocsp-rtt-ms 291]
                        [--dns-rtt-ms 40] [--dns-on-clock] [--strict]

(Normally `bazel run //tools/experiments:prefetch_latency -- [--runs N] [--out DIR]`; the
launcher (run_experiment.sh) fills in the four binaries from the runfiles.)

Starts one local world (tools/world: test servers, nginx, Knot DNS, `openssl ocsp`, netem)
with the origins `slow` and `slow_http` behind netem at --rtt-ms, the OCSP responder behind a
relay at --ocsp-rtt-ms and the DNS server behind one at --dns-rtt-ms, then, run after run,
fetches the `slow` origin once per configuration, each time in a fresh `fetch` process with a
fresh, empty --profile (a FIRST visit: no orbit, no session, no revocation answer, no bundle
from before). Every configuration runs `--prefetch slow.example.test` first (the trigger: the
DNS prefetcher firing for a link), which resolves the host and, with --bundle-sources, fetches,
verifies and prevalidates its certificate bundle; the fetch starts when that is done, so the
prefetch is not on the clock (its duration is reported separately: cert.bundle.readyMs).

  http                          slow_http (plain HTTP behind the same netem link)
  tls12_full_ocsp               --tls-max 1.2 --no-false-start --revocation soft
  tls12_false_start_ocsp        --tls-max 1.2 --revocation soft
  tls13_ocsp                    --tls-max 1.3 --revocation soft
  snap_bundle_no_prevalidation  --snap-start --bundle-sources dns --no-bundle-prevalidation
  snap_prefetched_dns           --snap-start --bundle-sources dns          (prevalidated)
  snap_prefetched_well_known    --snap-start --bundle-sources well-known   (prevalidated)
  snap_prefetched_cdn           --snap-start --bundle-sources cdn          (prevalidated)
  snap_prefetched_truncated     --snap-start --bundle-sources truncated    (prevalidated)

The measured value is the fetch's responseEnd in ms from its startTime. Configurations are
interleaved (round-robin, the order rotating from run to run) after one discarded warm-up
round. Every measurement is checked against what its row claims (TLS version, False Start,
Snap Start accepted, the bundle's source and prevalidation, where the revocation answer came
from); a fetch that fails or does something else stops the experiment (exit 1).

Output: a table (median and [min-max] of responseEnd and connectEnd, revocation ms on the
critical path), the two ratios of the issue (TLS 1.2 full + OCSP / best prefetched row, target
>= 5; best prefetched row / plain HTTP, target <= 1.05) and, per bundle source, the time from
the trigger to a usable, prevalidated bundle. With --out DIR: DIR/prefetch_latency.csv
(`config,runs,median_ms,min_ms,max_ms`), DIR/prefetch_latency_ratios.csv,
DIR/prefetch_latency_sources.csv, DIR/prefetch_latency_runs.csv (every measurement),
DIR/prefetch_latency.svg (bar chart) and DIR/prefetch_latency.txt (the printed report). Exit
codes: 0 ok, 1 a fetch failed or the world did not start, 2 bad usage, 3 --strict and a target
is missed.

Python 3, standard library only.
"""

import argparse
import csv
import io
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import exp_common  # noqa: E402
from exp_common import ExperimentError, fmt_range, rel  # noqa: E402

SOURCES = ["dns", "well-known", "cdn", "truncated"]
BASELINES = ["http", "tls12_full_ocsp", "tls12_false_start_ocsp", "tls13_ocsp"]
NO_PREVALIDATION = "snap_bundle_no_prevalidation"
PREFETCHED = ["snap_prefetched_" + s.replace("-", "_") for s in SOURCES]
CONFIG_NAMES = BASELINES + [NO_PREVALIDATION] + PREFETCHED
REFERENCE = "tls12_full_ocsp"
RATIO_TARGETS = (("tls12_full_ocsp_over_best_prefetched", 5.0, ">="),
                 ("best_prefetched_over_http", 1.05, "<="))

CSV_COLUMNS = ["config", "runs", "median_ms", "min_ms", "max_ms"]
RUNS_CSV_COLUMNS = ["run", "config", "order", "responseEnd", "connectEnd",
                    "secureConnectionStart", "requestStart", "responseStart", "dns_ms",
                    "dns_source", "tls_version", "falseStart", "snapStart", "cert_source",
                    "revocation_source", "revocation_ms", "bundle_source", "bundle_via",
                    "bundle_bytes", "bundle_prevalidated", "bundle_fetch_ms",
                    "bundle_ready_ms", "bundle_age_ms"]


def log(msg):
    sys.stderr.write("prefetch_latency: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="First-visit fetch latency: plain HTTP, TLS with OCSP on the critical "
                    "path, and Snap Start from a prefetched, prevalidated certificate bundle "
                    "per source (see tools/experiments/README.md).")
    ap.add_argument("--runs", type=int, default=15,
                    help="measurements per configuration (default 15)")
    ap.add_argument("--out", metavar="DIR",
                    help="write DIR/prefetch_latency.csv and the files listed in --help's "
                         "description; a relative DIR is taken from $BUILD_WORKSPACE_DIRECTORY "
                         "under `bazel run`")
    ap.add_argument("--rtt-ms", type=int, default=50,
                    help="round trip netem adds to the origins (default 50)")
    ap.add_argument("--ocsp-rtt-ms", type=int, default=291,
                    help="round trip of the OCSP responder's relay (default 291, the seed "
                         "paper's median OCSP lookup)")
    ap.add_argument("--dns-rtt-ms", type=int, default=40,
                    help="round trip of the DNS server's relay (default 40)")
    ap.add_argument("--configs", default=",".join(CONFIG_NAMES),
                    help="comma-separated subset of the configurations (default: all)")
    ap.add_argument("--dns-on-clock", action="store_true",
                    help="the four rows without a bundle (http, tls*) do not prefetch DNS: "
                         "the origin's lookup is on their clock (default: every row has its "
                         "DNS prefetched, so only TLS and certificate work differ)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 3 if a ratio misses its target (>= 5x, <= 1.05x)")
    ap.add_argument("--keep-world", action="store_true",
                    help="keep the world's directory (PKI, logs) instead of deleting it")
    ap.add_argument("--fetch", required=True, help="fetch binary")
    ap.add_argument("--testserver", required=True, help="testserver binary")
    ap.add_argument("--netem", required=True, help="netem binary")
    ap.add_argument("--world", required=True, help="the //tools/world:world launcher")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.rtt_ms <= 0:
        ap.error("--rtt-ms must be positive")
    wanted = [c.strip() for c in args.configs.split(",") if c.strip()]
    for c in wanted:
        if c not in CONFIG_NAMES:
            ap.error("unknown configuration %r (known: %s)" % (c, ", ".join(CONFIG_NAMES)))
    args.configs = [c for c in CONFIG_NAMES if c in wanted]
    exp_common.check_executable(ap, args, ("fetch", "testserver", "netem", "world"))
    return args


# -- configurations ---------------------------------------------------------------------------

def make_configs(args, info):
    """(name, url, fetch flags, checks) for every configuration asked for."""
    origins = info.get("origins", {})
    for key in ("slow", "slow_http"):
        if key not in origins:
            raise ExperimentError("the world has no `%s` origin (skipped: %s)" % (
                key, info.get("skipped", {}).get(key, "?")))
    slow, slow_http = origins["slow"], origins["slow_http"]
    host = slow["host"]
    if not slow.get("snap_start_orbit"):
        raise ExperimentError("origin slow announces no Snap Start orbit")
    bundles = (info.get("bundles") or {}).get("origins", {}).get("slow")
    if not bundles:
        raise ExperimentError("the world publishes no bundle for slow (skipped: %s)" % (
            info.get("skipped", {}).get("bundles", "?")))
    missing = [s for s in SOURCES if s not in bundles.get("sources", {})]
    if missing:
        raise ExperimentError("the world publishes slow's bundle without the source(s) %s "
                              "(skipped: %s)" % (", ".join(missing), info.get("skipped")))
    if not info.get("dns"):
        raise ExperimentError("the world has no DNS server (skipped: %s)" % (
            info.get("skipped", {}).get("dns", "?")))
    if not info.get("ocsp"):
        raise ExperimentError("the world has no OCSP responder")

    prefetch = ["--prefetch", "%s:%d" % (host, slow["port"])]
    base_prefetch = [] if args.dns_on_clock else ["--prefetch", host]

    tls = lambda v, fs: {"kind": "tls", "version": v, "falseStart": fs}  # noqa: E731
    table = {
        "http": (slow_http["url"], ["--revocation", "off"] + base_prefetch, {"kind": "http"}),
        "tls12_full_ocsp": (slow["url"], ["--tls-max", "1.2", "--no-false-start",
                                          "--revocation", "soft"] + base_prefetch,
                            tls("TLSv1.2", False)),
        "tls12_false_start_ocsp": (slow["url"], ["--tls-max", "1.2", "--revocation", "soft"]
                                   + base_prefetch, tls("TLSv1.2", True)),
        "tls13_ocsp": (slow["url"], ["--tls-max", "1.3", "--revocation", "soft"]
                       + base_prefetch, tls("TLSv1.3", None)),
        NO_PREVALIDATION: (slow["url"], ["--snap-start", "--revocation", "soft",
                                         "--bundle-sources", "dns",
                                         "--no-bundle-prevalidation"] + prefetch,
                           {"kind": "snap", "source": "dns", "prevalidated": False}),
    }
    for source, name in zip(SOURCES, PREFETCHED):
        table[name] = (slow["url"], ["--snap-start", "--revocation", "soft",
                                     "--bundle-sources", source] + prefetch,
                       {"kind": "snap", "source": source, "prevalidated": True})
    return [(n, table[n][0], table[n][1], table[n][2]) for n in args.configs]


def check_trace(name, t, checks, dns_prefetched, shared_revocation=False):
    """Problems with one measurement's trace (a list of strings). shared_revocation: the
    process made other connections to the host at the same time, so a revocation answer may
    come from its in-memory cache."""
    fresh = ("fresh", "cache") if shared_revocation else ("fresh",)
    problems = []
    if t.get("status") != 200 or t.get("error") != "OK":
        problems.append("status %s, error %s" % (t.get("status"), t.get("error")))
    if t.get("socketReused"):
        problems.append("the request reused a socket")
    for k in ("connectStart", "connectEnd", "responseEnd"):
        if not isinstance(t.get(k), (int, float)):
            problems.append("no %s in the trace" % k)
    # A prefetched name is answered from the host cache (dns.source prefetch, or cache when a
    # bundle source looked the name up first): no lookup time on the clock.
    lookup = None
    if rel(t, "domainLookupEnd") is not None and rel(t, "domainLookupStart") is not None:
        lookup = rel(t, "domainLookupEnd") - rel(t, "domainLookupStart")
    if dns_prefetched and (lookup is None or lookup > 2.0):
        problems.append("DNS lookup of %s ms on the clock (dns.source %r), expected a "
                        "prefetched name" % (lookup, (t.get("dns") or {}).get("source")))
    tls = t.get("tls") or {}
    cert = t.get("cert") or {}
    rev = cert.get("revocation") or {}
    bundle = cert.get("bundle") or {}
    kind = checks["kind"]
    if kind == "http":
        if t.get("tls"):
            problems.append("expected no TLS, got %s" % tls.get("version"))
        return problems
    if kind == "tls":
        if tls.get("version") != checks["version"]:
            problems.append("tls.version %r, expected %r" % (tls.get("version"),
                                                           checks["version"]))
        if checks["falseStart"] is not None and tls.get("falseStart") != checks["falseStart"]:
            problems.append("tls.falseStart %r, expected %r" % (tls.get("falseStart"),
                                                              checks["falseStart"]))
        if tls.get("resumed"):
            problems.append("a resumed handshake on a first visit")
        if cert.get("source") not in (None, "handshake"):
            problems.append("cert.source %r, expected the handshake's chain" % cert.get("source"))
        if rev.get("source") not in fresh or rev.get("outcome") != "good":
            problems.append("revocation source/outcome %r/%r, expected fresh/good (OCSP on the "
                            "critical path)" % (rev.get("source"), rev.get("outcome")))
        return problems
    # Snap Start from a bundle.
    if tls.get("snapStart") != "accepted":
        problems.append("tls.snapStart %r, expected accepted" % tls.get("snapStart"))
    # With other connections to the host in the same process (prefetch_server_cost's parallel
    # calibration), one that finished first may leave a Snap Start ticket the next one uses:
    # the ticket form, still a Snap Start. A lone first visit must be a full one.
    if tls.get("resumed") and not shared_revocation:
        problems.append("a resumed handshake on a first visit")
    if cert.get("source") != "prefetch":
        problems.append("cert.source %r, expected prefetch" % cert.get("source"))
    if not bundle.get("used"):
        problems.append("cert.bundle.used is %r (notUsedBecause %r, rejected %r)" % (
            bundle.get("used"), bundle.get("notUsedBecause"), bundle.get("rejected")))
    if bundle.get("source") != checks["source"]:
        problems.append("cert.bundle.source %r, expected %r" % (bundle.get("source"),
                                                              checks["source"]))
    if bundle.get("fromCache"):
        problems.append("the bundle came from a cache (the profile should be fresh)")
    if bool(bundle.get("prevalidated")) != checks["prevalidated"]:
        problems.append("cert.bundle.prevalidated %r, expected %r" % (
            bundle.get("prevalidated"), checks["prevalidated"]))
    want_rev = ("prevalidated",) if checks["prevalidated"] else fresh
    if rev.get("source") not in want_rev or rev.get("outcome") != "good":
        problems.append("revocation source/outcome %r/%r, expected %s/good" % (
            rev.get("source"), rev.get("outcome"), "/".join(want_rev)))
    return problems


def measure(args, world_json, profiles_dir, name, url, flags, checks, counter):
    counter[0] += 1
    profile = os.path.join(profiles_dir, "p%05d" % counter[0])
    tail = ["--world", world_json, "--profile", profile, "-o", "/dev/null",
            "--max-time", "60"] + flags + [url]
    try:
        traces, _, _, cmd = exp_common.run_fetch(args.fetch, tail, name)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    mine = [t for t in traces if t.get("name") == url]
    if len(mine) != 1:
        raise ExperimentError("%s: expected one trace for %s, got %d of %d\n  command: %s" % (
            name, url, len(mine), len(traces), cmd))
    t = mine[0]
    dns_prefetched = "--prefetch" in flags
    problems = check_trace(name, t, checks, dns_prefetched)
    if problems:
        raise ExperimentError("%s: unexpected fetch result: %s\n  command: %s\n  trace: %s" % (
            name, "; ".join(problems), cmd, json.dumps(t)))
    tls = t.get("tls") or {}
    cert = t.get("cert") or {}
    rev = cert.get("revocation") or {}
    bundle = cert.get("bundle") or {}
    dns_ms = None
    if rel(t, "domainLookupEnd") is not None and rel(t, "domainLookupStart") is not None:
        dns_ms = rel(t, "domainLookupEnd") - rel(t, "domainLookupStart")
    return {
        "responseEnd": rel(t, "responseEnd"), "connectEnd": rel(t, "connectEnd"),
        "secureConnectionStart": rel(t, "secureConnectionStart"),
        "requestStart": rel(t, "requestStart"), "responseStart": rel(t, "responseStart"),
        "dns_ms": dns_ms, "dns_source": (t.get("dns") or {}).get("source", ""),
        "tls_version": tls.get("version", ""), "falseStart": tls.get("falseStart", ""),
        "snapStart": tls.get("snapStart", ""), "cert_source": cert.get("source", ""),
        "revocation_source": rev.get("source", ""), "revocation_ms": rev.get("ms"),
        "bundle_source": bundle.get("source", ""), "bundle_via": bundle.get("via", ""),
        "bundle_bytes": bundle.get("bytes", ""),
        "bundle_prevalidated": bundle.get("prevalidated", ""),
        "bundle_fetch_ms": bundle.get("fetchMs"), "bundle_ready_ms": bundle.get("readyMs"),
        "bundle_age_ms": bundle.get("ageMs"),
    }


# -- output -----------------------------------------------------------------------------------

def color(name):
    if name == "http":
        return "#9e9e9e"
    if name.startswith("tls"):
        return "#4c78a8"
    if name == NO_PREVALIDATION:
        return "#f58518"
    return "#54a24b"


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    base_tmp = os.environ.get("TEST_TMPDIR") or None
    world_dir = tempfile.mkdtemp(prefix="prefetch_latency-world-", dir=base_tmp)
    profiles_dir = tempfile.mkdtemp(prefix="prefetch_latency-profiles-", dir=base_tmp)
    world = exp_common.World(args.world, world_dir, [
        "--testserver", args.testserver, "--netem", args.netem, "--rtt-ms", str(args.rtt_ms),
        "--ocsp-rtt-ms", str(args.ocsp_rtt_ms), "--dns-rtt-ms", str(args.dns_rtt_ms),
        "--require-dns"], log)
    failed = True
    try:
        info = world.start()
        configs = make_configs(args, info)
        log("slow = %s, slow_http = %s; OCSP %s (%s ms), DNS %s (%s ms)" % (
            info["origins"]["slow"]["url"], info["origins"]["slow_http"]["url"],
            info["ocsp"]["url"], info["ocsp"].get("rtt_ms"), info["dns"]["server"],
            info["dns"].get("rtt_ms")))
        counter = [0]
        log("warm-up round (discarded)")
        for name, url, flags, checks in configs:
            measure(args, world.json_path, profiles_dir, name + " (warm-up)", url, flags,
                    checks, counter)

        samples = {c[0]: [] for c in configs}
        rows = []
        for run in range(args.runs):
            world.check_alive()
            k = run % len(configs)
            order = configs[k:] + configs[:k]  # rotate: no config always goes first
            for pos, (name, url, flags, checks) in enumerate(order):
                m = measure(args, world.json_path, profiles_dir, name, url, flags, checks,
                            counter)
                samples[name].append(m)
                rows.append(dict(m, run=run + 1, config=name, order=pos + 1))
            log("run %d/%d: %s" % (run + 1, args.runs, "  ".join(
                "%s=%.0f" % (c[0], samples[c[0]][-1]["responseEnd"]) for c in configs)))
        world.check_alive()
        restarts = world.reload().get("ocsp", {}).get("restarts", 0)

        # -- summary --------------------------------------------------------------------------
        summary = []
        for name, url, flags, checks in configs:
            resp = [m["responseEnd"] for m in samples[name]]
            med, lo, hi = exp_common.summarize(resp)
            summary.append({"config": name, "runs": len(resp), "median_ms": med, "min_ms": lo,
                            "max_ms": hi, "resp": resp,
                            "conn": [m["connectEnd"] for m in samples[name]],
                            "rev": [m["revocation_ms"] for m in samples[name]
                                    if m["revocation_ms"] is not None],
                            "dns": [m["dns_ms"] for m in samples[name]
                                    if m["dns_ms"] is not None]})
        by_name = {s["config"]: s for s in summary}
        prefetched = [by_name[n] for n in PREFETCHED if n in by_name]
        best = min(prefetched, key=lambda s: s["median_ms"]) if prefetched else None
        ratios = []
        if best and REFERENCE in by_name:
            v = by_name[REFERENCE]["median_ms"] / best["median_ms"]
            ratios.append((RATIO_TARGETS[0][0], REFERENCE, best["config"], v,
                           RATIO_TARGETS[0][1], RATIO_TARGETS[0][2], v >= RATIO_TARGETS[0][1]))
        if best and "http" in by_name:
            v = best["median_ms"] / by_name["http"]["median_ms"]
            ratios.append((RATIO_TARGETS[1][0], best["config"], "http", v,
                           RATIO_TARGETS[1][1], RATIO_TARGETS[1][2], v <= RATIO_TARGETS[1][1]))
        sources = []
        for source, name in zip(SOURCES, PREFETCHED):
            if name not in samples:
                continue
            ms = samples[name]
            ready = [m["bundle_ready_ms"] for m in ms if m["bundle_ready_ms"] is not None]
            fetch_ms = [m["bundle_fetch_ms"] for m in ms if m["bundle_fetch_ms"] is not None]
            sources.append({"source": source, "runs": len(ready), "ready": ready,
                            "fetch": fetch_ms, "via": ms[0]["bundle_via"],
                            "bytes": ms[0]["bundle_bytes"]})

        rep = io.StringIO()
        rep.write("prefetch_latency: first visits (fresh profile, fresh fetch process), RTT %d "
                  "ms to the origin (netem), OCSP %d ms, DNS %d ms; "
                  "%d run(s) per configuration, interleaved\n" % (
                      args.rtt_ms, args.ocsp_rtt_ms, args.dns_rtt_ms, args.runs))
        rep.write("DNS of the origin: %s. Times in ms from the request's startTime: median "
                  "[min-max]\n\n" % (
                      "prefetched in the Snap Start rows only, on the clock elsewhere"
                      if args.dns_on_clock else "prefetched in every row (off the clock)"))
        ref = by_name.get(REFERENCE)
        table = []
        for s in summary:
            table.append((s["config"], s["runs"], fmt_range(s["resp"]),
                          "%.2f" % (s["median_ms"] / args.rtt_ms),
                          "%.2f" % (ref["median_ms"] / s["median_ms"]) if ref else "-",
                          fmt_range(s["conn"]),
                          "%.1f" % statistics.median(s["rev"]) if s["rev"] else "-",
                          "%.1f" % statistics.median(s["dns"]) if s["dns"] else "-"))
        exp_common.print_table(("config", "runs", "responseEnd", "RTTs",
                                "tls12_full_ocsp/this", "connectEnd", "revocation ms",
                                "DNS ms"), table, rep)
        rep.write("\n")
        for (what, num, den, v, target, op, ok) in ratios:
            rep.write("ratio %-38s %6.2fx  (%s / %s; target %s %gx: %s)\n" % (
                what, v, num, den, op, target, "met" if ok else "MISSED"))
        if sources:
            rep.write("\nprefetch, from the trigger to a usable, prevalidated bundle "
                      "(cert.bundle.readyMs; fetchMs = the source alone, before verification "
                      "and OCSP):\n")
            exp_common.print_table(
                ("source", "runs", "readyMs", "fetchMs", "bytes", "via"),
                [(s["source"], s["runs"], fmt_range(s["ready"]), fmt_range(s["fetch"]),
                  s["bytes"], s["via"]) for s in sources], rep)
        if restarts:
            rep.write("\nnote: the world's OCSP watchdog restarted the responder %d time(s)\n"
                      % restarts)
        report = rep.getvalue()
        sys.stdout.write(report)

        if args.out:
            d = exp_common.out_dir(args.out)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "prefetch_latency.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(CSV_COLUMNS)
                for s in summary:
                    w.writerow([s["config"], s["runs"], "%.3f" % s["median_ms"],
                                "%.3f" % s["min_ms"], "%.3f" % s["max_ms"]])
            with open(os.path.join(d, "prefetch_latency_ratios.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["ratio", "numerator", "denominator", "value", "target", "met"])
                for (what, num, den, v, target, op, ok) in ratios:
                    w.writerow([what, num, den, "%.3f" % v, "%s%g" % (op, target),
                                "yes" if ok else "no"])
            with open(os.path.join(d, "prefetch_latency_sources.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["source", "runs", "median_ready_ms", "min_ready_ms",
                            "max_ready_ms", "median_fetch_ms", "bytes", "via"])
                for s in sources:
                    med, lo, hi = exp_common.summarize(s["ready"])
                    w.writerow([s["source"], s["runs"], "%.3f" % med, "%.3f" % lo,
                                "%.3f" % hi, "%.3f" % statistics.median(s["fetch"]),
                                s["bytes"], s["via"]])
            with open(os.path.join(d, "prefetch_latency_runs.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=RUNS_CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for r in rows:
                    w.writerow({k: ("%.3f" % v if isinstance(v, float) else v)
                                for k, v in r.items()})
            notes = ["Grey: plain HTTP. Blue: TLS, OCSP on the critical path. Orange: Snap Start, "
                     "bundle prefetched but verified on the critical path. Green: Snap Start from",
                     "a prefetched, prevalidated bundle (per source). Whiskers: min-max. "
                     "Prefetching (DNS, bundle, OCSP) happens before the click, off the clock."]
            notes += ["%s: %.2fx (%s / %s; target %s %g)" % (what, v, num, den, op, target)
                      for (what, num, den, v, target, op, ok) in ratios]
            svg = exp_common.bar_chart_svg(
                "First-visit fetch latency (responseEnd, median of %d)" % args.runs,
                "RTT %d ms, OCSP %d ms, DNS %d ms; fresh profile per run" % (
                    args.rtt_ms, args.ocsp_rtt_ms, args.dns_rtt_ms),
                "ms from the request's startTime",
                [{"label": s["config"], "value": s["median_ms"], "lo": s["min_ms"],
                  "hi": s["max_ms"], "color": color(s["config"]),
                  "annotation": "%.1f ms" % s["median_ms"]} for s in summary], notes)
            with open(os.path.join(d, "prefetch_latency.svg"), "w") as f:
                f.write(svg)
            with open(os.path.join(d, "prefetch_latency.txt"), "w") as f:
                f.write(report)
            print("wrote %s/prefetch_latency{.csv,_ratios.csv,_sources.csv,_runs.csv,.svg,.txt}"
                  % d)
        sys.stdout.flush()
        failed = False
        if args.strict and any(not r[6] for r in ratios):
            return 3
        return 0
    except ExperimentError as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        world.tear_down(keep=failed or args.keep_world, scratch_dirs=[profiles_dir])


if __name__ == "__main__":
    sys.exit(main())
