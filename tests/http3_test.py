#!/usr/bin/env python3
"""HTTP/3 over QUIC end to end (issue 25): `fetch --http3` against real HTTP/3 servers this script
starts with the world's www.example.test certificate, on loopback UDP: Caddy 2.6 (Debian
`caddy`, quic-go inside), ngtcp2's own server (Debian `ngtcp2-server`'s gtlsserver, the same
ngtcp2 1.11 as our client, GnuTLS inside) and our file server on aioquic 1.7.2
(tests/peers/aioquic_h3_server.py; aioquic from tools/aioquic/install.sh):

- 20 concurrent requests (-Z) go over ONE QUIC connection: the traces say h3 and QUIC v1, one
  session "new" and 19 "reused", stream ids 0, 4, ..., 76; Caddy's access log agrees (HTTP/3.0,
  the same client port on all 20 lines).
- A 10 MB body comes through QUIC flow control intact (SHA-256), from each server.
- A server that stops answering mid-body (a UDP relay in front of gtlsserver that drops
  everything the server sends after its first 30 datagrams): ERR_QUIC_IDLE_TIMEOUT (exit 95)
  once --quic-idle-timeout 1 s passes, not a hang; the trace's quic.closeReason says so.
- Alt-Svc discovery (--h3-alt-svc, no --http3): Caddy's h2 response offers h3, and the next
  request to the origin goes over HTTP/3 (the trace's quic.altSvc; Caddy logs HTTP/2.0, then
  HTTP/3.0).
- A server that is not there on UDP (Caddy with h1 and h2 only: ICMP port unreachable) and a
  dropped UDP path (a UDP port that swallows every datagram in front of a TCP-only Caddy): the
  request falls back to TCP and succeeds over h2, the reason in the trace's quic.fallback
  (ERR_CONNECTION_REFUSED at once; ERR_QUIC_HANDSHAKE_TIMEOUT after --connect-timeout 1).
- 0-RTT on the second visit (gtlsserver, Caddy, aioquic), the servers' logs agreeing.
- Version negotiation against a real peer: aioquic speaking QUIC v2 only answers our v1 Initial
  with Version Negotiation; our client offers v1 only (Chromium's default), so the request fails
  over to TCP (a TCP-only Caddy on the same port) with ERR_QUIC_VERSION_NEGOTIATION_FAILED and
  the version offered in quic.fallback; the same aioquic with v1 and v2 serves it over QUIC v1.
- The TLS handshake observer hears the QUIC handshake: a bundle prefetched by a truncated TLS
  handshake (--bundle-sources truncated) shows in a QUIC trace's cert.bundle as in a TCP one's.
See tests/README.md."""

import hashlib
import json
import os
import re
import select
import shutil
import socket
import subprocess
import threading
import time

import e2e
from e2e import expect, expect_eq

HOST = "www.example.test"
BIG = 10 * 1024 * 1024


def _binary(name):
    """|name| from PATH or /usr/sbin (tools/setup.sh installs caddy and ngtcp2-server)."""
    path = shutil.which(name) or next(
        (p for p in ("/usr/sbin/" + name, "/usr/bin/" + name) if os.access(p, os.X_OK)), None)
    if not path:
        raise e2e.PeerMissing("%s is not installed (tools/setup.sh installs it)" % name)
    return path


def _leaf(ctx):
    d = os.path.join(ctx.pki, HOST)
    return os.path.join(d, "chain.pem"), os.path.join(d, "key.pem")


def _free_udp_and_tcp_port():
    """A port free on 127.0.0.1 for both UDP and TCP (Caddy serves both on one port)."""
    for _ in range(50):
        port = e2e.free_port()
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            u.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            u.close()
    raise e2e.CheckFailed("no free port for UDP and TCP")


def _udp_bound(port):
    want = "0100007F:%04X" % port
    with open("/proc/net/udp") as f:
        return any(line.split()[1] == want for line in f.readlines()[1:])


