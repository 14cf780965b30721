#!/usr/bin/env python3
"""Integration test of tools/world: starts real worlds and checks them with stock clients.

- NginxWorldTest: world.py with nginx only (no --testserver/--netem). nginx.example.test over
  TLS 1.2 and 1.3 with a chain that verifies against root.pem (openssl s_client, curl), session
  resumption, the client-certificate fingerprint, ecdsa.example.test, static.example.test serving
  the CRL; the PKI fixtures fail `openssl verify` for the right reasons; the CRL and an OCSP
  response list the revoked leaf; the leaves' CRL and OCSP URLs through world.json's
  url_rewrites; teardown on stdin EOF leaves no nginx and no `openssl ocsp` process behind.
- FullWorldTest: world.py --run with the stand-in test server and netem (testing/), every origin
  (revoked.example.test fails only with the CRL given to curl).
- OcspWorldTest: the `openssl ocsp` responder behind the stand-in netem relay: good and revoked
  answers verified against root.pem, the relay's RTT, its log counting requests, surviving a
  malformed request, the watchdog restarting it after a bare connect wedged it, teardown.
- StartupFailureTest: a peer that fails to start gives exit code 1, names the peer and its log,
  and stops what had started.
- DnsWorldTest: Knot DNS serving example.test (kdig): A/AAAA/TXT records and TTLs, the 3.5 KB
  TXT record over UDP with EDNS, truncated without it and whole over TCP, NXDOMAIN with the SOA,
  the netem relay adding its RTT over UDP and TCP, no knotd after teardown (needs knotd and
  kdig, Debian packages knot and knot-dnsutils).
- BundleWorldTest: the certificate bundles (tools/certbundle) of the Snap Start origins (www,
  slow, tls12) through each source: Knot's _certbundle TXT records (the full bundle, the
  pointer), nginx's well-known paths (slow's behind its relay) and the CDNs (cdn1 serves, cdn2
  404, cdn3 slow), each decoding to its host, port and orbit (`certbundle inspect`); the
  truncated-handshake origins; every broken case broken as world.json says; teardown.
- NamespaceTest: --fixed-ports inside `unshare -n` (skipped where unshare is not allowed).

A test whose peer is missing fails, naming the peer and its Debian package: tools/setup.sh
installs them all, so a skip in CI would hide a defect. NETSTACK_ALLOW_MISSING_PEERS=1 (for
local runs on a machine without them) turns those failures into skips.

Needs openssl, curl and nginx (Debian packages), and the certbundle binary (//tools/certbundle:
in the runfiles under Bazel, else bazel-bin/tools/certbundle/certbundle; a test that needs it
fails without it). Run: bazel test //tools/world:world_test or python3 tools/world/world_test.py.
"""

import atexit
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
WORLD = os.path.join(HERE, "world.py")
# These tests drive the relay world with stand-in binaries (testing/); the packet-level world
# has a test of its own (world_packet_test.py).
os.environ.setdefault("NETSTACK_WORLD_LINK", "relay")
FAKE_TESTSERVER = os.path.join(HERE, "testing", "fake_testserver.py")
FAKE_NETEM = os.path.join(HERE, "testing", "fake_netem.py")

STARTUP_TIMEOUT = 60

sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import world as world_py  # noqa: E402  (its DNS message helpers and constants)


def which(name):
    return shutil.which(name) or next(
        (p for p in ("/usr/sbin/" + name, "/sbin/" + name) if os.access(p, os.X_OK)), None)


NGINX = which("nginx")
CURL = which("curl")
OPENSSL = which("openssl")
KNOTD = which("knotd")
KNOTC = which("knotc")
KDIG = which("kdig")
GTLSCLIENT = which("gtlsclient")  # ngtcp2-client: an HTTP/3 client for the world's h3 origins


def _find_certbundle():
    for p in (os.environ.get("CERTBUNDLE"),
              os.path.join(HERE, "..", "certbundle", "certbundle"),  # Bazel runfiles
              os.path.join(HERE, "..", "..", "bazel-bin", "tools", "certbundle", "certbundle")):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.abspath(p)
    return None


CERTBUNDLE = _find_certbundle()


def _find_revocation_filter():
    for p in (os.environ.get("REVOCATION_FILTER"),
              os.path.join(HERE, "..", "revocation_filter", "revocation_filter"),  # runfiles
              os.path.join(HERE, "..", "..", "bazel-bin", "tools", "revocation_filter",
                           "revocation_filter")):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.abspath(p)
    return None


REVOCATION_FILTER = _find_revocation_filter()


def revocation_filter_bin():
    """The revocation_filter binary; a test that needs it fails (not skips) without it."""
    if not REVOCATION_FILTER:
        raise AssertionError(
            "the revocation_filter binary was not found (not in the runfiles, not in "
            "bazel-bin/tools/revocation_filter, no $REVOCATION_FILTER): bazel build "
            "//tools/revocation_filter")
    return REVOCATION_FILTER

# tools/setup.sh installs every peer, so in CI a test that cannot run for want of one is a defect,
# not a skip: it fails, naming the peer. NETSTACK_ALLOW_MISSING_PEERS=1 (a local run on a machine
# without them) skips it instead.
ALLOW_MISSING_PEERS = os.environ.get("NETSTACK_ALLOW_MISSING_PEERS") == "1"
PEER_PACKAGES = {"nginx": "nginx", "curl": "curl", "openssl": "openssl", "knotd": "knot",
                 "knotc": "knot", "kdig": "knot-dnsutils"}


def needs(*peers):
    """Decorates a test class or method that needs |peers| (names from PEER_PACKAGES): without
    one of them it fails, naming it (or is skipped with NETSTACK_ALLOW_MISSING_PEERS=1)."""
    found = {"nginx": NGINX, "curl": CURL, "openssl": OPENSSL, "knotd": KNOTD, "knotc": KNOTC,
             "kdig": KDIG}
    missing = [p for p in peers if not found[p]]
    if not missing:
        return lambda obj: obj
    why = "missing peer%s: %s (Debian package%s %s; tools/setup.sh installs them)" % (
        "s" if len(missing) > 1 else "", ", ".join(missing), "s" if len(missing) > 1 else "",
        ", ".join(sorted({PEER_PACKAGES[p] for p in missing})))
    if ALLOW_MISSING_PEERS:
        return unittest.skip(why + "; skipped because NETSTACK_ALLOW_MISSING_PEERS=1")

    def fail(obj):
        if isinstance(obj, type):
            def set_up_class(cls):
                raise AssertionError(why)
            obj.setUpClass = classmethod(set_up_class)
            return obj

        def test(self, *args, **kwargs):
            self.fail(why)
        test.__name__ = obj.__name__
        test.__doc__ = obj.__doc__
        return test
    return fail


def certbundle_bin():
    """The certbundle binary; a test that needs it fails (not skips) without it."""
    if not CERTBUNDLE:
        raise AssertionError(
            "the certbundle binary was not found (not in the runfiles, not in "
            "bazel-bin/tools/certbundle, no $CERTBUNDLE): bazel build //tools/certbundle")
    return CERTBUNDLE


def make_tmpdir(tag):
    base = os.environ.get("TEST_TMPDIR")
    d = tempfile.mkdtemp(prefix="world_%s_" % tag, dir=base)
    if not base:  # outside Bazel: clean up after ourselves
        atexit.register(shutil.rmtree, d, True)
    return d


def run(args, input=None, timeout=30, check=False):
    r = subprocess.run(args, input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    if check and r.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(args), r.returncode, out, err))
    return r.returncode, out, err


def pid_alive(pid):
    """True if pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def processes_mentioning(text):
    """PIDs of live processes whose command line contains text."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmd and pid_alive(int(entry)):
            found.append((int(entry), cmd))
    return found


def children_of(pid):
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


class WorldProcess:
    """world.py --until-stdin-eof as a child; stop() closes its stdin and waits."""

    def __init__(self, directory, extra_args=()):
        self.dir = directory
        self.err_path = os.path.join(directory + ".stderr")
        self.err = open(self.err_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, WORLD, "--dir", directory, "--until-stdin-eof"] + list(extra_args),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err)
        line = self._read_ready_line()
        m = re.match(r"WORLD READY (\S+)$", line.strip())
        if not m:
            self.stop()
            raise AssertionError("world did not get ready: %r\nstderr:\n%s" % (line, self.stderr()))
        with open(m.group(1)) as f:
            self.world = json.load(f)
        self.world_json = m.group(1)

    def _read_ready_line(self):
        import select
        deadline = time.monotonic() + STARTUP_TIMEOUT
        buf = b""
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if r:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                buf += chunk
                if b"\n" in buf:
                    return buf.decode()
            elif self.proc.poll() is not None:
                break
        return buf.decode()

    def stderr(self):
        if not self.err.closed:
            self.err.flush()
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def stop(self, timeout=30):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("world.py did not exit within %d s of stdin EOF" % timeout)
        self.proc.stdout.close()
        self.err.close()
        return self.proc.returncode


def curl_args(world, extra=()):
    args = [CURL, "-sS", "--max-time", "20", "--cacert", world["trust_anchors"]]
    for r in world["resolve"]:
        args += ["--resolve", r]
    return args + list(extra)


def ocsp_query(world, serial, url, *extra):
    """`openssl ocsp` as a client: the status of serial (hex) at url, the response verified
    against the trust anchor. Returns (rc, output, seconds)."""
    t = time.monotonic()
    rc, out, err = run([OPENSSL, "ocsp", "-issuer", world["pki"]["intermediate"], "-serial",
                        "0x" + serial, "-url", url, "-CAfile", world["trust_anchors"],
                        "-timeout", "10"] + list(extra))
    return rc, out + err, time.monotonic() - t


def ocsp_requests_logged(world):
    with open(world["ocsp"]["log"], errors="replace") as f:
        return f.read().count(world["ocsp"]["log_marker"])


def rewrite_url(world, url):
    """Where a client connects for a URL from a certificate: world.json's connect_to rules
    (curl --connect-to HOST:PORT::PORT2) applied to its host and port, as a URL."""
    m = re.match(r"(http://)([^:/]+)(?::(\d+))?(/.*)$", url)
    host, port = m.group(2), int(m.group(3) or 80)
    for rule in world["connect_to"]:
        h1, p1, h2, p2 = rule.split(":")
        if (not h1 or h1 == host) and (not p1 or int(p1) == port):
            return "%s%s:%d%s" % (m.group(1), h2 or host, int(p2) if p2 else port, m.group(4))
    return url


