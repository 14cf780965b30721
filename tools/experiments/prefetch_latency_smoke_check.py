#!/usr/bin/env python3
"""Checks a short prefetch_latency run (prefetch_latency_smoke_test: one run after the warm-up
round): the CSVs and the SVG written with every configuration, the exact summary header, both
ratios and a readyMs per bundle source. Each measurement is already checked by the experiment
itself (Snap Start accepted from a bundle of the row's source, prevalidated or not, OCSP on the
critical path of the TLS rows). Timing is not judged: the full run does that.

    python3 prefetch_latency_smoke_check.py OUT_DIR
"""
import csv
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402

sys.dont_write_bytecode = True

FILES = ["prefetch_latency.csv", "prefetch_latency_ratios.csv", "prefetch_latency_sources.csv",
         "prefetch_latency_runs.csv", "prefetch_latency.svg", "prefetch_latency.txt"]
WANT = ["http", "tls12_full_ocsp", "tls12_false_start_ocsp", "tls13_ocsp",
        "snap_bundle_no_prevalidation", "snap_prefetched_dns", "snap_prefetched_well_known",
        "snap_prefetched_cdn", "snap_prefetched_truncated"]


def check_summary(d):
    """The problems with prefetch_latency.csv."""
    bad = []
    with open(os.path.join(d, "prefetch_latency.csv")) as f:
        header = f.readline().strip()
    if header != "config,runs,median_ms,min_ms,max_ms":
        bad.append("CSV header is %r" % header)
    rows = {r["config"]: r
            for r in csv.DictReader(open(os.path.join(d, "prefetch_latency.csv")))}
    if list(rows) != WANT:
        bad.append("rows %s, expected %s" % (list(rows), WANT))
    for name in WANT:
        r = rows.get(name)
        if r is None:
            continue
        if r["runs"] != "1":
            bad.append("%s: runs %s" % (name, r["runs"]))
        lo, med, hi = float(r["min_ms"]), float(r["median_ms"]), float(r["max_ms"])
        if not 0 < lo <= med <= hi:
            bad.append("%s: min/median/max %s/%s/%s" % (name, lo, med, hi))
    return bad


def check(d):
    """The problems with the run in d (empty: it passes)."""
    bad = check_summary(d)
    ratios = {r["ratio"]: r
              for r in csv.DictReader(open(os.path.join(d, "prefetch_latency_ratios.csv")))}
    for name in ("tls12_full_ocsp_over_best_prefetched", "best_prefetched_over_http"):
        if name not in ratios or float(ratios[name]["value"]) <= 0:
            bad.append("ratio %s missing" % name)
    sources = [r["source"]
               for r in csv.DictReader(open(os.path.join(d, "prefetch_latency_sources.csv")))]
    if sources != ["dns", "well-known", "cdn", "truncated"]:
        bad.append("sources %s" % sources)
    runs = list(csv.DictReader(open(os.path.join(d, "prefetch_latency_runs.csv"))))
    if len(runs) != len(WANT):
        bad.append("%d measurements in the runs CSV, expected %d" % (len(runs), len(WANT)))
    root = ET.parse(os.path.join(d, "prefetch_latency.svg")).getroot()
    if not root.tag.endswith("svg") or len([e for e in root.iter()
                                            if e.tag.endswith("rect")]) < 10:
        bad.append("the SVG has no bars")
    return bad


def main():
    return exp_common.smoke_check_main(sys.argv[1], FILES, ["prefetch_latency.csv"], check)

if __name__ == "__main__":
    sys.exit(main())
