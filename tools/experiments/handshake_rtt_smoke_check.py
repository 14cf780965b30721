#!/usr/bin/env python3
"""Checks a short handshake_rtt run (handshake_rtt_smoke_test: 2 runs at 40 ms RTT): the CSV is
written with its exact header and a row of 2 runs per configuration, tls12_full at ~4 RTT and
tls12_false_start at ~3 RTT (medians, +-0.6 RTT).

    python3 handshake_rtt_smoke_check.py OUT_DIR
"""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

sys.dont_write_bytecode = True

WANT_COLS = ["config", "runs", "median_ms", "min_ms", "max_ms", "median_rtts",
             "ratio_to_tls12_full", "median_connect_ms"]


def check(path):
    """Returns the problems with the CSV at path (empty: it passes)."""
    rows = {r["config"]: r for r in csv.DictReader(open(path))}
    with open(path) as f:
        header = f.readline().strip().split(",")
    bad = []
    if header != WANT_COLS:
        bad.append("CSV header is %s, expected %s" % (header, WANT_COLS))
    for name in ("tls12_full", "tls12_false_start", "tls13_full", "tls12_resumed",
                 "tls13_resumed"):
        if name not in rows:
            bad.append("no row for %s" % name)
        elif rows[name]["runs"] != "2":
            bad.append("%s: runs is %s, expected 2" % (name, rows[name]["runs"]))
    for name, want in (("tls12_full", 4.0), ("tls12_false_start", 3.0)):
        if name in rows:
            got = float(rows[name]["median_rtts"])
            status = "ok" if abs(got - want) <= 0.6 else "FAIL"
            print("%s: %s median %.2f RTT (expected %.1f +- 0.6)" % (status, name, got, want))
            if status != "ok":
                bad.append("%s median is %.2f RTT, expected %.1f +- 0.6" % (name, got, want))
    return bad


def main():
    return exp_common.smoke_check_main(sys.argv[1], ["handshake_rtt.csv"], ["handshake_rtt.csv"], lambda out: check(os.path.join(out, "handshake_rtt.csv")))

if __name__ == "__main__":
    sys.exit(main())
