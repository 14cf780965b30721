#!/bin/bash
# Fails if the shipped client carries the lab: $1 lists the tools/netem and tools/world labels
# among fetch's and NetworkContext's deps (must be empty), $2 the same filter over netem (must
# name its packet library: the filter still matches), $3 the fetch binary (no netem:: symbol),
# $4 the netem binary (has them: the symbol check still works). See BUILD.bazel.
set -euo pipefail
status=0
if [[ -s "$1" ]]; then
  echo "FAIL: fetch or NetworkContext depends on the lab:" >&2
  sed 's/^/  /' "$1" >&2
  status=1
fi
if ! grep -qxF "//tools/netem:packet" "$2"; then
  echo "FAIL: the filter no longer matches //tools/netem:packet; update LAB in BUILD.bazel" >&2
  status=1
fi
symbols() { nm -C "$1" 2>/dev/null | grep -c ' netem::' || true; }
in_fetch=$(symbols "$3")
in_netem=$(symbols "$4")
if [[ "$in_fetch" != 0 ]]; then
  echo "FAIL: the fetch binary has $in_fetch netem symbols:" >&2
  nm -C "$3" | grep ' netem::' | head >&2
  status=1
fi
if [[ "$in_netem" == 0 ]]; then
  echo "FAIL: no netem:: symbol in the netem binary either (stripped?): the check sees nothing" >&2
  status=1
fi
if [[ $status == 0 ]]; then
  echo "PASS: no lab code in the client; netem has $in_netem netem:: symbols, fetch none"
fi
exit $status
