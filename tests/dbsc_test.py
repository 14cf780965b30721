#!/usr/bin/env python3
"""Device Bound Session Credentials end to end (issue 26 item 4): fetch with a --profile against
the testserver's /dbsc/ routes (--dbsc-cookie-lifetime 2), directly and through nginx 1.22 as a
TLS-terminating reverse proxy:

- login registers a session: the trace has the login (dbsc.role registering) and the
  registration POST (registered, ES256, a pooled key); the server verified the proof;
- the bound cookie works for its 2 s; after that the request is deferred while the session
  refreshes with a new proof (over the challenge cached at registration, or, when that is
  stale, after a 403 with a new Secure-Session-Challenge) (trace: deferredMs, the refresh entry; the server's log: refresh
  before the protected request, never a refused one in between); the next run of the profile
  does the same (the key persisted), a --private run writes nothing;
- a copied cookie (the profile's cookies.pb in another profile, without the key) works until it
  expires and then not: not sent once expired, and refused by the server when a thief sends it
  anyway (-H Cookie);
- a stolen cookie plus a replayed old proof (from the server's log) is refused: the challenge was
  used; a proof by another key is refused too;
- the same over HTTP/2 (testserver --http2): every DBSC request on h2, the refresh and the request
  it held on one session;
- the same through the reverse proxy, where the OBC-bound cookie (channel-bound, issue 5) cannot
  work: nginx ends TLS, so the testserver behind it never sees the client's certificate: login
  is refused, and a cookie bound directly is refused through the proxy.
See tests/README.md."""

import os
import re
import shutil
import time

import e2e
from e2e import expect, expect_eq

HOST = "www.example.test"
LIFETIME = 2


def _server(ctx, name, extra=()):
    """A testserver with an HTTPS listener (OBCs requested) and a plain-HTTP one (the reverse
    proxy's backend), the DBSC cookie living LIFETIME seconds."""
    leaf = os.path.join(ctx.pki, HOST)
    log = ctx.scratch(name + ".jsonl")
    argv = [ctx.args.testserver, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
            "--cert-chain", os.path.join(leaf, "chain.pem"), "--key",
            os.path.join(leaf, "key.pem"), "--log", log, "--quiet", "--request-client-cert",
            "--dbsc-cookie-lifetime", str(LIFETIME)] + list(extra)

    def ready(p):
        line = p.read_stdout_line()
        return bool(line) and line.strip() == "ready"

    peer = e2e.Peer(name, argv, ctx.scratch(name + ".err"), ready=ready, stdout_pipe=True)
    for line in peer.stdout_lines:
        m = re.match(r"listening (https|http) 127\.0\.0\.1:(\d+)", line)
        if m:
            setattr(peer, m.group(1) + "_port", int(m.group(2)))
    peer.log = log
    expect(getattr(peer, "https_port", None) and getattr(peer, "http_port", None),
           "testserver ports: %r" % peer.stdout_lines)
    return peer


def _nginx(ctx, backend_port):
    """nginx terminating TLS for www.example.test and proxying to the testserver's plain-HTTP
    listener; it asks for a client certificate (optional_no_ca) so the OBC reaches it, and logs
    what it saw of each request."""
    chain, key = e2e.leaf_files(ctx, HOST)
    return e2e.nginx(ctx, "nginx-proxy", """
    log_format dbsc escape=none '"$request" $status obc=$ssl_client_fingerprint '
                    'sid=$http_sec_secure_session_id proof=$http_secure_session_response';
    access_log %%(access)s dbsc;
    server {
        listen 127.0.0.1:%%(port)d ssl;
        server_name %(host)s;
        ssl_certificate %(chain)s;
        ssl_certificate_key %(key)s;
        ssl_verify_client optional_no_ca;
        location / {
            proxy_pass http://127.0.0.1:%(backend)d;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-Proto https;
        }
    }
""" % {"host": HOST, "chain": chain, "key": key, "backend": backend_port})


