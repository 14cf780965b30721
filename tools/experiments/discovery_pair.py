"""The prefetched certificate bundle beside its successor, the DNS HTTPS record with Encrypted
ClientHello (issue 26 item 5), for successors.py: what each costs a first visit in round trips
and bytes, and what an on-path observer learns.

Its own world (tools/world, packet-level where it can run), so that the ECH origin sits behind
the same link as `slow`: --rtt-ms for `slow` and, through --default-rtt-ms, for every other
origin (`ech.example.test` among them), DNS at --dns-rtt-ms. Every fetch is a fresh process with
a fresh profile (a first visit), resolves through a DNS relay this module runs on the client
host's loopback (a copy of world.json names it as the DNS server), which forwards to the
world's Knot across the link and logs every query (name, type, transport) and the bytes of
every answer: what an observer of the DNS path sees. Revocation is off in every row (not what
is measured here).

Rows (GET /size/100 on each):
  bundle_prefetch     the 2010 mechanism: --snap-start --bundle-sources dns --prefetch slow:443
                      --no-https-rr: A/AAAA and the bundle's TXT record (_certbundle.HOST)
                      prefetched before the click, Snap Start (TLS 1.2) on the click
  https_rr_prefetch   the successor, prefetched: --prefetch ech.example.test: A/AAAA and the
                      HTTPS record (ALPN h2, the ECH configuration) before the click, TLS 1.3
                      with ECH on the click
  https_rr_cold       the successor on a cold click: the three queries in parallel on the click
  no_record_cold      the baseline: --no-https-rr --ech false against the same ECH origin: what
                      a client without HTTPS records shows

Per row, --runs rounds (one discarded warm-up round, the order rotating): the click's DNS time
(domainLookupEnd - domainLookupStart) and connection time to the first response byte
(responseStart - connectStart), in ms and in round trips; the DNS queries of the whole visit
(prefetch included) and their answer bytes. Then once per row through a byte-counting TCP relay
(byte_relay.py) in front of the origin (fetch --resolve; the ECH rows then take the world's
ECHConfigList with --ech ecl:, since an overridden name asks no HTTPS record): the TLS bytes each
way before the first application-data record that follows the handshake (the response's, in TLS
1.2; in TLS 1.3, where every record after the ServerHello is application data, the bytes up to
the client's Finished and the server's records before it), the total, and what the observer
reads in the ClientHello (the server_name extension, whether it carries an ECH extension) and
whether the certificate crosses the wire in the clear (a TLS 1.2 Certificate message before
ChangeCipherSpec). Every fetch is checked against what its row claims (Snap Start accepted with
the prefetched bundle; ECH accepted with the public name on the wire; none for the baseline).

Standalone (the pair alone): discovery_pair.py --fetch BIN --testserver BIN --netem BIN
--world BIN [--runs 11] [--rtt-ms 50] [--dns-rtt-ms 40] [--out DIR] writes
successors_discovery.csv and .txt; successors.py runs it with the rest (--no-discovery skips).

Python 3, standard library only.
"""

import json
import os
import shutil
import socket
import struct
import tempfile
import threading
import time

import exp_common
from byte_relay import ByteRelay, tls_records
from exp_common import ExperimentError

ROWS = ["bundle_prefetch", "https_rr_prefetch", "https_rr_cold", "no_record_cold"]
PAIR_CSV_COLUMNS = ["row", "measure", "runs", "median", "min", "max", "unit", "status"]
DNS_RELAY = ("127.0.0.1", 0)  # an ephemeral port on the client host's loopback
BYTE_RELAY_ADDRESS = {"slow": "127.0.9.61", "ech": "127.0.9.62"}
PATH = "/size/100"
QTYPES = {1: "A", 28: "AAAA", 16: "TXT", 65: "HTTPS", 5: "CNAME", 6: "SOA"}


# -- the DNS relay -------------------------------------------------------------------------------

def _question(msg):
    """(name, qtype) of a DNS message's first question, or (None, None)."""
    try:
        pos, labels = 12, []
        while True:
            n = msg[pos]
            if n == 0:
                pos += 1
                break
            if n & 0xC0:
                return None, None
            labels.append(msg[pos + 1:pos + 1 + n].decode("ascii", "replace"))
            pos += 1 + n
        return ".".join(labels).lower(), struct.unpack(">H", msg[pos:pos + 2])[0]
    except (IndexError, struct.error):
        return None, None


