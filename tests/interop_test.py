#!/usr/bin/env python3
"""fetch against real peers: nginx (TLS 1.2 and 1.3, RSA and ECDSA), openssl s_server (TLS 1.2
ECDHE-RSA, ECDHE-ECDSA, static RSA; TLS 1.3) and our testserver (HTTPS 1.2/1.3, plain HTTP,
Content-Length and chunked bodies). See tests/README.md."""

import json
import os
import re

import e2e
from e2e import CheckFailed, expect, expect_eq


def _whoami(ctx, origin, tls_max):
    tail = e2e.LogTail(ctx.log_path("nginx-access"))
    r = ctx.fetch("--tls-max", tls_max, "--max-time", "10", ctx.url(origin, "whoami"),
                  trace=True).expect_ok()
    proto = "TLSv" + tls_max
    body = r.out.decode("utf-8", "replace")
    expect(body.startswith("proto=%s " % proto),
           "nginx /whoami says %r, expected proto=%s" % (body.strip(), proto))
    expect_eq(len(r.trace), 1, "trace objects")
    t = r.trace[0]
    e2e.check_trace_object(t, https=True)
    expect_eq(t["status"], 200, "status")
    expect_eq(t["error"], "OK", "trace error")
    expect_eq(t["tls"]["version"], proto, "trace tls.version")
    expect_eq(t["cert"]["verifyResult"], "OK", "trace cert.verifyResult")
    expect_eq(t["remoteAddress"], "%s:%d" % (ctx.origin(origin)["address"],
                                             ctx.origin(origin)["port"]), "remoteAddress")
    log = tail.text()
    expect(re.search(r'"GET /whoami HTTP/1\.1" 200 \d+ proto=%s ' % re.escape(proto), log),
           "nginx access log has no /whoami over %s:\n%s" % (proto, log))
    return body, t


def nginx_tls12(ctx):
    body, t = _whoami(ctx, "nginx", "1.2")
    expect("ECDHE-RSA" in body, "cipher not ECDHE-RSA: %r" % body)
    expect_eq(t["tls"]["cipher"].startswith("TLS_ECDHE_RSA_"), True,
              "trace cipher %r is ECDHE-RSA" % t["tls"]["cipher"])


def nginx_tls13(ctx):
    body, t = _whoami(ctx, "nginx", "1.3")
    expect(t["tls"]["cipher"].startswith("TLS_AES_") or "CHACHA20" in t["tls"]["cipher"],
           "TLS 1.3 cipher suite expected, got %r" % t["tls"]["cipher"])


def nginx_ecdsa_tls12(ctx):
    body, t = _whoami(ctx, "ecdsa", "1.2")
    expect("ECDHE-ECDSA" in body, "nginx did not use the P-256 certificate: %r" % body)
    expect(t["tls"]["cipher"].startswith("TLS_ECDHE_ECDSA_"),
           "trace cipher %r" % t["tls"]["cipher"])


def nginx_ecdsa_tls13(ctx):
    _whoami(ctx, "ecdsa", "1.3")


def nginx_resumes_on_repeat(ctx):
    """--repeat 3 against nginx: rounds 2-3 resume, and nginx agrees ($ssl_session_reused)."""
    for v in ("1.2", "1.3"):
        tail = e2e.LogTail(ctx.log_path("nginx-access"))
        r = ctx.fetch("--tls-max", v, "--repeat", "3", "--max-time", "10", "-o", os.devnull,
                      ctx.url("nginx", "whoami"), trace=True).expect_ok()
        expect_eq([t["tls"]["resumed"] for t in r.trace], [False, True, True],
                  "TLS %s trace tls.resumed per round" % v)
        reused = re.findall(r"proto=TLSv%s \S+ reused=(\S)" % re.escape(v), tail.text())
        expect_eq(reused, [".", "r", "r"], "TLS %s nginx $ssl_session_reused per request" % v)


def _s_server_fetch(ctx, host, server_args, fetch_args=(), repeat=1):
    with e2e.s_server(ctx, host, server_args) as srv:
        r = ctx.fetch("--resolve", "%s:%d:127.0.0.1" % (host, srv.port),
                      "--trust-anchor", ctx.root_pem, "--max-time", "10",
                      "--repeat", str(repeat), *fetch_args,
                      "https://%s:%d/" % (host, srv.port), world=False, trace=True, timeout=30)
        try:
            r.expect_ok()
        except CheckFailed as e:
            raise CheckFailed("%s\ns_server output:\n%s" % (e, srv.tail()))
        expect(srv.proc.poll() is None, "s_server exited:\n" + srv.tail())
    expect(srv.proc.poll() is not None, "s_server still running after stop")
    body = r.out.decode("latin-1")
    expect_eq(len(r.trace), repeat, "trace objects")
    for t in r.trace:
        e2e.check_trace_object(t, https=True)
        expect_eq(t["status"], 200, "status")
    return body, r.trace


