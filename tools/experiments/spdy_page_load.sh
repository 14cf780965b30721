#!/bin/sh
# bazel run -c opt //tools/experiments:spdy_page_load -- [--runs 10] [--out DIR]
#
# Runs spdy_page_load.py with python3 from PATH and the fetch, testserver, netem and pki
# launchers from this target's runfiles. A shell wrapper, not py_binary: Bazel 4.2's Python stub starts with
# '#!/usr/bin/env python', and Debian 12 has no 'python' (only python3) on the PATH Bazel gives
# tests and actions (same pattern as tools/world).
set -e
runfiles=
for d in "$0.runfiles" "${RUNFILES_DIR:-}" "${TEST_SRCDIR:-}"; do
  if [ -n "$d" ] && [ -f "$d/netstack/tools/experiments/spdy_page_load.py" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "spdy_page_load: cannot find the runfiles tree (run it with 'bazel run')" >&2
  exit 1
fi
# tools/world/pki.sh looks for its own files under $RUNFILES_DIR.
RUNFILES_DIR=$(cd "$runfiles" && pwd)
export RUNFILES_DIR
r=$RUNFILES_DIR/netstack
exec python3 "$r/tools/experiments/spdy_page_load.py" \
  --fetch "$r/tools/fetch/fetch" \
  --testserver "$r/tools/testserver/testserver" \
  --netem "$r/tools/netem/netem" \
  --pki "$r/tools/world/pki" \
  "$@"
