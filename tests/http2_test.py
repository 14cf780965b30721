#!/usr/bin/env python3
"""HTTP/2 end to end (issue 24, step 1): fetch offers h2 before http/1.1 by default, against real
h2 servers this script starts with the world's www.example.test certificate, nginx 1.22
(`listen ... ssl http2`) and nghttpd 1.52 (Debian nghttp2-server), and against fake h2 servers
that misbehave (Python's ssl with ALPN h2, frames by hand):

- 20 concurrent requests (-Z) go over ONE connection: every trace's h2 object names the same
  session (one "new", 19 "reused", stream ids 1..39), and the server's own log agrees: nginx's
  $connection is the same on all 20 lines (HTTP/2.0), nghttpd's -v log shows one session id with
  20 HEADERS, and our SETTINGS and priorities as nghttpd decoded them.
- A 10 MB body comes through flow control intact (byte for byte), the server logging 10485760
  bytes sent on h2.
- Our own testserver with --http2 (issue 24 item 3): the same 20 requests on one connection, its
  log agreeing (one connection line, "alpn":"h2", "streams":20, 20 request lines on it), a 10 MB
  generated body, and channel-bound cookies over h2 (fetch --obc: login, then the cookie
  accepted on the next run; the server's log says h2 and the OBC).
- A server whose ALPN says h2 but which never sends SETTINGS: ERR_HTTP2_SETTINGS_TIMEOUT after the
  session's 10 s settings timeout, not a hang.
- Coalescing (RFC 9113 9.1.1), with nginx serving two names on one address with one certificate
  (the world's tls12 leaf covers tls12 and slow12.example.test): the second name's requests go
  over the first name's connection, one after the other and all at once (nginx's $connection
  agrees); with nginx answering 421 when Host and SNI differ, the second name's request is
  retried on a connection of its own; with nginx asking for client certificates, per-origin
  OBCs keep the names on separate connections (h2.notCoalescedReason "obc") and eTLD+1 OBCs
  let them coalesce, which nginx (verifying client certificates) answers with 421, retried.
- Priorities: --priority LOW as nghttpd decodes it (weight 183, the dependency chain, the RFC
  9218 header's u=2).
- HTTP_1_1_REQUIRED (RST_STREAM or GOAWAY) from a fake h2 server that speaks HTTP/1.1 too: the
  request is retried over HTTP/1.1, and the next request offers only http/1.1.
- A response header block of 300 KB (fields of 4 KB, HEADERS + CONTINUATION):
  ERR_RESPONSE_HEADERS_TOO_BIG (our 256 KB header list limit); a header block that never ends
  (CONTINUATION after CONTINUATION): ERR_HTTP2_FLOOD_DETECTED, and the server could send only a
  bounded number of frames before we closed.
See tests/README.md."""

import hashlib
import os
import re
import ssl
import struct
import time

import e2e
from e2e import expect, expect_eq

HOST = "www.example.test"
FLAG_END_STREAM, FLAG_ACK, FLAG_END_HEADERS = 0x1, 0x1, 0x4
HEADERS, RST_STREAM, SETTINGS, GOAWAY, CONTINUATION = 0x1, 0x3, 0x4, 0x7, 0x9
HTTP_1_1_REQUIRED = 0xd
BIG = 10 * 1024 * 1024


def _fetch(ctx, port, urls, *args, timeout=60, names=(HOST,)):
    resolve = []
    for name in names:
        resolve += ["--resolve", "%s:%d:127.0.0.1" % (name, port)]
    return ctx.fetch(*resolve, "--trust-anchor", ctx.root_pem, "--max-time", "30", *args, *urls,
                     world=False, trace=True, timeout=timeout)


def _docroot(ctx):
    root = ctx.scratch("h2-docroot")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "big.bin"), "wb") as f:
        f.write(os.urandom(BIG))
    for i in range(20):
        with open(os.path.join(root, "r%d.txt" % i), "w") as f:
            f.write("body of r%d\n" % i)
    os.chmod(root, 0o755)
    for name in os.listdir(root):
        os.chmod(os.path.join(root, name), 0o644)
    return root