def _fetch(ctx, port, urls, *args, timeout=60, mode="--http3"):
    return ctx.fetch(*([mode] if mode else []), "--resolve", "%s:%d:127.0.0.1" % (HOST, port),
                     "--trust-anchor",
                     ctx.root_pem, "--max-time", "30", *args, *urls, world=False, trace=True,
                     timeout=timeout)


def _docroot(ctx):
    root = ctx.scratch("h3-docroot")
    if os.path.isdir(root):
        return root
    os.makedirs(root)
    with open(os.path.join(root, "big.bin"), "wb") as f:
        f.write(os.urandom(BIG))
    for i in range(20):
        with open(os.path.join(root, "r%d.txt" % i), "w") as f:
            f.write("body of r%d\n" % i)
    os.chmod(root, 0o755)
    for name in os.listdir(root):
        os.chmod(os.path.join(root, name), 0o644)
    return root


def _caddy(ctx, root, protocols="h1 h2 h3"):
    chain, key = _leaf(ctx)
    d = ctx.scratch("caddy-%d" % int(time.monotonic() * 1000))
    os.makedirs(d)
    port = _free_udp_and_tcp_port()
    access = os.path.join(d, "access.log")
    conf = os.path.join(d, "Caddyfile")
    with open(conf, "w") as f:
        f.write("""{
\tadmin off
\tauto_https off
\tstorage file_system %(d)s/data
\tservers {
\t\tprotocols %(protocols)s
\t}
}
https://%(host)s:%(port)d {
\tbind 127.0.0.1
\ttls %(chain)s %(key)s
\troot * %(root)s
\tfile_server
\tlog {
\t\toutput file %(access)s
\t\tformat json
\t}
}
""" % {"d": d, "protocols": protocols, "host": HOST, "port": port, "chain": chain, "key": key,
       "root": root, "access": access})
    env_argv = ["/usr/bin/env", "HOME=" + d, "XDG_DATA_HOME=" + d, "XDG_CONFIG_HOME=" + d]
    want_udp = "h3" in protocols

    def ready(p):
        return e2e.is_listening(port) and (not want_udp or _udp_bound(port))

    peer = e2e.Peer("caddy", env_argv + [_binary("caddy"), "run", "--config", conf, "--adapter",
                                         "caddyfile"], os.path.join(d, "caddy.log"), ready=ready)
    peer.port, peer.access = port, access
    return peer


def _gtlsserver(ctx, root, *options):
    chain, key = _leaf(ctx)
    port = e2e.free_port()
    peer = e2e.Peer("gtlsserver", [_binary("gtlsserver"), "-q", "-d", root, *options,
                                   "127.0.0.1", str(port), key, chain],
                    ctx.scratch("gtlsserver.log"), ready=lambda p: _udp_bound(port))
    peer.port = port
    return peer


AIOQUIC_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers",
                              "aioquic_h3_server.py")
AIOQUIC_INSTALL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "tools", "aioquic", "install.sh")


