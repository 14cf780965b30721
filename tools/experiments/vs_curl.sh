#!/bin/sh
# bazel run -c opt //tools/experiments:vs_curl -- [--requests 1000] [--rounds 3] [--out DIR]
#
# Runs vs_curl.py with python3 from PATH, curl, nginx and GNU time from the system, and the
# runfiles' fetch and cert/testdata. The runfiles' fetch is built in the mode of the 'bazel run'
# (fastbuild unless -c opt: Bazel 4.2 has no per-target compilation mode), so run it with -c opt,
# or pass an opt build: --fetch bazel-out/k8-opt/bin/tools/fetch/fetch (after
# 'bazel build -c opt //tools/fetch'; a later --fetch wins over the one given here).
# A shell wrapper, not py_binary: Bazel 4.2's Python stub starts with '#!/usr/bin/env python', and
# Debian 12 has no 'python' (only python3) on the PATH Bazel gives tests and actions (same pattern
# as tools/world).
set -e
runfiles=
for d in "$0.runfiles" "${RUNFILES_DIR:-}" "${TEST_SRCDIR:-}"; do
  if [ -n "$d" ] && [ -f "$d/netstack/tools/experiments/vs_curl.py" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "vs_curl: cannot find the runfiles tree (run it with 'bazel run')" >&2
  exit 1
fi
r=$(cd "$runfiles" && pwd)/netstack
exec python3 "$r/tools/experiments/vs_curl.py" \
  --fetch "$r/tools/fetch/fetch" \
  --certs "$r/cert/testdata" \
  "$@"
