#!/usr/bin/env python3
"""Checks a short successors run (successors_smoke_test: one latency run after the warm-up and
every byte and cost measurement): the CSVs and the SVG written with every strategy, the exact
CSV headers, and a measured value for every row ("n/a" only where a mechanism cannot apply, and
"unavailable" only for 0-RTT to the world's ecdsa nginx, which has no early data). The fetch
under test is built from this tree and has every feature: a row the experiment reports
"unavailable" because a flag seems missing is a failure here, so `fetch --help` must list them.
Each fetch is checked by the experiment itself (0-RTT accepted, a preconnected socket used, Snap
Start from a prevalidated bundle, OCSP on the path of the first-visit rows, HTTP/3 over QUIC v1
with 0-RTT accepted on the return, the Snap Start + TFO click in the SYN). Timing is not judged,
but the round-trip table must be written with every QUIC and Snap Start row.

    python3 successors_smoke_check.py OUT_DIR [FETCH]

FETCH defaults to tools/fetch/fetch beside this script in the runfiles.
"""
import csv
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True

FILES = ["successors.csv", "successors_bytes.csv", "successors_cost.csv", "successors_runs.csv",
         "successors_revocation.csv", "successors.svg", "successors.txt",
         "successors_binding.csv", "successors_discovery.csv"]
STRATEGIES = ["http", "tls12_ocsp", "tls13_first", "tls13_filter", "tls13_preconnect",
              "tls13_0rtt", "snap_prefetched", "snap_prefetched_tfo", "quic_first", "quic_0rtt",
              "quic_0rtt_small"]
# The large-chain rows (latency only).
BIGCHAIN = ["bigchain_tls13_first", "bigchain_quic_first", "bigchain_snap_prefetched",
            "bigchain_snap_prefetched_tfo"]
# Rows the TCP byte relay cannot carry (QUIC over UDP; TFO's SYN data): n/a in the byte and
# cost tables.
NOT_RELAYED = ["snap_prefetched_tfo", "quic_first", "quic_0rtt", "quic_0rtt_small"]
CHAINS = ["rsa", "ecdsa", "rsa_nginx", "ecdsa_nginx"]
WANT_HEADERS = {
    "successors.csv": "strategy,runs,median_ms,min_ms,max_ms,median_ttfb_ms,status",
    "successors_bytes.csv": "strategy,chain,compression,bytes_before_response,server_bytes_total,"
                            "cert_algorithm,cert_compressed_bytes,cert_uncompressed_bytes,"
                            "tls_version,resumed,status,server_records",
    "successors_cost.csv": "strategy,links,connections,full_handshakes,resumed_handshakes,"
                           "snap_start_handshakes,truncated_handshakes,other_requests,"
                           "idle_connections,idle_connection_s,server_bytes,unclicked_link,"
                           "clicked_link,status",
    "successors_runs.csv": "run,strategy,order,responseEnd,responseStart,connectEnd,tls_version,"
                           "resumed,earlyData,socketPreconnected,snapStart,cert_source,"
                           "revocation_source,revocation_ms,ocsp_requests",
    "successors_revocation.csv": "strategy,how,revocation_source,ocsp_requests_per_visit,"
                                 "decision_ms_on_click,ocsp_bytes_per_visit,bytes_up_front,"
                                 "responder_learns,status",
}


