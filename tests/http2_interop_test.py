#!/usr/bin/env python3
"""HTTP/2 against more real servers (issue 24, item 4), beside http2_test's nginx and nghttpd:
h2o 2.2 (its own HTTP/2 stack, Debian `h2o`) and Caddy 2.6 (Go's net/http HTTP/2, Debian
`caddy`), each started here with the world's www.example.test certificate over loopback.

- 20 concurrent requests (-Z) go over ONE connection: every trace names the same h2 session
  (one "new", 19 "reused", stream ids 1..39), and the server's own access log agrees: h2o's
  connection id (`%{connection-id}x`) and HTTP/2 stream id (`%{http2.stream-id}x`) on all 20
  lines, Caddy's JSON log with the same client port and "HTTP/2.0" on all 20.
- A 10 MB body comes through flow control byte for byte (SHA-256), the server logging the 10 MB.
- GOAWAY mid-page: nginx with `keepalive_requests 8` sends GOAWAY after its 8th stream; of 20
  concurrent requests those past its last stream id are retried on a new session (the trace's
  h2.retry), all 20 succeed, and nginx's log shows them on more than one connection, at most 8
  each.
See tests/README.md."""

import hashlib
import json
import os
import re
import time

import e2e
from e2e import expect, expect_eq

HOST = "www.example.test"
BIG = 10 * 1024 * 1024
N = 20


def _fetch(ctx, port, urls, *args, timeout=60):
    return ctx.fetch("--resolve", "%s:%d:127.0.0.1" % (HOST, port), "--trust-anchor",
                     ctx.root_pem, "--max-time", "30", *args, *urls, world=False, trace=True,
                     timeout=timeout)


def _docroot(ctx):
    root = ctx.scratch("h2-interop-docroot")
    os.makedirs(root, exist_ok=True)
    if not os.path.exists(os.path.join(root, "big.bin")):
        with open(os.path.join(root, "big.bin"), "wb") as f:
            f.write(os.urandom(BIG))
        for i in range(N):
            with open(os.path.join(root, "r%d.txt" % i), "w") as f:
                f.write("body of r%d\n" % i)
    os.chmod(root, 0o755)
    for name in os.listdir(root):
        os.chmod(os.path.join(root, name), 0o644)
    return root


def _twenty(ctx, port):
    urls = ["https://%s:%d/r%d.txt" % (HOST, port, i) for i in range(N)]
    outs = []
    for _ in urls:
        outs += ["-o", "/dev/null"]
    r = _fetch(ctx, port, urls, "-Z", *outs).expect_ok()
    expect_eq(len(r.trace), N, "trace entries")
    for t in r.trace:
        expect_eq((t["status"], t["tls"]["alpn"]), (200, "h2"), "a response")
    expect_eq(len({t["h2"]["sessionId"] for t in r.trace}), 1, "sessions named by the traces")
    expect_eq(sorted(t["h2"]["streamId"] for t in r.trace), list(range(1, 2 * N, 2)),
              "stream ids")
    expect_eq(sorted(t["h2"]["session"] for t in r.trace), ["new"] + ["reused"] * (N - 1),
              "session kinds")
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
    expect_eq((t["tls"]["alpn"], t["encodedBodySize"]), ("h2", BIG), "the 10 MB response")
    return r


def _wait_lines(path, pred, n, timeout=3.0):
    """The lines of |path| matching |pred| once there are |n| (servers write logs late)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = []
        if os.path.exists(path):
            with open(path) as f:
                lines = [l for l in f if pred(l)]
        if len(lines) >= n or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


# --- h2o ----------------------------------------------------------------------------------


def _h2o(ctx, root):
    chain, key = e2e.leaf_files(ctx, HOST)
    d = ctx.scratch("h2o")
    os.makedirs(d, exist_ok=True)
    port = e2e.free_port()
    access = os.path.join(d, "access.log")
    conf = os.path.join(d, "h2o.conf")
    with open(conf, "w") as f:
        f.write("""
listen:
  host: 127.0.0.1
  port: %(port)d
  ssl:
    certificate-file: %(chain)s
    key-file: %(key)s
