#!/usr/bin/env bash
# The demo: starts the local world (tools/world), fetches its front page with
# tools/fetch and prints the page and its trace, then compares TLS 1.2, TLS
# 1.2 with False Start, TLS 1.3 and Snap Start (learned, and on a first visit
# from a prefetched certificate bundle) through a 100 ms emulated link.
# Run through ./run demo (which builds the binaries first).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bazel-bin/tools
dir=$(mktemp -d /tmp/netstack-world.XXXXXX)
rtt=${RTT_MS:-100}

# --link auto: the packet-level world (servers and client in network namespaces of their own,
# the kernel's SYN crossing netem's link) where it can run, the relay world where it cannot.
exec python3 tools/world/world.py --dir "$dir" --quiet --rtt-ms "$rtt" --link auto \
  --testserver "$bin/testserver/testserver" --netem "$bin/netem/netem" \
  --certbundle "$bin/certbundle/certbundle" \
  --run bash -c '
set -euo pipefail
fetch="'"$bin"'/fetch/fetch --revocation off"
url() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"origins\"][sys.argv[2]][\"url\"])" "$NETSTACK_WORLD" "$1"; }

echo "=== fetch --world $NETSTACK_WORLD $(url www)"
$fetch --world "$NETSTACK_WORLD" --trace-json "'"$dir"'/trace.json" \
  --trace-events "'"$dir"'/trace-events.json" "$(url www)"
echo
echo "=== its trace (W3C Resource Timing names, ms from startTime)"
python3 -m json.tool "'"$dir"'/trace.json"
echo "(Chrome trace events for Perfetto: '"$dir"'/trace-events.json)"
echo
echo "=== DNS through the world'"'"'s Knot server behind a 40 ms link: cold, prefetched, cached"
printf "%-34s %10s %10s\n" lookup domainLookup source
for cfg in "cold|" "after --prefetch www.example.test|--prefetch www.example.test"; do
  IFS="|" read -r name flags <<<"$cfg"
  # shellcheck disable=SC2086
  $fetch --world "$NETSTACK_WORLD" $flags -o /dev/null --trace-json - "$(url www)" |
    python3 -c "import json,sys
d=json.loads(sys.stdin.readline())
print(\"%-34s %8.1fms %10s\" % (sys.argv[1], d[\"domainLookupEnd\"]-d[\"domainLookupStart\"], d[\"dns\"][\"source\"]))" "$name"
done
$fetch --world "$NETSTACK_WORLD" --repeat 2 -o /dev/null --trace-json - "$(url www)" | tail -n 1 |
  python3 -c "import json,sys
d=json.loads(sys.stdin.readline())
print(\"%-34s %8.1fms %10s\" % (\"second visit (--repeat 2)\", d[\"domainLookupEnd\"]-d[\"domainLookupStart\"], d[\"dns\"][\"source\"]))"
echo
echo "=== the same origin through a '"$rtt"' ms link (tools/netem), cold connections"
# Snap Start needs the server'"'"'s orbit: one untimed visit learns it into a profile.
$fetch --world "$NETSTACK_WORLD" --no-world-dns --snap-start --profile "'"$dir"'/snap-profile" \
  -o /dev/null "$(url slow12)"
printf "%-36s %10s %12s %8s\n" configuration connectEnd responseEnd RTTs
for cfg in "plain http (the baseline)|slow_http|" \
           "tls1.2 full handshake|slow12|--tls-max 1.2 --no-false-start" \
           "tls1.2 False Start|slow12|--tls-max 1.2" \
           "tls1.3|slow|--tls-max 1.3" \
           "tls1.3 resumed (2nd of --repeat 2)|slow|--tls-max 1.3 --repeat 2" \
           "Snap Start (orbit learned before)|slow12|--snap-start --profile '"$dir"'/snap-profile" \
           "Snap Start, 1st visit (CDN bundle)|slow|--snap-start --bundle-sources cdn --prefetch slow.example.test --profile '"$dir"'/fresh-profile" \
           "Snap Start + TFO, 1st visit (CDN)|slow|--snap-start --tcp-fast-open --bundle-sources cdn --prefetch slow.example.test --profile '"$dir"'/fresh-profile-tfo"; do
  IFS="|" read -r name origin flags <<<"$cfg"
  # shellcheck disable=SC2086
  $fetch --world "$NETSTACK_WORLD" --no-world-dns $flags -o /dev/null --trace-json - "$(url $origin)" |
    tail -n 1 | python3 -c "import json,sys
d=json.loads(sys.stdin.read()); r='"$rtt"'
print(\"%-36s %10.1f %12.1f %8.2f\" % (sys.argv[1], d[\"connectEnd\"], d[\"responseEnd\"], d[\"responseEnd\"]/r))" "$name"
done
mode=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"link\"][\"mode\"])" "$NETSTACK_WORLD")
if [[ $mode == packet ]] && python3 tools/experiments/chromium.py --check >/dev/null 2>&1; then
  # The same link for a browser: headless Chromium, a fresh profile per visit.
  python3 - "$NETSTACK_WORLD" '"$rtt"' <<'"'"'PY'"'"'
import json, sys
sys.path.insert(0, "tools/experiments")
import chromium
w = json.load(open(sys.argv[1])); r = float(sys.argv[2])
rules = ",".join("MAP %s %s" % (o["host"], o["address"]) for o in w["origins"].values())
home = chromium.nss_home(w["trust_anchors"])
for name, key in (("chromium plain http, 1st visit", "slow_http"), ("chromium tls1.3, 1st visit", "slow")):
    # A fresh profile each time; the median of three by responseEnd.
    runs = sorted((chromium.visit(w["origins"][key]["url"], host_rules=rules, nss_home=home)
                   for _ in range(3)), key=lambda e: e["responseEnd"])
    e = runs[1]
    print("%-36s %10.1f %12.1f %8.2f" % (name, e["connectEnd"], e["responseEnd"], e["responseEnd"] / r))
PY
elif [[ $mode != packet ]]; then
  echo "(relay world: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"link\"][\"why\"])" "$NETSTACK_WORLD"); no SYN crosses the relay, so each new connection shows one round trip fewer; Chromium rows need the packet world)"
fi
echo
echo "=== six parallel connections, no cached session, with --coalesce-handshakes (opt-in: it saves"
echo "    the server five full handshakes, but a waiter finishes one wait later than its own would)"
$fetch --world "$NETSTACK_WORLD" --no-world-dns --parallel 6 --coalesce-handshakes -o /dev/null --trace-json - "$(url www)" |
  python3 -c "import json,sys
rows=[json.loads(l) for l in sys.stdin]
print(\"full handshakes: %d, resumed: %d\" % (sum(not r[\"tls\"][\"resumed\"] for r in rows), sum(r[\"tls\"][\"resumed\"] for r in rows)))"
'