@needs("nginx", "curl", "openssl")
class NginxWorldTest(unittest.TestCase):
    """One world with nginx only, shared by the tests of this class; the teardown test runs
    last (test_zz_...)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = make_tmpdir("nginx")
        cls.wp = WorldProcess(os.path.join(cls.tmp, "w"),
                              ["--revocation-filter-tool", revocation_filter_bin()])
        cls.world = cls.wp.world
        cls.pki_dir = os.path.join(cls.wp.dir, "pki")
        with open(os.path.join(cls.pki_dir, "pki.json")) as f:
            cls.manifest = json.load(f)
        cls.root = cls.world["trust_anchors"]

    @classmethod
    def tearDownClass(cls):
        cls.wp.stop()
        for pid, cmd in processes_mentioning(cls.wp.dir):
            os.kill(pid, signal.SIGKILL)  # only processes started for this test's directory

    def origin(self, name):
        self.assertIn(name, self.world["origins"], json.dumps(self.world, indent=1))
        return self.world["origins"][name]

    def leaf(self, fixture):
        return self.manifest["hosts"][fixture + ".example.test"]

    # -- world.json --------------------------------------------------------------------------

    def test_world_json(self):
        w = self.world
        self.assertEqual(w["dir"], self.wp.dir)
        self.assertEqual(w["trust_anchors"], os.path.join(self.wp.dir, "pki", "root.pem"))
        self.assertTrue(os.path.isfile(w["trust_anchors"]))
        # h3 (Caddy) needs no test server: it runs here too.
        self.assertEqual(sorted(w["origins"]), ["ecdsa", "h3", "nginx", "revoked-stapled",
                                                "stapled", "stapled-other", "static"])
        for key in ("www", "slow", "tls12", "slow12", "spdy", "expired", "wrongname",
                    "untrusted", "uncovered"):
            self.assertIn(key, w["skipped"])
        n = self.origin("nginx")
        self.assertEqual(n["address"], "127.0.0.12")
        self.assertEqual(n["host"], "nginx.example.test")
        self.assertEqual(n["url"], "https://nginx.example.test:%d/" % n["port"])
        self.assertEqual(n["server"], "nginx")
        self.assertEqual(n["tls_max"], "1.3")
        self.assertEqual(n["rtt_ms"], 0)
        self.assertEqual(self.origin("static")["url"],
                         "http://static.example.test:%d/" % self.origin("static")["port"])
        self.assertIn("nginx.example.test:%d:127.0.0.12" % n["port"], w["resolve"])
        self.assertEqual(w["default_url"], n["url"])  # no testserver, so nginx is the default
        self.assertTrue(pid_alive(w["pids"]["nginx"]))
        self.assertTrue(os.path.isfile(w["logs"]["nginx"]))
        # The OCSP responder, without a relay (no --ocsp-rtt-ms): reachable on 127.0.0.21.
        o = w["ocsp"]
        self.assertEqual(o["rtt_ms"], 0)
        self.assertIsNone(o["relay_process"])
        self.assertEqual(o["url"], "http://ocsp.example.test:%d/" % o["port"])
        self.assertEqual(o["direct"], "127.0.0.21:%d" % o["port"])
        self.assertEqual(o["embedded_url"], "http://ocsp.example.test:8888/")
        self.assertEqual(o["revoked_serial"], self.leaf("revoked")["serial"])
        self.assertIn("ocsp.example.test:%d:127.0.0.21" % o["port"], w["resolve"])
        self.assertEqual(w["hosts"]["ocsp.example.test"], "127.0.0.21")
        self.assertTrue(pid_alive(w["pids"]["ocsp"]))
        self.assertNotIn("ocsp_netem", w["pids"])
        static = self.origin("static")["url"]
        self.assertEqual(w["crl"]["url"], static + "intermediate.crl")
        self.assertEqual(w["crl"]["embedded_url"], "http://static.example.test/intermediate.crl")
        self.assertEqual(w["connect_to"], [
            world_py.connect_to_rule("http://ocsp.example.test:8888/", o["url"]),
            world_py.connect_to_rule("http://ocsp.example.test:8889/", w["ocsp2"]["url"]),
            world_py.connect_to_rule("http://static.example.test/", static)])
        # No certbundle (and no testserver): no bundles, and world.json says so.
        self.assertEqual(w["skipped"]["bundles"], "no --certbundle given")
        self.assertEqual((w["bundles"], w["bundle_cdns"], w["bundle_cases"]), (None, [], {}))
        self.assertNotIn("cdn1.example.test", w["hosts"])

    # -- the revocation filter (filters.py) and intermediate2's responder --------------------

    def filter_check(self, fixture):
        h = self.leaf(fixture)
        rc, out, err = run([revocation_filter_bin(), "check", "--filter",
                            self.world["revocation_filter"]["file"], h["chain"]])
        return rc, out + err

    def test_revocation_filter_built_and_served(self):
        f = self.world["revocation_filter"]
        self.assertNotIn("revocation_filter", self.world["skipped"])
        self.assertEqual(f["file"], os.path.join(self.wp.dir, "filters", "revocation_filter"))
        self.assertEqual((f["sequence"], f["enrolled"], f["not_enrolled"]),
                         (1, ["root", "intermediate"], ["intermediate2"]))
        self.assertEqual(sorted(f["issuers"]), ["netstack Test Intermediate CA",
                                                "netstack Test Root CA"])
        self.assertEqual(f["not_covered_hosts"], ["uncovered.example.test"])
        # R: the revoked leaf; S: every other unexpired certificate of the root (itself,
        # intermediate, intermediate2) and of the intermediate (the OCSP signer and its
        # leaves but expired and revoked).
        self.assertEqual((f["revoked"], f["expired_left_out"]), (1, 1))
        intermediate_leaves = [h for h in self.manifest["hosts"].values()
                               if h["issuer"] == "intermediate"]
        self.assertEqual(f["valid"], 3 + 1 + len(intermediate_leaves) - 2)
        with open(f["file"], "rb") as fh:
            data = fh.read()
        self.assertEqual(len(data), f["bytes"])
        self.assertEqual(data[:4], b"NSRF")
        # Served beside the CRLs, byte for byte.
        self.assertEqual(f["url"], self.origin("static")["url"] + "revocation_filter")
        status, _, body, _ = http_get(self.world, f["url"])
        self.assertEqual((status, body), (200, data))
        # What a client concludes about the world's leaves.
        for fixture, rc, answer in (("www", 0, "good"), ("ecdsa", 0, "good"),
                                    ("revoked", 3, "revoked"),
                                    ("uncovered", 4, "not_covered")):
            got_rc, out = self.filter_check(fixture)
            self.assertEqual(got_rc, rc, fixture + ": " + out)
            self.assertIn("answer: %s\n" % answer, out)

    def test_intermediate2_has_its_own_responder(self):
        o2 = self.world["ocsp2"]
        self.assertEqual(o2["embedded_url"], "http://ocsp.example.test:8889/")
        self.assertEqual(o2["good_host"], "uncovered.example.test")
        self.assertTrue(pid_alive(self.world["pids"]["ocsp2"]))
        ocsp_url, crl_url = self.leaf_urls("uncovered")
        self.assertEqual(ocsp_url, "http://ocsp.example.test:8889/")
        self.assertEqual(crl_url, "http://static.example.test/intermediate2.crl")
        url = rewrite_url(self.world, ocsp_url)
        self.assertEqual(url, o2["url"])
        before = open(o2["log"], errors="replace").read().count(o2["log_marker"])
        rc, out, err = run([OPENSSL, "ocsp", "-issuer", self.manifest["intermediate2"],
                            "-serial", "0x" + o2["good_serial"], "-url",
                            "http://%s/" % o2["direct"], "-CAfile", self.root])
        self.assertEqual(rc, 0, out + err)
        self.assertIn("Response verify OK", out + err)
        self.assertIn("0x%s: good" % o2["good_serial"], out)
        after = open(o2["log"], errors="replace").read().count(o2["log_marker"])
        self.assertEqual(after - before, 1)
        # Its CRL is served, and empty.
        status, _, body, _ = http_get(self.world, crl_url)
        self.assertEqual(status, 200)
        with open(self.manifest["crl"]["intermediate2"]["der"], "rb") as fh:
            self.assertEqual(body, fh.read())

    # -- nginx over TLS 1.2 and 1.3 ----------------------------------------------------------

    def s_client(self, origin, *flags, input=b"", host=None):
        o = self.origin(origin)
        host = host or o["host"]
        return run([OPENSSL, "s_client", "-connect", "%s:%d" % (o["address"], o["port"]),
                    "-servername", host, "-verify_hostname", host, "-CAfile", self.root,
                    "-verify_return_error", "-showcerts"] + list(flags), input=input)

    def test_nginx_tls12_and_tls13_chain_verifies(self):
        for flag, proto in (("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")):
            rc, out, err = self.s_client("nginx", flag)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("Verify return code: 0 (ok)", out)
            self.assertRegex(out, r"(Protocol\s*: %s|New, %s)" % (proto, proto))
            # The server sends leaf then intermediate.
            self.assertEqual(out.count("-----BEGIN CERTIFICATE-----"), 2, out)
            self.assertIn("CN = nginx.example.test", out)
            self.assertIn("CN = netstack Test Intermediate CA", out)

    def test_nginx_refuses_tls11(self):
        rc, out, err = self.s_client("nginx", "-tls1_1")
        self.assertNotEqual(rc, 0, out)

    def test_nginx_whoami_over_curl(self):
        n = self.origin("nginx")
        for flags, proto in ((["--tlsv1.2", "--tls-max", "1.2"], "TLSv1.2"),
                             (["--tlsv1.3"], "TLSv1.3")):
            rc, out, err = run(curl_args(self.world, flags + [n["url"] + "whoami"]))
            self.assertEqual(rc, 0, err)
            self.assertRegex(out, r"^proto=%s cipher=\S+ reused=\. fp=$" % proto)
        rc, out, err = run(curl_args(self.world, [n["url"]]))
        self.assertEqual(rc, 0, err)
        self.assertIn("<h1>nginx.example.test</h1>", out)

    def test_nginx_session_resumption(self):
        sess = os.path.join(self.tmp, "nginx.sess")
        request = b"GET /whoami HTTP/1.0\r\nHost: nginx.example.test\r\n\r\n"
        for flag in ("-tls1_2", "-tls1_3"):
            rc, out, err = self.s_client("nginx", flag, "-sess_out", sess, "-ign_eof",
                                         input=request)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("reused=.", out)
            rc, out, err = self.s_client("nginx", flag, "-sess_in", sess, "-ign_eof",
                                         input=request)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("Reused,", out)
            self.assertIn("reused=r", out)

    def test_nginx_client_certificate_fingerprint(self):
        key = os.path.join(self.tmp, "client.key")
        cert = os.path.join(self.tmp, "client.pem")
        run([OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-noenc", "-keyout", key, "-out", cert, "-subj", "/CN=anonymous", "-days", "1"],
            check=True)
        _, fp, _ = run([OPENSSL, "x509", "-in", cert, "-noout", "-fingerprint", "-sha1"],
                       check=True)
        fp = fp.strip().split("=", 1)[1].replace(":", "").lower()
        rc, out, err = run(curl_args(self.world, ["--cert", cert, "--key", key,
                                                  self.origin("nginx")["url"] + "whoami"]))
        self.assertEqual(rc, 0, err)
        self.assertIn("fp=%s" % fp, out)

    def test_ecdsa_origin(self):
        e = self.origin("ecdsa")
        self.assertEqual(e["key_type"], "p256")
        rc, out, err = run(curl_args(self.world, ["--tlsv1.2", "--tls-max", "1.2",
                                                  e["url"] + "whoami"]))
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"cipher=ECDHE-ECDSA-")

    def test_stapling_origins(self):
        """nginx staples the responses world.py made (a good one, a revoked one, another
        certificate's) over TLS 1.2 and 1.3; curl --cert-status agrees with each."""
        o = self.manifest["ocsp"]
        before = ocsp_requests_logged(self.world)
        want = {  # origin: (address, leaf fixture, stapled fixture, status, expect)
            "stapled": ("127.0.0.26", "stapled", "stapled", "good", "ok"),
            "revoked-stapled": ("127.0.0.27", "revoked", "revoked", "revoked", "revoked"),
            "stapled-other": ("127.0.0.28", "stapled", "www", "good", "ok"),
        }
        for key, (addr, fixture, stapled, status, expect) in want.items():
            org = self.origin(key)
            host = key + ".example.test"
            self.assertEqual((org["address"], org["host"], org["server"], org["expect"]),
                             (addr, host, "nginx", expect))
            self.assertIn("%s:%d:%s" % (host, org["port"], addr), self.world["resolve"])
            s = org["staple"]
            self.assertEqual((s["status"], s["serial"], s["leaf_serial"], s["for_host"]),
                             (status, self.leaf(stapled)["serial"], self.leaf(fixture)["serial"],
                              stapled + ".example.test"))
            self.assertIn(host, self.leaf(fixture)["names"])
            # The file is a response signed by the delegated signer, verifying up to the root.
            rc, out, err = run([OPENSSL, "ocsp", "-respin", s["file"], "-CAfile", self.root,
                                "-issuer", o["ca"], "-serial", "0x" + s["serial"],
                                "-resp_text"])
            self.assertEqual(rc, 0, out + err)
            self.assertIn("Response verify OK", out + err)
            self.assertIn("0x%s: %s" % (s["serial"], status), out)
            self.assertIn("Responder Id: O = netstack test, CN = netstack OCSP Responder", out)
            for flag in ("-tls1_2", "-tls1_3"):
                rc, out, err = self.s_client(key, flag, "-status")
                self.assertEqual(rc, 0, out + err)
                self.assertIn("Verify return code: 0 (ok)", out)
                self.assertIn("OCSP Response Status: successful", out, flag)
                self.assertIn("Serial Number: %s\n    Cert Status: %s" % (s["serial"], status),
                              out, flag)
            rc, out, err = run(curl_args(self.world, ["--cert-status", org["url"] + "whoami"]))
            if key == "stapled":
                self.assertEqual(rc, 0, err)
                self.assertRegex(out, r"^proto=TLSv1.3 ")
            else:
                self.assertEqual(rc, 91, err)  # CURLE_SSL_INVALIDCERTSTATUS
                self.assertIn("revocation reason: keyCompromise" if key == "revoked-stapled"
                              else "Could not find certificate ID in OCSP response", err)
        # Stapled: none of these handshakes made a request to the responder.
        self.assertEqual(ocsp_requests_logged(self.world), before)

    def test_static_serves_crl(self):
        s = self.origin("static")
        rc, out, err = run(curl_args(self.world, ["-o", os.path.join(self.tmp, "got.crl"),
                                                  "-w", "%{http_code} %{content_type}",
                                                  s["url"] + "intermediate.crl"]))
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "200 application/pkix-crl")
        with open(os.path.join(self.tmp, "got.crl"), "rb") as a, \
                open(self.manifest["crl"]["intermediate"]["der"], "rb") as b:
            self.assertEqual(a.read(), b.read())

    # -- PKI fixtures ------------------------------------------------------------------------

    def verify(self, fixture, *flags, hostname=None):
        h = self.leaf(fixture)
        return run([OPENSSL, "verify", "-CAfile", self.root, "-untrusted", h["chain"],
                    "-verify_hostname", hostname or fixture + ".example.test"] + list(flags) +
                   [h["leaf"]])

    def test_good_leaves_verify(self):
        for fixture in ("www", "nginx", "slow", "static", "ecdsa", "tls12", "stapled", "spdy"):
            rc, out, err = self.verify(fixture)
            self.assertEqual(rc, 0, fixture + out + err)
            self.assertIn(": OK", out)
        for fixture, host in (("tls12", "slow12"), ("stapled", "stapled-other"),
                              ("revoked", "revoked-stapled")):
            rc, out, err = self.verify(fixture, hostname=host + ".example.test")
            self.assertEqual(rc, 0, out + err)

    def test_expired_fails_as_expired(self):
        rc, out, err = self.verify("expired")
        self.assertNotEqual(rc, 0)
        self.assertIn("error 10 at 0 depth lookup: certificate has expired", out + err)

    def test_wrongname_fails_on_hostname(self):
        rc, out, err = self.verify("wrongname")
        self.assertNotEqual(rc, 0)
        self.assertIn("error 62 at 0 depth lookup: hostname mismatch", out + err)
        # ... and only on the host name: the same chain verifies for other.example.test.
        rc, out, err = self.verify("wrongname", hostname="other.example.test")
        self.assertEqual(rc, 0, out + err)

    def test_untrusted_fails_on_issuer(self):
        rc, out, err = self.verify("untrusted")
        self.assertNotEqual(rc, 0)
        self.assertRegex(out + err, r"error (19|20) at \d depth lookup: (self-signed certificate "
                         r"in certificate chain|unable to get local issuer certificate)")
        # It verifies against its own root, so the only fault is the trust anchor.
        h = self.leaf("untrusted")
        rc, out, err = run([OPENSSL, "verify", "-CAfile", self.manifest["untrusted_root"],
                            h["leaf"]])
        self.assertEqual(rc, 0, out + err)

    def test_crl_lists_revoked_serial(self):
        serial = self.leaf("revoked")["serial"]
        self.assertEqual(self.manifest["revoked_serials"], [serial])
        rc, out, err = run([OPENSSL, "crl", "-inform", "DER", "-in",
                            self.manifest["crl"]["intermediate"]["der"], "-noout", "-text"],
                           check=True)
        self.assertIn("Serial Number: %s" % serial, out)
        self.assertIn("Key Compromise", out)
        self.assertEqual(out.count("Serial Number:"), 1, out)
        crls = os.path.join(self.tmp, "crls.pem")
        with open(crls, "w") as f:
            for p in (self.manifest["crl"]["root"]["pem"],
                      self.manifest["crl"]["intermediate"]["pem"]):
                with open(p) as crl:
                    f.write(crl.read())
        rc, out, err = self.verify("revoked", "-crl_check_all", "-CRLfile", crls)
        self.assertNotEqual(rc, 0)
        self.assertIn("certificate revoked", out + err)
        rc, out, err = self.verify("www", "-crl_check_all", "-CRLfile", crls)
        self.assertEqual(rc, 0, out + err)
        # The index marks it revoked too (what `openssl ocsp` answers from).
        with open(self.manifest["ocsp"]["index"]) as f:
            rows = [l.split("\t") for l in f.read().splitlines()]
        self.assertIn(["R", serial], [[r[0], r[3]] for r in rows])

    def test_ocsp_signer_answers_good_and_revoked(self):
        o = self.manifest["ocsp"]
        for fixture, status in (("www", "good"), ("revoked", "revoked")):
            req = os.path.join(self.tmp, fixture + ".ocspreq")
            resp = os.path.join(self.tmp, fixture + ".ocspresp")
            leaf = self.leaf(fixture)["leaf"]
            run([OPENSSL, "ocsp", "-issuer", o["ca"], "-cert", leaf, "-no_nonce",
                 "-reqout", req], check=True)
            run([OPENSSL, "ocsp", "-index", o["index"], "-rsigner", o["signer"], "-rkey",
                 o["signer_key"], "-CA", o["ca"], "-reqin", req, "-respout", resp, "-nmin", "5"],
                check=True)
            rc, out, err = run([OPENSSL, "ocsp", "-respin", resp, "-CAfile", self.root,
                                "-issuer", o["ca"], "-cert", leaf, "-verify_other", o["ca"]])
            self.assertEqual(rc, 0, out + err)
            self.assertIn("Response verify OK", out + err)
            self.assertIn("%s: %s" % (leaf, status), out)

    def leaf_urls(self, fixture):
        """(OCSP URL, CRL DP URL) of a leaf, as a client reads them from the certificate."""
        leaf = self.leaf(fixture)["leaf"]
        _, ocsp, _ = run([OPENSSL, "x509", "-in", leaf, "-noout", "-ocsp_uri"], check=True)
        _, ext, _ = run([OPENSSL, "x509", "-in", leaf, "-noout", "-ext",
                         "crlDistributionPoints"], check=True)
        return ocsp.strip(), re.search(r"URI:(\S+)", ext).group(1)

    def test_revocation_urls_through_connect_to(self):
        for fixture, status in (("www", "good"), ("revoked", "revoked")):
            ocsp_url, crl_url = self.leaf_urls(fixture)
            self.assertEqual(ocsp_url, "http://ocsp.example.test:8888/")
            # OCSP: the rewritten URL, its host resolved through world.json's hosts.
            url = rewrite_url(self.world, ocsp_url)
            self.assertEqual(url, self.world["ocsp"]["url"])
            host = re.match(r"http://([^:/]+)", url).group(1)
            url = url.replace(host, self.world["hosts"][host], 1)
            rc, out, _ = ocsp_query(self.world, self.leaf(fixture)["serial"], url)
            self.assertEqual(rc, 0, out)
            self.assertIn("Response verify OK", out)
            self.assertIn("0x%s: %s" % (self.leaf(fixture)["serial"], status), out)
            # CRL: the rewritten CRL DP URL serves the CRL.
            url = rewrite_url(self.world, crl_url)
            self.assertEqual(url, self.world["crl"]["url"])
            got = os.path.join(self.tmp, fixture + "-dp.crl")
            rc, out, err = run(curl_args(self.world, ["-o", got, url]))
            self.assertEqual(rc, 0, err)
            with open(got, "rb") as a, open(self.world["crl"]["der"], "rb") as b:
                self.assertEqual(a.read(), b.read())

    def test_leaf_extensions(self):
        rc, out, err = run([OPENSSL, "x509", "-in", self.leaf("www")["leaf"], "-noout", "-ext",
                            "subjectAltName,authorityInfoAccess,crlDistributionPoints"],
                           check=True)
        self.assertIn("DNS:www.example.test", out)
        self.assertIn("OCSP - URI:http://ocsp.example.test:8888/", out)
        self.assertIn("URI:http://static.example.test/intermediate.crl", out)
        rc, out, err = run([OPENSSL, "x509", "-in", self.manifest["ocsp"]["signer"], "-noout",
                            "-text"], check=True)
        self.assertIn("OCSP Signing", out)
        self.assertIn("OCSP No Check", out)

    def test_files_world_readable(self):
        for root, dirs, files in os.walk(self.pki_dir):
            for name in files:
                mode = os.stat(os.path.join(root, name)).st_mode
                self.assertTrue(mode & 0o004, os.path.join(root, name))

    # -- teardown (last) ---------------------------------------------------------------------

    def test_zz_teardown_leaves_no_nginx(self):
        master = self.world["pids"]["nginx"]
        workers = children_of(master)
        self.assertTrue(workers, "nginx master %d has no workers" % master)
        ocsp = self.world["pids"]["ocsp"]
        rc = self.wp.stop()
        self.assertEqual(rc, 0, self.wp.stderr())
        for pid in [master] + workers:
            self.assertFalse(pid_alive(pid), "nginx process %d survived teardown" % pid)
        self.assertFalse(pid_alive(ocsp), "openssl ocsp %d survived teardown" % ocsp)
        self.assertEqual(processes_mentioning("ocsp -index " + self.world["ocsp"]["index"]), [])
        self.assertEqual(processes_mentioning(self.wp.dir), [])
        self.assertIn("world: stopped", self.wp.stderr())


