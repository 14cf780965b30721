#!/usr/bin/env python3
"""Checks a short vs_chromium run (vs_chromium_smoke_test): every row written, and on the
packet world both clients pay the same round trips for the same protocol: plain HTTP about 2
RTT, TLS 1.3 about 3 (Chromium may add its own start-up), Snap Start from a prefetched bundle
about 2."""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

# (expected RTT, allowed below, allowed above). Chromium's own CPU (start-up, its handshake and
# certificate verification on a 2-core machine shared with other tests) adds up to ~80 ms to a
# TLS first visit, so a single run gets room above; nothing can come in under the round trips
# the link imposes, bar Chromium starting its connect a little before startTime.
WANT = {"chromium_http": (2.0, 0.2, 0.8), "chromium_tls13": (3.0, 0.2, 1.0),
        "fetch_http": (2.0, 0.1, 0.3), "fetch_tls13": (3.0, 0.1, 0.3),
        "fetch_snap_start": (2.0, 0.1, 0.3)}


def check(out):
    rows = {r["config"]: r for r in csv.DictReader(
        open(os.path.join(out, "vs_chromium.csv")))}
    return exp_common.check_rtts(rows, WANT)


if __name__ == "__main__":
    sys.exit(exp_common.smoke_check_main(
        sys.argv[1], ["vs_chromium.csv", "vs_chromium_runs.csv", "vs_chromium.svg",
                      "vs_chromium.txt"], ["vs_chromium.txt"], check))