pid-file: %(d)s/h2o.pid
error-log: %(d)s/error.log
%(user)s
access-log:
  path: %(access)s
  format: "conn=%%{connection-id}x stream=%%{http2.stream-id}x proto=%%H \\"%%r\\" %%s %%b"
hosts:
  "%(host)s:%(port)d":
    paths:
      /:
        file.dir: %(root)s
""" % {"port": port, "chain": chain, "key": key, "d": d, "access": access, "host": HOST,
       "root": root, "user": "user: root" if os.geteuid() == 0 else ""})
    peer = e2e.Peer("h2o", [e2e.peer_binary("h2o"), "-c", conf], ctx.scratch("h2o.out"),
                    ready=lambda p: e2e.is_listening(port))
    peer.port, peer.access = port, access
    return peer


def h2o_twenty_requests_one_connection(ctx):
    root = _docroot(ctx)
    with _h2o(ctx, root) as h2o:
        _twenty(ctx, h2o.port)
        lines = _wait_lines(h2o.access, lambda l: '"GET /r' in l, N)
        expect_eq(len(lines), N, "h2o access log lines\n" + "".join(lines))
        conns = {re.search(r"conn=(\d+)", l).group(1) for l in lines}
        expect_eq(len(conns), 1, "connections in h2o's log (its connection-id)")
        streams = sorted(int(re.search(r"stream=(\d+)", l).group(1)) for l in lines)
        expect_eq(streams, list(range(1, 2 * N, 2)), "HTTP/2 stream ids in h2o's log")
        expect(all("proto=HTTP/2" in l for l in lines), "h2o served these over h2:\n" +
               "".join(lines))


def h2o_ten_megabytes_through_flow_control(ctx):
    root = _docroot(ctx)
    with _h2o(ctx, root) as h2o:
        _ten_megabytes(ctx, h2o.port, root)
        lines = _wait_lines(h2o.access, lambda l: "/big.bin" in l, 1)
        expect(lines and lines[0].rstrip().endswith("200 %d" % BIG), "h2o's log: %r" % lines)


# --- Caddy ----------------------------------------------------------------------------------


def _caddy(ctx, root):
    chain, key = e2e.leaf_files(ctx, HOST)
    d = ctx.scratch("caddy")
    os.makedirs(d, exist_ok=True)
    port, http_port = e2e.free_port(), e2e.free_port()
    access = os.path.join(d, "access.log")
    conf = os.path.join(d, "Caddyfile")
    # HTTP/1.1 and h2 only (Caddy would also offer h3 on UDP): this is the h2 check.
    with open(conf, "w") as f:
        f.write("""{
    admin off
    auto_https off
    http_port %(http_port)d
    https_port %(port)d
    servers {
        protocols h1 h2
    }
}
https://%(host)s:%(port)d {
    bind 127.0.0.1
    tls %(chain)s %(key)s
    root * %(root)s
    file_server
    log {
        output file %(access)s
        format json
    }
}
""" % {"port": port, "http_port": http_port, "host": HOST, "chain": chain, "key": key,
       "root": root, "access": access})
    env_dir = os.path.join(d, "home")
    os.makedirs(env_dir, exist_ok=True)
    argv = ["env", "HOME=" + env_dir, "XDG_DATA_HOME=" + env_dir, "XDG_CONFIG_HOME=" + env_dir,
            e2e.peer_binary("caddy"), "run", "--config", conf, "--adapter", "caddyfile"]
    peer = e2e.Peer("caddy", argv, ctx.scratch("caddy.out"),
                    ready=lambda p: e2e.is_listening(port), timeout=20)
    peer.port, peer.access = port, access
    return peer


def _caddy_entries(path, n):
    out = []
    for line in _wait_lines(path, lambda l: l.startswith("{"), n):
        try:
            out.append(json.loads(line))
        except ValueError:
            raise e2e.CheckFailed("Caddy's log is not JSON lines: %r" % line)
    return out


def caddy_twenty_requests_one_connection(ctx):
    root = _docroot(ctx)
    with _caddy(ctx, root) as caddy:
        _twenty(ctx, caddy.port)
        entries = [e for e in _caddy_entries(caddy.access, N)
                   if e.get("request", {}).get("uri", "").startswith("/r")]
        expect_eq(len(entries), N, "Caddy access log entries")
        expect_eq({e["request"]["proto"] for e in entries}, {"HTTP/2.0"}, "protocols Caddy logged")
        # One TCP connection: one client address and port on every request.
        expect_eq(len({(e["request"]["remote_ip"], e["request"]["remote_port"])
                       for e in entries}), 1, "client ports in Caddy's log")
        expect_eq({e["request"]["tls"]["proto"] for e in entries}, {"h2"}, "ALPN Caddy logged")


def caddy_ten_megabytes_through_flow_control(ctx):
    root = _docroot(ctx)
    with _caddy(ctx, root) as caddy:
        _ten_megabytes(ctx, caddy.port, root)
        entries = [e for e in _caddy_entries(caddy.access, 1)
                   if e.get("request", {}).get("uri") == "/big.bin"]
        expect_eq([(e["request"]["proto"], e["status"], e["size"]) for e in entries],
                  [("HTTP/2.0", 200, BIG)], "Caddy's log of the 10 MB response")


# --- GOAWAY mid-page (nginx) ------------------------------------------------------------------


KEEPALIVE_REQUESTS = 8


def _nginx_goaway(ctx, root):
    chain, key = e2e.leaf_files(ctx, HOST)
    return e2e.nginx(ctx, "nginx-goaway", """
    default_type application/octet-stream;
    log_format h2 'conn=$connection n=$connection_requests proto=$server_protocol "$request" '
                  '$status';
    access_log %%(access)s h2;
    keepalive_requests %(limit)d;
    server {
        listen 127.0.0.1:%%(port)d ssl http2;
        server_name %(host)s;
        ssl_certificate %(chain)s;
        ssl_certificate_key %(key)s;
        root %(root)s;
    }
