#!/usr/bin/env python3
"""Server-side session caches (net/session_cache) in the testserver: `--session-cache
POLICY:N[,WAYS]` resumes TLS 1.2 session IDs through the external cache against our client
(`fetch --repeat`) and against `openssl s_client -reconnect`; PRED admits by the
`X-Next-Connect` header and keeps an announced client's session where LRU evicts it; `builtin`
and `none`; bad specs. See tests/README.md.

Each check starts its own testserver (TLS 1.2 only: TLS 1.3 resumes by ticket, never by session
ID) with the world's PKI and reads its JSON log and its /session-cache counters."""

import json
import os
import subprocess
import time

import e2e
from e2e import expect, expect_eq

HOST = "www.example.test"


def _server(ctx, spec, extra=(), name=None):
    return e2e.testserver(ctx, HOST, ["--tls-max", "1.2", "--session-cache", spec] + list(extra),
                          name=name or "testserver-" + spec.replace(":", "-").replace(",", "-"))


def _fetch(ctx, srv, *args, path="size/10", timeout=30):
    return ctx.fetch("--resolve", "%s:%d:127.0.0.1" % (HOST, srv.port), "--trust-anchor",
                     ctx.root_pem, "--max-time", "10", *args,
                     "https://%s:%d/%s" % (HOST, srv.port, path), world=False, trace=True,
                     timeout=timeout)


def _stats(ctx, srv):
    r = _fetch(ctx, srv, path="session-cache").expect_ok()
    return json.loads(r.out.decode())


def _handshakes(lines):
    return [l["handshake"] for l in lines if l.get("event") == "connection"]


def _s_client_reconnect(ctx, srv):
    """openssl s_client -reconnect: one full handshake, then five reconnections offering the
    session. Returns the New/Reused lines."""
    argv = ["openssl", "s_client", "-connect", "127.0.0.1:%d" % srv.port, "-servername", HOST,
            "-CAfile", ctx.root_pem, "-reconnect", "-tls1_2"]
    try:
        p = subprocess.run(argv, input=b"", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=30)
    except subprocess.TimeoutExpired:
        raise e2e.CheckFailed("openssl s_client -reconnect did not finish: %s" % " ".join(argv))
    out = p.stdout.decode("utf-8", "replace")
    lines = [l for l in out.splitlines() if l.startswith("New,") or l.startswith("Reused,")]
    expect(lines, "no New/Reused lines from s_client:\n%s" % out[-2000:])
    return lines


def fetch_repeat_resumes_through_pred(ctx):
    """fetch --repeat 3 with X-Next-Connect: full, resumed, resumed, all through the PRED cache."""
    with _server(ctx, "pred:16") as srv:
        tail = e2e.LogTail(srv.log)
        r = _fetch(ctx, srv, "--repeat", "3", "-H", "X-Next-Connect: 60", "-o",
                   os.devnull).expect_ok()
        expect_eq([t["tls"]["resumed"] for t in r.trace], [False, True, True],
                  "trace tls.resumed per round")
        expect_eq([t["tls"]["version"] for t in r.trace], ["TLSv1.2"] * 3, "trace tls.version")
        lines = tail.json_lines()
        expect_eq(_handshakes(lines), ["full", "resumed", "resumed"], "server log handshakes")
        reqs = [l for l in lines if l.get("event") == "request"]
        expect_eq([(l.get("next_connect_s"), l.get("session_cache")) for l in reqs],
                  [(60, "updated")] * 3, "request log next_connect_s / session_cache")
        st = _stats(ctx, srv)
        expect_eq(st["policy"], "pred", "policy")
        # A TLS 1.3-capable client's first ClientHello carries a random legacy session ID
        # (middlebox compatibility), which the server looks up and misses: rounds 1-3 make
        # 3 lookups (2 hits); the /session-cache request (a new fetch process) one more
        # lookup and one more new session.
        expect_eq((st["inserts"], st["lookups"], st["hits"]), (2, 4, 2), "inserts, lookups, hits")


def s_client_reconnect_resumes_through_pred(ctx):
    """openssl s_client -reconnect against the PRED cache: New, then Reused x5, and the server's
    log and counters agree."""
    with _server(ctx, "pred:16") as srv:
        tail = e2e.LogTail(srv.log)
        lines = _s_client_reconnect(ctx, srv)
        expect_eq([l.split(",")[0] for l in lines], ["New"] + ["Reused"] * 5,
                  "s_client New/Reused")
        expect(all("TLSv1.2" in l for l in lines), "s_client protocol: %r" % lines)
        expect_eq(_handshakes(tail.json_lines()), ["full"] + ["resumed"] * 5,
                  "server log handshakes")
        st = _stats(ctx, srv)
        # s_client -tls1_2 offers no session ID in its first ClientHello; the /session-cache
        # fetch offers a random one (TLS 1.3 compatibility) and misses.
        expect_eq((st["lookups"], st["hits"]), (6, 5), "lookups, hits")


