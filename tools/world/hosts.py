"""The local world's hosts: the address of each origin, the fixed ports, the origins that staple
an OCSP response or announce a Snap Start orbit, and the order world.json lists origins in.

ADDR and the DNS addresses are loopback (127.0.0.N) in the relay world; use_packet_addresses()
turns them into 198.18.0.N for the packet world before anything starts. Read DNS_ADDR and
DNS_RELAY_ADDR as hosts.DNS_ADDR (not imported by name): they are rebound then.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

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
    # SPDY/3 (a testserver with --spdy; `fetch --spdy` there uses spdy/3).
    "spdy": "127.0.0.29",
    # A leaf of intermediate2, the CA the world's revocation filter does not cover.
    "uncovered": "127.0.0.30",
    # Encrypted ClientHello (a testserver with --ech-key and --http2): its DNS HTTPS record
    # carries its ECH configuration (dns.py); ECH_NAMES share its address.
    "ech": "127.0.0.31",
    # HTTP/3 over QUIC (quic.py): Caddy on UDP and TCP (the fallback) of one port, behind the
    # same link profile as `slow`.
    "h3": "127.0.0.32",
    # A certificate chain over QUIC's anti-amplification limit (3 x the client's 1200-byte
    # Initial): a testserver on TCP (Snap Start, TLS 1.3) and ngtcp2's gtlsserver on UDP, one
    # port, one chain, behind the same link profile as `slow`.
    "bigchain": "127.0.0.33",
}

# The packet-level world (--link packet) puts each origin on 198.18.0.N, N the last byte of
# its loopback address above, in a server namespace of its own (tools/world/namespaces.py).
PACKET_PREFIX = "198.18.0."


def packet_address(loopback):
    return PACKET_PREFIX + loopback.rsplit(".", 1)[1]


def use_packet_addresses():
    """Moves every address to 198.18.0.N (packet_address): ADDR in place, DNS_ADDR and
    DNS_RELAY_ADDR rebound. For the packet world, before anything starts."""
    global DNS_ADDR, DNS_RELAY_ADDR
    for k in ADDR:
        ADDR[k] = packet_address(ADDR[k])
    DNS_ADDR, DNS_RELAY_ADDR = packet_address(DNS_ADDR), packet_address(DNS_RELAY_ADDR)


# OCSP stapling: nginx origins with `ssl_stapling on; ssl_stapling_file FILE;`. Origin key
# (= host label and ADDR key) -> (leaf fixture, the fixture whose OCSP response is stapled,
# that response's status, what a client checking revocation sees). The responses are made at
# world start by `openssl ocsp -index ... -respout` without the responder (so no request
# reaches it), into DIR/staples/<host>.der, nextUpdate ocsp.STAPLE_NEXT_UPDATE_DAYS after
# thisUpdate (ocsp.py makes them).
STAPLING_ORIGINS = {
    "stapled": ("stapled", "stapled", "good", "ok"),
    "revoked-stapled": ("revoked", "revoked", "revoked", "revoked"),
    # A good response for another certificate (www's leaf): a client must ignore it.
    "stapled-other": ("stapled", "www", "good", "ok"),
}

# DNS (Knot DNS): the authoritative server of example.test and the netem relay in front of it.
DNS_ADDR = "127.0.0.53"
DNS_RELAY_ADDR = "127.0.0.54"

# Snap Start orbits of the testservers that announce one (RSA leaves only: static RSA).
SNAP_START_ORBITS = {"www": "0102030405060708", "slow": "1112131415161718",
                     "tls12": "2122232425262728", "bigchain": "3132333435363738"}

# TCP Fast Open of the testservers' HTTPS listeners in the packet world (the others:
# "cookie"): the Snap Start origins take SYN data without a cookie and publish it in their
# certificate bundles (certbundle make --tcp-fast-open-no-cookie).
FAST_OPEN_ORIGINS = {"slow": "no-cookie", "slow12": "no-cookie", "tls12": "no-cookie",
                     "www": "no-cookie", "bigchain": "no-cookie"}

# Test-server origins that speak SPDY/3 (testserver --spdy: ALPN spdy/3 before http/1.1, so
# `fetch --spdy` gets a SPDY/3 session there and any other client HTTP/1.1).
SPDY_ORIGINS = {"spdy"}

# The ECH origin's configuration's public name (the outer ClientHello's server_name, which a
# rejection is authenticated as: its certificate covers it), and the other names on its
# address, each with an HTTPS record of its own (dns.py https_records): a stale ECH
# configuration (for a key the server does not hold: it rejects it and hands out its own), an
# AliasMode record to ech.example.test, a malformed record (a truncated SvcParam: the client
# ignores the RRSet), h3 only (no-default-alpn: no protocol a TCP client speaks) and an
# endpoint nothing listens on (port 1: the client falls back to the origin's own).
ECH_PUBLIC_NAME = "public.example.test"
ECH_NAMES = ["stale-ech", "alias-ech", "badrr", "h3only", "deadrr"]

# The order origins are listed in (world.json, the demo page).
ORIGIN_ORDER = ["www", "www_http", "nginx", "ecdsa", "static", "slow", "slow_http", "tls12",
                "slow12", "spdy", "ech", "h3", "bigchain",
                "expired", "wrongname", "untrusted", "revoked"] + list(STAPLING_ORIGINS) + \
    ["uncovered"]
