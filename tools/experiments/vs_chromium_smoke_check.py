#!/usr/bin/env python3
"""Checks a short vs_chromium run (vs_chromium_smoke_test): every row written, and on the
packet world both clients pay the same round trips for the same protocol: plain HTTP about 2
RTT, TLS 1.3 about 3 (Chromium may add its own start-up), Snap Start from a prefetched bundle
about 2."""
import csv
import os
import sys

rows = {r["config"]: r for r in csv.DictReader(open(os.path.join(sys.argv[1], "vs_chromium.csv")))}
# (expected RTT, allowed below, allowed above). Chromium's own CPU (start-up, its handshake and
# certificate verification on a 2-core machine shared with other tests) adds up to ~80 ms to a
# TLS first visit, so a single run gets room above; nothing can come in under the round trips
# the link imposes, bar Chromium starting its connect a little before startTime.
want = {"chromium_http": (2.0, 0.2, 0.8), "chromium_tls13": (3.0, 0.2, 1.0),
        "fetch_http": (2.0, 0.1, 0.3), "fetch_tls13": (3.0, 0.1, 0.3),
        "fetch_snap_start": (2.0, 0.1, 0.3)}
bad = []
for name, (rtts, below, above) in want.items():
    if name not in rows:
        bad.append("no row for %s" % name)
        continue
    got = float(rows[name]["median_rtts"])
    print("%s: %.2f RTT (expected %.1f, -%.1f/+%.1f)" % (name, got, rtts, below, above))
    if not rtts - below <= got <= rtts + above:
        bad.append("%s is %.2f RTT" % (name, got))
for f in ("vs_chromium_runs.csv", "vs_chromium.svg", "vs_chromium.txt"):
    if not os.path.getsize(os.path.join(sys.argv[1], f)):
        bad.append(f + " is empty")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