def _nginx(ctx, root, names=(HOST,), leaf=HOST, extra=None):
    """nginx with one `ssl http2` server block per name on one address and port, each with
    |leaf|'s certificate and |extra|[name]'s directives."""
    chain, key = e2e.leaf_files(ctx, leaf)
    extra = extra or {}
    servers = "".join("""
    server {
        listen 127.0.0.1:%%(port)d ssl http2;
        server_name %(name)s;
        ssl_certificate %(chain)s;
        ssl_certificate_key %(key)s;
        root %(root)s;
        %(extra)s
    }""" % {"name": name, "chain": chain, "key": key, "root": root,
            "extra": extra.get(name, "").replace("%", "%%")} for name in names)
    return e2e.nginx(ctx, "nginx-h2", """
    default_type application/octet-stream;
    log_format h2 'conn=$connection proto=$server_protocol alpn=$ssl_alpn_protocol '
                  '"$request" $status $body_bytes_sent host=$host sni=$ssl_server_name '
                  'fp=$ssl_client_fingerprint';
    access_log %(access)s h2;
""" + servers)


def _nghttpd(ctx, root):
    chain, key = e2e.leaf_files(ctx, HOST)
    port = e2e.free_port()
    log = ctx.scratch("nghttpd.log")
    peer = e2e.Peer("nghttpd", [e2e.peer_binary("nghttpd"), "-a", "127.0.0.1", "-d", root, "-v",
                                str(port), key, chain], log,
                    ready=lambda p: e2e.is_listening(port))
    peer.port = port
    return peer


def _check_one_session(r, n=20):
    expect_eq(len(r.trace), n, "trace entries")
    for t in r.trace:
        expect_eq((t["status"], t["tls"]["alpn"]), (200, "h2"), "a response")
        expect("h2" in t, "trace without an h2 object: %r" % t)
    expect_eq(len({t["h2"]["sessionId"] for t in r.trace}), 1, "sessions named by the traces")
    expect_eq(sorted(t["h2"]["streamId"] for t in r.trace), list(range(1, 2 * n, 2)),
              "stream ids")
    expect_eq(sorted(t["h2"]["session"] for t in r.trace), ["new"] + ["reused"] * (n - 1),
              "session kinds")


def _twenty(ctx, port):
    urls = ["https://%s:%d/r%d.txt" % (HOST, port, i) for i in range(20)]
    outs = []
    for _ in urls:
        outs += ["-o", "/dev/null"]
    r = _fetch(ctx, port, urls, "-Z", *outs).expect_ok()
    _check_one_session(r)
    return r


def _ten_megabytes(ctx, port, root):
    out = ctx.scratch("big.out")
    r = _fetch(ctx, port, ["https://%s:%d/big.bin" % (HOST, port)], "-o", out).expect_ok()
    with open(out, "rb") as f:
        got = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(root, "big.bin"), "rb") as f:
        want = hashlib.sha256(f.read()).hexdigest()
    expect_eq(got, want, "SHA-256 of the 10 MB body")
    t = r.trace[0]
    expect_eq((t["tls"]["alpn"], t["encodedBodySize"], t["h2"]["session"]), ("h2", BIG, "new"),
              "the 10 MB response")
    return r


def nginx_twenty_requests_one_connection(ctx):
    root = _docroot(ctx)
    with _nginx(ctx, root) as nginx:
        r = _twenty(ctx, nginx.port)
        time.sleep(0.2)
        with open(nginx.access) as f:
            lines = [l for l in f if '"GET /r' in l]
        expect_eq(len(lines), 20, "nginx access log lines\n" + "".join(lines))
        conns = {re.match(r"conn=(\d+)", l).group(1) for l in lines}
        expect_eq(len(conns), 1, "connections in nginx's log (its $connection)")
        expect(all("proto=HTTP/2.0 alpn=h2" in l for l in lines),
               "nginx served these over h2:\n" + "".join(lines))
        # The server's SETTINGS as nginx sends them, in the trace.
        settings = r.trace[0]["h2"]["settings"]
        expect_eq(settings.get("MAX_CONCURRENT_STREAMS"), 128, "nginx's MAX_CONCURRENT_STREAMS")


def nginx_ten_megabytes_through_flow_control(ctx):
    root = _docroot(ctx)
    with _nginx(ctx, root) as nginx:
        _ten_megabytes(ctx, nginx.port, root)
        time.sleep(0.2)
        with open(nginx.access) as f:
            text = f.read()
        expect('"GET /big.bin HTTP/2.0" 200 %d' % BIG in text, "nginx's log:\n" + text)


# --- coalescing (issue 24 item 2) ---------------------------------------------------------

# One certificate for both names (the world's tls12 leaf: tls12 and slow12.example.test).
SHARED = ("tls12.example.test", "slow12.example.test")
SHARED_LEAF = "tls12.example.test"


