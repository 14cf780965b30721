#!/usr/bin/env python3
"""Server cost of origin-bound certificates under load: the TLS-OBC paper's Figures 9-14.

    obc_server_cost.py --obc-load BIN --testserver BIN --cert-dir DIR
                       [--seconds 60] [--warmup 3] [--rate 300] [--tls 1.2,1.3]
                       [--cases none,ecdsa,rsa1024,rsa2048] [--rounds 1] [--out DIR] [--check]

(Normally `bazel run -c opt //tools/experiments:obc_server_cost -- [--seconds 60] [--out DIR]`;
the launcher (run_experiment.sh) fills in the binaries and cert/testdata from the runfiles.)

For each TLS version and each case (no client certificate; an ECDSA P-256, RSA-1024 or RSA-2048
OBC), back to back in one run with the same load generator: a fresh testserver on 127.0.0.1
(cert/testdata's RSA-2048 chain, `--request-client-cert`, `--quiet`; TLS 1.2: `--tls-max 1.2
--no-tickets`, so resumption goes through BoringSSL's session-ID cache, which then holds every
client's certificate in server memory; TLS 1.3: `--tls-min 1.3`, stateless tickets carrying the
certificate), and `obc_load` (C++, our own TLS client) offering --rate transactions per second
on schedule for --warmup then --seconds: each a new connection, a TLS handshake and GET /size/1024
with Connection: close; one in five a full handshake (the client offers no session), four in
five resuming (80% / 20%), 64 simulated clients in turn, each with its own session cache and,
in the OBC cases, an OBC made before the load (16 key pairs shared round-robin). The server is
the same in every case: only what the client presents changes.

Measured per case, over the window: the server's CPU seconds (utime + stime of /proc/PID/stat,
all threads), its peak RSS (VmHWM of /proc/PID/status, at the end: the whole life of that
server process, warm-up included) and RSS, and every transaction's latency (connect to last
byte) as percentiles and a histogram (4 buckets per power of two). Each is reported as a ratio
to the no-OBC case of the same TLS version (with --rounds > 1: medians over rounds, the case
order rotating from round to round).

Every case is checked: no failed transaction, the server's X-OBC-SPKI-SHA256 header on every
response of an OBC case and on none of the no-OBC case, a resumed fraction near 80%, and with
--check also at most --max-late (1%) of starts more than 10 ms late (the load was really
offered) and the resumed share within --resumed-tolerance (0.05) of 80%. Exit codes: 0 ok, 1 a
measurement failed, 2 bad usage, 3 --check failed.

Output (with --out DIR): obc_server_cost.csv (one row per TLS version and case),
obc_server_cost_histogram.csv, obc_server_cost_runs.csv (every round), obc_server_cost.svg
(the ratios and the latency histograms), obc_server_cost.txt (the printed report).

Python 3, standard library only.
"""

import argparse
import csv
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

CASES = ["none", "ecdsa", "rsa1024", "rsa2048"]
CASE_LABELS = {"none": "no client cert", "ecdsa": "ECDSA P-256", "rsa1024": "RSA-1024",
               "rsa2048": "RSA-2048"}
CASE_COLORS = {"none": "#7f7f7f", "ecdsa": "#1f77b4", "rsa1024": "#ff7f0e", "rsa2048": "#d62728"}
HOST = "www.example.test"

CSV_COLUMNS = ["tls", "case", "rounds", "rate", "seconds", "transactions", "tps",
               "resumed_fraction", "errors", "late", "server_cpu_s", "server_cpu_share",
               "server_cpu_us_per_tx", "cpu_ratio", "server_vmhwm_kb", "vmhwm_ratio",
               "server_vmrss_kb", "p50_ms", "p50_ratio", "p90_ms", "p90_ratio", "p99_ms",
               "p99_ratio", "mean_ms", "mean_ratio", "full_p50_ms", "full_p50_ratio",
               "resumed_p50_ms", "resumed_p50_ratio", "client_cpu_s"]
HISTOGRAM_COLUMNS = ["tls", "case", "lo_ms", "hi_ms", "full", "resumed"]
RUNS_COLUMNS = ["round", "order", "tls", "case", "seconds", "transactions", "tps",
                "resumed_fraction", "errors", "late", "server_cpu_s", "server_cpu_us_per_tx",
                "server_vmhwm_kb", "server_vmrss_kb", "p50_ms", "p90_ms", "p99_ms", "mean_ms",
                "full_p50_ms", "resumed_p50_ms", "client_cpu_s", "obc_seen", "obc_missing",
                "loadavg_1m"]