def _fetch(ctx, port, *args, paths=("dbsc/protected",)):
    urls = ["https://%s:%d/%s" % (HOST, port, p) for p in paths]
    # HTTP/1.1 unless a check asks for fetch's default ALPN (h2 first) with "--h2".
    proto = [] if "--h2" in args else ["--http1.1"]
    args = [a for a in args if a != "--h2"]
    return ctx.fetch("--resolve", "%s:%d:127.0.0.1" % (HOST, port), "--trust-anchor",
                     ctx.root_pem, "--max-time", "10", *proto, *args, *urls,
                     world=False, trace=True, timeout=30)


def _body(r):
    return r.out.decode("utf-8", "replace")


def _dbsc_lines(tail):
    return [l for l in tail.events("request") if l["path"].startswith("/dbsc/")]


def _login(ctx, srv_log, port, profile, *extra):
    """fetch --profile P /dbsc/login: the login's trace and the registration POST's."""
    tail = e2e.LogTail(srv_log)
    r = _fetch(ctx, port, "--profile", profile, *extra, paths=("dbsc/login",)).expect_ok()
    expect_eq(len(r.trace), 2, "trace entries of a login (the login, the registration POST)")
    login, reg = r.trace
    expect_eq((login["status"], login["dbsc"]["role"], login["dbsc"]["outcome"]),
              (200, "registering", "started"), "the login's dbsc object")
    d = reg["dbsc"]
    expect_eq((reg["method"], reg["status"], d["role"], d["outcome"], d["alg"]),
              ("POST", 200, "registration", "registered", "ES256"),
              "the registration entry: %r" % d)
    expect(reg["name"].endswith(":%d/dbsc/register" % port), "registration URL %s" % reg["name"])
    expect(d["keySource"] in ("pooled", "generated") and d["registeredMs"] > 0,
           "registration facts %r" % d)
    lines = _dbsc_lines(tail)
    expect_eq([(l["path"], l.get("dbsc")) for l in lines],
              [("/dbsc/login", "login"), ("/dbsc/register", "registered")],
              "the server's log of the login")
    expect_eq(lines[1].get("dbsc_jti"), lines[0].get("dbsc_challenge"),
              "the registration proof signed the login's challenge")
    if "--private" not in extra:
        for f in ("device_bound_sessions.pb", "cookies.pb"):
            expect(os.path.exists(os.path.join(profile, f)), "no %s in %s: %s" %
                   (f, profile, os.listdir(profile)))
    return lines[1]["dbsc_session"]


def _expect_deferred_refresh(ctx, srv_log, port, profile, *extra):
    """After the cookie expired: /dbsc/protected is deferred while the session refreshes, then
    accepted; the server saw the refresh first and refused nothing."""
    tail = e2e.LogTail(srv_log)
    r = _fetch(ctx, port, "--profile", profile, "--fail", *extra).expect_ok()
    expect('"session"' in _body(r), "protected body %r" % r.out)
    main, refresh = r.trace[0], r.trace[-1]
    d = main["dbsc"]
    expect_eq((main["status"], d["role"], d["outcome"], d["alg"]),
              (200, "request", "refreshed", "ES256"), "the deferred request's dbsc object")
    expect(d["deferredMs"] is not None and d["deferredMs"] > 0, "deferredMs %r" % d)
    expect_eq((refresh["method"], refresh["dbsc"]["role"], refresh["dbsc"]["outcome"]),
              ("POST", "refresh", "refreshed"), "the refresh entry")
    expect(refresh["dbsc"]["refreshMs"] > 0, "refreshMs %r" % refresh["dbsc"])
    seen = [(l["path"], l.get("dbsc"), l.get("dbsc_reason")) for l in _dbsc_lines(tail)]
    expect(seen[-2:] == [("/dbsc/refresh", "refreshed", None),
                         ("/dbsc/protected", "accepted", None)],
           "the server's log: %r" % seen)
    expect(("/dbsc/protected", "refused", "expired") not in seen and
           ("/dbsc/protected", "refused", "missing") not in seen,
           "a protected request went out before the refresh: %r" % seen)
    return r


