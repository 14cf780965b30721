"""The world's certificate bundles (prefetch/cert_bundle, made with tools/certbundle): the Snap
Start origins' bundles in DNS TXT records, on their well-known path and on the CDNs, the spoofed
and broken cases (BUNDLE_CASES), and the netem relays in front of the slow bundle listeners
(BundlesMixin, part of World). See README.md, *Certificate bundles*.
"""

import base64
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pki  # noqa: E402
from hosts import ADDR, HTTP_FIXED_PORT, ORIGIN_ORDER  # noqa: E402
from peers import (Peer, WorldError, log, match_listener, parse_listening,  # noqa: E402
                   wait_ready_lines, write_bytes, write_file)

# Certificate bundles (prefetch/cert_bundle, made with tools/certbundle; see README.md). The
# Snap Start origins publish theirs through DNS TXT, the well-known path and the CDNs; the
# spoofed and broken ones (BUNDLE_CASES) sit on other hosts so the positive ones stay clean.
BUNDLE_ORIGINS = ["www", "slow", "tls12"]
# Snap Start origins whose bundle is only on the CDNs (and the truncated handshake): bigchain,
# whose 5 KB chain would make a TXT record of ~7 KB.
BUNDLE_CDN_ONLY_ORIGINS = ["bigchain"]
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


class BundlesMixin:
    """World's certificate-bundle part (uses World's args, paths, peers, origins and notes)."""

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
                continue  # served by the origin's own test server on port 80
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

    def certbundle_make(self, host, port, chain, orbit, fmt, no_cookie=False):
        args = ["make", "--host", host, "--port", str(port), "--chain", chain, "--format", fmt,
                "--created", str(self.bundle_created)]
        if orbit:
            args += ["--orbit", orbit]
        if no_cookie:
            args += ["--tcp-fast-open-no-cookie"]
        return self.run_certbundle(args)

    def write_txt_record(self, owner_host, strings):
        """Queues the TXT record _certbundle.<owner_host> for the zone and writes it as
        `certbundle make --format txt` prints it (the name, then one string a line) to
        bundles/txt/<owner_host>.txt (input for `certbundle inspect`). Returns its
        world.json description."""
        name = BUNDLE_TXT_PREFIX + owner_host
        path = self.path("bundles", "txt", owner_host + ".txt")
        write_file(path, "\n".join([name] + strings) + "\n")
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
        write_file(ext, "basicConstraints = critical, CA:FALSE\n"
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
            write_file(chain, a.read() + b.read())
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
            write_bytes(os.path.join(cdn_dir, host + ".crt"), data)

        origins = {}
        txt_of = {}
        for key in BUNDLE_ORIGINS + BUNDLE_CDN_ONLY_ORIGINS:
            o = self.origins.get(key)
            if o is None:
                continue
            cdn_only = key in BUNDLE_CDN_ONLY_ORIGINS
            host, port, orbit = o["host"], o["port"], o["snap_start_orbit"]
            # The origin's server takes SYN data without a cookie: its bundles say so.
            nc = o.get("tcp_fast_open") == "no-cookie"
            file_bytes = self.certbundle_make(host, port, o["cert_chain"], orbit, "cdn", nc)
            write_cdn_file(host, file_bytes)
            sources = {}
            if dns and not cdn_only:
                if key in BUNDLE_POINTER_ORIGINS and http:
                    url = cdn_urls(host)[0]
                    name, strings = self.parse_txt_output(
                        self.run_certbundle(["pointer", "--host", host, "--url", url]))
                    sources["dns"] = dict(self.write_txt_record(host, strings), form="pointer",
                                          url=url)
                else:
                    name, strings = self.parse_txt_output(
                        self.certbundle_make(host, port, o["cert_chain"], orbit, "txt", nc))
                    txt_of[key] = strings
                    sources["dns"] = dict(self.write_txt_record(host, strings), form="bundle")
            if http and not cdn_only:
                wk = L.get("well-known-" + key) or self.origin_well_known_listener(key)
                write_bytes(self.path("bundles", "well-known", host,
                                       BUNDLE_WELL_KNOWN_PATH.lstrip("/")),
                             self.certbundle_make(host, port, o["cert_chain"], orbit,
                                                  "well-known", nc))
                sources["well-known"] = {
                    "url": "http://%s%s" % (host, BUNDLE_WELL_KNOWN_PATH),
                    "rtt_ms": wk["rtt_ms"], "address": wk["address"], "port": wk["port"],
                    "process": wk["process"]}
                sources["cdn"] = {"urls": cdn_urls(host)}
            elif http:
                sources["cdn"] = {"urls": cdn_urls(host)}
            sources["truncated"] = {"address": o["address"], "port": port}
            origins[key] = {
                "host": host, "port": port, "address": o["address"], "orbit": orbit,
                "cipher_suite": "0x%04x" % 0x009c, "chain": o["cert_chain"],
                "tcp_fast_open_no_cookie": nc,
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
                # As the origin publishes it (the Fast Open flag included), but the orbit.
                nc = o.get("tcp_fast_open") == "no-cookie"
                c.update(self.write_txt_record(host, self.parse_txt_output(
                    self.certbundle_make(host, port, chain, BUNDLE_STALE_ORBIT, "txt", nc))[1]))
                c["tcp_fast_open_no_cookie"] = nc
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

    def origin_well_known_file(self, key):
        """Packet world: (path, file) the origin's test server serves its bundle from, on its
        port 80; None elsewhere (nginx serves the well-known paths)."""
        if not self.packet or key not in BUNDLE_ORIGINS:
            return None
        host = key + "." + pki.DOMAIN
        return (BUNDLE_WELL_KNOWN_PATH,
                self.path("bundles", "well-known", host, BUNDLE_WELL_KNOWN_PATH.lstrip("/")))

    def origin_well_known_listener(self, key):
        """The packet world's well-known listener of origin `key`: its test server's port 80."""
        o = self.origins[key]
        return {"rtt_ms": o.get("rtt_ms", 0), "address": o["address"],
                "port": self.origin_http_ports[key], "process": "testserver-" + key}

    def bundle_cdn_list(self):
        return [c["base"] for c in self.bundles["cdns"].values()] if self.bundles else []

    def bundle_connect_to(self):
        """curl --connect-to rules for the bundle URLs (http://HOST/..., port 80): each CDN and
        each well-known listener not on port 80. With --fixed-ports in the relay world port 80
        of www and slow is their plain-HTTP origin's, so their well-known paths (on 8080)
        get no rule: a client there cannot use the well-known source (noted)."""
        rules = []
        if not self.bundles:
            return rules
        for c in self.bundles["cdns"].values():
            if c["port"] != HTTP_FIXED_PORT:
                rules.append("%s:%d::%d" % (c["host"], HTTP_FIXED_PORT, c["port"]))
        for o in self.bundles["origins"].values():
            wk = o["sources"].get("well-known")
            if not wk or wk["port"] == HTTP_FIXED_PORT:
                continue
            if self.fixed:
                self.note("%s's well-known bundle is on port %d (port 80 is its plain-HTTP "
                          "origin's): clients reach it only with that port" % (
                              o["host"], wk["port"]))
                continue
            rules.append("%s:%d::%d" % (o["host"], HTTP_FIXED_PORT, wk["port"]))
        return rules

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

