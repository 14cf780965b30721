#!/usr/bin/env python3
"""TLS 1.3 early data (0-RTT) and certificate compression (RFC 8879) through fetch, against the
world's nginx (`ssl_early_data on` on nginx.example.test, off on ecdsa.example.test) and the
testserver (`--early-data` with its strike register, `--early-data-reject`,
`--cert-compression`). See tests/README.md.

- A second visit (`--repeat 2`) sends its GET in 0-RTT: the trace says tls.earlyData accepted
  and nginx's $ssl_early_data says 1 (X-Early-Data: 1); HEAD too; a POST never goes early.
- A server without early data: not_offered; a server that rejects it: the request is sent again
  in 1-RTT on a new connection and succeeds (tls.earlyData rejected).
- Behind netem (`slow`, 100 ms): a 0-RTT second visit costs 2 RTT (TCP + request), like plain
  HTTP; without early data a resumed visit costs 3.
- Private profiles keep no session tickets on disk (no profile keeps them: sessions are in
  memory only).
- Certificate compression: the trace's tls.certCompression and the testserver's log agree on the
  Certificate message's size before and after, for the RSA and ECDSA chains and each algorithm.
"""

import os
import re

import e2e
from e2e import expect, expect_eq, expect_near

RTT_MS = 100


def _rounds_verbose(err):
    """fetch -v's stderr cut into rounds ("* URL (round N)")."""
    parts = re.split(r"^\* \S+ \(round \d+\)$", err, flags=re.M)
    return parts[1:]


def _early(trace):
    return [t["tls"]["earlyData"] for t in trace]


def nginx_behind_netem(ctx):
    """A netem relay (100 ms RTT) in front of the world's nginx.example.test: nginx's
    $ssl_early_data is 1 only while the handshake is unfinished, and on bare loopback the client's
    Finished may arrive before nginx reads the request (then it says "" although it accepted the
    early data). Behind the relay the Finished comes a round trip later. Returns the peer (with
    .port) and its URL prefix for nginx.example.test."""
    o = ctx.origin("nginx")
    argv = [ctx.args.netem, "--tcp", "127.0.0.1:0=%s:%d" % (o["address"], o["port"]),
            "--rtt-ms", str(RTT_MS)]

    def ready(p):
        line = p.read_stdout_line()
        return bool(line) and line.strip() == "ready"

    peer = e2e.Peer("netem-nginx", argv, ctx.scratch("netem-nginx.err"), ready=ready,
                    stdout_pipe=True)
    for line in peer.stdout_lines:
        m = re.match(r"listening tcp 127\.0\.0\.1:(\d+)", line)
        if m:
            peer.port = int(m.group(1))
    expect(getattr(peer, "port", None), "netem printed no port: %r" % peer.stdout_lines)
    peer.url = "https://nginx.example.test:%d/" % peer.port
    return peer


def _fetch_relayed(ctx, relay, *args, path="early-data"):
    return ctx.fetch("--resolve", "nginx.example.test:%d:127.0.0.1" % relay.port, *args,
                     relay.url + path, trace=True)


def nginx_second_visit_sends_get_in_0rtt(ctx):
    with nginx_behind_netem(ctx) as relay:
        r = _fetch_relayed(ctx, relay, "--tls-max", "1.3", "--early-data", "--repeat", "2", "-v",
                           "-o", os.devnull).expect_ok()
    expect_eq(len(r.trace), 2, "trace objects")
    for t in r.trace:
        e2e.check_trace_object(t, https=True)
        expect_eq(t["status"], 200, "status")
        expect_eq(t["tls"]["version"], "TLSv1.3", "tls.version")
    expect_eq(_early(r.trace), ["not_offered", "accepted"], "tls.earlyData per round")
    expect_eq(r.trace[0]["tls"]["earlyDataReason"], "no_session_offered", "round 1 reason")
    expect_eq(r.trace[1]["tls"]["resumed"], True, "round 2 tls.resumed")
    rounds = _rounds_verbose(r.err)
    expect_eq(len(rounds), 2, "verbose rounds")
    expect("X-Early-Data" not in rounds[0], "round 1: nginx saw early data:\n" + rounds[0])
    expect(re.search(r"^< X-Early-Data: 1\r?$", rounds[1], re.M),
           "round 2: nginx's $ssl_early_data is not 1:\n" + rounds[1])
    # The relay's TCP connect is local: the request and its answer take one round trip in
    # 0-RTT (two in round 1: the handshake, then the request).
    for t, rtts in zip(r.trace, (2.0, 1.0)):
        expect_near((t["responseStart"] - t["connectStart"]) / RTT_MS, rtts, 0.5,
                    "RTTs from connectStart to the first response byte")