def _log_lines(nginx, after=0):
    """nginx's access log as dicts (conn, request, status, host, sni, fp), from line |after|."""
    time.sleep(0.2)
    out = []
    with open(nginx.access) as f:
        for line in f.readlines()[after:]:
            m = re.match(r'conn=(\d+) proto=(\S+) alpn=(\S*) "([^"]*)" (\d+) \d+ host=(\S*) '
                         r'sni=(\S*) fp=(\S*)', line)
            expect(m, "unparsed nginx log line %r" % line)
            out.append(dict(conn=m.group(1), proto=m.group(2), request=m.group(4),
                            status=int(m.group(5)), host=m.group(6), sni=m.group(7),
                            fp=m.group(8)))
    return out


def _shared_urls(port, paths):
    return ["https://%s:%d/%s" % (SHARED[i % 2], port, p) for i, p in enumerate(paths)]


def _quiet(urls):
    out = []
    for _ in urls:
        out += ["-o", "/dev/null"]
    return out


def nginx_coalesces_two_names_on_one_connection(ctx):
    """Two server_names on one address, one certificate covering both: the second origin goes
    over the first one's session (DNS coalescing), one after the other and all at once (-Z)."""
    root = _docroot(ctx)
    with _nginx(ctx, root, names=SHARED, leaf=SHARED_LEAF) as nginx:
        urls = _shared_urls(nginx.port, ["r0.txt", "r1.txt"])
        r = _fetch(ctx, nginx.port, urls, *_quiet(urls), names=SHARED).expect_ok()
        first, second = r.trace
        expect_eq((first["h2"]["session"], first["h2"]["coalesced"]), ("new", False),
                  "the first origin's request")
        h2 = second["h2"]
        expect_eq((h2["session"], h2["coalesced"], h2["coalescedBy"], h2["coalescedOnto"]),
                  ("pooled", True, "dns", "https://%s:%d" % (SHARED[0], nginx.port)),
                  "the second origin's request: %r" % h2)
        expect_eq(h2["sessionId"], first["h2"]["sessionId"], "the session")
        lines = _log_lines(nginx)
        expect_eq([(l["host"], l["sni"], l["status"]) for l in lines],
                  [(SHARED[0], SHARED[0], 200), (SHARED[1], SHARED[0], 200)],
                  "nginx's log (host, SNI, status)")
        expect_eq(len({l["conn"] for l in lines}), 1, "connections in nginx's log")

        # All at once: the second name waits for the first's connection to its address.
        urls = _shared_urls(nginx.port, ["r%d.txt" % i for i in range(20)])
        r = _fetch(ctx, nginx.port, urls, "-Z", *_quiet(urls), names=SHARED).expect_ok()
        expect_eq(len({t["h2"]["sessionId"] for t in r.trace}), 1, "sessions (-Z)")
        expect_eq(sum(t["h2"]["coalesced"] for t in r.trace), 10, "coalesced requests (-Z)")
        lines = _log_lines(nginx, after=2)
        expect_eq(len(lines), 20, "nginx log lines (-Z)")
        expect_eq(len({l["conn"] for l in lines}), 1, "connections in nginx's log (-Z)")


def nginx_misdirected_request_retried_on_its_own_connection(ctx):
    """nginx answers 421 for slow12 on a connection whose SNI is another name: the request goes
    again on a connection of its own, and later requests use that one."""
    root = _docroot(ctx)
    misdirect = {SHARED[1]: "if ($ssl_server_name != $host) { return 421; }"}
    with _nginx(ctx, root, names=SHARED, leaf=SHARED_LEAF, extra=misdirect) as nginx:
        urls = _shared_urls(nginx.port, ["r0.txt", "r1.txt"]) + [
            "https://%s:%d/r2.txt" % (SHARED[1], nginx.port)]
        out = ctx.scratch("r1.out")
        r = _fetch(ctx, nginx.port, urls, "-o", "/dev/null", "-o", out, "-o", "/dev/null",
                   names=SHARED).expect_ok()
        with open(out) as f:
            expect_eq(f.read(), "body of r1\n", "the retried response's body")
        t1, t2 = r.trace[1], r.trace[2]
        expect_eq(t1["status"], 200, "the retried request's status")
        expect_eq(t1["h2"]["retry"], "misdirected (421) on a coalesced session: retried on a "
                  "new connection of its own", "h2.retry")
        expect_eq((t1["h2"]["session"], t1["h2"]["coalesced"]), ("new", False),
                  "the retry's session")
        expect_eq((t2["h2"]["session"], t2["h2"]["sessionId"]), ("reused", t1["h2"]["sessionId"]),
                  "the next request to the misdirected origin")
        lines = _log_lines(nginx)
        expect_eq([(l["host"], l["sni"], l["status"]) for l in lines],
                  [(SHARED[0], SHARED[0], 200), (SHARED[1], SHARED[0], 421),
                   (SHARED[1], SHARED[1], 200), (SHARED[1], SHARED[1], 200)],
                  "nginx's log (host, SNI, status)")
        expect_eq(lines[0]["conn"], lines[1]["conn"], "the 421 came on the coalesced connection")
        expect(lines[2]["conn"] != lines[1]["conn"] and lines[3]["conn"] == lines[2]["conn"],
               "the retry and the next request on a connection of their own: %r" % lines)


