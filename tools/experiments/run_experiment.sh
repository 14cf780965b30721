#!/bin/sh
# The launcher of every experiment made with experiment() (experiment.bzl): runs
# tools/experiments/NAME.py, NAME being this target's name, with python3 from PATH and the
# project's binaries from the runfiles (--fetch, --testserver, --netem, --world, --certbundle).
# A shell wrapper, not py_binary: Bazel 4.2's Python stub wants a `python` Debian 12 lacks.
set -e
name=$(basename "$0")
runfiles=
for d in "$0.runfiles" "${RUNFILES_DIR:-}" "${TEST_SRCDIR:-}"; do
  if [ -n "$d" ] && [ -f "$d/netstack/tools/experiments/$name.py" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "$name: cannot find the runfiles tree (run it with 'bazel run')" >&2
  exit 1
fi
# tools/world/world.sh looks for its own files under $RUNFILES_DIR.
RUNFILES_DIR=$(cd "$runfiles" && pwd)
export RUNFILES_DIR
r=$RUNFILES_DIR/netstack
exec python3 "$r/tools/experiments/$name.py" \
  --fetch "$r/tools/fetch/fetch" \
  --testserver "$r/tools/testserver/testserver" \
  --netem "$r/tools/netem/netem" \
  --world "$r/tools/world/world" \
  --certbundle "$r/tools/certbundle/certbundle" \
  "$@"