class Checker:
    """Reads the CSVs of one run and collects their problems in `bad`."""

    def __init__(self, d):
        self.d = d
        self.bad = []

    def header(self, name):
        with open(os.path.join(self.d, name)) as f:
            return f.readline().strip()

    def rows(self, name):
        return list(csv.DictReader(open(os.path.join(self.d, name))))

    def expect_status(self, what, status, na=False):
        """True if status is ok; notes a problem unless it is ok or (where allowed) n/a."""
        if na:
            if not status.startswith("n/a"):
                self.bad.append("%s: status %r, expected n/a" % (what, status))
            return False
        if status != "ok" and not status.startswith("n/a"):
            self.bad.append("%s: status %r, expected ok" % (what, status))
            return False
        return status == "ok"

    def check_headers(self):
        for f, h in WANT_HEADERS.items():
            if self.header(f) != h:
                self.bad.append("%s header is %r" % (f, self.header(f)))

    def check_latency(self):
        lat = self.rows("successors.csv")
        if [r["strategy"] for r in lat] != STRATEGIES + BIGCHAIN:
            self.bad.append("latency rows %s" % [r["strategy"] for r in lat])
        for r in lat:
            if self.expect_status("latency " + r["strategy"], r["status"]):
                if r["runs"] != "1" or not 0 < float(r["min_ms"]) <= float(r["max_ms"]):
                    self.bad.append("latency %s: %s" % (r["strategy"], r))

    def check_byte_rows(self, b):
        for r in b:
            what = "bytes %s/%s/%s" % (r["strategy"], r["chain"], r["compression"])
            na = (r["strategy"] == "http" and (r["chain"] != "rsa" or
                                               r["compression"] != "off")) or \
                (r["strategy"] == "snap_prefetched" and r["chain"] != "rsa") or \
                r["strategy"] in NOT_RELAYED
            if (r["strategy"] == "tls13_0rtt" and r["chain"] == "ecdsa_nginx" and
                    r["status"].startswith(
                        "unavailable: the server's tickets allow no early data")):
                continue  # the world's ecdsa nginx has no ssl_early_data, on purpose
            if self.expect_status(what, r["status"], na):
                v = int(r["bytes_before_response"])
                if r["strategy"] == "http":
                    if v != 0:
                        self.bad.append("%s: %d bytes before a plain-HTTP response" % (what, v))
                elif not 0 < v < int(r["server_bytes_total"]):
                    self.bad.append("%s: %d bytes before the response of %s" % (
                        what, v, r["server_bytes_total"]))

    def check_bytes(self):
        b = self.rows("successors_bytes.csv")
        if len(b) != len(STRATEGIES) * len(CHAINS) * 3:
            self.bad.append("%d byte rows, expected %d" % (len(b),
                                                           len(STRATEGIES) * len(CHAINS) * 3))
        if sorted(set(r["chain"] for r in b)) != sorted(CHAINS):
            self.bad.append("chains %s" % sorted(set(r["chain"] for r in b)))
        self.check_byte_rows(b)

        def val(s, chain, comp):
            for r in b:
                if (r["strategy"], r["chain"], r["compression"]) == (s, chain, comp) and \
                        r["status"] == "ok":
                    return int(r["bytes_before_response"])
            return None
        # A full handshake sends the chain: more bytes than Snap Start's or 0-RTT's.
        full, snap = val("tls13_first", "rsa", "off"), val("snap_prefetched", "rsa", "off")
        if full is None or snap is None or not snap < full:
            self.bad.append("Snap Start sent %s bytes before the response, a full handshake %s"
                            % (snap, full))
        # The test server compresses: brotli saves bytes on a TLS 1.3 full handshake, both
        # chains.
        for chain in ("rsa", "ecdsa"):
            off, br = val("tls13_first", chain, "off"), val("tls13_first", chain, "brotli")
            if off is None or br is None or not br < off:
                self.bad.append("tls13_first/%s: %s bytes with brotli, %s without" % (
                    chain, br, off))
        zrtt = val("tls13_0rtt", "rsa", "off")
        if full is None or zrtt is None or not zrtt < full:
            self.bad.append("0-RTT sent %s bytes before the response, a full handshake %s" % (
                zrtt, full))

    def check_cost(self):
        c = self.rows("successors_cost.csv")
        if [r["strategy"] for r in c] != STRATEGIES + ["snap_prefetched_truncated"]:
            self.bad.append("cost rows %s" % [r["strategy"] for r in c])
        for r in c:
            if not self.expect_status("cost " + r["strategy"], r["status"],
                                      r["strategy"] in NOT_RELAYED):
                continue
            if int(r["connections"]) < 1 or r["links"] != "20":
                self.bad.append("cost %s: %s" % (r["strategy"], r))
            if r["strategy"] == "tls13_preconnect" and int(r["idle_connections"]) < 1:
                self.bad.append("cost tls13_preconnect: no idle preconnected connection "
                                "counted")
            if r["strategy"] == "snap_prefetched_truncated" and \
                    int(r["truncated_handshakes"]) < 19:
                self.bad.append("cost snap_prefetched_truncated: %s truncated handshakes, "
                                "expected one per unclicked link" % r["truncated_handshakes"])

    def check_revocation(self):
        """OCSP, on the click or prevalidated before it, costs a visit a request (the leaf's, at
        least), the filter none; the filter decides in well under a millisecond, prevalidation
        leaves nothing on the click."""
        rows = {r["strategy"]: r for r in self.rows("successors_revocation.csv")}
        want = ["tls12_ocsp", "tls13_first", "quic_first", "snap_prefetched", "tls13_filter"]
        if sorted(rows) != sorted(want):
            self.bad.append("revocation rows %s" % sorted(rows))
            return
        for name, r in rows.items():
            if not self.expect_status("revocation " + name, r["status"]):
                continue
            reqs = float(r["ocsp_requests_per_visit"])
            if name != "tls13_filter" and reqs < 1:
                self.bad.append("revocation %s: %s OCSP requests per visit" % (name, reqs))
            if name == "tls13_filter" and reqs != 0:
                self.bad.append("revocation %s: %s OCSP requests per visit" % (name, reqs))
            if name == "snap_prefetched" and float(r["decision_ms_on_click"]) != 0:
                self.bad.append("revocation snap_prefetched: %s ms on the click" %
                                r["decision_ms_on_click"])
        f = rows["tls13_filter"]
        if f["status"] == "ok":
            if f["revocation_source"] != "filter" or f["ocsp_bytes_per_visit"] != "0" or \
                    int(f["bytes_up_front"]) < 42 or float(f["decision_ms_on_click"]) >= 5:
                self.bad.append("revocation tls13_filter: %s" % f)
    def check_binding(self):
        """The OBC vs DBSC pair: every measure, positive times, the DBSC refresh slower than a
        bound visit, DBSC through the proxy and OBC not."""
        rows = {(r["mechanism"], r["measure"]): r for r in self.rows("successors_binding.csv")}
        for key in (("none", "first_visit"), ("obc", "first_visit"), ("dbsc", "first_visit"),
                    ("dbsc", "session_bound_after"), ("obc", "return_visit"),
                    ("dbsc", "return_visit"), ("dbsc", "refresh_visit")):
            r = rows.get(key)
            if not r or r["status"] != "ok" or not float(r["median"]) > 0:
                self.bad.append("binding %s: %r" % ("/".join(key), r))
        if not self.bad:
            if not float(rows[("dbsc", "session_bound_after")]["median"]) > \
                    float(rows[("dbsc", "first_visit")]["median"]):
                self.bad.append("the DBSC session was bound before the login ended")
            if not float(rows[("dbsc", "refresh_visit")]["median"]) > \
                    float(rows[("dbsc", "return_visit")]["median"]):
                self.bad.append("a DBSC refresh visit no slower than a bound one")
        for mech, want in (("obc", "no"), ("dbsc", "yes")):
            r = rows.get((mech, "survives_tls_terminating_proxy"))
            if not r or r["median"] != want:
                self.bad.append("%s through the TLS-terminating proxy: %r, expected %s" % (
                    mech, r, want))
        for row in ("obc_login", "dbsc_login", "dbsc_refresh"):
            r = rows.get(("obc" if row.startswith("obc") else "dbsc", row + "_client_bytes"))
            if not r or not int(r["median"]) > 0:
                self.bad.append("binding bytes %s: %r" % (row, r))

    def check_discovery(self):
        """The bundle vs HTTPS record + ECH pair: every row's measures; the prefetched rows'
        click without DNS, the cold ones' with it; Snap Start in fewer connection round trips
        than a TLS 1.3 handshake; what the observer reads: the bundle row's name in the clear,
        the ECH rows' public name with an ECH extension, the baseline's name in the clear; the
        HTTPS query among the ECH rows' names and the bundle's TXT among its own."""
        if self.header("successors_discovery.csv") != \
                "row,measure,runs,median,min,max,unit,status":
            self.bad.append("successors_discovery.csv header %r" %
                            self.header("successors_discovery.csv"))
            return
        rows = {(r["row"], r["measure"]): r for r in self.rows("successors_discovery.csv")}
        names = ("bundle_prefetch", "https_rr_prefetch", "https_rr_cold", "no_record_cold")
        for name in names:
            for m in ("click_dns_ms", "connect_to_first_byte_rtts", "click_to_first_byte_ms",
                      "dns_queries_per_visit", "dns_answer_bytes_per_visit",
                      "tls_client_handshake_bytes", "tls_server_handshake_bytes",
                      "sni_on_wire", "certificate_in_clear", "dns_names_queried"):
                r = rows.get((name, m))
                if not r or r["status"] != "ok" or r["median"] in ("", None):
                    self.bad.append("discovery %s/%s: %r" % (name, m, r))
        if self.bad:
            return

        def med(name, m):
            return rows[(name, m)]["median"]
        for name in ("bundle_prefetch", "https_rr_prefetch"):
            if float(med(name, "click_dns_ms")) != 0:
                self.bad.append("discovery %s: DNS on the click %s ms" % (
                    name, med(name, "click_dns_ms")))
        for name in ("https_rr_cold", "no_record_cold"):
            if not float(med(name, "click_dns_ms")) > 0:
                self.bad.append("discovery %s: no DNS on a cold click" % name)
        if not float(med("bundle_prefetch", "connect_to_first_byte_rtts")) < \
                float(med("https_rr_prefetch", "connect_to_first_byte_rtts")):
            self.bad.append("discovery: Snap Start not fewer round trips than TLS 1.3")
        for name, sni, ech in (("bundle_prefetch", "slow.example.test", "no"),
                               ("https_rr_prefetch", "public.example.test", "yes"),
                               ("https_rr_cold", "public.example.test", "yes"),
                               ("no_record_cold", "ech.example.test", "no")):
            if med(name, "sni_on_wire") != sni or \
                    med(name, "ech_extension_in_client_hello") != ech:
                self.bad.append("discovery %s: SNI %r, ECH extension %r; expected %s, %s" % (
                    name, med(name, "sni_on_wire"), med(name, "ech_extension_in_client_hello"),
                    sni, ech))
        for name, want in (("bundle_prefetch", "_certbundle.slow.example.test TXT"),
                           ("https_rr_cold", "ech.example.test HTTPS")):
            if want not in med(name, "dns_names_queried"):
                self.bad.append("discovery %s: %r not among the names queried (%s)" % (
                    name, want, med(name, "dns_names_queried")))

    def check_round_trips(self):
        """The QUIC table of successors.txt: a line per row with a measured figure."""
        with open(os.path.join(self.d, "successors.txt")) as f:
            text = f.read()
        if "Round trips (issue 25 item 5)" not in text:
            self.bad.append("no round-trip table in successors.txt")
            return
        table = text.split("Round trips (issue 25 item 5)", 1)[1].split("\n\n", 1)[0]
        for name in ["tls13_first", "tls13_0rtt", "snap_prefetched", "snap_prefetched_tfo",
                     "quic_first", "quic_0rtt", "quic_0rtt_small"] + BIGCHAIN:
            line = next((l for l in table.splitlines() if l.split()[:1] == [name]), None)
            if line is None or not line.rstrip().endswith("ok"):
                self.bad.append("round trips %s: %r" % (name, line))

    def check_svg(self):
        root = ET.parse(os.path.join(self.d, "successors.svg")).getroot()
        if not root.tag.endswith("svg") or len([e for e in root.iter()
                                                if e.tag.endswith("rect")]) < 4:
            self.bad.append("the SVG has no bars")