class DnsRelay:
    """UDP and TCP DNS on one loopback port, forwarded to |upstream| (the world's Knot across
    the link); every query logged as (monotonic time, transport, name, type, query bytes,
    answer bytes). Bounded: 10 s per query, answers up to 64 KB."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.lock = threading.Lock()
        self.log = []
        self.stopping = False
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(DNS_RELAY)
        self.port = self.udp.getsockname()[1]
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind((DNS_RELAY[0], self.port))
        self.tcp.listen(16)
        for target in (self._udp_loop, self._tcp_loop):
            threading.Thread(target=target, daemon=True).start()

    @property
    def address(self):
        return "%s:%d" % (DNS_RELAY[0], self.port)

    def mark(self):
        with self.lock:
            return len(self.log)

    def since(self, mark):
        with self.lock:
            return list(self.log[mark:])

    def _record(self, transport, query, answer):
        name, qtype = _question(query)
        with self.lock:
            self.log.append({"t": time.monotonic(), "transport": transport, "name": name,
                             "type": QTYPES.get(qtype, str(qtype)),
                             "query_bytes": len(query), "answer_bytes": len(answer or b"")})

    def _udp_loop(self):
        while not self.stopping:
            try:
                query, peer = self.udp.recvfrom(65535)
            except OSError:
                return
            threading.Thread(target=self._udp_one, args=(query, peer), daemon=True).start()

    def _udp_one(self, query, peer):
        up = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            up.settimeout(10)
            up.sendto(query, self.upstream)
            answer = up.recv(65535)
            self.udp.sendto(answer, peer)
        except OSError:
            answer = None
        finally:
            up.close()
        self._record("udp", query, answer)

    def _tcp_loop(self):
        while not self.stopping:
            try:
                c, _ = self.tcp.accept()
            except OSError:
                return
            threading.Thread(target=self._tcp_one, args=(c,), daemon=True).start()

    @staticmethod
    def _read_msg(s):
        head = b""
        while len(head) < 2:
            chunk = s.recv(2 - len(head))
            if not chunk:
                return None
            head += chunk
        n = struct.unpack(">H", head)[0]
        body = b""
        while len(body) < n:
            chunk = s.recv(n - len(body))
            if not chunk:
                return None
            body += chunk
        return body

    def _tcp_one(self, c):
        up = None
        try:
            c.settimeout(10)
            up = socket.create_connection(self.upstream, timeout=10)
            while True:
                query = self._read_msg(c)
                if query is None:
                    return
                up.sendall(struct.pack(">H", len(query)) + query)
                answer = self._read_msg(up)
                self._record("tcp", query, answer)
                if answer is None:
                    return
                c.sendall(struct.pack(">H", len(answer)) + answer)
        except OSError:
            return
        finally:
            c.close()
            if up is not None:
                up.close()

    def stop(self):
        self.stopping = True
        for s in (self.udp, self.tcp):
            try:
                s.close()
            except OSError:
                pass


# -- what an on-path observer reads in a TLS connection -------------------------------------------

def client_hello_view(up):
    """(server_name or None, ECH extension present) from the client's first TLS record."""
    recs = tls_records(up)
    if not recs or recs[0][1] != 22:
        return None, False
    off = recs[0][0]
    body = up[off + 5:off + 5 + recs[0][2]]
    try:
        if body[0] != 1:  # ClientHello
            return None, False
        p = 4 + 2 + 32
        p += 1 + body[p]                                     # session id
        p += 2 + struct.unpack(">H", body[p:p + 2])[0]       # cipher suites
        p += 1 + body[p]                                     # compression methods
        end = p + 2 + struct.unpack(">H", body[p:p + 2])[0]
        p += 2
        sni, ech = None, False
        while p + 4 <= end:
            etype, elen = struct.unpack(">HH", body[p:p + 4])
            ext = body[p + 4:p + 4 + elen]
            if etype == 0 and len(ext) >= 5:                 # server_name: list, type, name
                n = struct.unpack(">H", ext[3:5])[0]
                sni = ext[5:5 + n].decode("ascii", "replace")
            if etype == 0xFE0D:                              # encrypted_client_hello
                ech = True
            p += 4 + elen
        return sni, ech
    except (IndexError, struct.error):
        return None, False