def nginx_origin_bound_certificates_and_coalescing(ctx):
    """nginx asks for client certificates (OBCs). Per-origin OBCs: slow12 needs another OBC than
    the one tls12's connection presented, so it gets a connection of its own (the trace says
    obc). eTLD+1 OBCs: both names share one OBC, so slow12 is coalesced; nginx, which verifies
    client certificates, refuses a Host other than the SNI's with 421, and the request is
    retried on a connection of its own that presents the same OBC."""
    root = _docroot(ctx)
    verify = "ssl_verify_client optional_no_ca;"
    extra = {name: verify for name in SHARED}
    with _nginx(ctx, root, names=SHARED, leaf=SHARED_LEAF, extra=extra) as nginx:
        urls = _shared_urls(nginx.port, ["r0.txt", "r1.txt"])
        r = _fetch(ctx, nginx.port, urls, "--obc", "ecdsa", "--private", *_quiet(urls),
                   names=SHARED).expect_ok()
        h2 = r.trace[1]["h2"]
        expect_eq((h2["coalesced"], h2["notCoalescedReason"], h2["session"]),
                  (False, "obc", "new"), "per-origin OBCs: %r" % h2)
        lines = _log_lines(nginx)
        expect_eq([(l["host"], l["sni"], l["status"]) for l in lines],
                  [(SHARED[0], SHARED[0], 200), (SHARED[1], SHARED[1], 200)], "nginx's log")
        expect(lines[0]["conn"] != lines[1]["conn"], "two connections: %r" % lines)
        expect(lines[0]["fp"] != "-" and lines[1]["fp"] != "-" and
               lines[0]["fp"] != lines[1]["fp"], "two OBCs: %r" % lines)

        r = _fetch(ctx, nginx.port, urls, "--obc", "ecdsa", "--obc-scope", "etld", "--private",
                   *_quiet(urls), names=SHARED).expect_ok()
        t1 = r.trace[1]
        expect_eq((t1["status"], t1["h2"]["session"]), (200, "new"), "eTLD+1 OBCs: the retry")
        expect(t1["h2"]["retry"].startswith("misdirected (421) on a coalesced session"),
               "eTLD+1 OBCs: h2.retry %r" % t1["h2"]["retry"])
        lines = _log_lines(nginx, after=2)
        # (nginx refuses it while choosing the server: its log line has no request line, and
        # the SNI's name as $host.)
        expect_eq([(l["request"], l["sni"], l["status"]) for l in lines],
                  [("GET /r0.txt HTTP/2.0", SHARED[0], 200),
                   ("-", SHARED[0], 421),
                   ("GET /r1.txt HTTP/2.0", SHARED[1], 200)], "nginx's log (eTLD+1 OBCs)")
        expect(lines[0]["conn"] == lines[1]["conn"] != lines[2]["conn"],
               "the 421 on the coalesced connection, the retry on its own: %r" % lines)
        expect_eq(len({l["fp"] for l in lines}), 1, "one OBC for both names: %r" % lines)


