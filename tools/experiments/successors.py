#!/usr/bin/env python3
"""The modern successors beside the 2010 mechanisms (issue 15 item 4): TLS 1.3 0-RTT, preconnect
and certificate compression next to TLS 1.2 + OCSP and Snap Start from a prefetched bundle.

    successors.py --fetch BIN --testserver BIN --netem BIN --world BIN
                  [--runs 11] [--out DIR] [--rtt-ms 50] [--ocsp-rtt-ms 291] [--dns-rtt-ms 40]
                  [--links 20] [--preconnect-total 6] [--preconnect-idle-s 10]
                  [--strategies LIST] [--no-latency] [--keep-world]

(Normally `bazel run //tools/experiments:successors -- [--runs N] [--out DIR]`; the launcher
(run_experiment.sh) fills in the four binaries from the runfiles.)

One local world (tools/world) with `slow` (test server, RSA-2048 chain, behind netem at
--rtt-ms), OCSP behind a --ocsp-rtt-ms relay and DNS behind a --dns-rtt-ms relay. Strategies,
each a fresh `fetch` process with a fresh, empty --profile, every row with the origin's DNS
prefetched (off the clock, as in prefetch_latency) and revocation checking on (--revocation soft:
the same certificate policy everywhere, so OCSP is on the critical path wherever nothing took it
off):

  http              slow_http (plain HTTP behind the same link)
  tls12_ocsp        --tls-max 1.2 --no-false-start            2010's normal: full handshake + OCSP
  tls13_first       --tls-max 1.3                             first visit, OCSP on the path
  tls13_filter      --tls-max 1.3 --revocation filter         first visit, revocation from the
                                                              world's CRLite filter (issue 26
                                                              items 3 and 5): no request
  tls13_preconnect  --tls-max 1.3 --preconnect --prefetch H:P connection opened and handshaked at
                                                              the prefetch, kept warm (trace
                                                              socketPreconnected: true)
  tls13_0rtt        --tls-max 1.3 --early-data --repeat 2     the 2nd (returning) visit: resumed,
                                                              request in early data (trace
                                                              tls.earlyData: accepted)
  snap_prefetched   --snap-start --bundle-sources dns --prefetch H:P   Snap Start from a prefetched,
                                                              prevalidated bundle, first visit
  snap_prefetched_tfo  the same + --tcp-fast-open             the bundle says the server takes
                                                              SYN data without a cookie: the
                                                              click's first flight in the SYN
                                                              (trace tcp.fastOpen: accepted)
  quic_first        --http3 (the world's h3 origin: Caddy,    HTTP/3 over QUIC v1, first visit,
                    same link profile as slow)                OCSP on the path (Caddy staples
                                                              nothing, as the test servers)
  quic_0rtt         --http3 --repeat 2                        the 2nd visit: resumed, GET in
                                                              0-RTT (quic.zeroRtt: accepted)
  quic_0rtt_small   the same for h3's 100-byte resource       a response inside the server's
                                                              0.5-RTT budget (the page is not)

Issue 25 item 5, the large chain (the world's `bigchain` origin, ~5.1 KB of chain, over QUIC's
anti-amplification limit of 3 x the client's 1200-byte Initial; latency only):
  bigchain_tls13_first, bigchain_quic_first (gtlsserver on its UDP port),
  bigchain_snap_prefetched and bigchain_snap_prefetched_tfo (--bundle-sources cdn: its bundle is
  on the CDNs only). A table of round trips (net of the click's revocation wait) puts the QUIC
  and Snap Start rows beside what each should cost.

Three measurements:

1. Latency (through netem): responseStart and responseEnd in ms from startTime; one discarded
   warm-up round, then --runs rounds, the order rotating. Every fetch is checked against what
   its row claims.
2. Bytes the server sent before the first response byte: each strategy once per certificate
   compression setting (--cert-compression off | zlib | brotli) and per chain: rsa = the `slow`
   test server (BoringSSL, RSA-2048 leaf), ecdsa = a test server this experiment starts with the
   world's ecdsa.example.test chain (P-256 leaf, RSA intermediate; same software, same flags),
   and on nginx (OpenSSL 3.0: no RFC 8879) rsa_nginx = the `nginx` origin, ecdsa_nginx = the
   `ecdsa` origin. netem exposes no byte counters, so
   the experiment counts bytes itself: a byte-counting TCP relay (Python, in this process) on
   127.0.9.x with the origin's port, which fetch reaches through --resolve HOST:PORT:127.0.9.x
   (same host and port, so sessions, orbits and preconnects are keyed as usual), forwarding to the
   origin's server without netem (bytes do not depend on the RTT). The server->client stream is
   split into TLS records (their 5-byte headers are in the clear); the response's first record is
   TLS 1.2's first application_data record, and in TLS 1.3 (where handshake records are
   application_data too) the trailing records whose plaintext sums to the response's size from
   the trace (headerSize + encodedBodySize; record overhead from the cipher), after dropping
   trailing alerts. "bytes before the first response byte" = the stream offset of that record.
   The trace's tls.certCompression gives the Certificate message's size before and after.
3. Server cost per page of --links links of which one is clicked: a model computed from
   per-operation counts measured through the same relay — for each strategy, a link prefetched
   and not clicked (fetch --prefetch of the origin, then a fetch of another origin: what reaches
   the origin is what the prefetch alone costs) and a link prefetched and clicked; a page is
   (links - 1) x not clicked + 1 x clicked, each link on its own host. Connections opened,
   handshakes by kind (full, resumed, Snap Start, truncated), server bytes, and connection-seconds
   held idle (preconnected, never-used sockets x --preconnect-idle-s: modelled).

The byte and cost tables have no QUIC rows (UDP: the byte relay carries TCP) and no TFO row (the
relay takes no SYN data): "n/a" there.

A feature whose fetch flag (--preconnect, --early-data, --cert-compression, --http3,
--tcp-fast-open) is missing from
`fetch --help` makes its rows "unavailable" with that reason (as does a server whose tickets allow
no early data); with the flag present, a fetch that does not do what its row claims makes that
row "FAILED" with the reason, the others are still measured and written, and the exit code is 1.

4. Revocation (issue 26 item 5, OCSP prevalidation against the CRLite filter), from the latency
   runs: the OCSP requests that reached the responder during each visit (its log, before and
   after each fetch process: for the prevalidated row that is the prefetch's, before the
   click), the time to a revocation decision on the click (the trace's
   cert.revocation.ms), the OCSP bytes per visit (requests x the DER sizes of one request and
   its response, measured once with `openssl ocsp`), the bytes a client holds up front (the
   world's filter file), and what the responder learns.

5. OBC vs DBSC (issue 26 item 5, binding_pair.py, in a world of its own whose test servers ask
   for client certificates and hand out 2 s DBSC cookies): first-visit cost, when the session
   is bound to its key, return visits with the cookie valid and expired (the DBSC refresh),
   client and server bytes, and whether each survives nginx terminating TLS in front of the
   test server. --no-binding skips it.

6. Bundle prefetch vs HTTPS record + ECH (issue 26 item 5, discovery_pair.py, in a world of its
   own with both origins at --rtt-ms): DNS and connection round trips to the first response
   byte, DNS answer and TLS bytes, and what an on-path observer reads (the ClientHello's
   server name, the DNS names queried). --no-discovery skips it.

Output: the tables; with --out DIR: successors_binding.csv (the pair), successors_discovery.csv
(the discovery pair), successors.csv (latency:
`strategy,runs,median_ms,min_ms,max_ms,median_ttfb_ms,status`), successors_bytes.csv,
successors_cost.csv, successors_runs.csv, successors_revocation.csv, successors.svg,
successors.txt.

Python 3, standard library only.
"""

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from byte_relay import ByteRelay, tls_records  # noqa: E402
import binding_pair  # noqa: E402
import discovery_pair  # noqa: E402
import exp_common  # noqa: E402
from exp_common import ExperimentError, fmt_range, rel  # noqa: E402