def nginx_head_goes_early_post_never(ctx):
    with nginx_behind_netem(ctx) as relay:
        r = _fetch_relayed(ctx, relay, "--early-data", "--repeat", "2", "-I", "-v").expect_ok()
        expect_eq(_early(r.trace), ["not_offered", "accepted"], "HEAD tls.earlyData per round")
        expect(re.search(r"^< X-Early-Data: 1", _rounds_verbose(r.err)[1], re.M),
               "HEAD round 2: nginx saw no early data")
        posts = [_fetch_relayed(ctx, relay, "--early-data", "--repeat", "3", "-v", "-o",
                                os.devnull, *extra).expect_ok()
                 for extra in (["-d", "x=1"], ["-X", "POST"])]
    for r in posts:
        expect_eq([t["method"] for t in r.trace], ["POST"] * 3, "methods")
        expect_eq(_early(r.trace), ["not_offered"] * 3, "POST tls.earlyData per round")
        expect_eq([t["tls"]["resumed"] for t in r.trace], [False, True, True], "POST resumed")
        expect_eq(r.trace[2]["tls"]["earlyDataReason"], "POST request is not idempotent",
                  "POST earlyDataReason")
        expect("X-Early-Data" not in r.err, "nginx saw a POST in early data:\n" + r.err)


def server_without_early_data_not_offered(ctx):
    """ecdsa.example.test (nginx without ssl_early_data): its tickets carry no 0-RTT permission,
    so nothing is offered and the resumed request simply works."""
    r = ctx.fetch("--early-data", "--repeat", "2", "-o", os.devnull,
                  ctx.url("ecdsa", "whoami"), trace=True).expect_ok()
    expect_eq([t["status"] for t in r.trace], [200, 200], "status")
    expect_eq(r.trace[1]["tls"]["resumed"], True, "round 2 resumed")
    expect_eq(_early(r.trace), ["not_offered", "not_offered"], "tls.earlyData")
    expect_eq(r.trace[1]["tls"]["earlyDataReason"], "unsupported_for_session",
              "round 2 earlyDataReason")


def _fetch_testserver(ctx, srv, *args, host="www.example.test", path="size/100"):
    return ctx.fetch("--resolve", "%s:%d:127.0.0.1" % (host, srv.port), "--trust-anchor",
                     ctx.root_pem, "--max-time", "10", *args,
                     "https://%s:%d/%s" % (host, srv.port, path), world=False, trace=True)


def testserver_accepts_early_data(ctx):
    with e2e.testserver(ctx, "www.example.test", ["--early-data"], name="ts-early") as srv:
        tail = e2e.LogTail(srv.log)
        r = _fetch_testserver(ctx, srv, "--tls-max", "1.3", "--early-data", "--repeat", "3",
                              "-o", os.devnull).expect_ok()
        expect_eq(_early(r.trace), ["not_offered", "accepted", "accepted"], "tls.earlyData")
        conns = tail.events("connection")
        reqs = tail.events("request")
        expect_eq([c["early_data"] for c in conns], ["not_offered", "accepted", "accepted"],
                  "server log early_data")
        expect_eq([q.get("early_data", False) for q in reqs], [False, True, True],
                  "server log: requests read as early data")


def testserver_rejects_and_request_still_succeeds(ctx):
    with e2e.testserver(ctx, "www.example.test", ["--early-data-reject"],
                        name="ts-early-reject") as srv:
        tail = e2e.LogTail(srv.log)
        r = _fetch_testserver(ctx, srv, "--early-data", "--repeat", "2", "-o",
                              os.devnull).expect_ok()
        expect_eq([t["status"] for t in r.trace], [200, 200], "status")
        expect_eq(_early(r.trace), ["not_offered", "rejected"], "tls.earlyData")
        expect("retried in 1-RTT" in r.trace[1]["tls"]["earlyDataReason"],
               "round 2 earlyDataReason: %r" % r.trace[1]["tls"]["earlyDataReason"])
        expect_eq(r.trace[1]["encodedBodySize"], 100, "round 2 body")
        lines = tail.json_lines()
        failed = [l for l in lines if l.get("event") == "handshake_failed"]
        expect_eq([(l["early_data"], l["early_data_reason"]) for l in failed],
                  [("rejected", "rejected_by_server_configuration")],
                  "server log: the abandoned 0-RTT connection")
        conns = [l for l in lines if l.get("event") == "connection"]
        expect_eq([c["handshake"] for c in conns], ["full", "resumed"], "server handshakes")
        reqs = [l for l in lines if l.get("event") == "request"]
        expect_eq([q.get("early_data", False) for q in reqs], [False, False],
                  "server log: requests read as early data")