def register_and_refresh_on_expiry(ctx):
    with _server(ctx, "testserver-dbsc") as srv:
        a = ctx.scratch("profile-a")
        _login(ctx, srv.log, srv.https_port, a)
        r = _fetch(ctx, srv.https_port, "--profile", a, "--fail").expect_ok()
        expect_eq((r.trace[0]["dbsc"]["outcome"], r.trace[0]["dbsc"]["deferredMs"]),
                  ("bound", None), "within the lifetime: the bound cookie goes as it is")
        expect_eq(len(r.trace), 1, "no refresh within the lifetime")
        time.sleep(LIFETIME + 0.3)
        _expect_deferred_refresh(ctx, srv.log, srv.https_port, a)
        # The next run of the profile: the session and its key persisted.
        time.sleep(LIFETIME + 0.3)
        _expect_deferred_refresh(ctx, srv.log, srv.https_port, a)
        # --no-dbsc: the expired cookie is not refreshed; the server refuses.
        time.sleep(LIFETIME + 0.3)
        r = _fetch(ctx, srv.https_port, "--profile", a, "--no-dbsc").expect_ok()
        expect_eq((r.trace[0]["status"], "dbsc" in r.trace[0]), (403, False), "--no-dbsc")
        # A private run: everything in memory, nothing written.
        p = ctx.scratch("profile-private")
        _login(ctx, srv.log, srv.https_port, p, "--private")
        expect(not os.path.exists(p), "--private created %s" % p)


def stale_challenge_gets_a_new_one(ctx):
    """The challenge cached at registration outlives its 1 s: the refresh's first proof is
    refused with 403 and a new Secure-Session-Challenge, the second is accepted."""
    with _server(ctx, "testserver-challenge", ["--dbsc-challenge-lifetime", "1"]) as srv:
        a = ctx.scratch("profile-challenge")
        _login(ctx, srv.log, srv.https_port, a)
        time.sleep(LIFETIME + 0.3)
        tail = e2e.LogTail(srv.log)
        r = _expect_deferred_refresh(ctx, srv.log, srv.https_port, a)
        refreshes = [t["dbsc"] for t in r.trace if t["dbsc"]["role"] == "refresh"]
        expect_eq([(d["outcome"], d["alg"]) for d in refreshes],
                  [("challenged", "ES256"), ("refreshed", "ES256")], "the refresh attempts")
        expect(refreshes[0]["refreshMs"] is None and refreshes[1]["refreshMs"] > 0,
               "refreshMs on the last attempt only: %r" % refreshes)
        lines = [l for l in _dbsc_lines(tail) if l["path"] == "/dbsc/refresh"]
        expect_eq([(l["status"], l.get("dbsc_reason")) for l in lines],
                  [(403, "expired_challenge"), (200, None)], "the server's refresh lines")
        expect(lines[0]["dbsc_jti"] != lines[1]["dbsc_jti"], "the second proof's challenge")


def over_http2(ctx):
    """The same over HTTP/2 (testserver --http2, fetch's default ALPN): the login, the
    registration POST, the refresh POST and the deferred request all on h2, the refresh and the
    request it held on one session."""
    with _server(ctx, "testserver-h2", ["--http2"]) as srv:
        a = ctx.scratch("profile-h2")
        tail = e2e.LogTail(srv.log)
        r = _fetch(ctx, srv.https_port, "--profile", a, "--h2",
                   paths=("dbsc/login",)).expect_ok()
        expect_eq([(t["tls"]["alpn"], t.get("dbsc", {}).get("outcome")) for t in r.trace],
                  [("h2", "started"), ("h2", "registered")], "the login over h2")
        time.sleep(LIFETIME + 0.3)
        r = _expect_deferred_refresh(ctx, srv.log, srv.https_port, a, "--h2")
        expect(all(t["tls"]["alpn"] == "h2" for t in r.trace),
               "ALPN %r" % [t["tls"]["alpn"] for t in r.trace])
        expect_eq(r.trace[0]["h2"]["sessionId"], r.trace[-1]["h2"]["sessionId"],
                  "the refresh and the request it held on one h2 session")
        expect(any(l.get("dbsc") == "refreshed" for l in _dbsc_lines(tail)),
               "no refresh in the server's log")