@needs("nginx", "curl", "openssl")
class FullWorldTest(unittest.TestCase):
    """Every origin, with the stand-in test server and netem, through --run."""

    CHECK = r"""
import json, os, subprocess, sys, time
w = json.load(open(os.environ["NETSTACK_WORLD"]))
base = ["CURL", "-sS", "--max-time", "20", "--cacert", w["trust_anchors"]]
for r in w["resolve"]:
    base += ["--resolve", r]
def curl(*a):
    r = subprocess.run(base + list(a), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr
report = {"origins": sorted(w["origins"]), "skipped": sorted(w["skipped"])}
for key, o in w["origins"].items():
    t = time.monotonic()
    report[key] = curl(o["url"])
    report[key + "_seconds"] = time.monotonic() - t
report["tls12_13"] = curl("--tlsv1.3", w["origins"]["tls12"]["url"])
report["slow12_12"] = curl("--tlsv1.2", "--tls-max", "1.2", w["origins"]["slow12"]["url"])
crls = sys.argv[1] + ".crls.pem"  # curl checks the whole chain: both CRLs
open(crls, "w").write(open(w["crl"]["root_pem"]).read() + open(w["crl"]["pem"]).read())
report["revoked_crl"] = curl("--crlfile", crls, w["origins"]["revoked"]["url"])
report["www_crl"] = curl("--crlfile", crls, w["origins"]["www"]["url"])
# HTTP/3 (quic.py): the UDP sockets bound, and a small file over QUIC from gtlsserver (ngtcp2's
# gtlsclient; against Caddy it gets a TLS internal_error alert, so Caddy's QUIC is checked with
# fetch --http3 in world_packet_test).
report["udp"] = open("/proc/net/udp").read() + open("/proc/net/udp6").read()
for key in ("bigchain",):
    o = w["origins"].get(key) or {}
    q = o.get("quic")
    if q and "GTLSCLIENT":
        dl = sys.argv[1] + "." + key + ".dl"
        os.makedirs(dl, exist_ok=True)
        r = subprocess.run(["GTLSCLIENT", "-q", "--exit-on-all-streams-close", "--download", dl,
                            "--sni=" + o["host"], o["address"], str(q["udp_port"]),
                            o["url"] + "small.txt"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=30)
        f = os.path.join(dl, "small.txt")
        report[key + "_h3"] = [r.returncode, open(f).read() if os.path.exists(f) else "",
                               r.stdout[-500:]]
report["h3_small_tcp"] = curl(w["origins"]["h3"]["url"] + "small.txt")
for key in ("spdy", "www", "ech"):  # the running servers' command lines
    pid = w["pids"][w["origins"][key]["process"]]
    report[key + "_cmdline"] = open("/proc/%d/cmdline" % pid).read().split("\0")
if w.get("dns") and "KDIG" and "KNOTC":  # the HTTPS records as Knot serves them
    d = w["dns"]
    addr, port = d["direct"].rsplit(":", 1)
    report["https"] = {
        n: subprocess.run(["KDIG", "@" + addr, "-p", port, "+short", n, "HTTPS"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True).stdout
        for n in d["https_records"]}
    report["zone_check"] = subprocess.run(["KNOTC", "-c", d["config"], "zone-check",
                                           d["zone"]]).returncode
    report["dns_ech"] = d["ech"]
json.dump(report, open(sys.argv[1], "w"))
sys.exit(42)
"""

    def test_all_origins(self):
        tmp = make_tmpdir("full")
        script = os.path.join(tmp, "check.py")
        report_path = os.path.join(tmp, "report.json")
        with open(script, "w") as f:
            f.write(self.CHECK.replace("CURL", CURL).replace("KDIG", KDIG or "")
                    .replace("KNOTC", KNOTC or "").replace("GTLSCLIENT", GTLSCLIENT or ""))
        d = os.path.join(tmp, "w")
        rc, out, err = run([sys.executable, WORLD, "--dir", d, "--testserver", FAKE_TESTSERVER,
                            "--netem", FAKE_NETEM, "--certbundle", certbundle_bin(),
                            "--revocation-filter-tool", revocation_filter_bin(),
                            "--rtt-ms", "200", "--run", sys.executable, script, report_path],
                           timeout=120)
        self.assertEqual(rc, 42, err)  # the command's exit code
        with open(report_path) as f:
            rep = json.load(f)
        self.assertEqual(rep["origins"], sorted(["www", "www_http", "nginx", "ecdsa", "static",
                                                 "slow", "slow_http", "tls12", "slow12",
                                                 "spdy", "expired", "wrongname", "untrusted",
                                                 "revoked", "stapled", "revoked-stapled",
                                                 "stapled-other", "uncovered", "ech", "h3",
                                                 "bigchain"]))
        self.assertEqual(rep["skipped"], [] if KNOTD else ["dns"])
        for key in ("www", "www_http", "slow", "slow_http", "tls12", "slow12", "spdy", "h3",
                    "bigchain"):
            rc_, body, e = rep[key]
            self.assertEqual(rc_, 0, "%s: %s" % (key, e))
            self.assertIn("<h1>www.example.test</h1>", body)
        # The demo page links the other hosts.
        self.assertIn("https://nginx.example.test:", rep["www"][1])
        self.assertIn("https://slow12.example.test:", rep["www"][1])
        # netem's delay: the fake adds 100 ms per chunk each way; a TLS handshake and a request
        # take several round trips.
        self.assertGreater(rep["slow_seconds"], 0.3)
        self.assertLess(rep["www_seconds"], rep["slow_seconds"])
        # Failure fixtures fail for their reasons (curl exit 60: peer certificate problem).
        self.assertEqual(rep["expired"][0], 60)
        self.assertIn("certificate has expired", rep["expired"][2])
        self.assertEqual(rep["wrongname"][0], 60)
        self.assertIn("wrongname.example.test", rep["wrongname"][2])
        self.assertEqual(rep["untrusted"][0], 60)
        self.assertRegex(rep["untrusted"][2], "self-signed certificate in certificate chain|"
                         "unable to get local issuer")
        # The revoked leaf is otherwise good: it fails only when the client checks revocation.
        self.assertEqual(rep["revoked"][0], 0, rep["revoked"][2])
        self.assertEqual(rep["revoked_crl"][0], 60, rep["revoked_crl"][2])
        self.assertIn("certificate revoked", rep["revoked_crl"][2])
        self.assertEqual(rep["www_crl"][0], 0, rep["www_crl"][2])
        # tls12 refuses 1.3; slow12 passes it through.
        self.assertNotEqual(rep["tls12_13"][0], 0)
        self.assertEqual(rep["slow12_12"][0], 0, rep["slow12_12"][2])
        with open(os.path.join(d, "world.json")) as f:
            w = json.load(f)
        self.assertEqual(w["origins"]["slow"]["rtt_ms"], 200)
        self.assertEqual(w["origins"]["slow12"]["backend"]["port"], w["origins"]["tls12"]["port"])
        self.assertEqual(w["default_url"], w["origins"]["www"]["url"])
        self.assertEqual(w["origins"]["revoked"]["address"], "127.0.0.22")
        self.assertEqual(w["origins"]["revoked"]["expect"], "revoked")
        # The SPDY/3 origin: its own address and certificate, the test server with --spdy
        # (world_packet_test fetches it over spdy/3 with the real one).
        spdy = w["origins"]["spdy"]
        self.assertEqual((spdy["host"], spdy["address"]), ("spdy.example.test", "127.0.0.29"))
        self.assertEqual(spdy["alpn"], ["spdy/3", "http/1.1"])
        self.assertEqual(spdy["server"], "testserver")
        self.assertIn("--spdy", rep["spdy_cmdline"])
        self.assertNotIn("--spdy", rep["www_cmdline"])
        self.assertIn("spdy.example.test", rep["www"][1])  # the demo page links it
        # The ECH origin: its key and configuration (the stand-in's fixed one), h2.
        ech = w["origins"]["ech"]
        self.assertEqual((ech["host"], ech["address"]), ("ech.example.test", "127.0.0.31"))
        self.assertEqual(ech["alpn"], ["h2", "http/1.1"])
        self.assertIn("--ech-key", rep["ech_cmdline"])
        self.assertIn("--http2", rep["ech_cmdline"])
        self.assertEqual(ech["ech"]["public_name"], "public.example.test")
        self.assertNotEqual(ech["ech"]["config"], "")
        self.assertEqual(rep["ech"][0], 0, rep["ech"][2])
        # HTTP/3 (quic.py): h3 is Caddy on UDP and TCP of one port (TCP: the fallback, curl
        # above), bigchain's UDP is gtlsserver beside its testserver; in the relay world neither
        # is slowed, and world.json says why.
        h3, big = w["origins"]["h3"], w["origins"]["bigchain"]
        self.assertEqual((h3["host"], h3["address"], h3["server"]),
                         ("h3.example.test", "127.0.0.32", "caddy"))
        self.assertEqual(h3["alpn"], ["h3", "h2", "http/1.1"])
        self.assertEqual((h3["quic"]["udp_port"], h3["quic"]["versions"], h3["rtt_ms"]),
                         (h3["port"], [1], 0))
        self.assertIn("relay world", h3["quic"]["link"])
        self.assertEqual(h3["quic"]["small_resource"], {"path": "/small.txt", "bytes": 100})
        self.assertEqual((big["address"], big["quic"]["server"], big["quic"]["udp_port"]),
                         ("127.0.0.33", "gtlsserver", big["port"]))
        self.assertEqual(big["snap_start_orbit"], "3132333435363738")
        # The chain is over QUIC's anti-amplification limit (3 x a 1200-byte Initial).
        self.assertEqual(big["amplification_limit_bytes"], 3600)
        self.assertGreater(sum(big["chain_der_bytes"]), 3600 + 1000)
        for o in (h3, big):
            hexaddr = "%s:%04X" % (socket.inet_aton(o["address"])[::-1].hex().upper(),
                                   o["quic"]["udp_port"])
            self.assertIn(hexaddr, rep["udp"], "%s: UDP not bound" % o["host"])
        self.assertEqual(rep["h3_small_tcp"][:2], [0, "s" * 99 + "\n"])
        if GTLSCLIENT:  # over QUIC from gtlsserver
            self.assertEqual(rep["bigchain_h3"][1], "s" * 99 + "\n", rep["bigchain_h3"])
        with open(h3["quic"]["access_log"]) as f:  # curl's request over TCP (the fallback)
            protos = [json.loads(l)["request"]["proto"] for l in f if '"uri":"/small.txt"' in l]
        self.assertEqual(protos, ["HTTP/2.0"])
        if KNOTD and KDIG and KNOTC:
            self.assertIn("1 . alpn=h3,h2,http/1.1", rep["https"]["h3.example.test"])
            self.assertIn("1 . alpn=h3,http/1.1", rep["https"]["bigchain.example.test"])
        if KNOTD and KDIG and KNOTC:
            # Knot takes the zone's HTTPS records (knotc zone-check) and serves each, under
            # the name and, on the relay world's ephemeral ports, _PORT._https.NAME.
            self.assertEqual(rep["zone_check"], 0)
            https = rep["https"]
            self.assertIn('1 . alpn=h2,http/1.1 ech=' + ech["ech"]["config"],
                          https["ech.example.test"])
            self.assertIn("_%d._https.ech.example.test" % ech["port"], https)
            self.assertIn("1 . alpn=http/1.1", https["www.example.test"])
            self.assertIn("alpn=spdy/3,http/1.1", https["spdy.example.test"])
            self.assertIn("ech=" + ech["ech"]["stale_config"], https["stale-ech.example.test"])
            self.assertIn("0 ech.example.test.", https["alias-ech.example.test"])
            self.assertIn("1 . alpn=h3 no-default-alpn", https["h3only.example.test"])
            self.assertIn("1 . alpn=h2,http/1.1 port=1", https["deadrr.example.test"])
            self.assertIn("can't print", https["badrr.example.test"])  # malformed
            self.assertEqual(rep["dns_ech"]["origin"], "ech")
        if KNOTD:  # DNS with its default relay (40 ms)
            self.assertEqual(w["dns"]["rtt_ms"], 40)
            self.assertIn("dns_netem", w["pids"])
        for name, pid in w["pids"].items():
            self.assertFalse(pid_alive(pid), "%s (%d) survived teardown" % (name, pid))
        self.assertEqual(processes_mentioning(d), [])


