#!/usr/bin/env python3
"""Checks a short spdy_loss run (spdy_loss_smoke_test): every cell of the grid written with
the four protocols (HTTP/1.1, SPDY/3, h2, h3 over QUIC), page loads that take at least the
round trips a TLS page load needs, and loss that costs time."""
import csv
import os
import sys

d = sys.argv[1]
cells = list(csv.DictReader(open(os.path.join(d, "spdy_loss.csv"))))
runs = list(csv.DictReader(open(os.path.join(d, "spdy_loss_runs.csv"))))
bad = []
if len(cells) != 4:
    bad.append("%d cells, expected 4 (2 losses x 2 pages)" % len(cells))
if len(runs) != 16:
    bad.append("%d loads, expected 16 (4 cells x 4 protocols)" % len(runs))
for c in cells:
    rtt = float(c["rtt_ms"])
    for p in ("http1", "spdy", "h2", "h3"):
        ms = float(c[p + "_median_ms"])
        # TCP, TLS 1.2 (2 RTT) and the request: at least 4 RTT; QUIC's handshake (1 RTT) and
        # the request: at least 2.
        want = 2 if p == "h3" else 4
        if ms < want * rtt * 0.95:
            bad.append("%s %s at %s%% loss: %.1f ms < %d RTT" % (p, c["page"], c["loss"], ms,
                                                                want))
    for k in ("spdy_over_http1", "h2_over_http1", "h3_over_http1"):
        if not float(c[k]) > 0:
            bad.append("%s %s: %s is %s" % (c["page"], c["loss"], k, c[k]))
    print("%s loss %s: HTTP/1.1 %s ms, SPDY %s ms, h2 %s ms, h3 %s ms" % (
        c["page"], c["loss"], c["http1_median_ms"], c["spdy_median_ms"], c["h2_median_ms"],
        c["h3_median_ms"]))
for f in ("spdy_loss.txt", "spdy_loss.svg"):
    if not os.path.getsize(os.path.join(d, f)):
        bad.append(f + " empty")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
