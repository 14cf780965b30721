#!/usr/bin/env python3
"""Belshe's argument for SPDY, measured (issue 13 item 8): one pooled connection against six per
host.

    spdy_page_load.py --fetch BIN --testserver BIN --netem BIN --pki BIN
                      [--runs 10] [--out DIR] [--rtt-ms 100] [--rates-kbps 2000,10000]
                      [--resources 40] [--max-conns-per-host 6] [--modes LIST]

(Normally `bazel run -c opt //tools/experiments:spdy_page_load -- [--runs N] [--out DIR]`; the
launcher (run_experiment.sh) fills in the binaries from the runfiles.)

The page: --resources small resources (1-5 KB, 3 KB on average, the same sizes in every mode),
half on a.pages.example.test and half on b.pages.example.test. Both names resolve to one address
and are covered by one wildcard certificate (*.pages.example.test, RSA-2048, from the world's
PKI: tools/world/pki.py). All resources are requested at once (`fetch -Z`), as a browser does
once it has parsed the page; the document itself is not part of the measurement.

The path: fetch, run behind `netem shell` (a packet-level link: --rtt-ms, and each rate of
--rates-kbps in turn, each way, an unlimited queue shared by all connections; the kernel's own
SYN, slow start and queueing) -> a byte-counting relay (Python, in this process; byte_relay.py's ByteRelay) -> one
test server (`testserver --spdy`: SPDY/3 or HTTP/1.1 by ALPN). TLS 1.2, as in 2010, so the
server's Certificate message is in the clear at the relay; revocation checking off (no OCSP on
the path: the comparison is about connections).

Modes, each a fresh fetch process with an empty session cache:

  http1             HTTP/1.1, at most --max-conns-per-host connections per host (Chromium's 6),
                    handshakes coalesced (the first connection to a host makes the full
                    handshake, the others wait and resume its session: `fetch
                    --coalesce-handshakes`, opt-in since it was measured here to cost time)
  http1_no_coalesce the same without coalescing, fetch's default: every connection makes a
                    full handshake and receives the certificate chain (`--no-coalesce`)
  spdy              SPDY/3 (`fetch --spdy`): one connection; the second host is IP-pooled onto
                    it (same address, the certificate covers it)

Measured per run: page load time (the last responseEnd minus the first startTime, from the
trace), and at the relay: TCP connections, TLS handshakes (full: the server sent a Certificate;
resumed: a ServerHello without one), certificate bytes received (the Certificate handshake
messages, headers included) and all bytes each way. Runs are interleaved (the order rotates) after
one discarded warm-up round. Every fetch is checked against what its mode claims (ALPN, one
session for SPDY, the per-host limit for HTTP/1.1, every body complete); a mode that does not
hold is reported FAILED and the experiment exits 1.

Output: the table; with --out DIR: spdy_page_load.csv
(`rate_kbps,mode,runs,median_ms,min_ms,max_ms,tcp_connections,tls_full_handshakes,tls_resumed_handshakes,
certificate_bytes,server_bytes,client_bytes,status`), spdy_page_load_runs.csv,
spdy_page_load.svg, spdy_page_load.txt.

Python 3, standard library only.
"""

import argparse
import io
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from byte_relay import ByteRelay, tls_records  # noqa: E402
import exp_common  # noqa: E402
from exp_common import ExperimentError, fmt_range  # noqa: E402

# h2: HTTP/2 against the same test server binary and routes as SPDY (a second instance with
# --http2), fetch's default ALPN: the second host coalesced onto the first's session.
MODES = ["http1", "http1_no_coalesce", "spdy", "h2"]
# The connection waiting policy with h2 offered (issue 24 item 7; opt-in with --modes): against
# the HTTP/1.1 test server (http1_h2wait: fetch's default, requests wait for the first
# connection's ALPN; http1_h2parallel: --connect-wait known, Chromium's) and against nginx
# speaking h2 (nginx_h2: the default; nginx_h2_parallel: --connect-wait known, first contact).
WAIT_MODES = ["http1_h2wait", "http1_h2parallel", "nginx_h2", "nginx_h2_parallel"]
ALL_MODES = MODES + WAIT_MODES
H2_MODES = ("h2", "nginx_h2", "nginx_h2_parallel")
NGINX_MODES = ("nginx_h2", "nginx_h2_parallel")
HOSTS = ["a.pages.example.test", "b.pages.example.test"]
WILDCARD_DIR = "wildcard.example.test"  # tools/world/pki.py HOSTS["wildcard"]
SERVER_ADDRESS = "127.0.9.42"
# Resource i's size: 1-5 KB, 3 KB on average over every 5 resources.
SIZES = [1024, 4096, 2048, 5120, 3072]

