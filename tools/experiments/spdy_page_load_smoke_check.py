#!/usr/bin/env python3
"""Checks a short spdy_page_load run (spdy_page_load_smoke_test: one run per mode at 2 Mbit/s
after the warm-up): the CSVs and the SVG written with every mode and the exact CSV header. Each
page load is checked by the experiment itself (every body complete, ALPN, one SPDY session with
the second host pooled, at most 6 connections per host, a TLS handshake per connection). Here:
SPDY and HTTP/2 each used one connection and one full handshake; HTTP/1.1 used more than one connection per
host, at most six, and received more certificate bytes (one chain per full handshake); without
coalescing, every connection made a full handshake. Timing is not judged (2-core CI): the full
run is.

    python3 spdy_page_load_smoke_check.py OUT_DIR
"""
import csv
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

sys.dont_write_bytecode = True

FILES = ["spdy_page_load.csv", "spdy_page_load_runs.csv", "spdy_page_load.svg",
         "spdy_page_load.txt"]
WANT = ("rate_kbps,mode,runs,median_ms,min_ms,max_ms,tcp_connections,tls_full_handshakes,"
        "tls_resumed_handshakes,certificate_bytes,server_bytes,client_bytes,status")


def check_modes(rows):
    """The problems with the modes' rows {mode: row}, all of them present and ok."""
    bad = []

    def num(m, k):
        return float(rows[m][k])
    for m in rows:
        if not 0 < num(m, "min_ms") <= num(m, "median_ms") <= num(m, "max_ms"):
            bad.append("%s: page load times %s" % (m, rows[m]))
    for m in ("spdy", "h2"):
        if (num(m, "tcp_connections"), num(m, "tls_full_handshakes"),
                num(m, "tls_resumed_handshakes")) != (1, 1, 0):
            bad.append("%s: %s" % (m, rows[m]))
    for m in ("http1", "http1_no_coalesce"):
        if not 2 < num(m, "tcp_connections") <= 12:
            bad.append("%s: %g connections for 2 hosts at 6 per host" % (
                m, num(m, "tcp_connections")))
        if not num(m, "certificate_bytes") > num("spdy", "certificate_bytes") > 1000:
            bad.append("%s: certificate bytes %s, spdy's %s" % (
                m, rows[m]["certificate_bytes"], rows["spdy"]["certificate_bytes"]))
    if num("http1_no_coalesce", "tls_full_handshakes") != num("http1_no_coalesce",
                                                             "tcp_connections"):
        bad.append("http1_no_coalesce: not one full handshake per connection: %s" %
                   rows["http1_no_coalesce"])
    if not num("http1", "tls_resumed_handshakes") > 0:
        bad.append("http1: no handshake resumed (coalescing): %s" % rows["http1"])
    return bad


def check(d):
    """The problems with the run in d (empty: it passes)."""
    bad = []
    with open(os.path.join(d, "spdy_page_load.csv")) as f:
        header = f.readline().strip()
    if header != WANT:
        bad.append("CSV header is %r" % header)
    rows = {r["mode"]: r for r in csv.DictReader(open(os.path.join(d, "spdy_page_load.csv")))}
    if list(rows) != ["http1", "http1_no_coalesce", "spdy", "h2"]:
        bad.append("modes %s" % list(rows))
    for name, r in rows.items():
        if r["status"] != "ok" or r["runs"] != "1" or r["rate_kbps"] != "2000":
            bad.append("%s: %s" % (name, r))
    if not bad:
        bad += check_modes(rows)
    runs = list(csv.DictReader(open(os.path.join(d, "spdy_page_load_runs.csv"))))
    if len(runs) != 4:
        bad.append("%d page loads in the runs CSV, expected 4" % len(runs))
    root = ET.parse(os.path.join(d, "spdy_page_load.svg")).getroot()
    if not root.tag.endswith("svg") or len([e for e in root.iter()
                                            if e.tag.endswith("rect")]) < 4:
        bad.append("the SVG has no bars")
    return bad


def main():
    return exp_common.smoke_check_main(sys.argv[1], FILES, ["spdy_page_load.txt"], check)

if __name__ == "__main__":
    sys.exit(main())
