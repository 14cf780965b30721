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
- A response header block of 300 KB (fields of 4 KB, HEADERS + CONTINUATION):
  ERR_RESPONSE_HEADERS_TOO_BIG (our 256 KB header list limit); a header block that never ends
  (CONTINUATION after CONTINUATION): ERR_HTTP2_FLOOD_DETECTED, and the server could send only a
  bounded number of frames before we closed.
See tests/README.md."""

import hashlib
import os
import re
import shutil
import ssl
import struct
import time

import e2e
from e2e import expect, expect_eq

HOST = "www.example.test"
FLAG_END_STREAM, FLAG_ACK, FLAG_END_HEADERS = 0x1, 0x1, 0x4
HEADERS, SETTINGS, CONTINUATION = 0x1, 0x4, 0x9
BIG = 10 * 1024 * 1024


def _binary(name):
    """|name| from PATH or /usr/sbin (tools/setup.sh installs nginx and nghttp2-server)."""
    path = shutil.which(name) or next(
        (p for p in ("/usr/sbin/" + name, "/usr/local/sbin/" + name) if os.access(p, os.X_OK)),
        None)
    if not path:
        raise e2e.PeerMissing("%s is not installed (tools/setup.sh installs it)" % name)
    return path


def _leaf(ctx):
    d = os.path.join(ctx.pki, HOST)
    return os.path.join(d, "chain.pem"), os.path.join(d, "key.pem")


def _fetch(ctx, port, urls, *args, timeout=60):
    return ctx.fetch("--resolve", "%s:%d:127.0.0.1" % (HOST, port), "--trust-anchor",
                     ctx.root_pem, "--max-time", "30", *args, *urls, world=False, trace=True,
                     timeout=timeout)


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


def _nginx(ctx, root):
    chain, key = _leaf(ctx)
    d = ctx.scratch("nginx-h2")
    os.makedirs(os.path.join(d, "logs"), exist_ok=True)
    port = e2e.free_port()
    access = os.path.join(d, "logs", "access.log")
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""
%(user)s
daemon off;
master_process on;
worker_processes 1;
pid %(d)s/nginx.pid;
error_log %(d)s/logs/error.log info;
events { worker_connections 256; }
http {
    default_type application/octet-stream;
    log_format h2 'conn=$connection proto=$server_protocol alpn=$ssl_alpn_protocol '
                  '"$request" $status $body_bytes_sent';
    access_log %(access)s h2;
    client_body_temp_path %(d)s/cb;
    proxy_temp_path %(d)s/px;
    fastcgi_temp_path %(d)s/fc;
    uwsgi_temp_path %(d)s/uw;
    scgi_temp_path %(d)s/sc;
    server {
        listen 127.0.0.1:%(port)d ssl http2;
        server_name %(host)s;
        ssl_certificate %(chain)s;
        ssl_certificate_key %(key)s;
        root %(root)s;
    }
}
""" % {"user": "user root root;" if os.geteuid() == 0 else "", "d": d, "access": access,
       "port": port, "host": HOST, "chain": chain, "key": key, "root": root})
    peer = e2e.Peer("nginx-h2", [_binary("nginx"), "-p", d + "/", "-c", conf, "-e",
                                 os.path.join(d, "logs", "error.log")],
                    ctx.scratch("nginx-h2.out"), ready=lambda p: e2e.is_listening(port))
    peer.port, peer.access = port, access
    return peer


def _nghttpd(ctx, root):
    chain, key = _leaf(ctx)
    port = e2e.free_port()
    log = ctx.scratch("nghttpd.log")
    peer = e2e.Peer("nghttpd", [_binary("nghttpd"), "-a", "127.0.0.1", "-d", root, "-v", str(port), key,
                                chain], log, ready=lambda p: e2e.is_listening(port))
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
    chain, key = _leaf(ctx)
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


def _fake(ctx, behave):
    tls = _tls_h2(ctx)

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


if __name__ == "__main__":
    # The world only for its PKI: this script starts its own peers.
    e2e.main(world_args=("--no-nginx", "--no-dns"), checks=[
        nginx_twenty_requests_one_connection,
        nginx_ten_megabytes_through_flow_control,
        nghttpd_twenty_requests_one_connection,
        nghttpd_ten_megabytes_through_flow_control,
        testserver_twenty_requests_one_connection,
        testserver_ten_megabytes_through_flow_control,
        testserver_channel_bound_cookies_over_h2,
        never_sends_settings,
        oversized_header_block,
        endless_header_block,
    ])