def certificate_in_clear(down):
    """True when the server's plaintext handshake records (before its ChangeCipherSpec, in TLS
    1.2) carry a Certificate message (type 11)."""
    data = b""
    for off, rtype, length in tls_records(down):
        if rtype == 20:
            break
        if rtype == 22:
            data += down[off + 5:off + 5 + length]
    p = 0
    while p + 4 <= len(data):
        mtype = data[p]
        n = struct.unpack(">I", b"\0" + data[p + 1:p + 4])[0]
        if mtype == 11:
            return True
        if mtype == 2 and b"\x00\x2b" in data[p + 4:p + 4 + n]:
            # A TLS 1.3 ServerHello (supported_versions): the rest is encrypted.
            return False
        p += 4 + n
    return False


def handshake_bytes(conn, version):
    """(client bytes, server bytes) of the handshake: in TLS 1.2 (Snap Start included) each
    side's bytes before its first application_data record; in TLS 1.3, where every record after
    the ServerHello is application_data, the client's bytes through its Finished (its first
    application_data record) and the server's bytes that reached the relay before that
    Finished did (its first flight)."""
    up, down = bytes(conn.up), bytes(conn.down)
    urecs, drecs = tls_records(up), tls_records(down)
    if version != "TLSv1.3":
        c = next((o for o, t, _ in urecs if t == 23), len(up))
        s = next((o for o, t, _ in drecs if t == 23), len(down))
        return c, s
    fin = next(((o, length) for o, t, length in urecs if t == 23), None)
    if fin is None:
        return len(up), len(down)
    fin_t = max((t for t, off in conn.up_chunks if off <= fin[0]), default=None)
    s = len(down)
    if fin_t is not None:
        s = next((off for t, off in conn.down_chunks if t >= fin_t), len(down))
    return fin[0] + 5 + fin[1], s


# -- the pair ------------------------------------------------------------------------------------

