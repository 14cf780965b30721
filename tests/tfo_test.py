#!/usr/bin/env python3
"""TCP Fast Open (RFC 7413) end to end in the packet world, whose SYNs cross the emulated link
(issue 22): a first HTTPS visit in ONE round trip (Snap Start from a prefetched bundle that says
the server takes SYN data without a cookie, its first flight in the SYN), plain HTTP and TLS 1.3
with a cookie the kernel learned, curl --tcp-fastopen against the same world, the server
namespace's TcpExtTCPFastOpenPassive counter against the traces and the server's log, the
fallback when a middlebox drops SYNs carrying data (netem --drop-syn-data on slow12's path: after
about one RTT, measured by the RTT probe on a first visit or by a preconnect), and
replayed SYNs (netem --duplicate-syn on tls12's and www's paths): a replayed Snap Start first
flight is refused by the strike register, a POST never rides in a SYN. See tests/README.md."""

import os
import re
import subprocess
import time

import e2e
from e2e import CheckFailed, expect, expect_eq

RTT_MS = 100
# --duplicate-syn on tls12's and www's paths (netem sends the copy from the next source port, so
# it opens a connection of its own at the server, as an attacker's replay would).
REPLAY_MS = 300
WORLD_ARGS = ["--link", "packet",
              "--link-path", "slow12=drop-syn-data",
              "--link-path", "tls12=duplicate-syn=%d" % REPLAY_MS,
              "--link-path", "www=duplicate-syn=%d" % REPLAY_MS]


def _conn_to_end(t):
    return t["responseEnd"] - t["connectStart"]


def _passive_tfo_count(ctx):
    """The server namespace's TcpExtTCPFastOpenPassive (world.py's own namespace)."""
    pid = ctx.world["world_pid"]
    with open("/proc/%d/net/netstat" % pid) as f:
        lines = f.read().splitlines()
    for head, values in zip(lines[::2], lines[1::2]):
        if head.startswith("TcpExt:"):
            d = dict(zip(head.split()[1:], values.split()[1:]))
            return int(d["TCPFastOpenPassive"])
    raise CheckFailed("no TcpExt line in /proc/%d/net/netstat" % pid)


def _tfo_connections(tail):
    return [c for c in tail.events("connection") if c.get("tfo")]


def world_is_packet(ctx):
    expect_eq(ctx.world["link"]["mode"], "packet", "link mode (TFO needs SYNs on the link)")
    expect_eq(ctx.origin("slow")["rtt_ms"], RTT_MS, "slow rtt_ms")
    expect_eq(ctx.origin("slow")["tcp_fast_open"], "no-cookie", "slow's HTTPS listener")
    expect_eq(ctx.origin("slow_http")["tcp_fast_open"], "cookie", "slow's HTTP listener")


def plain_http_cookie_then_one_rtt(ctx):
    """No cookie yet: the SYN asks for one (2 RTT, as without Fast Open); the next connection
    puts the GET in the SYN and the response comes back after one round trip."""
    backend = ctx.origin("slow_http")["process"]
    tail = e2e.LogTail(ctx.log_path(backend))
    first = ctx.fetch("--tcp-fast-open", ctx.url("slow_http", "size/100"),
                      trace=True).expect_ok().trace[0]
    expect_eq(first["tcp"]["fastOpen"], "cookie_requested", "first visit tcp.fastOpen")
    e2e.expect_near(_conn_to_end(first), 2 * RTT_MS, RTT_MS / 2, "first visit, ms")
    second = ctx.fetch("--tcp-fast-open", ctx.url("slow_http", "size/100"),
                       trace=True).expect_ok().trace[0]
    expect_eq(second["tcp"]["fastOpen"], "accepted", "second visit tcp.fastOpen")
    expect(second["tcp"]["synDataBytes"] > 0, "no bytes in the SYN: %s" % second["tcp"])
    expect(_conn_to_end(second) < 1.1 * RTT_MS,
           "plain HTTP with TFO took %.1f ms (> 1.1 RTT)" % _conn_to_end(second))
    conns = tail.events("connection")
    expect_eq([c["tfo"] for c in conns], [False, True], "server's tfo per connection")


