#!/usr/bin/env python3
"""DNS HTTPS records (RFC 9460) and Encrypted ClientHello against the world's Knot and its ECH
origin (a testserver with ECH keys and HTTP/2): fetch resolves an origin's HTTPS record beside
its addresses, connects on the record's ALPN and offers the record's ECH configuration, and the
server logs the hidden inner name; a stale configuration is rejected, retried once with the
server's retry configurations and accepted; GREASE against a server without ECH keys; the
name in the clear with ECH off; a malformed record is ignored with the reason in the trace, an
h3-only one tried over HTTP/3 and then ignored for the TCP fallback; an h3 record's origin
preconnected over QUIC; a record whose endpoint refuses the connection gives way to the origin's
own; AliasMode is followed;
--ech hard and --ech ecl:; and the HTTPS query costs the lookup nothing (it goes beside A/AAAA).
See tests/README.md."""

import os
import statistics

import e2e
from e2e import expect, expect_eq

PUBLIC_NAME = "public.example.test"


def _ech(ctx):
    d = ctx.world.get("dns")
    expect(d, "the world has no DNS server (skipped: %s)" % ctx.world.get("skipped"))
    ctx.origin("ech")  # names the missing origin if there is none
    return d["ech"]


def _url(name):
    return "https://%s.example.test/" % name


def _fetch(ctx, name, *flags, **kw):
    # HTTPS records are asked for by default (--no-https-rr among the flags turns them off).
    return ctx.fetch(*flags, "-o", os.devnull, _url(name), world_dns=True, trace=True, **kw)


def _server_log(ctx):
    return e2e.LogTail(ctx.log_path(ctx.origin("ech")["process"]))


def _connections(tail):
    return tail.events("connection", settle=0.5)


def record_gives_alpn_and_ech_and_the_server_sees_the_hidden_name(ctx):
    ech = _ech(ctx)
    tail = _server_log(ctx)
    r = _fetch(ctx, "ech").expect_ok()
    t = r.trace[0]
    h = t["dns"]["httpsRecord"]
    expect_eq(h["status"], "used", "dns.httpsRecord.status (%s)" % h["detail"])
    expect_eq(h["target"], "ech.example.test", "the record's target (\".\": the owner)")
    expect_eq(h["alpn"], ["h2", "http/1.1"], "the record's alpn")
    expect_eq(h["ech"], True, "the record carries ECH")
    expect_eq(h["addressesFrom"], "a_aaaa", "addresses from")
    # The connection speaks the record's first ALPN, which the server offers (h2).
    expect_eq(t["tls"]["alpn"], "h2", "tls.alpn")
    expect(t.get("h2"), "no h2 object in the trace: %s" % t)
    expect_eq(t["tls"]["ech"], "accepted", "tls.ech (%s)" % t["tls"]["echDetail"])
    expect_eq(t["tls"]["sniOnWire"], ech["public_name"], "tls.sniOnWire")
    conns = _connections(tail)
    expect_eq(len(conns), 1, "server connection lines %s" % conns)
    c = conns[0]
    expect_eq((c["ech_accepted"], c["sni_inner"], c["sni_outer"]),
              (True, "ech.example.test", PUBLIC_NAME), "the server's view")
    expect_eq(c["alpn"], "h2", "the server's alpn")


def stale_config_is_rejected_then_retried_with_the_servers(ctx):
    _ech(ctx)
    tail = _server_log(ctx)
    r = _fetch(ctx, "stale-ech").expect_ok()
    t = r.trace[0]
    expect_eq(t["dns"]["httpsRecord"]["status"], "used", "dns.httpsRecord.status")
    expect_eq((t["tls"]["ech"], t["tls"].get("echRetry")), ("rejected", "accepted"),
              "tls.ech, tls.echRetry (%s)" % t["tls"]["echDetail"])
    expect("retry configurations" in t["tls"]["echDetail"], t["tls"]["echDetail"])
    expect_eq(t["status"], 200, "status")
    conns = _connections(tail)
    expect_eq([(c["ech_accepted"], c["sni_inner"], c["sni_outer"]) for c in conns],
              [(False, None, PUBLIC_NAME), (True, "stale-ech.example.test", PUBLIC_NAME)],
              "server connections: the rejected one (no request), then the retry")
    reqs = tail.events("request")
    expect_eq(len(reqs), 1, "requests served (only the retry carries one): %s" % reqs)


def grease_against_a_server_without_ech_keys(ctx):
    tail = e2e.LogTail(ctx.log_path(ctx.origin("www")["process"]))
    r = _fetch(ctx, "www").expect_ok()
    t = r.trace[0]
    expect_eq(t["dns"]["httpsRecord"]["status"], "used", "www's record")
    expect_eq(t["dns"]["httpsRecord"]["ech"], False, "www's record has no ech")
    expect_eq(t["tls"]["ech"], "grease", "tls.ech")
    expect_eq(t["tls"]["sniOnWire"], "www.example.test", "GREASE hides nothing")
    conns = _connections(tail)
    expect(conns, "no connection line")
    expect_eq((conns[-1]["ech_accepted"], conns[-1]["sni_outer"]),
              (False, "www.example.test"), "the server's view")
    # --no-ech-grease: nothing ECH at all.
    r = _fetch(ctx, "www", "--no-ech-grease").expect_ok()
    expect_eq(r.trace[0]["tls"]["ech"], "none", "tls.ech with --no-ech-grease")


