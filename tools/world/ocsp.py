"""The world's OCSP: the `openssl ocsp` responder of the intermediate CA with its relay and its
watchdog (OcspMixin, part of World), intermediate2's responder, the responses nginx staples, and
an OCSP client query.
"""

import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pki  # noqa: E402
from hosts import ADDR, STAPLING_ORIGINS  # noqa: E402
from peers import (Peer, WorldError, cpu_seconds, log, match_listener,  # noqa: E402
                   parse_listening, stop_peers, wait_ready_lines)

# OCSP: `openssl ocsp` as the responder of the intermediate CA (it binds every address: *:PORT).
OCSP_FIXED_PORT = 8888  # the port in the leaves' AIA URL (pki.OCSP_URL)
OCSP2_FIXED_PORT = 8889  # intermediate2's responder (pki.OCSP2_URL)
OCSP_NEXT_UPDATE_MIN = 5  # -nmin: responses carry nextUpdate = thisUpdate + 5 minutes
OCSP_LOG_MARKER = "Received request, 1st line: "  # one such line in logs/ocsp.log per request
# The watchdog (see World.tend_ocsp): the responder is wedged when over a window of at least
# this many seconds it burned this share of a CPU without logging anything.
OCSP_WEDGE_WINDOW = 1.0
OCSP_WEDGE_CPU_SHARE = 0.3

STAPLE_NEXT_UPDATE_DAYS = 1


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


def ocsp_query(openssl, issuer, root, serial, url, timeout=5, untrusted=None):
    """Asks the responder at url for the status of serial (hex, no 0x) with the openssl client,
    verifying the response against root. Returns (status or None, the client's output)."""
    arg = "0x" + serial
    try:
        r = subprocess.run([openssl, "ocsp", "-issuer", issuer, "-serial", arg, "-url", url,
                            "-CAfile", root, "-timeout", str(int(max(1, timeout)))] +
                           (["-verify_other", untrusted] if untrusted else []),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout + 5)
    except subprocess.TimeoutExpired:
        return None, "no answer within %d s" % (timeout + 5)
    m = re.search(r"^%s: (\w+)" % re.escape(arg), r.stdout, re.M | re.I)
    if r.returncode != 0 or not m or "Response verify OK" not in r.stdout:
        return None, r.stdout.strip()
    return m.group(1), r.stdout.strip()


class OcspMixin:
    """World's OCSP part: the responder, its relay, the watchdog and the staples (uses World's
    args, paths, peers and notes; restart_ocsp rewrites world.json)."""

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
        self.start_ocsp2()

    # intermediate2's responder: `openssl ocsp` again (one responder answers for one signer),
    # signing with the CA's own key, on port 8889 of the same address (it binds every address;
    # no relay of its own: in the packet world the address's path has --ocsp-rtt-ms anyway).
    # One request per log line in logs/ocsp2.log, like the first.
    def start_ocsp2(self):
        p = self.pki
        o = p["ocsp2"]
        addr = ADDR["ocsp"]
        port = OCSP2_FIXED_PORT if self.fixed else 0
        log_path = self.path("logs", "ocsp2.log")
        text_log = self.path("logs", "ocsp2-text.log")
        argv = [self.openssl, "ocsp", "-index", o["index"], "-CA", o["ca"],
                "-rsigner", o["signer"], "-rkey", o["signer_key"],
                "-nmin", str(OCSP_NEXT_UPDATE_MIN), "-ignore_err",
                "-text", "-out", text_log, "-port", str(port)]
        peer = Peer("ocsp2", "ocsp", argv, out_path=log_path)
        self.peers.append(peer)
        peer.start()
        port = wait_accept_line(peer, self.args.timeout)
        serial = p["hosts"][pki.host_dir_name("uncovered")]["serial"]
        url = "http://%s:%d/" % (addr, port)
        deadline = time.monotonic() + self.args.timeout
        while True:
            if not peer.alive():
                raise WorldError(peer.describe_failure(
                    "exited during start-up (exit code %s)" % peer.proc.returncode))
            got, out = ocsp_query(self.openssl, o["ca"], p["root"], serial, url,
                                  timeout=max(1, min(5, deadline - time.monotonic())),
                                  untrusted=o["ca"])
            if got == "good":
                break
            if got is not None or time.monotonic() > deadline:
                raise WorldError(peer.describe_failure(
                    "did not answer good for uncovered's serial 0x%s at %s (got: %s)" % (
                        serial, url, got or out.replace("\n", " | "))))
            time.sleep(0.05)
        self.ocsp2 = {
            "url": "http://ocsp.%s:%d/" % (pki.DOMAIN, port),
            "embedded_url": pki.OCSP2_URL,
            "host": "ocsp." + pki.DOMAIN,
            "address": addr,
            "port": port,
            "direct": "%s:%d" % (addr, port),
            "process": "ocsp2",
            "log": log_path,
            "log_marker": OCSP_LOG_MARKER,
            "text_log": text_log,
            "startup_requests": 1,
            "index": o["index"],
            "ca": o["ca"],
            "signer": o["signer"],
            "good_serial": serial,
            "good_host": "uncovered." + pki.DOMAIN,
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