STRATEGIES = ["http", "tls12_ocsp", "tls13_first", "tls13_filter", "tls13_preconnect",
              "tls13_0rtt", "snap_prefetched", "snap_prefetched_tfo", "quic_first", "quic_0rtt",
              "quic_0rtt_small"]
# Issue 25 item 5: the large certificate chain (the world's `bigchain` origin: ~5.1 KB of
# chain, over QUIC's anti-amplification limit of 3 x the client's 1200-byte Initial). Latency
# only, in a table of their own (the bytes and cost tables are about `slow`'s chains).
BIGCHAIN_STRATEGIES = ["bigchain_tls13_first", "bigchain_quic_first",
                       "bigchain_snap_prefetched", "bigchain_snap_prefetched_tfo"]
# HTTP/3 rows (the world's `h3` origin, Caddy, and bigchain's gtlsserver): QUIC carries them
# over UDP, which the byte-counting TCP relays cannot see.
QUIC_STRATEGIES = {"quic_first", "quic_0rtt", "quic_0rtt_small", "bigchain_quic_first"}
# The rows whose click goes out with TCP Fast Open: the origin's own listener takes SYN data
# without a cookie; the byte-counting relays in front of it do not.
TFO_STRATEGIES = {"snap_prefetched_tfo", "bigchain_snap_prefetched_tfo"}
# What each row should cost, in round trips of the origin's link, once the revocation wait on
# the click (the trace's cert.revocation.ms: OCSP through its own link) is taken off; the QUIC
# table prints it beside the measured figure.
EXPECTED_RTTS = {"tls13_first": 3, "tls13_0rtt": 2, "snap_prefetched": 2,
                 "snap_prefetched_tfo": 1, "quic_first": 2, "quic_0rtt": 1,
                 "quic_0rtt_small": 1, "bigchain_tls13_first": 3, "bigchain_quic_first": 3,
                 "bigchain_snap_prefetched": 2, "bigchain_snap_prefetched_tfo": 1}
# The quic_0rtt_small row fetches the h3 origin's small resource (world.json's
# origins.h3.quic.small_resource, from tools/world/quic.py): a response that fits the server's
# 0.5-RTT budget before the client's address is validated; the page (`/`, ~4 KB) does not.
# Cost-table only: Snap Start with the bundle from the truncated handshake (the source that
# reaches the origin itself) instead of DNS TXT.
COST_VARIANTS = ["snap_prefetched_truncated"]
# The fetch flag each strategy needs beyond what fetch had before issue 15.
NEEDS = {"tls13_preconnect": "--preconnect", "tls13_0rtt": "--early-data",
         "tls13_filter": "--revocation-filter", "snap_prefetched_tfo": "--tcp-fast-open",
         "bigchain_snap_prefetched_tfo": "--tcp-fast-open"}
NEEDS.update({name: "--http3" for name in QUIC_STRATEGIES})
COMPRESSIONS = ["off", "zlib", "brotli"]
# Chains for the byte counts: (label, origin key in world.json).
# "ecdsa_ts" is a test server the experiment starts with the world's ecdsa.example.test chain
# (P-256 leaf, RSA intermediate), so both chains are measured on the same software.
CHAINS = [("rsa", "slow"), ("ecdsa", "ecdsa_ts"), ("rsa_nginx", "nginx"),
          ("ecdsa_nginx", "ecdsa")]
ECDSA_TS_ADDRESS = "127.0.9.20"
RELAY_BASE = "127.0.9."

CSV_COLUMNS = ["strategy", "runs", "median_ms", "min_ms", "max_ms", "median_ttfb_ms", "status"]
BYTES_CSV_COLUMNS = ["strategy", "chain", "compression", "bytes_before_response",
                     "server_bytes_total", "cert_algorithm", "cert_compressed_bytes",
                     "cert_uncompressed_bytes", "tls_version", "resumed", "status",
                     "server_records"]
COST_CSV_COLUMNS = ["strategy", "links", "connections", "full_handshakes",
                    "resumed_handshakes", "snap_start_handshakes", "truncated_handshakes",
                    "other_requests", "idle_connections", "idle_connection_s",
                    "server_bytes", "unclicked_link", "clicked_link", "status"]
RUNS_CSV_COLUMNS = ["run", "strategy", "order", "responseEnd", "responseStart", "connectEnd",
                    "tls_version", "resumed", "earlyData", "socketPreconnected", "snapStart",
                    "cert_source", "revocation_source", "revocation_ms", "ocsp_requests"]
# The revocation table (issue 26 item 5): the rows that check revocation, how.
REVOCATION_ROWS = [
    ("tls12_ocsp", "OCSP on the click"),
    ("tls13_first", "OCSP on the click"),
    ("quic_first", "OCSP on the click (over QUIC)"),
    ("snap_prefetched", "OCSP before the click (prevalidated bundle)"),
    ("tls13_filter", "CRLite filter, no request"),
]
REVOCATION_CSV_COLUMNS = ["strategy", "how", "revocation_source", "ocsp_requests_per_visit",
                          "decision_ms_on_click", "ocsp_bytes_per_visit", "bytes_up_front",
                          "responder_learns", "status"]


class Unavailable(ExperimentError):
    """The row cannot be measured here for a reason outside fetch (the server does not offer the
    feature); the message is the row's status."""


def failed_status(e):
    """A row's status after its fetch did not do what the row claims (the run goes on; the
    experiment exits 1 at the end)."""
    return "FAILED: %s" % str(e).splitlines()[0]


def log(msg):
    sys.stderr.write("successors: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="TLS 1.3 0-RTT, preconnect and certificate compression beside TLS 1.2 + "
                    "OCSP and Snap Start from a prefetched bundle: latency, bytes before the "
                    "first response byte, server cost per page (see tools/experiments/README.md).")
    ap.add_argument("--runs", type=int, default=11, help="latency runs per strategy (default 11)")
    ap.add_argument("--out", metavar="DIR", help="write the CSVs, SVG and report to DIR (a "
                    "relative DIR is taken from $BUILD_WORKSPACE_DIRECTORY under `bazel run`)")
    ap.add_argument("--rtt-ms", type=int, default=50, help="origin round trip (default 50)")
    ap.add_argument("--ocsp-rtt-ms", type=int, default=291,
                    help="OCSP responder round trip (default 291)")
    ap.add_argument("--dns-rtt-ms", type=int, default=40, help="DNS round trip (default 40)")
    ap.add_argument("--links", type=int, default=20,
                    help="links per page in the server-cost model, one clicked (default 20)")
    ap.add_argument("--preconnect-idle-s", type=float, default=10.0,
                    help="how long an unused preconnected socket is held (the model's idle "
                         "time; default 10, the HTTP session's unused_idle_timeout, as "
                         "Chromium's)")
    ap.add_argument("--preconnect-total", type=int, default=6,
                    help="preconnects per page at most (the model; default 6, fetch's "
                         "total preconnect limit: net/context Preconnector max_total)")
    ap.add_argument("--strategies", default=",".join(STRATEGIES + COST_VARIANTS +
                                                     BIGCHAIN_STRATEGIES),
                    help="comma-separated subset to measure (default: all); the others are "
                         "reported as not measured")
    ap.add_argument("--no-latency", action="store_true", help="skip the latency runs")
    ap.add_argument("--no-binding", action="store_true",
                    help="skip the OBC vs DBSC pair (binding_pair.py: a world of its own)")
    ap.add_argument("--no-discovery", action="store_true",
                    help="skip the bundle vs HTTPS record + ECH pair (discovery_pair.py: a world "
                         "of its own)")
    ap.add_argument("--keep-world", action="store_true",
                    help="keep the world's directory (PKI, logs)")
    ap.add_argument("--fetch", required=True, help="fetch binary")
    ap.add_argument("--testserver", required=True, help="testserver binary")
    ap.add_argument("--netem", required=True, help="netem binary")
    ap.add_argument("--world", required=True, help="the //tools/world:world launcher")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.links < 1:
        ap.error("--links must be at least 1")
    args.strategies = [x.strip() for x in args.strategies.split(",") if x.strip()]
    for x in args.strategies:
        if x not in STRATEGIES + COST_VARIANTS + BIGCHAIN_STRATEGIES:
            ap.error("unknown strategy %r (known: %s)" % (x, ", ".join(
                STRATEGIES + COST_VARIANTS + BIGCHAIN_STRATEGIES)))
    exp_common.check_executable(ap, args, ("fetch", "testserver", "netem", "world"))
    return args


