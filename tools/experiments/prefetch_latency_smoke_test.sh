#!/bin/sh
# Smoke test for //tools/experiments:prefetch_latency: one run (after the warm-up round) must
# write the CSVs and the SVG with every configuration, the exact summary header, both ratios and
# a readyMs per bundle source. Each measurement is already checked by the experiment itself
# (Snap Start accepted from a bundle of the row's source, prevalidated or not, OCSP on the
# critical path of the TLS rows). Timing is not judged: the full run does that.
set -e
runfiles=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/prefetch_latency" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "FAIL: cannot find tools/experiments/prefetch_latency in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/prefetch_latency_out
rm -rf "$out"

"$runfiles/netstack/tools/experiments/prefetch_latency" --runs 1 --out "$out"

for f in prefetch_latency.csv prefetch_latency_ratios.csv prefetch_latency_sources.csv \
         prefetch_latency_runs.csv prefetch_latency.svg prefetch_latency.txt; do
  [ -s "$out/$f" ] || { echo "FAIL: $out/$f was not written" >&2; exit 1; }
done
echo "--- $out/prefetch_latency.csv"
cat "$out/prefetch_latency.csv"
python3 - "$out" <<'PY'
import csv, os, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
bad = []
with open(os.path.join(d, "prefetch_latency.csv")) as f:
    header = f.readline().strip()
if header != "config,runs,median_ms,min_ms,max_ms":
    bad.append("CSV header is %r" % header)
rows = {r["config"]: r for r in csv.DictReader(open(os.path.join(d, "prefetch_latency.csv")))}
want = ["http", "tls12_full_ocsp", "tls12_false_start_ocsp", "tls13_ocsp",
        "snap_bundle_no_prevalidation", "snap_prefetched_dns", "snap_prefetched_well_known",
        "snap_prefetched_cdn", "snap_prefetched_truncated"]
if list(rows) != want:
    bad.append("rows %s, expected %s" % (list(rows), want))
for name in want:
    r = rows.get(name)
    if r is None:
        continue
    if r["runs"] != "1":
        bad.append("%s: runs %s" % (name, r["runs"]))
    lo, med, hi = float(r["min_ms"]), float(r["median_ms"]), float(r["max_ms"])
    if not 0 < lo <= med <= hi:
        bad.append("%s: min/median/max %s/%s/%s" % (name, lo, med, hi))
ratios = {r["ratio"]: r for r in csv.DictReader(open(os.path.join(d,
                                                                  "prefetch_latency_ratios.csv")))}
for name in ("tls12_full_ocsp_over_best_prefetched", "best_prefetched_over_http"):
    if name not in ratios or float(ratios[name]["value"]) <= 0:
        bad.append("ratio %s missing" % name)
sources = [r["source"] for r in csv.DictReader(open(os.path.join(d,
                                                                 "prefetch_latency_sources.csv")))]
if sources != ["dns", "well-known", "cdn", "truncated"]:
    bad.append("sources %s" % sources)
runs = list(csv.DictReader(open(os.path.join(d, "prefetch_latency_runs.csv"))))
if len(runs) != len(want):
    bad.append("%d measurements in the runs CSV, expected %d" % (len(runs), len(want)))
root = ET.parse(os.path.join(d, "prefetch_latency.svg")).getroot()
if not root.tag.endswith("svg") or len([e for e in root.iter() if e.tag.endswith("rect")]) < 10:
    bad.append("the SVG has no bars")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
PY
