#!/usr/bin/env python3
"""Handshake coalescing and resumption, proven from the server's log: `--parallel 6` to a host
with no cached session makes exactly one full handshake and five resumptions (TLS 1.3 and 1.2);
`--repeat 3` resumes in rounds 2-3. See tests/README.md.

The --parallel checks go through the netem origins (`slow`, `slow12`), where every connection
has a round trip, and on bare loopback, where the leader's handshake may finish before the other
connections even start theirs (loopback_parallel6_one_full).

Every --parallel run offers HTTP/1.1 only (--http1.1): these checks are about six HTTP/1.1
connections. With h2 offered (the default), parallel requests to an origin wait for the first
connection's ALPN, so that an h2 server gets one session (net/http/README.md)."""

import os

import e2e
from e2e import expect, expect_eq


def _handshakes(conns):
    return sorted(c.get("handshake") for c in conns)


def _parallel6(ctx, origin, tls_max, version, extra=()):
    """fetch --parallel 6 (one fresh process: no cached session) and the server's view of it."""
    o = ctx.origin(origin)
    process = o["backend"]["process"] if o.get("backend") else o["process"]
    tail = e2e.LogTail(ctx.log_path(process))
    # Coalescing is opt-in (it saves the server handshakes, never time): these checks ask.
    args = ["--http1.1", "--parallel", "6", "-o", os.devnull, "--max-time", "20", "--coalesce-handshakes"]
    if tls_max:
        args += ["--tls-max", tls_max]
    r = ctx.fetch(*args, *extra, ctx.url(origin, "size/2000"), trace=True).expect_ok()
    expect_eq(len(r.trace), 6, "trace objects")
    for t in r.trace:
        e2e.check_trace_object(t, https=True)
        expect_eq(t["status"], 200, "status")
        expect_eq(t["encodedBodySize"], 2000, "encodedBodySize")
        expect_eq(t["tls"]["version"], version, "trace tls.version")
        expect_eq(t["socketReused"], False, "socketReused (6 parallel requests, 6 connections)")
    lines = tail.json_lines()
    conns = [l for l in lines if l.get("event") == "connection"]
    reqs = [l for l in lines if l.get("event") == "request"]
    expect_eq(len(conns), 6, "connections in the %s log for this run" % process)
    expect_eq(len(reqs), 6, "requests in the %s log for this run" % process)
    expect_eq(sorted(c["version"] for c in conns), [version] * 6, "server-side versions")
    return r, conns


def parallel6_tls13_one_full_five_resumed(ctx):
    r, conns = _parallel6(ctx, "slow", None, "TLSv1.3")
    expect_eq(_handshakes(conns), ["full"] + ["resumed"] * 5, "server log handshakes")
    expect_eq(sorted(t["tls"]["resumed"] for t in r.trace), [False] + [True] * 5,
              "trace tls.resumed")
    expect_eq(sum(t["tls"]["waitedForSession"] for t in r.trace), 5, "trace waitedForSession")


def parallel6_tls12_one_full_five_resumed(ctx):
    """slow12: 1.2-only testserver behind netem (server-capped; the client allows 1.3)."""
    r, conns = _parallel6(ctx, "slow12", None, "TLSv1.2")
    expect_eq(_handshakes(conns), ["full"] + ["resumed"] * 5, "server log handshakes")
    expect_eq(sorted(t["tls"]["resumed"] for t in r.trace), [False] + [True] * 5,
              "trace tls.resumed")
    expect_eq(sum(t["tls"]["waitedForSession"] for t in r.trace), 5, "trace waitedForSession")


def parallel6_tls12_client_capped(ctx):
    """Same with the client capping at 1.2 (--tls-max 1.2) against the 1.3-capable origin."""
    r, conns = _parallel6(ctx, "slow", "1.2", "TLSv1.2")
    expect_eq(_handshakes(conns), ["full"] + ["resumed"] * 5, "server log handshakes")


def parallel6_no_coalesce_six_full(ctx):
    """Control: with --no-coalesce (the default, given after --coalesce-handshakes) all six
    connections do a full handshake, so the checks above really observe coalescing."""
    for origin in ("slow", "www"):
        r, conns = _parallel6(ctx, origin, None, "TLSv1.3", extra=["--no-coalesce"])
        expect_eq(_handshakes(conns), ["full"] * 6, "%s server log handshakes" % origin)
        expect_eq(sum(t["tls"]["waitedForSession"] for t in r.trace), 0,
                  "trace waitedForSession")


