#!/usr/bin/env python3
"""OCSP stapling end to end: the world's nginx stapling origins (`ssl_stapling_file`, responses
made at world start from the intermediate's index, see tools/world/README.md) against fetch's
revocation checking, with `openssl ocsp` 100 ms away behind netem. A good staple answers for
the leaf (trace: method and source `stapled`) with no request reaching the responder, over TLS
1.2 and 1.3; with the intermediate's CRL answer in the profile's cache the whole chain's
revocation source is `stapled`; a stapled `revoked` answer refuses the connection
(ERR_CERT_REVOKED) under soft- and hard-fail, again without the responder; a staple for another
certificate is ignored and the leaf is checked over OCSP (fresh, one responder request, its RTT
on the critical path) or from the profile's cache. See tests/README.md."""

import os

import e2e
from e2e import expect, expect_eq

OCSP_RTT_MS = 100


def _responder_requests(ctx):
    """Requests that have reached the OCSP responder so far (its log; tests/revocation_test)."""
    o = ctx.world.get("ocsp")
    expect(o, "the world has no OCSP responder (skipped: %s)" % ctx.world.get("skipped"))
    if not os.path.exists(o["log"]):
        return 0
    with open(o["log"], errors="replace") as f:
        return f.read().count(o["log_marker"])


def _rev(r):
    expect_eq(len(r.trace or []), 1, "trace objects")
    return r.trace[0]["cert"]["revocation"]


def _check(rev, depth):
    found = [c for c in rev["checks"] if c["depth"] == depth]
    expect(found, "no revocation check at depth %d: %s" % (depth, rev))
    return found[0]


def _staple(ctx, origin, status):
    s = ctx.origin(origin).get("staple")
    expect(s, "world.json's %s origin has no staple block" % origin)
    expect_eq(s["status"], status, "%s's staple status" % origin)
    return s


def good_staple_answers_for_the_leaf(ctx):
    s = _staple(ctx, "stapled", "good")
    expect_eq(s["serial"], s["leaf_serial"], "the staple's serial is the leaf's")
    for flags, proto in ((["--tls-max", "1.2"], "TLSv1.2"), (["--tls-min", "1.3"], "TLSv1.3")):
        before = _responder_requests(ctx)
        r = ctx.fetch(*flags, "-o", os.devnull, ctx.url("stapled", "whoami"), revocation="hard",
                      trace=True).expect_ok()
        t = r.trace[0]
        expect_eq(t["tls"]["version"], proto, "tls.version")
        rev = _rev(r)
        expect_eq(rev["outcome"], "good", "revocation outcome (%s)" % proto)
        leaf = _check(rev, 0)
        expect_eq((leaf["method"], leaf["source"], leaf["outcome"]),
                  ("stapled", "stapled", "good"), "leaf check (%s)" % proto)
        # The intermediate has no staple: its CRL comes from static.example.test (no netem).
        expect_eq(_check(rev, 1)["method"], "crl", "intermediate check (%s)" % proto)
        expect_eq(_responder_requests(ctx) - before, 0,
                  "requests that reached the responder (%s)" % proto)
        expect(rev["ms"] < OCSP_RTT_MS / 2,
               "revocation took %.1f ms with a staple; the responder is %d ms away" %
               (rev["ms"], OCSP_RTT_MS))


def chain_source_is_stapled_with_the_intermediate_cached(ctx):
    profile = ctx.scratch("profile")
    before = _responder_requests(ctx)
    r = ctx.fetch("--profile", profile, "-o", os.devnull, ctx.url("stapled"),
                  revocation="hard", trace=True).expect_ok()
    expect_eq(_rev(r)["source"], "fresh", "first run: the intermediate's CRL was fetched")
    # Second run: the intermediate's answer from the profile's cache, the leaf's from the
    # staple (a staple goes before the cache): nothing fetched, the chain's status is stapled.
    r = ctx.fetch("--profile", profile, "-o", os.devnull, ctx.url("stapled"),
                  revocation="hard", trace=True).expect_ok()
    rev = _rev(r)
    expect_eq((rev["source"], rev["outcome"]), ("stapled", "good"), "cert.revocation")
    expect_eq((_check(rev, 0)["source"], _check(rev, 1)["source"]), ("stapled", "cache"),
              "sources of the leaf and the intermediate")
    expect_eq(_responder_requests(ctx) - before, 0, "requests that reached the responder")


