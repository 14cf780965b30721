#!/usr/bin/env python3
"""Starts and stops the local world: a throw-away PKI and HTTPS/HTTP origins on loopback.

    world.py --dir DIR [--testserver BIN] [--netem BIN] [--nginx BIN] [--rtt-ms 100]
             [--knotd BIN | --no-dns] [--require-dns] [--dns-rtt-ms 40]
             [--ocsp-rtt-ms 0 | --no-ocsp] [--certbundle BIN | --no-bundles] [--cdn-rtt-ms 300]
             [--fixed-ports] [--until-stdin-eof | --run CMD...]

Builds the PKI in DIR/pki (tools/world/pki.py), starts the peers (nginx, test servers, netem
relays, the Knot DNS server of example.test, the `openssl ocsp` responder), publishes the
certificate bundles of the Snap Start origins (and broken ones) with tools/certbundle, writes
DIR/world.json, prints `WORLD READY <DIR/world.json>` and waits for SIGINT/SIGTERM (or stdin
EOF with --until-stdin-eof), then stops every peer. With --run, runs CMD with
NETSTACK_WORLD=<DIR/world.json> instead of waiting, stops the world and exits with CMD's exit
code. See README.md for the hosts and the
world.json format.
"""

import argparse
import base64
import ctypes
import grp
import html
import json
import os
import pwd
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import namespaces  # noqa: E402
import pki  # noqa: E402

TEMPLATE_DIR = pki.TEMPLATE_DIR

HTTPS_FIXED_PORT = 443
HTTP_FIXED_PORT = 80

# Loopback address of each origin. Linux routes all of 127/8 to lo, so these need no set-up.
ADDR = {
    "www": "127.0.0.11",
    "nginx": "127.0.0.12",
    "static": "127.0.0.13",
    "slow": "127.0.0.14",
    "tls12": "127.0.0.15",
    "slow12": "127.0.0.16",
    "expired": "127.0.0.17",
    "wrongname": "127.0.0.18",
    "untrusted": "127.0.0.19",
    "ecdsa": "127.0.0.20",
    "ocsp": "127.0.0.21",  # the OCSP responder (or the netem relay in front of it)
    "revoked": "127.0.0.22",
    # Certificate-bundle CDNs (plain HTTP, nginx): cdn1 has the files, cdn2 answers 404 for
    # everything, cdn3 has the files behind a netem relay (--cdn-rtt-ms).
    "cdn1": "127.0.0.23",
    "cdn2": "127.0.0.24",
    "cdn3": "127.0.0.25",
    # OCSP stapling (nginx, STAPLING_ORIGINS).
    "stapled": "127.0.0.26",
    "revoked-stapled": "127.0.0.27",
    "stapled-other": "127.0.0.28",
}

# The packet-level world (--link packet) puts each origin on 198.18.0.N, N the last byte of
# its loopback address above, in a server namespace of its own (tools/world/namespaces.py).
PACKET_PREFIX = "198.18.0."


def packet_address(loopback):
    return PACKET_PREFIX + loopback.rsplit(".", 1)[1]


# OCSP: `openssl ocsp` as the responder of the intermediate CA (it binds every address: *:PORT).
OCSP_FIXED_PORT = 8888  # the port in the leaves' AIA URL (pki.OCSP_URL)
OCSP_NEXT_UPDATE_MIN = 5  # -nmin: responses carry nextUpdate = thisUpdate + 5 minutes
OCSP_LOG_MARKER = "Received request, 1st line: "  # one such line in logs/ocsp.log per request
# The watchdog (see World.tend_ocsp): the responder is wedged when over a window of at least
# this many seconds it burned this share of a CPU without logging anything.
OCSP_WEDGE_WINDOW = 1.0
OCSP_WEDGE_CPU_SHARE = 0.3

# OCSP stapling: nginx origins with `ssl_stapling on; ssl_stapling_file FILE;`. Origin key
# (= host label and ADDR key) -> (leaf fixture, the fixture whose OCSP response is stapled,
# that response's status, what a client checking revocation sees). The responses are made at
# world start by `openssl ocsp -index ... -respout` without the responder (so no request
# reaches it), into DIR/staples/<host>.der, nextUpdate STAPLE_NEXT_UPDATE_DAYS after thisUpdate.
STAPLING_ORIGINS = {
    "stapled": ("stapled", "stapled", "good", "ok"),
    "revoked-stapled": ("revoked", "revoked", "revoked", "revoked"),
    # A good response for another certificate (www's leaf): a client must ignore it.
    "stapled-other": ("stapled", "www", "good", "ok"),
}
STAPLE_NEXT_UPDATE_DAYS = 1

# DNS (Knot DNS): the authoritative server of example.test and the netem relay in front of it.
DNS_ADDR = "127.0.0.53"
DNS_RELAY_ADDR = "127.0.0.54"
DNS_FIXED_PORT = 53
DNS_ZONE = "example.test"
DNS_DEFAULT_TTL = 300
DNS_SOA_TTL = 30
DNS_SOA_MINIMUM = 30  # negative-caching TTL (RFC 2308)
DNS_SHORT_TTL = 2
DNS_BIG_TXT_STRINGS = 14  # 14 strings of 255 bytes: 3570 bytes of TXT data
# The hosts with A records, in zone-file order (every world host).
# Snap Start orbits of the testservers that announce one (RSA leaves only: static RSA).
SNAP_START_ORBITS = {"www": "0102030405060708", "slow": "1112131415161718",
                     "tls12": "2122232425262728"}

DNS_HOSTS = ["www", "nginx", "static", "slow", "tls12", "slow12", "expired", "wrongname",
             "untrusted", "ecdsa", "ocsp", "revoked", "cdn1", "cdn2", "cdn3", "stapled",
             "revoked-stapled", "stapled-other"]

# Certificate bundles (prefetch/cert_bundle, made with tools/certbundle; see README.md). The
# Snap Start origins publish theirs through DNS TXT, the well-known path and the CDNs; the
# spoofed and broken ones (BUNDLE_CASES) sit on other hosts so the positive ones stay clean.
BUNDLE_ORIGINS = ["www", "slow", "tls12"]
BUNDLE_TXT_PREFIX = "_certbundle."
BUNDLE_WELL_KNOWN_PATH = "/.well-known/cert-bundle"
BUNDLE_WELL_KNOWN_FIXED_PORT = 8080  # with --fixed-ports (port 80 of www and slow is taken)
BUNDLE_CDN_PATH = "/bundles"  # a CDN's base URL is http://cdnN.example.test/bundles
BUNDLE_CDNS = ["cdn1", "cdn2", "cdn3"]
BUNDLE_CDN_FILES = ("cdn1", "cdn3")  # cdn2 answers 404 for everything
BUNDLE_POINTER_ORIGINS = ("tls12",)  # their TXT record is a pointer to cdn1's file
BUNDLE_STALE_ORBIT = "f0f1f2f3f4f5f6f7"  # what the stale_orbit case publishes for slow12
# The spoofed and broken bundles: case -> (origin whose host it is published for, source,
# expect, reason, what it is). `expect` is "rejected" (the client drops the bundle, giving
# `reason`, and makes a normal handshake) or "recovers" (the bundle verifies and is used, the
# server refuses the Snap Start attempt, the client recovers with a full handshake).
BUNDLE_CASES = {
    "another_host_bundle": (
        "nginx", "dns", "rejected", "wrong_host",
        "a valid bundle made for www.example.test (www's host, port, chain and orbit) "
        "published as nginx.example.test's TXT record: another host's bundle"),
    "another_host_chain": (
        "nginx", "cdn", "rejected", "chain_not_for_host",
        "a bundle that names nginx.example.test and its port but carries www.example.test's "
        "chain: another host's chain (does not verify for nginx.example.test)"),
    "untrusted_root": (
        "ecdsa", "dns", "rejected", "untrusted_root",
        "a bundle for ecdsa.example.test whose chain (an RSA leaf for ecdsa.example.test and "
        "untrusted-root.pem) ends at a root that is not a trust anchor"),
    "not_a_bundle": (
        "ecdsa", "cdn", "rejected", "not_a_bundle",
        "an HTML page served with 200 and Content-Type text/html as ecdsa.example.test.crt"),
    "stale_orbit": (
        "slow12", "dns", "recovers", "stale_orbit",
        "a good bundle for slow12.example.test (tls12's chain, slow12's port) with orbit "
        "%s, not the server's: Snap Start is refused and recovers" % BUNDLE_STALE_ORBIT),
    "expired": (
        "expired", "dns", "rejected", "expired",
        "expired.example.test's own chain, whose leaf expired 30 days ago"),
    "bad_txt_record": (
        "wrongname", "dns", "rejected", "bad_txt_record",
        "a TXT record \"v=cb1; b=\" followed by text that is not base64"),
    "malformed_bundle": (
        "untrusted", "dns", "rejected", "malformed_bundle",
        "a TXT record whose base64 decodes to the file magic and length, then bytes that are "
        "not a CertBundle message"),
    "revoked": (
        "revoked", "dns", "rejected", "revoked",
        "revoked.example.test's own chain, well formed and verifying, whose leaf OCSP and the "
        "CRL say is revoked: prevalidation rejects it"),
}
BAD_TXT_RECORD = "v=cb1; b=*** this is not base64 ***"
NOT_A_BUNDLE_HTML = ("<!DOCTYPE html>\n<html><head><title>Not here</title></head>\n"
                     "<body><h1>Welcome to cdn1</h1><p>The page you asked for has moved."
                     "</p></body></html>\n")


# The order origins are listed in (world.json, the demo page).
ORIGIN_ORDER = ["www", "www_http", "nginx", "ecdsa", "static", "slow", "slow_http", "tls12",
                "slow12",
                "expired", "wrongname", "untrusted", "revoked"] + list(STAPLING_ORIGINS)


class WorldError(Exception):
    pass


class Stop(Exception):
    """Raised from the SIGINT/SIGTERM handler."""

    def __init__(self, signum):
        super().__init__("signal %d" % signum)
        self.signum = signum


def log(msg):
    sys.stderr.write("world: %s\n" % msg)
    sys.stderr.flush()


