#!/usr/bin/env python3
"""Checks a short vs_curl run (vs_curl_smoke_test: 20 requests per process, 2 processes per
run, one round, with the runfiles' fetch, fastbuild: this checks the harness, not the numbers):
the CSVs and the SVG written with every cell, the exact CSV header and positive times and RSS
for both clients. Each run is already checked by the experiment itself (exit code, status and
body size per transfer, connections per mode, nginx's log: one line per request at the pinned
TLS version).

    python3 vs_curl_smoke_check.py OUT_DIR
"""
import csv
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

sys.dont_write_bytecode = True

FILES = ["vs_curl.csv", "vs_curl_runs.csv", "vs_curl.svg", "vs_curl.txt"]
WANT_HEADER = ("http,mode,tls,size,requests_per_run,rounds,fetch_us_per_req,curl_us_per_req,"
               "time_ratio,fetch_cpu_us_per_req,curl_cpu_us_per_req,cpu_ratio,"
               "fetch_peak_rss_kb,curl_peak_rss_kb,rss_ratio,fetch_resumed,curl_resumed")
# HTTP/2 has no newconn mode (Connection: close is HTTP/1.1's).
CELLS = [(h, m, t, s) for h in ("1.1", "2") for m in ("keepalive", "newconn", "process")
         if not (h == "2" and m == "newconn") for t in ("1.2", "1.3") for s in ("1k", "100k")]


def check_row(r):
    """The problems with one cell's row."""
    bad = []
    name = "HTTP/%s %s/%s/%s" % (r["http"], r["mode"], r["tls"], r["size"])
    for k in ("fetch_us_per_req", "curl_us_per_req", "time_ratio", "fetch_peak_rss_kb",
              "curl_peak_rss_kb", "rss_ratio"):
        if not float(r[k]) > 0:
            bad.append("%s: %s is %s" % (name, k, r[k]))
    # A peak RSS below 2 MB would be GNU time's own, not the client's.
    for k in ("fetch_peak_rss_kb", "curl_peak_rss_kb"):
        if float(r[k]) < 2048:
            bad.append("%s: %s %s KB is implausibly small" % (name, k, r[k]))
    want_n = "2" if r["mode"] == "process" else "20"
    if r["requests_per_run"] != want_n:
        bad.append("%s: requests_per_run %s" % (name, r["requests_per_run"]))
    return bad


def check(d):
    """The problems with the run in d (empty: it passes)."""
    bad = []
    with open(os.path.join(d, "vs_curl.csv")) as f:
        header = f.readline().strip()
    if header != WANT_HEADER:
        bad.append("CSV header is %r" % header)
    rows = list(csv.DictReader(open(os.path.join(d, "vs_curl.csv"))))
    cells = [(r["http"], r["mode"], r["tls"], r["size"]) for r in rows]
    if cells != CELLS:
        bad.append("cells %s, expected %s" % (cells, CELLS))
    for r in rows:
        bad += check_row(r)
    runs = list(csv.DictReader(open(os.path.join(d, "vs_curl_runs.csv"))))
    if len(runs) != 2 * len(CELLS):
        bad.append("%d runs in the runs CSV, expected %d" % (len(runs), 2 * len(CELLS)))
    root = ET.parse(os.path.join(d, "vs_curl.svg")).getroot()
    if not root.tag.endswith("svg") or len([e for e in root.iter()
                                            if e.tag.endswith("rect")]) < 2 * len(CELLS):
        bad.append("the SVG has fewer than %d bars" % (2 * len(CELLS)))
    return bad


def main():
    return exp_common.smoke_check_main(sys.argv[1], FILES, ["vs_curl.csv"], check)

if __name__ == "__main__":
    sys.exit(main())
