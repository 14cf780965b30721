"""The world's DNS: the example.test zone (every host, test records, the certificate-bundle TXT
records), Knot serving it and the netem relay in front of it (DnsMixin, part of World), and a
minimal DNS client (query and response helpers) for readiness checks and tests.
"""

import base64
import os
import shutil
import socket
import struct
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hosts  # noqa: E402
import pki  # noqa: E402
from hosts import ADDR  # noqa: E402
from peers import (Peer, WorldError, can_connect, match_listener, parse_listening,  # noqa: E402
                   pick_free_udp_tcp_port, read_template, stop_peers, wait_ready_lines,
                   write_file)

DNS_FIXED_PORT = 53
DNS_ZONE = "example.test"
DNS_DEFAULT_TTL = 300
DNS_SOA_TTL = 30
DNS_SOA_MINIMUM = 30  # negative-caching TTL (RFC 2308)
DNS_SHORT_TTL = 2
DNS_BIG_TXT_STRINGS = 14  # 14 strings of 255 bytes: 3570 bytes of TXT data

# The hosts with A records, in zone-file order (every world host).
DNS_HOSTS = ["www", "nginx", "static", "slow", "tls12", "slow12", "expired", "wrongname",
             "untrusted", "ecdsa", "ocsp", "revoked", "cdn1", "cdn2", "cdn3", "stapled",
             "revoked-stapled", "stapled-other", "spdy", "uncovered", "ech", "h3", "bigchain"]

DNS_TYPE_A, DNS_TYPE_TXT, DNS_TYPE_AAAA = 1, 16, 28


# -- the zone and a minimal client -----------------------------------------------------------------

def big_txt_strings():
    """The strings of big.example.test's TXT record: base64 of a fixed byte pattern, cut into
    DNS_BIG_TXT_STRINGS strings of 255 bytes (the most one <character-string> holds)."""
    pattern = bytes((i * 7 + 3) % 256 for i in range(256))
    text = base64.b64encode(pattern * 12).decode("ascii")[:255 * DNS_BIG_TXT_STRINGS]
    return [text[i:i + 255] for i in range(0, len(text), 255)]


def zone_txt_string(s):
    """One <character-string> in master-file syntax: quoted, with " and \\ escaped."""
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def dns_zone(bundle_txt=(), https_rrs=()):
    """Returns (zone file text, {A-record name: address}, {AAAA name: address}, big TXT text).
    bundle_txt: [(full owner name, [strings])], the certificate-bundle TXT records.
    https_rrs: [(owner label, RDATA in presentation form)], the HTTPS records (RFC 9460)."""
    a = {"ns." + DNS_ZONE: hosts.DNS_ADDR}
    for h in DNS_HOSTS:
        a["%s.%s" % (h, DNS_ZONE)] = ADDR[h]
    for h in hosts.ECH_NAMES:  # the other HTTPS-record cases, on the ECH origin's address
        a["%s.%s" % (h, DNS_ZONE)] = ADDR["ech"]
    a["short." + DNS_ZONE] = ADDR["www"]
    a["both." + DNS_ZONE] = ADDR["www"]
    aaaa = {"v6." + DNS_ZONE: "::1", "both." + DNS_ZONE: "::1"}
    big = big_txt_strings()
    lines = [
        "; %s, written by tools/world/world.py (see tools/world/README.md)." % DNS_ZONE,
        "$ORIGIN %s." % DNS_ZONE,
        "$TTL %d" % DNS_DEFAULT_TTL,
        "; SOA TTL %d; the last field (minimum) is the negative-caching TTL." % DNS_SOA_TTL,
        "@ %d IN SOA ns.%s. hostmaster.%s. 1 3600 600 86400 %d" % (
            DNS_SOA_TTL, DNS_ZONE, DNS_ZONE, DNS_SOA_MINIMUM),
        "@ IN NS ns.%s." % DNS_ZONE,
        "ns IN A %s" % hosts.DNS_ADDR,
        "; the world's hosts",
    ]
    for h in DNS_HOSTS:
        lines.append("%s IN A %s" % (h, ADDR[h]))
    for h in hosts.ECH_NAMES:
        lines.append("%s IN A %s" % (h, ADDR["ech"]))
    if https_rrs:
        lines.append("; HTTPS records (RFC 9460; tools/world/dns.py https_records)")
    for owner, rdata in https_rrs:
        lines.append("%s IN HTTPS %s" % (owner, rdata))
    lines += [
        "; test records",
        "short %d IN A %s" % (DNS_SHORT_TTL, ADDR["www"]),
        '; two TXT records, the first of two strings',
        'txt IN TXT "hello " "world"',
        'txt IN TXT "second record"',
        "; %d bytes in %d strings: needs EDNS (or TCP); the concatenation is dns/big.txt" % (
            sum(map(len, big)), len(big)),
        "big IN TXT (",
    ]
    lines += ['    "%s"' % chunk for chunk in big]
    lines += [
        "    )",
        "v6 IN AAAA ::1",
        "both IN A %s" % ADDR["www"],
        "both IN AAAA ::1",
    ]
    if bundle_txt:
        lines.append("; certificate bundles (tools/certbundle make --format txt / pointer)")
    for owner, strings in bundle_txt:
        assert owner.endswith("." + DNS_ZONE), owner
        lines.append("%s IN TXT (" % owner[:-len(DNS_ZONE) - 1])
        lines += ["    %s" % zone_txt_string(x) for x in strings]
        lines.append("    )")
    return "\n".join(lines) + "\n", a, aaaa, "".join(big)


