#!/usr/bin/env python3
"""Checks a short first_visit_1rtt run (first_visit_1rtt_smoke_test, one RTT): every row
written, and the round trips each row must cost on the packet-level link — the headline, Snap
Start from a prefetched bundle with TCP Fast Open, in one round trip: at most 0.55x plain HTTP
and 0.37x Chromium's TLS 1.3 first visit."""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402


def check(out):
    rows = {r["config"]: r for r in csv.DictReader(
        open(os.path.join(out, "first_visit_1rtt.csv")))}
    # (expected RTTs, allowed below, allowed above): the link's round trips, plus room for
    # the machine (OCSP's responder is farther away than the origin: TLS 1.3 pays it).
    want = {"http": (2.0, 0.1, 0.3), "http_tfo_first": (2.0, 0.1, 0.3),
            "http_tfo_cookie": (1.0, 0.1, 0.3), "snap": (2.0, 0.1, 0.3),
            "snap_tfo": (1.0, 0.05, 0.1), "tls13_0rtt_tfo": (1.0, 0.1, 0.5)}
    bad = exp_common.check_rtts(rows, want)
    if "tls13" in rows and float(rows["tls13"]["median_rtts"]) < 3:
        bad.append("TLS 1.3 first visit under 3 RTT")
    snap_tfo = rows.get("snap_tfo")
    if snap_tfo:
        if float(snap_tfo["x_http"]) > 0.55:
            bad.append("Snap Start + TFO is %s x plain HTTP (> 0.55)" % snap_tfo["x_http"])
        if snap_tfo["x_chromium_tls13"] and float(snap_tfo["x_chromium_tls13"]) > 0.37:
            bad.append("Snap Start + TFO is %s x Chromium TLS 1.3 (> 0.37)" %
                       snap_tfo["x_chromium_tls13"])
    return bad


if __name__ == "__main__":
    sys.exit(exp_common.smoke_check_main(
        sys.argv[1], ["first_visit_1rtt.csv", "first_visit_1rtt_runs.csv",
                      "first_visit_1rtt.svg", "first_visit_1rtt.txt"],
        ["first_visit_1rtt.txt"], check))