CSV_COLUMNS = ["rate_kbps", "mode", "runs", "median_ms", "min_ms", "max_ms", "tcp_connections",
               "tls_full_handshakes", "tls_resumed_handshakes", "certificate_bytes",
               "server_bytes", "client_bytes", "status"]
RUNS_CSV_COLUMNS = ["rate_kbps", "run", "mode", "order", "page_load_ms", "tcp_connections",
                    "tls_full_handshakes", "tls_resumed_handshakes", "certificate_bytes",
                    "server_bytes", "client_bytes", "sessions"]
COLORS = {"http1": "#4c78a8", "http1_no_coalesce": "#9e9e9e", "spdy": "#54a24b",
          "http1_h2wait": "#e45756", "http1_h2parallel": "#f58518", "nginx_h2": "#72b7b2",
          "nginx_h2_parallel": "#b279a2", "h2": "#4c9f70"}
LABELS = {"http1": "HTTP/1.1, 6 conns/host, coalesced (opt-in)",
          "http1_no_coalesce": "HTTP/1.1, 6 conns/host, no coalescing (default)",
          "spdy": "SPDY/3, one pooled connection",
          "http1_h2wait": "HTTP/1.1 server, h2 offered, requests wait (default)",
          "http1_h2parallel": "HTTP/1.1 server, h2 offered, --connect-wait known",
          "h2": "HTTP/2, one connection, the second host coalesced",
          "nginx_h2": "nginx h2, requests wait (default)",
          "nginx_h2_parallel": "nginx h2, --connect-wait known, first contact"}


def log(msg):
    sys.stderr.write("spdy_page_load: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Page load over HTTP/1.1 (6 connections per host) and SPDY/3 (one pooled "
                    "connection) through netem: time, connections, TLS handshakes, "
                    "certificate bytes (see tools/experiments/README.md).")
    ap.add_argument("--runs", type=int, default=10, help="runs per mode (default 10)")
    ap.add_argument("--out", metavar="DIR", help="write the CSVs, SVG and report to DIR (a "
                    "relative DIR is taken from $BUILD_WORKSPACE_DIRECTORY under `bazel run`)")
    ap.add_argument("--rtt-ms", type=int, default=100, help="round trip netem adds (default 100)")
    ap.add_argument("--rates-kbps", default="2000,10000",
                    help="netem's bandwidth each way, shared by all connections: one "
                         "measurement per rate (default 2000,10000; 0 = no limit)")
    ap.add_argument("--resources", type=int, default=40,
                    help="resources on the page, half per host (default 40)")
    ap.add_argument("--max-conns-per-host", type=int, default=6,
                    help="HTTP/1.1 connections per host (default 6, Chromium's)")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="comma-separated subset of %s (default: the first three; the others "
                         "measure the connection waiting policy, h2 ones with nginx)"
                         % ",".join(ALL_MODES))
    ap.add_argument("--keep-dir", action="store_true", help="keep the PKI and logs")
    ap.add_argument("--fetch", required=True, help="fetch binary")
    ap.add_argument("--testserver", required=True, help="testserver binary")
    ap.add_argument("--netem", required=True, help="netem binary")
    ap.add_argument("--pki", required=True, help="the //tools/world:pki launcher")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.resources < 2:
        ap.error("--resources must be at least 2")
    try:
        args.rates_kbps = [int(x) for x in args.rates_kbps.split(",") if x.strip()]
    except ValueError:
        ap.error("--rates-kbps: expected numbers such as 2000,10000")
    if args.rtt_ms < 0 or not args.rates_kbps or min(args.rates_kbps) < 0:
        ap.error("--rtt-ms and --rates-kbps must not be negative")
    if args.max_conns_per_host < 1:
        ap.error("--max-conns-per-host must be at least 1")
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in args.modes:
        if m not in ALL_MODES:
            ap.error("unknown mode %r (known: %s)" % (m, ", ".join(ALL_MODES)))
    exp_common.check_executable(ap, args, ("fetch", "testserver", "netem", "pki"))
    return args