class _Pair:
    def __init__(self, args, world, log):
        self.args, self.world, self.log = args, world, log
        self.info = world.info
        self.slow = self.info["origins"]["slow"]
        self.ech = self.info["origins"]["ech"]
        self.profiles = tempfile.mkdtemp(prefix="discovery-profiles-",
                                         dir=os.environ.get("TEST_TMPDIR") or None)
        self.n = 0
        dns = self.info["dns"]["server"]
        host, port = dns.rsplit(":", 1)
        self.dns = DnsRelay((host, int(port)))
        # fetch --world with the world's DNS server replaced by the relay (a --dns-server of
        # its own would make fetch take the world's static addresses instead).
        relayed = dict(self.info, dns=dict(self.info["dns"], server=self.dns.address))
        self.world_json = os.path.join(self.profiles, "world-dns-relay.json")
        with open(self.world_json, "w") as f:
            json.dump(relayed, f)

    def stop(self):
        self.dns.stop()
        shutil.rmtree(self.profiles, ignore_errors=True)

    def origin(self, row):
        return self.slow if row == "bundle_prefetch" else self.ech

    def flags(self, row):
        o = self.origin(row)
        if row == "bundle_prefetch":
            return ["--snap-start", "--bundle-sources", "dns", "--no-https-rr",
                    "--prefetch", "%s:%d" % (o["host"], o["port"])]
        if row == "https_rr_prefetch":
            return ["--prefetch", o["host"]]
        if row == "https_rr_cold":
            return []
        if row == "no_record_cold":
            return ["--no-https-rr", "--ech", "false"]
        raise ValueError(row)

    def fetch(self, row, extra=()):
        self.n += 1
        profile = os.path.join(self.profiles, "p%05d" % self.n)
        o = self.origin(row)
        url = o["url"].rstrip("/") + PATH
        tail = ["--world", self.world_json, "--profile", profile, "-o", "/dev/null",
                "--max-time", "30", "--revocation", "off"] + self.flags(row) + list(extra) + [
                    url]
        try:
            traces, _, _, cmd = exp_common.run_fetch(self.args.fetch, tail, row)
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        mine = [t for t in traces if t.get("name") == url]
        if len(mine) != 1:
            raise ExperimentError("%s: expected one trace of %s, got %d\n  command: %s" % (
                row, url, len(mine), cmd))
        self.check(row, mine[0], cmd, overridden=bool(extra))
        return mine[0]

    def check(self, row, t, cmd, overridden):
        tls = t.get("tls") or {}
        problems = []
        if t.get("status") != 200:
            problems.append("status %s" % t.get("status"))
        if row == "bundle_prefetch":
            if tls.get("snapStart") != "accepted":
                problems.append("tls.snapStart %r, expected accepted" % tls.get("snapStart"))
            if (t.get("cert") or {}).get("source") != "prefetch":
                problems.append("cert.source %r, expected prefetch" %
                                (t.get("cert") or {}).get("source"))
        elif row == "no_record_cold":
            if tls.get("ech") not in ("none", None):
                problems.append("tls.ech %r, expected none" % tls.get("ech"))
        else:
            if tls.get("ech") != "accepted":
                problems.append("tls.ech %r, expected accepted" % tls.get("ech"))
            if tls.get("sniOnWire") != self.ech["ech"]["public_name"]:
                problems.append("tls.sniOnWire %r, expected the public name" %
                                tls.get("sniOnWire"))
            h = (t.get("dns") or {}).get("httpsRecord") or {}
            if not overridden and h.get("status") != "used":
                problems.append("dns.httpsRecord.status %r, expected used" % h.get("status"))
        if not overridden:
            want = "prefetch" if row.endswith("_prefetch") else "network"
            if (t.get("dns") or {}).get("source") != want:
                problems.append("dns.source %r, expected %s" % (
                    (t.get("dns") or {}).get("source"), want))
        if problems:
            raise ExperimentError("%s: %s\n  command: %s" % (row, "; ".join(problems), cmd))

    def round(self, order):
        """{row: measures} for one round."""
        out = {}
        for row in order:
            mark = self.dns.mark()
            t = self.fetch(row)
            # The relay logs a query when its answer is back; the last ones may still be on
            # their way back to fetch's exit (a late HTTPS answer after the connection went).
            time.sleep(0.05)
            queries = self.dns.since(mark)
            out[row] = {
                "lookup_ms": t["domainLookupEnd"] - t["domainLookupStart"],
                "connect_to_first_byte_ms": t["responseStart"] - t["connectStart"],
                "first_byte_ms": t["responseStart"],
                "dns_queries": len(queries),
                "dns_answer_bytes": sum(q["answer_bytes"] for q in queries),
                "dns_query_bytes": sum(q["query_bytes"] for q in queries),
                "names": sorted(set("%s %s%s" % (q["name"], q["type"],
                                                 "/tcp" if q["transport"] == "tcp" else "")
                                    for q in queries)),
                "sni_trace": (t.get("tls") or {}).get("sniOnWire"),
                "ech": (t.get("tls") or {}).get("ech"),
                "version": (t.get("tls") or {}).get("version"),
                "alpn": (t.get("tls") or {}).get("alpn"),
            }
        return out

    def bytes_pass(self):
        """{row: {...}} through a byte-counting relay in front of the origin."""
        out = {}
        relays = {}
        try:
            for key, o in (("slow", self.slow), ("ech", self.ech)):
                b = o.get("backend")
                target = (b["address"], b["port"]) if b else (o["address"], o["port"])
                relays[key] = ByteRelay(BYTE_RELAY_ADDRESS[key], o["port"], target,
                                        up_delay_s=0)
            for row in ROWS:
                key = "slow" if row == "bundle_prefetch" else "ech"
                o = self.origin(row)
                extra = ["--resolve", "%s:%d:%s" % (o["host"], o["port"],
                                                    BYTE_RELAY_ADDRESS[key])]
                if row.startswith("https_rr"):
                    extra += ["--ech", "ecl:" + o["ech"]["config"]]
                mark = relays[key].mark()
                t = self.fetch(row, extra)
                conns = [c for c in relays[key].since(mark) if c.down]
                if len(conns) != 1:
                    raise ExperimentError("%s: %d connections with data at the byte relay, "
                                          "expected 1" % (row, len(conns)))
                c = conns[0]
                sni, ech_ext = client_hello_view(bytes(c.up))
                hc, hs = handshake_bytes(c, (t.get("tls") or {}).get("version"))
                out[row] = {"client_bytes": len(c.up), "server_bytes": len(c.down),
                            "client_handshake_bytes": hc, "server_handshake_bytes": hs,
                            "sni_on_wire": sni or "(none)", "ech_extension": ech_ext,
                            "certificate_in_clear": certificate_in_clear(bytes(c.down))}
        finally:
            for r in relays.values():
                r.stop()
        return out