@needs("openssl")
class OcspWorldTest(unittest.TestCase):
    """One world with the OCSP responder only (no nginx, no testserver, no DNS) behind the
    stand-in netem; the teardown test runs last (test_zz_...), after the watchdog's (test_y_)."""

    RTT_MS = 200

    @classmethod
    def setUpClass(cls):
        cls.tmp = make_tmpdir("ocsp")
        cls.wp = WorldProcess(os.path.join(cls.tmp, "w"), [
            "--no-nginx", "--no-dns", "--no-quic", "--netem", FAKE_NETEM,
            "--ocsp-rtt-ms", str(cls.RTT_MS)])
        cls.world = cls.wp.world
        cls.ocsp = cls.world["ocsp"]

    @classmethod
    def tearDownClass(cls):
        cls.wp.stop()
        for pid, cmd in processes_mentioning(cls.wp.dir):
            os.kill(pid, signal.SIGKILL)  # only processes started for this test's directory

    def url(self):
        return "http://%s:%d/" % (self.ocsp["address"], self.ocsp["port"])

    def direct_url(self):
        return "http://%s/" % self.ocsp["direct"]

    def current_world(self):
        with open(self.wp.world_json) as f:
            return json.load(f)

    def test_world_json(self):
        o, w = self.ocsp, self.world
        self.assertEqual(o["address"], "127.0.0.21")
        self.assertEqual(o["rtt_ms"], self.RTT_MS)
        self.assertEqual(o["url"], "http://ocsp.example.test:%d/" % o["port"])
        self.assertRegex(o["direct"], r"^127\.0\.0\.21:\d+$")
        self.assertNotEqual(o["direct"], "127.0.0.21:%d" % o["port"])
        self.assertEqual(o["log"], os.path.join(self.wp.dir, "logs", "ocsp.log"))
        self.assertEqual(o["revoked_host"], "revoked.example.test")
        self.assertEqual(w["pki"]["revoked_serials"], [o["revoked_serial"]])
        self.assertEqual(o["index"], w["pki"]["ocsp"]["index"])
        for name in ("ocsp", "ocsp_netem"):
            self.assertTrue(pid_alive(w["pids"][name]), name)
            self.assertTrue(os.path.isfile(w["logs"][name]), name)
        # No static origin (no nginx): only the OCSP URL is rewritten, the CRL has no URL.
        self.assertEqual(w["connect_to"],
                         [world_py.connect_to_rule("http://ocsp.example.test:8888/", o["url"]),
                          world_py.connect_to_rule("http://ocsp.example.test:8889/",
                                                   w["ocsp2"]["url"])])
        self.assertIsNone(w["crl"]["url"])
        self.assertEqual(w["resolve"], ["ocsp.example.test:%d:127.0.0.21" % o["port"],
                                        "ocsp.example.test:%d:127.0.0.21" % w["ocsp2"]["port"]])
        # The start-up queries (direct: www, revoked; through the relay: www) are in its log.
        self.assertGreaterEqual(ocsp_requests_logged(w), o["startup_requests"])
        self.assertEqual(o["startup_requests"], 3)

    def test_good_and_revoked_through_relay(self):
        before = ocsp_requests_logged(self.world)
        for serial, status in ((self.ocsp["good_serial"], "good"),
                               (self.ocsp["revoked_serial"], "revoked")):
            rc, out, secs = ocsp_query(self.world, serial, self.url(), "-resp_text")
            self.assertEqual(rc, 0, out)
            self.assertIn("Response verify OK", out)
            self.assertIn("0x%s: %s" % (serial, status), out)
            self.assertIn("Cert Status: %s" % status, out)
            self.assertIn("Responder Id: O = netstack test, CN = netstack OCSP Responder", out)
            self.assertIn("Next Update:", out)
            if status == "revoked":
                self.assertIn("Revocation Reason: keyCompromise", out)
            self.assertGreaterEqual(secs, self.RTT_MS / 1000.0, out)
        self.assertEqual(ocsp_requests_logged(self.world), before + 2)
        with open(self.ocsp["text_log"]) as f:
            self.assertIn("Serial Number: %s" % self.ocsp["revoked_serial"], f.read())

    def test_direct_is_fast(self):
        before = ocsp_requests_logged(self.world)
        rc, out, secs = ocsp_query(self.world, self.ocsp["good_serial"], self.direct_url())
        self.assertEqual(rc, 0, out)
        self.assertIn("0x%s: good" % self.ocsp["good_serial"], out)
        self.assertLess(secs, self.RTT_MS / 2000.0)
        self.assertEqual(ocsp_requests_logged(self.world), before + 1)

    def test_malformed_request_is_survived(self):
        addr, port = self.ocsp["direct"].rsplit(":", 1)
        pid = self.current_world()["pids"]["ocsp"]
        with socket.create_connection((addr, int(port)), timeout=5) as s:
            s.sendall(b"NOT HTTP\r\n\r\n")
            s.recv(100)
        rc, out, _ = ocsp_query(self.world, self.ocsp["good_serial"], self.direct_url())
        self.assertEqual(rc, 0, out)
        self.assertTrue(pid_alive(pid))

    def test_y_wedged_responder_is_restarted(self):
        # A connection closed before any request line wedges OpenSSL 3.0's responder
        # (openssl/openssl#31129); world.py's watchdog restarts it on the same port.
        addr, port = self.ocsp["direct"].rsplit(":", 1)
        old = self.current_world()["pids"]["ocsp"]
        socket.create_connection((addr, int(port)), timeout=5).close()
        deadline = time.monotonic() + 15
        while self.current_world()["ocsp"]["restarts"] < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        w = self.current_world()
        self.assertGreaterEqual(w["ocsp"]["restarts"], 1, self.wp.stderr())
        self.assertNotEqual(w["pids"]["ocsp"], old)
        self.assertFalse(pid_alive(old))
        self.assertIn("the OCSP responder (pid %d) is wedged" % old, self.wp.stderr())
        before = ocsp_requests_logged(w)  # the log is kept across the restart
        self.assertGreaterEqual(before, w["ocsp"]["startup_requests"])
        rc, out, _ = ocsp_query(w, self.ocsp["revoked_serial"], self.url())
        self.assertEqual(rc, 0, out)
        self.assertIn("0x%s: revoked" % self.ocsp["revoked_serial"], out)
        self.assertEqual(ocsp_requests_logged(w), before + 1)

    def test_zz_teardown_leaves_no_openssl_ocsp(self):
        w = self.current_world()
        rc = self.wp.stop()
        self.assertEqual(rc, 0, self.wp.stderr())
        for name in ("ocsp", "ocsp_netem"):
            self.assertFalse(pid_alive(w["pids"][name]), "%s survived teardown" % name)
        self.assertEqual(processes_mentioning("ocsp -index " + self.ocsp["index"]), [])
        self.assertEqual(processes_mentioning(self.wp.dir), [])


