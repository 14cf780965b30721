#!/usr/bin/env python3
"""Every failure ends with its own exit code and a clear `fetch: URL: ERR_NAME (-N): detail` line:
name resolution, refused and timed-out connects, certificate errors (world fixtures), a server
closing mid-handshake, TLS version mismatch, malformed / empty / truncated HTTP responses, HTTP
errors with --fail, bad URLs and write errors. See tests/README.md."""

import os
import socket
import time

import e2e
from e2e import expect, expect_eq


def name_not_resolved(ctx):
    url = "https://nonexistent.invalid/"
    r = ctx.fetch("--max-time", "20", url, trace=True, timeout=40)
    r.expect_error(6, "ERR_NAME_NOT_RESOLVED", r"nonexistent\.invalid")
    expect_eq(r.error_lines()[0]["url"], url, "URL in the error line")
    expect_eq(r.error_lines()[0]["code"], "-403", "net error number (the DNS range)")
    expect_eq(r.trace[0]["error"], "ERR_NAME_NOT_RESOLVED", "trace error")
    expect_eq(r.trace[0]["responseEnd"], None, "trace responseEnd of a failed request")


def connection_refused(ctx):
    # A bound but not listening socket holds the port: connects to it are refused, and nothing
    # else can take the port meanwhile.
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        for scheme in ("http", "https"):
            url = "%s://127.0.0.1:%d/" % (scheme, port)
            r = ctx.fetch(url, trace=True)
            r.expect_error(7, "ERR_CONNECTION_REFUSED", r"127\.0\.0\.1:%d" % port)
            expect_eq(r.trace[0]["error"], "ERR_CONNECTION_REFUSED", "trace error")
            expect(r.secs < 5, "refusal took %.1fs" % r.secs)
    finally:
        s.close()


def connect_timeout(ctx):
    """A listener with backlog 0 whose queue is full of unaccepted connections: the kernel drops
    further SYNs, so the connect hangs until --connect-timeout."""
    lst = socket.socket()
    fillers = []
    try:
        lst.bind(("127.0.0.1", 0))
        lst.listen(0)
        port = lst.getsockname()[1]
        for _ in range(4):
            c = socket.socket()
            c.setblocking(False)
            try:
                c.connect(("127.0.0.1", port))
            except (BlockingIOError, InterruptedError):
                pass
            fillers.append(c)
        time.sleep(0.2)
        url = "http://127.0.0.1:%d/" % port
        r = ctx.fetch("--connect-timeout", "0.5", url, timeout=20)
        r.expect_error(28, "ERR_CONNECTION_TIMED_OUT")
        expect(0.4 < r.secs < 3, "connect timeout after %.2fs, expected about 0.5s" % r.secs)
    finally:
        for c in fillers:
            c.close()
        lst.close()


def request_timeout(ctx):
    """--max-time: a server that accepts, reads the request and never answers."""
    def hold(srv, conn):
        e2e.read_request_head(conn)
        conn.settimeout(5)
        conn.recv(1)  # returns when fetch gives up and closes

    with e2e.TinyServer(hold) as srv:
        r = ctx.fetch("--max-time", "0.5", "http://127.0.0.1:%d/" % srv.port, timeout=20)
        r.expect_error(28, "ERR_TIMED_OUT")
        expect(0.4 < r.secs < 3, "request timeout after %.2fs, expected about 0.5s" % r.secs)


def _cert_error(ctx, origin, name, detail_re):
    url = ctx.url(origin)
    r = ctx.fetch(url, trace=True)
    r.expect_error(60, name, detail_re)
    expect_eq(r.error_lines()[0]["url"], url, "URL in the error line")
    expect_eq(r.trace[0]["cert"]["verifyResult"], name, "trace cert.verifyResult")
    expect_eq(r.out, b"", "stdout of a failed fetch")


def cert_untrusted(ctx):
    _cert_error(ctx, "untrusted", "ERR_CERT_AUTHORITY_INVALID", r"(?i)self.signed|issuer")


def cert_wrong_name(ctx):
    _cert_error(ctx, "wrongname", "ERR_CERT_COMMON_NAME_INVALID", r"(?i)hostname|name")


def cert_expired(ctx):
    _cert_error(ctx, "expired", "ERR_CERT_DATE_INVALID", r"(?i)expired")


def handshake_closed(ctx):
    """A server that reads the whole ClientHello record and closes."""
    def close_after_hello(srv, conn):
        head = b""
        while len(head) < 5:
            d = conn.recv(5 - len(head))
            if not d:
                return
            head += d
        want = int.from_bytes(head[3:5], "big")
        body = b""
        while len(body) < want:
            d = conn.recv(want - len(body))
            if not d:
                break
            body += d
        srv.seen.append((head[0], body[:1]))
        conn.shutdown(socket.SHUT_RDWR)

    with e2e.TinyServer(close_after_hello) as srv:
        r = ctx.fetch("--max-time", "5", "https://127.0.0.1:%d/" % srv.port, timeout=20)
    expect_eq(srv.seen[:1], [(0x16, b"\x01")],
              "server saw a handshake record holding a ClientHello (%s)" % srv.errors)
    r.expect_error(35, "ERR_SSL_HANDSHAKE_CLOSED")
    expect_eq(r.error_lines()[0]["code"], "-506", "net error number (the TLS range)")


