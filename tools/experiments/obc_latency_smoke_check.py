#!/usr/bin/env python3
"""Checks a short obc_latency run (obc_latency_smoke_test: 2 runs over TLS 1.3): the CSVs are
written with every row, `none` as its own reference, cached certificates on every second visit,
pooled keys on warm first visits, and the RSA-2048 key generation visible in the trace of the
cold first visit. It does not judge the 1 ms claim (timing on a shared machine); the full run
does (tools/experiments/README.md).

    python3 obc_latency_smoke_check.py OUT_DIR
"""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

sys.dont_write_bytecode = True

WANT_COLS = ["tls", "config", "algorithm", "pool", "visit", "runs", "median_ms", "min_ms",
             "max_ms", "ratio_to_none", "added_ms", "paired_added_ms", "median_tls_ms",
             "median_obc_ms", "median_generation_ms", "obc_sources"]
CONFIGS = ["none"] + ["%s_%s" % (a, p) for a in ("ecdsa", "rsa1024", "rsa2048")
                      for p in ("warm", "cold")]


def check_rows(rows):
    """The problems with the summary rows {(config, visit): row}."""
    bad = []
    for c in CONFIGS:
        for v in ("first", "second"):
            r = rows.get((c, v))
            if r is None:
                bad.append("no row for %s %s" % (c, v))
                continue
            if r["runs"] != "2" or r["tls"] != "1.3":
                bad.append("%s %s: runs %s tls %s" % (c, v, r["runs"], r["tls"]))
            if float(r["median_ms"]) <= 0:
                bad.append("%s %s: median %s" % (c, v, r["median_ms"]))
            if v == "second" and c != "none" and r["obc_sources"] != "cached_cert:2":
                bad.append("%s second visit: obc sources %s" % (c, r["obc_sources"]))
            if c.endswith("_warm") and v == "first" and r["obc_sources"] != "pooled_key:2":
                bad.append("%s first visit: obc sources %s" % (c, r["obc_sources"]))
    for v in ("first", "second"):
        r = rows.get(("none", v))
        if r and (r["ratio_to_none"] != "1.000" or r["obc_sources"] != "none:2"):
            bad.append("none %s: ratio %s sources %s" % (v, r["ratio_to_none"],
                                                         r["obc_sources"]))
    cold = rows.get(("rsa2048_cold", "first"))
    if cold and float(cold["median_generation_ms"]) < 5:
        bad.append("rsa2048 cold first visit: generation %s ms (an RSA-2048 key takes tens of "
                   "ms)" % cold["median_generation_ms"])
    return bad


def check(out):
    """The problems with the run in out (empty: it passes)."""
    path = os.path.join(out, "obc_latency.csv")
    with open(path) as f:
        header = f.readline().strip().split(",")
    rows = {(r["config"], r["visit"]): r for r in csv.DictReader(open(path))}
    runs = list(csv.DictReader(open(os.path.join(out, "obc_latency_runs.csv"))))
    bad = []
    if header != WANT_COLS:
        bad.append("CSV header is %s" % header)
    bad += check_rows(rows)
    if len(runs) != len(CONFIGS) * 2 * 2:
        bad.append("%d measurements in the runs CSV, expected %d" % (len(runs),
                                                                      len(CONFIGS) * 4))
    return bad


def main():
    return exp_common.smoke_check_main(sys.argv[1], ["obc_latency.csv", "obc_latency_runs.csv", "obc_latency.txt"], [], check)

if __name__ == "__main__":
    sys.exit(main())