def ech_off_puts_the_name_in_the_clear(ctx):
    _ech(ctx)
    tail = _server_log(ctx)
    r = _fetch(ctx, "ech", "--ech", "false").expect_ok()
    t = r.trace[0]
    expect_eq(t["tls"]["ech"], "none", "tls.ech with --ech false")
    expect_eq(t["tls"]["sniOnWire"], "ech.example.test", "tls.sniOnWire")
    conns = _connections(tail)
    expect_eq((conns[-1]["ech_accepted"], conns[-1]["sni_outer"]),
              (False, "ech.example.test"), "the server's view")


def malformed_record_is_ignored_with_the_reason(ctx):
    _ech(ctx)
    r = _fetch(ctx, "badrr").expect_ok()
    h = r.trace[0]["dns"]["httpsRecord"]
    expect_eq(h["status"], "ignored", "dns.httpsRecord.status")
    expect("malformed" in h["detail"] and "RDATA ends inside a SvcParam" in h["detail"],
           "detail: %r" % h["detail"])
    expect_eq(r.trace[0]["status"], 200, "the request went on as without the record")
    expect_eq(r.trace[0]["tls"]["ech"], "grease", "tls.ech")


def h3_only_record_is_ignored(ctx):
    """alpn=h3 no-default-alpn: with --h3-https-rr the record sends the request to HTTP/3 (net/quic/README.md,
    discovery by DNS); nothing answers QUIC there (the ECH origin's address: UDP port
    unreachable), so it falls back to TCP, for which the record does not apply (no protocol of
    TCP's in its ALPN set): the origin's own addresses, the record ignored with the reason."""
    _ech(ctx)
    # Without --h3-https-rr (the default: QUIC is not raced against TCP yet) the record is
    # only ignored: no QUIC attempt.
    t = _fetch(ctx, "h3only").expect_ok().trace[0]
    expect_eq(t["dns"]["httpsRecord"]["status"], "ignored", "dns.httpsRecord.status (default)")
    expect_eq((t.get("quic") or {}).get("httpsRecord", ""), "", "no QUIC attempt by default")
    r = _fetch(ctx, "h3only", "--h3-https-rr").expect_ok()
    t = r.trace[0]
    h = t["dns"]["httpsRecord"]
    expect_eq(h["status"], "ignored", "dns.httpsRecord.status")
    expect("(h3)" in h["detail"] and "not for TCP" in h["detail"], "detail: %r" % h["detail"])
    q = t.get("quic") or {}
    expect_eq((q.get("used"), q.get("httpsRecord")),
              (False, "alpn=h3 no-default-alpn target=h3only.example.test"),
              "quic (the record tried, then TCP): %r" % q)
    expect(q["fallback"].endswith("retried over TCP"), "quic.fallback: %r" % q["fallback"])
    expect_eq(t["tls"]["alpn"], "h2", "the TCP connection's ALPN")


def dead_endpoint_gives_way_to_the_origins_own(ctx):
    """deadrr's record names port 1, where nothing listens: the connection is refused there and
    goes to the origin's own port, as without the record (RFC 9460 3); the trace keeps the
    record, ignored, with the reason."""
    _ech(ctx)
    r = _fetch(ctx, "deadrr").expect_ok()
    t = r.trace[0]
    h = t["dns"]["httpsRecord"]
    expect_eq(h["status"], "ignored", "dns.httpsRecord.status (%s)" % h)
    expect(h["detail"].startswith("every endpoint failed (deadrr.example.test:1: ") and
           "the origin's own addresses and port" in h["detail"], "detail: %r" % h["detail"])
    port = ctx.origin("ech")["port"]
    expect(t["remoteAddress"].endswith(":%d" % port), "remoteAddress %s, expected port %d" %
           (t["remoteAddress"], port))
    expect_eq(t["tls"]["alpn"], "h2", "tls.alpn")


def h3_record_preconnects_over_quic(ctx):
    """--preconnect with --h3-https-rr: a prefetched origin whose HTTPS record offers h3 (the
    world's Caddy) is preconnected over QUIC, since its request will go there; the click takes
    that HTTP/3 session (socketPreconnected, dns.source preconnect), with no handshake of its
    own (connectStart..connectEnd empty)."""
    expect(ctx.world.get("dns"), "the world has no DNS server (skipped: %s)" %
           ctx.world.get("skipped"))
    o = ctx.origin("h3")
    r = ctx.fetch("--h3-https-rr", "--preconnect", "--prefetch", "%s:%d" % (o["host"], o["port"]),
                  "-o", os.devnull, o["url"], world_dns=True, trace=True).expect_ok()
    t = r.trace[0]
    q = t.get("quic") or {}
    expect_eq((q.get("used"), t["socketPreconnected"], t["dns"]["source"]),
              (True, True, "preconnect"), "quic.used, socketPreconnected, dns.source (%s)" % t)
    expect_eq(t["connectEnd"] - t["connectStart"], 0, "the click's own connect time")


