#!/bin/sh
# Smoke test for //tools/experiments:handshake_rtt: a short run at 40 ms RTT must write the CSV,
# with tls12_full at ~4 RTT and tls12_false_start at ~3 RTT (medians, +-0.6 RTT).
set -e
runfiles=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/handshake_rtt" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "FAIL: cannot find tools/experiments/handshake_rtt in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/handshake_rtt_out
rm -rf "$out"

"$runfiles/netstack/tools/experiments/handshake_rtt" --rtt-ms 40 --runs 2 --out "$out"

csv=$out/handshake_rtt.csv
if [ ! -s "$csv" ]; then
  echo "FAIL: $csv was not written" >&2
  exit 1
fi
echo "--- $csv"
cat "$csv"
python3 - "$csv" <<'PY'
import csv, sys
rows = {r["config"]: r for r in csv.DictReader(open(sys.argv[1]))}
want_cols = ["config", "runs", "median_ms", "min_ms", "max_ms", "median_rtts",
             "ratio_to_tls12_full", "median_connect_ms"]
with open(sys.argv[1]) as f:
    header = f.readline().strip().split(",")
bad = []
if header != want_cols:
    bad.append("CSV header is %s, expected %s" % (header, want_cols))
for name in ("tls12_full", "tls12_false_start", "tls13_full", "tls12_resumed", "tls13_resumed"):
    if name not in rows:
        bad.append("no row for %s" % name)
    elif rows[name]["runs"] != "2":
        bad.append("%s: runs is %s, expected 2" % (name, rows[name]["runs"]))
for name, want in (("tls12_full", 4.0), ("tls12_false_start", 3.0)):
    if name in rows:
        got = float(rows[name]["median_rtts"])
        status = "ok" if abs(got - want) <= 0.6 else "FAIL"
        print("%s: %s median %.2f RTT (expected %.1f +- 0.6)" % (status, name, got, want))
        if status != "ok":
            bad.append("%s median is %.2f RTT, expected %.1f +- 0.6" % (name, got, want))
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
PY