def run(args, log):
    """Measures the pair in a world of its own; returns (csv rows, report text)."""
    base_tmp = os.environ.get("TEST_TMPDIR") or None
    world_dir = tempfile.mkdtemp(prefix="discovery-world-", dir=base_tmp)
    world = exp_common.World(args.world, world_dir, [
        "--testserver", args.testserver, "--netem", args.netem, "--rtt-ms", str(args.rtt_ms),
        "--default-rtt-ms", str(args.rtt_ms), "--dns-rtt-ms", str(args.dns_rtt_ms),
        "--require-dns"], log)
    failed = True
    pair = None
    try:
        info = world.start()
        for key in ("slow", "ech"):
            if key not in info.get("origins", {}):
                raise ExperimentError("the discovery world has no %s origin (skipped: %s)" % (
                    key, info.get("skipped", {}).get(key, "?")))
        if not info.get("dns"):
            raise ExperimentError("the discovery world has no DNS server")
        if not (info.get("bundles") or {}).get("origins", {}).get("slow"):
            raise ExperimentError("the discovery world publishes no bundle for slow")
        pair = _Pair(args, world, log)
        log("bundle vs HTTPS record + ECH: warm-up round")
        pair.round(ROWS)
        rounds = []
        for i in range(args.runs):
            order = ROWS[i % len(ROWS):] + ROWS[:i % len(ROWS)]
            log("bundle vs HTTPS record + ECH: round %d of %d" % (i + 1, args.runs))
            rounds.append(pair.round(order))
        counted = pair.bytes_pass()
        world.check_alive()
        failed = False
    finally:
        if pair is not None:
            pair.stop()
        world.tear_down(keep=failed or args.keep_world)
    return _report(args, info, rounds, counted)


