#!/usr/bin/env python3
"""Checks a tiny prefetch_server_cost run (prefetch_server_cost_smoke_test: 3 cover clients at
20 ops/s, 2 requests per type and condition): the CSVs written with every request type under
every condition, the exact summary header, server CPU per operation for each cover kind and
cover operations actually done. Each fetch is checked by the experiment itself (Snap Start
accepted from a prevalidated or unprevalidated bundle, TLS 1.2, HEAD). The finding is not judged
here (CPU costs on a shared machine): the full run reports it.

    python3 prefetch_server_cost_smoke_check.py OUT_DIR
"""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

sys.dont_write_bytecode = True

FILES = ["prefetch_server_cost.csv", "prefetch_server_cost_cover.csv",
         "prefetch_server_cost_runs.csv", "prefetch_server_cost.txt"]
WANT_HEADER = ("request_type,cover,runs,median_ms,min_ms,max_ms,server_us_per_request,"
               "capacity_rps,server_us_one_at_a_time")


def check_requests(d):
    """The problems with prefetch_server_cost.csv."""
    bad = []
    with open(os.path.join(d, "prefetch_server_cost.csv")) as f:
        header = f.readline().strip()
    if header != WANT_HEADER:
        bad.append("CSV header is %r" % header)
    rows = {(r["request_type"], r["cover"]): r
            for r in csv.DictReader(open(os.path.join(d, "prefetch_server_cost.csv")))}
    for t in ("snap_prevalidated", "snap", "normal_tls", "http_head"):
        for c in ("none", "well-known", "truncated", "full"):
            r = rows.get((t, c))
            if r is None:
                bad.append("no row for %s under %s" % (t, c))
                continue
            if r["runs"] != "2":
                bad.append("%s/%s: runs %s" % (t, c, r["runs"]))
            if not 0 < float(r["min_ms"]) <= float(r["median_ms"]) <= float(r["max_ms"]):
                bad.append("%s/%s: min/median/max %s" % (t, c, r))
            if float(r["server_us_per_request"]) <= 0 or float(r["capacity_rps"]) <= 0:
                bad.append("%s/%s: server cost %s" % (t, c, r))
    return bad


def check_cover(d):
    """The problems with prefetch_server_cost_cover.csv."""
    bad = []
    cover = {r["cover"]: r
             for r in csv.DictReader(open(os.path.join(d, "prefetch_server_cost_cover.csv")))}
    for c in ("well-known", "truncated", "full"):
        r = cover.get(c)
        if r is None:
            bad.append("no cover row for %s" % c)
        elif float(r["server_us_per_op"]) <= 0 or float(r["achieved_ops_per_s"]) <= 0:
            bad.append("cover %s: %s" % (c, r))
    return bad


def main():
    return exp_common.smoke_check_main(sys.argv[1], FILES, ["prefetch_server_cost.csv", "prefetch_server_cost_cover.csv"], lambda out: check_requests(out) + check_cover(out))

if __name__ == "__main__":
    sys.exit(main())