def zero_rtt_costs_two_round_trips_behind_netem(ctx):
    """slow (testserver --early-data behind netem): round 2's response starts 2 RTT after
    connectStart with early data (TCP, then request with the ClientHello), 3 RTT without."""
    expect_eq(ctx.origin("slow")["rtt_ms"], RTT_MS, "slow rtt_ms")
    for extra, rtts, early in ((["--early-data"], 2.0, "accepted"), ([], 3.0, "not_offered")):
        r = ctx.fetch("--repeat", "2", "-o", os.devnull, *extra, ctx.url("slow", "size/100"),
                      trace=True).expect_ok()
        t = r.trace[1]
        expect_eq(t["tls"]["earlyData"], early, "round 2 tls.earlyData %s" % extra)
        expect_near((t["responseStart"] - t["connectStart"]) / RTT_MS, rtts, 0.5,
                    "round 2 RTTs to the first response byte %s" % extra)


def private_profile_keeps_no_tickets(ctx):
    """Seed 003's private-browsing concern, for tickets: --private writes nothing at all, and
    no profile holds TLS sessions (they live in SSLClientSessionCache, in memory)."""
    for private in (True, False):
        d = ctx.scratch("profile-private" if private else "profile")
        os.makedirs(d)
        args = ["--profile", d] + (["--private"] if private else [])
        r = ctx.fetch("--early-data", "--repeat", "2", "-o", os.devnull, *args,
                      ctx.url("nginx", "early-data"), trace=True).expect_ok()
        expect_eq(_early(r.trace), ["not_offered", "accepted"], "tls.earlyData")
        files = sorted(os.path.relpath(os.path.join(root, f), d)
                       for root, _, names in os.walk(d) for f in names)
        if private:
            expect_eq(files, [], "files in a --private profile")
        else:
            expect(not [f for f in files if re.search(r"session|ticket|ssl|tls", f, re.I)],
                   "TLS session state on disk: %r" % files)
    # And a new process has no session to resume from (nothing was kept).
    r = ctx.fetch("--early-data", "--profile", d, "-o", os.devnull,
                  ctx.url("nginx", "early-data"), trace=True).expect_ok()
    expect_eq(r.trace[0]["tls"]["resumed"], False, "resumed in a new process")


def cert_compression_sizes_agree(ctx):
    for host in ("www.example.test", "ecdsa.example.test"):
        with e2e.testserver(ctx, host, ["--cert-compression", "brotli,zlib"],
                            name="ts-certcomp-" + host.split(".")[0]) as srv:
            uncompressed = None
            for offer, expected in (("brotli,zlib", "brotli"), ("zlib", "zlib"),
                                    ("brotli", "brotli"), ("off", None)):
                tail = e2e.LogTail(srv.log)
                r = _fetch_testserver(ctx, srv, "--cert-compression", offer, "-o", os.devnull,
                                      host=host).expect_ok()
                cc = r.trace[0]["tls"]["certCompression"]
                conns = tail.events("connection")
                expect_eq(len(conns), 1, "server connections")
                logged = conns[0].get("cert_compression")
                what = "%s offering %s" % (host, offer)
                if expected is None:
                    expect_eq(cc, None, "%s: tls.certCompression" % what)
                    expect_eq(logged, None, "%s: server log cert_compression" % what)
                    continue
                expect_eq(cc["algorithm"], expected, "%s: algorithm" % what)
                expect_eq(logged, {"algorithm": cc["algorithm"],
                                   "compressed_bytes": cc["compressedBytes"],
                                   "uncompressed_bytes": cc["uncompressedBytes"]},
                          "%s: server log vs trace" % what)
                expect(0 < cc["compressedBytes"] < cc["uncompressedBytes"],
                       "%s: %r" % (what, cc))
                if uncompressed is None:
                    uncompressed = cc["uncompressedBytes"]
                expect_eq(cc["uncompressedBytes"], uncompressed,
                          "%s: the same Certificate message" % what)
                print("    %s %s: %d -> %d bytes" % (host, expected, cc["uncompressedBytes"],
                                                    cc["compressedBytes"]))


CHECKS = [nginx_second_visit_sends_get_in_0rtt, nginx_head_goes_early_post_never,
          server_without_early_data_not_offered, testserver_accepts_early_data,
          testserver_rejects_and_request_still_succeeds,
          zero_rtt_costs_two_round_trips_behind_netem, private_profile_keeps_no_tickets,
          cert_compression_sizes_agree]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=RTT_MS)