def _aioquic_python():
    """The venv python tools/aioquic/install.sh made (it installs nothing when asked --check)."""
    try:
        p = subprocess.run(["bash", AIOQUIC_INSTALL, "--check"], capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise e2e.PeerMissing("aioquic: %s could not run: %s" % (AIOQUIC_INSTALL, e))
    if p.returncode != 0:
        raise e2e.PeerMissing("aioquic 1.7.2 is not installed (%s; tools/setup.sh runs "
                              "tools/aioquic/install.sh)" % p.stderr.strip())
    return p.stdout.strip()


def _aioquic(ctx, root, versions="v1", port=None):
    """Our HTTP/3 file server on aioquic (tests/peers/aioquic_h3_server.py) on UDP |port| (a free
    one by default); its JSON log as peer.log_lines()."""
    python = _aioquic_python()
    chain, key = _leaf(ctx)
    port = port or _free_udp_and_tcp_port()
    log = ctx.scratch("aioquic-%d.jsonl" % int(time.monotonic() * 1000))
    peer = e2e.Peer("aioquic", [python, AIOQUIC_SERVER, "--port", str(port), "--cert", chain,
                                "--key", key, "--root", root, "--log", log,
                                "--versions", versions],
                    ctx.scratch("aioquic.out"), ready=lambda p: _udp_bound(port))
    peer.port = port

    def log_lines():
        if not os.path.exists(log):
            return []
        with open(log) as f:
            return [json.loads(l) for l in f if l.strip()]
    peer.log_lines = log_lines
    return peer


class UdpRelay:
    """127.0.0.1:port -> the server's UDP port; forwards every client datagram, and the server's
    first |budget| datagrams back, then drops all the server sends (a server that stops
    answering). A thread; stopped on exit."""

    def __init__(self, server_port, budget):
        self.server = ("127.0.0.1", server_port)
        self.budget = budget
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.front.bind(("127.0.0.1", 0))
        self.port = self.front.getsockname()[1]
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.back.bind(("127.0.0.1", 0))
        self.client = None
        self.forwarded = self.dropped = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop:
            r, _, _ = select.select([self.front, self.back], [], [], 0.05)
            for s in r:
                data, addr = s.recvfrom(65536)
                if s is self.front:
                    self.client = addr
                    self.back.sendto(data, self.server)
                elif self.client and self.forwarded < self.budget:
                    self.forwarded += 1
                    self.front.sendto(data, self.client)
                else:
                    self.dropped += 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._stop = True
        self._thread.join()
        self.front.close()
        self.back.close()
        return False


class UdpBlackHole:
    """A bound UDP port (beside a TCP server on the same number) that swallows every datagram."""

    def __init__(self, port):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", port))
        self.sock.setblocking(False)

    def received(self):
        n = 0
        while True:
            try:
                self.sock.recv(65536)
                n += 1
            except BlockingIOError:
                return n

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.close()
        return False


def _check_h3(t, what, zero_rtt="none"):
    expect_eq((t["status"], t["tls"]["alpn"], t["tls"]["version"]), (200, "h3", "TLSv1.3"), what)
    expect("quic" in t, "%s: no quic object: %r" % (what, t))
    q = t["quic"]
    expect_eq((q["used"], q["version"], q["zeroRtt"], q["fallback"]),
              (True, 1, zero_rtt, ""), "%s: quic facts" % what)
    expect_eq(t["cert"]["verifyResult"], "OK", "%s: certificate verification" % what)


def _twenty(ctx, port):
    urls = ["https://%s:%d/r%d.txt" % (HOST, port, i) for i in range(20)]
    outs = []
    for _ in urls:
        outs += ["-o", "/dev/null"]
    r = _fetch(ctx, port, urls, "-Z", *outs).expect_ok()
    expect_eq(len(r.trace), 20, "trace entries")
    for t in r.trace:
        _check_h3(t, "a response")
    expect_eq(sorted(t["quic"]["streamId"] for t in r.trace), list(range(0, 80, 4)),
              "QUIC stream ids (client bidirectional: 0, 4, ...)")
    expect_eq(sorted(t["quic"]["session"] for t in r.trace), ["new"] + ["reused"] * 19,
              "sessions: one QUIC connection")
    new = [t for t in r.trace if t["quic"]["session"] == "new"][0]
    # Chromium's QUIC timing: the handshake is connectStart..connectEnd, and
    # secureConnectionStart is connectStart.
    expect_eq(new["secureConnectionStart"], new["connectStart"], "secureConnectionStart")
    expect(new["connectEnd"] > new["connectStart"], "connectEnd after connectStart: %r" % new)
    expect(new["quic"]["handshakeMs"] > 0 and new["quic"]["packetsSent"] > 0
           and new["quic"]["packetsReceived"] > 0, "handshake and packet counts: %r" % new["quic"])
    return r


def _ten_megabytes(ctx, port, root):
    out = ctx.scratch("big-h3.out")
    r = _fetch(ctx, port, ["https://%s:%d/big.bin" % (HOST, port)], "-o", out).expect_ok()
    with open(out, "rb") as f:
        got = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(root, "big.bin"), "rb") as f:
        want = hashlib.sha256(f.read()).hexdigest()
    expect_eq(got, want, "SHA-256 of the 10 MB body")
    t = r.trace[0]
    _check_h3(t, "the 10 MB response")
    expect_eq(t["encodedBodySize"], BIG, "body size")
    # At least one QUIC packet per 1.5 KB of body.
    expect(t["quic"]["packetsReceived"] > BIG // 1500, "packets received: %r" % t["quic"])
    return r


def caddy_twenty_requests_one_connection(ctx):
    root = _docroot(ctx)
    with _caddy(ctx, root) as caddy:
        _twenty(ctx, caddy.port)
        time.sleep(0.3)
        with open(caddy.access) as f:
            lines = [json.loads(l) for l in f if '"uri":"/r' in l]
        expect_eq(len(lines), 20, "Caddy access log lines")
        expect_eq({l["request"]["proto"] for l in lines}, {"HTTP/3.0"}, "protocols Caddy logged")
        expect_eq(len({l["request"]["remote_port"] for l in lines}), 1,
                  "client ports in Caddy's log (one QUIC connection)")


def caddy_ten_megabytes(ctx):
    root = _docroot(ctx)
    with _caddy(ctx, root) as caddy:
        _ten_megabytes(ctx, caddy.port, root)
        time.sleep(0.3)
        with open(caddy.access) as f:
            lines = [json.loads(l) for l in f if '"uri":"/big.bin"' in l]
        expect_eq([(l["request"]["proto"], l["size"]) for l in lines], [("HTTP/3.0", BIG)],
                  "Caddy's log of the 10 MB response")


def ngtcp2_twenty_requests_one_connection(ctx):
    root = _docroot(ctx)
    with _gtlsserver(ctx, root) as srv:
        _twenty(ctx, srv.port)


def ngtcp2_ten_megabytes(ctx):
    root = _docroot(ctx)
    with _gtlsserver(ctx, root) as srv:
        _ten_megabytes(ctx, srv.port, root)


def server_stops_answering_idle_timeout(ctx):
    root = _docroot(ctx)
    with _gtlsserver(ctx, root) as srv, UdpRelay(srv.port, budget=30) as relay:
        t0 = time.monotonic()
        r = _fetch(ctx, relay.port, ["https://%s:%d/big.bin" % (HOST, relay.port)], "-o",
                   "/dev/null", "--quic-idle-timeout", "1")
        secs = time.monotonic() - t0
        r.expect_error(95, "ERR_QUIC_IDLE_TIMEOUT", r"idle timeout")
        expect(1.0 <= secs < 8, "gave up after %.1fs, not the 1 s idle timeout" % secs)
        expect(relay.dropped > 0, "the relay dropped nothing")
        q = r.trace[0]["quic"]
        expect_eq(q["used"], True, "the request went over QUIC")
        expect("idle timeout" in q["closeReason"], "closeReason: %r" % q)


def no_udp_server_falls_back_to_tcp(ctx):
    root = _docroot(ctx)
    with _caddy(ctx, root, protocols="h1 h2") as caddy:
        t0 = time.monotonic()
        r = _fetch(ctx, caddy.port, ["https://%s:%d/r1.txt" % (HOST, caddy.port)], "-o",
                   "/dev/null").expect_ok()
        secs = time.monotonic() - t0
        t = r.trace[0]
        expect_eq((t["status"], t["tls"]["alpn"]), (200, "h2"), "the TCP fallback's response")
        expect_eq(t["quic"]["used"], False, "quic.used")
        expect(t["quic"]["fallback"].startswith("ERR_CONNECTION_REFUSED: ") and
               "retried over TCP" in t["quic"]["fallback"], "fallback: %r" % t["quic"])
        expect(secs < 5, "the fallback took %.1fs" % secs)


def caddy_alt_svc_discovery(ctx):
    """No --http3: the first request goes over TCP (h2), its response's Alt-Svc offers h3, and the
    next request to the origin goes over HTTP/3 to the alternative."""
    root = _docroot(ctx)
    with _caddy(ctx, root) as caddy:
        urls = ["https://%s:%d/r%d.txt" % (HOST, caddy.port, i) for i in (3, 4)]
        r = _fetch(ctx, caddy.port, urls, "-o", "/dev/null", "-o", "/dev/null",
                   mode="--h3-alt-svc").expect_ok()
        expect_eq(len(r.trace), 2, "trace entries")
        first, second = r.trace
        expect_eq((first["status"], first["tls"]["alpn"], "quic" in first), (200, "h2", False),
                  "the first request (TCP, no discovery yet)")
        _check_h3(second, "the second request")
        expect('h3=":%d"' % caddy.port in second["quic"]["altSvc"],
               "quic.altSvc: %r" % second["quic"])
        time.sleep(0.3)
        with open(caddy.access) as f:
            protos = [json.loads(l)["request"]["proto"] for l in f if '"uri":"/r' in l]
        expect_eq(protos, ["HTTP/2.0", "HTTP/3.0"], "protocols in Caddy's log")


def dropped_udp_falls_back_after_the_connect_timeout(ctx):
    root = _docroot(ctx)
    with _caddy(ctx, root, protocols="h1 h2") as caddy, UdpBlackHole(caddy.port) as hole:
        t0 = time.monotonic()
        r = _fetch(ctx, caddy.port, ["https://%s:%d/r2.txt" % (HOST, caddy.port)], "-o",
                   "/dev/null", "--connect-timeout", "1").expect_ok()
        secs = time.monotonic() - t0
        t = r.trace[0]
        expect_eq((t["status"], t["tls"]["alpn"]), (200, "h2"), "the TCP fallback's response")
        expect(t["quic"]["fallback"].startswith("ERR_QUIC_HANDSHAKE_TIMEOUT: ") and
               "no UDP answer" in t["quic"]["fallback"], "fallback: %r" % t["quic"])
        expect(1.0 <= secs < 4, "fell back after %.1fs, not the 1 s connect timeout" % secs)
        expect(hole.received() >= 1, "no Initial reached the black hole")


def _second_visit_zero_rtt(ctx, port, token="sent"):
    """fetch --repeat 2: the first visit leaves a ticket; the second round (idle connections
    closed) resumes and sends its GET in 0-RTT, which the server accepts. The first visit's
    handshake is 1 round trip (quic.handshakeRtts), the second's 0; |token|: whether the second
    sends the address token the server gave in a NEW_TOKEN frame on the first ("sent"), or the
    server gives none ("none")."""
    url = "https://%s:%d/r5.txt" % (HOST, port)
    r = _fetch(ctx, port, [url], "-o", "/dev/null", "--repeat", "2").expect_ok()
    expect_eq(len(r.trace), 2, "trace entries")
    first, second = r.trace
    _check_h3(first, "the first visit")
    expect_eq(first["quic"]["sentEarly"], False, "the first visit's request in 0-RTT")
    _check_h3(second, "the second visit", zero_rtt="accepted")
    expect_eq((second["quic"]["session"], second["quic"]["sentEarly"], second["tls"]["resumed"]),
              ("new", True, True), "the second visit: a new, resumed connection, GET in 0-RTT")
    expect_eq((first["quic"]["addressToken"], first["quic"]["handshakeRtts"]), ("none", 1),
              "the first visit's address token and handshake round trips")
    expect_eq((second["quic"]["addressToken"], second["quic"]["handshakeRtts"]), (token, 0),
              "the second visit's address token (RFC 9000 8.1.3) and handshake round trips")
    return r


RTT_MS = 100


def _udp_relay(ctx, port):
    """A netem relay (RTT_MS round trip) in front of UDP 127.0.0.1:|port|; .port is its own."""
    argv = [ctx.args.netem, "--udp", "127.0.0.1:0=127.0.0.1:%d" % port, "--rtt-ms", str(RTT_MS)]

    def ready(p):
        line = p.read_stdout_line()
        return bool(line) and line.strip() == "ready"

    peer = e2e.Peer("netem-udp", argv, ctx.scratch("netem-udp.err"), ready=ready,
                    stdout_pipe=True)
    for line in peer.stdout_lines:
        m = re.match(r"listening udp 127\.0\.0\.1:(\d+)", line)
        if m:
            peer.port = int(m.group(1))
    expect(getattr(peer, "port", None), "netem printed no port: %r" % peer.stdout_lines)
    return peer


def _page_docroot(ctx):
    """_docroot with a 6 KB page.html."""
    root = _docroot(ctx)
    with open(os.path.join(root, "page.html"), "w") as f:
        f.write("<!doctype html>" + "x" * 6000 + "\n")
    os.chmod(os.path.join(root, "page.html"), 0o644)
    return root


def _round_trips_behind_netem(ctx, port, wait_slack_ms=None):
    """fetch --http3 --repeat 2 of a 6 KB page through a 100 ms relay to the server on |port|.
    Round 1: handshakeRtts 1 and, with |wait_slack_ms|, the request leaves with our Finished (no
    pacing wait: its first byte comes within one round trip + the slack after the request). Round 2: 0-RTT with the first connection's
    NEW_TOKEN token, so the server may send the 6 KB at once, beyond the 3x anti-amplification
    allowance of our 1200-byte Initial: the whole response in about one round trip, not two."""
    with _udp_relay(ctx, port) as relay:
        url = "https://%s:%d/page.html" % (HOST, port)
        r = ctx.fetch("--http3", "--connect-to", "%s:%d:127.0.0.1:%d" % (HOST, port, relay.port),
                      "--trust-anchor", ctx.root_pem, "--max-time", "30", "-o", "/dev/null",
                      "--repeat", "2", url, world=False, trace=True, timeout=60).expect_ok()
    expect_eq(len(r.trace), 2, "trace entries")
    first, second = r.trace
    _check_h3(first, "the first visit")
    _check_h3(second, "the second visit", zero_rtt="accepted")
    wait = first["responseStart"] - first["requestStart"]
    if wait_slack_ms is not None:
        expect(wait < RTT_MS + wait_slack_ms, "the first visit's request waited %.1f ms for its "
               "first byte, more than one round trip (%d ms) + %d" % (wait, RTT_MS, wait_slack_ms))
    expect_eq((first["quic"]["handshakeRtts"], second["quic"]["handshakeRtts"],
               second["quic"]["addressToken"]), (1, 0, "sent"),
              "handshake round trips of the two visits, the second's address token")
    took = second["responseEnd"] - second["startTime"]
    expect(took < 1.5 * RTT_MS, "the 0-RTT visit's 6 KB response took %.1f ms, not about one "
           "round trip (%d ms): the server did not take the address token" % (took, RTT_MS))


def ngtcp2_round_trips_behind_netem(ctx):
    with _gtlsserver(ctx, _page_docroot(ctx)) as srv:
        # gtlsserver answers within a millisecond: 5 ms is the client's slack (~8 ms more when
        # ngtcp2's pacer held the request back).
        _round_trips_behind_netem(ctx, srv.port, wait_slack_ms=5)


def caddy_round_trips_behind_netem(ctx):
    with _caddy(ctx, _page_docroot(ctx)) as caddy:
        # Caddy's own time to a first byte varies by several ms here: round 1 is not timed.
        _round_trips_behind_netem(ctx, caddy.port)


def ngtcp2_zero_rtt_second_visit(ctx):
    root = _docroot(ctx)
    qlog = ctx.scratch("gtlsserver-qlog")
    os.makedirs(qlog, exist_ok=True)
    with _gtlsserver(ctx, root, "--qlog-dir=" + qlog) as srv:
        _second_visit_zero_rtt(ctx, srv.port)
        time.sleep(0.3)
    # The server's qlogs agree: of its two connections, one received 0-RTT packets.
    zero_rtt = 0
    files = sorted(os.listdir(qlog))
    for name in files:
        with open(os.path.join(qlog, name)) as f:
            text = f.read()
        if '"packet_type":"0RTT"' in text and '"name":"transport:packet_received"' in text:
            zero_rtt += 1
    expect_eq((len(files), zero_rtt), (2, 1),
              "gtlsserver qlogs (connections, connections that received 0-RTT)")


def caddy_zero_rtt_second_visit(ctx):
    root = _docroot(ctx)
    with _caddy(ctx, root) as caddy:
        _second_visit_zero_rtt(ctx, caddy.port)
        time.sleep(0.3)
        with open(caddy.access) as f:
            lines = [json.loads(l) for l in f if '"uri":"/r5.txt"' in l]
        expect_eq([l["request"]["proto"] for l in lines], ["HTTP/3.0"] * 2,
                  "Caddy's log of the two visits")
        expect_eq(len({l["request"]["remote_port"] for l in lines}), 2,
                  "client ports in Caddy's log (two QUIC connections)")


def aioquic_twenty_requests_one_connection(ctx):
    root = _docroot(ctx)
    with _aioquic(ctx, root) as srv:
        _twenty(ctx, srv.port)
        time.sleep(0.3)
        log = srv.log_lines()
    reqs = [l for l in log if l["event"] == "request"]
    conns = [l for l in log if l["event"] == "connection"]
    expect_eq(sorted(l["path"] for l in reqs), sorted("/r%d.txt" % i for i in range(20)),
              "the paths aioquic served")
    expect_eq(sorted(l["stream_id"] for l in reqs), list(range(0, 80, 4)),
              "the stream ids aioquic saw")
    expect_eq((len(conns), len({l["peer"] for l in reqs})), (1, 1),
              "aioquic's connections and client addresses")
    expect_eq((conns[0]["version"], conns[0]["alpn"]), (1, "h3"), "aioquic's connection")


def aioquic_ten_megabytes(ctx):
    root = _docroot(ctx)
    with _aioquic(ctx, root) as srv:
        _ten_megabytes(ctx, srv.port, root)
        time.sleep(0.3)
        reqs = [l for l in srv.log_lines() if l["event"] == "request"]
    expect_eq([(l["path"], l["status"], l["bytes"]) for l in reqs], [("/big.bin", 200, BIG)],
              "aioquic's log of the 10 MB response")


def aioquic_zero_rtt_second_visit(ctx):
    root = _docroot(ctx)
    with _aioquic(ctx, root) as srv:
        # aioquic's server sends no NEW_TOKEN frame: nothing to send back.
        _second_visit_zero_rtt(ctx, srv.port, token="none")
        time.sleep(0.3)
        log = srv.log_lines()
    conns = [(l["resumed"], l["early_data_accepted"]) for l in log if l["event"] == "connection"]
    reqs = [l["early"] for l in log if l["event"] == "request"]
    expect_eq(conns, [(False, False), (True, True)],
              "aioquic's connections (resumed, 0-RTT accepted)")
    expect_eq(reqs, [False, True], "aioquic's requests (arrived in 0-RTT)")


def aioquic_v2_only_version_negotiation(ctx):
    """aioquic with QUIC v2 (0x6b3343cf) only answers our v1 Initial with a Version Negotiation
    packet; the client offers only v1 (as Chromium by default), so it gives QUIC up for the
    origin, named with the versions offered, and goes to TCP (a TCP-only Caddy on the same
    port number) at once. The control: the same server with v1 and v2 serves over QUIC v1."""
    root = _docroot(ctx)
    with _caddy(ctx, root, protocols="h1 h2") as caddy, \
            _aioquic(ctx, root, versions="v2", port=caddy.port) as srv:
        t0 = time.monotonic()
        r = _fetch(ctx, caddy.port, ["https://%s:%d/r6.txt" % (HOST, caddy.port)], "-o",
                   "/dev/null").expect_ok()
        secs = time.monotonic() - t0
        t = r.trace[0]
        expect_eq((t["status"], t["tls"]["alpn"]), (200, "h2"), "the TCP fallback's response")
        expect_eq(t["quic"]["used"], False, "quic.used")
        expect_eq(t["quic"]["fallback"],
                  "ERR_QUIC_VERSION_NEGOTIATION_FAILED: version negotiation: the server offers "
                  "0x6b3343cf, not QUIC v1; retried over TCP", "quic.fallback")
        expect(secs < 2, "the fallback took %.1fs (a VN packet is an immediate answer; the "
               "handshake timeout is 3 s)" % secs)
        time.sleep(0.2)
        expect_eq([l for l in srv.log_lines() if l["event"] == "connection"], [],
                  "aioquic's QUIC connections (none: v1 is not among its versions)")
    with _aioquic(ctx, root, versions="v1,v2") as srv:
        r = _fetch(ctx, srv.port, ["https://%s:%d/r6.txt" % (HOST, srv.port)], "-o",
                   "/dev/null").expect_ok()
        _check_h3(r.trace[0], "with v1 among the server's versions")


def quic_trace_has_the_prefetched_bundle(ctx):
    """The TLS handshake observer hears QUIC's handshake: a bundle prefetched before the request
    (by a truncated TLS handshake with the same server over TCP: Caddy serves both) is matched
    against the QUIC handshake's chain, so the QUIC trace's cert.bundle says it was used, as a
    TCP trace's does."""
    root = _docroot(ctx)
    with _caddy(ctx, root) as caddy:
        hp = "%s:%d" % (HOST, caddy.port)
        traces = {}
        for mode in ("--http3", None):
            r = _fetch(ctx, caddy.port, ["https://%s/r7.txt" % hp], "-o", "/dev/null",
                       "--bundle-sources", "truncated", "--prefetch", hp,
                       mode=mode).expect_ok()
            traces[mode] = r.trace[0]
        q, t = traces["--http3"], traces[None]
        expect_eq(t["tls"]["alpn"], "h2", "the TCP request's ALPN")
        _check_h3(q, "the QUIC request")
        expect("bundle" in q["cert"], "no cert.bundle in the QUIC trace: %r" % q["cert"])
        expect_eq((q["cert"]["bundle"]["used"], q["cert"]["source"]), (True, "prefetch"),
                  "the QUIC trace's cert.bundle.used and cert.source")
        for key in ("source", "used", "via", "prevalidated"):
            expect_eq(q["cert"]["bundle"].get(key), t["cert"]["bundle"].get(key),
                      "cert.bundle.%s, QUIC as TCP (%r / %r)" % (key, q["cert"]["bundle"],
                                                                 t["cert"]["bundle"]))
        expect_eq(q["cert"]["source"], t["cert"]["source"], "cert.source, QUIC as TCP")


if __name__ == "__main__":
    # The world only for its PKI: this script starts its own peers.
    e2e.main(world_args=("--no-nginx", "--no-dns"), checks=[
        caddy_twenty_requests_one_connection,
        caddy_ten_megabytes,
        ngtcp2_round_trips_behind_netem,
        caddy_round_trips_behind_netem,
        ngtcp2_twenty_requests_one_connection,
        ngtcp2_ten_megabytes,
        server_stops_answering_idle_timeout,
        no_udp_server_falls_back_to_tcp,
        caddy_alt_svc_discovery,
        dropped_udp_falls_back_after_the_connect_timeout,
        ngtcp2_zero_rtt_second_visit,
        caddy_zero_rtt_second_visit,
        aioquic_twenty_requests_one_connection,
        aioquic_ten_megabytes,
        aioquic_zero_rtt_second_visit,
        aioquic_v2_only_version_negotiation,
        quic_trace_has_the_prefetched_bundle,
    ])
