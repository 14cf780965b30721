#!/bin/sh
# Runs one of the Python end-to-end tests in tests/ with python3 from PATH: run_py_test.sh
# SCRIPT.py ARGS... A shell wrapper, not py_binary: Bazel 4.2's Python stub starts with
# '#!/usr/bin/env python', and Debian 12 has no 'python' (only python3) on the PATH Bazel gives
# tests. SCRIPT and the binaries in ARGS are runfiles paths ($(rootpath ...)), relative to the
# workspace's runfiles directory, which is where Bazel starts tests; elsewhere, cd there first.
set -e
script=$1
if [ ! -f "$script" ]; then
  for d in "$0.runfiles/netstack" "${RUNFILES_DIR:-}/netstack" "${TEST_SRCDIR:-}/netstack"; do
    if [ -f "$d/$script" ]; then cd "$d"; break; fi
  done
fi
shift
# No __pycache__ next to the sources (runfiles are symlinks into the source tree).
export PYTHONDONTWRITEBYTECODE=1
exec python3 "$script" "$@"
