#!/bin/sh
# Smoke test for //tools/experiments:pred_hit_rate: a 3000-device run writes hit_rate.csv
# (policy,cache_size,hit_rate for fifo, lru, rr, pred, opt) and hit_rate.svg, and passes the
# binary's own --check (PRED above FIFO, LRU and RR; FIFO and LRU collapse on small caches).
set -e
bin=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/pred_hit_rate" ]; then
    bin=$d/netstack/tools/experiments/pred_hit_rate; break
  fi
done
if [ -z "$bin" ]; then
  echo "FAIL: cannot find tools/experiments/pred_hit_rate in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/pred_hit_rate_out
rm -rf "$out"
"$bin" --clients 3000 --out "$out" --check

csv=$out/hit_rate.csv
svg=$out/hit_rate.svg
[ -s "$csv" ] || { echo "FAIL: $csv was not written" >&2; exit 1; }
[ -s "$svg" ] || { echo "FAIL: $svg was not written" >&2; exit 1; }
[ "$(head -1 "$csv")" = "policy,cache_size,hit_rate" ] || { echo "FAIL: bad CSV header" >&2; exit 1; }
for p in fifo lru rr pred opt; do
  n=$(grep -c "^$p," "$csv")
  [ "$n" -eq 21 ] || { echo "FAIL: $n rows for $p, want 21" >&2; exit 1; }
done
# Hit rates are fractions.
if awk -F, 'NR > 1 && ($3 < 0 || $3 > 1) { bad = 1 } END { exit !bad }' "$csv"; then
  echo "FAIL: a hit rate outside [0, 1]" >&2; exit 1
fi
grep -q '</svg>' "$svg" || { echo "FAIL: truncated SVG" >&2; exit 1; }
[ "$(grep -c '<polyline' "$svg")" -eq 5 ] || { echo "FAIL: want 5 lines in the SVG" >&2; exit 1; }
# Deterministic: a second run writes the same CSV.
"$bin" --clients 3000 --out "$out/again" > /dev/null
cmp "$csv" "$out/again/hit_rate.csv" || { echo "FAIL: two runs differ" >&2; exit 1; }
echo PASS
