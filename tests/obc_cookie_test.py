#!/usr/bin/env python3
"""Channel-bound cookies end to end: fetch (OBC store + cookie jar in --profile DIR) against a
testserver started with --request-client-cert. A cookie from /obc/login is accepted on a later
run of the same profile; copied into another profile (another OBC), or sent with --obc off, the
server refuses it (403). The server sees the same OBC hash on every visit, over TLS 1.2 and
1.3. --private writes nothing; --repeat and several URLs in one run carry the cookie; a corrupt
cookie file stops fetch and is left untouched; --no-cookies sends none. See tests/README.md."""

import hashlib
import os
import re
import shutil

import e2e
from e2e import expect, expect_eq

HOST = "www.example.test"
DIFFERENT_OBC = "channel-bound cookie presented with a different OBC"


def _server(ctx, name, extra=()):
    return e2e.testserver(ctx, HOST, ["--request-client-cert"] + list(extra), name=name)


def _fetch(ctx, srv, *args, paths=("obc/whoami",)):
    urls = ["https://%s:%d/%s" % (HOST, srv.port, p) for p in paths]
    return ctx.fetch("--resolve", "%s:%d:127.0.0.1" % (HOST, srv.port), "--trust-anchor",
                     ctx.root_pem, "--max-time", "10", "-v", *args, *urls, world=False,
                     trace=True, timeout=30)


def _obc_header(r):
    """The X-OBC-SPKI-SHA256 values fetch -v printed (one per response)."""
    return re.findall(r"^< X-OBC-SPKI-SHA256: ([0-9a-f]+)\s*$", r.err, re.M)


def _body(r):
    return r.out.decode("utf-8", "replace")


def _snapshot(directory):
    """name -> (size, mtime_ns, sha256) of every file in directory."""
    out = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        st = os.stat(path)
        with open(path, "rb") as f:
            out[name] = (st.st_size, st.st_mtime_ns, hashlib.sha256(f.read()).hexdigest())
    return out


def _login(ctx, srv, profile, *extra):
    r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", profile, *extra,
               paths=("obc/login",)).expect_ok()
    expect('"session":"issued"' in _body(r), "login: %r\n%s" % (r.out, r.describe()))
    expect(os.path.exists(os.path.join(profile, "cookies.pb")),
           "no cookies.pb in %s after login: %s" % (profile, os.listdir(profile)))
    headers = _obc_header(r)
    expect(len(headers) == 1, "login: X-OBC-SPKI-SHA256 %r\n%s" % (headers, r.describe()))
    return headers[0]


def cookie_is_bound_to_the_profiles_obc(ctx):
    with _server(ctx, "testserver-obc") as srv:
        tail = e2e.LogTail(srv.log)
        a = ctx.scratch("profile-a")
        hash_a = _login(ctx, srv, a)
        # A second run of profile A: the stored cookie goes out and is accepted.
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", a, "--fail").expect_ok()
        expect('"session":"accepted"' in _body(r) and hash_a in _body(r),
               "second run of profile A: %r" % r.out)
        expect("> Cookie: obc_session=" in r.err, "no Cookie header sent\n" + r.describe())
        expect_eq(r.trace[0]["obc"]["source"], "cached_cert", "second run's obc.source")

        # Profile B has its own OBC; then A's cookie file is copied in: refused.
        b = ctx.scratch("profile-b")
        _fetch(ctx, srv, "--obc", "ecdsa", "--profile", b, paths=("size/10",)).expect_ok()
        shutil.copy(os.path.join(a, "cookies.pb"), os.path.join(b, "cookies.pb"))
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", b).expect_ok()
        expect_eq(r.trace[0]["status"], 403, "profile B with A's cookie: status")
        expect(DIFFERENT_OBC in _body(r), "profile B's refusal: %r" % r.out)
        hash_b = _obc_header(r)
        expect(hash_b and hash_b[0] != hash_a, "B's OBC %r vs A's %s" % (hash_b, hash_a))
        # --fail turns the refusal into exit 22.
        _fetch(ctx, srv, "--obc", "ecdsa", "--profile", b, "--fail").expect_rc(22)

        # Profile A itself with --obc off: the cookie arrives without an OBC: refused.
        r = _fetch(ctx, srv, "--profile", a).expect_ok()
        expect_eq(r.trace[0]["status"], 403, "--obc off with A's cookie: status")
        expect(DIFFERENT_OBC in _body(r) and "OBC is none" in _body(r),
               "--obc off refusal: %r" % r.out)
        expect_eq(_obc_header(r), [], "X-OBC-SPKI-SHA256 without an OBC")

        # The server's log agrees: issued and accepted for A, mismatch for B, no_obc for off.
        reqs = [l for l in tail.events("request") if l["path"] == "/obc/whoami"]
        verdicts = [(l.get("obc_cookie"), l.get("obc_spki_sha256")) for l in reqs]
        expect(("accepted", hash_a) in verdicts, "log verdicts %r" % verdicts)
        expect(("mismatch", hash_b[0]) in verdicts, "log verdicts %r" % verdicts)
        expect(("no_obc", None) in verdicts, "log verdicts %r" % verdicts)
        expect(any(l.get("obc_cookie") == "issued" for l in tail.events("request")),
               "no login in the log")


