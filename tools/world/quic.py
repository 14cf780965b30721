"""The world's HTTP/3 origins (issue 25 item 5): `h3`, Caddy (Debian `caddy`, quic-go inside)
serving HTTP/3 on UDP and HTTP/1.1 and h2 on TCP of one port (the TCP fallback of a client
whose QUIC fails), and the UDP side of `bigchain`, ngtcp2's gtlsserver (Debian
`ngtcp2-server`) beside the origin's TCP testserver, with a chain too large for QUIC's
anti-amplification limit (QuicMixin, part of World).

Caddy for `h3`: one process serves UDP and TCP on one port (h3 plus its own fallback), it keeps
an access log that names the protocol, it accepts 0-RTT on resumption, and OCSP stapling can be
turned off, so a client checks revocation itself as it does against `slow`. gtlsserver for
bigchain's UDP: it binds UDP only, so the testserver keeps TCP 443 of the same address (Snap
Start, TLS 1.3, TCP Fast Open), and both present the same chain.

In the packet world both are on 198.18.0.N:443 behind the link profile of `slow` (--rtt-ms):
netem shell carries UDP like any other packet. In the relay world they run on 127.0.0.N with an
ephemeral port (the same number for UDP and TCP) and no added delay: netem's relays carry TCP
streams only, so world.json's origin says `rtt_ms` 0 and `quic.link` why.
"""

import os
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hosts import ADDR  # noqa: E402
from peers import (Peer, WorldError, can_connect, pick_free_udp_tcp_port,  # noqa: E402
                   write_file)

# QUIC's anti-amplification limit (RFC 9000 8.1): before the client's address is validated, a
# server sends at most 3x what it received; a client's Initial datagram is at least 1200 bytes.
AMPLIFICATION_FACTOR = 3
MIN_INITIAL_BYTES = 1200
# A resource whose response fits a server's 0.5-RTT budget (3 x 1200 bytes, less the
# handshake): 0-RTT experiments fetch it beside the ~4 KB demo page, which does not fit. In the
# docroot every origin here serves (DIR/www).
SMALL_RESOURCE = ("small.txt", 100)
RELAY_LINK_NOTE = ("relay world: netem's relays carry TCP only, so neither QUIC nor this "
                   "origin's TCP is slowed (round trips here are loopback's)")


def _binary(name):
    for p in [os.environ.get("PATH", "").split(os.pathsep), ["/usr/bin", "/usr/sbin"]]:
        for d in p:
            c = os.path.join(d, name)
            if d and os.path.isfile(c) and os.access(c, os.X_OK):
                return c
    return None


def udp_bound(addr, port):
    """Whether a UDP socket of this network namespace is bound to addr:port (/proc/net/udp)."""
    want = "%s:%04X" % (socket.inet_aton(addr)[::-1].hex().upper(), port)
    wildcard = "00000000:%04X" % port
    try:
        with open("/proc/net/udp") as f:
            lines = f.readlines()[1:]
    except OSError:
        return False
    return any(line.split()[1] in (want, wildcard) for line in lines)


def chain_der_bytes(chain_pem):
    """The DER size of every certificate in a PEM chain file (what a server's Certificate
    message carries, before its per-certificate framing)."""
    import base64
    sizes = []
    with open(chain_pem) as f:
        body = None
        for line in f:
            line = line.strip()
            if line.startswith("-----BEGIN CERTIFICATE"):
                body = []
            elif line.startswith("-----END CERTIFICATE"):
                sizes.append(len(base64.b64decode("".join(body))))
                body = None
            elif body is not None:
                body.append(line)
    return sizes