def curl_tcp_fastopen_one_rtt(ctx):
    """The world serves TFO to any client: curl --tcp-fastopen (the kernel has the server's
    cookie by now, or gets it on the first run) gets plain HTTP in one round trip."""
    url = ctx.url("slow_http", "size/100")
    times = []
    for _ in range(2):
        p = subprocess.run(["curl", "-s", "-o", os.devnull, "--tcp-fastopen", "-w",
                            "%{time_namelookup} %{time_connect} %{time_total}", url],
                           capture_output=True, text=True, timeout=30)
        expect_eq(p.returncode, 0, "curl exit (%s)" % p.stderr.strip())
        times.append([float(x) * 1000 for x in p.stdout.split()])
    # From the end of the lookup (the world's DNS is 40 ms away) to the last byte.
    lookup, connect, total = times[-1]
    print("    curl --tcp-fastopen: lookup %.1f ms, connect %.1f ms, total %.1f ms: %.1f ms "
          "after the lookup" % (lookup, connect, total, total - lookup))
    expect(total - lookup < 1.1 * RTT_MS,
           "curl --tcp-fastopen took %.1f ms after its lookup (> 1.1 RTT)" % (total - lookup))


def snap_start_first_visit_one_rtt(ctx):
    """The headline: a FIRST visit (fresh process, nothing learned) with the bundle from DNS,
    prevalidated, Snap Start's ClientHello and request in the SYN: the response arrives one
    round trip after connectStart. The server's log and its namespace's Fast Open counter agree
    with the traces."""
    backend = ctx.origin("slow")["process"]
    host, port = ctx.origin("slow")["host"], ctx.origin("slow")["port"]
    before = _passive_tfo_count(ctx)
    tail = e2e.LogTail(ctx.log_path(backend))
    costs = []
    for _ in range(3):
        t = ctx.fetch("--snap-start", "--bundle-sources", "dns", "--prefetch",
                      "%s:%d" % (host, port), "--tcp-fast-open", ctx.url("slow", "size/100"),
                      world_dns=True, trace=True).expect_ok().trace[0]
        expect_eq(t["tcp"]["fastOpen"], "accepted", "tcp.fastOpen")
        expect_eq(t["tcp"]["fastOpenMode"], "no_cookie", "tcp.fastOpenMode (the bundle's)")
        expect_eq(t["tls"]["snapStart"], "accepted", "tls.snapStart")
        expect_eq(t["cert"]["source"], "prefetch", "cert.source")
        costs.append(_conn_to_end(t))
    med = e2e.median(costs)
    print("    Snap Start + TFO first visit: %s ms (median %.1f, %.2f RTT)" % (
        [round(c, 1) for c in costs], med, med / RTT_MS))
    expect(med <= 1.1 * RTT_MS, "median %.1f ms > 1.1 RTT" % med)
    tfo = _tfo_connections(tail)
    expect_eq(len(tfo), 3, "server connections whose SYN data it took")
    for c in tfo:
        expect_eq(c["snap_start"], "accepted", "server's snap_start")
    expect_eq(_passive_tfo_count(ctx) - before, 3, "TcpExtTCPFastOpenPassive increase")


def tls13_client_hello_in_syn(ctx):
    """TLS 1.3 with a cookie from an earlier connection to the address (slow_http's): the
    ClientHello rides in the SYN, 2 RTT instead of 3; without --tcp-fast-open, 3."""
    with_tfo = ctx.fetch("--tcp-fast-open", ctx.url("slow", "size/100"),
                         trace=True).expect_ok().trace[0]
    without = ctx.fetch(ctx.url("slow", "size/100"), trace=True).expect_ok().trace[0]
    expect_eq(with_tfo["tcp"]["fastOpen"], "accepted", "tcp.fastOpen")
    expect_eq(with_tfo["tls"]["version"], "TLSv1.3", "TLS version")
    expect_eq(without["tcp"]["fastOpen"], "off", "tcp.fastOpen without the flag")
    e2e.expect_near(_conn_to_end(with_tfo), 2 * RTT_MS, RTT_MS / 2, "TLS 1.3 + TFO, ms")
    e2e.expect_near(_conn_to_end(without), 3 * RTT_MS, RTT_MS / 2, "TLS 1.3, ms")