def _cookie_value(ctx, port, profile):
    """The dbsc_auth value in |profile|'s jar (fetch -c writes it in Netscape format)."""
    jar = ctx.scratch("jar.txt")
    _fetch(ctx, port, "--profile", profile, "--no-dbsc", "-c", jar,
           paths=("size/1",)).expect_ok()
    with open(jar) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) == 7 and fields[5] == "dbsc_auth":
                return fields[6]
    raise e2e.CheckFailed("no dbsc_auth in %s" % open(jar).read())


def _copied_cookie(ctx, srv_log, port, a):
    """A's cookies.pb copied into profile B (no session, no key): works while the cookie lives,
    then neither sent nor, sent by hand, accepted."""
    b = ctx.scratch("profile-thief")
    os.makedirs(b)
    shutil.copy(os.path.join(a, "cookies.pb"), os.path.join(b, "cookies.pb"))
    value = _cookie_value(ctx, port, b)
    r = _fetch(ctx, port, "--profile", b).expect_ok()
    expect_eq(r.trace[0]["status"], 200, "the copied cookie within its lifetime")
    expect("dbsc" not in r.trace[0], "profile B has no session: %r" % r.trace[0].get("dbsc"))
    time.sleep(LIFETIME + 0.3)
    tail = e2e.LogTail(srv_log)
    r = _fetch(ctx, port, "--profile", b).expect_ok()
    expect_eq(r.trace[0]["status"], 403, "the copied cookie after its lifetime")
    expect_eq(len(r.trace), 1, "profile B cannot refresh")
    # A thief who ignores Max-Age: the server checks the expiry itself.
    r = _fetch(ctx, port, "--no-dbsc", "-H", "Cookie: dbsc_auth=" + value).expect_ok()
    expect_eq(r.trace[0]["status"], 403, "the expired cookie sent by hand")
    reasons = [l.get("dbsc_reason") for l in _dbsc_lines(tail)]
    expect_eq(reasons, ["missing", "expired"], "the server's reasons")
    return value


def _replayed_proof(ctx, srv_log, port, session_id, cookie, proof):
    """A thief with the cookie and an old refresh proof: the challenge was used, no new cookie."""
    tail = e2e.LogTail(srv_log)
    r = _fetch(ctx, port, "--no-dbsc", "-X", "POST", "-i",
               "-H", 'Sec-Secure-Session-Id: "%s"' % session_id,
               "-H", "Secure-Session-Response: " + proof,
               "-H", "Cookie: dbsc_auth=" + cookie, paths=("dbsc/refresh",)).expect_ok()
    expect_eq(r.trace[0]["status"], 403, "a replayed proof")
    expect("Set-Cookie" not in _body(r), "a cookie for a replayed proof:\n" + _body(r))
    lines = _dbsc_lines(tail)
    expect_eq([(l["path"], l.get("dbsc"), l.get("dbsc_reason")) for l in lines],
              [("/dbsc/refresh", "refused", "replayed_proof")], "the server's log")
    r = _fetch(ctx, port, "--no-dbsc", "-H", "Cookie: dbsc_auth=" + cookie).expect_ok()
    expect_eq(r.trace[0]["status"], 403, "the stolen cookie after all that")