class ExperimentError(Exception):
    pass


def log(msg):
    sys.stderr.write("obc_server_cost: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Server CPU, peak RSS and latency under load with and without origin-bound "
                    "certificates (see tools/experiments/README.md).")
    ap.add_argument("--seconds", type=float, default=60.0,
                    help="measured seconds per case (default 60)")
    ap.add_argument("--warmup", type=float, default=3.0,
                    help="unmeasured seconds of the same load before each (default 3)")
    ap.add_argument("--rate", type=float, default=300.0,
                    help="transactions started per second (default 300)")
    ap.add_argument("--full-every", type=int, default=5,
                    help="one transaction in N is a full handshake (default 5: 20%%)")
    ap.add_argument("--clients", type=int, default=64,
                    help="simulated clients, each with its own session cache (default 64)")
    ap.add_argument("--tls", default="1.2,1.3", help="TLS versions (default 1.2,1.3)")
    ap.add_argument("--cases", default=",".join(CASES),
                    help="comma-separated cases (default: all; `none` is always measured)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds over all cases, order rotating (default 1)")
    ap.add_argument("--no-pin", action="store_true",
                    help="do not pin the server and the load generator to different CPUs")
    ap.add_argument("--out", metavar="DIR",
                    help="write the CSVs, the SVG and the report into DIR; a relative DIR is "
                         "taken from $BUILD_WORKSPACE_DIRECTORY under `bazel run`")
    ap.add_argument("--check", action="store_true",
                    help="exit 3 unless every case looks as designed (see the docstring)")
    ap.add_argument("--max-late", type=float, default=0.01, metavar="FRACTION",
                    help="--check: at most this share of starts more than 10 ms late "
                         "(default 0.01)")
    ap.add_argument("--resumed-tolerance", type=float, default=0.05,
                    help="--check: the resumed share within this of 1 - 1/--full-every "
                         "(default 0.05)")
    ap.add_argument("--obc-load", required=True, help="obc_load binary")
    ap.add_argument("--testserver", required=True, help="testserver binary")
    ap.add_argument("--cert-dir", required=True,
                    help="cert/testdata (good_leaf_chain.pem, good_leaf.key, good_root.pem)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.warmup < 0 or args.rate <= 0 or args.rounds < 1:
        ap.error("--seconds and --rate must be positive, --rounds at least 1")
    args.tls = [v.strip() for v in args.tls.split(",") if v.strip()]
    if not args.tls or any(v not in ("1.2", "1.3") for v in args.tls):
        ap.error("--tls takes 1.2 and/or 1.3")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    if any(c not in CASES for c in cases):
        ap.error("--cases: choose from %s" % ", ".join(CASES))
    args.cases = [c for c in CASES if c in cases or c == "none"]
    if args.out and not os.path.isabs(args.out) and os.environ.get("BUILD_WORKSPACE_DIRECTORY"):
        args.out = os.path.join(os.environ["BUILD_WORKSPACE_DIRECTORY"], args.out)
    return args


# -- one case ---------------------------------------------------------------------------------


def cpu_sets(no_pin):
    """(server CPUs, load generator CPUs): the last CPU for the server, the others for the load
    generator, when there are at least two and pinning is allowed; else (None, None)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None, None
    if no_pin or len(cpus) < 2:
        return None, None
    return {cpus[-1]}, set(cpus[:-1])


def start_server(args, tls, tmp, cpus):
    chain = os.path.join(args.cert_dir, "good_leaf_chain.pem")
    key = os.path.join(args.cert_dir, "good_leaf.key")
    argv = [args.testserver, "--listen", "127.0.0.1:0", "--cert-chain", chain, "--key", key,
            "--request-client-cert", "--quiet", "--response-size", "1024"]
    argv += ["--tls-max", "1.2", "--no-tickets"] if tls == "1.2" else ["--tls-min", "1.3"]
    out_path = os.path.join(tmp, "testserver.out")
    out = open(out_path, "w")
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    out.close()
    deadline = time.monotonic() + 10
    port = None
    while time.monotonic() < deadline:
        with open(out_path) as f:
            lines = [l.strip() for l in f]
        for l in lines:
            if l.startswith("listening https "):
                port = int(l.rsplit(":", 1)[1])
        if "ready" in lines and port:
            return proc, port
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    with open(out_path) as f:
        raise ExperimentError("the testserver did not start (%s):\n%s" % (" ".join(argv),
                                                                          f.read()))


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def loadavg_1m():
    """The machine's 1-minute load average (other work on a shared machine moves the numbers)."""
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def run_case(args, tls, case, tmp, pins):
    server_cpus, load_cpus = pins
    proc, port = start_server(args, tls, tmp, server_cpus)
    try:
        json_path = os.path.join(tmp, "load.json")
        argv = [args.obc_load, "--connect", "127.0.0.1:%d" % port, "--host", HOST,
                "--trust-anchor", os.path.join(args.cert_dir, "good_root.pem"),
                "--obc", case, "--rate", str(args.rate), "--seconds", str(args.seconds),
                "--warmup", str(args.warmup), "--full-every", str(args.full_every),
                "--clients", str(args.clients), "--tls", tls, "--server-pid", str(proc.pid),
                "--json", json_path]
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           timeout=args.warmup + args.seconds + 120,
                           preexec_fn=(lambda: os.sched_setaffinity(0, load_cpus))
                           if load_cpus else None)
        if r.returncode != 0 or not os.path.exists(json_path):
            raise ExperimentError("obc_load failed (exit %d): %s\n%s" % (
                r.returncode, " ".join(argv), r.stderr.strip()))
        with open(json_path) as f:
            m = json.load(f)
        m["loadavg_1m"] = loadavg_1m()
        if proc.poll() is not None:
            raise ExperimentError("the testserver exited during the %s / TLS %s case" % (
                case, tls))
    finally:
        stop(proc)
    problems = []
    if m["errors"]:
        problems.append("%d failed transactions, first: %s" % (m["errors"], m["first_error"]))
    if m["completed"] == 0:
        problems.append("no transaction completed")
    if case == "none" and m["obc_seen"]:
        problems.append("the server saw an OBC on %d responses without one" % m["obc_seen"])
    if case != "none" and m["obc_missing"]:
        problems.append("the server saw no OBC on %d responses" % m["obc_missing"])
    if problems:
        raise ExperimentError("TLS %s, %s: %s" % (tls, case, "; ".join(problems)))
    return m