def revoked_staple_refuses_the_connection(ctx):
    s = _staple(ctx, "revoked-stapled", "revoked")
    expect_eq(s["serial"], s["leaf_serial"], "the staple's serial is the leaf's")
    # "off" too: nothing is fetched, but the server's own word that its certificate is
    # revoked is not ignored (Chromium honours staples with online checks off).
    for mode in ("off", "soft", "hard"):
        for flags in (["--tls-max", "1.2"], ["--tls-min", "1.3"]):
            before = _responder_requests(ctx)
            r = ctx.fetch(*flags, "-o", os.devnull, ctx.url("revoked-stapled"), revocation=mode,
                          trace=True)
            r.expect_error(60, "ERR_CERT_REVOKED")
            expect_eq(r.out, b"", "stdout of a refused fetch")
            rev = _rev(r)
            what = "%s, %s" % (mode, flags[0])
            expect_eq(rev["outcome"], "revoked", "revocation outcome (%s)" % what)
            leaf = _check(rev, 0)
            expect_eq((leaf["method"], leaf["source"], leaf["outcome"]),
                      ("stapled", "stapled", "revoked"), "leaf check (%s)" % what)
            expect_eq(_responder_requests(ctx) - before, 0,
                      "requests that reached the responder (%s)" % what)


def revocation_off_without_a_staple_checks_nothing(ctx):
    # The same revoked leaf from the testserver (no staple) with checking off: accepted, with
    # no request to the responder and the trace saying nothing was checked.
    before = _responder_requests(ctx)
    r = ctx.fetch("-o", os.devnull, ctx.url("revoked"), revocation="off", trace=True).expect_ok()
    rev = r.trace[0]["cert"].get("revocation") or {}
    expect(rev.get("outcome") in (None, "not_checked"), "revocation with off: %s" % rev)
    expect_eq(_responder_requests(ctx) - before, 0, "requests that reached the responder (off)")


def revoked_leaf_without_a_staple_asks_the_responder(ctx):
    # The control: the same revoked leaf from the testserver (no staple) costs a request.
    before = _responder_requests(ctx)
    r = ctx.fetch("-o", os.devnull, ctx.url("revoked"), revocation="hard", trace=True)
    r.expect_error(60, "ERR_CERT_REVOKED")
    leaf = _check(_rev(r), 0)
    expect_eq((leaf["method"], leaf["source"], leaf["outcome"]), ("ocsp", "fresh", "revoked"),
              "leaf check")
    expect_eq(_responder_requests(ctx) - before, 1, "requests that reached the responder")


def another_certificates_staple_is_ignored(ctx):
    s = _staple(ctx, "stapled-other", "good")
    expect(s["serial"] != s["leaf_serial"],
           "the staple is for another serial than the leaf's: %s" % s)
    for mode in ("soft", "hard"):
        before = _responder_requests(ctx)
        r = ctx.fetch("-o", os.devnull, ctx.url("stapled-other"), revocation=mode,
                      trace=True).expect_ok()
        rev = _rev(r)
        leaf = _check(rev, 0)
        expect_eq((leaf["method"], leaf["source"], leaf["outcome"]), ("ocsp", "fresh", "good"),
                  "leaf check (%s)" % mode)
        expect("another certificate" in leaf.get("detail", ""),
               "the leaf check does not say why the staple was ignored: %s" % leaf)
        expect_eq(rev["source"], "fresh", "revocation source (%s)" % mode)
        expect_eq(_responder_requests(ctx) - before, 1,
                  "requests that reached the responder (%s)" % mode)
        expect(rev["ms"] >= OCSP_RTT_MS * 0.9,
               "revocation took %.1f ms; the responder is %d ms away" % (rev["ms"], OCSP_RTT_MS))
    # With the leaf's answer in the profile's cache, the ignored staple is followed by the
    # cache, not the responder.
    profile = ctx.scratch("profile")
    ctx.fetch("--profile", profile, "-o", os.devnull, ctx.url("stapled-other"),
              revocation="hard").expect_ok()
    before = _responder_requests(ctx)
    r = ctx.fetch("--profile", profile, "-o", os.devnull, ctx.url("stapled-other"),
                  revocation="hard", trace=True).expect_ok()
    rev = _rev(r)
    leaf = _check(rev, 0)
    expect_eq((leaf["source"], leaf["outcome"]), ("cache", "good"), "leaf check (profile)")
    expect_eq(rev["source"], "cache", "revocation source (profile)")
    expect_eq(_responder_requests(ctx) - before, 0, "requests that reached the responder")


CHECKS = [good_staple_answers_for_the_leaf, chain_source_is_stapled_with_the_intermediate_cached,
          revoked_staple_refuses_the_connection, revocation_off_without_a_staple_checks_nothing,
          revoked_leaf_without_a_staple_asks_the_responder,
          another_certificates_staple_is_ignored]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100, world_args=["--ocsp-rtt-ms", str(OCSP_RTT_MS)])