def s_server_tls12_rsa(ctx):
    body, tr = _s_server_fetch(ctx, "www.example.test", ["-tls1_2"])
    expect(re.search(r"Protocol\s*:\s*TLSv1\.2", body),
           "s_server page lacks TLSv1.2:\n" + body[:800])
    expect_eq(tr[0]["tls"]["version"], "TLSv1.2", "trace tls.version")
    expect(tr[0]["tls"]["cipher"].startswith("TLS_ECDHE_RSA_"),
           "cipher %r" % tr[0]["tls"]["cipher"])


def s_server_tls12_ecdsa(ctx):
    body, tr = _s_server_fetch(ctx, "ecdsa.example.test",
                               ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"])
    expect(re.search(r"Cipher\s*:\s*ECDHE-ECDSA-AES128-GCM-SHA256", body),
           "s_server page lacks the ECDSA suite:\n" + body[:800])
    expect_eq(tr[0]["tls"]["cipher"], "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "trace cipher")


def s_server_tls12_static_rsa_resumes(ctx):
    """Static-RSA key exchange (what Snap Start needs), and session-ID resumption on round 2."""
    body, tr = _s_server_fetch(ctx, "www.example.test", ["-tls1_2", "-cipher", "AES128-GCM-SHA256"],
                               ["--ciphers", "AES128-GCM-SHA256"], repeat=2)
    expect(re.search(r"Cipher\s*:\s*AES128-GCM-SHA256", body), "s_server page:\n" + body[:800])
    expect_eq(tr[0]["tls"]["cipher"], "TLS_RSA_WITH_AES_128_GCM_SHA256", "trace cipher")
    expect_eq([t["tls"]["resumed"] for t in tr], [False, True], "tls.resumed per round")


def s_server_tls13_resumes(ctx):
    body, tr = _s_server_fetch(ctx, "www.example.test", ["-tls1_3"], repeat=2)
    expect(re.search(r"Protocol\s*:\s*TLSv1\.3", body),
           "s_server page lacks TLSv1.3:\n" + body[:800])
    expect_eq([t["tls"]["version"] for t in tr], ["TLSv1.3"] * 2, "trace tls.version")
    expect_eq([t["tls"]["resumed"] for t in tr], [False, True], "tls.resumed per round")


def testserver_https(ctx):
    """The world's www testserver over TLS 1.3 and 1.2: /tls (the server's view) agrees with the
    trace; generated bodies arrive intact with Content-Length and chunked framing."""
    for v in ("1.2", "1.3"):
        r = ctx.fetch("--tls-max", v, ctx.url("www", "tls"), trace=True).expect_ok()
        server = json.loads(r.out)
        t = r.trace[0]
        e2e.check_trace_object(t, https=True)
        expect_eq(server["version"], "TLSv" + v, "testserver /tls version")
        expect_eq(t["tls"]["version"], "TLSv" + v, "trace tls.version")
        expect_eq(t["tls"]["cipher"], server["cipher"], "trace cipher vs server's")
        expect_eq(t["tls"]["alpn"], "http/1.1", "ALPN")
    for path, n in (("size/1000000", 1000000), ("chunked/300001", 300001), ("size/0", 0)):
        r = ctx.fetch(ctx.url("www", path), trace=True).expect_ok()
        expect_eq(len(r.out), n, "%s body length" % path)
        expect(r.out == e2e.generated_body(n), "%s body differs from the generated pattern" % path)
        expect_eq(r.trace[0]["encodedBodySize"], n, "%s encodedBodySize" % path)


def testserver_tls12_only_origin(ctx):
    r = ctx.fetch(ctx.url("tls12", "tls"), trace=True).expect_ok()
    expect_eq(r.trace[0]["tls"]["version"], "TLSv1.2", "tls12 origin negotiates 1.2 by default")


def testserver_plain_http(ctx):
    r = ctx.fetch(ctx.url("www_http", "size/5000"), trace=True).expect_ok()
    expect(r.out == e2e.generated_body(5000), "plain http body differs")
    e2e.check_trace_object(r.trace[0], https=False)


def testserver_head_and_headers(ctx):
    r = ctx.fetch("-I", ctx.url("www", "size/1234")).expect_ok()
    head = r.out.decode("latin-1")
    expect(head.startswith("HTTP/1.1 200"), "HEAD output: %r" % head[:200])
    expect(re.search(r"(?im)^content-length: 1234\r?$", head), "HEAD output: %r" % head[:300])


CHECKS = [nginx_tls12, nginx_tls13, nginx_ecdsa_tls12, nginx_ecdsa_tls13, nginx_resumes_on_repeat,
          s_server_tls12_rsa, s_server_tls12_ecdsa, s_server_tls12_static_rsa_resumes,
          s_server_tls13_resumes, testserver_https, testserver_tls12_only_origin,
          testserver_plain_http, testserver_head_and_headers]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100)
