"""The world's nginx: its configuration (nginx.example.test, ecdsa.example.test,
static.example.test, the OCSP-stapling origins, the certificate-bundle listeners) and its start,
retried on fresh ports when it loses a port race (NginxMixin, part of World).
"""

import grp
import os
import pwd
import signal
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pki  # noqa: E402
from hosts import ADDR, STAPLING_ORIGINS  # noqa: E402
from peers import (Peer, WorldError, pick_free_ports, read_template, stop_peers,  # noqa: E402
                   wait_connectable, write_file)


def nobody_can_reach(path):
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


class NginxMixin:
    """World's nginx part (uses World's args, paths, peers, origins, staples and bundle
    listeners)."""

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
            if nobody_can_reach(self.dir):
                user_line = "user nobody %s;" % self._nobody_group()
            else:
                # The docroots are under a directory `nobody` cannot enter (e.g. Bazel's test
                # tmpdir under /root): run the workers as root instead.
                user_line = "user root root;"
                self.note("nginx workers run as root: %s is not reachable by nobody" % self.dir)
        conf = pki.fill_template(read_template("nginx.conf.in"), {
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
        write_file(conf_path, conf)
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

    def stapling_nginx_servers(self, ports):
        """The nginx server blocks of the OCSP-stapling origins (templates/nginx-stapling.conf.in)."""
        self.make_staples()
        blocks = []
        for key, port in ports.items():
            fixture, staple_for, status, _ = STAPLING_ORIGINS[key]
            chain, keyfile = self.host_files(fixture)
            host = "%s.%s" % (key, pki.DOMAIN)
            blocks.append(pki.fill_template(read_template("nginx-stapling.conf.in"), {
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
            blocks.append(pki.fill_template(read_template("nginx-well-known.conf.in"), {
                "HOST": l["host"], "ADDR": l["address"], "PORT": l["nginx_port"],
                "ROOT": self.path("bundles", "well-known", l["host"]), "NOTE": note,
            }).rstrip("\n"))
        cdn3 = self.bundle_listeners["cdn3"]
        blocks.append(pki.fill_template(read_template("nginx-cdns.conf.in"), {
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