# -- peers ------------------------------------------------------------------------------------

class Peer:
    """A child process that prints "listening ... ADDR:PORT" lines and "ready"; stopped by PID."""

    def __init__(self, name, argv, log_path):
        self.name = name
        self.listening = []
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log)
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").strip()
            if line.startswith("listening "):
                self.listening.append(line)
            if line == "ready":
                break
        else:
            rc = self.proc.wait()
            raise ExperimentError("%s did not start (exit code %s; log %s): %s" % (
                name, rc, log_path, " ".join(argv)))
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def port(self, prefix):
        for line in self.listening:
            if line.startswith(prefix):
                return int(line.split(" -> ")[0].rsplit(":", 1)[1])
        raise ExperimentError("%s: no %r listener in %r" % (self.name, prefix, self.listening))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class NginxH2:
    """nginx (Debian's, 1.22) speaking h2 and HTTP/1.1 over TLS on SERVER_ADDRESS with the
    wildcard certificate, serving the page's /size/N files (bodies of N bytes; the query string
    is ignored), for the h2 modes. Stopped by PID."""

    def __init__(self, work, leaf, resources):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(nginx, os.X_OK):
            raise ExperimentError("the h2 modes need nginx (tools/setup.sh installs it)")
        d = os.path.join(work, "nginx")
        root = os.path.join(d, "root")
        os.makedirs(os.path.join(root, "size"), exist_ok=True)
        os.makedirs(os.path.join(d, "logs"), exist_ok=True)
        for n in set(SIZES):
            with open(os.path.join(root, "size", str(n)), "wb") as f:
                f.write(b"x" * n)
        for dirpath, dirs, files in os.walk(d):
            os.chmod(dirpath, 0o755)
            for name in files:
                os.chmod(os.path.join(dirpath, name), 0o644)
        self.port = _free_port(SERVER_ADDRESS)
        conf = os.path.join(d, "nginx.conf")
        with open(conf, "w") as f:
            f.write("""%(user)s
daemon off;
master_process on;
worker_processes 1;
pid %(d)s/nginx.pid;
error_log %(d)s/logs/error.log warn;
events { worker_connections 1024; }
http {
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path %(d)s/cb;
    proxy_temp_path %(d)s/px;
    fastcgi_temp_path %(d)s/fc;
    uwsgi_temp_path %(d)s/uw;
    scgi_temp_path %(d)s/sc;
    server {
        listen %(addr)s:%(port)d ssl http2;
        server_name %(names)s;
        ssl_certificate %(chain)s;
        ssl_certificate_key %(key)s;
        ssl_session_cache off;
        ssl_session_tickets off;
        root %(root)s;
    }
}
""" % {"user": "user root root;" if os.geteuid() == 0 else "", "d": d, "addr": SERVER_ADDRESS,
       "port": self.port, "names": " ".join(HOSTS), "chain": os.path.join(leaf, "chain.pem"),
       "key": os.path.join(leaf, "key.pem"), "root": root})
        self.log = open(os.path.join(d, "nginx.out"), "wb")
        self.proc = subprocess.Popen([nginx, "-p", d + "/", "-c", conf, "-e",
                                      os.path.join(d, "logs", "error.log")],
                                     stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        for _ in range(200):
            if self.proc.poll() is not None:
                raise ExperimentError("nginx did not start (see %s)" % d)
            try:
                socket.create_connection((SERVER_ADDRESS, self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.025)
        raise ExperimentError("nginx did not listen on %s:%d" % (SERVER_ADDRESS, self.port))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _free_port(addr):
    s = socket.socket()
    s.bind((addr, 0))
    port = s.getsockname()[1]
    s.close()
    return port


# -- what the relay saw -----------------------------------------------------------------------

def server_handshake(down):
    """The server's TLS 1.2 handshake in a connection's server->client bytes: (handshake message
    types in order, bytes of Certificate messages with their 4-byte headers). Handshake records
    up to the server's ChangeCipherSpec are in the clear."""
    payload = bytearray()
    for off, rtype, n in tls_records(down):
        if rtype == 20:  # ChangeCipherSpec: what follows is encrypted
            break
        if rtype == 22:
            payload += down[off + 5:off + 5 + n]
    types, cert_bytes, i = [], 0, 0
    while i + 4 <= len(payload):
        mtype = payload[i]
        length = int.from_bytes(payload[i + 1:i + 4], "big")
        types.append(mtype)
        if mtype == 11:
            cert_bytes += 4 + length
        i += 4 + length
    return types, cert_bytes


def relay_counts(conns):
    """Connections, full and resumed handshakes, certificate bytes and bytes each way."""
    out = {"tcp_connections": len(conns), "tls_full_handshakes": 0, "tls_resumed_handshakes": 0,
           "certificate_bytes": 0, "server_bytes": 0, "client_bytes": 0}
    for c in conns:
        down = bytes(c.down)
        out["server_bytes"] += len(down)
        out["client_bytes"] += len(c.up)
        types, cert_bytes = server_handshake(down)
        if 2 not in types:  # no ServerHello: no handshake on this connection
            continue
        if 11 in types:
            out["tls_full_handshakes"] += 1
        else:
            out["tls_resumed_handshakes"] += 1
        out["certificate_bytes"] += cert_bytes
    return out


# -- one page load ----------------------------------------------------------------------------

def rate_label(rate):
    return "%d kbit/s" % rate if rate else "unlimited"


def page_urls(port, n):
    urls = []
    for i in range(n):
        host = HOSTS[i % 2]
        urls.append(("https://%s:%d/size/%d?r=%d" % (host, port, SIZES[i % len(SIZES)], i),
                     SIZES[i % len(SIZES)]))
    return urls


def mode_flags(mode):
    # HTTP/1.1 only (--http1.1): with h2 offered, parallel requests wait for the
    # first connection's ALPN, which is the coalescing wait again.
    if mode == "http1":
        return ["--coalesce-handshakes", "--http1.1"]  # opt-in since issue 22
    if mode == "http1_no_coalesce":
        return ["--no-coalesce", "--http1.1"]
    if mode == "spdy":
        return ["--spdy"]
    # h2 offered (fetch's default ALPN), the two waiting policies.
    if mode in ("http1_h2wait", "h2", "nginx_h2"):
        return ["--no-coalesce", "--connect-wait", "always"]
    if mode in ("http1_h2parallel", "nginx_h2_parallel"):
        return ["--no-coalesce", "--connect-wait", "known"]
    raise ValueError(mode)


def check(mode, traces, urls, counts, max_conns):
    """Problems with one page load against what its mode claims."""
    p = []
    by_name = {t.get("name"): t for t in traces}
    if len(traces) != len(urls) or set(by_name) != set(u for u, _ in urls):
        p.append("%d traces for %d resources" % (len(traces), len(urls)))
    for url, size in urls:
        t = by_name.get(url)
        if t is None:
            continue
        if t.get("status") != 200 or t.get("error") != "OK" or t.get("encodedBodySize") != size:
            p.append("%s: status %s, error %s, %s of %d body bytes" % (
                url, t.get("status"), t.get("error"), t.get("encodedBodySize"), size))
            break
    alpns = set((t.get("tls") or {}).get("alpn") for t in traces)
    versions = set((t.get("tls") or {}).get("version") for t in traces)
    if versions != {"TLSv1.2"}:
        p.append("TLS versions %s, expected TLSv1.2" % sorted(map(str, versions)))
    if mode == "spdy":
        if alpns != {"spdy/3"}:
            p.append("ALPN %s, expected spdy/3" % sorted(map(str, alpns)))
        sessions = set((t.get("spdy") or {}).get("sessionId") for t in traces)
        if len(sessions) != 1:
            p.append("%d SPDY sessions, expected one" % len(sessions))
        pooled = [t for t in traces if (t.get("spdy") or {}).get("session") == "pooled"]
        if not pooled:
            p.append("no request was pooled onto the other host's session")
        if counts["tcp_connections"] != 1:
            p.append("%d TCP connections at the relay, expected 1" % counts["tcp_connections"])
    elif mode in H2_MODES:
        if alpns != {"h2"}:
            p.append("ALPN %s, expected h2" % sorted(map(str, alpns)))
        if not any((t.get("h2") or {}).get("coalesced") for t in traces):
            p.append("no request was coalesced onto the other host's session")
        if mode in ("h2", "nginx_h2") and counts["tcp_connections"] != 1:
            p.append("%d TCP connections at the relay, expected 1" % counts["tcp_connections"])
        if counts["tcp_connections"] > max_conns * len(HOSTS):
            p.append("%d TCP connections, more than %d per host" % (counts["tcp_connections"],
                                                                   max_conns))
    else:
        if alpns != {"http/1.1"}:
            p.append("ALPN %s, expected http/1.1" % sorted(map(str, alpns)))
        limit = max_conns * len(HOSTS)
        if counts["tcp_connections"] > limit:
            p.append("%d TCP connections, more than %d per host" % (counts["tcp_connections"],
                                                                   max_conns))
        reused = sum(1 for t in traces if t.get("socketReused"))
        if reused + counts["tcp_connections"] != len(traces):
            p.append("%d requests on reused connections + %d connections != %d requests" % (
                reused, counts["tcp_connections"], len(traces)))
    hs = counts["tls_full_handshakes"] + counts["tls_resumed_handshakes"]
    if hs != counts["tcp_connections"]:
        p.append("%d TLS handshakes on %d connections" % (hs, counts["tcp_connections"]))
    if mode == "http1_no_coalesce" and counts["tls_resumed_handshakes"]:
        p.append("%d resumed handshakes without coalescing" % counts["tls_resumed_handshakes"])
    return p


def load_page(args, relay, mode, urls, relay_port, trust_anchor, rate):
    """One page load of |mode| through |relay| (listening on |relay_port|)."""
    mark = relay.mark()
    tail = ["--trust-anchor", trust_anchor, "--tls-max", "1.2", "--revocation", "off",
            "--max-time", "60", "-Z", "--max-conns-per-host", str(args.max_conns_per_host)]
    tail += mode_flags(mode)
    for _ in urls:
        tail += ["-o", "/dev/null"]
    tail += [u for u, _ in urls]
    # fetch runs behind a packet-level link: the kernel's SYNs, slow start and the rate's
    # queue are the link's, shared by all of its connections.
    link = ["--rtt-ms", str(args.rtt_ms)]
    if rate:
        link += ["--rate-mbps", "%g" % (rate / 1000.0)]
    prefix = exp_common.netem_shell_prefix(args.netem, link, HOSTS, relay_port)
    traces, _, _, cmd = exp_common.run_fetch(args.fetch, tail, mode, prefix=prefix)
    # fetch has exited: every connection is closed; let the relay's pumps finish.
    conns = relay.since(mark, settle_s=5.0)
    counts = relay_counts(conns)
    problems = check(mode, traces, urls, counts, args.max_conns_per_host)
    if problems:
        raise ExperimentError("%s: %s\n  command: %s" % (mode, "; ".join(problems[:4]), cmd))
    start = min(t["startTime"] for t in traces)
    end = max(t["startTime"] + t["responseEnd"] for t in traces)
    sessions = len(set((t.get("spdy") or t.get("h2") or {}).get("sessionId") for t in traces
                       if t.get("spdy") or t.get("h2")))
    return dict(counts, page_load_ms=end - start, sessions=sessions)


# -- main -------------------------------------------------------------------------------------

def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # The server and the byte-counting relay live in a namespace of this experiment's own;
    # each page load's fetch runs behind `netem shell` (the packet-level link) from it.
    exp_common.enter_private_namespace(log)
    base_tmp = os.environ.get("TEST_TMPDIR") or None
    work = tempfile.mkdtemp(prefix="spdy-page-load-", dir=base_tmp)
    peers = []
    relay = None
    extra_relays = []
    failed = True
    try:
        pki_dir = os.path.join(work, "pki")
        log("building the PKI in %s" % pki_dir)
        r = subprocess.run([args.pki, "--dir", pki_dir, "--quiet"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise ExperimentError("the PKI was not built: %s" % r.stdout.decode(errors="replace"))
        leaf = os.path.join(pki_dir, WILDCARD_DIR)
        if not os.path.isfile(os.path.join(leaf, "chain.pem")):
            raise ExperimentError("the PKI has no %s leaf (tools/world/pki.py HOSTS['wildcard'])"
                                  % WILDCARD_DIR)
        server = Peer("testserver", [
            args.testserver, "--listen", SERVER_ADDRESS + ":0",
            "--cert-chain", os.path.join(leaf, "chain.pem"),
            "--key", os.path.join(leaf, "key.pem"), "--spdy", "--quiet",
            "--log", os.path.join(work, "testserver.log")], os.path.join(work, "testserver.err"))
        peers.append(server)
        server_port = server.port("listening https")
        # On every address: fetch reaches it from behind netem shell's link.
        relay = ByteRelay("0.0.0.0", 0, (SERVER_ADDRESS, server_port), up_delay_s=0)
        relay_port = relay.sock.getsockname()[1]
        relays = {m: (relay, relay_port) for m in args.modes}
        if "h2" in args.modes:
            # The same test server speaking h2 (a second instance: the HTTP/1.1 modes that
            # offer h2 need a server that does not).
            h2_server = Peer("testserver-h2", [
                args.testserver, "--listen", SERVER_ADDRESS + ":0",
                "--cert-chain", os.path.join(leaf, "chain.pem"),
                "--key", os.path.join(leaf, "key.pem"), "--http2", "--quiet",
                "--log", os.path.join(work, "testserver-h2.log")],
                os.path.join(work, "testserver-h2.err"))
            peers.append(h2_server)
            ts_h2_relay = ByteRelay("0.0.0.0", 0,
                                    (SERVER_ADDRESS, h2_server.port("listening https")),
                                    up_delay_s=0)
            extra_relays.append(ts_h2_relay)
            relays["h2"] = (ts_h2_relay, ts_h2_relay.sock.getsockname()[1])
        if any(m in NGINX_MODES for m in args.modes):
            nginx = NginxH2(work, leaf, args.resources)
            peers.append(nginx)
            h2_relay = ByteRelay("0.0.0.0", 0, (SERVER_ADDRESS, nginx.port), up_delay_s=0)
            extra_relays.append(h2_relay)
            for m in NGINX_MODES:
                relays[m] = (h2_relay, h2_relay.sock.getsockname()[1])
        trust = os.path.join(pki_dir, "root.pem")
        samples, runs, status = {}, [], {}
        page_bytes = 0
        for rate in args.rates_kbps:
            urls = page_urls(relay_port, args.resources)
            page_bytes = sum(s for _, s in urls)
            log("page: %d resources, %d body bytes, on %s (one address, a *.pages.example.test "
                "certificate); RTT %d ms, %s" % (len(urls), page_bytes, " and ".join(HOSTS),
                                                 args.rtt_ms, rate_label(rate)))
            for run in range(args.runs + 1):  # round 0: warm-up, discarded
                k = run % len(args.modes)
                order = args.modes[k:] + args.modes[:k]
                for i, mode in enumerate(order):
                    if (rate, mode) in status:
                        continue
                    try:
                        mode_relay, mode_port = relays[mode]
                        m = load_page(args, mode_relay, mode, page_urls(mode_port,
                                                                         args.resources),
                                      mode_port, trust, rate)
                    except ExperimentError as e:
                        status[(rate, mode)] = "FAILED: %s" % str(e).splitlines()[0]
                        log("%s\n  (the other modes go on)" % e)
                        continue
                    if run == 0:
                        continue
                    samples.setdefault((rate, mode), []).append(m)
                    runs.append(dict(m, rate_kbps=rate, run=run, mode=mode, order=i))
                log("%s: run %d/%d done" % (rate_label(rate), run, args.runs) if run
                    else "%s: warm-up done" % rate_label(rate))

        # -- report -----------------------------------------------------------------------------
        summary, table = [], []
        for rate in args.rates_kbps:
            for mode in args.modes:
                s = samples.get((rate, mode))
                if (rate, mode) in status or not s:
                    why = status.get((rate, mode), "no runs")
                    summary.append({"rate_kbps": rate, "mode": mode, "runs": 0, "status": why})
                    table.append((rate_label(rate), mode, 0, "-", "-", "-", "-", "-",
                                  why.split(":")[0]))
                    continue
                plt = [x["page_load_ms"] for x in s]
                med, lo, hi = exp_common.summarize(plt)
                row = {"rate_kbps": rate, "mode": mode, "runs": len(s), "median_ms": med,
                       "min_ms": lo, "max_ms": hi, "status": "ok"}
                for k in ("tcp_connections", "tls_full_handshakes", "tls_resumed_handshakes",
                          "certificate_bytes", "server_bytes", "client_bytes"):
                    row[k] = statistics.median([x[k] for x in s])
                summary.append(row)
                table.append((rate_label(rate), mode, len(s), fmt_range(plt),
                              "%.2f" % (med / args.rtt_ms) if args.rtt_ms else "-",
                              "%g" % row["tcp_connections"],
                              "%g + %g" % (row["tls_full_handshakes"],
                                           row["tls_resumed_handshakes"]),
                              "%g" % row["certificate_bytes"], "ok"))
        rep = io.StringIO()
        rep.write("spdy_page_load: %d resources (%d body bytes) on 2 hosts, one address, one "
                  "wildcard certificate; RTT %d ms (netem shell: packets, the kernel's SYN and slow start; "
                  "rates each way); TLS 1.2; HTTP/1.1 at "
                  "most %d connections per host; fresh fetch process per load; %d run(s), "
                  "interleaved\n" % (args.resources, page_bytes, args.rtt_ms,
                                     args.max_conns_per_host, args.runs))
        rep.write("Page load: ms from the first request's start to the last response's end, "
                  "median [min-max]; counts at the relay (medians)\n")
        exp_common.print_table(("rate", "mode", "runs", "page load ms", "RTTs", "TCP conns",
                                "TLS full + resumed", "cert bytes", "status"), table, rep)
        ok = {(r["rate_kbps"], r["mode"]): r for r in summary if r["status"] == "ok"}
        for rate in args.rates_kbps:
            for mux in ("spdy", "h2"):
                m = ok.get((rate, mux))
                for other in ("http1", "http1_no_coalesce"):
                    o = ok.get((rate, other))
                    if m and o:
                        rep.write("%s, %s / %s: page load %.2fx, %g vs %g connections, "
                                  "certificate bytes %g vs %g\n" % (
                                      rate_label(rate), other, mux,
                                      o["median_ms"] / m["median_ms"], o["tcp_connections"],
                                      m["tcp_connections"], o["certificate_bytes"],
                                      m["certificate_bytes"]))
            spdy, h2 = ok.get((rate, "spdy")), ok.get((rate, "h2"))
            if spdy and h2:
                rep.write("%s, h2 / spdy: page load %.2fx\n" % (
                    rate_label(rate), h2["median_ms"] / spdy["median_ms"]))
        for (rate, mode), why in sorted(status.items()):
            rep.write("%s %s: %s\n" % (rate_label(rate), mode, why))
        report = rep.getvalue()
        sys.stdout.write(report)

        if args.out:
            d = exp_common.out_dir(args.out)
            os.makedirs(d, exist_ok=True)
            exp_common.write_csv(os.path.join(d, "spdy_page_load.csv"), CSV_COLUMNS, summary)
            exp_common.write_csv(os.path.join(d, "spdy_page_load_runs.csv"), RUNS_CSV_COLUMNS,
                                 runs)
            bars = []
            for r in summary:
                if r["status"] != "ok":
                    continue
                bars.append({"label": "%s, %s" % (LABELS[r["mode"]], rate_label(r["rate_kbps"])),
                             "value": r["median_ms"], "lo": r["min_ms"], "hi": r["max_ms"],
                             "color": COLORS[r["mode"]],
                             "annotation": "%.0f ms; %g conns, %g full + %g resumed TLS, "
                                           "%g cert B" % (
                                               r["median_ms"], r["tcp_connections"],
                                               r["tls_full_handshakes"],
                                               r["tls_resumed_handshakes"],
                                               r["certificate_bytes"])})
            if bars:
                svg = exp_common.bar_chart_svg(
                    "Page load: HTTP/1.1 vs SPDY/3 (median of %d)" % args.runs,
                    "%d resources (%.0f KB) on 2 hosts sharing an address and a wildcard "
                    "certificate; RTT %d ms; TLS 1.2" % (
                        args.resources, page_bytes / 1024.0, args.rtt_ms),
                    "ms from the first request to the last response byte", bars,
                    ["Whiskers min-max. Counts at a relay in front of the server: TCP "
                     "connections, TLS handshakes,",
                     "bytes of the server's Certificate messages."], right_w=330)
                with open(os.path.join(d, "spdy_page_load.svg"), "w") as f:
                    f.write(svg)
            with open(os.path.join(d, "spdy_page_load.txt"), "w") as f:
                f.write(report)
            print("wrote %s/spdy_page_load{.csv,_runs.csv,.svg,.txt}" % d)
        sys.stdout.flush()
        if status:
            log("%d mode(s) failed (exit 1)" % len(status))
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
        if relay is not None:
            relay.stop()
        for r in extra_relays:
            r.stop()
        for p in reversed(peers):
            p.stop()
        if failed or args.keep_dir:
            log("directory kept for inspection: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