def dns_query_packet(qid, name, qtype, edns_payload=None):
    """A DNS query (RFC 1035 4.1) for name/qtype, class IN, RD clear; with an OPT record if
    edns_payload is given."""
    qname = b"".join(bytes([len(l)]) + l.encode("ascii") for l in name.rstrip(".").split("."))
    msg = struct.pack("!HHHHHH", qid, 0, 1, 0, 0, 1 if edns_payload else 0)
    msg += qname + b"\0" + struct.pack("!HH", qtype, 1)
    if edns_payload:
        msg += b"\0" + struct.pack("!HHIH", 41, edns_payload, 0, 0)
    return msg


def _skip_name(msg, off):
    while True:
        n = msg[off]
        if n & 0xC0 == 0xC0:
            return off + 2
        off += 1 + n
        if n == 0:
            return off


def dns_parse_response(msg):
    """Returns (id, flags, rcode, [(type, rdata bytes)] of the answer section); raises
    ValueError (or IndexError/struct.error) on a malformed message."""
    qid, flags, qd, an, ns, ar = struct.unpack("!HHHHHH", msg[:12])
    off = 12
    for _ in range(qd):
        off = _skip_name(msg, off) + 4
    answers = []
    for _ in range(an):
        off = _skip_name(msg, off)
        rtype, _, _, rdlen = struct.unpack("!HHIH", msg[off:off + 10])
        off += 10
        answers.append((rtype, msg[off:off + rdlen]))
        off += rdlen
    if off > len(msg):
        raise ValueError("truncated message")
    return qid, flags, flags & 0xF, answers


def dns_query_a(addr, port, name, timeout=0.3):
    """Asks addr:port over UDP for name's A records; returns (rcode, [addresses]) or None if no
    answer came within timeout."""
    qid = int.from_bytes(os.urandom(2), "big")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        try:
            s.connect((addr, port))
            s.send(dns_query_packet(qid, name, DNS_TYPE_A))
            deadline = time.monotonic() + timeout
            while True:
                s.settimeout(max(0.001, deadline - time.monotonic()))
                msg = s.recv(65535)
                try:
                    rid, flags, rcode, answers = dns_parse_response(msg)
                except (ValueError, IndexError, struct.error):
                    continue
                if rid == qid and flags & 0x8000:
                    return rcode, [socket.inet_ntoa(d) for t, d in answers
                                   if t == DNS_TYPE_A and len(d) == 4]
        except OSError:  # timeout, or ICMP port unreachable while the server is not yet bound
            return None


def wait_dns_answers(peer, addr, port, timeout, probe="www." + DNS_ZONE, want=None):
    """Waits until addr:port answers an A query for probe with want (over UDP, and accepts TCP
    connections). Raises WorldError if peer exits or the deadline passes."""
    want = want or ADDR["www"]
    deadline = time.monotonic() + timeout
    last = "no answer"
    while True:
        if not peer.alive():
            raise WorldError(peer.describe_failure(
                "exited during start-up (exit code %s)" % peer.proc.returncode))
        r = dns_query_a(addr, port, probe)
        if r is not None:
            rcode, addrs = r
            if rcode == 0 and want in addrs and can_connect(addr, port):
                return
            last = "rcode %d, A %s" % (rcode, addrs or "none")
        if time.monotonic() > deadline:
            raise WorldError(peer.describe_failure(
                "did not answer `%s A` with %s on %s:%d within %.0f s (last: %s)" % (
                    probe, want, addr, port, timeout, last)))
        time.sleep(0.01)


