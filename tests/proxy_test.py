#!/usr/bin/env python3
"""fetch through a real HTTP proxy (Debian's tinyproxy), side by side with curl, in the packet
world: the proxy runs on the client host, resolves the world's names through the world's Knot
(as a proxy resolves for its clients) and CONNECTs over the emulated link. Checks: -x for http
(absolute form) and https (CONNECT, then TLS verified end to end); a FIRST visit that runs Snap
Start from a certificate bundle prefetched through DNS, inside the tunnel; http_proxy and
--noproxy as curl reads them; a proxy that refuses CONNECT (exit 56, as curl) and one that never
answers (exit 28, as curl). See tests/README.md."""

import os
import shutil
import subprocess
import time

import e2e
from e2e import PeerMissing, expect, expect_eq

RTT_MS = 50


def _tinyproxy(ctx, name, connect_ports):
    """A tinyproxy in the foreground on a free loopback port; CONNECT only to connect_ports."""
    if not shutil.which("tinyproxy"):
        raise PeerMissing("tinyproxy (tools/setup.sh installs it)")
    port = e2e.free_port()
    conf = ctx.scratch(name + ".conf")
    with open(conf, "w") as f:
        f.write("Port %d\nListen 127.0.0.1\nTimeout 30\nAllow 127.0.0.1\nMaxClients 20\n"
                "LogLevel Info\n" % port)
        for p in connect_ports:
            f.write("ConnectPort %d\n" % p)
    peer = e2e.Peer(name, ["tinyproxy", "-d", "-c", conf], ctx.scratch(name + ".log"),
                    ready=lambda p: e2e.is_listening(port))
    return peer, "http://127.0.0.1:%d" % port


def _curl(ctx, *args, env=None):
    argv = ["curl", "-sS", "--cacert", ctx.root_pem] + [str(a) for a in args]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30,
                       env=env)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def _log(peer):
    with open(peer.log_path, errors="replace") as f:
        return f.read()


def https_and_http_through_the_proxy(ctx):
    proxy, url = _tinyproxy(ctx, "tinyproxy", [443])
    with proxy:
        www = ctx.url("www")
        r = ctx.fetch("-x", url, www, trace=True, world_dns=True).expect_ok()
        t = r.trace[0]
        expect_eq(t["proxy"], url, "trace proxy")
        expect_eq(t["status"], 200, "status through CONNECT")
        expect_eq(t["cert"]["verifyResult"], "OK", "the origin's chain, verified end to end")
        expect_eq(t["remoteAddress"], url[len("http://"):], "the transport peer is the proxy")
        rc, out, err = _curl(ctx, "-x", url, www)
        expect_eq((rc, out), (0, r.out.decode()), "curl through the same proxy (%s)" % err)
        expect("CONNECT www.example.test:443" in _log(proxy), "tinyproxy logged the CONNECT")
        # Plain HTTP: the request line in absolute form, no CONNECT.
        http = ctx.url("www_http", "size/100")
        r = ctx.fetch("-x", url, http, trace=True, world_dns=True).expect_ok()
        expect_eq(len(r.out), 100, "http body through the proxy")
        expect_eq(r.trace[0]["proxy"], url, "http trace proxy")
        expect("GET http://www.example.test/size/100" in _log(proxy),
               "tinyproxy saw the absolute-form request")


def snap_start_first_visit_through_the_tunnel(ctx):
    """The issue's bar: a first visit whose Snap Start comes from a DNS-prefetched, prevalidated
    bundle, run inside a CONNECT tunnel."""
    proxy, url = _tinyproxy(ctx, "tinyproxy-snap", [443])
    with proxy:
        slow = ctx.url("slow")
        r = ctx.fetch("-x", url, "--snap-start", "--bundle-sources", "dns", "--prefetch",
                      "slow.example.test", "--profile", ctx.scratch("profile-snap"), slow,
                      trace=True, world_dns=True).expect_ok()
        t = r.trace[0]
        expect_eq(t["proxy"], url, "trace proxy")
        expect_eq(t["tls"]["snapStart"], "accepted", "tls.snapStart through the tunnel")
        expect_eq(t["cert"]["source"], "prefetch", "cert.source")
        expect("CONNECT slow.example.test:443" in _log(proxy), "tinyproxy logged the CONNECT")


def environment_and_noproxy_as_curl(ctx):
    proxy, url = _tinyproxy(ctx, "tinyproxy-env", [443])
    with proxy:
        env = dict(os.environ, http_proxy=url, https_proxy=url)
        http = ctx.url("www_http", "size/10")
        r = ctx.fetch("-s", http, trace=True, world_dns=True, env=env).expect_ok()
        expect_eq(r.trace[0]["proxy"], url, "http_proxy from the environment")
        r = ctx.fetch("-s", "--noproxy", "www.example.test", http, trace=True, world_dns=True,
                      env=env).expect_ok()
        expect_eq(r.trace[0]["proxy"], "direct", "--noproxy bypasses the environment's proxy")
        r = ctx.fetch("-s", "-x", "", http, trace=True, world_dns=True, env=env).expect_ok()
        expect_eq(r.trace[0]["proxy"], "direct", "-x '' turns every proxy off, as curl")
        # Upper-case HTTP_PROXY is never read (httpoxy), as curl.
        env = dict(os.environ, HTTP_PROXY=url)
        r = ctx.fetch("-s", http, trace=True, world_dns=True, env=env).expect_ok()
        expect_eq(r.trace[0]["proxy"], "direct", "HTTP_PROXY ignored")


def refused_and_silent_proxies_exit_as_curl(ctx):
    proxy, url = _tinyproxy(ctx, "tinyproxy-refuses", [8443])  # CONNECT to 443 refused
    with proxy:
        www = ctx.url("www")
        r = ctx.fetch("-s", "-S", "-x", url, www, world_dns=True)
        rc, _, err = _curl(ctx, "-x", url, www)
        expect_eq((r.rc, rc), (56, 56), "a refused CONNECT (fetch, curl): %s / %s" % (
            r.err.strip(), err.strip()))
        expect("ERR_TUNNEL_CONNECTION_FAILED" in r.err and "403" in r.err,
               "named error with the proxy's status: %r" % r.err)

    def silent(server, conn):
        time.sleep(5)
    with e2e.TinyServer(silent) as s:
        url = "http://127.0.0.1:%d" % s.port
        t0 = time.monotonic()
        r = ctx.fetch("-s", "-S", "-x", url, "--connect-timeout", "1", "-m", "3", ctx.url("www"),
                      world_dns=True)
        secs = time.monotonic() - t0
        expect_eq(r.rc, 28, "a proxy that never answers: timeout (%s)" % r.err.strip())
        expect(secs < 4, "it took %.1f s" % secs)


CHECKS = [https_and_http_through_the_proxy, snap_start_first_visit_through_the_tunnel,
          environment_and_noproxy_as_curl, refused_and_silent_proxies_exit_as_curl]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=RTT_MS, world_args=["--link", "packet"])
