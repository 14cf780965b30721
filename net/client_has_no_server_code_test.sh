#!/bin/bash
# Fails if the client (//tools/fetch:fetch, //net/context:context) depends on
# server-only code. $1: the server-only labels in the client's deps (must be
# empty). $2: the same filter over //tools/testserver (must list every
# server-only target, or the filter has stopped matching). See BUILD.bazel.
set -euo pipefail

client="$1"
testserver="$2"
status=0

if [[ -s "${client}" ]]; then
  echo "FAIL: the client links server-only code:" >&2
  sed 's/^/  /' "${client}" >&2
  echo "Depend on the client targets (//net/ssl, //net/socket, ...), not on" >&2
  echo "the server ones; find the path with" >&2
  echo "  bazel query 'somepath(//tools/fetch:fetch, LABEL)'" >&2
  status=1
fi

for label in //net/ssl:ssl_server //net/ssl:ssl_server_socket.cc \
    //net/ssl:early_data_anti_replay.cc //net/socket:tcp_server_socket \
    //net/socket:prefixed_stream_socket //net/snap_start:server \
    //net/snap_start:snap_start_server_socket.cc \
    //net/session_cache:session_cache; do
  if ! grep -qxF "${label}" "${testserver}"; then
    echo "FAIL: ${label} is not among the testserver's server-only deps;" >&2
    echo "a server target was renamed or SERVER_ONLY in net/BUILD.bazel no" >&2
    echo "longer matches it. Update both." >&2
    status=1
  fi
done

if [[ "${status}" -eq 0 ]]; then
  echo "PASS: no server-only code in the client;" \
    "$(wc -l < "${testserver}") server-only labels in the test server."
fi
exit "${status}"