@needs("knotd", "kdig")
class DnsWorldTest(unittest.TestCase):
    """One world with DNS only (no nginx, no testserver) and the stand-in netem as the DNS relay;
    the teardown test runs last (test_zz_...)."""

    RTT_MS = 150

    @classmethod
    def setUpClass(cls):
        cls.tmp = make_tmpdir("dns")
        cls.wp = WorldProcess(os.path.join(cls.tmp, "w"), [
            "--no-nginx", "--netem", FAKE_NETEM, "--dns-rtt-ms", str(cls.RTT_MS),
            "--require-dns"])
        cls.world = cls.wp.world
        cls.dns = cls.world["dns"]

    @classmethod
    def tearDownClass(cls):
        cls.wp.stop()
        for pid, cmd in processes_mentioning(cls.wp.dir):
            os.kill(pid, signal.SIGKILL)  # only processes started for this test's directory

    def kdig(self, *args, server=None):
        addr, port = (server or self.dns["direct"]).rsplit(":", 1)
        rc, out, err = run([KDIG, "@" + addr, "-p", port, "+time=5", "+retry=0"] + list(args))
        self.assertEqual(rc, 0, out + err)
        return out

    @staticmethod
    def header(out):
        status = re.search(r"status: (\w+)", out).group(1)
        flags = re.search(r";; Flags: ([\w ]*);", out).group(1).split()
        counts = {k: int(v) for k, v in re.findall(r"(QUERY|ANSWER|AUTHORITY|ADDITIONAL): (\d+)",
                                                   out)}
        proto = re.search(r";; From \S+\((UDP|TCP)\) in ([\d.]+) ms", out)
        return status, flags, counts, proto.group(1), float(proto.group(2))

    @staticmethod
    def section(out, name):
        m = re.search(r";; %s SECTION:\n(.*?)(\n\n|\Z)" % name, out, re.S)
        return [l.split() for l in m.group(1).splitlines()] if m else []

    @staticmethod
    def txt_strings(rr_line):
        return re.findall(r'"((?:[^"\\]|\\.)*)"', rr_line)

    def test_world_json(self):
        d = self.dns
        self.assertRegex(d["direct"], r"^127\.0\.0\.53:\d+$")
        self.assertRegex(d["server"], r"^127\.0\.0\.54:\d+$")
        self.assertEqual(d["rtt_ms"], self.RTT_MS)
        self.assertEqual(d["zone"], "example.test")
        self.assertEqual(d["short_ttl_host"], "short.example.test")
        self.assertEqual(d["big_txt_file"], os.path.join(self.wp.dir, "dns", "big.txt"))
        expected = {"www": "127.0.0.11", "nginx": "127.0.0.12", "static": "127.0.0.13",
                    "slow": "127.0.0.14", "tls12": "127.0.0.15", "slow12": "127.0.0.16",
                    "expired": "127.0.0.17", "wrongname": "127.0.0.18",
                    "untrusted": "127.0.0.19", "ecdsa": "127.0.0.20", "ocsp": "127.0.0.21",
                    "revoked": "127.0.0.22", "stapled": "127.0.0.26",
                    "revoked-stapled": "127.0.0.27", "stapled-other": "127.0.0.28",
                    "spdy": "127.0.0.29", "uncovered": "127.0.0.30", "ech": "127.0.0.31"}
        for host, addr in expected.items():
            self.assertEqual(d["records"][host + ".example.test"], addr)
        for name in ("dns_knot", "dns_netem"):
            self.assertTrue(pid_alive(self.world["pids"][name]), name)
            self.assertTrue(os.path.isfile(self.world["logs"][name]), name)
        self.assertNotIn("dns", self.world["skipped"])

    @needs("knotc")
    def test_zone_file_is_valid(self):
        rc, out, err = run([KNOTC, "-c", self.dns["config"], "zone-check", "example.test"])
        self.assertEqual(rc, 0, out + err)

    def test_a_records(self):
        out = self.kdig("www.example.test", "A")
        status, flags, counts, proto, _ = self.header(out)
        self.assertEqual((status, proto), ("NOERROR", "UDP"))
        self.assertIn("aa", flags)
        self.assertEqual(self.section(out, "ANSWER"),
                         [["www.example.test.", "300", "IN", "A", "127.0.0.11"]])
        # Every record in world.json, in one kdig run.
        names = sorted(self.dns["records"])
        args = []
        for n in names:
            args += [n, "A"]
        out = self.kdig("+short", *args)
        self.assertEqual(out.split(), [self.dns["records"][n] for n in names])

    def test_ttls_and_soa(self):
        ans = self.section(self.kdig("short.example.test", "A"), "ANSWER")
        self.assertEqual(ans, [["short.example.test.", "2", "IN", "A", "127.0.0.11"]])
        ans = self.section(self.kdig("example.test", "SOA"), "ANSWER")
        self.assertEqual(len(ans), 1)
        self.assertEqual(ans[0][1], "30")  # SOA TTL
        self.assertEqual(ans[0][-1], "30")  # minimum
        ans = self.section(self.kdig("example.test", "NS"), "ANSWER")
        self.assertEqual([a[-1] for a in ans], ["ns.example.test."])

    def test_txt_two_records(self):
        out = self.kdig("txt.example.test", "TXT")
        ans = [l for l in out.splitlines() if "\tTXT\t" in l]
        self.assertEqual(len(ans), 2, out)
        self.assertEqual(sorted(self.txt_strings(l) for l in ans),
                         [["hello ", "world"], ["second record"]])

    def test_aaaa(self):
        self.assertEqual(self.kdig("+short", "v6.example.test", "AAAA").split(), ["::1"])
        out = self.kdig("v6.example.test", "A")  # the name exists: NOERROR, no data
        self.assertEqual(self.header(out)[0], "NOERROR")
        self.assertEqual(self.header(out)[2]["ANSWER"], 0)
        self.assertEqual(self.kdig("+short", "both.example.test", "A", "both.example.test",
                                   "AAAA").split(), ["127.0.0.11", "::1"])

    def big_answer(self, out):
        lines = [l for l in out.splitlines() if "\tTXT\t" in l]
        self.assertEqual(len(lines), 1, out)
        return self.txt_strings(lines[0])

    def test_big_txt_over_udp_with_edns(self):
        with open(self.dns["big_txt_file"]) as f:
            big = f.read()
        self.assertGreater(len(big), 3400)
        out = self.kdig("big.example.test", "TXT", "+bufsize=4096", "+ignore")
        status, flags, counts, proto, _ = self.header(out)
        self.assertEqual((status, proto), ("NOERROR", "UDP"))
        self.assertNotIn("tc", flags)
        strings = self.big_answer(out)
        self.assertEqual([len(x) for x in strings[:-1]], [255] * (len(strings) - 1))
        self.assertEqual("".join(strings), big)

    def test_big_txt_truncated_without_edns_whole_over_tcp(self):
        with open(self.dns["big_txt_file"]) as f:
            big = f.read()
        for flag in ("+noedns", "+bufsize=0"):
            out = self.kdig("big.example.test", "TXT", flag, "+ignore")
            status, flags, counts, proto, _ = self.header(out)
            self.assertEqual(proto, "UDP")
            self.assertIn("tc", flags, out)
            self.assertEqual(counts["ANSWER"], 0, out)
        out = self.kdig("big.example.test", "TXT", "+noedns", "+tcp")
        status, flags, counts, proto, _ = self.header(out)
        self.assertEqual((status, proto), ("NOERROR", "TCP"))
        self.assertNotIn("tc", flags)
        self.assertEqual("".join(self.big_answer(out)), big)

    def test_nxdomain_carries_soa(self):
        out = self.kdig("nope.example.test", "A")
        status, flags, counts, proto, _ = self.header(out)
        self.assertEqual(status, "NXDOMAIN")
        self.assertIn("aa", flags)
        auth = self.section(out, "AUTHORITY")
        self.assertEqual(len(auth), 1, out)
        self.assertEqual(auth[0][:4], ["example.test.", "30", "IN", "SOA"])

    def test_relay_adds_rtt(self):
        for proto_flag, proto in (("+notcp", "UDP"), ("+tcp", "TCP")):
            t = time.monotonic()
            out = self.kdig("www.example.test", "A", proto_flag, server=self.dns["server"])
            wall = (time.monotonic() - t) * 1000
            status, flags, counts, got_proto, ms = self.header(out)
            self.assertEqual((status, got_proto), ("NOERROR", proto))
            self.assertEqual(self.section(out, "ANSWER")[0][-1], "127.0.0.11")
            self.assertGreaterEqual(ms, self.RTT_MS * 0.98, out)
            self.assertGreaterEqual(wall, self.RTT_MS)
        # The big record through the relay over TCP arrives whole.
        out = self.kdig("big.example.test", "TXT", "+tcp", server=self.dns["server"])
        with open(self.dns["big_txt_file"]) as f:
            self.assertEqual("".join(self.big_answer(out)), f.read())
        # Directly, well under the relay's RTT.
        _, _, _, _, ms = self.header(self.kdig("www.example.test", "A"))
        self.assertLess(ms, self.RTT_MS / 2)

    def test_zz_teardown_leaves_no_knotd(self):
        knot = self.world["pids"]["dns_knot"]
        relay = self.world["pids"]["dns_netem"]
        rc = self.wp.stop()
        self.assertEqual(rc, 0, self.wp.stderr())
        self.assertFalse(pid_alive(knot), "knotd %d survived teardown" % knot)
        self.assertFalse(pid_alive(relay), "the DNS relay %d survived teardown" % relay)
        self.assertEqual(processes_mentioning(self.wp.dir), [])
        self.assertEqual(processes_mentioning(self.dns["config"]), [])
        self.assertFalse(os.path.exists(self.dns["control_socket"]))


