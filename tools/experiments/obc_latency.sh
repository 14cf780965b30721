#!/bin/sh
# bazel run -c opt //tools/experiments:obc_latency -- [--runs 21] [--tls 1.3,1.2] [--out DIR]
#
# Runs obc_latency.py with python3 from PATH, the fetch and testserver binaries and cert/testdata
# from this target's runfiles. A shell wrapper, not py_binary: Bazel 4.2's Python stub starts
# with '#!/usr/bin/env python', and Debian 12 has no 'python' (same pattern as handshake_rtt).
set -e
runfiles=
for d in "$0.runfiles" "${RUNFILES_DIR:-}" "${TEST_SRCDIR:-}"; do
  if [ -n "$d" ] && [ -f "$d/netstack/tools/experiments/obc_latency.py" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "obc_latency: cannot find the runfiles tree (run it with 'bazel run')" >&2
  exit 1
fi
r=$(cd "$runfiles" && pwd)/netstack
exec python3 "$r/tools/experiments/obc_latency.py" \
  --fetch "$r/tools/fetch/fetch" \
  --testserver "$r/tools/testserver/testserver" \
  --cert-dir "$r/cert/testdata" \
  "$@"