FALLBACK_DETAIL = re.compile(r"raced after (?P<delay>[\d.]+) ms \(1\.1 x RTT (?P<rtt>[\d.]+) ms "
                             r"\+ 5 ms; RTT from (?P<source>[^)]+)\)")


def _raced_after_one_rtt(t, sources):
    """The trace's fallback delay is 1.1 x the path's RTT + 5 ms, measured by one of |sources|."""
    detail = t["tcp"]["fastOpenDetail"]
    m = FALLBACK_DETAIL.search(detail)
    expect(m, "the fallback's delay is not made of the RTT: %s" % detail)
    rtt = float(m.group("rtt"))
    expect(RTT_MS * 0.9 <= rtt <= RTT_MS * 1.3,
           "the RTT %s measured, %.1f ms, is not the path's %d" % (m.group("source"), rtt, RTT_MS))
    expect(m.group("source") in sources,
           "RTT from %r, expected one of %s" % (m.group("source"), sources))
    return m


def dropped_syn_data_falls_back(ctx):
    """slow12's path drops SYNs carrying data (a middlebox). Its bundle (the stale_orbit case,
    which says no cookie is needed) sends the Snap Start flight in the SYN; no SYN-ACK comes, so
    a connection without Fast Open races it and carries the same bytes: the fetch completes,
    named in the trace. A FIRST visit whose bundle came through DNS: nothing else connected to
    slow12, so the RTT probe (a bare TCP handshake when the bundle invited SYN data) measured
    its RTT during the prefetch, and the race starts 1.1 RTT + 5 ms after the SYN, not after the
    configured 250 ms. Three fresh processes interleaved with the same visit without Fast Open,
    medians compared: at most 1.75 RTT more (250 ms would be 2.5 RTT here). The next connection
    in the process stays off TFO."""
    case = ctx.world["bundle_cases"]["stale_orbit"]
    expect(case["tcp_fast_open_no_cookie"], "the stale_orbit bundle lacks the TFO flag")
    host, port = ctx.origin("slow12")["host"], ctx.origin("slow12")["port"]
    common = ["--snap-start", "--bundle-sources", "dns", "--prefetch", "%s:%d" % (host, port)]
    url = ctx.url("slow12", "size/100")
    tfo, base = [], []
    for _ in range(3):
        r = ctx.fetch(*common, "--tcp-fast-open", "--repeat", "2", url, world_dns=True,
                      trace=True).expect_ok()
        first, second = r.trace
        expect_eq(first["tcp"]["fastOpen"], "fallback", "first connection tcp.fastOpen")
        expect("drops them" in first["tcp"]["fastOpenDetail"],
               "fallback not explained: %s" % first["tcp"])
        m = _raced_after_one_rtt(first, {"the RTT probe"})
        expect_eq(first["tls"]["snapStart"], "recovered", "tls.snapStart (stale orbit)")
        expect_eq(second["tcp"]["fastOpen"], "off", "the next connection (per-host memory)")
        tfo.append(first)
        b = ctx.fetch(*common, url, world_dns=True, trace=True).expect_ok().trace[0]
        expect_eq(b["tcp"]["fastOpen"], "off", "baseline tcp.fastOpen")
        base.append(b)
    with_tfo = e2e.median([_conn_to_end(t) for t in tfo])
    without = e2e.median([_conn_to_end(t) for t in base])
    extra = with_tfo - without
    print("    first-visit fallback (%s): %.1f ms, without TFO %.1f ms: +%.1f ms (%.2f RTT)" % (
        m.group(0), with_tfo, without, extra, extra / RTT_MS))
    expect(extra <= 1.75 * RTT_MS,
           "the fallback cost %.1f ms more than no TFO (> 1.75 RTT)" % extra)


