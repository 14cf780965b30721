#!/bin/sh
# Smoke test for //tools/experiments:vs_curl: a short run (20 requests per process, 2 processes
# per run, one round) with the runfiles' fetch (fastbuild: this checks the harness, not the
# numbers) must write the CSVs and the SVG with every cell, the exact CSV header and positive
# times and RSS for both clients. Each run is already checked by the experiment itself (exit
# code, status and body size per transfer, connections per mode, nginx's log: one line per
# request at the pinned TLS version). Skips (passes, saying so) when curl, nginx or GNU time is
# missing.
set -e
for b in curl nginx; do
  if ! command -v "$b" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$b" ]; then
    echo "SKIP: no $b on this machine"; exit 0
  fi
done
if [ ! -x /usr/bin/time ]; then echo "SKIP: no /usr/bin/time (Debian package time)"; exit 0; fi
runfiles=
for d in "${TEST_SRCDIR:-}" "${RUNFILES_DIR:-}" "$0.runfiles"; do
  if [ -n "$d" ] && [ -x "$d/netstack/tools/experiments/vs_curl" ]; then
    runfiles=$d; break
  fi
done
if [ -z "$runfiles" ]; then
  echo "FAIL: cannot find tools/experiments/vs_curl in the runfiles" >&2
  exit 1
fi
out=${TEST_TMPDIR:-$(mktemp -d)}/vs_curl_out
rm -rf "$out"

"$runfiles/netstack/tools/experiments/vs_curl" --requests 20 --process-runs 2 --rounds 1 \
  --out "$out"

for f in vs_curl.csv vs_curl_runs.csv vs_curl.svg vs_curl.txt; do
  [ -s "$out/$f" ] || { echo "FAIL: $out/$f was not written" >&2; exit 1; }
done
echo "--- $out/vs_curl.csv"
cat "$out/vs_curl.csv"
python3 - "$out" <<'PY'
import csv, os, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
bad = []
with open(os.path.join(d, "vs_curl.csv")) as f:
    header = f.readline().strip()
want_header = ("mode,tls,size,requests_per_run,rounds,fetch_us_per_req,curl_us_per_req,"
               "time_ratio,fetch_cpu_us_per_req,curl_cpu_us_per_req,cpu_ratio,"
               "fetch_peak_rss_kb,curl_peak_rss_kb,rss_ratio,fetch_resumed,curl_resumed")
if header != want_header:
    bad.append("CSV header is %r" % header)
rows = list(csv.DictReader(open(os.path.join(d, "vs_curl.csv"))))
cells = [(r["mode"], r["tls"], r["size"]) for r in rows]
want = [(m, t, s) for m in ("keepalive", "newconn", "process") for t in ("1.2", "1.3")
        for s in ("1k", "100k")]
if cells != want:
    bad.append("cells %s, expected %s" % (cells, want))
for r in rows:
    name = "%s/%s/%s" % (r["mode"], r["tls"], r["size"])
    for k in ("fetch_us_per_req", "curl_us_per_req", "time_ratio", "fetch_peak_rss_kb",
              "curl_peak_rss_kb", "rss_ratio"):
        if not float(r[k]) > 0:
            bad.append("%s: %s is %s" % (name, k, r[k]))
    # A peak RSS below 2 MB would be GNU time's own, not the client's.
    for k in ("fetch_peak_rss_kb", "curl_peak_rss_kb"):
        if float(r[k]) < 2048:
            bad.append("%s: %s %s KB is implausibly small" % (name, k, r[k]))
    want_n = "2" if r["mode"] == "process" else "20"
    if r["requests_per_run"] != want_n:
        bad.append("%s: requests_per_run %s" % (name, r["requests_per_run"]))
runs = list(csv.DictReader(open(os.path.join(d, "vs_curl_runs.csv"))))
if len(runs) != 2 * len(want):
    bad.append("%d runs in the runs CSV, expected %d" % (len(runs), 2 * len(want)))
root = ET.parse(os.path.join(d, "vs_curl.svg")).getroot()
if not root.tag.endswith("svg") or len([e for e in root.iter() if e.tag.endswith("rect")]) < 24:
    bad.append("the SVG has fewer than 24 bars")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("PASS")
PY
