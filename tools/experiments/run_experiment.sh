#!/bin/sh
# The launcher of every experiment made with experiment() (experiment.bzl): runs
# tools/experiments/NAME.py, NAME being this target's name, with python3 from PATH and the
# project's binaries from the runfiles: one `FLAG PATH` line of NAME.flags (made by the macro
# from its launcher_flags: by default --fetch, --testserver, --netem, --world, --certbundle)
# becomes FLAG RUNFILES/PATH, before the arguments given here (so a flag given here wins).
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
# tools/world/world.sh (and pki.sh) look for their own files under $RUNFILES_DIR.
RUNFILES_DIR=$(cd "$runfiles" && pwd)
export RUNFILES_DIR
r=$RUNFILES_DIR/netstack
# Append the launcher's flags after the given arguments, then rotate the given ones to the end.
given=$#
while read -r flag path; do
  [ -n "$flag" ] || continue
  set -- "$@" "$flag" "$r/$path"
done < "$r/tools/experiments/$name.flags"
while [ "$given" -gt 0 ]; do
  set -- "$@" "$1"
  shift
  given=$((given - 1))
done
exec python3 "$r/tools/experiments/$name.py" "$@"
