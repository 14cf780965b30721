#!/usr/bin/env python3
"""Checks a short obc_server_cost run (obc_server_cost_smoke_test: 2 s per case, 0.5 s warm-up,
150 transactions/s over TLS 1.2 and 1.3, every case: none, ecdsa, rsa1024, rsa2048, with the
experiment's own --check and its tolerances for a busy machine). Here: every file written, the
CSVs' exact header and a row per TLS version and case, `none` is 1.000 against itself, the
histogram accounts for every transaction, and the SVG is written. The ratios themselves are not
judged (CPU and latency on a shared 2-core machine); the full run is in README.md.

    python3 obc_server_cost_smoke_check.py OUT_DIR
"""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

sys.dont_write_bytecode = True

FILES = ["obc_server_cost.csv", "obc_server_cost_histogram.csv", "obc_server_cost_runs.csv",
         "obc_server_cost.svg", "obc_server_cost.txt"]
WANT = ["tls", "case", "rounds", "rate", "seconds", "transactions", "tps", "resumed_fraction",
        "errors", "late", "server_cpu_s", "server_cpu_share", "server_cpu_us_per_tx",
        "cpu_ratio", "server_vmhwm_kb", "vmhwm_ratio", "server_vmrss_kb", "p50_ms", "p50_ratio",
        "p90_ms", "p90_ratio", "p99_ms", "p99_ratio", "mean_ms", "mean_ratio", "full_p50_ms",
        "full_p50_ratio", "resumed_p50_ms", "resumed_p50_ratio", "client_cpu_s"]


def check_row(tls, case, r, hist):
    """The problems with the summary row of (tls, case)."""
    bad = []
    n = sum(int(h["full"]) + int(h["resumed"]) for h in hist
            if h["tls"] == tls and h["case"] == case)
    if n != int(r["transactions"]):
        bad.append("TLS %s %s: histogram holds %d transactions, the row %s" % (
            tls, case, n, r["transactions"]))
    for k in ("cpu_ratio", "vmhwm_ratio", "p50_ratio", "p99_ratio"):
        v = float(r[k])
        if case == "none" and v != 1.0:
            bad.append("TLS %s none: %s %s" % (tls, k, r[k]))
        # A ratio is positive and finite; its size is not judged (a p99 on a machine busy
        # with other tests can be hundreds of times the `none` case's).
        if not 0 < v < float("inf"):
            bad.append("TLS %s %s: %s %s" % (tls, case, k, r[k]))
    return bad


def check(d):
    """The problems with the run in d (empty: it passes)."""
    bad = []
    with open(os.path.join(d, "obc_server_cost.csv")) as f:
        header = f.readline().strip().split(",")
    if header != WANT:
        bad.append("CSV header is %s" % header)
    rows = {(r["tls"], r["case"]): r
            for r in csv.DictReader(open(os.path.join(d, "obc_server_cost.csv")))}
    hist = list(csv.DictReader(open(os.path.join(d, "obc_server_cost_histogram.csv"))))
    for tls in ("1.2", "1.3"):
        for case in ("none", "ecdsa", "rsa1024", "rsa2048"):
            r = rows.get((tls, case))
            if r is None:
                bad.append("no row for TLS %s %s" % (tls, case))
                continue
            bad += check_row(tls, case, r, hist)
    svg = open(os.path.join(d, "obc_server_cost.svg")).read()
    if not svg.startswith("<svg") or "RSA-2048" not in svg or "polyline" not in svg:
        bad.append("the SVG lacks the legend or the histograms")
    return bad


def main():
    return exp_common.smoke_check_main(sys.argv[1], FILES, [], check)

if __name__ == "__main__":
    sys.exit(main())