def missing_fetch_flag(fetch):
    """The first of fetch's successor flags `fetch --help` does not list, or None."""
    r = subprocess.run([fetch, "--help"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    for flag in ("--preconnect", "--early-data", "--cert-compression", "--revocation-filter",
                 "--http3", "--tcp-fast-open"):
        if flag not in r.stdout:
            return flag
    return None


def main():
    out = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    fetch = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "fetch", "fetch")
    for f in FILES:
        path = os.path.join(out, f)
        if not os.path.isfile(path) or not os.path.getsize(path):
            print("FAIL: %s was not written" % path, file=sys.stderr)
            return 1
    print("--- " + os.path.join(out, "successors.txt"))
    with open(os.path.join(out, "successors.txt")) as f:
        sys.stdout.write(f.read())
    flag = missing_fetch_flag(fetch)
    if flag:
        print("FAIL: fetch --help lists no %s" % flag, file=sys.stderr)
        return 1
    c = Checker(out)
    c.check_headers()
    c.check_latency()
    c.check_bytes()
    c.check_cost()
    c.check_revocation()
    c.check_round_trips()
    c.check_binding()
    c.check_discovery()
    c.check_svg()
    if c.bad:
        print("FAIL: " + "; ".join(c.bad))
        return 1
    print("checks: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
