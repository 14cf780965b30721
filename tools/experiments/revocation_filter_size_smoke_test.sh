#!/bin/sh
# Smoke test for //tools/experiments:revocation_filter_size: |S| = 3000 at |R|/|S| 1% and 10%
# with 20000 strangers passes the binary's --check (exact on R u S, nothing past the coverage
# covered, size near the model, the strangers' "revoked" rate near (2/3) p1), and writes
# filter_size.csv (its header and a row per cell) and filter_size.txt.
set -e
bin=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/revocation_filter_size" ]; then
    bin=$d/netstack/tools/experiments/revocation_filter_size; break
  fi
done
if [ -z "$bin" ]; then
  echo "FAIL: cannot find tools/experiments/revocation_filter_size in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/revocation_filter_size_out
rm -rf "$out"
"$bin" --sizes 3000 --ratios 0.01,0.1 --strangers 20000 --issuers 10 --out "$out" --check
csv=$out/filter_size.csv
[ -s "$out/filter_size.txt" ] || { echo "FAIL: filter_size.txt was not written" >&2; exit 1; }
want="valid,revoked,ratio,levels,file_bytes,cascade_bytes,cascade_bytes_per_revoked,model_bytes,build_s,lookup_ns,exact_errors,first_level_fp,strangers,strangers_said_revoked,stranger_fp_rate,expected_stranger_fp_rate,strangers_past_coverage_covered"
[ "$(head -1 "$csv")" = "$want" ] || { echo "FAIL: bad CSV header: $(head -1 "$csv")" >&2; exit 1; }
[ "$(grep -c '^3000,' "$csv")" -eq 2 ] || { echo "FAIL: want 2 rows" >&2; exit 1; }
# |R| is 30 and 300; no error on R u S; no stranger past the coverage covered.
awk -F, 'NR > 1 && ($2 != 30 && $2 != 300 || $11 != 0 || $17 != 0) { bad = 1 }
         END { exit bad }' "$csv" || { echo "FAIL: a bad row" >&2; cat "$csv" >&2; exit 1; }
echo PASS