def https_record_rdata(alpn, ech=None):
    """A ServiceMode record for the owner itself ("."), in presentation form: its ALPN set
    and, when given, its ECH configuration (base64 ECHConfigList). No port and no address
    hints: RFC 9460 7.3 advises against hints when the target is the owner."""
    rdata = '1 . alpn="%s"' % ",".join(alpn)
    if ech:
        rdata += ' ech="%s"' % ech
    return rdata


class DnsMixin:
    """World's DNS part: Knot and its relay (uses World's args, paths, peers and notes)."""

    def https_records(self):
        """[(owner label, RDATA)]: an HTTPS record for every https origin, saying what its
        server offers (http/1.1; the SPDY origin spdy/3 first, the ECH origin h2 and its ECH
        configuration), and the ECH cases of hosts.ECH_NAMES. An origin on a port other than
        443 (the relay world) has its record under _PORT._https.NAME too (RFC 9460 9.1)."""
        out = []

        def add(label, port, rdata):
            out.append((label, rdata))
            if port != 443:
                out.append(("_%d._https.%s" % (port, label), rdata))

        for o in self.origins.values():
            if o["scheme"] != "https" or not o["host"].endswith("." + DNS_ZONE):
                continue
            label = o["host"][:-len(DNS_ZONE) - 1]
            if any(label == l for l, _ in out):
                continue
            ech = o.get("ech")
            add(label, o["port"], https_record_rdata(o.get("alpn") or ["http/1.1"],
                                                     ech["config"] if ech else None))
        ech_origin = self.origins.get("ech")
        if ech_origin:
            port, ech = ech_origin["port"], ech_origin["ech"]
            add("stale-ech", port, https_record_rdata(["h2", "http/1.1"], ech["stale_config"]))
            add("alias-ech", port, "0 ech.%s." % DNS_ZONE)
            # RFC 3597's generic form: priority 1, ".", then port (key 3) whose 2-byte value
            # is cut to 1: RDATA ending inside a SvcParam (RFC 9460 2.2: malformed).
            add("badrr", port, r"\# 8 0001000003000201")
            add("h3only", port, "1 . alpn=h3 no-default-alpn")
            # An endpoint nothing listens on (TCP port 1 of the ECH origin's address).
            add("deadrr", port, '1 . alpn="h2,http/1.1" port=1')
        return out

    # DNS: Knot serving example.test on 127.0.0.53, and netem on 127.0.0.54 adding --dns-rtt-ms.
    def start_dns(self):
        if not self.knotd:
            why = ("--no-dns" if self.args.no_dns else
                   "knotd not found (Debian package knot; or give --knotd BIN)")
            if self.args.require_dns:
                raise WorldError("--require-dns, but " + why)
            if not self.args.no_dns:
                self.missing_peers["knotd"] = why
            self.skipped["dns"] = why
            self.note("not starting DNS (%s): %s" % (DNS_ZONE, why))
            return
        d = self.path("dns")
        shutil.rmtree(d, ignore_errors=True)  # no state from an earlier world (timer DB)
        for sub in ("", "run", "db"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        https_rrs = self.https_records()
        zone_text, a_records, aaaa_records, big = dns_zone(self.bundle_txt, https_rrs)
        zone_file = os.path.join(d, DNS_ZONE + ".zone")
        write_file(zone_file, zone_text)
        big_file = os.path.join(d, "big.txt")
        write_file(big_file, big)  # the TXT strings concatenated, no newline
        rundir = os.path.join(d, "run")
        control = os.path.join(rundir, "knot.sock")
        if len(control.encode()) > 100:  # sun_path holds 108 bytes; knotd stops if bind fails
            self.knot_control_dir = tempfile.mkdtemp(prefix="world-knot-", dir="/tmp")
            control = os.path.join(self.knot_control_dir, "knot.sock")

        attempts = 1 if self.fixed else 3
        for attempt in range(attempts):
            port = DNS_FIXED_PORT if self.fixed else pick_free_udp_tcp_port(hosts.DNS_ADDR)
            conf = pki.fill_template(read_template("knot.conf.in"), {
                "RUN_DIR": rundir, "LISTEN": "%s@%d" % (hosts.DNS_ADDR, port),
                "CONTROL_SOCKET": control, "DB_DIR": os.path.join(d, "db"),
                "ZONE": DNS_ZONE, "ZONE_DIR": d, "ZONE_FILE": os.path.basename(zone_file),
            })
            conf_path = os.path.join(d, "knot.conf")
            write_file(conf_path, conf)
            peer = Peer("dns_knot", "knot", [self.knotd, "-c", conf_path],
                        out_path=self.path("logs", "dns_knot.log"))
            self.peers.append(peer)
            peer.start()
            try:
                wait_dns_answers(peer, hosts.DNS_ADDR, port, self.args.timeout)
                break
            except WorldError:
                if attempt + 1 == attempts or "address already in use" not in \
                        peer.output().lower():
                    raise
                stop_peers([peer], self.args.grace)
                self.peers.pop()
                self.note("knotd lost a port race; retrying on another port")

        server, rtt, relay = (hosts.DNS_ADDR, port), 0, None
        if self.packet:
            self.path_rtt(hosts.DNS_ADDR, self.args.dns_rtt_ms)
            rtt = self.args.dns_rtt_ms
        elif self.args.dns_rtt_ms > 0 and not self.netem:
            self.skipped["dns_relay"] = "no --netem given"
            self.note("no DNS relay (%d ms RTT): no --netem given; world.json's dns.server is "
                      "knotd itself" % self.args.dns_rtt_ms)
        elif self.args.dns_rtt_ms > 0:
            relay = self.start_dns_relay(port)
            server, rtt = relay, self.args.dns_rtt_ms
        self.dns = {
            "server": "%s:%d" % server,
            "direct": "%s:%d" % (hosts.DNS_ADDR, port),
            "rtt_ms": rtt,
            "zone": DNS_ZONE,
            "zone_file": zone_file,
            "config": conf_path,
            "control_socket": control,
            "process": "dns_knot",
            "relay_process": "dns_netem" if relay else None,
            "udp_max_payload": 4096,
            "default_ttl": DNS_DEFAULT_TTL,
            "negative_ttl": DNS_SOA_MINIMUM,
            "short_ttl_host": "short." + DNS_ZONE,
            "short_ttl": DNS_SHORT_TTL,
            "records": a_records,
            "aaaa_records": aaaa_records,
            "txt_host": "txt." + DNS_ZONE,
            "txt_records": [["hello ", "world"], ["second record"]],
            "big_txt_host": "big." + DNS_ZONE,
            "big_txt_file": big_file,
            "big_txt_bytes": len(big),
            "nxdomain_host": "nope." + DNS_ZONE,
            # the certificate-bundle TXT records (details under "bundles" and "bundle_cases")
            "bundle_txt_names": [name for name, _ in self.bundle_txt],
            # HTTPS records (RFC 9460): owner name -> RDATA as in the zone file
            "https_records": {"%s.%s" % (owner, DNS_ZONE): rdata for owner, rdata in https_rrs},
            # the ECH origin and the names that show the other HTTPS-record cases
            "ech": dict((self.origins["ech"]["ech"] if "ech" in self.origins else {}),
                        origin="ech" if "ech" in self.origins else None,
                        names={n: "%s.%s" % (n, DNS_ZONE) for n in hosts.ECH_NAMES}),
        }

    def start_dns_relay(self, knot_port):
        """netem --udp and --tcp on one port of 127.0.0.54 to knotd; returns (addr, port)."""
        attempts = 1 if self.fixed else 3
        for attempt in range(attempts):
            port = DNS_FIXED_PORT if self.fixed else pick_free_udp_tcp_port(hosts.DNS_RELAY_ADDR)
            target = "%s:%d" % (hosts.DNS_ADDR, knot_port)
            listen = "%s:%d" % (hosts.DNS_RELAY_ADDR, port)
            argv = [self.netem, "--udp", listen + "=" + target, "--tcp", listen + "=" + target,
                    "--rtt-ms", str(self.args.dns_rtt_ms)] + self.args.netem_arg
            peer = Peer("dns_netem", "netem", argv, out_path=self.path("logs", "dns_netem.out"))
            self.peers.append(peer)
            peer.start()
            try:
                ready = wait_ready_lines([peer], self.args.timeout)
                reported = parse_listening(ready[peer.name], ("tcp", "udp"))
                match_listener(reported, "udp", hosts.DNS_RELAY_ADDR, port, peer)
                match_listener(reported, "tcp", hosts.DNS_RELAY_ADDR, port, peer)
                # One query through it: the path works end to end (takes one RTT).
                wait_dns_answers(peer, hosts.DNS_RELAY_ADDR, port, self.args.timeout)
                return hosts.DNS_RELAY_ADDR, port
            except WorldError:
                if attempt + 1 == attempts or "address already in use" not in \
                        peer.output().lower():
                    raise
                stop_peers([peer], self.args.grace)
                self.peers.pop()
                self.note("the DNS relay lost a port race; retrying on another port")

