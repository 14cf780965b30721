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

This file is the CLI and the orchestration (World.start, world.json, the packet link); the
parts are beside it: hosts.py (addresses), peers.py (processes, ports, readiness), origins.py
(test servers and relays), nginx.py, bundles.py (certificate bundles), ocsp.py (responder,
watchdog, staples), dns.py (zone, Knot, DNS messages), filters.py (the revocation filter), pki.py
and namespaces.py.
"""

import argparse
import html
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hosts  # noqa: E402
import namespaces  # noqa: E402
import pki  # noqa: E402
from bundles import BundlesMixin  # noqa: E402
from dns import DnsMixin  # noqa: E402
from filters import RevocationFilterMixin  # noqa: E402
from hosts import (ADDR, HTTP_FIXED_PORT, HTTPS_FIXED_PORT, ORIGIN_ORDER,  # noqa: E402
                   STAPLING_ORIGINS)
from nginx import NginxMixin  # noqa: E402
from ocsp import OcspMixin  # noqa: E402
from origins import OriginsMixin  # noqa: E402
from quic import QuicMixin  # noqa: E402
from peers import WorldError, log, read_template, stop_peers, write_file  # noqa: E402
# Names other code imports from world.py (world_test.py: the DNS message helpers and the bundle
# cases), re-exported from the modules that now hold them.
from bundles import (BAD_TXT_RECORD, BUNDLE_CASES, BUNDLE_WELL_KNOWN_PATH,  # noqa: E402,F401
                     NOT_A_BUNDLE_HTML)
from dns import (DNS_TYPE_A, DNS_TYPE_AAAA, DNS_TYPE_TXT, DNS_ZONE,  # noqa: E402,F401
                 dns_parse_response, dns_query_a, dns_query_packet)
from peers import Peer  # noqa: E402,F401

TEMPLATE_DIR = pki.TEMPLATE_DIR


class Stop(Exception):
    """Raised from the SIGINT/SIGTERM handler."""

    def __init__(self, signum):
        super().__init__("signal %d" % signum)
        self.signum = signum


# -- the world ------------------------------------------------------------------------------------

def connect_to_rule(embedded_url, served_url):
    """The curl --connect-to rule (HOST:PORT::PORT2) that sends the host:port of embedded_url
    (http://host[:port]/...) to the port of served_url on the same host."""
    def host_port(url):
        rest = url.split("://", 1)[1].split("/", 1)[0]
        host, _, port = rest.partition(":")
        return host, int(port) if port else 80
    host, port = host_port(embedded_url)
    served_host, served_port = host_port(served_url)
    if served_host != host:
        raise WorldError("connect-to across hosts: %s -> %s" % (embedded_url, served_url))
    return "%s:%d::%d" % (host, port, served_port)


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


class World(OriginsMixin, NginxMixin, BundlesMixin, OcspMixin, DnsMixin, RevocationFilterMixin,
            QuicMixin):
    """The local world: its PKI, peers and world.json. The parts live in the modules beside
    this one (origins, nginx, bundles, ocsp, dns, filters); start() puts them together in
    order."""

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
        self.ocsp2 = None  # intermediate2's responder (world.json's "ocsp2")
        # The CRLite revocation filter (filters.py), built with tools/revocation_filter.
        self.revocation_filter_tool = None if args.no_revocation_filter else _resolve_binary(
            args.revocation_filter_tool, "--revocation-filter-tool")
        self.revocation_filter = None
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

    def link_path_flags(self):
        """--link-path ORIGIN=FLAGS as {address: [flag, ...]} (netem --path syntax)."""
        out = {}
        for spec in self.args.link_path:
            origin, _, flags = spec.partition("=")
            if origin not in ADDR or not flags:
                raise WorldError("--link-path wants ORIGIN=FLAG[=V],... with ORIGIN one of %s, "
                                 "got %r" % (", ".join(sorted(ADDR)), spec))
            out.setdefault(ADDR[origin], []).extend(flags.split(","))
        return out

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
        # No bundle or filter of an earlier world may be served before this one's are made.
        shutil.rmtree(self.path("bundles"), ignore_errors=True)
        shutil.rmtree(self.path("filters"), ignore_errors=True)
        self.prepare_docroots()
        self.build_revocation_filter()
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
            self.skip(("www", "slow", "tls12", "slow12", "spdy", "expired", "wrongname",
                       "untrusted", "revoked", "uncovered", "ech", "bigchain"),
                      "no --testserver given")

        if self.testserver and self.packet:
            pass  # slow and slow12 are test servers of their own behind a slow path
        elif self.testserver and self.netem:
            self.start_netems()
        elif self.testserver:
            self.skip(("slow", "slow12"), "no --netem given")

        # HTTP/3: Caddy's h3 origin, and bigchain's UDP side beside its testserver.
        self.start_quic_origins()

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
                         (p["crl"]["intermediate2"]["der"], "intermediate2.crl"),
                         (p["intermediate2_der"], "intermediate2.der"),
                         (p["root"], "root.pem")):
            shutil.copyfile(src, self.path("static", dst))
            os.chmod(self.path("static", dst), 0o644)
        write_file(self.path("nginx", "html", "index.html"), read_template("nginx-index.html.in"))
        self.write_demo_page(placeholder=True)


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
        write_file(resolv, "# the world's Knot server (tools/world)\nnameserver %s\n"
               "search %s\noptions timeout:2 attempts:2\n" % (hosts.DNS_ADDR, DNS_ZONE))
        argv = [self.netem, "shell", "--quiet", "--ready-file", ready, "--stats", stats,
                "--rtt-ms", str(self.args.default_rtt_ms)]
        extra = self.link_path_flags()
        for addr in sorted(set(self.paths) | set(extra)):
            flags = ["rtt-ms=%s" % self.paths.get(addr, self.args.default_rtt_ms)]
            argv += ["--path", "%s/32=%s" % (addr, ",".join(flags + extra.get(addr, [])))]
        for kv in self.args.sysctl:
            argv += ["--sysctl", kv]  # the client's namespace (the server's: main())
        if self.args.initcwnd:
            argv += ["--initcwnd", str(self.args.initcwnd),
                     "--outer-initcwnd", str(self.args.initcwnd)]
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
            "sysctls": self.args.sysctl,
            "initcwnd": self.args.initcwnd,
            "paths": {addr: dict({"rtt_ms": self.paths.get(addr, self.args.default_rtt_ms)},
                                 **({"flags": extra[addr]} if addr in extra else {}))
                      for addr in sorted(set(self.paths) | set(extra))},
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
                "spdy": "the test server speaking SPDY/3 (ALPN spdy/3; fetch --spdy)",
                "expired": "fails: expired certificate",
                "wrongname": "fails: certificate for other.example.test",
                "untrusted": "fails: certificate from an unknown root",
                "revoked": "fails with revocation checking: revoked certificate (OCSP, CRL, "
                           "the revocation filter)",
                "uncovered": "issued by a CA the revocation filter does not cover: OCSP on "
                             "port 8889",
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
        page = pki.fill_template(read_template("www-index.html.in"), {"LINKS": "\n".join(items)})
        write_file(self.path("www", "index.html"), page)

    def write_world_json(self):
        resolve = []
        hosts = {}
        endpoints = list(self.origins.values()) + ([self.ocsp] if self.ocsp else []) + \
            ([self.ocsp2] if self.ocsp2 else [])
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
        # right as they are with fixed ports (the packet world): elsewhere curl --connect-to
        # rules send their host:port where the world serves them (the URL, and so the Host
        # header and what is fetched, stay as the certificate says).
        connect_to = []
        if self.ocsp and self.ocsp["url"] != pki.OCSP_URL:
            connect_to.append(connect_to_rule(pki.OCSP_URL, self.ocsp["url"]))
        if self.ocsp2 and self.ocsp2["url"] != pki.OCSP2_URL:
            connect_to.append(connect_to_rule(pki.OCSP2_URL, self.ocsp2["url"]))
        static_prefix = "http://static.%s/" % pki.DOMAIN
        if static and static["url"] != static_prefix:
            connect_to.append(connect_to_rule(static_prefix, static["url"]))
        connect_to += self.bundle_connect_to()
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
            "ocsp2": self.ocsp2,
            "crl": crl,
            "revocation_filter": self.revocation_filter_json(),
            "connect_to": connect_to,
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
        write_file(self.world_json, json.dumps(doc, indent=2) + "\n")

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
        if self.ocsp2:
            logs["ocsp2-text"] = self.ocsp2["text_log"]
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
    ap.add_argument("--sysctl", action="append", default=[], metavar="KEY=VALUE",
                    help="packet mode: a sysctl of both the server's and the client's "
                    "namespace (repeatable; e.g. net.ipv4.tcp_fastopen=0x607); never the "
                    "machine's")
    ap.add_argument("--link-path", action="append", default=[], metavar="ORIGIN=FLAG[=V],...",
                    help="packet mode: more netem link flags on the path of ORIGIN's address "
                    "(repeatable; e.g. slow12=drop-syn-data, tls12=duplicate-syn=300: a "
                    "middlebox that drops, or a network that replays, SYNs carrying data)")
    ap.add_argument("--initcwnd", type=int, metavar="N",
                    help="packet mode: the initial congestion window (segments) of the "
                    "server's route to the client and the client's default route")
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
    ap.add_argument("--no-quic", action="store_true",
                    help="no HTTP/3: neither the h3 origin (Caddy) nor bigchain's UDP side "
                         "(gtlsserver)")
    ap.add_argument("--certbundle", help="tools/certbundle binary (absent: no certificate "
                    "bundles are published)")
    ap.add_argument("--no-bundles", action="store_true",
                    help="publish no certificate bundles even with --certbundle")
    ap.add_argument("--revocation-filter-tool", metavar="BIN",
                    help="tools/revocation_filter binary: builds the world's CRLite revocation "
                    "filter (absent: none is built)")
    ap.add_argument("--no-revocation-filter", action="store_true",
                    help="build no revocation filter even with --revocation-filter-tool")
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
    for kv in args.sysctl:
        key, eq, _ = kv.partition("=")
        if not eq or not key or "/" in key or ".." in key:
            ap.error("--sysctl wants KEY=VALUE, got %r" % kv)
    if args.initcwnd is not None and not 1 <= args.initcwnd <= 1000:
        ap.error("--initcwnd wants 1 to 1000 segments")
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
        # A reused pid would be another process's namespace: the holder must still be the one
        # the world made.
        if namespaces.netns_inode(link["client_pid"]) != link.get("netns_inode"):
            log("error: the client host of %s is gone (world not running?)" % args.world)
            return 1
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
        hosts.use_packet_addresses()
        try:
            namespaces.enter_new_network_namespace(sorted(set(ADDR.values()) | {hosts.DNS_ADDR}))
            # TCP Fast Open, client and server (RFC 7413), for the servers that ask for it
            # on their listeners (a --sysctl of the same key overrides it).
            namespaces.set_sysctl("net.ipv4.tcp_fastopen", "3")
            for kv in args.sysctl:
                key, _, value = kv.partition("=")
                namespaces.set_sysctl(key, value)  # the server's namespace: this process's
        except (namespaces.NamespaceError, OSError) as e:
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
