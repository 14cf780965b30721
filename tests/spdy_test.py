#!/usr/bin/env python3
"""HTTP over SPDY/3 end to end (issue 13 items 3, 4, 7): fetch --spdy against a testserver --spdy
this script starts (the world's tls12 leaf covers tls12.example.test and slow12.example.test, both
pinned to 127.0.0.1) and against node-spdy (../shared/PEERS.md):

- 20 concurrent requests (--parallel 20) go over one connection: the server logs one spdy_session,
  and every trace's spdy object names the same session, with 20 distinct stream ids.
- Two origins on one address, one certificate covering both, are pooled onto one connection; with
  --obc ecdsa each presents its own OBC, the second in a CREDENTIAL frame (slot > 0) the server
  verified; channel-bound cookies issued to each origin are accepted per origin on the pooled
  connection.
- node-spdy: 20 concurrent requests on one session with the right bodies; a GOAWAY mid-way sends
  the refused streams to a new session and every request succeeds.
See tests/README.md."""

import json
import os
import re
import shutil
import sys

import e2e
from e2e import expect, expect_eq

HOST_A = "tls12.example.test"
HOST_B = "slow12.example.test"
NODE_PEER = "net/spdy/testdata/node_spdy_peer.js"


def _server(ctx, name, extra=()):
    return e2e.testserver(ctx, HOST_A, ["--request-client-cert", "--spdy"] + list(extra),
                          name=name)


def _fetch(ctx, port, urls, *args):
    resolve = []
    for host in (HOST_A, HOST_B):
        resolve += ["--resolve", "%s:%d:127.0.0.1" % (host, port)]
    return ctx.fetch("--spdy", *resolve, "--trust-anchor", ctx.root_pem, "--max-time", "20",
                     "-v", *args, *urls, world=False, trace=True, timeout=60)


def _log(srv):
    out = []
    with open(srv.log) as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def _events(srv, name):
    return [e for e in _log(srv) if e.get("event") == name]


def twenty_requests_share_one_connection(ctx):
    with _server(ctx, "testserver-spdy-20") as srv:
        url = "https://%s:%d/size/20000" % (HOST_A, srv.port)
        r = _fetch(ctx, srv.port, [url], "--parallel", "20", "-o", "/dev/null").expect_ok()
        expect_eq(len(r.trace), 20, "trace entries")
        sessions = {t["spdy"]["sessionId"] for t in r.trace}
        expect_eq(len(sessions), 1, "sessions named by the traces")
        streams = sorted(t["spdy"]["streamId"] for t in r.trace)
        expect_eq(streams, list(range(1, 40, 2)), "stream ids")
        kinds = sorted(t["spdy"]["session"] for t in r.trace)
        expect_eq(kinds, ["new"] + ["reused"] * 19, "session kinds")
        for t in r.trace:
            expect_eq((t["status"], t["encodedBodySize"], t["tls"]["alpn"]),
                      (200, 20000, "spdy/3"), "a response")
        expect_eq(len(_events(srv, "spdy_session")), 1, "SPDY sessions the server saw")
        conns = {e["conn"] for e in _events(srv, "request")}
        expect_eq(len(conns), 1, "connections that carried requests (server log)")
        expect(re.search(r"^\* SPDY stream 39 on session https://%s:%d via 127\.0\.0\.1:\d+ "
                         r"\(reused\), credential slot 0$" % (re.escape(HOST_A), srv.port),
                         r.err, re.M), "-v names session and stream\n" + r.describe())


def two_origins_pooled_each_with_its_own_obc(ctx):
    with _server(ctx, "testserver-spdy-pool") as srv:
        urls = ["https://%s:%d/spdy/credentials" % (h, srv.port) for h in (HOST_A, HOST_B)]
        r = _fetch(ctx, srv.port, urls, "--obc", "ecdsa", "-o", "/dev/null",
                   "-o", "/dev/null").expect_ok()
        by_host = {t["name"].split("/")[2].split(":")[0]: t for t in r.trace}
        a, b = by_host[HOST_A], by_host[HOST_B]
        expect_eq(a["spdy"]["session"], "new", "first origin's session")
        expect_eq(b["spdy"]["session"], "pooled", "second origin's session")
        expect_eq(a["spdy"]["sessionId"], b["spdy"]["sessionId"], "one session for both")
        expect_eq(a["spdy"]["credentialSlot"], 0, "first origin: the handshake's OBC")
        expect(b["spdy"]["credentialSlot"] > 0 and b["spdy"]["credentialSent"],
               "second origin: a CREDENTIAL slot: %r" % b["spdy"])
        expect_eq(len(_events(srv, "connection")), 1, "TLS connections (server log)")
        creds = _events(srv, "spdy_credential")
        expect_eq([c["result"] for c in creds], ["verified"], "CREDENTIAL proofs")
        reqs = {e["host"].split(":")[0]: e for e in _events(srv, "request")}
        expect(reqs[HOST_A]["obc_spki_sha256"] and reqs[HOST_B]["obc_spki_sha256"] and
               reqs[HOST_A]["obc_spki_sha256"] != reqs[HOST_B]["obc_spki_sha256"],
               "each origin its own OBC: %r" % reqs)
        expect_eq(reqs[HOST_B]["obc_spki_sha256"], creds[0]["obc_spki_sha256"],
                  "the second origin's OBC is the CREDENTIAL's")