# -- child processes ------------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _child_setup():
    """Runs in the child between fork and exec: ask the kernel to SIGTERM the peer if world.py
    dies without tearing down (e.g. SIGKILL). Popen(start_new_session=True) already made it a
    session and process-group leader, so its own children can be stopped with it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except Exception:
        pass


class Peer:
    """One started peer process (testserver, netem or nginx master)."""

    def __init__(self, name, kind, argv, out_path, log_path=None, stop_signal=signal.SIGTERM):
        self.name = name
        self.kind = kind
        self.argv = argv
        self.out_path = out_path  # its stdout+stderr
        self.log_path = log_path or out_path  # its own log, if it has one
        self.stop_signal = stop_signal
        self.proc = None
        self.reported_exit = False

    def start(self, append=False):
        with open(self.out_path, "ab" if append else "wb") as out:
            try:
                self.proc = subprocess.Popen(
                    self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True, preexec_fn=_child_setup, close_fds=True)
            except OSError as e:
                raise WorldError("%s could not be started (%s): %s" % (
                    self.name, " ".join(self.argv), e))

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def output(self):
        try:
            with open(self.out_path, "r", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def tail(self, n=15):
        lines = self.output().splitlines()
        return "\n".join("    | " + l for l in lines[-n:])

    def describe_failure(self, what):
        msg = "%s %s; its log: %s" % (self.name, what, self.log_path)
        if self.out_path != self.log_path:
            msg += " (stdout/stderr: %s)" % self.out_path
        msg += "\n  command: " + " ".join(self.argv)
        t = self.tail()
        if t:
            msg += "\n  last output:\n" + t
        return msg


def stop_peers(peers, grace=5.0):
    """Stops peers (in reverse start order): their stop signal, then SIGKILL to the process group
    after `grace` seconds. Also kills anything left in each peer's process group. Returns the
    names of peers that needed SIGKILL or survived it (empty when all stopped cleanly)."""
    peers = [p for p in reversed(peers) if p.proc is not None]
    for p in peers:
        if p.alive():
            try:
                os.kill(p.pid, p.stop_signal)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + grace
    unclean = []
    for p in peers:
        while p.alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if p.alive():
            log("%s (pid %d) did not stop within %.1f s; killing it" % (p.name, p.pid, grace))
            unclean.append(p.name)
        # The peer was started as a process-group leader; kill whatever is left of the group
        # (the peer if it is stuck, nginx workers whose master died).
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            p.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            log("%s (pid %d) survived SIGKILL" % (p.name, p.pid))
            unclean.append(p.name)
    return unclean


# -- ports and readiness --------------------------------------------------------------------------

def pick_free_ports(addrs):
    """Returns one free TCP port per address in addrs (all sockets held open until every port is
    chosen so the picks do not collide). For peers that cannot bind port 0 and report back
    (nginx)."""
    socks = []
    try:
        ports = []
        for a in addrs:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((a, 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
        return ports
    finally:
        for s in socks:
            s.close()


def pick_free_udp_tcp_port(addr, avoid=()):
    """Returns a port free for both TCP and UDP on addr (for DNS, which serves both on one port).
    Another process can still take it before the peer binds it; callers retry on that."""
    for _ in range(50):
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            t.bind((addr, 0))
            port = t.getsockname()[1]
            if port in avoid:
                continue
            u.bind((addr, port))
            return port
        except OSError:
            continue
        finally:
            t.close()
            u.close()
    raise WorldError("no port free for both TCP and UDP on %s" % addr)


def can_connect(addr, port):
    try:
        with socket.create_connection((addr, port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_ready_lines(peers, timeout):
    """Waits until each peer has printed a line `ready`. Returns {name: [lines before ready]}.
    Raises WorldError naming the peer that exited or timed out."""
    deadline = time.monotonic() + timeout
    result = {}
    while True:
        for p in peers:
            if p.name in result:
                continue
            lines = [l.strip() for l in p.output().splitlines()]
            if "ready" in lines:
                result[p.name] = lines[:lines.index("ready")]
            elif not p.alive():
                raise WorldError(p.describe_failure(
                    "exited during start-up (exit code %s) before printing `ready`" %
                    p.proc.returncode))
        if len(result) == len(peers):
            return result
        if time.monotonic() > deadline:
            late = [p for p in peers if p.name not in result]
            raise WorldError(late[0].describe_failure(
                "did not print `ready` within %.0f s" % timeout))
        time.sleep(0.01)


def wait_connectable(peer, endpoints, timeout):
    deadline = time.monotonic() + timeout
    pending = list(endpoints)
    while pending:
        if not peer.alive():
            raise WorldError(peer.describe_failure(
                "exited during start-up (exit code %s)" % peer.proc.returncode))
        pending = [(a, p) for (a, p) in pending if not can_connect(a, p)]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise WorldError(peer.describe_failure(
                "was not accepting connections on %s within %.0f s" % (
                    ", ".join("%s:%d" % e for e in pending), timeout)))
        time.sleep(0.01)


def parse_listening(lines, proto):
    """Parses `listening PROTO ADDR:PORT[ ...]` lines into [(proto, addr, port)]."""
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "listening" and (proto is None or parts[1] in proto):
            host, _, port = parts[2].rpartition(":")
            try:
                out.append((parts[1], host.strip("[]"), int(port)))
            except ValueError:
                pass
    return out


def match_listener(reported, scheme, addr, port, who):
    """Takes the reported listener for (scheme, addr, port) out of `reported` and returns its
    port. Falls back to the only listener of that scheme if none names the address exactly."""
    for i, (s, a, p) in enumerate(reported):
        if s == scheme and a == addr and (port == 0 or p == port):
            del reported[i]
            return p
    same_scheme = [i for i, r in enumerate(reported) if r[0] == scheme]
    if len(same_scheme) == 1 and (port == 0 or reported[same_scheme[0]][2] == port):
        return reported.pop(same_scheme[0])[2]
    raise WorldError("%s did not report a `listening %s %s:%s` line (it reported: %s)" % (
        who.name, scheme, addr, port or "PORT", reported or "nothing") + "; its output: " +
        who.out_path)


# -- DNS: the zone and a minimal client ------------------------------------------------------------

DNS_TYPE_A, DNS_TYPE_TXT, DNS_TYPE_AAAA = 1, 16, 28


def big_txt_strings():
    """The strings of big.example.test's TXT record: base64 of a fixed byte pattern, cut into
    DNS_BIG_TXT_STRINGS strings of 255 bytes (the most one <character-string> holds)."""
    pattern = bytes((i * 7 + 3) % 256 for i in range(256))
    text = base64.b64encode(pattern * 12).decode("ascii")[:255 * DNS_BIG_TXT_STRINGS]
    return [text[i:i + 255] for i in range(0, len(text), 255)]


def zone_txt_string(s):
    """One <character-string> in master-file syntax: quoted, with " and \\ escaped."""
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def dns_zone(bundle_txt=()):
    """Returns (zone file text, {A-record name: address}, {AAAA name: address}, big TXT text).
    bundle_txt: [(full owner name, [strings])], the certificate-bundle TXT records."""
    a = {"ns." + DNS_ZONE: DNS_ADDR}
    for h in DNS_HOSTS:
        a["%s.%s" % (h, DNS_ZONE)] = ADDR[h]
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
        "ns IN A %s" % DNS_ADDR,
        "; the world's hosts",
    ]
    for h in DNS_HOSTS:
        lines.append("%s IN A %s" % (h, ADDR[h]))
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


# -- OCSP -----------------------------------------------------------------------------------------

def wait_accept_line(peer, timeout, offset=0):
    """Waits for `openssl ocsp -port N` to print `ACCEPT [::]:PORT PID=...` (it binds before
    printing) in its output after byte `offset`; returns PORT. Never probes with a bare connect:
    OpenSSL 3.0's responder spins forever on a connection closed before a request line
    (openssl/openssl#31129)."""
    deadline = time.monotonic() + timeout
    while True:
        m = re.search(r"^ACCEPT \S*:(\d+)", peer.output()[offset:], re.M)
        if m:
            return int(m.group(1))
        if not peer.alive():
            raise WorldError(peer.describe_failure(
                "exited during start-up (exit code %s)" % peer.proc.returncode))
        if time.monotonic() > deadline:
            raise WorldError(peer.describe_failure(
                "did not print `ACCEPT ...:PORT` within %.0f s" % timeout))
        time.sleep(0.01)


def ocsp_query(openssl, issuer, root, serial, url, timeout=5):
    """Asks the responder at url for the status of serial (hex, no 0x) with the openssl client,
    verifying the response against root. Returns (status or None, the client's output)."""
    arg = "0x" + serial
    try:
        r = subprocess.run([openssl, "ocsp", "-issuer", issuer, "-serial", arg, "-url", url,
                            "-CAfile", root, "-timeout", str(int(max(1, timeout)))],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout + 5)
    except subprocess.TimeoutExpired:
        return None, "no answer within %d s" % (timeout + 5)
    m = re.search(r"^%s: (\w+)" % re.escape(arg), r.stdout, re.M | re.I)
    if r.returncode != 0 or not m or "Response verify OK" not in r.stdout:
        return None, r.stdout.strip()
    return m.group(1), r.stdout.strip()


