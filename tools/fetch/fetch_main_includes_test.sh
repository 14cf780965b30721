#!/bin/bash
# fetch_main.cc is a thin main over the library: it may include only
# net/context, net/url_request, net/timing, the tool's own files (and the
# standard library and absl). Anything else it needs belongs in one of the
# tool's libraries or in the library proper. $1: fetch_main.cc.
set -euo pipefail
bad=$(grep -E '^#include "' "$1" |
  grep -vE '^#include "(net/context|net/url_request|net/timing|tools/fetch|absl)/' || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: fetch_main.cc includes more than net/context, net/url_request, net/timing and tools/fetch:" >&2
  echo "$bad" >&2
  exit 1
fi
lines=$(wc -l < "$1")
if ((lines >= 400)); then
  echo "FAIL: fetch_main.cc has $lines lines (the bound is 400: move logic into a tool library)" >&2
  exit 1
fi
echo "PASS: fetch_main.cc includes only the library's top and the tool's files, $lines lines"