def nghttpd_twenty_requests_one_connection(ctx):
    root = _docroot(ctx)
    with _nghttpd(ctx, root) as srv:
        _twenty(ctx, srv.port)
        time.sleep(0.3)
        with open(srv.log_path) as f:
            log = f.read()
        sessions = set(re.findall(r"^\[id=(\d+)\]", log, re.M))
        expect_eq(len(sessions), 1, "sessions in nghttpd's -v log")
        headers = re.findall(r"recv HEADERS frame <length=\d+, flags=0x[0-9a-f]+, "
                             r"stream_id=(\d+)>", log)
        expect_eq(sorted(int(s) for s in headers), list(range(1, 40, 2)),
                  "HEADERS nghttpd received")
        # What nghttpd decoded of ours: Chromium's SETTINGS and priorities.
        for s in ("SETTINGS_ENABLE_PUSH(0x02):0", "SETTINGS_INITIAL_WINDOW_SIZE(0x04):6291456",
                  "SETTINGS_MAX_HEADER_LIST_SIZE(0x06):262144",
                  "SETTINGS_HEADER_TABLE_SIZE(0x01):65536"):
            expect(s in log, "nghttpd did not log %s" % s)
        expect(re.search(r"recv WINDOW_UPDATE frame <length=4, flags=0x00, stream_id=0>\s+"
                         r"\(window_size_increment=15663105\)", log),
               "no connection WINDOW_UPDATE to 15 MB in nghttpd's log")
        prio = re.findall(r"dep_stream_id=(\d+), weight=(\d+), exclusive=(\d)", log)
        expect_eq(len(prio), 20, "HEADERS with a priority")
        expect(all(w == "256" and e == "1" for _, w, e in prio), "weights: %r" % prio)
        expect_eq(len(re.findall(r"recv \(stream_id=\d+\) priority: u=0, i$", log, re.M)), 20,
                  "requests with the RFC 9218 priority header")


def nghttpd_priorities(ctx):
    """--priority LOW: each HEADERS carries weight 183 and the chain of dependencies, and the
    RFC 9218 header says urgency 2, as nghttpd decoded them."""
    root = _docroot(ctx)
    with _nghttpd(ctx, root) as srv:
        urls = ["https://%s:%d/r%d.txt" % (HOST, srv.port, i) for i in range(3)]
        r = _fetch(ctx, srv.port, urls, "-Z", "--priority", "low", *_quiet(urls)).expect_ok()
        expect_eq(sorted((t["priority"], t["h2"]["weight"]) for t in r.trace),
                  [("LOW", 183)] * 3, "the traces' priority and weight")
        time.sleep(0.3)
        with open(srv.log_path) as f:
            log = f.read()
        prio = re.findall(r"recv HEADERS frame <length=\d+, flags=0x[0-9a-f]+, stream_id=(\d+)>"
                          r"[^<]*?dep_stream_id=(\d+), weight=(\d+), exclusive=(\d)", log)
        expect_eq(sorted((int(i), w, e) for i, _, w, e in prio),
                  [(1, "183", "1"), (3, "183", "1"), (5, "183", "1")],
                  "priorities nghttpd received")
        # Each depends on the root or an earlier stream still open (the chain).
        expect(all(int(d) < int(i) for i, d, _, _ in prio), "dependencies: %r" % prio)
        expect_eq(len(re.findall(r"recv \(stream_id=\d+\) priority: u=2, i$", log, re.M)), 3,
                  "requests with the RFC 9218 priority header")
def _testserver_h2(ctx, extra=()):
    return e2e.testserver(ctx, HOST, ["--http2"] + list(extra), name="testserver-h2")


def testserver_twenty_requests_one_connection(ctx):
    with _testserver_h2(ctx) as srv:
        _twenty(ctx, srv.port)
        tail = e2e.LogTail(srv.log)
        tail.offset = 0
        conns = tail.events("connection")
        expect_eq(len(conns), 1, "connection lines in the testserver's log: %r" % conns)
        c = conns[0]
        expect_eq((c.get("alpn"), c.get("streams")), ("h2", 20),
                  "the connection line's alpn and streams: %r" % c)
        requests = tail.events("request")
        expect_eq(len(requests), 20, "request lines")
        expect(all(r["conn"] == c["conn"] and r.get("proto") == "h2" for r in requests),
               "request lines not all h2 on connection %s: %r" % (c["conn"], requests))
        expect_eq(sorted(r["stream"] for r in requests), list(range(1, 40, 2)),
                  "streams in the server's log")