def cpu_seconds(pid):
    """User + system CPU seconds pid has used, or None if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


# -- the world ------------------------------------------------------------------------------------

def _read_template(name):
    with open(os.path.join(TEMPLATE_DIR, name)) as f:
        return f.read()


def _write(path, text, mode=0o644):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _write_bytes(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _resolve_binary(value, flag):
    if value is None:
        return None
    path = value if os.sep in value else shutil.which(value)
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise WorldError("%s %s: not an executable file" % (flag, value))
    return os.path.abspath(path)


def _default_nginx():
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)


def _default_knotd():
    return shutil.which("knotd") or next(
        (p for p in ("/usr/sbin/knotd", "/usr/local/sbin/knotd") if os.access(p, os.X_OK)), None)


def _nobody_can_reach(path):
    """True if every directory from / down to path is searchable by others (o+x)."""
    path = os.path.abspath(path)
    while True:
        try:
            if not os.stat(path).st_mode & 0o001:
                return False
        except OSError:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def _running_world_pid(world_json):
    """The pid of the world.py that wrote world_json if it is still running, else None."""
    try:
        with open(world_json) as f:
            pid = int(json.load(f).get("world_pid") or 0)
        if pid <= 0 or pid == os.getpid():
            return None
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read()
        return pid if b"world.py" in cmd else None
    except (OSError, ValueError, AttributeError):
        return None


class World:
    def __init__(self, args):
        self.args = args
        self.dir = os.path.abspath(args.dir)
        self.peers = []
        self.origins = {}
        self.skipped = {}
        # Peers the world would have started but could not find (never one turned off with a
        # --no-* flag): world.json's missing_peers, which tests/e2e.py fails on.
        self.missing_peers = {}
        self.notes = []
        # --link packet: every server in this process's own network namespace on its standard
        # port, the client in another behind netem shell, a link profile per path.
        self.packet = args.link == "packet"
        self.fixed = args.fixed_ports or self.packet
        self.paths = {}  # packet mode: server address -> RTT (ms) of its path
        self.link = None  # world.json's "link" block
        self.link_peer = None
        self.testserver = _resolve_binary(args.testserver, "--testserver")
        self.netem = _resolve_binary(args.netem, "--netem")
        self.certbundle = None if args.no_bundles else _resolve_binary(args.certbundle,
                                                                       "--certbundle")
        if args.no_nginx:
            self.nginx = None
        elif args.nginx:
            self.nginx = _resolve_binary(args.nginx, "--nginx")
        else:
            self.nginx = _default_nginx()
        if args.no_dns:
            self.knotd = None
        elif args.knotd:
            self.knotd = _resolve_binary(args.knotd, "--knotd")
        else:
            self.knotd = _default_knotd()
            if not self.knotd and args.require_dns:
                raise WorldError("--require-dns, but knotd was not found (Debian package knot; "
                                 "or give --knotd BIN)")
        self.dns = None  # world.json's "dns" block once Knot is up
        self.knot_control_dir = None  # a short directory for knot's control socket, if needed
        self.ocsp = None  # world.json's "ocsp" block once the responder is up
        self.ocsp_peer = None
        self.ocsp_watch = None  # the watchdog's current window (see tend_ocsp)
        self.staples = {}  # origin -> world.json's `staple` block (see make_staples)
        # Certificate bundles (see make_bundles): published only with a certbundle binary and
        # the testservers (the Snap Start origins).
        self.bundles_wanted = bool(self.certbundle and self.testserver)
        self.bundle_listeners = {}  # nginx's bundle listeners (well-known-<origin>, cdnN)
        self.bundles = None  # world.json's "bundles" block
        self.bundle_cases = {}  # world.json's "bundle_cases"
        self.bundle_txt = []  # [(owner, [strings])]: the TXT records for the zone
        self.startup_seconds = None
        self.world_json = os.path.join(self.dir, "world.json")

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def path_rtt(self, addr, rtt_ms):
        """Packet mode: traffic to and from addr crosses a link with this RTT (no relay)."""
        if rtt_ms > 0:
            self.paths[addr] = rtt_ms

    def https_port(self):
        return HTTPS_FIXED_PORT if self.fixed else 0

    def http_port(self):
        return HTTP_FIXED_PORT if self.fixed else 0

    def note(self, msg):
        self.notes.append(msg)
        if not self.args.quiet:
            log(msg)

    def skip(self, origins, why):
        for o in origins:
            self.skipped[o] = why
        self.note("not starting %s: %s" % (
            ", ".join(o + ".example.test" for o in origins), why))

    # -- start ------------------------------------------------------------------------------------

    def start(self):
        t0 = time.monotonic()
        os.umask(0o022)
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        for d in ("logs", "run", "www", "static", "nginx", "nginx/html"):
            os.makedirs(self.path(d), exist_ok=True)
        if os.path.exists(self.world_json):
            other = _running_world_pid(self.world_json)
            if other:
                raise WorldError("a world is already running in %s (world.py pid %d); stop it "
                                 "or use another --dir" % (self.dir, other))
            os.remove(self.world_json)
        self.pki = pki.build(self.path("pki"))
        # No bundle of an earlier world may be served before this one's are made.
        shutil.rmtree(self.path("bundles"), ignore_errors=True)
        self.prepare_docroots()
        if not self.bundles_wanted:
            self.skipped["bundles"] = (
                "--no-bundles" if self.args.no_bundles else
                "no --certbundle given" if not self.certbundle else
                "no --testserver given (no Snap Start origin)")
            self.note("not publishing certificate bundles: %s" % self.skipped["bundles"])

        if self.nginx:
            self.start_nginx()
        else:
            self.skip(("nginx", "ecdsa", "static") + tuple(STAPLING_ORIGINS),
                      "--no-nginx" if self.args.no_nginx
                      else "no nginx binary found (give --nginx BIN)")
            if not self.args.no_nginx:
                self.missing_peers["nginx"] = ("no nginx binary found (Debian package nginx; "
                                               "or give --nginx BIN)")
            if self.bundles_wanted:
                self.skipped["bundles_http"] = "no nginx: no well-known path, no CDNs"
                self.note("certificate bundles only in DNS: no nginx for the well-known path "
                          "and the CDNs")

        if self.testserver:
            self.start_testservers()
        else:
            self.skip(("www", "slow", "tls12", "slow12", "expired", "wrongname", "untrusted",
                       "revoked"), "no --testserver given")

        if self.testserver and self.packet:
            pass  # slow and slow12 are test servers of their own behind a slow path
        elif self.testserver and self.netem:
            self.start_netems()
        elif self.testserver:
            self.skip(("slow", "slow12"), "no --netem given")

        if self.bundles_wanted:
            self.start_bundle_relays()
            self.make_bundles()

        self.start_ocsp()
        self.start_dns()
        if self.packet:
            self.start_link()

        self.origins = dict(sorted(
            self.origins.items(),
            key=lambda kv: ORIGIN_ORDER.index(kv[0]) if kv[0] in ORIGIN_ORDER else 99))
        self.write_demo_page()
        self.startup_seconds = time.monotonic() - t0
        self.write_world_json()

    def prepare_docroots(self):
        p = self.pki
        # static.example.test: what the certificates' URLs point at.
        for src, dst in ((p["crl"]["intermediate"]["der"], "intermediate.crl"),
                         (p["crl"]["root"]["der"], "root.crl"),
                         (p["intermediate_der"], "intermediate.der"),
                         (p["root"], "root.pem")):
            shutil.copyfile(src, self.path("static", dst))
            os.chmod(self.path("static", dst), 0o644)
        _write(self.path("nginx", "html", "index.html"), _read_template("nginx-index.html.in"))
        self.write_demo_page(placeholder=True)

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

    # nginx: nginx.example.test, ecdsa.example.test (HTTPS) and static.example.test (HTTP).
    def start_nginx(self):
        # Free ports are picked before nginx binds them, so another process can take one in
        # between; nginx then exits with EADDRINUSE and is retried on fresh ports.
        attempts = 1 if self.fixed else 3
        for attempt in range(attempts):
            try:
                return self._start_nginx_once()
            except WorldError:
                peer = self.peers[-1] if self.peers and self.peers[-1].kind == "nginx" else None
                if (peer is None or attempt + 1 == attempts or
                        "Address already in use" not in peer.output()):
                    raise
                stop_peers([peer], self.args.grace)
                self.peers.pop()
                self.note("nginx lost a port race; retrying on other ports")

    def bundle_http_plan(self):
        """nginx's plain-HTTP listeners for certificate bundles: [(name, origin or CDN key,
        relay RTT or None)]: the well-known path of each Snap Start origin that will run
        (`well-known-<origin>`; slow's behind a netem relay with --rtt-ms, as slow itself)
        and the three CDNs (cdn3 behind a relay with --cdn-rtt-ms)."""
        if not self.bundles_wanted:
            return []
        plan = []
        for key in BUNDLE_ORIGINS:
            if key == "slow" and not self.netem:
                continue  # slow is not started without netem
            relay = self.args.rtt_ms if key == "slow" else None
            if self.packet:
                relay = None  # on slow's address: slow's path
            plan.append(("well-known-" + key, key, relay))
        for cdn in BUNDLE_CDNS:
            relay = (self.args.cdn_rtt_ms if cdn == "cdn3" and self.netem and
                     self.args.cdn_rtt_ms > 0 else None)
            if self.packet and relay:
                self.path_rtt(ADDR[cdn], relay)
                relay = None
            plan.append((cdn, cdn, relay))
        return plan

    @staticmethod
    def bundle_fixed_port(name):
        return BUNDLE_WELL_KNOWN_FIXED_PORT if name.startswith("well-known-") else \
            HTTP_FIXED_PORT

    def _start_nginx_once(self):
        https = self.https_port()
        http = self.http_port()
        bplan = self.bundle_http_plan()
        # A listener behind a relay always takes an ephemeral port (the relay has the fixed one).
        picked_addrs = [ADDR[key] for name, key, relay in bplan
                        if not self.fixed or relay is not None]
        stapling = list(STAPLING_ORIGINS)
        if self.fixed:
            ports = [https, https, http]
            stapling_ports = [https] * len(stapling)
            picked = pick_free_ports(picked_addrs)
        else:
            ports = pick_free_ports([ADDR["nginx"], ADDR["ecdsa"], ADDR["static"]] +
                                    [ADDR[k] for k in stapling] + picked_addrs)
            ports, stapling_ports, picked = (ports[:3], ports[3:3 + len(stapling)],
                                             ports[3 + len(stapling):])
        stapling_ports = dict(zip(stapling, stapling_ports))
        picked = iter(picked)
        self.bundle_listeners = {}
        for name, key, relay in bplan:
            port = next(picked) if not self.fixed or relay is not None else \
                self.bundle_fixed_port(name)
            self.bundle_listeners[name] = {
                "key": key, "host": "%s.%s" % (key, pki.DOMAIN), "address": ADDR[key],
                "nginx_port": port, "port": None if relay is not None else port,
                "rtt_ms": relay or self.paths.get(ADDR[key], 0), "process": "nginx"}
        nginx_chain, nginx_key = self.host_files("nginx")
        ecdsa_chain, ecdsa_key = self.host_files("ecdsa")
        user_line = ""
        if os.geteuid() == 0:
            if _nobody_can_reach(self.dir):
                user_line = "user nobody %s;" % self._nobody_group()
            else:
                # The docroots are under a directory `nobody` cannot enter (e.g. Bazel's test
                # tmpdir under /root): run the workers as root instead.
                user_line = "user root root;"
                self.note("nginx workers run as root: %s is not reachable by nobody" % self.dir)
        conf = pki.fill_template(_read_template("nginx.conf.in"), {
            "USER_LINE": user_line,
            "RUN_DIR": self.path("run"),
            "LOG_DIR": self.path("logs"),
            "NGINX_ADDR": ADDR["nginx"], "NGINX_PORT": ports[0],
            "NGINX_CHAIN": nginx_chain, "NGINX_KEY": nginx_key,
            "NGINX_DOCROOT": self.path("nginx", "html"),
            "ECDSA_ADDR": ADDR["ecdsa"], "ECDSA_PORT": ports[1],
            "ECDSA_CHAIN": ecdsa_chain, "ECDSA_KEY": ecdsa_key,
            "STATIC_ADDR": ADDR["static"], "STATIC_PORT": ports[2],
            "STATIC_DOCROOT": self.path("static"),
            "STAPLING_SERVERS": self.stapling_nginx_servers(stapling_ports),
            "BUNDLE_SERVERS": self.bundle_nginx_servers(),
        })
        conf_path = self.path("nginx", "nginx.conf")
        _write(conf_path, conf)
        peer = Peer("nginx", "nginx",
                    [self.nginx, "-p", self.path("nginx") + "/", "-c", conf_path,
                     "-e", self.path("logs", "nginx-error.log")],
                    out_path=self.path("logs", "nginx.out"),
                    log_path=self.path("logs", "nginx-error.log"),
                    stop_signal=signal.SIGQUIT)
        self.peers.append(peer)
        peer.start()
        wait_connectable(peer, [(ADDR["nginx"], ports[0]), (ADDR["ecdsa"], ports[1]),
                                (ADDR["static"], ports[2])] +
                         [(ADDR[k], port) for k, port in stapling_ports.items()] +
                         [(l["address"], l["nginx_port"]) for l in self.bundle_listeners.values()],
                         self.args.timeout)
        self.add_origin("nginx", "nginx.example.test", "https", ADDR["nginx"], ports[0], "nginx",
                        "nginx", tls_max="1.3", tls_min="1.2", fixture="nginx")
        self.add_origin("ecdsa", "ecdsa.example.test", "https", ADDR["ecdsa"], ports[1], "nginx",
                        "nginx", tls_max="1.3", tls_min="1.2", fixture="ecdsa")
        self.add_origin("static", "static.example.test", "http", ADDR["static"], ports[2],
                        "nginx", "nginx", docroot=self.path("static"))
        for key, port in stapling_ports.items():
            fixture, _, _, expect = STAPLING_ORIGINS[key]
            self.add_origin(key, "%s.%s" % (key, pki.DOMAIN), "https", ADDR[key], port, "nginx",
                            "nginx", tls_max="1.3", tls_min="1.2", expect=expect,
                            fixture=fixture, staple=self.staples[key])

    def make_staples(self):
        """The OCSP responses nginx staples (STAPLING_ORIGINS): made with `openssl ocsp` from the
        intermediate's index and the delegated signer, like the responder's answers, but without
        it (no request reaches the responder; no nonce). Fills self.staples with world.json's
        `staple` block per origin. Raises WorldError if openssl fails."""
        p = self.pki
        o = p["ocsp"]
        openssl = shutil.which("openssl")
        d = self.path("staples")
        os.makedirs(d, exist_ok=True)
        self.staples = {}
        for key, (fixture, staple_for, status, _) in STAPLING_ORIGINS.items():
            serial = p["hosts"][pki.host_dir_name(staple_for)]["serial"]
            out = os.path.join(d, "%s.%s.der" % (key, pki.DOMAIN))
            r = subprocess.run(
                [openssl, "ocsp", "-index", o["index"], "-CA", o["ca"], "-rsigner", o["signer"],
                 "-rkey", o["signer_key"], "-issuer", o["ca"], "-serial", "0x" + serial,
                 "-no_nonce", "-ndays", str(STAPLE_NEXT_UPDATE_DAYS), "-respout", out],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True)
            if r.returncode != 0 or not os.path.isfile(out):
                raise WorldError("openssl ocsp could not make the staple for %s.%s (exit %d): %s"
                                 % (key, pki.DOMAIN, r.returncode, r.stdout.strip()))
            os.chmod(out, 0o644)
            self.staples[key] = {
                "file": out, "status": status, "serial": serial,
                "for_host": pki.host_dir_name(staple_for),
                "leaf_serial": p["hosts"][pki.host_dir_name(fixture)]["serial"],
                "next_update_days": STAPLE_NEXT_UPDATE_DAYS,
            }

    def stapling_nginx_servers(self, ports):
        """The nginx server blocks of the OCSP-stapling origins (templates/nginx-stapling.conf.in)."""
        self.make_staples()
        blocks = []
        for key, port in ports.items():
            fixture, staple_for, status, _ = STAPLING_ORIGINS[key]
            chain, keyfile = self.host_files(fixture)
            host = "%s.%s" % (key, pki.DOMAIN)
            blocks.append(pki.fill_template(_read_template("nginx-stapling.conf.in"), {
                "HOST": host, "ADDR": ADDR[key], "PORT": port, "CHAIN": chain, "KEY": keyfile,
                "STAPLE": self.staples[key]["file"], "DOCROOT": self.path("nginx", "html"),
                "NOTE": "the %s leaf, stapling a %s OCSP response for %s" % (
                    fixture, status, "itself" if staple_for == fixture else
                    "another certificate (%s's leaf)" % pki.host_dir_name(staple_for)),
            }).rstrip("\n"))
        return "\n\n".join(blocks)

    def bundle_nginx_servers(self):
        """The nginx server blocks of the bundle listeners (empty without bundles)."""
        if not self.bundle_listeners:
            return "    # (none: no certificate bundles)"
        blocks = []
        for name, l in self.bundle_listeners.items():
            if not name.startswith("well-known-"):
                continue
            note = ("Behind a netem relay adding %d ms of RTT." % l["rtt_ms"]
                    if name == "well-known-slow" else "")
            blocks.append(pki.fill_template(_read_template("nginx-well-known.conf.in"), {
                "HOST": l["host"], "ADDR": l["address"], "PORT": l["nginx_port"],
                "ROOT": self.path("bundles", "well-known", l["host"]), "NOTE": note,
            }).rstrip("\n"))
        cdn3 = self.bundle_listeners["cdn3"]
        blocks.append(pki.fill_template(_read_template("nginx-cdns.conf.in"), {
            "CDN_DOCROOT": self.path("bundles", "cdn"),
            "CDN1_ADDR": ADDR["cdn1"], "CDN1_PORT": self.bundle_listeners["cdn1"]["nginx_port"],
            "CDN2_ADDR": ADDR["cdn2"], "CDN2_PORT": self.bundle_listeners["cdn2"]["nginx_port"],
            "CDN3_ADDR": ADDR["cdn3"], "CDN3_PORT": cdn3["nginx_port"],
            "CDN3_NOTE": ("slow: this listener is the backend of a netem relay adding %d ms of "
                          "RTT" % cdn3["rtt_ms"]) if cdn3["rtt_ms"] else
                         "served directly (no relay: no --netem, or --cdn-rtt-ms 0)",
        }).rstrip("\n"))
        return "\n\n".join(blocks)

    @staticmethod
    def _nobody_group():
        for g in ("nogroup", "nobody"):
            try:
                grp.getgrnam(g)
                return g
            except KeyError:
                pass
        return str(pwd.getpwnam("nobody").pw_gid)

    def testserver_peer(self, name, fixture, listens, http_listens=(), tls_max="1.3"):
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
        argv += self.args.testserver_arg
        return Peer(name, "testserver", argv, out_path=self.path("logs", name + ".out"),
                    log_path=self.path("logs", name + ".log"))

    # testservers: www (HTTPS + HTTP), the slow origin's backend, tls12, the four fixtures.
    def start_testservers(self):
        https, http = self.https_port(), self.http_port()
        plan = [
            # (origin, fixture, https listen, http listen, tls_max)
            ("www", "www", (ADDR["www"], https), (ADDR["www"], http), "1.3"),
            # Behind netem; always an ephemeral port on the slow origin's address.
            ("slow", "slow", (ADDR["slow"], 0), None, "1.3"),
            ("tls12", "tls12", (ADDR["tls12"], https), None, "1.2"),
            ("expired", "expired", (ADDR["expired"], https), None, "1.3"),
            ("wrongname", "wrongname", (ADDR["wrongname"], https), None, "1.3"),
            ("untrusted", "untrusted", (ADDR["untrusted"], https), None, "1.3"),
            ("revoked", "revoked", (ADDR["revoked"], https), None, "1.3"),
        ]
        if self.packet:
            # No relays: slow (TLS 1.3, and plain HTTP as slow_http) and slow12 (tls12's
            # certificate and orbit, TLS 1.2) are test servers of their own on addresses
            # whose path has --rtt-ms.
            plan[1] = ("slow", "slow", (ADDR["slow"], https), (ADDR["slow"], http), "1.3")
            plan.append(("slow12", "tls12", (ADDR["slow12"], https), None, "1.2"))
            self.path_rtt(ADDR["slow"], self.args.rtt_ms)
            self.path_rtt(ADDR["slow12"], self.args.rtt_ms)
        elif not self.netem:
            plan = [p for p in plan if p[0] != "slow"]
        peers = []
        for origin, fixture, listen, http_listen, tls_max in plan:
            peer = self.testserver_peer("testserver-" + origin, fixture, [listen],
                                        [http_listen] if http_listen else [], tls_max)
            self.peers.append(peer)
            peers.append((peer, origin, fixture, listen, http_listen, tls_max))
            peer.start()
        ready = wait_ready_lines([p[0] for p in peers], self.args.timeout)
        self.backends = {}
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
            self.add_origin(origin, host, "https", listen[0], port, "testserver", peer.name,
                            tls_max=tls_max, expect=expect, fixture=fixture, rtt_ms=rtt,
                            **extra)
            self.backends[origin] = (listen[0], port)
            if http_listen:
                hport = match_listener(reported, "http", http_listen[0], http_listen[1], peer)
                if rtt:
                    extra = {"backend": dict(extra["backend"], port=hport)}
                self.add_origin(origin + "_http", host, "http", http_listen[0], hport,
                                "testserver", peer.name, rtt_ms=rtt, **extra)
                self.backends[origin + "_http"] = (http_listen[0], hport)

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

    # -- certificate bundles ----------------------------------------------------------------------

    def start_bundle_relays(self):
        """netem relays in front of nginx's bundle listeners that have one: slow's well-known
        path (--rtt-ms, like slow) and cdn3 (--cdn-rtt-ms)."""
        todo = [(name, l) for name, l in self.bundle_listeners.items() if l["port"] is None]
        if self.nginx and not self.netem:
            self.skipped["cdn3_relay"] = "no --netem given"
            self.note("no relay in front of cdn3.example.test: no --netem given; it is served "
                      "directly")
        peers = []
        for name, l in todo:
            pname = "netem-" + name
            lport = self.bundle_fixed_port(name) if self.fixed else 0
            argv = [self.netem, "--tcp", "%s:%d=%s:%d" % (l["address"], lport, l["address"],
                                                          l["nginx_port"]),
                    "--rtt-ms", str(l["rtt_ms"])] + self.args.netem_arg
            peer = Peer(pname, "netem", argv, out_path=self.path("logs", pname + ".out"))
            self.peers.append(peer)
            peers.append((peer, l, lport))
            peer.start()
        if not peers:
            return
        ready = wait_ready_lines([p[0] for p in peers], self.args.timeout)
        for peer, l, lport in peers:
            l["port"] = match_listener(parse_listening(ready[peer.name], ("tcp",)), "tcp",
                                       l["address"], lport, peer)
            l["process"] = peer.name
            l["backend"] = "%s:%d" % (l["address"], l["nginx_port"])

    def run_certbundle(self, args):
        """Runs the certbundle binary; returns its stdout (bytes). Raises WorldError."""
        argv = [self.certbundle] + args
        try:
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=max(10, self.args.timeout))
        except (OSError, subprocess.TimeoutExpired) as e:
            raise WorldError("certbundle could not be run (%s): %s" % (" ".join(argv), e))
        if r.returncode != 0:
            raise WorldError("certbundle failed (exit %d): %s\n  command: %s" % (
                r.returncode, r.stderr.decode("utf-8", "replace").strip(), " ".join(argv)))
        return r.stdout

    def certbundle_make(self, host, port, chain, orbit, fmt):
        args = ["make", "--host", host, "--port", str(port), "--chain", chain, "--format", fmt,
                "--created", str(self.bundle_created)]
        if orbit:
            args += ["--orbit", orbit]
        return self.run_certbundle(args)

    def write_txt_record(self, owner_host, strings):
        """Queues the TXT record _certbundle.<owner_host> for the zone and writes it as
        `certbundle make --format txt` prints it (the name, then one string a line) to
        bundles/txt/<owner_host>.txt (input for `certbundle inspect`). Returns its
        world.json description."""
        name = BUNDLE_TXT_PREFIX + owner_host
        path = self.path("bundles", "txt", owner_host + ".txt")
        _write(path, "\n".join([name] + strings) + "\n")
        self.bundle_txt.append((name, strings))
        return {"name": name, "txt": path, "strings": len(strings),
                "bytes": sum(len(x) for x in strings)}

    @staticmethod
    def parse_txt_output(out):
        lines = out.decode("ascii").splitlines()
        return lines[0], lines[1:]

    def make_spoofed_chain(self, host):
        """A chain for `host` from the untrusted root (NOT a trust anchor): an RSA leaf (the
        untrusted fixture's key) with SAN host, then untrusted-root.pem. Made outside the
        PKI's `openssl ca` databases, so pki.json and the serials are unchanged."""
        d = self.path("bundles", "spoof", host)
        os.makedirs(d, exist_ok=True)
        p = self.pki
        key = p["hosts"][pki.host_dir_name("untrusted")]["key"]
        csr, leaf, ext = (os.path.join(d, n) for n in ("leaf.csr", "leaf.pem", "ext.cnf"))
        _write(ext, "basicConstraints = critical, CA:FALSE\n"
                    "keyUsage = critical, digitalSignature, keyEncipherment\n"
                    "extendedKeyUsage = serverAuth\n"
                    "subjectAltName = DNS:%s\n" % host)
        openssl = shutil.which("openssl")
        for argv in ([openssl, "req", "-new", "-key", key, "-subj", "/CN=" + host, "-out", csr],
                     [openssl, "x509", "-req", "-in", csr, "-CA", p["untrusted_root"],
                      "-CAkey", os.path.join(p["dir"], "untrusted-root", "key.pem"),
                      "-set_serial", "0x5A01", "-days", "30", "-extfile", ext, "-out", leaf]):
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                raise WorldError("making the spoofed chain for %s failed: %s\n%s" % (
                    host, " ".join(argv), r.stdout))
        chain = os.path.join(d, "chain.pem")
        with open(leaf) as a, open(p["untrusted_root"]) as b:
            _write(chain, a.read() + b.read())
        os.remove(csr)
        return chain

    def make_bundles(self):
        """Makes the certificate bundles of the Snap Start origins (now that their ports are
        known) and of the broken cases, writes the files nginx serves and queues the TXT
        records for the zone. See README.md, *Certificate bundles*."""
        d = self.path("bundles")
        os.makedirs(os.path.join(d, "txt"), exist_ok=True)
        self.bundle_created = int(time.time())
        dns = bool(self.knotd)
        http = bool(self.bundle_listeners)
        L = self.bundle_listeners
        cdn_dir = self.path("bundles", "cdn", BUNDLE_CDN_PATH.strip("/"))

        def cdn_urls(host):
            return ["http://%s.%s%s/%s.crt" % (c, pki.DOMAIN, BUNDLE_CDN_PATH, host)
                    for c in BUNDLE_CDN_FILES] if http else []

        def write_cdn_file(host, data):
            _write_bytes(os.path.join(cdn_dir, host + ".crt"), data)

        origins = {}
        txt_of = {}
        for key in BUNDLE_ORIGINS:
            o = self.origins.get(key)
            if o is None:
                continue
            host, port, orbit = o["host"], o["port"], o["snap_start_orbit"]
            file_bytes = self.certbundle_make(host, port, o["cert_chain"], orbit, "cdn")
            write_cdn_file(host, file_bytes)
            sources = {}
            if dns:
                if key in BUNDLE_POINTER_ORIGINS and http:
                    url = cdn_urls(host)[0]
                    name, strings = self.parse_txt_output(
                        self.run_certbundle(["pointer", "--host", host, "--url", url]))
                    sources["dns"] = dict(self.write_txt_record(host, strings), form="pointer",
                                          url=url)
                else:
                    name, strings = self.parse_txt_output(
                        self.certbundle_make(host, port, o["cert_chain"], orbit, "txt"))
                    txt_of[key] = strings
                    sources["dns"] = dict(self.write_txt_record(host, strings), form="bundle")
            if http:
                wk = L["well-known-" + key]
                _write_bytes(self.path("bundles", "well-known", host,
                                       BUNDLE_WELL_KNOWN_PATH.lstrip("/")),
                             self.certbundle_make(host, port, o["cert_chain"], orbit,
                                                  "well-known"))
                sources["well-known"] = {
                    "url": "http://%s%s" % (host, BUNDLE_WELL_KNOWN_PATH),
                    "rtt_ms": wk["rtt_ms"], "address": wk["address"], "port": wk["port"],
                    "process": wk["process"]}
                sources["cdn"] = {"urls": cdn_urls(host)}
            sources["truncated"] = {"address": o["address"], "port": port}
            origins[key] = {
                "host": host, "port": port, "address": o["address"], "orbit": orbit,
                "cipher_suite": "0x%04x" % 0x009c, "chain": o["cert_chain"],
                "file": os.path.join(cdn_dir, host + ".crt"), "file_bytes": len(file_bytes),
                "sources": sources,
            }

        cases = {}
        for case, (key, source, expect, reason, what) in BUNDLE_CASES.items():
            o = self.origins.get(key)
            if o is None or (source == "dns" and not dns) or (source == "cdn" and not http):
                continue
            host, port = o["host"], o["port"]
            c = {"host": host, "origin": key, "source": source, "expect": expect,
                 "reason": reason, "description": what, "origin_expect": o["expect"]}
            chain = None
            if case == "another_host_bundle":
                if "www" not in txt_of:
                    continue
                c.update(self.write_txt_record(host, txt_of["www"]))
                c["bundle_host"] = "www." + pki.DOMAIN
                chain = self.origins["www"]["cert_chain"]
            elif case == "another_host_chain":
                chain = self.pki["hosts"][pki.host_dir_name("www")]["chain"]
                write_cdn_file(host, self.certbundle_make(host, port, chain, None, "cdn"))
                c["urls"] = cdn_urls(host)
            elif case == "untrusted_root":
                chain = self.make_spoofed_chain(host)
                c.update(self.write_txt_record(host, self.parse_txt_output(
                    self.certbundle_make(host, port, chain, None, "txt"))[1]))
            elif case == "not_a_bundle":
                write_cdn_file(host, NOT_A_BUNDLE_HTML.encode())
                c["urls"] = cdn_urls(host)
                c["content_type"] = "text/html"
            elif case == "stale_orbit":
                chain = o["cert_chain"]
                c.update(self.write_txt_record(host, self.parse_txt_output(
                    self.certbundle_make(host, port, chain, BUNDLE_STALE_ORBIT, "txt"))[1]))
                c["orbit"] = BUNDLE_STALE_ORBIT
                c["server_orbit"] = o["snap_start_orbit"]
            elif case in ("expired", "revoked"):
                chain = o["cert_chain"]
                c.update(self.write_txt_record(host, self.parse_txt_output(
                    self.certbundle_make(host, port, chain, None, "txt"))[1]))
            elif case == "bad_txt_record":
                c.update(self.write_txt_record(host, [BAD_TXT_RECORD]))
            elif case == "malformed_bundle":
                body = b"not a CertBundle message, only text"
                data = b"\x89CB\n" + len(body).to_bytes(3, "big") + body
                c.update(self.write_txt_record(host, [
                    "v=cb1; b=" + base64.b64encode(data).decode("ascii")]))
            if chain:
                c["chain"] = chain
            cases[case] = c

        cdns = {}
        if http:
            for cdn in BUNDLE_CDNS:
                l = L[cdn]
                cdns[cdn] = {
                    "base": "http://%s%s" % (l["host"], BUNDLE_CDN_PATH),
                    "host": l["host"], "address": l["address"], "port": l["port"],
                    "serves": "files" if cdn in BUNDLE_CDN_FILES else "404",
                    "rtt_ms": l["rtt_ms"], "process": l["process"],
                    "backend": l.get("backend")}
        self.bundle_cases = cases
        self.bundles = {
            "certbundle": self.certbundle,
            "dir": d,
            "created_unix": self.bundle_created,
            "txt_name_prefix": BUNDLE_TXT_PREFIX,
            "well_known_path": BUNDLE_WELL_KNOWN_PATH,
            "cdns": cdns,
            "origins": origins,
            # origins whose server answers the truncated-handshake probe (it has an orbit)
            "truncated_handshake": sorted(
                (k for k, o in self.origins.items() if o.get("snap_start_orbit")),
                key=lambda k: ORIGIN_ORDER.index(k) if k in ORIGIN_ORDER else 99),
        }
        if not self.args.quiet:
            log("certificate bundles: %s through %s; %d broken case(s)" % (
                ", ".join(o["host"] for o in origins.values()),
                ", ".join(sorted({s for o in origins.values() for s in o["sources"]})),
                len(cases)))

    def bundle_cdn_list(self):
        return [c["base"] for c in self.bundles["cdns"].values()] if self.bundles else []

    def bundle_rewrites(self):
        """url_rewrites for the bundle URLs: each CDN's host (when its port is not 80) and each
        origin's well-known directory (never on port 80: that is the testserver's, or free)."""
        rewrites = {}
        if not self.bundles:
            return rewrites
        for c in self.bundles["cdns"].values():
            if c["port"] != HTTP_FIXED_PORT:
                rewrites["http://%s/" % c["host"]] = "http://%s:%d/" % (c["host"], c["port"])
        for o in self.bundles["origins"].values():
            wk = o["sources"].get("well-known")
            if wk and wk["port"] != HTTP_FIXED_PORT:
                rewrites["http://%s/.well-known/" % o["host"]] = \
                    "http://%s:%d/.well-known/" % (o["host"], wk["port"])
        return rewrites

    def bundle_endpoints(self):
        """(host, port, address) of every bundle listener clients connect to (for world.json's
        hosts and resolve)."""
        out = []
        if self.bundles:
            for c in self.bundles["cdns"].values():
                out.append((c["host"], c["port"], c["address"]))
            for o in self.bundles["origins"].values():
                wk = o["sources"].get("well-known")
                if wk:
                    out.append((o["host"], wk["port"], wk["address"]))
        return out

    # OCSP: `openssl ocsp` answering for the intermediate CA from its index, signing with the
    # delegated signer; a netem relay on 127.0.0.21 in front of it with --ocsp-rtt-ms.
    def start_ocsp(self):
        if self.args.no_ocsp:
            self.skipped["ocsp"] = "--no-ocsp"
            self.note("not starting the OCSP responder (ocsp.example.test): --no-ocsp")
            return
        p = self.pki
        o = p["ocsp"]
        self.openssl = shutil.which("openssl")  # pki.build found it
        rtt = self.args.ocsp_rtt_ms
        if rtt > 0 and self.packet:
            self.path_rtt(ADDR["ocsp"], rtt)
            packet_rtt, rtt = rtt, 0  # no relay: the path has the RTT
        else:
            packet_rtt = 0
        if rtt > 0 and not self.netem:
            self.skipped["ocsp_relay"] = "no --netem given"
            self.note("no OCSP relay (%d ms RTT): no --netem given; ocsp.example.test is the "
                      "responder itself" % rtt)
            rtt = 0
        addr = ADDR["ocsp"]
        # It binds *:PORT, so with a relay on 127.0.0.21 it takes an ephemeral port (port 0:
        # no race, it reports the port it got).
        port = OCSP_FIXED_PORT if self.fixed and rtt == 0 else 0
        log_path = self.path("logs", "ocsp.log")
        text_log = self.path("logs", "ocsp-text.log")
        argv = [self.openssl, "ocsp", "-index", o["index"], "-CA", o["ca"],
                "-rsigner", o["signer"], "-rkey", o["signer_key"],
                "-nmin", str(OCSP_NEXT_UPDATE_MIN),
                # A malformed request would otherwise make it exit.
                "-ignore_err",
                "-text", "-out", text_log, "-port", str(port)]
        peer = Peer("ocsp", "ocsp", argv, out_path=log_path)
        self.peers.append(peer)
        peer.start()
        port = wait_accept_line(peer, self.args.timeout)
        peer.argv[-1] = str(port)  # a restart (tend_ocsp) rebinds the same port
        self.ocsp_peer = peer

        serials = {f: p["hosts"][pki.host_dir_name(f)]["serial"] for f in ("www", "revoked")}
        direct = "http://%s:%d/" % (addr, port)
        # Real queries (also the throwaway query the responder may want first): www is good
        # and the revoked leaf revoked, signed by the delegated signer, verified up to root.pem.
        checks = [(direct, "www", "good"), (direct, "revoked", "revoked")]
        self.check_ocsp_answers(peer, checks)
        startup_requests = len(checks)

        url_port, relay = port, None
        if rtt > 0:
            lport = OCSP_FIXED_PORT if self.fixed else 0
            argv = [self.netem, "--tcp", "%s:%d=%s:%d" % (addr, lport, addr, port),
                    "--rtt-ms", str(rtt)] + self.args.netem_arg
            relay = Peer("ocsp_netem", "netem", argv,
                         out_path=self.path("logs", "ocsp_netem.out"))
            self.peers.append(relay)
            relay.start()
            ready = wait_ready_lines([relay], self.args.timeout)
            url_port = match_listener(parse_listening(ready[relay.name], ("tcp",)), "tcp", addr,
                                      lport, relay)
            # One query through it (not a bare connect: the relay would pass that on).
            self.check_ocsp_answers(relay, [("http://%s:%d/" % (addr, url_port), "www", "good")])
            startup_requests += 1

        self.ocsp = {
            "url": "http://ocsp.%s:%d/" % (pki.DOMAIN, url_port),
            "embedded_url": pki.OCSP_URL,
            "host": "ocsp." + pki.DOMAIN,
            "address": addr,
            "port": url_port,
            "rtt_ms": rtt or packet_rtt,
            "direct": "%s:%d" % (addr, port),
            "process": "ocsp",
            "relay_process": "ocsp_netem" if relay else None,
            "log": log_path,
            "log_marker": OCSP_LOG_MARKER,
            "text_log": text_log,
            "startup_requests": startup_requests,
            "restarts": 0,
            "index": o["index"],
            "ca": o["ca"],
            "signer": o["signer"],
            "signer_key": o["signer_key"],
            "next_update_minutes": OCSP_NEXT_UPDATE_MIN,
            "good_serial": serials["www"],
            "good_host": "www." + pki.DOMAIN,
            "revoked_serial": serials["revoked"],
            "revoked_host": "revoked." + pki.DOMAIN,
        }

    def check_ocsp_answers(self, peer, checks):
        """Queries each (url, fixture, status) until it answers that status; raises WorldError
        naming peer (the responder or its relay) if it exits or the deadline passes."""
        p = self.pki
        deadline = time.monotonic() + self.args.timeout
        for url, fixture, want in checks:
            serial = p["hosts"][pki.host_dir_name(fixture)]["serial"]
            while True:
                for pe in (peer, self.ocsp_peer):
                    if not pe.alive():
                        raise WorldError(pe.describe_failure(
                            "exited during start-up (exit code %s)" % pe.proc.returncode))
                left = deadline - time.monotonic()
                got, out = ocsp_query(self.openssl, p["intermediate"], p["root"], serial, url,
                                      timeout=max(1, min(5, left)))
                if got == want:
                    break
                if got is not None or time.monotonic() > deadline:
                    raise WorldError(peer.describe_failure(
                        "did not answer %s for %s's serial 0x%s at %s (got: %s)" % (
                            want, fixture, serial, url, got or out.replace("\n", " | "))))
                time.sleep(0.05)

    def tend_ocsp(self):
        """The watchdog. OpenSSL 3.0's responder serves one connection at a time and, when a
        connection closes before its request line (a bare connect, a client giving up while
        the relay holds its bytes), spins on it forever (openssl/openssl#31129): it answers
        nobody and burns a CPU. Over each window of OCSP_WEDGE_WINDOW s, a responder that used
        that much CPU but logged nothing is wedged: restart it on the same port."""
        peer = self.ocsp_peer
        if peer is None or not peer.alive():
            return
        now, cpu = time.monotonic(), cpu_seconds(peer.pid)
        try:
            size = os.path.getsize(peer.out_path)
        except OSError:
            size = -1
        w = self.ocsp_watch
        if cpu is None or w is None or w["pid"] != peer.pid or w["size"] != size:
            self.ocsp_watch = {"pid": peer.pid, "t": now, "cpu": cpu, "size": size}
            return
        if now - w["t"] < OCSP_WEDGE_WINDOW:
            return
        share = (cpu - w["cpu"]) / (now - w["t"])
        self.ocsp_watch = {"pid": peer.pid, "t": now, "cpu": cpu, "size": size}
        if share >= OCSP_WEDGE_CPU_SHARE:
            self.restart_ocsp("is wedged (%.0f%% CPU, nothing logged for %.1f s)" % (
                share * 100, now - w["t"]))

    def restart_ocsp(self, why):
        old = self.ocsp_peer
        log("warning: the OCSP responder (pid %d) %s; restarting it on port %s" % (
            old.pid, why, old.argv[-1]))
        stop_peers([old], 1.0)
        with open(old.out_path, "a") as f:
            f.write("world: pid %d %s; restarted\n" % (old.pid, why))
        offset = len(old.output())
        peer = Peer(old.name, old.kind, old.argv, old.out_path)
        self.peers[self.peers.index(old)] = peer
        self.ocsp_peer = peer
        self.ocsp["restarts"] += 1
        try:
            peer.start(append=True)
            wait_accept_line(peer, self.args.timeout, offset)
        except WorldError as e:
            log("error: the OCSP responder could not be restarted: %s" % e)
        self.write_world_json()

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
        zone_text, a_records, aaaa_records, big = dns_zone(self.bundle_txt)
        zone_file = os.path.join(d, DNS_ZONE + ".zone")
        _write(zone_file, zone_text)
        big_file = os.path.join(d, "big.txt")
        _write(big_file, big)  # the TXT strings concatenated, no newline
        rundir = os.path.join(d, "run")
        control = os.path.join(rundir, "knot.sock")
        if len(control.encode()) > 100:  # sun_path holds 108 bytes; knotd stops if bind fails
            self.knot_control_dir = tempfile.mkdtemp(prefix="world-knot-", dir="/tmp")
            control = os.path.join(self.knot_control_dir, "knot.sock")

        attempts = 1 if self.fixed else 3
        for attempt in range(attempts):
            port = DNS_FIXED_PORT if self.fixed else pick_free_udp_tcp_port(DNS_ADDR)
            conf = pki.fill_template(_read_template("knot.conf.in"), {
                "RUN_DIR": rundir, "LISTEN": "%s@%d" % (DNS_ADDR, port),
                "CONTROL_SOCKET": control, "DB_DIR": os.path.join(d, "db"),
                "ZONE": DNS_ZONE, "ZONE_DIR": d, "ZONE_FILE": os.path.basename(zone_file),
            })
            conf_path = os.path.join(d, "knot.conf")
            _write(conf_path, conf)
            peer = Peer("dns_knot", "knot", [self.knotd, "-c", conf_path],
                        out_path=self.path("logs", "dns_knot.log"))
            self.peers.append(peer)
            peer.start()
            try:
                wait_dns_answers(peer, DNS_ADDR, port, self.args.timeout)
                break
            except WorldError:
                if attempt + 1 == attempts or "address already in use" not in \
                        peer.output().lower():
                    raise
                stop_peers([peer], self.args.grace)
                self.peers.pop()
                self.note("knotd lost a port race; retrying on another port")

        server, rtt, relay = (DNS_ADDR, port), 0, None
        if self.packet:
            self.path_rtt(DNS_ADDR, self.args.dns_rtt_ms)
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
            "direct": "%s:%d" % (DNS_ADDR, port),
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
        }

    def start_dns_relay(self, knot_port):
        """netem --udp and --tcp on one port of 127.0.0.54 to knotd; returns (addr, port)."""
        attempts = 1 if self.fixed else 3
        for attempt in range(attempts):
            port = DNS_FIXED_PORT if self.fixed else pick_free_udp_tcp_port(DNS_RELAY_ADDR)
            target = "%s:%d" % (DNS_ADDR, knot_port)
            listen = "%s:%d" % (DNS_RELAY_ADDR, port)
            argv = [self.netem, "--udp", listen + "=" + target, "--tcp", listen + "=" + target,
                    "--rtt-ms", str(self.args.dns_rtt_ms)] + self.args.netem_arg
            peer = Peer("dns_netem", "netem", argv, out_path=self.path("logs", "dns_netem.out"))
            self.peers.append(peer)
            peer.start()
            try:
                ready = wait_ready_lines([peer], self.args.timeout)
                reported = parse_listening(ready[peer.name], ("tcp", "udp"))
                match_listener(reported, "udp", DNS_RELAY_ADDR, port, peer)
                match_listener(reported, "tcp", DNS_RELAY_ADDR, port, peer)
                # One query through it: the path works end to end (takes one RTT).
                wait_dns_answers(peer, DNS_RELAY_ADDR, port, self.args.timeout)
                return DNS_RELAY_ADDR, port
            except WorldError:
                if attempt + 1 == attempts or "address already in use" not in \
                        peer.output().lower():
                    raise
                stop_peers([peer], self.args.grace)
                self.peers.pop()
                self.note("the DNS relay lost a port race; retrying on another port")

    # -- the packet-level link ---------------------------------------------------------------------

    def start_link(self):
        """Packet mode: `netem shell` makes the client namespace behind the emulated link, one
        path per slowed server address (the rest at the default link: --default-rtt-ms), and
        keeps it while this world runs (its command only waits). Fills self.link."""
        if not self.netem:
            raise WorldError("--link packet needs --netem (tools/netem)")
        ready = self.path("run", "link-ready.json")
        stats = self.path("logs", "netem-link-stats.json")
        for f in (ready, stats):
            if os.path.exists(f):
                os.remove(f)
        resolv = self.path("run", "resolv.conf")
        _write(resolv, "# the world's Knot server (tools/world)\nnameserver %s\n"
               "search %s\noptions timeout:2 attempts:2\n" % (DNS_ADDR, DNS_ZONE))
        argv = [self.netem, "shell", "--quiet", "--ready-file", ready, "--stats", stats,
                "--rtt-ms", str(self.args.default_rtt_ms)]
        for addr, rtt in sorted(self.paths.items()):
            argv += ["--path", "%s/32=rtt-ms=%s" % (addr, rtt)]
        argv += self.args.netem_arg
        # The client host's command only holds the namespace: `world.py exec` and --run enter
        # it. netem stops it, and anything else left in there, when the world stops.
        argv += ["--", "sleep", "infinity"]
        peer = Peer("netem-link", "netem", argv, out_path=self.path("logs", "netem-link.out"))
        self.peers.append(peer)
        peer.start()
        deadline = time.monotonic() + self.args.timeout
        while not os.path.exists(ready):
            if not peer.alive():
                raise WorldError(peer.describe_failure("exited before the link was up"))
            if time.monotonic() > deadline:
                raise WorldError(peer.describe_failure("made no link within %.0f s" %
                                                       self.args.timeout))
            time.sleep(0.02)
        with open(ready) as f:
            r = json.load(f)
        self.link_peer = peer
        self.link = {
            "mode": "packet",
            "client_pid": r["pid"],
            "client_address": r["address"],
            "server_side_address": r["peer"],
            "netem_pid": peer.pid,
            "netns_inode": r["netns_inode"],
            "default_rtt_ms": self.args.default_rtt_ms,
            "paths": {addr: {"rtt_ms": rtt} for addr, rtt in sorted(self.paths.items())},
            "resolv_conf": resolv,
            "stats": stats,
            "world_py": os.path.abspath(__file__),
            "exec": "%s exec --world %s -- CMD" % (os.path.abspath(__file__), self.world_json),
        }

    def write_demo_page(self, placeholder=False):
        items = []
        if not placeholder:
            descr = {
                "www": "this page over HTTPS",
                "www_http": "this page over plain HTTP",
                "nginx": "nginx, TLS 1.2/1.3, session cache and tickets",
                "ecdsa": "nginx with a P-256 certificate",
                "static": "static files: CRLs, the intermediate for AIA",
                "slow": "the test server behind netem (%d ms RTT)" % self.args.rtt_ms,
                "slow_http": "plain HTTP behind netem (%d ms RTT): the baseline" % self.args.rtt_ms,
                "tls12": "the test server limited to TLS 1.2",
                "slow12": "TLS 1.2 behind netem (%d ms RTT)" % self.args.rtt_ms,
                "expired": "fails: expired certificate",
                "wrongname": "fails: certificate for other.example.test",
                "untrusted": "fails: certificate from an unknown root",
                "revoked": "fails with revocation checking: revoked certificate (OCSP, CRL)",
                "stapled": "nginx stapling a good OCSP response",
                "revoked-stapled": "nginx stapling a revoked OCSP response: fails, even "
                                   "with revocation checking off",
                "stapled-other": "nginx stapling another certificate's OCSP response",
            }
            for key, o in self.origins.items():
                items.append('<li><a href="%s">%s</a> &mdash; %s</li>' % (
                    html.escape(o["url"]), html.escape(o["url"]), html.escape(descr.get(key, ""))))
                if o["server"] == "nginx" and o["scheme"] == "https":
                    u = o["url"] + "whoami"
                    items.append('<li><a href="%s">%s</a></li>' % (html.escape(u), html.escape(u)))
            if self.ocsp:
                items.append("<li>OCSP: %s (%d ms RTT), the responder for every leaf of the "
                             "intermediate CA</li>" % (html.escape(self.ocsp["url"]),
                                                       self.ocsp["rtt_ms"]))
            if self.bundles:
                items.append("<li>Certificate bundles of %s: DNS TXT _certbundle.HOST, "
                             "http://HOST%s, CDNs %s</li>" % (
                                 html.escape(", ".join(o["host"] for o in
                                                       self.bundles["origins"].values())),
                                 BUNDLE_WELL_KNOWN_PATH,
                                 html.escape(", ".join(self.bundle_cdn_list()) or "none")))
            if self.dns:
                items.append("<li>DNS: %s is served at %s (%d ms RTT) and %s (direct)</li>" % (
                    html.escape(DNS_ZONE), html.escape(self.dns["server"]),
                    self.dns["rtt_ms"], html.escape(self.dns["direct"])))
            for key, why in self.skipped.items():
                what = key.replace("_", " ") if key in ("dns", "bundles") or "_" in key else \
                    key + ".example.test"
                items.append("<li>%s: not running (%s)</li>" % (
                    html.escape(what), html.escape(why)))
        else:
            items.append("<li>(the world is starting)</li>")
        page = pki.fill_template(_read_template("www-index.html.in"), {"LINKS": "\n".join(items)})
        _write(self.path("www", "index.html"), page)

    def write_world_json(self):
        resolve = []
        hosts = {}
        endpoints = list(self.origins.values()) + ([self.ocsp] if self.ocsp else [])
        for host, port, address in [(o["host"], o["port"], o["address"]) for o in endpoints] + \
                self.bundle_endpoints():
            entry = "%s:%d:%s" % (host, port, address)
            if entry not in resolve:
                resolve.append(entry)
            hosts[host] = address
        default = self.origins.get("www") or self.origins.get("nginx")
        p = self.pki
        static = self.origins.get("static")
        crl = {
            # null when static.example.test is not running (no nginx)
            "url": static["url"] + "intermediate.crl" if static else None,
            "root_url": static["url"] + "root.crl" if static else None,
            "embedded_url": pki.CRL_URL,
            "der": p["crl"]["intermediate"]["der"],
            "pem": p["crl"]["intermediate"]["pem"],
            "root_der": p["crl"]["root"]["der"],  # the root's CRL (empty): for CRL checks of
            "root_pem": p["crl"]["root"]["pem"],  # the whole chain (curl --crlfile needs both)
            "revoked_serials": p["revoked_serials"],
            "revoked_host": "revoked." + pki.DOMAIN,
        }
        # The leaves embed default-port URLs (pki.OCSP_URL, pki.CRL_URL, pki.CA_ISSUERS_URL),
        # right only with --fixed-ports: map their prefixes to where the world serves them.
        rewrites = {}
        if self.ocsp and self.ocsp["url"] != pki.OCSP_URL:
            rewrites[pki.OCSP_URL] = self.ocsp["url"]
        static_prefix = "http://static.%s/" % pki.DOMAIN
        if static and static["url"] != static_prefix:
            rewrites[static_prefix] = static["url"]
        rewrites.update(self.bundle_rewrites())
        doc = {
            "dir": self.dir,
            "trust_anchors": p["root"],
            "resolve": resolve,
            "hosts": hosts,
            "origins": self.origins,
            "default_url": default["url"] if default else None,
            "fixed_ports": self.fixed,
            "rtt_ms": self.args.rtt_ms,
            "pids": {pe.name: pe.pid for pe in self.peers},
            "logs": self._logs(),
            "skipped": self.skipped,
            "missing_peers": self.missing_peers,
            "dns": self.dns,
            "ocsp": self.ocsp,
            "crl": crl,
            "url_rewrites": rewrites,
            "bundle_cdns": self.bundle_cdn_list(),
            "bundle_cases": self.bundle_cases,
            "bundles": self.bundles,
            "pki": {
                "dir": p["dir"],
                "manifest": os.path.join(p["dir"], "pki.json"),
                "root": p["root"],
                "intermediate": p["intermediate"],
                "untrusted_root": p["untrusted_root"],
                "crl": p["crl"]["intermediate"]["der"],
                "crl_pem": p["crl"]["intermediate"]["pem"],
                "ocsp": p["ocsp"],
                "revoked_serials": p["revoked_serials"],
            },
            "link": self.link or {"mode": "relay", "why": self.args.relay_reason},
            "world_pid": os.getpid(),
            "startup_seconds": round(self.startup_seconds, 3),
        }
        _write(self.world_json, json.dumps(doc, indent=2) + "\n")

    def _logs(self):
        logs = {}
        for pe in self.peers:
            logs[pe.name] = pe.log_path
            if pe.out_path != pe.log_path:
                logs[pe.name + ".out"] = pe.out_path
        if any(pe.kind == "nginx" for pe in self.peers):
            logs["nginx-access"] = self.path("logs", "nginx-access.log")
        if self.ocsp:
            logs["ocsp-text"] = self.ocsp["text_log"]
        return logs

    # -- while running ----------------------------------------------------------------------------

    def check_peers(self):
        """Warns (once each) about peers that exited while the world was up; restarts a wedged
        OCSP responder."""
        self.tend_ocsp()
        for p in self.peers:
            if not p.reported_exit and p.proc is not None and not p.alive():
                p.reported_exit = True
                log("warning: " + p.describe_failure(
                    "exited unexpectedly (exit code %s)" % p.proc.returncode))

    def stop(self):
        """Stops every peer; returns the names of those that did not stop on their signal."""
        unclean = stop_peers(self.peers, self.args.grace)
        if self.knot_control_dir:
            shutil.rmtree(self.knot_control_dir, ignore_errors=True)
        return unclean


# -- main -----------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Starts the local world (PKI, nginx, test servers, netem relays, DNS, "
        "OCSP) on loopback.",
        epilog="Everything after --run is the command to run.")
    ap.add_argument("--dir", required=True, help="working directory (PKI, configs, logs, "
                    "world.json); created if missing")
    ap.add_argument("--testserver", help="test server binary (absent: its origins are skipped)")
    ap.add_argument("--netem", help="link emulator binary (absent: slow origins are skipped)")
    ap.add_argument("--nginx", help="nginx binary (default: nginx from PATH or /usr/sbin)")
    ap.add_argument("--no-nginx", action="store_true", help="do not start nginx")
    ap.add_argument("--rtt-ms", type=int, default=100, help="RTT netem adds (default 100)")
    ap.add_argument("--link", choices=("packet", "relay", "auto"),
                    default=os.environ.get("NETSTACK_WORLD_LINK") or "auto",
                    help="packet: servers in a network namespace of their own on their "
                    "standard ports, the client in another behind netem shell (a path per "
                    "slowed address; needs root and /dev/net/tun); relay: everything on "
                    "loopback, netem relays in front of the slowed origins (their SYN is not "
                    "delayed); auto (the default, or $NETSTACK_WORLD_LINK): packet where it can run")
    ap.add_argument("--default-rtt-ms", type=float, default=0,
                    help="packet mode: the RTT of every path not slowed on its own (default 0)")
    ap.add_argument("--knotd", help="Knot DNS server binary (default: knotd from PATH or "
                    "/usr/sbin; absent: DNS is skipped)")
    ap.add_argument("--no-dns", action="store_true", help="do not start the DNS server")
    ap.add_argument("--require-dns", action="store_true",
                    help="fail instead of skipping DNS when knotd is not found")
    ap.add_argument("--dns-rtt-ms", type=int, default=40,
                    help="RTT a netem relay adds in front of the DNS server (default 40; 0: no "
                    "relay)")
    ap.add_argument("--ocsp-rtt-ms", type=int, default=0,
                    help="RTT a netem relay on 127.0.0.21 adds in front of the OCSP responder "
                    "(default 0: no relay)")
    ap.add_argument("--no-ocsp", action="store_true", help="do not start the OCSP responder")
    ap.add_argument("--certbundle", help="tools/certbundle binary (absent: no certificate "
                    "bundles are published)")
    ap.add_argument("--no-bundles", action="store_true",
                    help="publish no certificate bundles even with --certbundle")
    ap.add_argument("--cdn-rtt-ms", type=int, default=300,
                    help="RTT a netem relay adds in front of cdn3.example.test, the slow bundle "
                    "CDN (default 300; 0: no relay)")
    ap.add_argument("--fixed-ports", action="store_true",
                    help="listen on 443/80 (53 for DNS, 8888 for OCSP) instead of ephemeral "
                    "ports (use inside unshare -n)")
    ap.add_argument("--timeout", type=float, default=15.0,
                    help="seconds to wait for each group of peers to be ready (default 15)")
    ap.add_argument("--grace", type=float, default=5.0,
                    help="seconds between SIGTERM/SIGQUIT and SIGKILL at teardown (default 5)")
    ap.add_argument("--testserver-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for every testserver (repeatable)")
    ap.add_argument("--netem-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for every netem (repeatable)")
    ap.add_argument("--until-stdin-eof", action="store_true",
                    help="stop when standard input closes (as well as on SIGINT/SIGTERM)")
    ap.add_argument("--quiet", action="store_true", help="only errors on stderr")
    ap.add_argument("--run", nargs=argparse.REMAINDER, metavar="CMD",
                    help="run CMD with NETSTACK_WORLD=<world.json>, then stop; exit with its code")
    args = ap.parse_args(argv)
    args.relay_reason = "--link relay"
    if args.link == "auto":
        why = namespaces.why_not_packet()
        if not why and not args.netem:
            why = "no --netem (the link is netem's)"
        args.link = "relay" if why else "packet"
        if why:
            args.relay_reason = "--link auto: " + why
            if not args.quiet:
                log("the relay world: no packet-level links here (%s)" % why)
    elif args.link == "packet":
        why = namespaces.why_not_packet()
        if why:
            ap.error("--link packet: " + why)
    if args.run is not None and not args.run:
        ap.error("--run needs a command")
    if args.run is not None and args.until_stdin_eof:
        ap.error("--run and --until-stdin-eof do not go together")
    if args.no_dns and (args.require_dns or args.knotd):
        ap.error("--no-dns does not go with --require-dns or --knotd")
    if args.dns_rtt_ms < 0:
        ap.error("--dns-rtt-ms must not be negative")
    if args.ocsp_rtt_ms < 0:
        ap.error("--ocsp-rtt-ms must not be negative")
    if args.no_ocsp and args.ocsp_rtt_ms:
        ap.error("--no-ocsp does not go with --ocsp-rtt-ms")
    if args.cdn_rtt_ms < 0:
        ap.error("--cdn-rtt-ms must not be negative")
    return args


