#!/usr/bin/env python3
"""Throw-away PKI for the local world, made with the `openssl` command line.

build(DIR) makes, in about a second:

  DIR/root.pem                 trust anchor (RSA-2048), the only one clients should trust
  DIR/intermediate.pem         issued by the root; issues every leaf below
  DIR/<host>/leaf.pem          the leaf certificate
  DIR/<host>/key.pem           its private key (PEM, unencrypted)
  DIR/<host>/chain.pem         leaf then intermediate (what a server sends)
  DIR/intermediate/            the intermediate's `openssl ca` database:
                               index.txt (revoked leaf marked R), serial,
                               crlnumber, key.pem, ca.cnf, certs/
  DIR/root/                    the root's database, likewise
  DIR/intermediate.crl(.pem)   CRL of the intermediate (DER / PEM), lists the revoked leaf
  DIR/root.crl(.pem)           CRL of the root (empty)
  DIR/intermediate.der         the intermediate in DER (what AIA caIssuers points at)
  DIR/ocsp-signer/             delegated OCSP signer: leaf.pem, key.pem, chain.pem
  DIR/intermediate2.pem        a second intermediate, issued by the root, that a revocation
                               filter does not cover (its own OCSP responder, signing
                               itself, on port 8889); DIR/intermediate2/ its database,
                               DIR/intermediate2.crl(.pem) its (empty) CRL, .der for AIA
  DIR/untrusted-root.pem       a second root that is NOT a trust anchor
  DIR/pki.json                 manifest of all of the above (see MANIFEST below)

Hosts (all with SAN dNSName, RSA-2048 unless noted):
  www, nginx, slow, static    good leaves
  ecdsa                       good leaf with a P-256 key
  tls12                       good leaf for tls12.example.test and slow12.example.test
  expired                     validity entirely in the past            -> "certificate has expired"
  wrongname                   SAN is other.example.test                -> hostname mismatch
  untrusted                   issued by untrusted-root                 -> unknown issuer
  revoked                     revoked (keyCompromise) in index.txt/CRL -> revoked via CRL/OCSP
                              (SANs revoked and revoked-stapled)
  stapled                     good leaf with a P-256 key for stapled and stapled-other (the
                              OCSP-stapling origins)
  wildcard                    good leaf for *.pages.example.test (directory
                              wildcard.example.test)
  uncovered                   good leaf issued by intermediate2, the CA the world's revocation
                              filter does not cover: a client with the filter asks OCSP
  ech                         good leaf for ech, stale-ech, alias-ech, badrr, h3only and
                              public (the ECH configuration's public name)

Every intermediate-issued leaf carries AIA OCSP http://ocsp.example.test:8888/, AIA caIssuers
http://static.example.test/intermediate.der and CRL DP http://static.example.test/intermediate.crl;
intermediate2's leaves http://ocsp.example.test:8889/, .../intermediate2.der and
.../intermediate2.crl.

All files are world-readable (nginx workers run as nobody); this PKI is for tests only.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time

DOMAIN = "example.test"
OCSP_URL = "http://ocsp.example.test:8888/"
CRL_URL = "http://static.example.test/intermediate.crl"
ROOT_CRL_URL = "http://static.example.test/root.crl"
CA_ISSUERS_URL = "http://static.example.test/intermediate.der"
# intermediate2's leaves: their own responder (another port of ocsp.example.test), CRL and AIA.
OCSP2_URL = "http://ocsp.example.test:8889/"
CRL2_URL = "http://static.example.test/intermediate2.crl"
CA_ISSUERS2_URL = "http://static.example.test/intermediate2.der"

TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

# The leaves. name -> dict(names=[SAN dNSNames], key="rsa"|"ec", issuer, expect, ...).
# `expect` names the outcome a client should see (fixtures are named by outcome).
HOSTS = {
    "www": dict(names=["www.example.test"], key="rsa", expect="ok"),
    "nginx": dict(names=["nginx.example.test"], key="rsa", expect="ok"),
    "slow": dict(names=["slow.example.test"], key="rsa", expect="ok"),
    "static": dict(names=["static.example.test"], key="rsa", expect="ok"),
    "ecdsa": dict(names=["ecdsa.example.test"], key="ec", expect="ok"),
    "tls12": dict(names=["tls12.example.test", "slow12.example.test"], key="rsa", expect="ok"),
    "expired": dict(names=["expired.example.test"], key="rsa", expect="expired"),
    "wrongname": dict(names=["other.example.test"], cn="wrongname.example.test", key="rsa",
                      expect="wrong_name"),
    "untrusted": dict(names=["untrusted.example.test"], key="rsa", issuer="untrusted-root",
                      expect="untrusted"),
    "revoked": dict(names=["revoked.example.test", "revoked-stapled.example.test"], key="rsa",
                    expect="revoked"),
    # nginx's OCSP-stapling origins (world.py STAPLING_ORIGINS): a good staple, and a staple
    # for another certificate (www's) on the same leaf.
    "stapled": dict(names=["stapled.example.test", "stapled-other.example.test"], key="ec",
                    expect="ok"),
    # The SPDY/3 origin (a testserver with --spdy: ALPN spdy/3, then http/1.1).
    "spdy": dict(names=["spdy.example.test"], key="rsa", expect="ok"),
    # The ECH origin (hosts.py ECH_NAMES share its address; public.example.test is its ECH
    # configuration's public name, which a rejection is authenticated as).
    "ech": dict(names=["ech.example.test", "stale-ech.example.test", "alias-ech.example.test",
                       "badrr.example.test", "h3only.example.test", "deadrr.example.test",
                       "public.example.test"],
                key="rsa", expect="ok"),
    # A wildcard leaf: every host under pages.example.test (the SPDY page-load experiment's two
    # host names on one address, tools/experiments/spdy_page_load.py).
    "wildcard": dict(names=["*.pages.example.test"], key="rsa", expect="ok"),
    # Issued by intermediate2, which the world's revocation filter does not cover (world.py
    # builds the filter over the root's and the intermediate's issuance only).
    "uncovered": dict(names=["uncovered.example.test"], key="rsa", issuer="intermediate2",
                      expect="ok"),
    # The HTTP/3 origin (Caddy, UDP and TCP): an RSA-2048 leaf as slow's, so rows compare.
    "h3": dict(names=["h3.example.test"], key="rsa", expect="ok"),
    # A large chain: RSA-2048 as slow's, but with 110 more SANs (as a CDN's
    # shared certificate), so leaf + intermediate come to ~5.1 KB (DER), over QUIC's anti-
    # amplification limit of 3 x 1200 bytes before the client's address is validated.
    "bigchain": dict(names=["bigchain.example.test"] + [
        "s%03d.bigchain.example.test" % i for i in range(110)], key="rsa", expect="ok"),
}


def host_dir_name(name):
    """Directory (under the PKI dir) of the leaf for HOSTS[name]: the full host name."""
    return name + "." + DOMAIN


class PkiError(Exception):
    pass


def _read_template(name):
    with open(os.path.join(TEMPLATE_DIR, name)) as f:
        return f.read()


def fill_template(text, values):
    """Replaces every @KEY@ in text; fails if a placeholder is left over."""
    for key, value in values.items():
        text = text.replace("@%s@" % key, str(value))
    if "@" in text:
        import re
        left = re.findall(r"@[A-Z_]+@", text)
        if left:
            raise PkiError("unfilled template placeholders: %s" % ", ".join(sorted(set(left))))
    return text


def _utc(dt):
    return dt.strftime("%Y%m%d%H%M%SZ")


class _Builder:
    def __init__(self, out, openssl="openssl"):
        self.out = os.path.abspath(out)
        self.openssl = openssl
        self.env = dict(os.environ)
        self.env["PKI_SAN"] = "DNS:unused.example.test"
        self.env["PKI_KU"] = "critical, digitalSignature"
        self.env.pop("OPENSSL_CONF", None)
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        self.now = now
        # Back-date a little so a client whose clock lags slightly still accepts.
        self.start = _utc(now - datetime.timedelta(hours=1))

    def path(self, *parts):
        return os.path.join(self.out, *parts)

    def run(self, args, env_extra=None):
        env = self.env
        if env_extra:
            env = dict(env)
            env.update(env_extra)
        r = subprocess.run([self.openssl] + args, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise PkiError("openssl %s failed (exit %d):\n%s%s" % (
                " ".join(args), r.returncode, r.stdout, r.stderr))
        return r.stdout

    # -- key generation: all keys and CSRs at once, in parallel ---------------------------------

    def new_requests(self, jobs):
        """jobs: list of (key_type, key_path, csr_path, subject). Runs `openssl req -newkey` for
        each, at most os.cpu_count() at a time."""
        pending = list(jobs)
        running = []
        limit = max(2, os.cpu_count() or 2)
        failures = []
        while pending or running:
            while pending and len(running) < limit:
                key_type, key, csr, subj = pending.pop(0)
                if key_type == "ec":
                    newkey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
                else:
                    newkey = ["-newkey", "rsa:2048"]
                args = [self.openssl, "req", "-new", "-config", self.path("root", "ca.cnf")] + \
                    newkey + ["-noenc", "-keyout", key, "-subj", subj, "-out", csr]
                p = subprocess.Popen(args, env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                running.append((p, args))
            p, args = running.pop(0)
            out, _ = p.communicate()
            if p.returncode != 0:
                failures.append("%s failed (exit %d):\n%s" % (" ".join(args), p.returncode, out))
        if failures:
            raise PkiError("\n".join(failures))

    # -- CA set-up ------------------------------------------------------------------------------

    def make_ca_dir(self, name, cert_path, first_serial, ocsp_url=OCSP_URL, crl_url=CRL_URL,
                    ca_issuers_url=CA_ISSUERS_URL):
        d = self.path(name)
        os.makedirs(os.path.join(d, "certs"), exist_ok=True)
        with open(os.path.join(d, "index.txt"), "w"):
            pass
        with open(os.path.join(d, "serial"), "w") as f:
            f.write("%s\n" % first_serial)
        with open(os.path.join(d, "crlnumber"), "w") as f:
            f.write("1000\n")
        cnf = fill_template(_read_template("ca.cnf.in"), {
            "CA_DIR": d,
            "CA_CERT": cert_path,
            "OCSP_URL": ocsp_url,
            "CRL_URL": crl_url,
            "ROOT_CRL_URL": ROOT_CRL_URL,
            "CA_ISSUERS_URL": ca_issuers_url,
        })
        with open(os.path.join(d, "ca.cnf"), "w") as f:
            f.write(cnf)
        return os.path.join(d, "ca.cnf")

    def ca_sign(self, ca, csr, out, extensions, days=None, start=None, end=None, selfsign=False,
                env_extra=None):
        args = ["ca", "-batch", "-notext", "-config", self.path(ca, "ca.cnf"), "-in", csr,
                "-out", out, "-extensions", extensions, "-startdate", start or self.start]
        if end:
            args += ["-enddate", end]
        elif days:
            args += ["-days", str(days)]
        if selfsign:
            args += ["-selfsign", "-keyfile", self.path(ca, "key.pem")]
        self.run(args, env_extra)

    def serial_of(self, cert):
        out = self.run(["x509", "-in", cert, "-noout", "-serial"]).strip()
        return out.split("=", 1)[1].upper()

    # -- the whole PKI --------------------------------------------------------------------------

    def build(self):
        t0 = time.monotonic()
        os.makedirs(self.out, exist_ok=True)
        os.chmod(self.out, 0o755)
        csr_dir = self.path("csr")
        os.makedirs(csr_dir, exist_ok=True)

        root_cnf = self.make_ca_dir("root", self.path("root.pem"), "01")
        self.make_ca_dir("intermediate", self.path("intermediate.pem"), "1000")
        self.make_ca_dir("untrusted-root", self.path("untrusted-root.pem"), "5000")
        self.make_ca_dir("intermediate2", self.path("intermediate2.pem"), "3000",
                         ocsp_url=OCSP2_URL, crl_url=CRL2_URL, ca_issuers_url=CA_ISSUERS2_URL)
        assert os.path.exists(root_cnf)

        jobs = [
            ("rsa", self.path("root", "key.pem"), os.path.join(csr_dir, "root.csr"),
             "/O=netstack test/CN=netstack Test Root CA"),
            ("rsa", self.path("intermediate", "key.pem"), os.path.join(csr_dir, "intermediate.csr"),
             "/O=netstack test/CN=netstack Test Intermediate CA"),
            ("rsa", self.path("intermediate2", "key.pem"),
             os.path.join(csr_dir, "intermediate2.csr"),
             "/O=netstack test/CN=netstack Test Intermediate CA 2"),
            ("rsa", self.path("untrusted-root", "key.pem"),
             os.path.join(csr_dir, "untrusted-root.csr"),
             "/O=netstack untrusted/CN=netstack Untrusted Root CA"),
            ("ec", self.path("ocsp-signer", "key.pem"), os.path.join(csr_dir, "ocsp-signer.csr"),
             "/O=netstack test/CN=netstack OCSP Responder"),
        ]
        os.makedirs(self.path("ocsp-signer"), exist_ok=True)
        for name, spec in HOSTS.items():
            d = self.path(host_dir_name(name))
            os.makedirs(d, exist_ok=True)
            cn = spec.get("cn", spec["names"][0])
            jobs.append((spec["key"], os.path.join(d, "key.pem"),
                         os.path.join(csr_dir, name + ".csr"), "/CN=" + cn))
        self.new_requests(jobs)

        # Roots and the intermediate.
        self.ca_sign("root", os.path.join(csr_dir, "root.csr"), self.path("root.pem"), "v3_root",
                     days=3650, selfsign=True)
        self.ca_sign("untrusted-root", os.path.join(csr_dir, "untrusted-root.csr"),
                     self.path("untrusted-root.pem"), "v3_root", days=3650, selfsign=True)
        self.ca_sign("root", os.path.join(csr_dir, "intermediate.csr"),
                     self.path("intermediate.pem"), "v3_intermediate", days=1825)
        self.run(["x509", "-in", self.path("intermediate.pem"), "-outform", "DER",
                  "-out", self.path("intermediate.der")])
        self.ca_sign("root", os.path.join(csr_dir, "intermediate2.csr"),
                     self.path("intermediate2.pem"), "v3_intermediate", days=1825)
        self.run(["x509", "-in", self.path("intermediate2.pem"), "-outform", "DER",
                  "-out", self.path("intermediate2.der")])

        # OCSP signer.
        self.ca_sign("intermediate", os.path.join(csr_dir, "ocsp-signer.csr"),
                     self.path("ocsp-signer", "leaf.pem"), "v3_ocsp", days=397)
        self._write_chain(self.path("ocsp-signer"), self.path("intermediate.pem"))

        # Leaves.
        manifest_hosts = {}
        for name, spec in HOSTS.items():
            d = self.path(host_dir_name(name))
            csr = os.path.join(csr_dir, name + ".csr")
            leaf = os.path.join(d, "leaf.pem")
            env = {
                "PKI_SAN": ", ".join("DNS:" + n for n in spec["names"]),
                "PKI_KU": "critical, digitalSignature" + (
                    ", keyEncipherment" if spec["key"] == "rsa" else ""),
            }
            issuer = spec.get("issuer", "intermediate")
            if name == "expired":
                self.ca_sign(issuer, csr, leaf, "v3_leaf", env_extra=env,
                             start=_utc(self.now - datetime.timedelta(days=400)),
                             end=_utc(self.now - datetime.timedelta(days=30)))
            elif issuer == "untrusted-root":
                self.ca_sign(issuer, csr, leaf, "v3_plain_leaf", days=397, env_extra=env)
            else:
                self.ca_sign(issuer, csr, leaf, "v3_leaf", days=397, env_extra=env)
            issuer_cert = self.path(issuer + ".pem")
            self._write_chain(d, issuer_cert)
            manifest_hosts[host_dir_name(name)] = {
                "fixture": name,
                "names": spec["names"],
                "key_type": "p256" if spec["key"] == "ec" else "rsa2048",
                "issuer": issuer,
                "expect": spec["expect"],
                "leaf": leaf,
                "key": os.path.join(d, "key.pem"),
                "chain": os.path.join(d, "chain.pem"),
                "serial": self.serial_of(leaf),
            }

        # Revocation: the revoked leaf, then both CRLs.
        revoked_leaf = self.path(host_dir_name("revoked"), "leaf.pem")
        self.run(["ca", "-config", self.path("intermediate", "ca.cnf"), "-revoke", revoked_leaf,
                  "-crl_reason", "keyCompromise"])
        for ca in ("intermediate", "intermediate2", "root"):
            pem = self.path(ca + ".crl.pem")
            self.run(["ca", "-config", self.path(ca, "ca.cnf"), "-gencrl", "-out", pem])
            self.run(["crl", "-in", pem, "-outform", "DER", "-out", self.path(ca + ".crl")])

        shutil.rmtree(csr_dir, ignore_errors=True)
        self._make_world_readable()

        manifest = {
            "dir": self.out,
            "root": self.path("root.pem"),
            "intermediate": self.path("intermediate.pem"),
            "intermediate_der": self.path("intermediate.der"),
            "intermediate2": self.path("intermediate2.pem"),
            "intermediate2_der": self.path("intermediate2.der"),
            "untrusted_root": self.path("untrusted-root.pem"),
            # Each CA's `openssl ca` database (certs/ holds a copy of every certificate it
            # issued): what the world's revocation filter is built from.
            "ca_dirs": {ca: self.path(ca) for ca in ("root", "intermediate", "intermediate2",
                                                      "untrusted-root")},
            "crl": {
                "intermediate": {"der": self.path("intermediate.crl"),
                                 "pem": self.path("intermediate.crl.pem"), "url": CRL_URL},
                "root": {"der": self.path("root.crl"), "pem": self.path("root.crl.pem"),
                         "url": ROOT_CRL_URL},
                "intermediate2": {"der": self.path("intermediate2.crl"),
                                  "pem": self.path("intermediate2.crl.pem"), "url": CRL2_URL},
            },
            "ocsp": {
                "url": OCSP_URL,
                "index": self.path("intermediate", "index.txt"),
                "ca": self.path("intermediate.pem"),
                "signer": self.path("ocsp-signer", "leaf.pem"),
                "signer_key": self.path("ocsp-signer", "key.pem"),
                "signer_chain": self.path("ocsp-signer", "chain.pem"),
            },
            # intermediate2's responder signs with the CA's own key.
            "ocsp2": {
                "url": OCSP2_URL,
                "index": self.path("intermediate2", "index.txt"),
                "ca": self.path("intermediate2.pem"),
                "signer": self.path("intermediate2.pem"),
                "signer_key": self.path("intermediate2", "key.pem"),
            },
            "ca_issuers_url": CA_ISSUERS_URL,
            "revoked_serials": [manifest_hosts[host_dir_name("revoked")]["serial"]],
            "hosts": manifest_hosts,
            "build_seconds": round(time.monotonic() - t0, 3),
        }
        with open(self.path("pki.json"), "w") as f:
            json.dump(manifest, f, indent=2, sort_keys=True)
            f.write("\n")
        os.chmod(self.path("pki.json"), 0o644)
        return manifest

    def _write_chain(self, d, issuer_cert):
        with open(os.path.join(d, "chain.pem"), "w") as out:
            for p in (os.path.join(d, "leaf.pem"), issuer_cert):
                with open(p) as f:
                    out.write(f.read())

    def _make_world_readable(self):
        for root, dirs, files in os.walk(self.out):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)


def build(out_dir, openssl="openssl"):
    """Builds the PKI in out_dir (created if missing; an earlier PKI there, recognised by its
    pki.json, is replaced). Returns the manifest (also written to out_dir/pki.json).
    Raises PkiError when an openssl step fails or out_dir holds something else."""
    out_dir = os.path.abspath(out_dir)
    if os.path.isdir(out_dir) and os.listdir(out_dir):
        if not os.path.exists(os.path.join(out_dir, "pki.json")) and \
                not os.path.exists(os.path.join(out_dir, "root", "ca.cnf")):
            raise PkiError("%s is not empty and does not hold an earlier PKI; refusing to "
                           "overwrite it" % out_dir)
        shutil.rmtree(out_dir)
    if shutil.which(openssl) is None:
        raise PkiError("openssl binary %r not found" % openssl)
    return _Builder(out_dir, openssl).build()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True, help="output directory (replaced if it holds a PKI)")
    ap.add_argument("--openssl", default="openssl", help="openssl binary (default: from PATH)")
    ap.add_argument("--quiet", action="store_true", help="print nothing on success")
    args = ap.parse_args(argv)
    try:
        manifest = build(args.dir, args.openssl)
    except PkiError as e:
        print("pki: error: %s" % e, file=sys.stderr)
        return 1
    if not args.quiet:
        print("pki: wrote %s in %.2f s (trust anchor %s)" % (
            os.path.join(manifest["dir"], "pki.json"), manifest["build_seconds"],
            manifest["root"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