def s_client_reconnect_set_associative_and_builtin(ctx):
    """The same through a set-associative LRU cache (2 sets x 2 ways) and BoringSSL's built-in
    cache; with --session-cache none every connection is a full handshake."""
    with _server(ctx, "lru:4,2") as srv:
        lines = _s_client_reconnect(ctx, srv)
        expect_eq([l.split(",")[0] for l in lines], ["New"] + ["Reused"] * 5, "lru:4,2")
        st = _stats(ctx, srv)
        expect_eq((st["sets"], st["ways"], st["hits"]), (2, 2, 5), "sets, ways, hits")
    with _server(ctx, "builtin", ["--no-tickets"]) as srv:
        lines = _s_client_reconnect(ctx, srv)
        expect_eq([l.split(",")[0] for l in lines], ["New"] + ["Reused"] * 5, "builtin")
        r = _fetch(ctx, srv, path="session-cache")
        expect_eq(r.rc, 0, "fetch exit code")
        expect(b"no external session cache" in r.out, "/session-cache without an external cache")
    with _server(ctx, "none", ["--no-tickets"]) as srv:
        tail = e2e.LogTail(srv.log)
        lines = _s_client_reconnect(ctx, srv)
        expect_eq([l.split(",")[0] for l in lines], ["New"] * 6, "none")
        expect_eq(_handshakes(tail.json_lines()), ["full"] * 6, "none: server log handshakes")


def _announced_vs_newcomer(ctx, spec):
    """Client A (fetch --repeat 2, 2.5 s apart) announces it is back in 2.5 s; in between client B
    (another fetch process) announces 120 s. Returns A's second handshake, B's request log."""
    with _server(ctx, spec) as srv:
        tail = e2e.LogTail(srv.log)
        a_argv = [ctx.args.fetch, "--resolve", "%s:%d:127.0.0.1" % (HOST, srv.port),
                  "--trust-anchor", ctx.root_pem, "--repeat", "2", "--repeat-interval", "2.5",
                  "-H", "X-Next-Connect: 2.5", "-o", os.devnull, "--trace-json", "-",
                  "https://%s:%d/size/10" % (HOST, srv.port)]
        a = subprocess.Popen(a_argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            # Wait for A's first request to be logged, then run B.
            deadline = time.monotonic() + 10
            while not [l for l in tail.json_lines(settle=0.05) if l.get("event") == "request"]:
                expect(time.monotonic() < deadline, "client A's first request never arrived")
            b = _fetch(ctx, srv, "-H", "X-Next-Connect: 120", "-o", os.devnull).expect_ok()
            expect_eq(b.trace[0]["tls"]["resumed"], False, "B resumed")
            out, err = a.communicate(timeout=20)
        finally:
            if a.poll() is None:
                a.kill()
                a.wait()
        expect_eq(a.returncode, 0, "client A exit code (%s)" % err.decode()[-500:])
        a_trace = [json.loads(l) for l in out.decode().splitlines() if l.strip()]
        expect_eq(len(a_trace), 2, "client A trace objects")
        reqs = [l for l in tail.json_lines() if l.get("event") == "request"]
        b_req = [l for l in reqs if l.get("next_connect_s") == 120]
        expect_eq(len(b_req), 1, "B's request in the log")
        return a_trace[1]["tls"]["resumed"], b_req[0], _stats(ctx, srv)


def pred_keeps_the_announced_session_lru_does_not(ctx):
    """A one-session cache. PRED: B's session, announced farther away than A's, is not admitted
    (log "rejected"), so A resumes 2.5 s later. LRU: B's session evicts A's, A's second
    connection is a full handshake."""
    a_resumed, b_req, st = _announced_vs_newcomer(ctx, "pred:1")
    expect_eq(b_req.get("session_cache"), "rejected", "PRED: B's session")
    expect_eq(a_resumed, True, "PRED: A's second connection resumed")
    expect(st["rejections"] >= 1 and st["evictions"] == 0, "PRED counters: %r" % st)
    a_resumed, b_req, st = _announced_vs_newcomer(ctx, "lru:1")
    expect_eq(b_req.get("session_cache"), "updated", "LRU: B's session")
    expect_eq(a_resumed, False, "LRU: A's second connection resumed")
    expect(st["evictions"] >= 1, "LRU counters: %r" % st)


def bad_session_cache_specs_exit_2(ctx):
    for spec in ("mru:4", "pred", "lru:10,3", "pred:0"):
        p = subprocess.run([ctx.args.testserver, "--listen", "127.0.0.1:0", "--cert-chain",
                            os.path.join(ctx.pki, HOST, "chain.pem"), "--key",
                            os.path.join(ctx.pki, HOST, "key.pem"), "--session-cache", spec],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=10)
        expect_eq(p.returncode, 2, "testserver --session-cache %s exit code" % spec)
        expect(b"session cache" in p.stderr, "stderr for %s: %r" % (spec, p.stderr[:300]))


CHECKS = [fetch_repeat_resumes_through_pred, s_client_reconnect_resumes_through_pred,
          s_client_reconnect_set_associative_and_builtin,
          pred_keeps_the_announced_session_lru_does_not, bad_session_cache_specs_exit_2]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100)