def _report(args, info, rounds, counted):
    rows = []
    rtt, dns_rtt = float(args.rtt_ms), float(args.dns_rtt_ms)

    def vals(row, key):
        return [r[row][key] for r in rounds]

    def add(row, measure, values, unit):
        med, lo, hi = exp_common.summarize(values)
        rows.append({"row": row, "measure": measure, "runs": len(values),
                     "median": "%.3f" % med, "min": "%.3f" % lo, "max": "%.3f" % hi,
                     "unit": unit, "status": "ok"})

    def one(row, measure, value, unit, status="ok"):
        rows.append({"row": row, "measure": measure, "runs": 1, "median": value, "min": value,
                     "max": value, "unit": unit, "status": status})

    for row in ROWS:
        add(row, "click_dns_ms", vals(row, "lookup_ms"), "ms")
        add(row, "click_dns_rtts", [v / dns_rtt for v in vals(row, "lookup_ms")], "rtt")
        add(row, "connect_to_first_byte_ms", vals(row, "connect_to_first_byte_ms"), "ms")
        add(row, "connect_to_first_byte_rtts",
            [v / rtt for v in vals(row, "connect_to_first_byte_ms")], "rtt")
        add(row, "click_to_first_byte_ms", vals(row, "first_byte_ms"), "ms")
        add(row, "dns_queries_per_visit", vals(row, "dns_queries"), "count")
        add(row, "dns_answer_bytes_per_visit", vals(row, "dns_answer_bytes"), "bytes")
        c = counted[row]
        for k in ("client_handshake_bytes", "server_handshake_bytes", "client_bytes",
                  "server_bytes"):
            one(row, "tls_" + k, c[k], "bytes")
        one(row, "sni_on_wire", c["sni_on_wire"], "name")
        one(row, "ech_extension_in_client_hello", "yes" if c["ech_extension"] else "no", "")
        one(row, "certificate_in_clear", "yes" if c["certificate_in_clear"] else "no", "")
        one(row, "dns_names_queried", " ".join(rounds[-1][row]["names"]), "names")

    def cell(row, key, digits=1):
        return exp_common.fmt_range(vals(row, key), digits)

    def med(row, key):
        return exp_common.summarize(vals(row, key))[0]

    def names(row):
        return ", ".join(rounds[-1][row]["names"])

    table = []
    table.append(("DNS on the click, ms (DNS RTTs)",) + tuple(
        "%s (%.2f)" % (cell(r, "lookup_ms"), med(r, "lookup_ms") / dns_rtt) for r in ROWS))
    table.append(("connect -> first response byte, ms (RTTs)",) + tuple(
        "%s (%.2f)" % (cell(r, "connect_to_first_byte_ms"),
                       med(r, "connect_to_first_byte_ms") / rtt) for r in ROWS))
    table.append(("click -> first response byte, ms",) + tuple(
        cell(r, "first_byte_ms") for r in ROWS))
    table.append(("TLS; ALPN",) + tuple(
        "%s; %s" % (rounds[-1][r]["version"], rounds[-1][r]["alpn"]) for r in ROWS))
    table.append(("DNS queries per visit (prefetch incl.)",) + tuple(
        "%.0f" % med(r, "dns_queries") for r in ROWS))
    table.append(("DNS answer bytes per visit",) + tuple(
        "%.0f" % med(r, "dns_answer_bytes") for r in ROWS))
    table.append(("TLS bytes before app data, client / server",) + tuple(
        "%d / %d" % (counted[r]["client_handshake_bytes"], counted[r]["server_handshake_bytes"])
        for r in ROWS))
    table.append(("TLS bytes of the visit, client / server",) + tuple(
        "%d / %d" % (counted[r]["client_bytes"], counted[r]["server_bytes"]) for r in ROWS))
    table.append(("observer: SNI in the ClientHello",) + tuple(
        "%s%s" % (counted[r]["sni_on_wire"], " (+ECH ext.)" if counted[r]["ech_extension"]
                  else "") for r in ROWS))
    table.append(("observer: certificate in the clear",) + tuple(
        "yes" if counted[r]["certificate_in_clear"] else "no" for r in ROWS))
    table.append(("observer of DNS: names queried",) + tuple(names(r) for r in ROWS))
    out = ["\nBundle prefetch vs HTTPS record + ECH (own world, %s: RTT %d ms to both origins, "
           "DNS %d ms through a logging relay; fresh profile per fetch, GET %s; median "
           "[min-max] of %d; bytes through a relay in front of the origin)\n" % (
               (info.get("link") or {}).get("mode", "?"), args.rtt_ms, args.dns_rtt_ms, PATH,
               len(rounds))]
    buf = _Buf()
    exp_common.print_table(("",) + tuple(ROWS), table, buf)
    out.append(buf.text)
    out.append("bundle_prefetch: slow.example.test, Snap Start (TLS 1.2) from the DNS TXT bundle: "
               "its whole first flight, the request inside, is one ClientHello record, and the "
               "server answers without a Certificate message. The others: ech.example.test (TLS "
               "1.3, h2; ECH public name %s); in TLS 1.3 the certificate is encrypted with or "
               "without ECH, and \"before app data\" is through the client's Finished and the "
               "server's first flight. DNS queries per visit include the prefetch's; an observer "
               "of the DNS path (unencrypted here, as on most networks) reads every name.\n" %
               info["origins"]["ech"]["ech"]["public_name"])
    return rows, "".join(out)


class _Buf:
    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s


def main(argv=None):
    """Standalone: the pair alone (successors.py runs it with the rest), written to --out DIR as
    successors_discovery.csv and successors_discovery.txt."""
    import argparse
    import csv
    import sys
    ap = argparse.ArgumentParser(description="bundle prefetch vs HTTPS record + ECH")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--rtt-ms", type=int, default=50)
    ap.add_argument("--dns-rtt-ms", type=int, default=40)
    ap.add_argument("--out", metavar="DIR")
    ap.add_argument("--keep-world", action="store_true")
    for flag in ("--fetch", "--testserver", "--netem", "--world"):
        ap.add_argument(flag, required=True)
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    exp_common.check_executable(ap, args, ("fetch", "testserver", "netem", "world"))

    def log(msg):
        sys.stderr.write("discovery_pair: %s\n" % msg)
        sys.stderr.flush()
    try:
        rows, text = run(args, log)
    except ExperimentError as e:
        log("error: %s" % e)
        return 1
    sys.stdout.write(text)
    if args.out:
        d = exp_common.out_dir(args.out)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "successors_discovery.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=PAIR_CSV_COLUMNS, extrasaction="ignore")
            w.writeheader()
            for r in rows:
                w.writerow(r)
        with open(os.path.join(d, "successors_discovery.txt"), "w") as f:
            f.write(text)
        print("wrote %s/successors_discovery{.csv,.txt}" % d)
    return 0


if __name__ == "__main__":
    import sys
    sys.dont_write_bytecode = True
    sys.exit(main())
