#!/bin/sh
# bazel run //tools/experiments:prefetch_server_cost -- [--clients 10] [--cover-rate 50] [--out DIR]
#
# Runs prefetch_server_cost.py with python3 from PATH and the fetch, testserver and world binaries
# from this target's runfiles (a shell wrapper, not py_binary: see handshake_rtt.sh).
set -e
runfiles=
for d in "$0.runfiles" "${RUNFILES_DIR:-}" "${TEST_SRCDIR:-}"; do
  if [ -n "$d" ] && [ -f "$d/netstack/tools/experiments/prefetch_server_cost.py" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "prefetch_server_cost: cannot find the runfiles tree (run it with 'bazel run')" >&2
  exit 1
fi
# tools/world/world.sh looks for its own files under $RUNFILES_DIR.
RUNFILES_DIR=$(cd "$runfiles" && pwd)
export RUNFILES_DIR
r=$RUNFILES_DIR/netstack
exec python3 "$r/tools/experiments/prefetch_server_cost.py" \
  --fetch "$r/tools/fetch/fetch" \
  --testserver "$r/tools/testserver/testserver" \
  --world "$r/tools/world/world" \
  "$@"
