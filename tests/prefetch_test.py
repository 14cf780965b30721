#!/usr/bin/env python3
"""Certificate-bundle prefetching end to end, on FIRST visits (a fresh profile each): the world
publishes bundles for its Snap Start origins through Knot DNS TXT records, nginx's well-known
paths, its CDNs and the test servers' truncated handshakes; `fetch --bundle-sources SRC
--prefetch HOST --snap-start` gets, verifies and prevalidates the bundle (OCSP through `openssl
ocsp`) before the click, and the click is a Snap Start with no revocation on its critical path.
Every spoofed or broken bundle the world publishes is rejected with its reason in the trace while
the fetch still succeeds over a normal handshake; a private profile keeps no bundle, orbit or
revocation answer on disk. See tests/README.md."""

import os

import e2e
from e2e import expect, expect_eq

RTT_MS = 50
OCSP_RTT_MS = 291

SOURCES = ["dns", "well-known", "cdn", "truncated"]


def _first_visit(ctx, key, source, *extra, profile=None):
    o = ctx.origin(key)
    profile = profile or ctx.scratch("profile-%s-%s" % (key, source))
    r = ctx.fetch("--profile", profile, "--snap-start", "--bundle-sources", source,
                  "--prefetch", o["host"], "-o", os.devnull, *extra, o["url"],
                  world_dns=True, revocation="soft", trace=True)
    return r, profile


def _bundle(t):
    return t["cert"].get("bundle") or {}


def first_visit_snap_start_from_each_source(ctx):
    for source in SOURCES:
        r, _ = _first_visit(ctx, "slow", source)
        r.expect_ok()
        t = r.trace[0]
        b = _bundle(t)
        expect_eq(t["tls"].get("snapStart"), "accepted", "%s: tls.snapStart" % source)
        expect_eq(t["cert"]["source"], "prefetch", "%s: cert.source" % source)
        expect_eq(b.get("source"), source, "%s: cert.bundle.source" % source)
        expect(b.get("used") and b.get("prevalidated"), "%s: bundle %r" % (source, b))
        expect(b.get("bytes", 0) > 1000, "%s: bundle bytes %r" % (source, b.get("bytes")))
        # Revocation was answered before the click: none of it on the critical path.
        expect_eq(t["cert"]["revocation"]["source"], "prevalidated",
                  "%s: cert.revocation.source" % source)
        # Snap Start: TCP (1 RTT) + request and response in the ClientHello flight (1 RTT).
        expect(t["responseEnd"] < 2.6 * RTT_MS,
               "%s: first-visit responseEnd %.1f ms is not ~2 RTT of %d ms" %
               (source, t["responseEnd"], RTT_MS))


def spoofed_and_broken_bundles_are_rejected_and_the_fetch_still_works(ctx):
    cases = ctx.world.get("bundle_cases") or {}
    expect(cases, "the world publishes no broken bundles (skipped: %s)" % ctx.world.get("skipped"))
    for name, case in sorted(cases.items()):
        o = ctx.origin(case["origin"])
        r = ctx.fetch("--profile", ctx.scratch("profile-" + name), "--snap-start",
                      "--bundle-sources", case["source"], "--prefetch", o["host"],
                      "-o", os.devnull, o["url"], world_dns=True, revocation="soft", trace=True)
        t = r.trace[0] if r.trace else {}
        b = _bundle(t) if t else {}
        if case["expect"] == "recovers":
            # A stale orbit: Snap Start is attempted from the bundle and the server recovers
            # with a normal handshake.
            r.expect_ok()
            expect_eq(t["tls"].get("snapStart"), "recovered", "%s: tls.snapStart" % name)
            continue
        expect(not b.get("used"), "%s: a rejected bundle was used: %r" % (name, b))
        expect(b.get("rejected"), "%s: no rejection reason in the trace: %r" % (name, b))
        if case.get("origin_expect") == "ok":
            r.expect_ok()
            expect(t["cert"]["source"] != "prefetch", "%s: cert.source" % name)
            expect(t["tls"].get("snapStart") in (None, ""), "%s: Snap Start from a rejected "
                   "bundle: %r" % (name, t["tls"].get("snapStart")))


