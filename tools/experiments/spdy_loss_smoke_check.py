#!/usr/bin/env python3
"""Checks a short spdy_loss run (spdy_loss_smoke_test): every cell of the grid written with
the five protocols (HTTP/1.1, SPDY/3, h2, h3 over QUIC from Caddy and from ngtcp2's
server), page loads that take at least the
round trips a TLS page load needs, and loss that costs time. Then --merge-from: the run split
into two parts by loss (one with a cell short of its loads) and merged back gives the same
cells and loads, the short cell left out."""
import csv
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

d = sys.argv[1]
cells = list(csv.DictReader(open(os.path.join(d, "spdy_loss.csv"))))
runs = list(csv.DictReader(open(os.path.join(d, "spdy_loss_runs.csv"))))
bad = []
if len(cells) != 4:
    bad.append("%d cells, expected 4 (2 losses x 2 pages)" % len(cells))
if len(runs) != 20:
    bad.append("%d loads, expected 20 (4 cells x 5 protocols)" % len(runs))
for c in cells:
    rtt = float(c["rtt_ms"])
    for p in ("http1", "spdy", "h2", "h3", "h3ng"):
        ms = float(c[p + "_median_ms"])
        # TCP, TLS 1.2 (2 RTT) and the request: at least 4 RTT; QUIC's handshake (1 RTT) and
        # the request: at least 2.
        want = 2 if p in ("h3", "h3ng") else 4
        if ms < want * rtt * 0.95:
            bad.append("%s %s at %s%% loss: %.1f ms < %d RTT" % (p, c["page"], c["loss"], ms,
                                                                want))
    for k in ("spdy_over_http1", "h2_over_http1", "h3_over_http1", "h3ng_over_http1"):
        if not float(c[k]) > 0:
            bad.append("%s %s: %s is %s" % (c["page"], c["loss"], k, c[k]))
    print("%s loss %s: HTTP/1.1 %s ms, SPDY %s ms, h2 %s ms, h3 %s ms, h3-ngtcp2 %s ms" % (
        c["page"], c["loss"], c["http1_median_ms"], c["spdy_median_ms"], c["h2_median_ms"],
        c["h3_median_ms"], c["h3ng_median_ms"]))
# Every lossy load has its loss seed (netem's default would give every run one pattern), the
# same for the protocols of a run, another for each cell.
lossy = [r for r in runs if float(r["loss"]) > 0]
if any(not r.get("seed") for r in lossy):
    bad.append("a lossy load without a seed")
seeds = {}
for r in lossy:
    seeds.setdefault((r["page"], r["loss"], r["run"]), set()).add(r["seed"])
if any(len(v) != 1 for v in seeds.values()) or \
        len({min(v) for v in seeds.values()}) != len(seeds):
    bad.append("seeds not one per run and cell: %s" % seeds)
for f in ("spdy_loss.txt", "spdy_loss.svg"):
    if not os.path.getsize(os.path.join(d, f)):
        bad.append(f + " empty")


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def key(c):
    return (float(c["rtt_ms"]), float(c["rate_mbps"]), float(c["loss"]), c["page"])


def merge_check():
    import spdy_loss
    tmp = tempfile.mkdtemp()
    try:
        losses = sorted({c["loss"] for c in cells}, key=float)
        protocols = ",".join(p for p in ("http1", "spdy", "h2", "h3", "h3ng")
                             if cells[0].get(p + "_median_ms"))
        short_key = None
        parts = []
        for i, loss in enumerate(losses):
            part = os.path.join(tmp, "part%d" % i)
            os.makedirs(part)
            mine = [r for r in runs if r["loss"] == loss]
            if i == 1:
                # The second part's last cell lost a load (a sitting stopped mid-cell).
                short_key = key(mine[-1])
                mine = mine[:-1]
            write(os.path.join(part, "spdy_loss.csv"), [c for c in cells if c["loss"] == loss])
            write(os.path.join(part, "spdy_loss_runs.csv"), mine)
            parts.append(part)
        merged = os.path.join(tmp, "merged")
        pages = []
        for c in cells:
            if c["page"] not in pages:
                pages.append(c["page"])
        argv = ["--merge-from", ",".join(reversed(parts)), "--out", merged, "--runs", "1",
                "--pages", ",".join(pages), "--protocols", protocols]
        for b in ("fetch", "testserver", "netem", "world", "certbundle"):
            argv += ["--" + b, "/nonexistent"]  # measuring nothing, it runs none of them
        rc = spdy_loss.main(argv)
        if rc != 0:
            return ["--merge-from exited %s" % rc]
        got = list(csv.DictReader(open(os.path.join(merged, "spdy_loss.csv"))))
        got_runs = list(csv.DictReader(open(os.path.join(merged, "spdy_loss_runs.csv"))))
        want = [key(c) for c in cells if key(c) != short_key]
        in_grid_order = sorted(want, key=lambda k: (k[0], k[1], k[2], pages.index(k[3])))
        errs = []
        if [key(c) for c in got] != in_grid_order:
            errs.append("--merge-from: cells %s, expected %s in this order" % (
                [key(c) for c in got], in_grid_order))
        by_key = {key(c): c for c in cells}
        for c in got:
            if c["http1_median_ms"] != by_key[key(c)]["http1_median_ms"]:
                errs.append("--merge-from changed the cell %s" % (key(c),))
        n = len([r for r in runs if key(r) != short_key])
        if len(got_runs) != n:
            errs.append("--merge-from: %d loads, expected %d" % (len(got_runs), n))
        return errs
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if not bad:
    bad += merge_check()
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