class QuicMixin:
    """World's HTTP/3 part (uses World's args, paths, peers, origins and PKI)."""

    def wait_udp_tcp(self, peer, addr, port, tcp):
        deadline = time.monotonic() + self.args.timeout
        while time.monotonic() < deadline:
            if not peer.alive():
                raise WorldError(peer.describe_failure("exited during start-up"))
            if udp_bound(addr, port) and (not tcp or can_connect(addr, port)):
                return
            time.sleep(0.05)
        raise WorldError(peer.describe_failure("did not bind %s:%d (UDP%s) within %.0f s" % (
            addr, port, " and TCP" if tcp else "", self.args.timeout)))

    def quic_link(self, addr):
        """(rtt_ms, the quic block's link note) of an HTTP/3 origin on addr."""
        if self.packet:
            self.path_rtt(addr, self.args.rtt_ms)
            return self.args.rtt_ms, "packet: UDP and TCP cross the link at --rtt-ms"
        return 0, RELAY_LINK_NOTE

    def start_quic_origins(self):
        """h3 (Caddy), then bigchain's UDP side (gtlsserver) when its testserver is up."""
        name, size = SMALL_RESOURCE
        write_file(self.path("www", name), "s" * (size - 1) + "\n")
        if self.args.no_quic:
            self.skip(("h3",), "--no-quic")
            if "bigchain" in self.origins:
                self.skipped["bigchain_quic"] = "--no-quic"
            return
        self.start_h3()
        self.start_bigchain_quic()

    def start_h3(self):
        caddy = _binary("caddy")
        if not caddy:
            why = "no caddy binary found (Debian package caddy)"
            self.missing_peers["caddy"] = why
            self.skip(("h3",), why)
            return
        addr = ADDR["h3"]
        port = 443 if self.fixed else pick_free_udp_tcp_port(addr)
        chain, key = self.host_files("h3")
        d = self.path("caddy")
        os.makedirs(d, exist_ok=True)
        access = self.path("logs", "caddy-h3-access.log")
        conf = os.path.join(d, "Caddyfile")
        # ocsp_stapling off: the client checks revocation itself, as against slow (the
        # testservers staple nothing either). admin off, auto_https off: no other listener.
        write_file(conf, """{
\tadmin off
\tauto_https off
\tocsp_stapling off
\tstorage file_system %(d)s/data
\tservers {
\t\tprotocols h1 h2 h3
\t}
}
https://h3.example.test:%(port)d {
\tbind %(addr)s
\ttls %(chain)s %(key)s
\troot * %(root)s
\tfile_server
\tlog {
\t\toutput file %(access)s
\t\tformat json
\t}
}
""" % {"d": d, "port": port, "addr": addr, "chain": chain, "key": key,
       "root": self.path("www"), "access": access})
        argv = ["/usr/bin/env", "HOME=" + d, "XDG_DATA_HOME=" + d, "XDG_CONFIG_HOME=" + d,
                caddy, "run", "--config", conf, "--adapter", "caddyfile"]
        peer = Peer("caddy-h3", "caddy", argv, out_path=self.path("logs", "caddy-h3.out"),
                    log_path=access)
        self.peers.append(peer)
        peer.start()
        self.wait_udp_tcp(peer, addr, port, tcp=True)
        rtt, link = self.quic_link(addr)
        extra = {"backend": {"address": addr, "port": port, "process": peer.name,
                             "origin": None}} if rtt else {}
        self.add_origin("h3", "h3.example.test", "https", addr, port, "caddy", peer.name,
                        tls_max="1.3", rtt_ms=rtt, fixture="h3",
                        alpn=["h3", "h2", "http/1.1"], tcp_fast_open=None,
                        quic={"udp_port": port, "server": "caddy", "versions": [1],
                              "zero_rtt": True, "tcp_fallback": "caddy (h2, http/1.1)",
                              "small_resource": {"path": "/" + SMALL_RESOURCE[0],
                                                 "bytes": SMALL_RESOURCE[1]},
                              "access_log": access, "link": link},
                        **extra)

    def start_bigchain_quic(self):
        o = self.origins.get("bigchain")
        if o is None:
            return  # its testserver is not running (no --testserver): skipped there
        chain, key = self.host_files("bigchain")
        sizes = chain_der_bytes(chain)
        limit = AMPLIFICATION_FACTOR * MIN_INITIAL_BYTES
        if sum(sizes) <= limit:
            raise WorldError("bigchain's chain is %d bytes, not over QUIC's %d-byte "
                             "anti-amplification limit" % (sum(sizes), limit))
        o["chain_der_bytes"] = sizes
        o["amplification_limit_bytes"] = limit
        gtls = _binary("gtlsserver")
        if not gtls:
            why = "no gtlsserver binary found (Debian package ngtcp2-server)"
            self.missing_peers["gtlsserver"] = why
            self.skipped["bigchain_quic"] = why
            self.note("bigchain.example.test without HTTP/3: %s" % why)
            return
        addr, port = o["address"], o["port"]
        # -q: no per-packet output; UDP on the testserver's TCP port number.
        argv = [gtls, "-q", "-d", self.path("www"), addr, str(port), key, chain]
        peer = Peer("gtlsserver-bigchain", "gtlsserver", argv,
                    out_path=self.path("logs", "gtlsserver-bigchain.out"))
        self.peers.append(peer)
        peer.start()
        self.wait_udp_tcp(peer, addr, port, tcp=False)
        o["alpn"] = ["h3", "http/1.1"]
        o["quic"] = {"udp_port": port, "server": "gtlsserver", "process": peer.name,
                     "versions": [1], "zero_rtt": True,
                     "tcp_fallback": "testserver (http/1.1)",
                     "link": ("packet: UDP and TCP cross the link at --rtt-ms" if self.packet
                              else RELAY_LINK_NOTE)}
