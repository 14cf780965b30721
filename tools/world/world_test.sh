#!/bin/sh
# Runs tools/world/world_test.py with python3 from PATH. A shell wrapper, not py_binary: Bazel 4.2's
# Python stub starts with '#!/usr/bin/env python', and Debian 12 has no 'python' (only python3)
# on the PATH Bazel gives tests and actions.
set -e
here=
for d in "$0.runfiles/netstack/tools/world" "${RUNFILES_DIR:-}/netstack/tools/world" \
         "${TEST_SRCDIR:-}/netstack/tools/world"; do
  if [ -f "$d/world_test.py" ]; then here=$d; break; fi
done
# Not run through Bazel's runfiles (e.g. bazel-bin/tools/world/world_test copied elsewhere): use the
# source directory this script links to.
[ -n "$here" ] || here=$(dirname "$(readlink -f "$0")")
exec python3 "$here/world_test.py" "$@"