def dropped_syn_data_raced_after_one_rtt(ctx):
    """The same middlebox, visited after a connection to slow12 without data in its SYN (a
    --preconnect in the same process) measured its RTT: the race starts 1.1 RTT + 5 ms after the
    SYN with data, not 250 ms, so the visit costs about one round trip more than without TCP Fast
    Open. Round 1 of --repeat 2 is that visit (round 0 takes the preconnected socket); the
    baseline is the same command without --tcp-fast-open, runs interleaved, medians compared.
    The bound (1.75 RTT) fails if the delay stays 250 ms (2.5 RTT here)."""
    host, port = ctx.origin("slow12")["host"], ctx.origin("slow12")["port"]
    common = ["--snap-start", "--bundle-sources", "dns", "--prefetch", "%s:%d" % (host, port),
              "--preconnect", "--repeat", "2"]
    url = ctx.url("slow12", "size/100")
    tfo, base = [], []
    for _ in range(3):
        first, visit = ctx.fetch(*common, "--tcp-fast-open", url, world_dns=True,
                                 trace=True).expect_ok().trace
        expect(first["socketPreconnected"], "round 0 did not take the preconnected socket")
        expect_eq(visit["tcp"]["fastOpen"], "fallback", "tcp.fastOpen after an RTT sample")
        # The preconnect and the RTT probe both measure it; the smaller sample is the estimate.
        m = _raced_after_one_rtt(visit, {"a preconnect", "the RTT probe"})
        tfo.append(visit)
        b = ctx.fetch(*common, url, world_dns=True, trace=True).expect_ok().trace[1]
        expect_eq(b["tcp"]["fastOpen"], "off", "baseline tcp.fastOpen")
        base.append(b)
    expect_eq({t["tls"]["handshake"]["chosen"] for t in tfo + base},
              {tfo[0]["tls"]["handshake"]["chosen"]}, "the same handshake with TFO and without")
    with_tfo = e2e.median([_conn_to_end(t) for t in tfo])
    without = e2e.median([_conn_to_end(t) for t in base])
    extra = with_tfo - without
    print("    fallback after an RTT sample (%s): %.1f ms, without TFO %.1f ms: +%.1f ms "
          "(%.2f RTT)" % (m.group(0), with_tfo, without, extra, extra / RTT_MS))
    expect(extra <= 1.75 * RTT_MS,
           "the fallback cost %.1f ms more than no TFO (> 1.75 RTT)" % extra)


def replayed_snap_start_syn_is_refused(ctx):
    """tls12's path delivers every SYN carrying data again 300 ms later. The replayed Snap
    Start first flight reaches the server as a new connection whose SYN data it takes; the
    strike register refuses it (snap_start_detail "replay"), so the request inside it is never
    served twice."""
    o = ctx.origin("tls12")
    tail = e2e.LogTail(ctx.log_path(o["process"]))
    t = ctx.fetch("--snap-start", "--bundle-sources", "cdn", "--prefetch",
                  "%s:%d" % (o["host"], o["port"]), "--tcp-fast-open", ctx.url("tls12", "x"),
                  world_dns=True, trace=True).expect_ok().trace[0]
    expect_eq(t["tcp"]["fastOpen"], "accepted", "tcp.fastOpen")
    expect_eq(t["tls"]["snapStart"], "accepted", "tls.snapStart")
    time.sleep(REPLAY_MS / 1000 + 0.3)
    lines = tail.json_lines()
    conns = [l for l in lines if l.get("event") in ("connection", "handshake_failed")]
    # The RTT probe (the bundle invited SYN data and nothing had measured tls12's RTT): a TCP
    # handshake closed before any ClientHello.
    probes = [c for c in conns if c.get("error") == "ERR_SSL_HANDSHAKE_CLOSED"]
    conns = [c for c in conns if c not in probes]
    requests = [l for l in lines if l.get("event") == "request"]
    expect_eq(len(probes), 1, "RTT probe connections: %s" % probes)
    expect_eq(len(conns), 2, "server connections (the original and the replay): %s" % conns)
    replay = conns[1]
    expect_eq(replay.get("snap_start_detail"), "replay", "the replay's snap_start_detail")
    expect(replay.get("snap_start") != "accepted", "the replay was accepted: %s" % replay)
    expect_eq(len(requests), 1, "requests served: %s" % requests)


