#!/bin/sh
# The smoke test of an experiment made with experiment() (experiment.bzl):
#   experiment_smoke_test.sh NAME CHECK.py [EXPERIMENT ARGS...]
# runs the experiment NAME with its smoke-sized arguments into a scratch directory, then
# python3 CHECK.py OUT_DIR, which fails the test on a missing or implausible result.
set -e
name=$1
check=$2
shift 2
runfiles=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/$name" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "FAIL: cannot find tools/experiments/$name in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/${name}_out
rm -rf "$out"
"$runfiles/netstack/tools/experiments/$name" --out "$out" "$@"
exec python3 "$runfiles/netstack/$check" "$out"