# -- summary ----------------------------------------------------------------------------------


def ms(us):
    return us / 1000.0


def run_row(rnd, order, tls, case, m):
    lat = m["latency"]
    return {
        "round": rnd, "order": order, "tls": tls, "case": case, "seconds": m["seconds"],
        "transactions": m["completed"], "tps": m["tps"],
        "resumed_fraction": m["resumed_fraction"], "errors": m["errors"], "late": m["late"],
        "server_cpu_s": m["server_cpu_s"], "server_cpu_us_per_tx": m["server_cpu_us_per_tx"],
        "server_vmhwm_kb": m["server_vmhwm_kb"], "server_vmrss_kb": m["server_vmrss_kb"],
        "p50_ms": ms(lat["all"]["p50_us"]), "p90_ms": ms(lat["all"]["p90_us"]),
        "p99_ms": ms(lat["all"]["p99_us"]), "mean_ms": ms(lat["all"]["mean_us"]),
        "full_p50_ms": ms(lat["full"]["p50_us"]), "resumed_p50_ms": ms(lat["resumed"]["p50_us"]),
        "client_cpu_s": m["client_cpu_s"], "obc_seen": m["obc_seen"],
        "obc_missing": m["obc_missing"], "loadavg_1m": m["loadavg_1m"],
    }