def replayed_syn_never_carries_a_post(ctx):
    """www's HTTP path replays SYNs with data too. A GET with a cookie rides in the SYN and is
    served again by the replay (GET is idempotent); a POST never rides in a SYN."""
    o = ctx.origin("www_http")
    ctx.fetch("--tcp-fast-open", ctx.url("www_http", "cookie-please")).expect_ok()  # a cookie
    tail = e2e.LogTail(ctx.log_path(o["process"]))
    get = ctx.fetch("--tcp-fast-open", ctx.url("www_http", "get-once"),
                    trace=True).expect_ok().trace[0]
    post = ctx.fetch("--tcp-fast-open", "-X", "POST", "-d", "x=1",
                     ctx.url("www_http", "post-once"), trace=True).trace[0]
    expect_eq(get["tcp"]["fastOpen"], "accepted", "GET tcp.fastOpen")
    expect_eq(post["tcp"]["fastOpen"], "off", "POST tcp.fastOpen")
    time.sleep(REPLAY_MS / 1000 + 0.3)
    reqs = [l for l in tail.json_lines() if l.get("event") == "request"]
    paths = [r["path"] for r in reqs]
    expect_eq(paths.count("/post-once"), 1, "POSTs the server saw (%s)" % paths)
    expect_eq(paths.count("/get-once"), 2, "GETs the server saw (the replay too) (%s)" % paths)


def cheapest_handshake_wins(ctx):
    """Within one process, each new connection to slow (TLS 1.3 and Snap Start) takes the
    cheapest handshake it knows of, and the trace names it and the runner-up: a full TLS 1.3
    handshake first (nothing known), then Snap Start with the orbit learned meanwhile (2 RTT,
    against a 3-RTT resumption); with --early-data, TLS 1.3 0-RTT, which ties with Snap Start
    and wins the tie (forward secrecy)."""
    url = ctx.url("slow", "size/100")
    # Half a second between visits: the orbit is learned off the critical path (a truncated
    # handshake after the first), "meanwhile".
    pace = ["--repeat", "3", "--repeat-interval", "0.5"]
    plain = ctx.fetch("--snap-start", *pace, url, trace=True).expect_ok().trace
    early = ctx.fetch("--snap-start", "--early-data", *pace, url, trace=True).expect_ok().trace
    for traces in (plain, early):
        expect_eq(traces[0]["tls"]["handshake"]["chosen"], "tls_full", "first connection")
    for t in plain[1:]:
        h = t["tls"]["handshake"]
        expect_eq((h["chosen"], h["rtts"], h["runnerUp"], h["runnerUpRtts"]),
                  ("snap_start", 2, "tls_resumption", 3), "choice with an orbit")
        expect_eq(t["tls"]["snapStart"], "accepted", "tls.snapStart")
        e2e.expect_near(_conn_to_end(t), 2 * RTT_MS, RTT_MS / 2, "Snap Start, ms")
    for t in early[1:]:
        h = t["tls"]["handshake"]
        expect_eq((h["chosen"], h["runnerUp"]), ("tls13_0rtt", "snap_start"),
                  "choice with a 0-RTT ticket and an orbit")
        expect_eq(t["tls"]["earlyData"], "accepted", "tls.earlyData")
        e2e.expect_near(_conn_to_end(t), 2 * RTT_MS, RTT_MS / 2, "TLS 1.3 0-RTT, ms")


CHECKS = [world_is_packet, plain_http_cookie_then_one_rtt, curl_tcp_fastopen_one_rtt,
          snap_start_first_visit_one_rtt, tls13_client_hello_in_syn,
          dropped_syn_data_falls_back, dropped_syn_data_raced_after_one_rtt,
          replayed_snap_start_syn_is_refused,
          replayed_syn_never_carries_a_post, cheapest_handshake_wins]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=RTT_MS, world_args=WORLD_ARGS)