def parallel6_repeat2_then_all_resumed(ctx):
    tail = e2e.LogTail(ctx.log_path(ctx.origin("slow")["backend"]["process"]))
    r = ctx.fetch("--http1.1", "--parallel", "6", "--repeat", "2", "--coalesce-handshakes", "-o", os.devnull,
                  ctx.url("slow", "size/10"), trace=True).expect_ok()
    expect_eq(len(r.trace), 12, "trace objects")
    expect_eq([t["tls"]["resumed"] for t in r.trace[6:]], [True] * 6, "round 2 tls.resumed")
    expect_eq(_handshakes(tail.events("connection")), ["full"] + ["resumed"] * 11,
              "server log handshakes")


def parallel6_server_without_sessions(ctx):
    """A dedicated testserver with no tickets and no session cache: the five coalesced waiters get
    no session, must not hang, and each completes with its own full handshake."""
    for v in ("1.3", "1.2"):
        with e2e.testserver(ctx, "www.example.test", ["--no-tickets", "--no-session-cache"],
                            name="testserver-nosession-" + v) as srv:
            tail = e2e.LogTail(srv.log)
            r = ctx.fetch("--resolve", "www.example.test:%d:127.0.0.1" % srv.port,
                          "--trust-anchor", ctx.root_pem, "--tls-max", v, "--http1.1", "--parallel", "6",
                          "--coalesce-handshakes",
                          "--max-time", "10", "-o", os.devnull,
                          "https://www.example.test:%d/size/10" % srv.port,
                          world=False, trace=True, timeout=30).expect_ok()
            expect(r.secs < 5, "took %.1fs: the waiters stalled" % r.secs)
            expect_eq(_handshakes(tail.events("connection")), ["full"] * 6,
                      "TLS %s server log handshakes" % v)
            expect_eq([t["tls"]["resumed"] for t in r.trace], [False] * 6, "trace tls.resumed")
        expect(srv.proc.poll() is not None, "dedicated testserver still running")


def _repeat3(ctx, tls_max, version):
    tail = e2e.LogTail(ctx.log_path("testserver-www"))
    r = ctx.fetch("--tls-max", tls_max, "--repeat", "3", "-o", os.devnull,
                  ctx.url("www", "size/10"), trace=True).expect_ok()
    expect_eq([t["tls"]["resumed"] for t in r.trace], [False, True, True],
              "trace tls.resumed per round")
    expect_eq([t["tls"]["version"] for t in r.trace], [version] * 3, "trace tls.version")
    expect_eq([t["cert"]["source"] for t in r.trace], ["handshake", "session", "session"],
              "trace cert.source per round")
    expect_eq([t["socketReused"] for t in r.trace], [False] * 3,
              "socketReused (each round opens new connections)")
    expect_eq([c["handshake"] for c in tail.events("connection")], ["full", "resumed", "resumed"],
              "server log handshakes per round")


def repeat3_tls13_resumes(ctx):
    _repeat3(ctx, "1.3", "TLSv1.3")


def repeat3_tls12_resumes(ctx):
    _repeat3(ctx, "1.2", "TLSv1.2")


def loopback_parallel6_one_full(ctx):
    """Regression: on bare loopback (no round trip) the other connections' TCP connects can
    complete only after the leader's handshake finished but before its session arrived; they
    must still wait for that session (the coalescing group stays open for a grace period) and
    resume, never lead full handshakes of their own."""
    bad = []
    runs = 15
    for v in ("1.3", "1.2"):
        for i in range(runs):
            tail = e2e.LogTail(ctx.log_path("testserver-www"))
            ctx.fetch("--tls-max", v, "--http1.1", "--parallel", "6", "--coalesce-handshakes", "-o", os.devnull,
                      ctx.url("www", "size/10")).expect_ok()
            hs = _handshakes(tail.events("connection", settle=0.05))
            if hs != ["full"] + ["resumed"] * 5:
                bad.append("TLS %s run %d: %d full, %d resumed" % (
                    v, i + 1, hs.count("full"), hs.count("resumed")))
    expect(not bad, "%d of %d loopback --parallel 6 runs did not make exactly 1 full + 5 "
           "resumed handshakes:\n%s" % (len(bad), 2 * runs, "\n".join(bad)))


CHECKS = [parallel6_tls13_one_full_five_resumed, parallel6_tls12_one_full_five_resumed,
          parallel6_tls12_client_capped, parallel6_no_coalesce_six_full,
          parallel6_repeat2_then_all_resumed, parallel6_server_without_sessions,
          repeat3_tls13_resumes, repeat3_tls12_resumes, loopback_parallel6_one_full]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100)