def _raise_stop(signum, frame):
    raise Stop(signum)


def _in_terminal_foreground():
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)


def run_command(world, cmd):
    env = dict(os.environ)
    env["NETSTACK_WORLD"] = world.world_json
    preexec = None
    if world.link:
        link = world.link

        def preexec():
            namespaces.enter_client(link["client_pid"], link["resolv_conf"])
    holder = {"child": None, "pending": []}

    def forward(signum, frame):
        # The command decides how to react to SIGINT/SIGTERM; the world stops once it exits.
        # A terminal's Ctrl-C already reached the command (same foreground process group), so
        # SIGINT is only passed on when it did not come that way.
        if signum == signal.SIGINT and _in_terminal_foreground():
            return
        if holder["child"] is None:
            holder["pending"].append(signum)
            return
        try:
            holder["child"].send_signal(signum)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, forward)
    try:
        child = subprocess.Popen(cmd, env=env, preexec_fn=preexec)
    except OSError as e:
        log("cannot run %s: %s" % (cmd[0], e))
        return 127
    holder["child"] = child
    for signum in holder["pending"]:
        child.send_signal(signum)
    while True:
        try:
            rc = child.wait(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            world.check_peers()
    if rc < 0:
        return 128 - rc
    return rc


def wait_for_stop(world, until_stdin_eof):
    stdin_open = until_stdin_eof
    while True:
        if stdin_open:
            r, _, _ = select.select([sys.stdin.buffer], [], [], 0.5)
            if r:
                data = os.read(sys.stdin.fileno(), 4096)
                if not data:
                    if not world.args.quiet:
                        log("stdin closed; stopping")
                    return
        else:
            time.sleep(0.5)
        world.check_peers()


def exec_main(argv):
    """world.py exec --world FILE -- CMD ARGS: runs CMD as the client host of a running packet
    world (its network namespace, the world's DNS in /etc/resolv.conf), with NETSTACK_WORLD
    set; in a relay world, runs CMD as it is."""
    ap = argparse.ArgumentParser(prog="world.py exec",
                                 description="Runs CMD as the client host of a running world.")
    ap.add_argument("--world", required=True, help="the world's world.json")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("no command (world.py exec --world FILE -- CMD)")
    try:
        with open(args.world) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        log("error: %s: %s (world not running?)" % (args.world, e))
        return 1
    pid = doc.get("world_pid")
    try:
        os.kill(pid, 0)
    except (TypeError, OSError):
        log("error: the world of %s is not running (pid %s); start it with tools/world" % (
            args.world, pid))
        return 1
    link = doc.get("link") or {}
    if link.get("mode") == "packet":
        try:
            namespaces.enter_client(link["client_pid"], link["resolv_conf"])
        except (namespaces.NamespaceError, OSError) as e:
            log("error: cannot enter the client host (world not running?): %s" % e)
            return 1
    os.environ["NETSTACK_WORLD"] = os.path.abspath(args.world)
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        log("cannot run %s: %s" % (cmd[0], e))
        return 127


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["exec"]:
        return exec_main(argv[1:])
    args = parse_args(argv)
    if args.link == "packet":
        # This process becomes the server host: a network namespace of its own with every
        # server address on loopback. The machine's namespace is left as it was.
        global DNS_ADDR, DNS_RELAY_ADDR
        for k in ADDR:
            ADDR[k] = packet_address(ADDR[k])
        DNS_ADDR, DNS_RELAY_ADDR = packet_address(DNS_ADDR), packet_address(DNS_RELAY_ADDR)
        try:
            namespaces.enter_new_network_namespace(sorted(set(ADDR.values()) | {DNS_ADDR}))
        except namespaces.NamespaceError as e:
            log("error: %s" % e)
            return 1
    signal.signal(signal.SIGINT, _raise_stop)
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGHUP, _raise_stop)
    world = None
    ready = False
    rc = 0
    try:
        try:
            world = World(args)
            world.start()
        except (WorldError, pki.PkiError, OSError) as e:
            log("error: %s" % e)
            if world is not None and world.peers:
                log("stopping the peers already started")
            return 1
        ready = True
        if args.run is not None:
            if not args.quiet:
                log("WORLD READY %s" % world.world_json)
            rc = run_command(world, args.run)
        else:
            sys.stdout.write("WORLD READY %s\n" % world.world_json)
            sys.stdout.flush()
            wait_for_stop(world, args.until_stdin_eof)
    except Stop as s:
        if not args.quiet:
            log("stopping on signal %d" % s.signum)
        # A stop request is the normal end once the world is up; during start-up it is not.
        rc = 0 if ready else 128 + s.signum
    except BrokenPipeError:
        rc = 1
    finally:
        # Teardown must not be interrupted by a second signal.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        if world is not None:
            unclean = world.stop()
            if unclean:
                log("error: not stopped cleanly: %s" % ", ".join(unclean))
                if rc == 0:
                    rc = 1
            elif world.peers and not args.quiet:
                log("stopped")
    return rc


if __name__ == "__main__":
    sys.exit(main())
