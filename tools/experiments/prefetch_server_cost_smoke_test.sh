#!/bin/sh
# Smoke test for //tools/experiments:prefetch_server_cost: a tiny run (3 cover clients at 20 ops/s,
# 2 requests per type and condition) must write the CSVs with every request type under every
# condition, the exact summary header, server CPU per operation for each cover kind and cover
# operations actually done. Each fetch is checked by the experiment itself (Snap Start accepted
# from a prevalidated or unprevalidated bundle, TLS 1.2, HEAD). The finding is not judged here
# (CPU costs on a shared machine): the full run reports it.
set -e
runfiles=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/prefetch_server_cost" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "FAIL: cannot find tools/experiments/prefetch_server_cost in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/prefetch_server_cost_out
rm -rf "$out"

"$runfiles/netstack/tools/experiments/prefetch_server_cost" --clients 3 --cover-rate 20 \
  --requests 2 --calibration-rounds 1 --calibration-ops 30 --calibration-parallel 4 \
  --calibration-single 1 --settle-s 0.3 --window-s 0.5 \
  --probe-batch 5 --out "$out"

for f in prefetch_server_cost.csv prefetch_server_cost_cover.csv prefetch_server_cost_runs.csv \
         prefetch_server_cost.txt; do
  [ -s "$out/$f" ] || { echo "FAIL: $out/$f was not written" >&2; exit 1; }
done
echo "--- $out/prefetch_server_cost.csv"
cat "$out/prefetch_server_cost.csv"
echo "--- $out/prefetch_server_cost_cover.csv"
cat "$out/prefetch_server_cost_cover.csv"
python3 - "$out" <<'PY'
import csv, os, sys
d = sys.argv[1]
bad = []
with open(os.path.join(d, "prefetch_server_cost.csv")) as f:
    header = f.readline().strip()
want_header = ("request_type,cover,runs,median_ms,min_ms,max_ms,server_us_per_request,"
               "capacity_rps,server_us_one_at_a_time")
if header != want_header:
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
cover = {r["cover"]: r for r in csv.DictReader(open(os.path.join(d,
                                                               "prefetch_server_cost_cover.csv")))}
for c in ("well-known", "truncated", "full"):
    r = cover.get(c)
    if r is None:
        bad.append("no cover row for %s" % c)
    elif float(r["server_us_per_op"]) <= 0 or float(r["achieved_ops_per_s"]) <= 0:
        bad.append("cover %s: %s" % (c, r))
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
PY