def server_sees_the_same_obc_over_tls12_and_tls13(ctx):
    for version in ("1.2", "1.3"):
        with _server(ctx, "testserver-tls" + version,
                     ["--tls-min", version, "--tls-max", version]) as srv:
            tail = e2e.LogTail(srv.log)
            p = ctx.scratch("profile-tls" + version)
            h1 = _login(ctx, srv, p)
            r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", p, "--fail").expect_ok()
            h2 = _obc_header(r)
            expect_eq(h2, [h1], "TLS %s: the OBC hash on the second visit" % version)
            expect_eq(r.trace[0]["tls"]["version"], "TLSv" + version, "trace tls.version")
            conns = tail.events("connection")
            expect_eq(len(conns), 2, "TLS %s: connections in the log" % version)
            for c in conns:
                expect_eq(c["version"], "TLSv" + version, "server's TLS version")
                expect_eq(c.get("obc_spki_sha256"), h1, "server log obc_spki_sha256")
    # One server that speaks both: a profile's OBC is the origin's, whatever the version,
    # so a cookie issued over TLS 1.2 is accepted over TLS 1.3 and vice versa.
    with _server(ctx, "testserver-both") as srv:
        p = ctx.scratch("profile-both")
        h12 = _login(ctx, srv, p, "--tls-max", "1.2")
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", p, "--tls-min", "1.3",
                   "--fail").expect_ok()
        expect_eq(_obc_header(r), [h12], "the OBC hash over TLS 1.3 after a 1.2 login")
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", p, "--tls-max", "1.2",
                   "--fail").expect_ok()
        expect_eq(_obc_header(r), [h12], "the OBC hash over TLS 1.2 again")


def private_run_writes_nothing(ctx):
    with _server(ctx, "testserver-private") as srv:
        # A private run with a profile directory that does not exist: it stays absent, and
        # the in-memory jar still carries the cookie from login to whoami within the run.
        fresh = ctx.scratch("private-fresh")
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--private", "--profile", fresh, "--fail",
                   paths=("obc/login", "obc/whoami")).expect_ok()
        expect('"session":"accepted"' in _body(r), "in-run whoami: %r" % r.out)
        expect(not os.path.exists(fresh), "--private created %s" % fresh)
        # A private run over an existing profile: not one file changes, and it neither reads
        # the profile's cookies (401) nor keeps the one it got.
        a = ctx.scratch("private-existing")
        _login(ctx, srv, a)
        before = _snapshot(a)
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--private", "--profile", a).expect_ok()
        expect_eq(r.trace[0]["status"], 401, "private run: the profile's cookie was read")
        _fetch(ctx, srv, "--obc", "ecdsa", "--private", "--profile", a,
               paths=("obc/login",)).expect_ok()
        expect_eq(_snapshot(a), before, "files of %s after --private runs" % a)


def cookie_goes_out_on_repeat_and_later_urls(ctx):
    with _server(ctx, "testserver-repeat") as srv:
        tail = e2e.LogTail(srv.log)
        p = ctx.scratch("profile-repeat")
        _fetch(ctx, srv, "--obc", "ecdsa", "--profile", p, "--repeat", "2", "--fail",
               paths=("obc/login", "obc/whoami", "size/10")).expect_ok()
        reqs = [(l["path"], l.get("obc_cookie")) for l in tail.events("request")]
        expect_eq(reqs, [("/obc/login", "issued"), ("/obc/whoami", "accepted"),
                         ("/size/10", "accepted"), ("/obc/login", "issued"),
                         ("/obc/whoami", "accepted"), ("/size/10", "accepted")],
                  "requests and cookie verdicts")
        # The second round ran on a resumed connection: the server still knows the OBC.
        conns = tail.events("connection")
        expect_eq([c["handshake"] for c in conns], ["full", "resumed"], "handshakes")
        expect(conns[0]["obc_spki_sha256"] and
               conns[1]["obc_spki_sha256"] == conns[0]["obc_spki_sha256"],
               "OBC across resumption: %r" % conns)


def corrupt_cookie_file_is_reported_and_kept(ctx):
    with _server(ctx, "testserver-corrupt") as srv:
        p = ctx.scratch("profile-corrupt")
        _login(ctx, srv, p)
        path = os.path.join(p, "cookies.pb")
        with open(path, "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0x40
        with open(path, "wb") as f:
            f.write(bytes(data))
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", p).expect_rc(2)
        expect(re.search(r"^fetch: cookies: .*cookies\.pb is corrupt \(.*\); it was left "
                         r"untouched", r.err, re.M), "stderr:\n" + r.describe())
        with open(path, "rb") as f:
            expect_eq(f.read(), bytes(data), "the corrupt file's bytes")


def no_cookies_sends_and_stores_none(ctx):
    with _server(ctx, "testserver-nocookies") as srv:
        p = ctx.scratch("profile-nocookies")
        _login(ctx, srv, p)
        before = _snapshot(p)["cookies.pb"]
        r = _fetch(ctx, srv, "--obc", "ecdsa", "--profile", p, "--no-cookies").expect_ok()
        expect_eq(r.trace[0]["status"], 401, "--no-cookies: whoami status")
        _fetch(ctx, srv, "--obc", "ecdsa", "--profile", p, "--no-cookies",
               paths=("obc/login",)).expect_ok()
        expect_eq(_snapshot(p)["cookies.pb"], before, "cookies.pb after --no-cookies runs")


CHECKS = [cookie_is_bound_to_the_profiles_obc, server_sees_the_same_obc_over_tls12_and_tls13,
          private_run_writes_nothing, cookie_goes_out_on_repeat_and_later_urls,
          corrupt_cookie_file_is_reported_and_kept, no_cookies_sends_and_stores_none]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=20, world_args=("--no-nginx", "--no-dns"))
