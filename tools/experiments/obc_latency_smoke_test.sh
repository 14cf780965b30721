#!/bin/sh
# Smoke test for //tools/experiments:obc_latency: a 2-run experiment over TLS 1.3 must write the
# CSVs with every row, `none` as its own reference, cached certificates on every second visit,
# pooled keys on warm first visits, and the RSA-2048 key generation visible in the trace of the
# cold first visit. It does not judge the 1 ms claim (timing on a shared machine); the full run
# does (tools/experiments/README.md).
set -e
runfiles=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/obc_latency" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "FAIL: cannot find tools/experiments/obc_latency in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/obc_latency_out
rm -rf "$out"

"$runfiles/netstack/tools/experiments/obc_latency" --runs 2 --tls 1.3 --out "$out"

csv=$out/obc_latency.csv
for f in "$csv" "$out/obc_latency_runs.csv" "$out/obc_latency.txt"; do
  [ -s "$f" ] || { echo "FAIL: $f was not written" >&2; exit 1; }
done
python3 - "$csv" "$out/obc_latency_runs.csv" <<'PY'
import csv, sys
want_cols = ["tls", "config", "algorithm", "pool", "visit", "runs", "median_ms", "min_ms",
             "max_ms", "ratio_to_none", "added_ms", "paired_added_ms", "median_tls_ms",
             "median_obc_ms", "median_generation_ms", "obc_sources"]
with open(sys.argv[1]) as f:
    header = f.readline().strip().split(",")
rows = {(r["config"], r["visit"]): r for r in csv.DictReader(open(sys.argv[1]))}
runs = list(csv.DictReader(open(sys.argv[2])))
bad = []
if header != want_cols:
    bad.append("CSV header is %s" % header)
configs = ["none"] + ["%s_%s" % (a, p) for a in ("ecdsa", "rsa1024", "rsa2048")
                      for p in ("warm", "cold")]
for c in configs:
    for v in ("first", "second"):
        r = rows.get((c, v))
        if r is None:
            bad.append("no row for %s %s" % (c, v))
            continue
        if r["runs"] != "2" or r["tls"] != "1.3":
            bad.append("%s %s: runs %s tls %s" % (c, v, r["runs"], r["tls"]))
        if float(r["median_ms"]) <= 0:
            bad.append("%s %s: median %s" % (c, v, r["median_ms"]))
        if v == "second" and c != "none" and r["obc_sources"] != "cached_cert:2":
            bad.append("%s second visit: obc sources %s" % (c, r["obc_sources"]))
        if c.endswith("_warm") and v == "first" and r["obc_sources"] != "pooled_key:2":
            bad.append("%s first visit: obc sources %s" % (c, r["obc_sources"]))
for v in ("first", "second"):
    r = rows.get(("none", v))
    if r and (r["ratio_to_none"] != "1.000" or r["obc_sources"] != "none:2"):
        bad.append("none %s: ratio %s sources %s" % (v, r["ratio_to_none"], r["obc_sources"]))
cold = rows.get(("rsa2048_cold", "first"))
if cold and float(cold["median_generation_ms"]) < 5:
    bad.append("rsa2048 cold first visit: generation %s ms (an RSA-2048 key takes tens of ms)"
               % cold["median_generation_ms"])
if len(runs) != len(configs) * 2 * 2:
    bad.append("%d measurements in the runs CSV, expected %d" % (len(runs), len(configs) * 4))
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
PY