def testserver_ten_megabytes_through_flow_control(ctx):
    with _testserver_h2(ctx) as srv:
        out = ctx.scratch("h2-size.out")
        r = _fetch(ctx, srv.port, ["https://%s:%d/size/%d" % (HOST, srv.port, BIG)],
                   "-o", out).expect_ok()
        with open(out, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
        expect_eq(got, hashlib.sha256(e2e.generated_body(BIG)).hexdigest(),
                  "SHA-256 of /size/%d" % BIG)
        t = r.trace[0]
        expect_eq((t["tls"]["alpn"], t["encodedBodySize"]), ("h2", BIG), "the 10 MB response")


def testserver_channel_bound_cookies_over_h2(ctx):
    with _testserver_h2(ctx, ["--request-client-cert"]) as srv:
        profile = ctx.scratch("h2-obc-profile")

        def run(path):
            return _fetch(ctx, srv.port, ["https://%s:%d/%s" % (HOST, srv.port, path)],
                          "--obc", "ecdsa", "--profile", profile, "-v").expect_ok()

        login = run("obc/login")
        expect_eq((login.trace[0]["status"], login.trace[0]["tls"]["alpn"]), (200, "h2"),
                  "login over h2")
        spki = re.findall(r"^< x-obc-spki-sha256: ([0-9a-f]+)\s*$", login.err, re.M | re.I)
        expect(len(spki) == 1, "login: x-obc-spki-sha256 %r\n%s" % (spki, login.describe()))
        whoami = run("obc/whoami")
        expect_eq(whoami.trace[0]["status"], 200, "whoami with the cookie over h2")
        body = whoami.out.decode()
        expect('"bound_to":"%s"' % spki[0] in body, "whoami: %r" % body)
        tail = e2e.LogTail(srv.log)
        tail.offset = 0
        conns = tail.events("connection")
        expect_eq([c.get("alpn") for c in conns], ["h2", "h2"], "connections")
        expect(all(c.get("obc_spki_sha256") == spki[0] for c in conns),
               "the connection lines' OBC: %r" % conns)
        verdicts = [r.get("obc_cookie") for r in tail.events("request")]
        expect_eq(verdicts, ["issued", "accepted"], "the cookie verdicts in the log")


def nghttpd_ten_megabytes_through_flow_control(ctx):
    root = _docroot(ctx)
    with _nghttpd(ctx, root) as srv:
        _ten_megabytes(ctx, srv.port, root)


# --- misbehaving servers ------------------------------------------------------------------


def _frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", sid) \
        + payload


def _hpack_int(v, bits):
    top = (1 << bits) - 1
    if v < top:
        return bytes([v])
    out = [top]
    v -= top
    while v >= 128:
        out.append(v % 128 + 128)
        v //= 128
    out.append(v)
    return bytes(out)


def _literal(name, value):
    """A literal header field without indexing, new name (RFC 7541 6.2.2), no Huffman."""
    return b"\x00" + _hpack_int(len(name), 7) + name + _hpack_int(len(value), 7) + value


def _tls_h2(ctx):
    chain, key = e2e.leaf_files(ctx, HOST)
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    c.load_cert_chain(chain, key)
    c.set_alpn_protocols(["h2"])
    return c


def _read_request(conn):
    """Reads the client preface and frames until its first HEADERS; returns what was read."""
    data = b""
    while True:
        d = conn.recv(65536)
        if not d:
            return data
        data += d
        pos = 24
        while pos + 9 <= len(data):
            length = struct.unpack(">I", b"\x00" + data[pos:pos + 3])[0]
            if data[pos + 3] == HEADERS:
                return data
            pos += 9 + length


def _fake(ctx, behave, alpn=("h2",)):
    tls = _tls_h2(ctx)
    tls.set_alpn_protocols(list(alpn))

    def handler(srv, conn):
        conn = tls.wrap_socket(conn, server_side=True)
        srv.seen.append(conn.selected_alpn_protocol())
        behave(srv, conn)

    return e2e.TinyServer(handler)


def never_sends_settings(ctx):
    def silent(srv, conn):
        conn.settimeout(30)
        _read_request(conn)
        while conn.recv(65536):  # never answers; until the client gives up
            pass
        srv.seen.append("closed")

    with _fake(ctx, silent) as srv:
        t0 = time.monotonic()
        r = _fetch(ctx, srv.port, ["https://%s:%d/" % (HOST, srv.port)])
        secs = time.monotonic() - t0
        r.expect_error(16, "ERR_HTTP2_SETTINGS_TIMEOUT", r"SETTINGS")
        expect(9.5 < secs < 20, "gave up after %.1fs, not the 10 s settings timeout" % secs)
        expect_eq(srv.seen[0], "h2", "ALPN the fake server chose")


def _headers_then(behave_after):
    def run(srv, conn):
        _read_request(conn)
        conn.sendall(_frame(SETTINGS, 0, 0) + _frame(SETTINGS, FLAG_ACK, 0))
        behave_after(srv, conn)
    return run


def oversized_header_block(ctx):
    def big(srv, conn):
        block = b"\x88"  # :status 200 (static table index 8)
        for i in range(75):
            block += _literal(b"x-filler-%d" % i, b"f" * 4000)
        chunks = [block[i:i + 16384] for i in range(0, len(block), 16384)]
        out = _frame(HEADERS, FLAG_END_HEADERS if len(chunks) == 1 else 0, 1, chunks[0])
        for i, c in enumerate(chunks[1:]):
            out += _frame(CONTINUATION, FLAG_END_HEADERS if i == len(chunks) - 2 else 0, 1, c)
        srv.seen.append(len(block))
        conn.sendall(out)
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass

    with _fake(ctx, _headers_then(big)) as srv:
        r = _fetch(ctx, srv.port, ["https://%s:%d/" % (HOST, srv.port)])
        r.expect_error(8, "ERR_RESPONSE_HEADERS_TOO_BIG")
        expect(srv.seen[1] > 256 * 1024, "block size %r" % srv.seen)


def endless_header_block(ctx):
    def endless(srv, conn):
        conn.sendall(_frame(HEADERS, 0, 1, b"\x88"))
        sent = 0
        try:
            while sent < 1000000:  # 1 M empty CONTINUATION frames: the client must stop first
                conn.sendall(_frame(CONTINUATION, 0, 1) * 100)
                sent += 100
        except OSError:
            pass
        srv.seen.append(sent)

    with _fake(ctx, _headers_then(endless)) as srv:
        t0 = time.monotonic()
        r = _fetch(ctx, srv.port, ["https://%s:%d/" % (HOST, srv.port)])
        r.expect_error(16, "ERR_HTTP2_FLOOD_DETECTED")
        expect(time.monotonic() - t0 < 10, "took %.1fs" % (time.monotonic() - t0))
        time.sleep(0.5)
        expect(len(srv.seen) == 2 and srv.seen[1] < 1000000,
               "the server sent CONTINUATION frames until it stopped by itself: %r" % srv.seen)


# --- the test server's ORIGIN frames and 421 (testserver --http2) ----------------------------


def _testserver_origin(ctx, flags):
    """testserver --http2 with the shared tls12 leaf on a port chosen first, so that |flags|
    (a function of the port) can name its origins."""
    port = e2e.free_port()
    leaf = os.path.join(ctx.pki, SHARED_LEAF)
    log = ctx.scratch("testserver-origin.jsonl")
    argv = [ctx.args.testserver, "--listen", "127.0.0.1:%d" % port,
            "--cert-chain", os.path.join(leaf, "chain.pem"), "--key", os.path.join(leaf, "key.pem"),
            "--log", log, "--quiet", "--http2"] + flags(port)

    def ready(p):
        line = p.read_stdout_line()
        return bool(line) and line.strip() == "ready"

    peer = e2e.Peer("testserver-origin", argv, ctx.scratch("testserver-origin.err"), ready=ready,
                    stdout_pipe=True)
    peer.port, peer.log = port, log
    return peer


def _server_requests(srv):
    tail = e2e.LogTail(srv.log)
    tail.offset = 0
    return tail.events("request"), tail.events("connection")


def testserver_origin_frame_coalesces_without_dns(ctx):
    """The server's ORIGIN frame lists slow12: its request goes over tls12's session with no
    lookup at all (fetch cannot resolve slow12 here)."""
    with _testserver_origin(ctx, lambda port: [
            "--h2-origin-frame", "https://%s:%d" % (SHARED[1], port)]) as srv:
        urls = _shared_urls(srv.port, ["size/10", "size/20"])
        r = _fetch(ctx, srv.port, urls, *_quiet(urls), names=SHARED[:1]).expect_ok()
        h2 = r.trace[1]["h2"]
        expect_eq((h2["coalesced"], h2["coalescedBy"], r.trace[1]["dns"]["source"]),
                  (True, "originFrame", "reused"), "slow12's request: %r" % r.trace[1])
        expect_eq(r.trace[1]["encodedBodySize"], 20, "slow12's body")
        srv.stop()
        requests, conns = _server_requests(srv)
        expect_eq([(q.get("host"), q.get("status")) for q in requests],
                  [("%s:%d" % (SHARED[0], srv.port), 200), ("%s:%d" % (SHARED[1], srv.port), 200)],
                  "the server's request lines")
        expect_eq([c.get("streams") for c in conns], [2], "connections (streams each)")


def testserver_origin_frame_narrows_and_421(ctx):
    """An ORIGIN frame that lists only tls12 keeps slow12 off its session even at the same
    address (h2.notCoalescedReason "originFrame"); one that lists slow12 while the server
    answers it 421 gets the request retried, once, on a connection of its own."""
    with _testserver_origin(ctx, lambda port: [
            "--h2-origin-frame", "https://%s:%d" % (SHARED[0], port)]) as srv:
        urls = _shared_urls(srv.port, ["size/10", "size/20"])
        r = _fetch(ctx, srv.port, urls, *_quiet(urls), names=SHARED).expect_ok()
        h2 = r.trace[1]["h2"]
        expect_eq((h2["coalesced"], h2["notCoalescedReason"], h2["session"]),
                  (False, "originFrame", "new"), "slow12's request: %r" % h2)
        srv.stop()
        _, conns = _server_requests(srv)
        expect_eq([c.get("streams") for c in conns], [1, 1], "connections (streams each)")
    with _testserver_origin(ctx, lambda port: [
            "--h2-origin-frame", "https://%s:%d" % (SHARED[1], port),
            "--h2-misdirect", SHARED[1]]) as srv:
        urls = _shared_urls(srv.port, ["size/10", "size/20"])
        r = _fetch(ctx, srv.port, urls, *_quiet(urls), names=SHARED).expect_ok()
        t1 = r.trace[1]
        # This server answers slow12 421 on any connection: retried once, then the response.
        expect_eq((t1["status"], t1["h2"]["session"]), (421, "new"), "slow12's request")
        expect(t1["h2"]["retry"].startswith("misdirected (421) on a coalesced session"),
               "h2.retry: %r" % t1["h2"]["retry"])
        srv.stop()
        requests, conns = _server_requests(srv)
        expect_eq([q.get("status") for q in requests], [200, 421, 421], "the server's statuses")
        expect_eq(sorted(c.get("streams") for c in conns), [1, 2], "connections (streams each)")


def _http11_required(send_refusal):
    """A server that refuses h2 with HTTP_1_1_REQUIRED (|send_refusal| writes the frame) and
    answers HTTP/1.1; it records each connection's ALPN."""
    def run(srv, conn):
        if conn.selected_alpn_protocol() == "h2":
            _read_request(conn)
            conn.sendall(_frame(SETTINGS, 0, 0) + _frame(SETTINGS, FLAG_ACK, 0))
            send_refusal(conn)
            try:
                while conn.recv(65536):
                    pass
            except OSError:
                pass
            return
        data = b""
        while b"\r\n\r\n" not in data:
            d = conn.recv(65536)
            if not d:
                return
            data += d
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        conn.close()
    return run


def _check_http11_required(ctx, send_refusal):
    with _fake(ctx, _http11_required(send_refusal), alpn=("h2", "http/1.1")) as srv:
        urls = ["https://%s:%d/%s" % (HOST, srv.port, p) for p in ("a", "b")]
        out = ctx.scratch("http11.out")
        r = _fetch(ctx, srv.port, urls, "-o", out, "-o", "/dev/null").expect_ok()
        with open(out) as f:
            expect_eq(f.read(), "ok", "the body over HTTP/1.1")
        first, second = r.trace
        expect_eq((first["tls"]["alpn"], first["h2"]["retry"]),
                  ("http/1.1", "HTTP_1_1_REQUIRED: retried over HTTP/1.1 on a new connection"),
                  "the refused request")
        expect_eq((second["tls"]["alpn"], "h2" in second), ("http/1.1", False),
                  "the next request")
        # The retry and the next request offered only http/1.1 (else the server picks h2).
        expect_eq(srv.seen, ["h2", "http/1.1", "http/1.1"], "ALPN of each connection")


def http11_required_by_rst_stream(ctx):
    _check_http11_required(ctx, lambda conn: conn.sendall(
        _frame(RST_STREAM, 0, 1, struct.pack(">I", HTTP_1_1_REQUIRED))))


def http11_required_by_goaway(ctx):
    _check_http11_required(ctx, lambda conn: conn.sendall(
        _frame(GOAWAY, 0, 0, struct.pack(">II", 0, HTTP_1_1_REQUIRED))))


if __name__ == "__main__":
    # The world only for its PKI: this script starts its own peers.
    e2e.main(world_args=("--no-nginx", "--no-dns"), checks=[
        nginx_twenty_requests_one_connection,
        nginx_ten_megabytes_through_flow_control,
        nginx_coalesces_two_names_on_one_connection,
        nginx_misdirected_request_retried_on_its_own_connection,
        nginx_origin_bound_certificates_and_coalescing,
        nghttpd_twenty_requests_one_connection,
        nghttpd_priorities,
        nghttpd_ten_megabytes_through_flow_control,
        testserver_twenty_requests_one_connection,
        testserver_ten_megabytes_through_flow_control,
        testserver_channel_bound_cookies_over_h2,
        never_sends_settings,
        oversized_header_block,
        endless_header_block,
        http11_required_by_rst_stream,
        http11_required_by_goaway,
        testserver_origin_frame_coalesces_without_dns,
        testserver_origin_frame_narrows_and_421,
    ])