def _recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise AssertionError("the DNS server closed the connection after %d bytes" % len(data))
        data += chunk
    return data


def dns_txt(server, name, tcp=True, edns=4096, timeout=5):
    """The TXT records of name at server ("ADDR:PORT"), over TCP or over UDP (with EDNS
    `edns`). Returns (rcode, flags, [[strings] per record])."""
    addr, port = server.rsplit(":", 1)
    qid = int.from_bytes(os.urandom(2), "big")
    msg = world_py.dns_query_packet(qid, name, world_py.DNS_TYPE_TXT, edns_payload=edns)
    if tcp:
        with socket.create_connection((addr, int(port)), timeout=timeout) as sock:
            sock.sendall(len(msg).to_bytes(2, "big") + msg)
            resp = _recv_exact(sock, int.from_bytes(_recv_exact(sock, 2), "big"))
    else:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.settimeout(timeout)
            sock.sendto(msg, (addr, int(port)))
            resp = sock.recv(65535)
    rid, flags, rcode, answers = world_py.dns_parse_response(resp)
    assert rid == qid, (rid, qid)
    records = []
    for rtype, rdata in answers:
        if rtype != world_py.DNS_TYPE_TXT:
            continue
        strings, i = [], 0
        while i < len(rdata):
            strings.append(rdata[i + 1:i + 1 + rdata[i]].decode("ascii"))
            i += 1 + rdata[i]
        records.append(strings)
    return rcode, flags, records


