#!/bin/sh
# bazel run -c opt //tools/experiments:obc_server_cost -- [--seconds 60] [--rate 300] [--out DIR]
#
# Runs obc_server_cost.py with python3 from PATH, the obc_load and testserver binaries and
# cert/testdata from this target's runfiles (a shell wrapper, not py_binary: see BUILD.bazel).
set -e
runfiles=
for d in "$0.runfiles" "${RUNFILES_DIR:-}" "${TEST_SRCDIR:-}"; do
  if [ -n "$d" ] && [ -f "$d/netstack/tools/experiments/obc_server_cost.py" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "obc_server_cost: cannot find the runfiles tree (run it with 'bazel run')" >&2
  exit 1
fi
r=$(cd "$runfiles" && pwd)/netstack
exec python3 "$r/tools/experiments/obc_server_cost.py" \
  --obc-load "$r/tools/experiments/obc_load" \
  --testserver "$r/tools/testserver/testserver" \
  --cert-dir "$r/cert/testdata" \
  "$@"
