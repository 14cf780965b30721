#!/bin/sh
# Runs a Python 3 check script of net/timing with python3 from the PATH Bazel
# gives tests (/usr/bin: Debian's python3 with python3-jsonschema):
#   run_python_check.sh SCRIPT.py ARGS...
# SCRIPT and ARGS are runfiles paths; Bazel starts tests in the runfiles
# directory of the workspace, elsewhere cd there first.
set -e
script=$1
if [ ! -f "$script" ]; then
  for d in "$0.runfiles/netstack" "${RUNFILES_DIR:-}/netstack" "${TEST_SRCDIR:-}/netstack"; do
    if [ -f "$d/$script" ]; then cd "$d"; break; fi
  done
fi
shift
export PYTHONDONTWRITEBYTECODE=1
exec python3 "$script" "$@"
