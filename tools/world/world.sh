#!/bin/sh
# Runs tools/world/world.py with python3 from PATH. A shell wrapper, not py_binary: Bazel 4.2's
# Python stub starts with '#!/usr/bin/env python', and Debian 12 has no 'python' (only python3)
# on the PATH Bazel gives tests and actions.
#
# The certbundle binary (//tools/certbundle, a data dependency of //tools/world:world) is passed
# as --certbundle when it is found next to world.py in the runfiles, or in bazel-bin when run
# from the source tree; a --certbundle given on the command line comes later and wins, and
# --no-bundles turns publishing off.
set -e
here=
for d in "$0.runfiles/netstack/tools/world" "${RUNFILES_DIR:-}/netstack/tools/world" \
         "${TEST_SRCDIR:-}/netstack/tools/world"; do
  if [ -f "$d/world.py" ]; then here=$d; break; fi
done
# Not run through Bazel's runfiles (e.g. bazel-bin/tools/world/world copied elsewhere): use the
# source directory this script links to.
[ -n "$here" ] || here=$(dirname "$(readlink -f "$0")")
# `world exec --world FILE -- CMD` takes no other flag.
if [ "${1:-}" = exec ]; then exec python3 "$here/world.py" "$@"; fi
# The revocation_filter tool (//tools/revocation_filter, also a data dependency) likewise, as
# --revocation-filter-tool (--no-revocation-filter turns the filter off). Both are put before
# the command line's flags, so that a flag given there wins.
for cb in "$here/../certbundle/certbundle" "$here/../../bazel-bin/tools/certbundle/certbundle"; do
  if [ -f "$cb" ] && [ -x "$cb" ]; then set -- --certbundle "$cb" "$@"; break; fi
done
for rf in "$here/../revocation_filter/revocation_filter" \
          "$here/../../bazel-bin/tools/revocation_filter/revocation_filter"; do
  if [ -f "$rf" ] && [ -x "$rf" ]; then set -- --revocation-filter-tool "$rf" "$@"; break; fi
done
exec python3 "$here/world.py" "$@"