def channel_bound_cookies_per_origin_on_a_pooled_connection(ctx):
    with _server(ctx, "testserver-spdy-cookies") as srv:
        profile = ctx.scratch("profile-spdy")
        logins = ["https://%s:%d/obc/login" % (h, srv.port) for h in (HOST_A, HOST_B)]
        r = _fetch(ctx, srv.port, logins, "--obc", "ecdsa", "--profile", profile).expect_ok()
        expect_eq(r.out.decode().count('"session":"issued"'), 2, "logins: %r" % r.out)
        whoami = ["https://%s:%d/obc/whoami" % (h, srv.port) for h in (HOST_A, HOST_B)]
        r = _fetch(ctx, srv.port, whoami, "--obc", "ecdsa", "--profile", profile,
                   "--fail").expect_ok()
        expect_eq(r.out.decode().count('"session":"accepted"'), 2,
                  "cookies accepted per origin: %r" % r.out)
        kinds = sorted(t["spdy"]["session"] for t in r.trace)
        expect_eq(kinds, ["new", "pooled"], "the second run's sessions")
        expect_eq(len({t["spdy"]["sessionId"] for t in r.trace}), 1, "one session")
        # The first origin's cookie copied to both: accepted by the first, refused (403) by the
        # second, whose stream presents its own OBC in its CREDENTIAL slot.
        # (-v prints the headers as sent: SPDY/3's names are lower case)
        cookie = re.findall(r"^> cookie: (obc_session=[^;\s]+)", r.err, re.M | re.I)
        expect_eq(len(cookie), 2, "Cookie headers sent\n" + r.describe())
        by_url = dict(zip([t["name"] for t in r.trace], cookie))
        r = _fetch(ctx, srv.port, whoami, "--obc", "ecdsa", "--profile", profile,
                   "-H", "Cookie: " + by_url[whoami[0]]).expect_ok()
        status = {t["name"]: t["status"] for t in r.trace}
        expect_eq((status[whoami[0]], status[whoami[1]]), (200, 403),
                  "the first origin's cookie at each origin")


def _node_spdy(ctx):
    node = shutil.which("node")
    if not node:
        raise e2e.PeerMissing("node-spdy: Node.js (node) is not installed; run tools/setup.sh")
    leaf = os.path.join(ctx.pki, HOST_A)
    env_path = os.environ.get("NETSTACK_NODE_PATH", "")
    os.environ["NODE_PATH"] = ":".join(
        p for p in (env_path, "/usr/lib/node_modules", "/usr/local/lib/node_modules") if p)
    script = os.path.abspath(NODE_PEER)  # a runfile (tests/BUILD.bazel data)

    def ready(p):
        line = p.read_stdout_line()
        return bool(line) and line.strip().startswith("{")

    # The peer exits when its stdin closes (Peer gives it /dev/null): exec it with a pipe whose
    # write end it holds itself, so it runs until stopped.
    keep_stdin = ("import os, sys\nr, w = os.pipe()\nos.set_inheritable(w, True)\n"
                  "os.dup2(r, 0)\nos.execv(sys.argv[1], sys.argv[1:])\n")
    argv = [sys.executable, "-c", keep_stdin, node, script, os.path.join(leaf, "key.pem"),
            os.path.join(leaf, "chain.pem")]
    peer = e2e.Peer("node-spdy", argv,
                      ctx.scratch("node-spdy.err"), ready=ready, stdout_pipe=True)
    ports = json.loads(peer.stdout_lines[-1])
    peer.port = ports["tls"]
    return peer


def node_spdy_twenty_streams_and_goaway(ctx):
    with _node_spdy(ctx) as peer:
        url = "https://%s:%d/size/100000" % (HOST_A, peer.port)
        r = _fetch(ctx, peer.port, [url], "--parallel", "20").expect_ok()
        expect_eq(len(r.trace), 20, "trace entries")
        expect_eq(len({t["spdy"]["sessionId"] for t in r.trace}), 1, "sessions")
        expect_eq(len({t["spdy"]["streamId"] for t in r.trace}), 20, "distinct streams")
        for t in r.trace:
            expect_eq((t["status"], t["encodedBodySize"]), (200, 100000), "a response")
        # node's /goaway answers, then GOAWAY with that stream as the last good one: streams
        # above it are refused and retried on a new session.
        urls = ["https://%s:%d/%s" % (HOST_A, peer.port, p) for p in ("goaway", "size/100000")]
        r = _fetch(ctx, peer.port, urls, "-o", "/dev/null", "-o", "/dev/null").expect_ok()
        expect_eq([t["status"] for t in r.trace], [200, 200], "statuses around the GOAWAY")
        expect_eq(r.trace[1]["encodedBodySize"], 100000, "the second body")
        if r.trace[1]["spdy"]["retry"]:
            expect("refused stream" in r.trace[1]["spdy"]["retry"], "retry: %r" % r.trace[1])
            expect(r.trace[1]["spdy"]["sessionId"] != r.trace[0]["spdy"]["sessionId"],
                   "the refused stream went on a new session")


CHECKS = [twenty_requests_share_one_connection, two_origins_pooled_each_with_its_own_obc,
          channel_bound_cookies_per_origin_on_a_pooled_connection,
          node_spdy_twenty_streams_and_goaway]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=20, world_args=("--no-nginx", "--no-dns"))
