#!/usr/bin/env bash
# The demo: starts the local world (tools/world) in a temporary directory, runs
# tools/demo_world.py inside it as the world's client host (fetches of the front
# page, DNS cold / prefetched / cached, plain HTTP against TLS 1.2, False Start,
# TLS 1.3 and Snap Start through a 100 ms emulated link, handshake coalescing),
# then stops the world and removes the directory: nothing is left behind.
# Run through ./run demo (which builds the binaries first, -c opt).
#
#   tools/demo.sh [-v] [--keep]
#     -v      also print the front page's HTML and its whole trace (JSON)
#     --keep  keep the world's directory (world.json, logs, traces) and say where
#   RTT_MS=N  the emulated link's round-trip time (default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bazel-bin/tools
verbose=0
keep=0
for arg in "$@"; do
  case "$arg" in
    -v | --verbose) verbose=1 ;;
    --keep) keep=1 ;;
    -h | --help)
      sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "demo: unknown argument '$arg' (try: tools/demo.sh --help)" >&2
      exit 2
      ;;
  esac
done
for b in fetch/fetch testserver/testserver netem/netem certbundle/certbundle; do
  if [[ ! -x $bin/$b ]]; then
    echo "demo: $bin/$b is missing: run ./run demo (it builds them first)" >&2
    exit 1
  fi
done
rtt=${RTT_MS:-100}

dir=$(mktemp -d /tmp/netstack-world.XXXXXX)
# Every temporary file of the world and its clients (Chromium's profiles, the NSS database)
# goes below $dir too, so that removing $dir removes them, even after a Ctrl-C.
mkdir "$dir/tmp"
export TMPDIR="$dir/tmp"
cleanup() {
  if ((keep)); then
    echo "(the world's directory is kept: $dir)" >&2
  else
    rm -rf "$dir"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --link auto: the packet-level world (servers and client in network namespaces of their own,
# the kernel's SYN crossing netem's link) where it can run, the relay world where it cannot.
# world.py stops every process it started, and the namespaces with them, before it returns.
rc=0
python3 tools/world/world.py --dir "$dir" --quiet --rtt-ms "$rtt" --link auto \
  --testserver "$bin/testserver/testserver" --netem "$bin/netem/netem" \
  --certbundle "$bin/certbundle/certbundle" \
  --run python3 tools/demo_world.py --fetch "$bin/fetch/fetch" --rtt-ms "$rtt" \
  --work-dir "$dir/demo" --verbose "$verbose" || rc=$?
exit "$rc"