def http_get(world, url, timeout=20):
    """GET url the way a client of the world does: url_rewrites, then the host's address from
    world.json's hosts. Returns (status, Content-Type, body, seconds)."""
    url = rewrite_url(world, url)
    m = re.match(r"http://([^:/]+)(?::(\d+))?(/.*)$", url)
    assert m, url
    host, port, path = m.group(1), int(m.group(2) or 80), m.group(3)
    t = time.monotonic()
    conn = http.client.HTTPConnection(world["hosts"][host], port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Host": host if port == 80 else "%s:%d" % (host, port)})
        r = conn.getresponse()
        body = r.read()
    finally:
        conn.close()
    return r.status, r.getheader("Content-Type"), body, time.monotonic() - t


@needs("nginx", "openssl", "knotd")
class BundleWorldTest(unittest.TestCase):
    """One world with the stand-in test server and netem, nginx, Knot and certbundle: the
    certificate bundles of the Snap Start origins through every source, and the broken cases.
    The teardown test runs last (test_zz_...)."""

    RTT_MS = 200
    CDN_RTT_MS = 300

    @classmethod
    def setUpClass(cls):
        cls.certbundle = certbundle_bin()
        cls.tmp = make_tmpdir("bundles")
        cls.wp = WorldProcess(os.path.join(cls.tmp, "w"), [
            "--testserver", FAKE_TESTSERVER, "--netem", FAKE_NETEM,
            "--certbundle", cls.certbundle, "--rtt-ms", str(cls.RTT_MS),
            "--revocation-filter-tool", revocation_filter_bin(),
            "--cdn-rtt-ms", str(cls.CDN_RTT_MS), "--dns-rtt-ms", "0", "--require-dns"])
        cls.world = cls.wp.world
        cls.bundles = cls.world["bundles"]
        cls.dns = cls.world["dns"]["direct"]

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "wp", None) is None:
            return
        cls.wp.stop()
        for pid, cmd in processes_mentioning(cls.wp.dir):
            os.kill(pid, signal.SIGKILL)  # only processes started for this test's directory

    def inspect(self, data, *flags, txt_name=None):
        """`certbundle inspect --json` of data (bytes of a file, or TXT strings with
        txt_name). Returns (exit code, the JSON or None, stderr)."""
        fd, path = tempfile.mkstemp(dir=self.tmp, suffix=".bundle")
        with os.fdopen(fd, "wb") as f:
            if txt_name is not None:
                f.write(("\n".join([txt_name] + data) + "\n").encode("ascii"))
            else:
                f.write(data)
        rc, out, err = run([self.certbundle, "inspect", "--json"] + list(flags) + [path])
        return rc, (json.loads(out) if out.strip() else None), err

    def txt_record(self, name, **kw):
        rcode, flags, records = dns_txt(self.dns, name, **kw)
        self.assertEqual(rcode, 0, name)
        self.assertEqual(len(records), 1, "%s: %r" % (name, records))
        return records[0]

    def get(self, url):
        return http_get(self.world, url)

    def assert_bundle(self, info, key):
        """info (inspect's JSON) is the bundle of Snap Start origin `key`."""
        o = self.world["origins"][key]
        self.assertEqual(info["host"], o["host"])
        self.assertEqual(info["port"], o["port"])
        self.assertEqual(info["orbit"], o["snap_start_orbit"])
        self.assertEqual(info["cipher_suite"], "0x009c")
        self.assertEqual(info["check"], "ok")
        self.assertEqual(info["chain"][0]["subject"], "CN=" + o["host"])
        self.assertEqual(info["created_unix"], self.bundles["created_unix"])

    def test_world_json(self):
        w, b = self.world, self.bundles
        self.assertEqual(w["skipped"], {})
        self.assertEqual(w["missing_peers"], {})
        self.assertEqual(w["bundle_cdns"], ["http://cdn%d.example.test/bundles" % i
                                            for i in (1, 2, 3)])
        self.assertEqual(sorted(b["origins"]), ["bigchain", "slow", "tls12", "www"])
        self.assertEqual(b["truncated_handshake"], ["www", "slow", "tls12", "slow12",
                                                    "bigchain"])
        self.assertEqual(b["txt_name_prefix"], "_certbundle.")
        self.assertEqual(b["well_known_path"], "/.well-known/cert-bundle")
        for key, orbit in (("www", "0102030405060708"), ("slow", "1112131415161718"),
                           ("tls12", "2122232425262728"), ("slow12", "2122232425262728"),
                           ("bigchain", "3132333435363738")):
            self.assertEqual(w["origins"][key]["snap_start_orbit"], orbit)
        for key in ("nginx", "ecdsa", "static", "www_http", "expired"):
            self.assertIsNone(w["origins"][key]["snap_start_orbit"], key)
        for key, o in b["origins"].items():
            origin = w["origins"][key]
            self.assertEqual((o["host"], o["port"], o["orbit"]),
                             (origin["host"], origin["port"], origin["snap_start_orbit"]))
            if key == "bigchain":  # its ~5 KB chain: the CDNs only (no TXT record)
                self.assertEqual(sorted(o["sources"]), ["cdn", "truncated"])
                continue
            self.assertEqual(sorted(o["sources"]), ["cdn", "dns", "truncated", "well-known"])
            self.assertEqual(o["sources"]["truncated"]["port"], origin["port"])
            wk = o["sources"]["well-known"]
            self.assertEqual(wk["url"], "http://%s/.well-known/cert-bundle" % o["host"])
            self.assertIn("%s:80::%d" % (o["host"], wk["port"]), w["connect_to"])
            self.assertIn("%s:%d:%s" % (o["host"], wk["port"], wk["address"]), w["resolve"])
            self.assertEqual(o["sources"]["cdn"]["urls"],
                             ["http://cdn%d.example.test/bundles/%s.crt" % (i, o["host"])
                              for i in (1, 3)])
        self.assertEqual(b["origins"]["www"]["sources"]["dns"]["form"], "bundle")
        self.assertEqual(b["origins"]["slow"]["sources"]["dns"]["form"], "bundle")
        self.assertEqual(b["origins"]["tls12"]["sources"]["dns"]["form"], "pointer")
        self.assertEqual(b["origins"]["slow"]["sources"]["well-known"]["rtt_ms"], self.RTT_MS)
        self.assertEqual(b["origins"]["slow"]["sources"]["well-known"]["process"],
                         "netem-well-known-slow")
        for i, addr in ((1, "127.0.0.23"), (2, "127.0.0.24"), (3, "127.0.0.25")):
            c = b["cdns"]["cdn%d" % i]
            host = "cdn%d.example.test" % i
            self.assertEqual((c["host"], c["address"]), (host, addr))
            self.assertEqual(w["hosts"][host], addr)
            self.assertEqual(w["dns"]["records"][host], addr)
            self.assertIn("%s:80::%d" % (host, c["port"]), w["connect_to"])
            self.assertIn("%s:%d:%s" % (host, c["port"], addr), w["resolve"])
        self.assertEqual([b["cdns"][c]["serves"] for c in ("cdn1", "cdn2", "cdn3")],
                         ["files", "404", "files"])
        self.assertEqual(b["cdns"]["cdn3"]["rtt_ms"], self.CDN_RTT_MS)
        for name in ("netem-cdn3", "netem-well-known-slow", "nginx", "dns_knot"):
            self.assertTrue(pid_alive(w["pids"][name]), name)
        # Every case, on a host of its own (none on a Snap Start origin's host).
        cases = w["bundle_cases"]
        self.assertEqual(sorted(cases), sorted(world_py.BUNDLE_CASES))
        positive = {o["host"] for o in b["origins"].values()}
        for name, c in cases.items():
            self.assertNotIn(c["host"], positive, name)
            self.assertEqual(c["origin_expect"], w["origins"][c["origin"]]["expect"], name)
            self.assertIn(c["expect"], ("rejected", "recovers"), name)
            self.assertIn(c["source"], ("dns", "cdn"), name)
            self.assertTrue(c["reason"] and c["description"], name)
        self.assertEqual(sorted(self.world["dns"]["bundle_txt_names"]), sorted(
            ["_certbundle.%s.example.test" % h for h in (
                "www", "slow", "tls12", "nginx", "ecdsa", "slow12", "expired", "wrongname",
                "untrusted", "revoked")]))

    @needs("knotc")
    def test_zone_with_bundles_is_valid(self):
        rc, out, err = run([KNOTC, "-c", self.world["dns"]["config"], "zone-check",
                            "example.test"])
        self.assertEqual(rc, 0, out + err)

    def test_dns_txt_full_bundles(self):
        for key in ("www", "slow"):
            src = self.bundles["origins"][key]["sources"]["dns"]
            self.assertEqual(src["name"], "_certbundle.%s.example.test" % key)
            with open(src["txt"]) as f:
                published = f.read().splitlines()
            # Over UDP with EDNS 4096 the ~2.2 KB record comes whole; over TCP too.
            rcode, flags, records = dns_txt(self.dns, src["name"], tcp=False)
            self.assertEqual((rcode, flags & 0x0200), (0, 0), "TC set or error")
            self.assertEqual(records, [published[1:]])
            strings = self.txt_record(src["name"])
            self.assertEqual([src["name"]] + strings, published)
            self.assertEqual(len(strings), src["strings"])
            self.assertTrue(all(len(x) <= 255 for x in strings))
            self.assertTrue(strings[0].startswith("v=cb1; b="))
            rc, info, err = self.inspect(strings, txt_name=src["name"])
            self.assertEqual(rc, 0, err)
            self.assert_bundle(info, key)
            self.assertEqual(info["name"], src["name"])
            self.assertEqual(info["form"], "txt")

    def test_dns_txt_pointer_to_cdn1(self):
        src = self.bundles["origins"]["tls12"]["sources"]["dns"]
        url = "http://cdn1.example.test/bundles/tls12.example.test.crt"
        self.assertEqual(src["url"], url)
        strings = self.txt_record("_certbundle.tls12.example.test")
        self.assertEqual(strings, ["v=cb1; url=" + url])
        rc, info, err = self.inspect(strings, txt_name=src["name"])
        self.assertEqual((rc, info["pointer"]), (0, url), err)
        status, ctype, body, _ = self.get(url)
        self.assertEqual((status, ctype), (200, "application/octet-stream"))
        rc, info, err = self.inspect(body)
        self.assertEqual(rc, 0, err)
        self.assert_bundle(info, "tls12")

    def test_well_known(self):
        times = {}
        for key, o in self.bundles["origins"].items():
            if "well-known" not in o["sources"]:
                continue  # bigchain: on the CDNs only
            status, ctype, body, secs = self.get(o["sources"]["well-known"]["url"])
            self.assertEqual((status, ctype), (200, "application/octet-stream"), key)
            times[key] = secs
            rc, info, err = self.inspect(body)
            self.assertEqual(rc, 0, err)
            self.assert_bundle(info, key)
            self.assertEqual(info["form"], "file")
            # The well-known and CDN forms are the same bytes.
            with open(o["file"], "rb") as f:
                self.assertEqual(body, f.read())
            self.assertEqual(len(body), o["file_bytes"])
            # Only that path is served there.
            status, _, _, _ = self.get("http://%s/.well-known/other" % o["host"])
            self.assertEqual(status, 404)
        # slow's well-known path is behind its relay; www's is not.
        self.assertGreaterEqual(times["slow"], self.RTT_MS / 1000.0)
        self.assertLess(times["www"], self.RTT_MS / 2000.0)

    def test_cdns(self):
        for key, o in self.bundles["origins"].items():
            with open(o["file"], "rb") as f:
                want = f.read()
            host = o["host"]
            status, ctype, body, fast = self.get("http://cdn1.example.test/bundles/%s.crt" % host)
            self.assertEqual((status, ctype, body), (200, "application/octet-stream", want), key)
            rc, info, err = self.inspect(body)
            self.assertEqual(rc, 0, err)
            self.assert_bundle(info, key)
            # cdn2: 404 (nginx's HTML page), which is not a bundle.
            status, ctype, body, _ = self.get("http://cdn2.example.test/bundles/%s.crt" % host)
            self.assertEqual((status, ctype), (404, "text/html"), key)
            self.assertIn(b"404 Not Found", body)
            rc, info, err = self.inspect(body)
            self.assertEqual(rc, 1)
            self.assertIn("neither a bundle file", err)
            # cdn3: the same file, at least one relay RTT later.
            status, ctype, body, slow = self.get("http://cdn3.example.test/bundles/%s.crt" % host)
            self.assertEqual((status, body), (200, want), key)
            self.assertGreaterEqual(slow, self.CDN_RTT_MS / 1000.0)
            self.assertLess(fast, self.CDN_RTT_MS / 2000.0)
        status, _, _, _ = self.get("http://cdn1.example.test/bundles/static.example.test.crt")
        self.assertEqual(status, 404)
        status, _, _, _ = self.get("http://cdn1.example.test/other")
        self.assertEqual(status, 404)

    def case(self, name):
        c = self.world["bundle_cases"][name]
        if c["source"] == "dns":
            self.assertEqual(c["name"], "_certbundle." + c["host"])
            strings = self.txt_record(c["name"])
            with open(c["txt"]) as f:
                self.assertEqual([c["name"]] + strings, f.read().splitlines())
            return c, strings
        self.assertEqual(c["urls"], ["http://cdn%d.example.test/bundles/%s.crt" % (i, c["host"])
                                     for i in (1, 3)])
        got = [self.get(u) for u in c["urls"]]
        self.assertEqual(got[0][2], got[1][2])  # cdn3 serves what cdn1 does
        return c, got[0]

    def inspect_case(self, c, data):
        port = str(self.world["origins"][c["origin"]]["port"])
        if c["source"] == "dns":
            return self.inspect(data, "--host", c["host"], "--port", port, txt_name=c["name"])
        return self.inspect(data[2], "--host", c["host"], "--port", port)

    def verify(self, chain, hostname, cafile=None):
        return run([OPENSSL, "verify", "-CAfile", cafile or self.world["trust_anchors"],
                    "-untrusted", chain, "-verify_hostname", hostname, chain])

    def test_case_another_host_bundle(self):
        c, strings = self.case("another_host_bundle")
        self.assertEqual((c["host"], c["reason"]), ("nginx.example.test", "wrong_host"))
        www = self.bundles["origins"]["www"]["sources"]["dns"]
        with open(www["txt"]) as f:
            self.assertEqual(strings, f.read().splitlines()[1:])  # www's record, verbatim
        rc, info, err = self.inspect_case(c, strings)
        self.assertEqual(rc, 1)
        self.assertEqual(info["host"], "www.example.test")
        self.assert_bundle(dict(info, check="ok"), "www")  # a perfectly good bundle for www
        self.assertIn("www.example.test", info["check"])

    def test_case_another_host_chain(self):
        c, (status, ctype, body, _) = self.case("another_host_chain")
        self.assertEqual((c["host"], c["reason"]), ("nginx.example.test", "chain_not_for_host"))
        self.assertEqual(status, 200)
        rc, info, err = self.inspect_case(c, (status, ctype, body))
        self.assertEqual(rc, 0, err)  # its shape is right: host, port, dates
        self.assertEqual(info["host"], "nginx.example.test")
        self.assertEqual(info["chain"][0]["subject"], "CN=www.example.test")
        rc, out, err = self.verify(c["chain"], "nginx.example.test")
        self.assertNotEqual(rc, 0)
        self.assertIn("hostname mismatch", out + err)
        self.assertEqual(self.verify(c["chain"], "www.example.test")[0], 0)

    def test_case_untrusted_root(self):
        c, strings = self.case("untrusted_root")
        self.assertEqual((c["host"], c["reason"]), ("ecdsa.example.test", "untrusted_root"))
        rc, info, err = self.inspect_case(c, strings)
        self.assertEqual(rc, 0, err)
        self.assertEqual(info["host"], "ecdsa.example.test")
        self.assertEqual([x["subject"] for x in info["chain"]],
                         ["CN=ecdsa.example.test",
                          "CN=netstack Untrusted Root CA,O=netstack untrusted"])
        rc, out, err = self.verify(c["chain"], "ecdsa.example.test")
        self.assertNotEqual(rc, 0)
        self.assertRegex(out + err, r"error (19|20) at")
        # The chain is fine for its host; only the root is not a trust anchor.
        rc, out, err = self.verify(c["chain"], "ecdsa.example.test",
                                   cafile=self.world["pki"]["untrusted_root"])
        self.assertEqual(rc, 0, out + err)

    def test_case_not_a_bundle(self):
        c, (status, ctype, body, _) = self.case("not_a_bundle")
        self.assertEqual((c["host"], c["reason"]), ("ecdsa.example.test", "not_a_bundle"))
        self.assertEqual((status, ctype), (200, "text/html"))
        self.assertTrue(body.startswith(b"<!DOCTYPE html>"))
        rc, info, err = self.inspect_case(c, (status, ctype, body))
        self.assertEqual(rc, 1)
        self.assertIn("neither a bundle file", err)

    def test_case_stale_orbit(self):
        c, strings = self.case("stale_orbit")
        self.assertEqual((c["host"], c["expect"], c["reason"]),
                         ("slow12.example.test", "recovers", "stale_orbit"))
        slow12 = self.world["origins"]["slow12"]
        self.assertEqual(c["server_orbit"], slow12["snap_start_orbit"])
        self.assertNotEqual(c["orbit"], c["server_orbit"])
        rc, info, err = self.inspect_case(c, strings)
        self.assertEqual(rc, 0, err)  # a good bundle, but for an orbit the server left
        self.assertEqual((info["host"], info["port"], info["orbit"]),
                         ("slow12.example.test", slow12["port"], c["orbit"]))
        self.assertEqual(self.verify(c["chain"], "slow12.example.test")[0], 0)

    def test_case_expired(self):
        c, strings = self.case("expired")
        rc, info, err = self.inspect_case(c, strings)
        self.assertEqual(rc, 1)
        self.assertEqual(info["host"], "expired.example.test")
        self.assertIn("expired", info["check"])

    def test_case_bad_txt_record(self):
        c, strings = self.case("bad_txt_record")
        self.assertEqual(c["host"], "wrongname.example.test")
        self.assertEqual(strings, [world_py.BAD_TXT_RECORD])
        rc, info, err = self.inspect_case(c, strings)
        self.assertEqual((rc, info), (1, None))
        self.assertIn("not base64", err)

    def test_case_malformed_bundle(self):
        c, strings = self.case("malformed_bundle")
        self.assertEqual(c["host"], "untrusted.example.test")
        self.assertTrue(strings[0].startswith("v=cb1; b="))
        raw = base64.b64decode("".join(strings)[len("v=cb1; b="):])
        self.assertTrue(raw.startswith(b"\x89CB\n"))  # the magic, then not a bundle
        rc, info, err = self.inspect_case(c, strings)
        self.assertEqual((rc, info), (1, None))
        self.assertIn("certbundle:", err)

    def test_case_revoked(self):
        c, strings = self.case("revoked")
        rc, info, err = self.inspect_case(c, strings)
        self.assertEqual(rc, 0, err)  # well formed and verifying: only revocation rejects it
        self.assertEqual(info["host"], "revoked.example.test")
        self.assertEqual(self.verify(c["chain"], "revoked.example.test")[0], 0)
        crls = os.path.join(self.tmp, "crls.pem")
        with open(crls, "w") as f:
            for p in (self.world["crl"]["root_pem"], self.world["crl"]["pem"]):
                with open(p) as crl:
                    f.write(crl.read())
        rc, out, err = run([OPENSSL, "verify", "-CAfile", self.world["trust_anchors"],
                            "-untrusted", c["chain"], "-crl_check_all", "-CRLfile", crls,
                            c["chain"]])
        self.assertNotEqual(rc, 0)
        self.assertIn("certificate revoked", out + err)

    def test_zz_teardown(self):
        pids = {n: self.world["pids"][n] for n in ("nginx", "netem-cdn3",
                                                   "netem-well-known-slow", "dns_knot")}
        rc = self.wp.stop()
        self.assertEqual(rc, 0, self.wp.stderr())
        for name, pid in pids.items():
            self.assertFalse(pid_alive(pid), "%s (%d) survived teardown" % (name, pid))
        self.assertEqual(processes_mentioning(self.wp.dir), [])