def nginx_chain_prefetched_takes_revocation_off_the_critical_path(ctx):
    # nginx has no Snap Start; its chain, read by the truncated handshake and prevalidated,
    # still spares the click its OCSP round trip.
    r, _ = _first_visit(ctx, "nginx", "truncated")
    r.expect_ok()
    t = r.trace[0]
    expect_eq(t["cert"]["source"], "prefetch", "cert.source")
    expect_eq(t["cert"]["revocation"]["source"], "prevalidated", "cert.revocation.source")
    expect(t["cert"]["revocation"]["ms"] < 5, "revocation ms %r" % t["cert"]["revocation"])


def no_bundle_means_the_best_normal_handshake_and_learning_off_the_critical_path(ctx):
    o = ctx.origin("slow")
    profile = ctx.scratch("profile-learn")
    r = ctx.fetch("--profile", profile, "--snap-start", "-o", os.devnull, o["url"],
                  world_dns=True, trace=True).expect_ok()
    t = r.trace[0]
    # No Snap Start information: a TLS 1.3 handshake, not the static-RSA learning handshake.
    expect_eq(t["tls"]["version"], "TLSv1.3", "first visit's TLS version")
    expect(t["tls"].get("snapStart") in (None, ""), "first visit's snapStart")
    # The orbit was learned after the visit (a truncated handshake): the next visit snaps.
    r = ctx.fetch("--profile", profile, "--snap-start", "-o", os.devnull, o["url"],
                  world_dns=True, trace=True).expect_ok()
    expect_eq(r.trace[0]["tls"].get("snapStart"), "accepted", "second visit's snapStart")


def private_profile_keeps_nothing_on_disk(ctx):
    o = ctx.origin("slow")
    profile = ctx.scratch("profile-private")
    r = ctx.fetch("--private", "--profile", profile, "--snap-start", "--bundle-sources", "dns",
                  "--prefetch", o["host"], "-o", os.devnull, o["url"], world_dns=True,
                  revocation="soft", trace=True).expect_ok()
    expect_eq(r.trace[0]["tls"].get("snapStart"), "accepted", "private first visit")
    expect(not os.path.exists(profile), "--private created %s: %r" % (
        profile, os.listdir(profile) if os.path.isdir(profile) else None))
    # A persistent profile keeps the bundle (public data) and the revocation answers.
    _, persistent = _first_visit(ctx, "slow", "dns")
    names = sorted(os.listdir(persistent))
    expect("cert_bundles" in names and "revocation_cache" in names and "snap_start" in names,
           "persistent profile files: %r" % names)


def trace_events_put_prefetch_jobs_on_their_own_track(ctx):
    o = ctx.origin("slow")
    r = ctx.fetch("--profile", ctx.scratch("profile-events"), "--snap-start",
                  "--bundle-sources", "cdn", "--prefetch", o["host"], "-o", os.devnull, o["url"],
                  world_dns=True, revocation="soft", events=True).expect_ok()
    names = {e.get("name") for e in r.events["traceEvents"] if e.get("tid") == 0}
    expect("bundle_fetch" in names and "prevalidation" in names,
           "prefetch track events: %r" % names)


CHECKS = [
    first_visit_snap_start_from_each_source,
    spoofed_and_broken_bundles_are_rejected_and_the_fetch_still_works,
    nginx_chain_prefetched_takes_revocation_off_the_critical_path,
    no_bundle_means_the_best_normal_handshake_and_learning_off_the_critical_path,
    private_profile_keeps_nothing_on_disk,
    trace_events_put_prefetch_jobs_on_their_own_track,
]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=RTT_MS, world_args=["--ocsp-rtt-ms", str(OCSP_RTT_MS)])
