#!/bin/sh
# The smoke test of an experiment made with experiment() (experiment.bzl):
#   experiment_smoke_test.sh [--require PROGRAM]... NAME CHECK.py [EXPERIMENT ARGS...]
# skips (passes, saying so) when a required program is missing (a name looked up on PATH and in
# /usr/sbin, or an absolute path); runs the experiment NAME with its smoke-sized arguments into
# a scratch directory, then python3 CHECK.py OUT_DIR, which fails the test on a missing or
# implausible result. The check runs even when the experiment failed (it may have written
# everything and exited 1 over one bad row), so the log shows every problem; the test fails.
set -e
while [ "${1:-}" = --require ]; do
  p=$2
  shift 2
  case "$p" in
    /*) [ -x "$p" ] || { echo "SKIP: no $p on this machine"; exit 0; } ;;
    *) if ! command -v "$p" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$p" ]; then
         echo "SKIP: no $p on this machine"; exit 0
       fi ;;
  esac
done
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
rc=0
"$runfiles/netstack/tools/experiments/$name" --out "$out" "$@" || rc=$?
crc=0
python3 "$runfiles/netstack/$check" "$out" || crc=$?
if [ "$rc" != 0 ]; then
  echo "FAIL: the experiment exited with code $rc" >&2
  exit 1
fi
exit "$crc"
