#!/usr/bin/env python3
"""Origin-bound certificates against nginx (`ssl_verify_client optional_no_ca`, whose /whoami
echoes the client certificate's SHA-1 fingerprint): one OBC per origin, stable across visits of
a profile; different origins get different ones; in eTLD+1 mode nginx.example.test and
ecdsa.example.test share one; every algorithm works over TLS 1.2 and 1.3; a private profile
writes nothing; the trace says where the OBC came from. See tests/README.md."""

import os
import re

import e2e
from e2e import expect, expect_eq


def _fp(ctx, origin, *flags):
    r = ctx.fetch(*flags, ctx.url(origin, "whoami"), trace=True).expect_ok()
    m = re.search(r"fp=([0-9a-f]*)", r.out.decode() if isinstance(r.out, bytes) else r.out)
    expect(m, "no fp= in /whoami: %r" % r.out)
    return m.group(1), r.trace[0]


def same_obc_on_every_visit_to_one_origin(ctx):
    profile = ctx.scratch("profile")
    fps = [_fp(ctx, "nginx", "--obc", "ecdsa", "--profile", profile)[0] for _ in range(3)]
    expect(fps[0], "nginx saw no client certificate")
    expect_eq(len(set(fps)), 1, "fingerprints across visits %s" % fps)
    other, _ = _fp(ctx, "ecdsa", "--obc", "ecdsa", "--profile", profile)
    expect(other and other != fps[0], "another origin got the same OBC: %s" % other)


def etld_mode_shares_one_obc_across_subdomains(ctx):
    profile = ctx.scratch("etld")
    a, _ = _fp(ctx, "nginx", "--obc", "ecdsa", "--obc-scope", "etld", "--profile", profile)
    b, _ = _fp(ctx, "ecdsa", "--obc", "ecdsa", "--obc-scope", "etld", "--profile", profile)
    expect(a and a == b, "eTLD+1 mode: nginx %s vs ecdsa %s" % (a, b))


def every_algorithm_and_tls_version(ctx):
    for algorithm in ("ecdsa", "rsa1024", "rsa2048"):
        for tls in ("1.2", "1.3"):
            fp, t = _fp(ctx, "nginx", "--obc", algorithm, "--tls-max", tls)
            expect(fp, "%s over TLS %s: nginx saw no certificate" % (algorithm, tls))
            obc = t["obc"]
            expect_eq(obc["algorithm"], algorithm, "trace obc.algorithm")
            expect(obc["source"] in ("pooled_key", "generated"), "trace obc.source %s" % obc)


def no_obc_when_off(ctx):
    fp, t = _fp(ctx, "nginx")
    expect_eq(fp, "", "fingerprint without --obc")
    expect_eq(t["obc"]["source"], "none", "trace obc.source")


def cached_obc_is_reported_as_such(ctx):
    profile = ctx.scratch("cached")
    _fp(ctx, "nginx", "--obc", "ecdsa", "--profile", profile)
    _, t = _fp(ctx, "nginx", "--obc", "ecdsa", "--profile", profile)
    expect_eq(t["obc"]["source"], "cached_cert", "second visit's obc.source")


def private_profile_writes_nothing(ctx):
    private = ctx.scratch("private")
    _fp(ctx, "nginx", "--obc", "ecdsa", "--private", "--profile", private)
    expect(not os.path.exists(private), "a private profile touched the disk")


CHECKS = [same_obc_on_every_visit_to_one_origin, etld_mode_shares_one_obc_across_subdomains,
          every_algorithm_and_tls_version, no_obc_when_off, cached_obc_is_reported_as_such,
          private_profile_writes_nothing]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100)