# -- features ---------------------------------------------------------------------------------

def fetch_features(fetch):
    """The issue-15 flags this fetch knows, from `fetch --help`."""
    p = subprocess.run([fetch, "--help"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=30)
    text = p.stdout.decode(errors="replace")
    return {flag: (flag in text) for flag in ("--preconnect", "--early-data",
                                              "--cert-compression", "--revocation-filter",
                                              "--http3", "--tcp-fast-open")}


def testserver_args(testserver):
    """--testserver-arg flags for the world: the test servers accept 0-RTT and compress
    certificates when their binary knows how (`testserver --help`)."""
    p = subprocess.run([testserver, "--help"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=30)
    text = p.stdout.decode(errors="replace")
    out = []
    if "--early-data" in text:
        out += ["--testserver-arg=--early-data"]
    if "--cert-compression" in text:
        out += ["--testserver-arg=--cert-compression", "--testserver-arg=brotli,zlib"]
    return out


def missing_reason(flag):
    return "unavailable: fetch has no %s (`fetch --help` does not list it)" % flag


# -- the byte-counting relay -------------------------------------------------------------------

def record_overhead(version, cipher):
    """Ciphertext bytes beyond the plaintext in one protected record (not counting the header)."""
    if version == "TLSv1.3":
        return 17  # inner content type + 16-byte AEAD tag (no padding)
    c = (cipher or "").upper()
    if "CHACHA" in c:
        return 16
    return 24  # AES-GCM: 8-byte explicit nonce + tag (the Snap Start core's AES-128-GCM too)


def response_offset(conn, trace):
    """(offset of the response's first byte in the server's stream, note). offset None: not
    found."""
    data = bytes(conn.down)
    if not data:
        return None, "the server sent nothing"
    if data[:5] == b"HTTP/":
        return 0, "plain HTTP"
    recs = tls_records(data)
    if not recs:
        return None, "neither HTTP nor TLS"
    tls = trace.get("tls") or {}
    version = tls.get("version")
    if version != "TLSv1.3":
        for off, t, _ in recs:
            if t == 23:
                return off, "first application_data record"
        return None, "no application_data record"
    want = int(trace.get("headerSize") or 0) + int(trace.get("encodedBodySize") or 0)
    ov = record_overhead(version, tls.get("cipher"))
    # The response is a run of consecutive application_data records whose plaintext adds up to
    # exactly its size; records after it (tickets sent late, alerts) are not part of it. Take the
    # last such run (an exact sum elsewhere would be a coincidence; it is reported if it occurs).
    runs = []
    for i in range(len(recs)):
        total = 0
        for j in range(i, len(recs)):
            if recs[j][1] != 23:
                break
            total += recs[j][2] - ov
            if total == want:
                runs.append(i)
                break
            if total > want:
                break
    if not runs:
        return None, ("no run of application_data records adds up to the response's %d bytes"
                      % want)
    note = "the records that add up to the response's %d bytes" % want
    if len(runs) > 1:
        note += " (%d candidate runs; the last taken)" % len(runs)
    return recs[runs[-1]][0], note


def classify(conn, trace=None):
    """What one connection at the origin was: http, request (it carried the response of trace),
    handshake (completed, no request: a preconnect left idle), truncated (the client stopped
    after the server's first flight), or opened (the server sent nothing)."""
    down, up = bytes(conn.down), bytes(conn.up)
    if down[:5] == b"HTTP/":
        return "http"
    if not down:
        return "opened"
    if trace is not None and response_offset(conn, trace)[0] is not None:
        return "request"
    urecs = tls_records(up)
    # Client records after its first flight (ClientHello [+ early data]): the first client
    # chunk that arrived after the server's first bytes.
    first_down = conn.down_chunks[0][0] if conn.down_chunks else None
    later = [r for r in urecs if first_down is not None and any(
        t >= first_down and off <= r[0] for t, off in conn.up_chunks)]
    meaningful = [r for r in later if r[1] in (22, 23) and r[2] > 19]
    if not meaningful:
        return "truncated"
    return "handshake"


# -- world and configurations ----------------------------------------------------------------

def start_ecdsa_testserver(args, info, ts_args):
    """A test server with the world's P-256 chain (ecdsa.example.test), the same flags as the
    world's test servers: (process, origin dict), or None when the world has no such chain."""
    pki_dir = os.path.join(info.get("dir", ""), "pki", "ecdsa.example.test")
    chain, key = os.path.join(pki_dir, "chain.pem"), os.path.join(pki_dir, "key.pem")
    if not (os.path.isfile(chain) and os.path.isfile(key)):
        log("no ecdsa.example.test chain in the world's PKI: the ecdsa test-server rows are "
            "skipped")
        return None
    argv = [args.testserver, "--listen", ECDSA_TS_ADDRESS + ":0", "--cert-chain", chain,
            "--key", key] + [a.split("=", 1)[1] for a in ts_args]
    docroot = os.path.join(info.get("dir", ""), "www")
    if os.path.isdir(docroot):
        argv += ["--docroot", docroot]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    port = None
    for raw in proc.stdout:
        line = raw.decode(errors="replace").strip()
        if line.startswith("listening https "):
            port = int(line.rsplit(":", 1)[1])
        if line == "ready":
            break
    if port is None:
        proc.kill()
        raise ExperimentError("the ECDSA test server did not start: %s" % " ".join(argv))
    threading.Thread(target=lambda: proc.stdout.read(), daemon=True).start()
    host = "ecdsa.example.test"
    return proc, {"host": host, "port": port, "address": ECDSA_TS_ADDRESS,
                  "url": "https://%s:%d/" % (host, port), "snap_start_orbit": None}


def origin(info, key):
    o = info.get("origins", {}).get(key)
    if not o:
        raise ExperimentError("the world has no `%s` origin (skipped: %s)" % (
            key, info.get("skipped", {}).get(key, "?")))
    return o


def direct_target(o):
    """The origin's server without netem."""
    b = o.get("backend")
    if b:
        return (b["address"], b["port"])
    return (o["address"], o["port"])


SELECTED = None  # the --strategies subset (set by main)
# Why the world has no revocation filter (set by main; None: it has one).
NO_FILTER = None


def strategy_flags(name, o, features):
    """fetch flags for a strategy against origin o, or (None, reason)."""
    if SELECTED is not None and name not in SELECTED:
        return None, "not measured (--strategies)"
    need = NEEDS.get(name)
    if need and not features.get(need):
        return None, missing_reason(need)
    host, port = o["host"], o["port"]
    hp = "%s:%d" % (host, port)
    if name == "http":
        return ["--revocation", "off", "--prefetch", host], None
    if name == "tls12_ocsp":
        return ["--tls-max", "1.2", "--no-false-start", "--revocation", "soft",
                "--prefetch", host], None
    if name == "tls13_first":
        return ["--tls-max", "1.3", "--revocation", "soft", "--prefetch", host], None
    if name == "tls13_filter":
        if NO_FILTER:
            return None, "unavailable: the world publishes no revocation filter (%s)" % NO_FILTER
        # --revocation filter takes the world's filter (world.json's revocation_filter).
        return ["--tls-max", "1.3", "--revocation", "filter", "--prefetch", host], None
    if name == "tls13_preconnect":
        return ["--tls-max", "1.3", "--revocation", "soft", "--preconnect",
                "--prefetch", hp], None
    if name == "tls13_0rtt":
        return ["--tls-max", "1.3", "--revocation", "soft", "--early-data", "--prefetch", host,
                "--repeat", "2"], None
    if name in ("snap_prefetched", "snap_prefetched_truncated", "snap_prefetched_tfo",
                "bigchain_snap_prefetched", "bigchain_snap_prefetched_tfo"):
        if not o.get("snap_start_orbit"):
            return None, "n/a: Snap Start is TLS 1.2 static RSA with a server orbit; %s has none" \
                % o["host"]
        # bigchain's bundle is on the CDNs only (its chain is too big for a TXT record).
        source = ("truncated" if name.endswith("truncated") else
                  "cdn" if name.startswith("bigchain") else "dns")
        tfo = ["--tcp-fast-open"] if name in TFO_STRATEGIES else []
        return ["--snap-start", "--revocation", "soft", "--bundle-sources", source,
                "--prefetch", hp] + tfo, None
    if name == "bigchain_tls13_first":
        return ["--tls-max", "1.3", "--revocation", "soft", "--prefetch", host], None
    if name in QUIC_STRATEGIES:
        if not o.get("quic"):
            return None, "unavailable: %s serves no HTTP/3 in this world (%s)" % (
                o["host"], "no quic block in world.json")
        # The same revocation policy as the TCP rows (--revocation soft: OCSP on the click
        # unless a row took it off); the h3 origin staples nothing (Caddy's ocsp_stapling off),
        # as the test servers.
        flags = ["--http3", "--revocation", "soft", "--prefetch", host]
        if name.startswith("quic_0rtt"):
            flags += ["--repeat", "2"]  # the 2nd (returning) visit: resumed, GET in 0-RTT
        return flags, None
    raise ValueError(name)


def check_trace(name, t, repeat_index):
    """Problems with the measured trace of a strategy."""
    p = []
    if t.get("status") != 200 or t.get("error") != "OK":
        p.append("status %s, error %s" % (t.get("status"), t.get("error")))
    tls = t.get("tls") or {}
    cert = t.get("cert") or {}
    rev = cert.get("revocation") or {}
    if name == "http":
        if t.get("tls"):
            p.append("TLS on the plain-HTTP row")
        return p
    snap = name.startswith("snap_prefetched") or name.startswith("bigchain_snap")
    want_v = "TLSv1.2" if name == "tls12_ocsp" or snap else "TLSv1.3"
    quic = t.get("quic") or {}
    if name in QUIC_STRATEGIES:
        if (tls.get("alpn"), quic.get("used"), quic.get("version"), quic.get("fallback")) != \
                ("h3", True, 1, ""):
            p.append("not HTTP/3 over QUIC v1: tls.alpn %r, quic %r" % (tls.get("alpn"), quic))
    elif quic.get("used"):
        p.append("QUIC on a TCP row")
    tcp = t.get("tcp") or {}
    if name in TFO_STRATEGIES and tcp.get("fastOpen") != "accepted":
        p.append("tcp.fastOpen %r (%s), expected accepted (the request in the SYN)" % (
            tcp.get("fastOpen"), tcp.get("fastOpenDetail")))
    if tls.get("version") != want_v:
        p.append("tls.version %r, expected %r" % (tls.get("version"), want_v))
    if name == "tls13_0rtt":
        if not tls.get("resumed"):
            p.append("the second visit was not resumed")
        if tls.get("earlyData") != "accepted":
            p.append("tls.earlyData %r, expected accepted" % tls.get("earlyData"))
    elif name.startswith("quic_0rtt"):
        if not tls.get("resumed"):
            p.append("the second visit was not resumed")
        if quic.get("zeroRtt") != "accepted" or quic.get("sentEarly") is not True:
            p.append("quic.zeroRtt %r, sentEarly %r, expected accepted, true" % (
                quic.get("zeroRtt"), quic.get("sentEarly")))
    elif name in QUIC_STRATEGIES and quic.get("zeroRtt") not in (None, "none"):
        p.append("quic.zeroRtt %r on a first visit" % quic.get("zeroRtt"))
    elif tls.get("resumed"):
        p.append("a resumed handshake on a first visit")
    if name == "tls13_preconnect" and t.get("socketPreconnected") is not True:
        p.append("socketPreconnected %r, expected true (the request made its own connection: "
                 "dns.source %r, waitedForSession %r, sessionWaitMs %r)" % (
                     t.get("socketPreconnected"), (t.get("dns") or {}).get("source"),
                     tls.get("waitedForSession"), tls.get("sessionWaitMs")))
    if name != "tls13_preconnect" and t.get("socketPreconnected"):
        p.append("a preconnected socket where none was asked for")
    if name == "tls12_ocsp" and tls.get("falseStart"):
        p.append("False Start on the 2010 row")
    if snap:
        if tls.get("snapStart") != "accepted":
            p.append("tls.snapStart %r, expected accepted" % tls.get("snapStart"))
        if cert.get("source") != "prefetch":
            p.append("cert.source %r, expected prefetch" % cert.get("source"))
        if rev.get("source") != "prevalidated":
            p.append("revocation source %r, expected prevalidated" % rev.get("source"))
    if name in ("tls12_ocsp", "tls13_first", "quic_first", "bigchain_tls13_first",
                "bigchain_quic_first") and rev.get("source") not in ("fresh",):
        p.append("revocation source %r, expected fresh (OCSP on the path)" % rev.get("source"))
    if name == "tls13_filter" and (rev.get("source"), rev.get("outcome")) != ("filter", "good"):
        p.append("revocation %r/%r, expected filter/good (the world's filter covers slow)" % (
            rev.get("source"), rev.get("outcome")))
    return p


def run_one(args, world_json, profiles_dir, counter, name, url, flags, extra=()):
    """One fresh fetch process; returns (all traces of url, cmd)."""
    counter[0] += 1
    profile = os.path.join(profiles_dir, "p%05d" % counter[0])
    tail = ["--world", world_json, "--profile", profile, "-o", "/dev/null",
            "--max-time", "60"] + list(extra) + flags + [url]
    try:
        traces, _, _, cmd = exp_common.run_fetch(args.fetch, tail, name)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return [t for t in traces if t.get("name") == url], cmd


def measured_trace(name, mine, flags, cmd):
    want = 2 if "--repeat" in flags else 1
    if len(mine) != want:
        raise ExperimentError("%s: expected %d trace(s), got %d\n  command: %s" % (
            name, want, len(mine), cmd))
    t = mine[-1]
    tls = t.get("tls") or {}
    if (name == "tls13_0rtt" and tls.get("resumed") and tls.get("earlyData") == "not_offered"
            and "unsupported_for_session" in (tls.get("earlyDataReason") or "")):
        raise Unavailable("unavailable: the server's tickets allow no early data (tls."
                          "earlyDataReason %r): 0-RTT is not turned on for %s in the world" % (
                              tls.get("earlyDataReason"), t.get("name")))
    problems = check_trace(name, t, want - 1)
    if problems:
        raise ExperimentError("%s: unexpected fetch result: %s\n  command: %s\n  trace: %s" % (
            name, "; ".join(problems), cmd, json.dumps(t)))
    return t


# -- the four measurements -------------------------------------------------------------------

def ocsp_requests(info):
    """Requests that have reached the world's OCSP responder so far (one log line each)."""
    o = info["ocsp"]
    try:
        with open(o["log"], errors="replace") as f:
            return f.read().count(o["log_marker"])
    except OSError:
        return 0


def ocsp_message_bytes(info, tmp):
    """(request, response) DER sizes of one OCSP exchange for the slow origin's leaf, as the
    responder answers it: `openssl ocsp` (with a nonce, as fetch sends one)."""
    p = info["pki"]
    serial = info["ocsp"]["good_serial"]
    req, resp = os.path.join(tmp, "ocsp.req"), os.path.join(tmp, "ocsp.resp")
    r = subprocess.run(["openssl", "ocsp", "-issuer", p["intermediate"], "-serial",
                        "0x" + serial, "-url", "http://%s/" % info["ocsp"]["direct"],
                        "-CAfile", p["root"], "-reqout", req, "-respout", resp],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=30)
    if r.returncode != 0 or not os.path.exists(resp):
        raise ExperimentError("openssl ocsp against the world's responder failed: %s" %
                              r.stdout.decode(errors="replace").strip())
    return os.path.getsize(req), os.path.getsize(resp)


def revocation_rows(samples, status, info, exchange):
    """The revocation table's rows (REVOCATION_CSV_COLUMNS) from the latency samples."""
    f = info.get("revocation_filter") or {}
    rows = []
    for name, how in REVOCATION_ROWS:
        ms = samples.get(name) or []
        if not ms:
            rows.append({"strategy": name, "how": how,
                         "status": status.get(name, "not measured")})
            continue
        reqs = exp_common.summarize([m["ocsp_requests"] for m in ms])[0]
        revs = [m["revocation_ms"] for m in ms if m["revocation_ms"] is not None]
        sources = sorted(set(m["revocation_source"] for m in ms))
        rows.append({
            "strategy": name, "how": how, "revocation_source": "/".join(sources),
            "ocsp_requests_per_visit": reqs,
            "decision_ms_on_click": exp_common.summarize(revs)[0] if revs else "",
            "ocsp_bytes_per_visit": reqs * sum(exchange),
            "bytes_up_front": f.get("bytes", "") if name == "tls13_filter" else 0,
            "responder_learns": "nothing" if name == "tls13_filter" else
                                "the serial of every site visited, when",
            "status": "ok"})
    return rows


def row_origin(info, name):
    """The origin a latency row fetches: slow (slow_http for http), the world's h3 origin for
    the QUIC rows, bigchain for the large-chain rows; None when the world has none."""
    key = ("slow_http" if name == "http" else "bigchain" if name.startswith("bigchain")
           else "h3" if name.startswith("quic") else "slow")
    return info.get("origins", {}).get(key)


def latency(args, world, profiles_dir, counter, features, status):
    info = world.info
    slow = origin(info, "slow")
    configs = []
    for name in STRATEGIES + BIGCHAIN_STRATEGIES:
        o = row_origin(info, name)
        if o is None:
            if SELECTED is not None and name not in SELECTED:
                status[name] = "not measured (--strategies)"
                continue
            key = "bigchain" if name.startswith("bigchain") else "h3"
            status[name] = "unavailable: the world has no %s origin (skipped: %s)" % (
                key, info.get("skipped", {}).get(key, "?"))
            log("%s: %s" % (name, status[name]))
            continue
        flags, why = strategy_flags(name, slow if name == "http" else o, features)
        if flags is None:
            status[name] = why
            log("%s: %s" % (name, why))
            continue
        url = o["url"]
        if name == "quic_0rtt_small":
            small = (o.get("quic") or {}).get("small_resource")
            if not small:
                status[name] = "unavailable: world.json names no small resource on h3"
                continue
            url = o["url"].rstrip("/") + small["path"]
        configs.append((name, url, flags))
    samples = {c[0]: [] for c in configs}
    rows = []
    if not configs:
        return samples, rows
    log("latency: warm-up round (discarded)")
    for name, url, flags in list(configs):
        mine, cmd = run_one(args, world.json_path, profiles_dir, counter, name + " (warm-up)",
                            url, flags)
        try:
            measured_trace(name, mine, flags, cmd)
        except Unavailable as e:
            status[name] = str(e)
            log("%s: %s" % (name, e))
            configs.remove((name, url, flags))
            del samples[name]
        except ExperimentError as e:
            status[name] = failed_status(e)
            log("error: %s" % e)
            configs.remove((name, url, flags))
            del samples[name]
    if not configs:
        return samples, rows
    for run in range(args.runs):
        world.check_alive()
        k = run % len(configs)
        for pos, (name, url, flags) in enumerate(configs[k:] + configs[:k]):
            if name in status:
                continue
            try:
                before = ocsp_requests(info)
                mine, cmd = run_one(args, world.json_path, profiles_dir, counter, name, url,
                                    flags)
                requests = ocsp_requests(info) - before
                t = measured_trace(name, mine, flags, cmd)
            except ExperimentError as e:
                status[name] = failed_status(e)
                log("error: %s" % e)
                continue
            tls = t.get("tls") or {}
            cert = t.get("cert") or {}
            rev = cert.get("revocation") or {}
            m = {"responseEnd": rel(t, "responseEnd"), "responseStart": rel(t, "responseStart"),
                 "connectEnd": rel(t, "connectEnd"), "tls_version": tls.get("version", ""),
                 "resumed": tls.get("resumed", ""), "earlyData": tls.get("earlyData", ""),
                 "socketPreconnected": t.get("socketPreconnected", ""),
                 "snapStart": tls.get("snapStart", ""), "cert_source": cert.get("source", ""),
                 "revocation_source": rev.get("source", ""), "revocation_ms": rev.get("ms"),
                 "ocsp_requests": requests}
            samples[name].append(m)
            rows.append(dict(m, run=run + 1, strategy=name, order=pos + 1))
        log("latency run %d/%d: %s" % (run + 1, args.runs, "  ".join(
            "%s=%.0f" % (c[0], samples[c[0]][-1]["responseEnd"]) for c in configs
            if c[0] not in status)))
    for name in list(samples):
        if name in status:  # failed after the warm-up: no partial rows
            del samples[name]
    return samples, rows


class Relays:
    """One ByteRelay per origin, on 127.0.9.N with the origin's port."""

    def __init__(self, info, up_delay_s, extra_origins):
        self.by_key = {}
        n = 1
        origins = dict(info.get("origins", {}), **extra_origins)
        for key in [c[1] for c in CHAINS] + ["slow_http"]:
            o = origins.get(key)
            if not o:
                continue
            addr = RELAY_BASE + str(n)
            n += 1
            self.by_key[key] = (ByteRelay(addr, o["port"], direct_target(o),
                                          up_delay_s=up_delay_s), o)

    def resolve(self, key):
        relay, o = self.by_key[key]
        return ["--resolve", "%s:%d:%s" % (o["host"], o["port"], relay.address[0])]

    def stop(self):
        for relay, _ in self.by_key.values():
            relay.stop()


def bytes_measurements(args, world, relays, profiles_dir, counter, features, status):
    """[row dict] for every strategy x chain x compression."""
    out = []
    have_cc = features.get("--cert-compression")
    for name in STRATEGIES:
        if name in QUIC_STRATEGIES or name in TFO_STRATEGIES:
            why = ("n/a: QUIC runs over UDP, which the TCP byte relay does not carry"
                   if name in QUIC_STRATEGIES else
                   "n/a: TFO needs the origin's own listener (the relay takes no SYN data); "
                   "the bytes are snap_prefetched's")
            out += [{"strategy": name, "chain": chain, "compression": comp, "status": why}
                    for chain, _ in CHAINS for comp in COMPRESSIONS]
            continue
        for chain, key in CHAINS:
            if name == "http":
                key_eff = "slow_http"
            else:
                key_eff = key
            if key_eff not in relays.by_key:
                for comp in COMPRESSIONS:
                    out.append({"strategy": name, "chain": chain, "compression": comp,
                                "status": "unavailable: the world has no %s origin" % key_eff})
                continue
            relay, o = relays.by_key[key_eff]
            flags, why = strategy_flags(name, o, features)
            for comp in COMPRESSIONS:
                row = {"strategy": name, "chain": chain, "compression": comp}
                if name == "http" and chain != "rsa":
                    row["status"] = "n/a: plain HTTP sends no certificate"
                    out.append(row)
                    continue
                if flags is None:
                    row["status"] = why
                    out.append(row)
                    continue
                if status.get(name, "").startswith("FAILED"):
                    row["status"] = status[name]  # failed once: not tried again
                    out.append(row)
                    continue
                if name == "http" and comp != "off":
                    row["status"] = "n/a: plain HTTP sends no certificate"
                    out.append(row)
                    continue
                extra = []
                if have_cc:
                    extra = ["--cert-compression", comp]
                elif comp != "off":
                    row["status"] = missing_reason("--cert-compression")
                    out.append(row)
                    continue
                mark = relay.mark()
                label = "bytes %s/%s/%s" % (name, chain, comp)
                try:
                    mine, cmd = run_one(args, world.json_path, profiles_dir, counter, label,
                                        o["url"], flags + relays.resolve(key_eff) + extra)
                    t = measured_trace(name, mine, flags, cmd)
                    conns = [c for c in relay.since(mark) if c.down]
                    # The measured request's connection: the last one the server sent on
                    # (with --repeat 2 the first visit's connection came first).
                    off, note = response_offset(conns[-1], t) if conns else (None, "none")
                    if off is None:
                        raise ExperimentError(
                            "%s: the last connection at the relay did not carry the response "
                            "(%d connection(s): %s)\n  command: %s" % (
                                label, len(conns), "; ".join(
                                    response_offset(c, t)[1] for c in conns), cmd))
                except Unavailable as e:
                    row["status"] = str(e)
                    out.append(row)
                    continue
                except ExperimentError as e:
                    row["status"] = status[name] = failed_status(e)
                    log("error: %s" % e)
                    out.append(row)
                    continue
                c = conns[-1]
                tls = t.get("tls") or {}
                cc = tls.get("certCompression") or {}
                recs = [r for r in tls_records(bytes(c.down)) if r[0] < off]
                row.update({"bytes_before_response": off, "server_bytes_total": len(c.down),
                            "server_records": " ".join("%d:%d" % (r[1], r[2]) for r in recs),
                            "cert_algorithm": cc.get("algorithm", ""),
                            "cert_compressed_bytes": cc.get("compressedBytes", ""),
                            "cert_uncompressed_bytes": cc.get("uncompressedBytes", ""),
                            "tls_version": tls.get("version", "-"),
                            "resumed": tls.get("resumed", ""), "status": "ok", "note": note})
                out.append(row)
        log("bytes: %s done" % name)
    return out


def cost_measurements(args, world, relays, profiles_dir, counter, features, status):
    """Per strategy: what a link prefetched and not clicked, and one clicked, cost the `slow`
    origin (measured at its relay), and the page model."""
    slow_relay, slow = relays.by_key["slow"]
    http_relay, slow_http = relays.by_key["slow_http"]
    other = origin(world.info, "www_http")["url"]  # a page elsewhere: the unclicked case
    out = []
    for name in STRATEGIES + COST_VARIANTS:
        if name in QUIC_STRATEGIES or name in TFO_STRATEGIES:
            out.append({"strategy": name, "status": (
                "n/a: QUIC runs over UDP, which the TCP byte relay does not carry"
                if name in QUIC_STRATEGIES else
                "n/a: TFO needs the origin's own listener; the counts are snap_prefetched's")})
            continue
        relay, o = (http_relay, slow_http) if name == "http" else (slow_relay, slow)
        key = "slow_http" if name == "http" else "slow"
        flags, why = strategy_flags(name, o, features)
        if flags is None:
            out.append({"strategy": name, "status": why})
            continue
        if status.get(name, "").startswith("FAILED"):
            out.append({"strategy": name, "status": status[name]})
            continue
        extra = relays.resolve(key)
        if features.get("--cert-compression"):
            extra += ["--cert-compression", "off"]
        # Not clicked: the strategy's prefetch of the origin, then another origin's page.
        pf = []
        i = 0
        while i < len(flags):
            if flags[i] == "--repeat":
                i += 2
                continue
            pf.append(flags[i])
            i += 1
        try:
            mark = relay.mark()
            run_one(args, world.json_path, profiles_dir, counter, name + " (not clicked)",
                    other, pf + extra)
            unclicked = [classify(c) for c in relay.since(mark, settle_s=1.0)]
            unclicked_bytes = sum(len(c.down) for c in relay.since(mark, settle_s=0))
            # Clicked.
            mark = relay.mark()
            mine, cmd = run_one(args, world.json_path, profiles_dir, counter,
                                name + " (clicked)", o["url"], flags + extra)
            t = measured_trace(name, mine, flags, cmd)
        except Unavailable as e:
            out.append({"strategy": name, "status": str(e)})
            continue
        except ExperimentError as e:
            status[name] = failed_status(e)
            out.append({"strategy": name, "status": status[name]})
            log("error: %s" % e)
            continue
        conns = relay.since(mark, settle_s=1.0)
        tls = t.get("tls") or {}
        kinds = [classify(c, t) for c in conns]
        clicked_bytes = sum(len(c.down) for c in conns)
        if name == "tls13_0rtt":
            # --repeat 2: the first visit is the earlier visit; the click is the second only.
            kinds, conns = kinds[-1:], conns[-1:]
            clicked_bytes = len(conns[-1].down) if conns else 0

        def handshake_kind(k, is_click):
            if k in ("http", "opened"):
                return None
            if k == "truncated":
                return "truncated"
            if is_click:
                if tls.get("snapStart") == "accepted":
                    return "snap"
                if tls.get("resumed"):
                    return "resumed"
            return "full"

        page = {"connections": 0, "full": 0, "resumed": 0, "snap": 0, "truncated": 0,
                "other_requests": 0, "idle": 0, "bytes": 0}
        n_unclicked = args.links - 1
        if name == "tls13_preconnect":
            # At most --preconnect-total preconnects per page; the clicked link among them (the
            # best case), the other links get only their DNS prefetch.
            n_unclicked = min(args.links, args.preconnect_total) - 1
        for k in unclicked:
            page["connections"] += n_unclicked
            hk = handshake_kind(k, False)
            if hk:
                page[hk] += n_unclicked
            if k == "http":
                page["other_requests"] += n_unclicked
            if k == "handshake":
                page["idle"] += n_unclicked  # preconnected, never used
        page["bytes"] += n_unclicked * unclicked_bytes
        # The clicked link: its prefetch's connection, if any, is the one the request uses.
        for k in kinds:
            page["connections"] += 1
            hk = handshake_kind(k, True)
            if hk:
                page[hk] += 1
        page["bytes"] += clicked_bytes
        out.append({"strategy": name, "links": args.links, "connections": page["connections"],
                    "full_handshakes": page["full"], "resumed_handshakes": page["resumed"],
                    "snap_start_handshakes": page["snap"],
                    "truncated_handshakes": page["truncated"],
                    "other_requests": page["other_requests"],
                    "idle_connections": page["idle"],
                    "idle_connection_s": page["idle"] * args.preconnect_idle_s,
                    "server_bytes": page["bytes"],
                    "unclicked_link": "+".join(unclicked) or "nothing",
                    "clicked_link": "+".join(kinds) or "nothing", "status": "ok"})
        log("cost: %s not clicked %s, clicked %s" % (name, unclicked or "nothing", kinds))
    return out


# -- output -----------------------------------------------------------------------------------

COLORS = {"http": "#9e9e9e", "tls12_ocsp": "#4c78a8", "tls13_first": "#72b7b2",
          "tls13_filter": "#b279a2",
          "tls13_preconnect": "#f58518", "tls13_0rtt": "#e45756", "snap_prefetched": "#54a24b",
          "snap_prefetched_tfo": "#2d7d2a", "quic_first": "#eeca3b", "quic_0rtt": "#d08c00",
          "quic_0rtt_small": "#a86f00", "bigchain_tls13_first": "#72b7b2",
          "bigchain_quic_first": "#eeca3b", "bigchain_snap_prefetched": "#54a24b",
          "bigchain_snap_prefetched_tfo": "#2d7d2a"}


def round_trip_rows(samples, status, rtt_ms):
    """The QUIC table (issue 25 item 5): per row of EXPECTED_RTTS, the median click in round
    trips of the origin's link, the median revocation wait on the click (OCSP through its own
    link; the same policy on every row), the round trips without it, and what the row should
    cost. (row, runs, RTTs, revocation ms, RTTs net of revocation, expected, status)."""
    out = []
    for name, want in EXPECTED_RTTS.items():
        ms = samples.get(name) or []
        if not ms:
            out.append((name, 0, "-", "-", "-", want, status.get(name, "not measured")
                        .split(":")[0]))
            continue
        resp = exp_common.summarize([m["responseEnd"] for m in ms])[0]
        net = exp_common.summarize([m["responseEnd"] - (m["revocation_ms"] or 0.0)
                                    for m in ms])[0]
        rev = exp_common.summarize([m["revocation_ms"] or 0.0 for m in ms])[0]
        out.append((name, len(ms), "%.2f" % (resp / rtt_ms), "%.1f" % rev,
                    "%.2f" % (net / rtt_ms), want, "ok"))
    return out


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    features = fetch_features(args.fetch)
    log("fetch features: %s" % ", ".join("%s %s" % (k, "yes" if v else "NO")
                                         for k, v in features.items()))
    global SELECTED
    SELECTED = set(args.strategies)
    ts_args = testserver_args(args.testserver)
    log("test server flags: %s" % (" ".join(a.split("=", 1)[1] for a in ts_args) or "none"))
    base_tmp = os.environ.get("TEST_TMPDIR") or None
    world_dir = tempfile.mkdtemp(prefix="successors-world-", dir=base_tmp)
    profiles_dir = tempfile.mkdtemp(prefix="successors-profiles-", dir=base_tmp)
    world = exp_common.World(args.world, world_dir, [
        "--testserver", args.testserver, "--netem", args.netem, "--rtt-ms", str(args.rtt_ms),
        "--ocsp-rtt-ms", str(args.ocsp_rtt_ms), "--dns-rtt-ms", str(args.dns_rtt_ms),
        "--require-dns"] + ts_args, log)
    relays = None
    ecdsa_ts = None
    failed = True
    # The pair first, in its own world (entered and left before the main one starts).
    binding_rows, binding_text = [], ""
    if not args.no_binding:
        try:
            binding_rows, binding_text = binding_pair.run(args, log)
        except ExperimentError as e:
            log("OBC vs DBSC: %s" % e)
            binding_rows = [{"mechanism": "obc_dbsc", "measure": "all", "runs": 0,
                             "status": "FAILED: %s" % str(e).splitlines()[0]}]
            binding_text = "\nOBC vs DBSC: FAILED: %s\n" % str(e).splitlines()[0]
    discovery_rows, discovery_text = [], ""
    if not args.no_discovery:
        try:
            discovery_rows, discovery_text = discovery_pair.run(args, log)
        except ExperimentError as e:
            log("bundle vs HTTPS record + ECH: %s" % e)
            discovery_rows = [{"row": "all", "measure": "all", "runs": 0,
                               "status": "FAILED: %s" % str(e).splitlines()[0]}]
            discovery_text = "\nBundle prefetch vs HTTPS record + ECH: FAILED: %s\n" % (
                str(e).splitlines()[0])
    try:
        info = world.start()
        for key in ("slow", "slow_http", "www_http"):
            origin(info, key)
        if "snap_prefetched" in SELECTED and not (
                (info.get("bundles") or {}).get("origins", {}).get("slow")):
            raise ExperimentError("the world publishes no certificate bundle for slow "
                                  "(skipped: %s)" % info.get("skipped", {}).get("bundles", "?"))
        if not info.get("dns") or not info.get("ocsp"):
            raise ExperimentError("the world has no DNS server or OCSP responder (skipped: %s)"
                                  % info.get("skipped"))
        global NO_FILTER
        if not info.get("revocation_filter"):
            NO_FILTER = "skipped: %s" % info.get("skipped", {}).get("revocation_filter", "?")
        exchange = ocsp_message_bytes(info, profiles_dir)
        counter = [0]
        status = {}
        samples, runs = ({}, [])
        if not args.no_latency:
            samples, runs = latency(args, world, profiles_dir, counter, features, status)
        extra = {}
        ecdsa_ts = start_ecdsa_testserver(args, info, ts_args)
        if ecdsa_ts is not None:
            extra["ecdsa_ts"] = ecdsa_ts[1]
        relays = Relays(info, args.rtt_ms / 2000.0, extra)
        brows = bytes_measurements(args, world, relays, profiles_dir, counter, features,
                                   status)
        crows = cost_measurements(args, world, relays, profiles_dir, counter, features, status)
        world.check_alive()

        # -- report ---------------------------------------------------------------------------
        rep = io.StringIO()
        rep.write("successors: RTT %d ms to the origin (netem), OCSP %d ms, DNS %d ms (DNS "
                  "prefetched in every row); fresh profile per fetch; %d run(s), interleaved\n" % (
                      args.rtt_ms, args.ocsp_rtt_ms, args.dns_rtt_ms, args.runs))
        rep.write("fetch features: %s\n\n" % ", ".join(
            "%s %s" % (k, "yes" if v else "missing") for k, v in features.items()))
        summary = []
        table = []
        for name in STRATEGIES + BIGCHAIN_STRATEGIES:
            if name in samples and samples[name]:
                resp = [m["responseEnd"] for m in samples[name]]
                ttfb = [m["responseStart"] for m in samples[name]]
                med, lo, hi = exp_common.summarize(resp)
                summary.append({"strategy": name, "runs": len(resp), "median_ms": med,
                                "min_ms": lo, "max_ms": hi,
                                "median_ttfb_ms": exp_common.summarize(ttfb)[0],
                                "status": "ok"})
                revs = [m["revocation_ms"] for m in samples[name]
                        if m["revocation_ms"] is not None]
                table.append((name, len(resp), fmt_range(resp), "%.2f" % (med / args.rtt_ms),
                              fmt_range(ttfb),
                              "%.1f" % exp_common.summarize(revs)[0] if revs else "-", "ok"))
            else:
                why = status.get(name, "not measured (--no-latency)")
                summary.append({"strategy": name, "runs": 0, "status": why})
                table.append((name, 0, "-", "-", "-", "-", why.split(":")[0]))
        rep.write("Latency of a click, ms from the request's startTime: median [min-max]\n")
        exp_common.print_table(("strategy", "runs", "responseEnd", "RTTs", "responseStart",
                                "revocation ms", "status"), table, rep)

        bc = info.get("origins", {}).get("bigchain") or {}
        small = ((info.get("origins", {}).get("h3") or {}).get("quic") or {}).get(
            "small_resource") or {}
        rep.write("\nRound trips (issue 25 item 5): HTTP/3 over QUIC (the `h3` origin, Caddy; "
                  "bigchain's gtlsserver) beside TLS 1.3 and Snap Start over TCP (slow; "
                  "bigchain's testserver), the same link profile; `net` takes the click's "
                  "revocation wait (trace cert.revocation.ms) off. quic_0rtt fetches the "
                  "page (/), quic_0rtt_small %s (%s bytes). bigchain: a chain of %s bytes "
                  "(DER), QUIC's anti-amplification limit %s bytes\n" % (
                      small.get("path", "?"), small.get("bytes", "?"),
                      "+".join(str(x) for x in bc.get("chain_der_bytes", [])) or "?",
                      bc.get("amplification_limit_bytes", "?")))
        exp_common.print_table(("row", "runs", "RTTs", "revocation ms", "RTTs net",
                                "expected", "status"),
                               round_trip_rows(samples, status, args.rtt_ms), rep)

        rrows = revocation_rows(samples, status, info, exchange)
        rep.write("\nRevocation: OCSP (on the click, or prevalidated before it) against the "
                  "CRLite filter (issue 26). OCSP requests that reached the responder per visit "
                  "(median; the prevalidated row's before the click); one exchange is %d + %d "
                  "bytes (request + response DER, `openssl ocsp`); up front: the world's filter "
                  "file\n" % exchange)
        exp_common.print_table(
            ("strategy", "how", "source", "OCSP reqs/visit", "decision ms on click",
             "OCSP bytes/visit", "bytes up front", "responder learns"),
            [(r["strategy"], r["how"], r.get("revocation_source", "-"),
              r.get("ocsp_requests_per_visit", "-"),
              "%.2f" % r["decision_ms_on_click"]
              if isinstance(r.get("decision_ms_on_click"), float) else "-",
              r.get("ocsp_bytes_per_visit", "-"), r.get("bytes_up_front", "-"),
              r.get("responder_learns", r["status"].split(":")[0]))
             for r in rrows], rep)

        rep.write("\nBytes the server sent before the first response byte (counted at a relay "
                  "on the client side of the origin; Certificate message sizes from the trace's "
                  "tls.certCompression)\n")
        btable = []
        for name in STRATEGIES:
            for chain, _ in CHAINS:
                cells = []
                certs = ""
                for comp in COMPRESSIONS:
                    r = next(x for x in brows if x["strategy"] == name and x["chain"] == chain
                             and x["compression"] == comp)
                    if r.get("status") == "ok":
                        cells.append(str(r["bytes_before_response"]))
                        if comp != "off" and r.get("cert_compressed_bytes") not in ("", None):
                            certs += "%s %s->%s " % (r.get("cert_algorithm") or comp,
                                                     r.get("cert_uncompressed_bytes"),
                                                     r.get("cert_compressed_bytes"))
                    else:
                        cells.append(r["status"].split(":")[0].split(" (")[0])
                notes = sorted(set(x["status"] for x in brows if x["strategy"] == name
                                   and x["chain"] == chain and x.get("status") != "ok"
                                   and not x["status"].startswith("unavailable")
                                   and not x["status"].startswith("FAILED")))
                comp_rows = [x for x in brows if x["strategy"] == name and x["chain"] == chain
                             and x["compression"] != "off" and x.get("status") == "ok"]
                if comp_rows and not any(x.get("cert_algorithm") for x in comp_rows):
                    if name.startswith("snap"):
                        notes.append("no Certificate message (the client has the chain)")
                    elif any(x.get("tls_version") == "TLSv1.2" for x in comp_rows):
                        notes.append("no Certificate compression in TLS 1.2 (RFC 8879 is 1.3)")
                    elif any(x.get("resumed") for x in comp_rows):
                        notes.append("resumed: no Certificate message")
                    else:
                        notes.append("the server sent no CompressedCertificate")
                btable.append((name, chain) + tuple(cells) + (certs.strip() or "-",
                                                              "; ".join(notes) or "-"))
        exp_common.print_table(("strategy", "chain", "cc off", "cc zlib", "cc brotli",
                                "Certificate msg", "notes"), btable, rep)

        rep.write("\nServer cost per page of %d links, one clicked (model: (links-1) x a link "
                  "prefetched and not clicked + 1 x clicked, each link its own host; per-link "
                  "counts measured at the `slow` origin's relay; preconnect: at most %d per page, "
                  "the clicked link among them; an unused preconnected socket held %.0f s: "
                  "modelled)\n" % (args.links, args.preconnect_total, args.preconnect_idle_s))
        ctable = []
        for r in crows:
            if r.get("status") != "ok":
                ctable.append((r["strategy"],) + ("-",) * 9 + (r["status"].split(":")[0],))
                continue
            ctable.append((r["strategy"], r["connections"], r["full_handshakes"],
                           r["resumed_handshakes"], r["snap_start_handshakes"],
                           r["truncated_handshakes"], r["other_requests"],
                           "%d (%.0f s)" % (r["idle_connections"], r["idle_connection_s"]),
                           r["server_bytes"], r["unclicked_link"], r["clicked_link"]))
        exp_common.print_table(("strategy", "conns", "full hs", "resumed hs", "snap hs",
                                "truncated", "http", "idle conns", "server bytes",
                                "not clicked", "clicked"), ctable, rep)
        rep.write(binding_text)
        rep.write(discovery_text)
        unavailable = sorted(set(v for v in list(status.values()) +
                                 [r["status"] for r in brows + crows]
                                 if v and (v.startswith("unavailable") or
                                           v.startswith("FAILED"))))
        if unavailable:
            rep.write("\n" + "".join("%s\n" % u for u in unavailable))
        report = rep.getvalue()
        sys.stdout.write(report)

        if args.out:
            d = exp_common.out_dir(args.out)
            os.makedirs(d, exist_ok=True)
            fmt = lambda v: "%.3f" % v if isinstance(v, float) else v  # noqa: E731
            with open(os.path.join(d, "successors.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for s in summary:
                    w.writerow({k: fmt(v) for k, v in s.items()})
            with open(os.path.join(d, "successors_bytes.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=BYTES_CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for r in brows:
                    w.writerow(r)
            with open(os.path.join(d, "successors_cost.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=COST_CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for r in crows:
                    w.writerow({k: fmt(v) for k, v in r.items()})
            if binding_rows:
                with open(os.path.join(d, "successors_binding.csv"), "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=binding_pair.PAIR_CSV_COLUMNS,
                                       extrasaction="ignore")
                    w.writeheader()
                    for r in binding_rows:
                        w.writerow(r)
            if discovery_rows:
                with open(os.path.join(d, "successors_discovery.csv"), "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=discovery_pair.PAIR_CSV_COLUMNS,
                                       extrasaction="ignore")
                    w.writeheader()
                    for r in discovery_rows:
                        w.writerow(r)
            with open(os.path.join(d, "successors_runs.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=RUNS_CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for r in runs:
                    w.writerow({k: fmt(v) for k, v in r.items()})
            with open(os.path.join(d, "successors_revocation.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=REVOCATION_CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for r in rrows:
                    w.writerow({k: fmt(v) for k, v in r.items()})
            bars = []
            for s in summary:
                if s["status"] != "ok":
                    continue
                b = next((x for x in brows if x["strategy"] == s["strategy"]
                          and x["chain"] == "rsa" and x["compression"] == "off"
                          and x.get("status") == "ok"), None)
                bb = next((x for x in brows if x["strategy"] == s["strategy"]
                           and x["chain"] == "rsa" and x["compression"] == "brotli"
                           and x.get("status") == "ok"), None)
                ann = "%.1f ms" % s["median_ms"]
                if b:
                    ann += ", %s B" % b["bytes_before_response"]
                    if bb and bb["bytes_before_response"] != b["bytes_before_response"]:
                        ann += " (brotli %s B)" % bb["bytes_before_response"]
                bars.append({"label": s["strategy"], "value": s["median_ms"],
                             "lo": s["min_ms"], "hi": s["max_ms"],
                             "color": COLORS.get(s["strategy"], "#4c78a8"), "annotation": ann})
            notes = ["Click latency (responseEnd) through netem; whiskers min-max. B: bytes the RSA "
                     "origin (slow) sent before the first",
                     "response byte, certificate compression off (with brotli in brackets where "
                     "it differs)."]
            notes += ["%s: %s (reason in successors.txt)" % (n, status[n].split(":")[0])
                      for n in STRATEGIES if n in status]
            if bars:
                svg = exp_common.bar_chart_svg(
                    "Click latency: the 2010 mechanisms and their successors (median of %d)"
                    % args.runs,
                    "RTT %d ms, OCSP %d ms, DNS %d ms (prefetched); fresh profile per fetch" % (
                        args.rtt_ms, args.ocsp_rtt_ms, args.dns_rtt_ms),
                    "ms from the request's startTime", bars, notes, right_w=230)
                with open(os.path.join(d, "successors.svg"), "w") as f:
                    f.write(svg)
            with open(os.path.join(d, "successors.txt"), "w") as f:
                f.write(report)
            print("wrote %s/successors{.csv,_bytes.csv,_cost.csv,_runs.csv,_revocation.csv,"
                  "_binding.csv,_discovery.csv,.svg,.txt}" % d)
        sys.stdout.flush()
        row_failures = sorted(set(v for v in list(status.values()) +
                                  [r.get("status", "") for r in brows + crows +
                                   binding_rows + discovery_rows]
                                  if v.startswith("FAILED")))
        if row_failures:
            log("%d kind(s) of row failed (exit 1):\n  %s" % (len(row_failures),
                                                            "\n  ".join(row_failures)))
            return 1
        failed = False
        return 0
    except ExperimentError as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        if relays is not None:
            relays.stop()
        if ecdsa_ts is not None:
            ecdsa_ts[0].terminate()
            try:
                ecdsa_ts[0].wait(timeout=10)
            except subprocess.TimeoutExpired:
                ecdsa_ts[0].kill()
        world.tear_down(keep=failed or args.keep_world, scratch_dirs=[profiles_dir])


if __name__ == "__main__":
    sys.exit(main())
