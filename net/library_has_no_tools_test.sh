#!/bin/bash
# The library (//:netstack) must not depend on anything under //tools: $1 is
# that filter over its deps (must be empty), $2 the same filter over the
# fetch tool's deps (must name //tools/fetch targets: the filter still
# matches).
set -euo pipefail
if [[ -s "$1" ]]; then
  echo "FAIL: //:netstack depends on tools:" >&2
  sed 's/^/  /' "$1" >&2
  exit 1
fi
if ! grep -q '^//tools/fetch:' "$2"; then
  echo "FAIL: the filter matches nothing in //tools/fetch:fetch's deps either" >&2
  exit 1
fi
echo "PASS: //:netstack has no //tools dependency ($(wc -l < "$2") tools targets in fetch's)"
