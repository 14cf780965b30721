"""The world's CRLite revocation filter (RevocationFilterMixin, part of World): built at start-up
with tools/revocation_filter from what the enrolled CAs issued (their `openssl ca` databases'
certs/ directories) and revoked (their CRLs, verified against them), written to
DIR/filters/revocation_filter and published on static.example.test beside the CRLs.

The enrolled CAs are the root and the intermediate. intermediate2 is left out on purpose, as a
CA that CRLite has not enrolled (Mozilla's filter covers only issuers whose revocations it
collects completely): its leaf (uncovered.example.test) is "not covered", and a client with
the filter asks intermediate2's OCSP responder about it.
"""

import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import WorldError  # noqa: E402

FILTER_FILE = "revocation_filter"  # in DIR/filters and DIR/static
ENROLLED_CAS = ("root", "intermediate")
NOT_ENROLLED_CAS = ("intermediate2",)


class RevocationFilterMixin:
    """World's revocation-filter part (uses World's args, paths, PKI and notes)."""

    def build_revocation_filter(self):
        """Builds and publishes the filter; fills self.revocation_filter (world.json's
        `revocation_filter`, its `url` added once static.example.test runs). Without the tool
        it is skipped (world.json's skipped.revocation_filter). Raises WorldError if the tool
        fails."""
        self.revocation_filter = None
        if not self.revocation_filter_tool:
            why = ("--no-revocation-filter" if self.args.no_revocation_filter
                   else "no --revocation-filter-tool given")
            self.skipped["revocation_filter"] = why
            self.note("not building a revocation filter: %s" % why)
            return
        p = self.pki
        d = self.path("filters")
        os.makedirs(d, exist_ok=True)
        out = os.path.join(d, FILTER_FILE)
        argv = [self.revocation_filter_tool, "build", "--out", out, "--sequence", "1", "--stats"]
        for ca in ENROLLED_CAS:
            argv += ["--issuer", p["root"] if ca == "root" else p[ca],
                     "--issued", os.path.join(p["ca_dirs"][ca], "certs"),
                     "--revoked", p["crl"][ca]["der"]]
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or not os.path.isfile(out):
            raise WorldError("revocation_filter build failed (exit %d): %s\n%s" % (
                r.returncode, " ".join(argv), r.stdout.strip()))
        os.chmod(out, 0o644)  # nginx workers serve the copy; clients read this one
        served = self.path("static", FILTER_FILE)
        shutil.copyfile(out, served)
        os.chmod(served, 0o644)
        info = self.revocation_filter_info(out)
        m = re.search(r"(\d+) revoked and (\d+) valid certificates \((\d+) expired", r.stdout)
        self.revocation_filter = {
            "file": out,
            "static_file": served,
            "url": None,  # http://static.example.test[:PORT]/revocation_filter once it runs
            "tool": self.revocation_filter_tool,
            "format": "cert/revocation_filter.h",
            "sequence": int(info["sequence"]),
            "created_unix": int(re.search(r"\((\d+)\)", info["created"]).group(1)),
            "coverage_unix": int(re.search(r"\((\d+)\)", info["coverage"]).group(1)),
            "levels": int(info["levels"]),
            "bytes": int(info["bytes"]),
            "revoked": int(m.group(1)) if m else None,
            "valid": int(m.group(2)) if m else None,
            "expired_left_out": int(m.group(3)) if m else None,
            "enrolled": list(ENROLLED_CAS),
            "not_enrolled": list(NOT_ENROLLED_CAS),
            "issuers": [line.split(" ", 1)[1] for line in info["issuer"]],
            "revoked_serials": p["revoked_serials"],
            "not_covered_hosts": sorted(h for h, v in p["hosts"].items()
                                        if v["issuer"] in NOT_ENROLLED_CAS),
            "build_output": r.stdout.strip().splitlines(),
        }

    def revocation_filter_info(self, path):
        """`revocation_filter info PATH` as {key: value} (issuer: [values])."""
        r = subprocess.run([self.revocation_filter_tool, "info", path], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise WorldError("revocation_filter info %s failed (exit %d): %s" % (
                path, r.returncode, r.stdout.strip()))
        info = {"issuer": []}
        for line in r.stdout.splitlines():
            key, _, value = line.partition(": ")
            if key == "issuer":
                info["issuer"].append(value)
            else:
                info[key] = value
        return info

    def revocation_filter_json(self):
        """world.json's `revocation_filter` (None when skipped), with the URL it is served at."""
        if not self.revocation_filter:
            return None
        static = self.origins.get("static")
        return dict(self.revocation_filter,
                    url=static["url"] + FILTER_FILE if static else None)