def tls_version_mismatch(ctx):
    r = ctx.fetch("--tls-min", "1.3", ctx.url("tls12"))
    r.expect_error(35, "ERR_SSL_VERSION_OR_CIPHER_MISMATCH")


def _http_peer(ctx, answer, expect_rc, name, detail_re=None):
    def respond(srv, conn):
        e2e.read_request_head(conn)
        if answer:
            conn.sendall(answer)
        conn.shutdown(socket.SHUT_RDWR)

    with e2e.TinyServer(respond) as srv:
        url = "http://127.0.0.1:%d/" % srv.port
        r = ctx.fetch("--max-time", "5", url, timeout=20)
        expect(not srv.errors, "tiny server: %s" % srv.errors)
    r.expect_error(expect_rc, name, detail_re)
    expect_eq(r.error_lines()[0]["url"], url, "URL in the error line")
    return r


def malformed_response(ctx):
    _http_peer(ctx, b"garbage\r\n\r\n", 8, "ERR_INVALID_HTTP_RESPONSE")


def empty_response(ctx):
    _http_peer(ctx, b"", 52, "ERR_EMPTY_RESPONSE")


def truncated_body(ctx):
    _http_peer(ctx, b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", 18,
               "ERR_CONTENT_LENGTH_MISMATCH", r"90")


def truncated_chunked_body(ctx):
    _http_peer(ctx, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n", 18,
               "ERR_INCOMPLETE_CHUNKED_ENCODING")


def http_error_with_fail(ctx):
    url = ctx.url("www", "no-such-file")
    r = ctx.fetch("--fail", url).expect_rc(22)
    expect("404" in r.err and url in r.err, "stderr should name the URL and status: %r" % r.err)
    ctx.fetch(url).expect_ok()  # without --fail a 404 is a successful fetch


def bad_url(ctx):
    for url in ("ftp://example.test/", "https://", "not a url"):
        r = ctx.fetch(url).expect_rc(3)
        expect("invalid URL" in r.err, "stderr for %r: %r" % (url, r.err))


def write_error(ctx):
    r = ctx.fetch("-o", "/nonexistent-dir/out", ctx.url("www", "size/10")).expect_rc(23)
    expect("/nonexistent-dir/out" in r.err, "stderr should name the file: %r" % r.err)


def one_line_per_failure(ctx):
    """Several failing URLs in one run: one error line each, and the first failure's exit code."""
    urls = [ctx.url("expired"), "https://nonexistent.invalid/", ctx.url("www", "size/1")]
    r = ctx.fetch("-o", os.devnull, *urls)
    expect_eq(r.rc, 60, "exit code (first failure)")
    expect_eq([(l["url"], l["name"]) for l in r.error_lines()],
              [(urls[0], "ERR_CERT_DATE_INVALID"), (urls[1], "ERR_NAME_NOT_RESOLVED")],
              "error lines")


# ---------------------------------------------------------------------------- trace of failures


def failed_request_trace(ctx):
    """Regression: a failed request's --trace-json leaves the points that did not happen null
    (never a fallback that breaks the order), and its --trace-events still has a "request" slice
    ending where the request failed."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    try:
        problems = []
        for url in ("http://127.0.0.1:%d/" % s.getsockname()[1], ctx.url("expired")):
            r = ctx.fetch(url, trace=True, events=True)
            expect(r.rc != 0, "fetch of %s succeeded" % url)
            t = r.trace[0]
            seen = [(p, t[p]) for p in e2e.TIMING_POINTS if t.get(p) is not None]
            for (a, va), (b, vb) in zip(seen, seen[1:]):
                if va > vb:
                    problems.append("%s: %s %s > %s %s" % (url, a, va, b, vb))
            names = [e["name"] for e in r.events["traceEvents"] if e.get("ph") == "X"]
            if "request" not in names:
                problems.append("%s: trace-events slices %s lack 'request'" % (url, names))
        expect(not problems, "\n".join(problems))
    finally:
        s.close()


CHECKS = [name_not_resolved, connection_refused, connect_timeout, request_timeout, cert_untrusted,
          cert_wrong_name, cert_expired, handshake_closed, tls_version_mismatch,
          malformed_response, empty_response, truncated_body, truncated_chunked_body,
          http_error_with_fail, bad_url, write_error, one_line_per_failure, failed_request_trace]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100)
