"""The world's test-server origins: the testservers (www, tls12, the failing fixtures, and in
the packet world slow and slow12) and, in the relay world, the netem relays in front of the
slowed ones; add_origin, which describes an origin for world.json (OriginsMixin, part of World).
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pki  # noqa: E402
from hosts import (ADDR, ECH_PUBLIC_NAME, FAST_OPEN_ORIGINS, SNAP_START_ORBITS,  # noqa: E402
                   SPDY_ORIGINS)
from peers import (Peer, WorldError, match_listener, parse_listening,  # noqa: E402
                   wait_ready_lines)


class OriginsMixin:
    """World's origins part (uses World's args, paths, peers and PKI)."""

    def host_files(self, fixture):
        h = self.pki["hosts"][pki.host_dir_name(fixture)]
        return h["chain"], h["key"]

    def add_origin(self, key, host, scheme, address, port, server, process, tls_max=None,
                   rtt_ms=0, expect="ok", fixture=None, **extra):
        default = 443 if scheme == "https" else 80
        url = "%s://%s%s/" % (scheme, host, "" if port == default else ":%d" % port)
        o = {
            "url": url, "scheme": scheme, "host": host, "address": address, "port": port,
            "server": server, "process": process, "tls_max": tls_max, "rtt_ms": rtt_ms,
            "expect": expect,
        }
        if fixture:
            h = self.pki["hosts"][pki.host_dir_name(fixture)]
            o["cert_chain"] = h["chain"]
            o["key_type"] = h["key_type"]
        # The orbit a Snap Start server announces (the testserver, or the one behind a relay):
        # it also answers the truncated-handshake probe (net/snap_start SnapStartProbe).
        o["snap_start_orbit"] = (
            SNAP_START_ORBITS[fixture] if scheme == "https" and server in ("testserver", "netem")
            and fixture in SNAP_START_ORBITS and pki.HOSTS[fixture]["key"] == "rsa" else None)
        o.update(extra)
        self.origins[key] = o


    def testserver_peer(self, name, fixture, listens, http_listens=(), tls_max="1.3",
                        fast_open=None, well_known=None, spdy=False, ech=False):
        chain, key = self.host_files(fixture)
        argv = [self.testserver]
        for a, p in listens:
            argv += ["--listen", "%s:%d" % (a, p)]
        for a, p in http_listens:
            argv += ["--http-listen", "%s:%d" % (a, p)]
        argv += ["--cert-chain", chain, "--key", key, "--tls-max", tls_max,
                 "--docroot", self.path("www"), "--log", self.path("logs", name + ".log")]
        if tls_max == "1.3":
            # TLS 1.3 early data, with the testserver's strike register; clients use it only
            # when asked (fetch --early-data).
            argv += ["--early-data"]
        if pki.HOSTS[fixture]["key"] == "rsa" and fixture in SNAP_START_ORBITS:
            # Snap Start (net/snap_start) beside BoringSSL: ClientHellos with the extension
            # go to the core; the strike register persists next to the logs.
            argv += ["--snap-start-orbit", SNAP_START_ORBITS[fixture],
                     "--snap-start-state", self.path("logs", name + ".strikes")]
        if well_known:
            # The origin's own certificate bundle on its well-known path (packet world: port
            # 80 is this server's), written later by the bundle step.
            argv += ["--serve-file", "%s=%s" % well_known]
        if spdy:
            # SPDY/3: ALPN spdy/3 offered before http/1.1; the same routes over streams.
            argv += ["--spdy"]
        if ech:
            # Encrypted ClientHello: the key (kept in DIR/ech across restarts of this origin),
            # its configuration for the DNS HTTPS record, and HTTP/2, which that record's alpn
            # offers first.
            argv += ["--ech-key", self.path("ech", "ech.key"),
                     "--ech-public-name", ECH_PUBLIC_NAME,
                     "--ech-config-out", self.path("ech", "ech.b64"), "--http2"]
        if fast_open:
            # TCP Fast Open (packet world, whose server namespace has net.ipv4.tcp_fastopen=3):
            # HTTPS as the origin says (no-cookie: it takes SYN data from anyone, and its
            # bundle says so); plain HTTP with cookies, which any client (curl
            # --tcp-fastopen) gets on its first connection and uses from the second.
            argv += ["--tcp-fast-open", fast_open, "--http-tcp-fast-open", "cookie"]
        argv += self.args.testserver_arg
        return Peer(name, "testserver", argv, out_path=self.path("logs", name + ".out"),
                    log_path=self.path("logs", name + ".log"))

    # testservers: www (HTTPS + HTTP), the slow origin's backend, tls12, spdy, the four fixtures,
    # uncovered.
    def start_testservers(self):
        https, http = self.https_port(), self.http_port()
        plan = [
            # (origin, fixture, https listen, http listen, tls_max)
            ("www", "www", (ADDR["www"], https), (ADDR["www"], http), "1.3"),
            # Behind netem; always an ephemeral port on the slow origin's address.
            ("slow", "slow", (ADDR["slow"], 0), None, "1.3"),
            ("tls12", "tls12", (ADDR["tls12"], https), None, "1.2"),
            ("spdy", "spdy", (ADDR["spdy"], https), None, "1.3"),
            ("expired", "expired", (ADDR["expired"], https), None, "1.3"),
            ("wrongname", "wrongname", (ADDR["wrongname"], https), None, "1.3"),
            ("untrusted", "untrusted", (ADDR["untrusted"], https), None, "1.3"),
            ("revoked", "revoked", (ADDR["revoked"], https), None, "1.3"),
            # intermediate2's leaf: not covered by the world's revocation filter.
            ("uncovered", "uncovered", (ADDR["uncovered"], https), None, "1.3"),
            ("ech", "ech", (ADDR["ech"], https), None, "1.3"),
            # A chain over QUIC's anti-amplification limit (quic.py adds its UDP side).
            ("bigchain", "bigchain", (ADDR["bigchain"], https), None, "1.3"),
        ]
        if self.packet:
            # No relays: slow (TLS 1.3, and plain HTTP as slow_http) and slow12 (tls12's
            # certificate and orbit, TLS 1.2) are test servers of their own on addresses
            # whose path has --rtt-ms.
            plan[1] = ("slow", "slow", (ADDR["slow"], https), (ADDR["slow"], http), "1.3")
            plan.append(("slow12", "tls12", (ADDR["slow12"], https), None, "1.2"))
            # tls12's port 80 only serves its bundle's well-known path (no tls12_http origin).
            plan[2] = ("tls12", "tls12", (ADDR["tls12"], https), (ADDR["tls12"], http), "1.2")
            self.path_rtt(ADDR["slow"], self.args.rtt_ms)
            self.path_rtt(ADDR["slow12"], self.args.rtt_ms)
            self.path_rtt(ADDR["bigchain"], self.args.rtt_ms)
        elif not self.netem:
            plan = [p for p in plan if p[0] != "slow"]
        os.makedirs(self.path("ech"), exist_ok=True)
        peers = []
        for origin, fixture, listen, http_listen, tls_max in plan:
            fast_open = FAST_OPEN_ORIGINS.get(origin, "cookie") if self.packet else None
            peer = self.testserver_peer("testserver-" + origin, fixture, [listen],
                                        [http_listen] if http_listen else [], tls_max,
                                        fast_open=fast_open,
                                        well_known=self.origin_well_known_file(origin),
                                        spdy=origin in SPDY_ORIGINS, ech=origin == "ech")
            self.peers.append(peer)
            peers.append((peer, origin, fixture, listen, http_listen, tls_max))
            peer.start()
        ready = wait_ready_lines([p[0] for p in peers], self.args.timeout)
        self.backends = {}
        self.origin_http_ports = {}
        for peer, origin, fixture, listen, http_listen, tls_max in peers:
            reported = parse_listening(ready[peer.name], ("https", "http"))
            port = match_listener(reported, "https", listen[0], listen[1], peer)
            if origin == "slow" and not self.packet:
                self.backends["slow"] = (listen[0], port)
                continue
            expect = pki.HOSTS[fixture]["expect"]
            host = origin + ".example.test"
            rtt = self.paths.get(listen[0], 0)
            # A slowed origin's server is its own backend (world.json's `backend`, which in
            # the relay world names the server behind the relay).
            extra = {"backend": {"address": listen[0], "port": port, "process": peer.name,
                                 "origin": None}} if rtt else {}
            if origin in SPDY_ORIGINS:
                extra["alpn"] = ["spdy/3", "http/1.1"]  # what the server offers, in order
            if origin == "ech":
                extra["alpn"] = ["h2", "http/1.1"]
                extra["ech"] = self.make_ech_configs()
            self.add_origin(origin, host, "https", listen[0], port, "testserver", peer.name,
                            tls_max=tls_max, expect=expect, fixture=fixture, rtt_ms=rtt,
                            tcp_fast_open=fast_open, **extra)
            self.backends[origin] = (listen[0], port)
            if http_listen:
                hport = match_listener(reported, "http", http_listen[0], http_listen[1], peer)
                self.origin_http_ports[origin] = hport
                if origin not in ("www", "slow"):
                    continue  # a well-known path only
                if rtt:
                    extra = {"backend": dict(extra["backend"], port=hport)}
                self.add_origin(origin + "_http", host, "http", http_listen[0], hport,
                                "testserver", peer.name, rtt_ms=rtt,
                                tcp_fast_open="cookie" if fast_open else None, **extra)
                self.backends[origin + "_http"] = (http_listen[0], hport)

    def make_ech_configs(self):
        """The ECH origin's configuration (its testserver wrote it at start) and a stale one:
        a configuration of the same public name for a key no server holds (the testserver
        writes it and exits), which the ECH origin rejects, handing out its own."""
        stale = [self.testserver, "--ech-key", self.path("ech", "stale.key"),
                 "--ech-public-name", ECH_PUBLIC_NAME, "--ech-config-id", "2",
                 "--ech-config-out", self.path("ech", "stale.b64"), "--ech-config-only"]
        p = subprocess.run(stale, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=self.args.timeout)
        if p.returncode != 0:
            raise WorldError("the stale ECH configuration: %s exited %d: %s" % (
                " ".join(stale), p.returncode, p.stdout.strip()))
        out = {"public_name": ECH_PUBLIC_NAME, "key_file": self.path("ech", "ech.key")}
        for what, name in (("config", "ech.b64"), ("stale_config", "stale.b64")):
            with open(self.path("ech", name)) as f:
                out[what] = f.read().strip()
        return out

    # netem relays: slow -> the slow backend, slow12 -> tls12, slow_http -> www's plain
    # HTTP listener (the baseline an HTTPS fetch is compared with).
    def start_netems(self):
        plan = [("slow", "slow", "slow", "1.3", "https"),
                ("slow12", "tls12", "tls12", "1.2", "https")]
        if "www_http" in self.backends:
            plan.append(("slow_http", "www_http", None, None, "http"))
        peers = []
        for origin, backend, fixture, tls_max, scheme in plan:
            baddr, bport = self.backends[backend]
            name = "netem-" + origin
            addr = ADDR[origin.replace("_http", "")]
            lport = self.https_port() if scheme == "https" else self.http_port()
            argv = [self.netem, "--tcp", "%s:%d=%s:%d" % (addr, lport, baddr, bport),
                    "--rtt-ms", str(self.args.rtt_ms)] + self.args.netem_arg
            peer = Peer(name, "netem", argv, out_path=self.path("logs", name + ".out"))
            self.peers.append(peer)
            peers.append((peer, origin, backend, fixture, tls_max, scheme, addr, lport))
            peer.start()
        ready = wait_ready_lines([p[0] for p in peers], self.args.timeout)
        for peer, origin, backend, fixture, tls_max, scheme, addr, lport in peers:
            reported = parse_listening(ready[peer.name], ("tcp",))
            port = match_listener(reported, "tcp", addr, lport, peer)
            baddr, bport = self.backends[backend]
            host = origin.replace("_http", "") + ".example.test"
            self.add_origin(origin, host, scheme, addr, port,
                            "netem", peer.name, tls_max=tls_max, rtt_ms=self.args.rtt_ms,
                            fixture=fixture,
                            backend={"address": baddr, "port": bport,
                                     "process": "testserver-" + backend.replace("_http", ""),
                                     "origin": backend if backend != "slow" else None})