def summarize(args, runs, measurements):
    """One summary row per (tls, case): medians over rounds, ratios to `none`."""
    rows = []
    hist = []
    for tls in args.tls:
        med = {}
        for case in args.cases:
            rs = [r for r in runs if r["tls"] == tls and r["case"] == case]
            med[case] = {k: statistics.median(r[k] for r in rs) for k in RUNS_COLUMNS
                         if k not in ("round", "order", "tls", "case", "loadavg_1m")}
            med[case]["rounds"] = len(rs)
        base = med["none"]

        def ratio(case, key):
            return med[case][key] / base[key] if base[key] else float("nan")

        for case in args.cases:
            m = med[case]
            rows.append({
                "tls": tls, "case": case, "rounds": m["rounds"], "rate": args.rate,
                "seconds": round(m["seconds"], 3), "transactions": int(m["transactions"]),
                "tps": round(m["tps"], 1), "resumed_fraction": round(m["resumed_fraction"], 4),
                "errors": int(m["errors"]), "late": int(m["late"]),
                "server_cpu_s": round(m["server_cpu_s"], 3),
                "server_cpu_share": round(m["server_cpu_s"] / m["seconds"], 4),
                "server_cpu_us_per_tx": round(m["server_cpu_us_per_tx"], 1),
                "cpu_ratio": round(ratio(case, "server_cpu_s"), 3),
                "server_vmhwm_kb": int(m["server_vmhwm_kb"]),
                "vmhwm_ratio": round(ratio(case, "server_vmhwm_kb"), 3),
                "server_vmrss_kb": int(m["server_vmrss_kb"]),
                "p50_ms": round(m["p50_ms"], 3), "p50_ratio": round(ratio(case, "p50_ms"), 3),
                "p90_ms": round(m["p90_ms"], 3), "p90_ratio": round(ratio(case, "p90_ms"), 3),
                "p99_ms": round(m["p99_ms"], 3), "p99_ratio": round(ratio(case, "p99_ms"), 3),
                "mean_ms": round(m["mean_ms"], 3), "mean_ratio": round(ratio(case, "mean_ms"), 3),
                "full_p50_ms": round(m["full_p50_ms"], 3),
                "full_p50_ratio": round(ratio(case, "full_p50_ms"), 3),
                "resumed_p50_ms": round(m["resumed_p50_ms"], 3),
                "resumed_p50_ratio": round(ratio(case, "resumed_p50_ms"), 3),
                "client_cpu_s": round(m["client_cpu_s"], 3),
            })
            buckets = {}
            for mm in measurements[(tls, case)]:
                for lo, hi, full, resumed in mm["histogram"]:
                    b = buckets.setdefault((lo, hi), [0, 0])
                    b[0] += full
                    b[1] += resumed
            for (lo, hi), (full, resumed) in sorted(buckets.items()):
                hist.append({"tls": tls, "case": case, "lo_ms": round(lo / 1000, 5),
                             "hi_ms": round(hi / 1000, 5), "full": full, "resumed": resumed})
    return rows, hist


def report(args, rows, pins, runs):
    lines = []
    lines.append("obc_server_cost: %s s per case (+%s s warm-up), %s transactions/s offered, "
                 "1 in %d a full handshake, %d clients, %d round(s), %s" % (
                     args.seconds, args.warmup, args.rate, args.full_every, args.clients,
                     args.rounds, "server on CPU %s, load on CPU %s" % (
                         ",".join(map(str, sorted(pins[0]))), ",".join(map(str, sorted(pins[1]))))
                     if pins[0] else "no CPU pinning"))
    for tls in args.tls:
        lines.append("")
        lines.append("TLS %s%s" % (tls, " (session-ID cache, no tickets)" if tls == "1.2" else
                                   " (tickets)"))
        lines.append("%-15s %7s %8s %9s %6s %9s %6s %8s %6s %8s %6s %8s %8s" % (
            "case", "tps", "resumed", "cpu us/tx", "x", "VmHWM kB", "x", "p50 ms", "x",
            "p99 ms", "x", "full p50", "res p50"))
        for r in rows:
            if r["tls"] != tls:
                continue
            lines.append("%-15s %7.1f %7.1f%% %9.1f %6.3f %9d %6.3f %8.3f %6.3f %8.3f %6.3f "
                         "%8.3f %8.3f" % (
                             CASE_LABELS[r["case"]], r["tps"], 100 * r["resumed_fraction"],
                             r["server_cpu_us_per_tx"], r["cpu_ratio"], r["server_vmhwm_kb"],
                             r["vmhwm_ratio"], r["p50_ms"], r["p50_ratio"], r["p99_ms"],
                             r["p99_ratio"], r["full_p50_ms"], r["resumed_p50_ms"]))
    loads = [r["loadavg_1m"] for r in runs if not math.isnan(r["loadavg_1m"])]
    if loads:
        lines.append("")
        lines.append("machine load average (1 min) after each case: %.2f to %.2f" % (
            min(loads), max(loads)))
    lines.append("")
    lines.append("x: ratio to the no-client-certificate case of the same TLS version. CPU: "
                 "/proc/PID/stat utime+stime over the window; VmHWM: peak RSS of that server "
                 "process; latency: connect to last byte, all transactions.")
    return "\n".join(lines)