@needs("nginx", "openssl")
class StartupFailureTest(unittest.TestCase):
    def test_failing_peer_stops_world(self):
        tmp = make_tmpdir("fail")
        bad = os.path.join(tmp, "bad_testserver")
        with open(bad, "w") as f:
            f.write("#!/bin/sh\necho 'cannot load certificate' >&2\nexit 3\n")
        os.chmod(bad, 0o755)
        d = os.path.join(tmp, "w")
        rc, out, err = run([sys.executable, WORLD, "--dir", d, "--testserver", bad,
                            "--run", "true"], timeout=120)
        self.assertEqual(rc, 1, err)
        self.assertNotIn("WORLD READY", out + err)
        self.assertRegex(err, r"testserver-\w+ exited during start-up \(exit code 3\)")
        self.assertIn(os.path.join(d, "logs", "testserver-"), err)
        self.assertIn("cannot load certificate", err)
        self.assertFalse(os.path.exists(os.path.join(d, "world.json")))
        self.assertEqual(processes_mentioning(d), [])  # nginx had started; it must be gone

    def test_failing_knotd_stops_world(self):
        tmp = make_tmpdir("failknot")
        bad = os.path.join(tmp, "bad_knotd")
        with open(bad, "w") as f:
            f.write("#!/bin/sh\necho 'critical: failed to configure server'\nexit 1\n")
        os.chmod(bad, 0o755)
        d = os.path.join(tmp, "w")
        rc, out, err = run([sys.executable, WORLD, "--dir", d, "--no-nginx", "--knotd", bad,
                            "--run", "true"], timeout=120)
        self.assertEqual(rc, 1, err)
        self.assertIn("dns_knot exited during start-up (exit code 1)", err)
        self.assertIn(os.path.join(d, "logs", "dns_knot.log"), err)
        self.assertIn("failed to configure server", err)
        self.assertEqual(processes_mentioning(d), [])

    def test_require_dns_without_knotd(self):
        # As if knot were not installed: world.py with no knotd to be found.
        d = os.path.join(make_tmpdir("noknot"), "w")
        code = ("import sys; sys.path.insert(0, %r); import world; "
                "world._default_knotd = lambda: None; sys.exit(world.main(sys.argv[1:]))" % HERE)
        rc, out, err = run([sys.executable, "-c", code, "--dir", d, "--no-nginx",
                            "--require-dns", "--run", "true"])
        self.assertEqual(rc, 1)
        self.assertIn("--require-dns, but knotd was not found", err)
        # Without --require-dns, DNS is skipped and noted.
        rc, out, err = run([sys.executable, "-c", code, "--dir", d, "--no-nginx", "--run",
                            "sh", "-c", "cat $NETSTACK_WORLD"], timeout=120)
        self.assertEqual(rc, 0, err)
        w = json.loads(out)
        self.assertIsNone(w["dns"])
        self.assertIn("knotd not found", w["skipped"]["dns"])
        self.assertIn("not starting DNS", err)
        # A peer that was not found is a missing peer (tests/e2e.py fails on it); one turned
        # off (--no-nginx) is not.
        self.assertEqual(list(w["missing_peers"]), ["knotd"])

    def test_missing_binary(self):
        d = os.path.join(make_tmpdir("missing"), "w")
        rc, out, err = run([sys.executable, WORLD, "--dir", d, "--netem", "/nonexistent/netem",
                            "--run", "true"])
        self.assertEqual(rc, 1)
        self.assertIn("--netem /nonexistent/netem: not an executable file", err)
        rc, out, err = run([sys.executable, WORLD, "--dir", d, "--certbundle",
                            "/nonexistent/certbundle", "--run", "true"])
        self.assertEqual(rc, 1)
        self.assertIn("--certbundle /nonexistent/certbundle: not an executable file", err)

    def test_failing_certbundle_stops_world(self):
        tmp = make_tmpdir("failcb")
        bad = os.path.join(tmp, "bad_certbundle")
        with open(bad, "w") as f:
            f.write("#!/bin/sh\necho 'certbundle: chain.pem: no certificate' >&2\nexit 1\n")
        os.chmod(bad, 0o755)
        d = os.path.join(tmp, "w")
        rc, out, err = run([sys.executable, WORLD, "--dir", d, "--no-nginx", "--no-dns",
                            "--testserver", FAKE_TESTSERVER, "--certbundle", bad,
                            "--run", "true"], timeout=120)
        self.assertEqual(rc, 1, err)
        self.assertIn("certbundle failed (exit 1): certbundle: chain.pem: no certificate", err)
        self.assertFalse(os.path.exists(os.path.join(d, "world.json")))
        self.assertEqual(processes_mentioning(d), [])  # the testservers had started

    def test_no_bundles(self):
        # --no-bundles wins over --certbundle (world.sh passes one by default).
        d = os.path.join(make_tmpdir("nobundles"), "w")
        rc, out, err = run([sys.executable, WORLD, "--dir", d, "--no-nginx", "--no-dns",
                            "--no-ocsp", "--testserver", FAKE_TESTSERVER, "--certbundle",
                            certbundle_bin(), "--no-bundles", "--run", "sh", "-c",
                            "cat $NETSTACK_WORLD"], timeout=120)
        self.assertEqual(rc, 0, err)
        w = json.loads(out)
        self.assertEqual(w["skipped"]["bundles"], "--no-bundles")
        self.assertIsNone(w["bundles"])


def _namespace_usable():
    if not shutil.which("unshare") or not which("ip"):
        return False
    try:
        return subprocess.run(["unshare", "-n", which("ip"), "link", "set", "lo", "up"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@needs("nginx", "curl", "openssl")
class NamespaceTest(unittest.TestCase):
    def test_fixed_ports_in_namespace(self):
        if not _namespace_usable():
            self.skipTest("unshare -n is not permitted here")
        tmp = make_tmpdir("ns")
        d = os.path.join(tmp, "w")
        script = os.path.join(tmp, "check.sh")
        with open(script, "w") as f:
            f.write("set -e\n%s -sS --cacert %s/pki/root.pem --resolve "
                    "nginx.example.test:443:127.0.0.12 https://nginx.example.test/whoami\n" % (
                        CURL, d))
            if KNOTD and KDIG:  # DNS on port 53: knotd on .53, the relay on .54
                f.write("%s @127.0.0.53 -p 53 +short www.example.test A\n"
                        "%s @127.0.0.54 -p 53 +short +tcp ocsp.example.test A\n" % (KDIG, KDIG))
            # OCSP on the leaves' own URL's port (8888): the relay; the responder is elsewhere.
            f.write("%s ocsp -issuer %s/pki/intermediate.pem -cert %s/pki/www.example.test/"
                    "leaf.pem -url http://127.0.0.21:8888/ -CAfile %s/pki/root.pem "
                    "-timeout 10\n" % (OPENSSL, d, d, d))
            # Bundles: the CDNs on port 80 (as their URLs say), the well-known paths on 8080.
            f.write("%s -sS -o %s/cdn1.crt --resolve cdn1.example.test:80:127.0.0.23 "
                    "http://cdn1.example.test/bundles/www.example.test.crt\n"
                    "%s -sS -o %s/cdn3.crt --resolve cdn3.example.test:80:127.0.0.25 "
                    "http://cdn3.example.test/bundles/www.example.test.crt\n"
                    "%s -sS -o %s/wk.crt --resolve www.example.test:8080:127.0.0.11 "
                    "http://www.example.test:8080/.well-known/cert-bundle\n" % (
                        CURL, tmp, CURL, tmp, CURL, tmp))
        inner = ("%s link set lo up && exec %s %s --dir %s --fixed-ports --quiet --testserver %s "
                 "--netem %s --certbundle %s --rtt-ms 10 --dns-rtt-ms 10 --ocsp-rtt-ms 10 "
                 "--cdn-rtt-ms 10 --run sh %s" % (
                     which("ip"), sys.executable, WORLD, d, FAKE_TESTSERVER, FAKE_NETEM,
                     certbundle_bin(), script))
        rc, out, err = run(["unshare", "-n", "sh", "-c", inner], timeout=120)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"^proto=TLSv1.3 ")
        with open(os.path.join(d, "world.json")) as f:
            w = json.load(f)
        self.assertEqual(w["origins"]["nginx"]["url"], "https://nginx.example.test/")
        self.assertEqual(w["origins"]["www_http"]["url"], "http://www.example.test/")
        self.assertEqual(w["origins"]["slow"]["url"], "https://slow.example.test/")
        self.assertIn("static.example.test:80:127.0.0.13", w["resolve"])
        self.assertRegex(out, r"www.example.test/leaf.pem: good")
        self.assertEqual(w["ocsp"]["url"], "http://ocsp.example.test:8888/")
        self.assertEqual(w["ocsp"]["port"], 8888)
        self.assertNotEqual(w["ocsp"]["direct"], "127.0.0.21:8888")
        self.assertEqual(w["crl"]["url"], "http://static.example.test/intermediate.crl")
        # The embedded URLs and the CDNs' are right as they are; only the well-known paths
        # move (port 80 of www and slow is taken by their plain-HTTP origins), and no rule
        # can send them there without taking the plain-HTTP origins' traffic too.
        self.assertEqual(w["connect_to"], [])
        self.assertEqual(w["bundle_cdns"], ["http://cdn%d.example.test/bundles" % i
                                            for i in (1, 2, 3)])
        self.assertEqual(w["bundles"]["origins"]["www"]["port"], 443)
        contents = []
        for name in ("cdn1.crt", "cdn3.crt", "wk.crt"):
            with open(os.path.join(tmp, name), "rb") as f:
                contents.append(f.read())
        with open(w["bundles"]["origins"]["www"]["file"], "rb") as f:
            self.assertEqual(contents, [f.read()] * 3)
        rc, got, err = run([certbundle_bin(), "inspect", "--json", os.path.join(tmp, "wk.crt")])
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(got)["port"], 443)
        if KNOTD and KDIG:
            self.assertEqual(out.splitlines()[1:3], ["127.0.0.11", "127.0.0.21"])
            self.assertEqual(w["dns"]["direct"], "127.0.0.53:53")
            self.assertEqual(w["dns"]["server"], "127.0.0.54:53")
        self.assertEqual(processes_mentioning(d), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
