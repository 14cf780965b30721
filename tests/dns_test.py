#!/usr/bin/env python3
"""DNS through a real server: the world's Knot DNS behind a netem relay (40 ms RTT). A cold lookup
costs the DNS round trip, a prefetched host costs zero (source prefetch), a cached one zero
(source cache); a short TTL is re-resolved after expiry; NXDOMAIN is named and negatively cached;
a dead server is a quick error, not a hang; a 3.5 KB TXT record comes back intact with EDNS0 and
over TCP without it; the prefetch triggers (explicit list, page links, profile startup list)
work end to end. See tests/README.md."""

import json
import os
import subprocess

import e2e
from e2e import expect, expect_eq, expect_near


def _dns(ctx):
    d = ctx.world.get("dns")
    expect(d, "the world has no DNS server (skipped: %s)" % ctx.world.get("skipped"))
    return d


def _lookup_ms(t):
    return t["domainLookupEnd"] - t["domainLookupStart"]


def _dnslookup(ctx, *args):
    return subprocess.run([ctx.args.dnslookup] + list(args), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)


def cold_lookup_costs_the_dns_rtt(ctx):
    rtt = _dns(ctx)["rtt_ms"]
    r = ctx.fetch("-o", os.devnull, ctx.url("www"), world_dns=True, trace=True).expect_ok()
    t = r.trace[0]
    expect_eq(t["dns"]["source"], "network", "dns source")
    expect_near(_lookup_ms(t), rtt + 2, 6, "cold lookup ms (DNS RTT %d)" % rtt)


def prefetched_host_costs_zero(ctx):
    r = ctx.fetch("--prefetch", "www.example.test", "-o", os.devnull, ctx.url("www"),
                  world_dns=True, trace=True).expect_ok()
    t = r.trace[0]
    expect_eq(t["dns"]["source"], "prefetch", "dns source")
    expect_eq(_lookup_ms(t), 0, "prefetched lookup ms")


def cached_host_costs_zero(ctx):
    r = ctx.fetch("--repeat", "2", "-o", os.devnull, ctx.url("www"), world_dns=True,
                  trace=True).expect_ok()
    expect_eq([t["dns"]["source"] for t in r.trace], ["network", "cache"], "dns sources")
    expect_eq(_lookup_ms(r.trace[1]), 0, "cached lookup ms")


def short_ttl_is_resolved_again(ctx):
    d = _dns(ctx)
    host = d["short_ttl_host"]  # TTL 2 s, same address as www
    port = ctx.origin("www_http")["port"]
    url = "http://%s:%d/" % (host, port)
    r = ctx.fetch("--repeat", "3", "--repeat-interval", "1.2", "-o", os.devnull, url,
                  world_dns=True, trace=True, timeout=60).expect_ok()
    # t=0 network, t=1.2 s cache, t=2.4 s expired: network again.
    expect_eq([t["dns"]["source"] for t in r.trace], ["network", "cache", "network"],
              "sources across the %d s TTL" % d["short_ttl"])


def nxdomain_is_named_and_negatively_cached(ctx):
    host = _dns(ctx)["nxdomain_host"]
    r = ctx.fetch("--repeat", "2", "https://%s/" % host, world_dns=True, trace=True)
    r.expect_error(6, "ERR_NAME_NOT_RESOLVED", host.replace(".", r"\."))
    expect_eq([t["dns"]["source"] for t in r.trace], ["network", "cache"],
              "NXDOMAIN then the negative cache entry")
    expect_eq(_lookup_ms(r.trace[1]), 0, "negatively cached lookup ms")


def dead_dns_server_is_a_quick_error(ctx):
    # A port nobody serves: the query is refused (or unanswered) -> a DNS error, not a hang.
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    r = ctx.fetch("--dns-server", "127.0.0.1:%d" % port, "--dns-timeout", "0.3",
                  "http://www.example.test/", world=False, trace=True, timeout=30)
    r.expect_error(6, "ERR_DNS_TIMED_OUT")
    expect(r.secs < 5, "dead server took %.1fs" % r.secs)
    # And a server that swallows queries: the relay pointing nowhere is simulated by a bound,
    # silent UDP socket.
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    try:
        r = ctx.fetch("--dns-server", "127.0.0.1:%d" % silent.getsockname()[1],
                      "--dns-timeout", "0.3", "http://www.example.test/", world=False,
                      timeout=30)
        r.expect_error(6, "ERR_DNS_TIMED_OUT")
        expect(r.secs < 5, "silent server took %.1fs" % r.secs)
    finally:
        silent.close()


def big_txt_record_with_and_without_edns(ctx):
    d = _dns(ctx)
    with open(d["big_txt_file"]) as f:
        expected = f.read()
    expect(3000 <= len(expected) <= 4096, "big TXT is %d bytes" % len(expected))
    for flags, what in (([], "EDNS0 over UDP"), (["--no-edns"], "truncated UDP, then TCP")):
        p = _dnslookup(ctx, "--server", d["server"], "--txt", *flags, d["big_txt_host"])
        expect_eq(p.returncode, 0, "dnslookup %s: %s" % (what, p.stderr))
        expect_eq(p.stdout.rstrip("\n"), expected, "big TXT (%s)" % what)


def txt_records_are_kept_apart(ctx):
    d = _dns(ctx)
    p = _dnslookup(ctx, "--server", d["server"], "--txt", d["txt_host"])
    expect_eq(p.returncode, 0, p.stderr)
    got = sorted(p.stdout.splitlines())
    want = sorted("".join(strings) for strings in d["txt_records"])
    expect_eq(got, want, "TXT records (strings joined per record)")


def prefetch_links_of_a_page(ctx):
    r = ctx.fetch("-v", "--prefetch-links", "-o", os.devnull, ctx.url("www"),
                  world_dns=True).expect_ok()
    for host in ("nginx.example.test", "slow12.example.test"):
        expect("* prefetched %s: OK (network)" % host in r.err,
               "%s not prefetched from the page's links\n%s" % (host, r.describe()))


def profile_startup_list(ctx):
    profile = ctx.scratch("profile")
    ctx.fetch("--profile", profile, "-o", os.devnull, ctx.url("www"), world_dns=True).expect_ok()
    expect(os.path.isfile(os.path.join(profile, "host_history.pb")), "no history written")
    # The next run prefetches the profile's top hosts at startup.
    r = ctx.fetch("--profile", profile, "-o", os.devnull, ctx.url("www"), world_dns=True,
                  trace=True).expect_ok()
    expect_eq(r.trace[0]["dns"]["source"], "prefetch", "dns source with a startup list")
    expect_eq(_lookup_ms(r.trace[0]), 0, "lookup ms with a startup list")
    # A corrupt history is reported, not replaced.
    with open(os.path.join(profile, "host_history.pb"), "wb") as f:
        f.write(b"\xff\xfe not a protobuf")
    r = ctx.fetch("--profile", profile, ctx.url("www"), world_dns=True)
    r.expect_rc(2)
    expect("corrupt" in r.err, r.describe())


CHECKS = [cold_lookup_costs_the_dns_rtt, prefetched_host_costs_zero, cached_host_costs_zero,
          short_ttl_is_resolved_again, nxdomain_is_named_and_negatively_cached,
          dead_dns_server_is_a_quick_error, big_txt_record_with_and_without_edns,
          txt_records_are_kept_apart, prefetch_links_of_a_page, profile_startup_list]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100)