def alias_mode_is_followed(ctx):
    _ech(ctx)
    tail = _server_log(ctx)
    # A prefetch waits for the alias chain's second query (off the critical path).
    r = _fetch(ctx, "alias-ech", "--prefetch", "alias-ech.example.test").expect_ok()
    t = r.trace[0]
    h = t["dns"]["httpsRecord"]
    expect_eq((h["status"], h["source"]), ("used", "prefetch"), "dns.httpsRecord (%s)" % h)
    expect_eq(h["aliasChain"], ["ech.example.test"], "aliasChain")
    expect_eq(h["target"], "ech.example.test", "target")
    expect_eq(t["tls"]["ech"], "accepted", "tls.ech (the target's configuration)")
    expect_eq(t["domainLookupEnd"] - t["domainLookupStart"], 0, "prefetched lookup ms")
    c = _connections(tail)[-1]
    expect_eq((c["ech_accepted"], c["sni_inner"]), (True, "alias-ech.example.test"),
              "the server's view: the origin's name, hidden")
    # A request does not wait an extra round trip for the chain; the next one has it cached
    # (HTTP/1.1: a new connection for the second round, where h2 would reuse the session;
    # 0.3 s apart: the chain's second query (one DNS RTT) has answered by then).
    r = _fetch(ctx, "alias-ech", "--http1.1", "--repeat", "2", "--repeat-interval",
               "0.3").expect_ok()
    expect_eq(r.trace[0]["dns"]["httpsRecord"]["status"], "not_in_time",
              "the first request's (the chain takes two DNS round trips)")
    expect_eq(r.trace[1]["socketReused"], False, "the second round's connection is new")
    expect_eq(r.trace[1]["dns"]["httpsRecord"]["status"], "used", "the second request's")
    expect_eq(r.trace[1]["tls"]["ech"], "accepted", "the second request's tls.ech")


def ech_hard_without_a_configuration_fails(ctx):
    r = ctx.fetch("--ech", "hard", _url("www"), world_dns=True)
    r.expect_error(101, "ERR_ECH_NOT_NEGOTIATED", "--ech hard")


def ech_config_from_the_command_line(ctx):
    ech = _ech(ctx)
    r = _fetch(ctx, "ech", "--no-https-rr", "--ech", "ecl:" + ech["config"]).expect_ok()
    t = r.trace[0]
    expect("httpsRecord" not in t["dns"], "--no-https-rr: no record asked for")
    expect_eq(t["tls"]["ech"], "accepted", "tls.ech with --ech ecl:")


def https_query_costs_the_lookup_nothing(ctx):
    # Cold lookups, each a fresh process: with the HTTPS query beside A/AAAA, and without it,
    # interleaved. The answers come back together, so the lookup takes the DNS round trip
    # either way.
    _ech(ctx)
    rtt = ctx.world["dns"]["rtt_ms"]
    with_rr, without_rr, waits = [], [], []
    for _ in range(5):
        for flags, out in (((), with_rr), (("--no-https-rr",), without_rr)):
            t = _fetch(ctx, "ech", *flags).expect_ok().trace[0]
            out.append(t["domainLookupEnd"] - t["domainLookupStart"])
            if not flags:
                waits.append(t["dns"]["httpsRecord"]["waitMs"])
    a, b = statistics.median(with_rr), statistics.median(without_rr)
    print("    lookup ms, median of 5 (DNS RTT %d): with HTTPS %.2f, without %.2f; "
          "waitMs %s" % (rtt, a, b, waits))
    expect(a - b < 3.0, "the HTTPS query cost the lookup %.2f ms (with %s, without %s)" %
           (a - b, with_rr, without_rr))
    expect(max(waits) < 3.0, "waited for the HTTPS answer after A/AAAA: %s ms" % waits)


CHECKS = [record_gives_alpn_and_ech_and_the_server_sees_the_hidden_name,
          stale_config_is_rejected_then_retried_with_the_servers,
          grease_against_a_server_without_ech_keys, ech_off_puts_the_name_in_the_clear,
          malformed_record_is_ignored_with_the_reason, h3_only_record_is_ignored,
          h3_record_preconnects_over_quic, dead_endpoint_gives_way_to_the_origins_own,
          alias_mode_is_followed, ech_hard_without_a_configuration_fails,
          ech_config_from_the_command_line, https_query_costs_the_lookup_nothing]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=100)
