#!/usr/bin/env bash
# Builds examples/embed (its own Bazel workspace, which depends on netstack as
# @netstack) and runs its embed_example against netstack's test server on
# loopback: an HTTPS fetch as an application would make it (the redirect and
# cookie part of the example is net/context's embedding_example_test). ./run
# test calls this; exit 0 when the fetch got its 200.
set -euo pipefail
cd "$(dirname "$0")"
bazel build //:embed_example @netstack//tools/testserver
bin=$(bazel info bazel-bin)
certs=../../cert/testdata
log=$(mktemp)
out=$(mktemp -d)
server=
trap 'if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; fi; rm -rf "$log" "$out"' EXIT
mkdir -p "$out/www"
echo "hello from netstack's test server" > "$out/www/index.html"
"$bin/external/netstack/tools/testserver/testserver" --listen 127.0.0.1:0 \
  --cert-chain "$certs/good_leaf_chain.pem" --key "$certs/good_leaf.key" \
  --docroot "$out/www" --quiet > "$log" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q '^ready' "$log" && break; sleep 0.05; done
port=$(sed -n 's/^listening https 127.0.0.1:\([0-9]*\)$/\1/p' "$log")
if [[ -z "$port" ]]; then
  echo "run_embed_example: the test server did not start:" >&2
  cat "$log" >&2
  exit 1
fi
"$bin/embed_example" "https://www.example.test:$port/" "$certs/good_root.pem" \
  "www.example.test:$port:127.0.0.1" | tee "$out/fetch.txt"
grep -q '^status 200, 34 body bytes, OK$' "$out/fetch.txt"
echo "run_embed_example: PASS (examples/embed built against @netstack and fetched over TLS)"