def copied_cookie_and_replayed_proof(ctx):
    with _server(ctx, "testserver-theft") as srv:
        a = ctx.scratch("profile-victim")
        session_id = _login(ctx, srv.log, srv.https_port, a)
        cookie = _copied_cookie(ctx, srv.log, srv.https_port, a)
        # The victim refreshes (its proof lands in the server's log, as it would in a proxy's
        # or an attacker's capture).
        tail = e2e.LogTail(srv.log)
        _expect_deferred_refresh(ctx, srv.log, srv.https_port, a)
        proofs = [l["dbsc_proof"] for l in _dbsc_lines(tail)
                  if l["path"] == "/dbsc/refresh" and l.get("dbsc") == "refreshed"]
        expect_eq(len(proofs), 1, "refresh proofs in the log")
        time.sleep(LIFETIME + 0.3)
        _replayed_proof(ctx, srv.log, srv.https_port, session_id, cookie, proofs[0])
        # And the victim still refreshes: the session is intact.
        _expect_deferred_refresh(ctx, srv.log, srv.https_port, a)


def through_a_tls_terminating_proxy(ctx):
    with _server(ctx, "testserver-backend") as srv, _nginx(ctx, srv.http_port) as nginx:
        a = ctx.scratch("profile-proxied")
        session_id = _login(ctx, srv.log, nginx.port, a)
        time.sleep(LIFETIME + 0.3)
        _expect_deferred_refresh(ctx, srv.log, nginx.port, a)
        cookie = _copied_cookie(ctx, srv.log, nginx.port, a)
        with open(nginx.access) as f:
            proofs = re.findall(r'"POST /dbsc/refresh HTTP/1.1" 200 .* proof=(".+")$', f.read(),
                                re.M)
        expect(proofs, "no refresh proof in nginx's log")
        # What the proxy saw (a TLS-terminating box reads every header) is no use to a thief.
        _replayed_proof(ctx, srv.log, nginx.port, session_id, cookie, proofs[-1])

        # Channel-bound (OBC) cookies cannot cross it: nginx has the client's certificate, the
        # testserver behind it sees a plain connection.
        o = ctx.scratch("profile-obc")
        r = _fetch(ctx, nginx.port, "--profile", o, "--obc", "ecdsa",
                   paths=("obc/login",)).expect_ok()
        expect_eq(r.trace[0]["status"], 403, "OBC login through the proxy")
        expect("no origin-bound certificate on this connection" in _body(r),
               "the refusal: %r" % r.out)
        with open(nginx.access) as f:
            line = [l for l in f if "GET /obc/login" in l][-1]
        expect(re.search(r"obc=[0-9a-f]{40}", line),
               "nginx saw no client certificate: %s" % line)
        # A channel-bound cookie issued directly (TLS to the testserver, OBC presented) is
        # refused when the same profile goes through the proxy.
        r = _fetch(ctx, srv.https_port, "--profile", o, "--obc", "ecdsa",
                   paths=("obc/login",)).expect_ok()
        expect_eq(r.trace[0]["status"], 200, "OBC login direct")
        r = _fetch(ctx, srv.https_port, "--profile", o, "--obc", "ecdsa",
                   paths=("obc/whoami",)).expect_ok()
        expect_eq(r.trace[0]["status"], 200, "OBC cookie direct")
        r = _fetch(ctx, nginx.port, "--profile", o, "--obc", "ecdsa",
                   paths=("obc/whoami",)).expect_ok()
        expect_eq(r.trace[0]["status"], 403, "the OBC cookie through the proxy")
        expect("OBC is none" in _body(r), "the refusal: %r" % r.out)


CHECKS = [register_and_refresh_on_expiry, stale_challenge_gets_a_new_one, over_http2,
          copied_cookie_and_replayed_proof, through_a_tls_terminating_proxy]

if __name__ == "__main__":
    # The world only for its PKI: this script starts its own testservers and nginx.
    e2e.main(CHECKS, rtt_ms=20, world_args=("--no-nginx", "--no-dns"))
