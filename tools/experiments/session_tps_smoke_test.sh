#!/bin/sh
# Smoke test for //tools/experiments:session_tps: one short round of every row over loopback.
# No failed transactions, and each row resumes as designed (--check): none and lru-half 0%,
# tickets / builtin / lru / pred ~100%, pred-half ~50%. Writes the CSV.
set -e
bin=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/session_tps" ]; then
    bin=$d/netstack/tools/experiments/session_tps; cd "$d/netstack"; break
  fi
done
if [ -z "$bin" ]; then
  echo "FAIL: cannot find tools/experiments/session_tps in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/session_tps_out
"$bin" --seconds 0.4 --warmup 0.2 --rounds 1 --clients 16 --connections 2 --out "$out" --check
[ "$(grep -c . "$out/session_tps.csv")" -eq 8 ] || { echo "FAIL: want 7 rows in the CSV" >&2; exit 1; }
echo PASS