# -- SVG --------------------------------------------------------------------------------------


def _esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(args, rows, hist):
    """Left: grouped bars of the ratios to `none` (server CPU, peak RSS, p50, p99) per TLS
    version; right: the latency histogram of every case (share of transactions per bucket,
    log-scale time axis), one panel per TLS version."""
    metrics = [("cpu_ratio", "server CPU"), ("vmhwm_ratio", "peak RSS"), ("p50_ratio", "p50"),
               ("p99_ratio", "p99")]
    panel_w, panel_h, pad = 460, 260, 60
    width = 2 * panel_w + 3 * pad
    height = len(args.tls) * (panel_h + pad + 40) + 80
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="15">Server cost of origin-bound certificates under '
           'load (%g tx/s, %d%% resumed, %g s per case)</text>' % (
               pad, args.rate, round(100 - 100.0 / args.full_every), args.seconds)]
    # Legend.
    lx = pad
    for case in args.cases:
        out.append('<rect x="%d" y="34" width="12" height="12" fill="%s"/>' % (
            lx, CASE_COLORS[case]))
        out.append('<text x="%d" y="44">%s</text>' % (lx + 16, _esc(CASE_LABELS[case])))
        lx += 120
    for ti, tls in enumerate(args.tls):
        top = 70 + ti * (panel_h + pad + 40)
        trows = {r["case"]: r for r in rows if r["tls"] == tls}
        # Bars.
        x0, y0 = pad, top + 20
        vals = [trows[c][k] for c in args.cases for k, _ in metrics
                if not math.isnan(trows[c][k])]
        vmax = max([1.0] + vals) * 1.15
        out.append('<text x="%d" y="%d" font-size="13">TLS %s: ratio to no client certificate'
                   '</text>' % (x0, top + 10, tls))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (
            x0, y0 + panel_h, x0 + panel_w, y0 + panel_h))
        for tick in [0, 0.5, 1, 1.5, 2, 3, 4, 6, 8]:
            if tick > vmax:
                break
            y = y0 + panel_h - tick / vmax * panel_h
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>' % (
                x0, y, x0 + panel_w, y, "#888" if tick == 1 else "#eee"))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (x0 - 4, y + 4,
                                                                              tick))
        group_w = panel_w / len(metrics)
        bar_w = (group_w - 16) / len(args.cases)
        for mi, (key, label) in enumerate(metrics):
            gx = x0 + mi * group_w + 8
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
                gx + (group_w - 16) / 2, y0 + panel_h + 14, label))
            for ci, case in enumerate(args.cases):
                v = trows[case][key]
                if math.isnan(v):
                    continue
                h = v / vmax * panel_h
                bx = gx + ci * bar_w
                out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">'
                           '<title>%s %s: %.3f</title></rect>' % (
                               bx, y0 + panel_h - h, bar_w - 1, h, CASE_COLORS[case],
                               _esc(CASE_LABELS[case]), label, v))
                out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="8">%.2f'
                           '</text>' % (bx + bar_w / 2, y0 + panel_h - h - 2, v))
        # Histogram.
        hx0 = 2 * pad + panel_w
        th = [h for h in hist if h["tls"] == tls]
        out.append('<text x="%d" y="%d" font-size="13">TLS %s: latency histogram (share of '
                   'transactions)</text>' % (hx0, top + 10, tls))
        if not th:
            continue
        lo = min(h["lo_ms"] for h in th)
        hi = max(h["hi_ms"] for h in th)
        llo, lhi = math.log2(lo), math.log2(hi)
        totals = {c: sum(h["full"] + h["resumed"] for h in th if h["case"] == c)
                  for c in args.cases}
        ymax = max((h["full"] + h["resumed"]) / max(1, totals[h["case"]]) for h in th) * 1.1
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (
            hx0, y0 + panel_h, hx0 + panel_w, y0 + panel_h))
        for frac in (0.5, 1.0):
            y = y0 + panel_h - frac * panel_h
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (
                hx0, y, hx0 + panel_w, y))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%.0f%%</text>' % (
                hx0 - 4, y + 4, 100 * frac * ymax))

        def px(v):
            return hx0 + (math.log2(v) - llo) / max(1e-9, lhi - llo) * panel_w

        t = 2 ** math.floor(llo)
        while t <= hi:
            if t >= lo:
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (
                    px(t), y0, px(t), y0 + panel_h))
                out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (
                    px(t), y0 + panel_h + 14, t))
            t *= 2
        out.append('<text x="%d" y="%d" text-anchor="middle">ms (connect to last byte)</text>' %
                   (hx0 + panel_w / 2, y0 + panel_h + 28))
        for case in args.cases:
            pts = []
            for h in sorted((h for h in th if h["case"] == case), key=lambda h: h["lo_ms"]):
                share = (h["full"] + h["resumed"]) / max(1, totals[case])
                y = y0 + panel_h - share / ymax * panel_h
                pts.append("%.1f,%.1f %.1f,%.1f" % (px(h["lo_ms"]), y, px(h["hi_ms"]), y))
            out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (
                CASE_COLORS[case], " ".join(pts)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- main -------------------------------------------------------------------------------------


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def check(args, rows):
    bad = []
    for r in rows:
        what = "TLS %s %s" % (r["tls"], r["case"])
        if r["errors"]:
            bad.append("%s: %d errors" % (what, r["errors"]))
        want = 1 - 1.0 / args.full_every
        if abs(r["resumed_fraction"] - want) > args.resumed_tolerance:
            bad.append("%s: resumed %.3f, designed %.3f" % (what, r["resumed_fraction"], want))
        if r["transactions"] < (1 - args.max_late) * 0.8 * args.rate * args.seconds:
            bad.append("%s: %d transactions, offered %.0f" % (
                what, r["transactions"], args.rate * args.seconds))
        if r["late"] > args.max_late * max(1, r["transactions"]):
            bad.append("%s: %d late starts (the load was not offered on schedule)" % (
                what, r["late"]))
        if not r["server_cpu_s"] > 0 or not r["server_vmhwm_kb"] > 0:
            bad.append("%s: no server CPU (%s) or VmHWM (%s)" % (
                what, r["server_cpu_s"], r["server_vmhwm_kb"]))
    return bad


def main(argv):
    args = parse_args(argv)
    for path, what in ((args.obc_load, "--obc-load"), (args.testserver, "--testserver")):
        if not os.access(path, os.X_OK):
            log("%s %s is not an executable" % (what, path))
            return 2
    pins = cpu_sets(args.no_pin)
    tmp = tempfile.mkdtemp(prefix="obc_server_cost-")
    runs, measurements = [], {}
    try:
        for rnd in range(args.rounds):
            for tls in args.tls:
                order = args.cases[rnd % len(args.cases):] + args.cases[:rnd % len(args.cases)]
                for i, case in enumerate(order):
                    log("round %d, TLS %s, %s (%g s)" % (rnd + 1, tls, case, args.seconds))
                    m = run_case(args, tls, case, tmp, pins)
                    measurements.setdefault((tls, case), []).append(m)
                    runs.append(run_row(rnd + 1, i + 1, tls, case, m))
    except (ExperimentError, subprocess.TimeoutExpired) as e:
        log("error: %s" % e)
        return 1
    finally:
        for name in os.listdir(tmp):
            os.remove(os.path.join(tmp, name))
        os.rmdir(tmp)
    rows, hist = summarize(args, runs, measurements)
    text = report(args, rows, pins, runs)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        write_csv(os.path.join(args.out, "obc_server_cost.csv"), CSV_COLUMNS, rows)
        write_csv(os.path.join(args.out, "obc_server_cost_histogram.csv"), HISTOGRAM_COLUMNS,
                  hist)
        write_csv(os.path.join(args.out, "obc_server_cost_runs.csv"), RUNS_COLUMNS, runs)
        with open(os.path.join(args.out, "obc_server_cost.svg"), "w") as f:
            f.write(svg(args, rows, hist))
        with open(os.path.join(args.out, "obc_server_cost.txt"), "w") as f:
            f.write(text + "\n")
        print("wrote %s/obc_server_cost{.csv,_histogram.csv,_runs.csv,.svg,.txt}" % args.out)
    if args.check:
        bad = check(args, rows)
        if bad:
            print("CHECK FAILED:\n  " + "\n  ".join(bad))
            return 3
        print("CHECK: every case as designed (no errors, ~%d%% resumed, the load offered on "
              "schedule, OBCs seen exactly in the OBC cases)" % round(100 - 100.0 / args.full_every))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