""" % {"host": HOST, "chain": chain, "key": key, "root": root, "limit": KEEPALIVE_REQUESTS})


def nginx_goaway_mid_page(ctx):
    root = _docroot(ctx)
    with _nginx_goaway(ctx, root) as nginx:
        urls = ["https://%s:%d/r%d.txt" % (HOST, nginx.port, i) for i in range(N)]
        outs = []
        for _ in urls:
            outs += ["-o", "/dev/null"]
        r = _fetch(ctx, nginx.port, urls, "-Z", *outs).expect_ok()
        expect_eq([t["status"] for t in r.trace], [200] * N, "statuses")
        sessions = {t["h2"]["sessionId"] for t in r.trace}
        expect(len(sessions) >= 2, "one session carried all 20 past nginx's GOAWAY: %r" %
               sessions)
        retried = [t for t in r.trace if t["h2"].get("retry")]
        expect(retried, "no request says it was retried after the GOAWAY")
        expect(all("GOAWAY" in t["h2"]["retry"] for t in retried),
               "retry reasons: %r" % [t["h2"]["retry"] for t in retried])
        lines = _wait_lines(nginx.access, lambda l: '"GET /r' in l, N)
        expect_eq(len(lines), N, "nginx access log lines (each request served once)")
        per_conn = {}
        for l in lines:
            c = re.search(r"conn=(\d+)", l).group(1)
            per_conn[c] = per_conn.get(c, 0) + 1
        expect(len(per_conn) >= 2 and max(per_conn.values()) <= KEEPALIVE_REQUESTS,
               "requests per nginx connection: %r" % per_conn)
        print("    nginx keepalive_requests %d: %d sessions, %d retried, per connection %s" % (
            KEEPALIVE_REQUESTS, len(sessions), len(retried), sorted(per_conn.values())))


if __name__ == "__main__":
    # The world only for its PKI: this script starts its own peers.
    e2e.main(world_args=("--no-nginx", "--no-dns"), checks=[
        h2o_twenty_requests_one_connection,
        h2o_ten_megabytes_through_flow_control,
        caddy_twenty_requests_one_connection,
        caddy_ten_megabytes_through_flow_control,
        nginx_goaway_mid_page,
    ])
