"""The origin-bound certificate beside its successor, Device Bound Session Credentials (issue 26
item 5), for successors.py: what binding a login session to a key costs a first visit and a
return visit, what it puts on the wire, and whether it survives a TLS-terminating reverse proxy.

Its own world (tools/world), because the test servers must ask for client certificates
(--request-client-cert) and hand out short-lived DBSC cookies (--dbsc-cookie-lifetime), which
would change the other successors rows: `slow` (test server behind netem at --rtt-ms),
`slow_http` (plain HTTP behind the same link), no DNS (static addresses), no nginx. Every fetch
is a fresh process; a profile lives across the fetches of one round.

Per round (one discarded warm-up, then --runs):
  baseline      GET slow/size/100, no OBC, --no-dbsc
  obc login     --obc ecdsa --obc-warm, new profile, GET /obc/login: the cookie is bound to the
                OBC the handshake presented (channel-bound)
  obc return    the same profile, GET /obc/whoami (the store's certificate, the cookie)
  dbsc login    new profile, GET /dbsc/login: the response asks for a session; the registration
                (key from the pool, ES256 proof, POST) runs after it; "session bound after" =
                the login's responseEnd + the registration's registeredMs
  dbsc bound    the same profile, GET /dbsc/protected within the cookie's lifetime
  dbsc refresh  after the lifetime: the same request, deferred while the session refreshes;
                click time = deferredMs + responseEnd
Bytes: the same fetches once more through a byte-counting relay in front of `slow` (no netem;
bytes do not depend on the RTT): client and server bytes on every connection the fetch opened,
the registration and refresh POSTs included.
Proxy: nginx (started here, on the client host) terminating TLS with the world's
www.example.test certificate and proxying to `slow_http`'s plain-HTTP listener with Host and
X-Forwarded-Proto: an OBC login through it (refused: the backend sees no client certificate)
and a DBSC login, expiry and refresh through it (works).

Python 3, standard library only.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time

import exp_common
from byte_relay import ByteRelay
from exp_common import ExperimentError

LIFETIME_S = 2
RELAY_ADDRESS = "127.0.9.50"
PAIR_CSV_COLUMNS = ["mechanism", "measure", "runs", "median", "min", "max", "unit", "status"]


def _direct_target(o):
    b = o.get("backend")
    if b:
        return (b["address"], b["port"])
    return (o["address"], o["port"])


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _nginx_binary():
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)),
        None)


class _Pair:
    def __init__(self, args, world, log):
        self.args, self.world, self.log = args, world, log
        self.info = world.info
        self.slow = self.info["origins"]["slow"]
        self.profiles = tempfile.mkdtemp(prefix="binding-profiles-",
                                         dir=os.environ.get("TEST_TMPDIR") or None)
        self.n = 0

    def profile(self):
        self.n += 1
        return os.path.join(self.profiles, "p%04d" % self.n)

    def fetch(self, name, url, flags, resolve=()):
        # Revocation off: it is not what is measured here (and the world has no DNS for the
        # CRL's host), the same for every row.
        tail = ["--world", self.world.json_path, "-o", "/dev/null", "--max-time", "30",
                "--revocation", "off"] + \
            list(resolve) + list(flags) + [url]
        traces, _, _, cmd = exp_common.run_fetch(self.args.fetch, tail, name)
        if not traces:
            raise ExperimentError("%s: no trace\n  command: %s" % (name, cmd))
        return traces, cmd

    def url(self, path, o=None):
        o = o or self.slow
        return "https://%s:%d%s" % (o["host"], o["port"], path)

    @staticmethod
    def expect(cond, name, what, traces, cmd):
        if not cond:
            raise ExperimentError("%s: %s\n  command: %s\n  traces: %s" % (
                name, what, cmd, traces))

    # -- one round: every row's fetch, checked --------------------------------------------------

    def round(self, resolve=()):
        """{row: value} for one round: click times in ms (or the traces' facts for bytes)."""
        r = {}
        t, cmd = self.fetch("baseline", self.url("/size/100"), ["--no-dbsc"], resolve)
        self.expect(t[0]["status"] == 200, "baseline", "status", t, cmd)
        r["baseline"] = t[0]["responseEnd"]

        p = self.profile()
        t, cmd = self.fetch("obc login", self.url("/obc/login"),
                            ["--obc", "ecdsa", "--obc-warm", "--profile", p, "--no-dbsc"],
                            resolve)
        self.expect(t[0]["status"] == 200 and t[0]["obc"]["source"] == "pooled_key",
                    "obc login", "status 200 and obc.source pooled_key", t, cmd)
        r["obc_login"] = t[0]["responseEnd"]
        t, cmd = self.fetch("obc return", self.url("/obc/whoami"),
                            ["--obc", "ecdsa", "--profile", p, "--no-dbsc"], resolve)
        self.expect(t[0]["status"] == 200 and t[0]["obc"]["source"] == "cached_cert",
                    "obc return", "status 200 and obc.source cached_cert", t, cmd)
        r["obc_return"] = t[0]["responseEnd"]

        p = self.profile()
        t, cmd = self.fetch("dbsc login", self.url("/dbsc/login"), ["--profile", p], resolve)
        self.expect(len(t) == 2 and t[1]["dbsc"]["outcome"] == "registered",
                    "dbsc login", "a login and a registered registration", t, cmd)
        r["dbsc_login"] = t[0]["responseEnd"]
        r["dbsc_registered"] = t[0]["responseEnd"] + t[1]["dbsc"]["registeredMs"]
        r["dbsc_key_source"] = t[1]["dbsc"]["keySource"]
        t, cmd = self.fetch("dbsc bound", self.url("/dbsc/protected"), ["--profile", p],
                            resolve)
        self.expect(len(t) == 1 and t[0]["status"] == 200 and
                    t[0]["dbsc"]["outcome"] == "bound", "dbsc bound",
                    "status 200, dbsc.outcome bound, no refresh", t, cmd)
        r["dbsc_bound"] = t[0]["responseEnd"]
        time.sleep(LIFETIME_S + 0.3)
        t, cmd = self.fetch("dbsc refresh", self.url("/dbsc/protected"), ["--profile", p],
                            resolve)
        d = t[0].get("dbsc") or {}
        self.expect(t[0]["status"] == 200 and d.get("outcome") == "refreshed" and
                    d.get("deferredMs") is not None, "dbsc refresh",
                    "status 200 after a deferred refresh", t, cmd)
        r["dbsc_refresh"] = d["deferredMs"] + t[0]["responseEnd"]
        r["dbsc_refresh_attempts"] = sum(1 for x in t if (x.get("dbsc") or {}).get("role") ==
                                         "refresh")
        return r

    # -- bytes -----------------------------------------------------------------------------------

    def bytes_round(self):
        """{row: (connections, client bytes, server bytes)} through the byte-counting relay."""
        relay = ByteRelay(RELAY_ADDRESS, self.slow["port"], _direct_target(self.slow),
                          up_delay_s=0)
        resolve = ["--resolve", "%s:%d:%s" % (self.slow["host"], self.slow["port"],
                                              RELAY_ADDRESS)]
        out = {}
        try:
            def counted(row, url, flags):
                mark = relay.mark()
                self.fetch(row, url, flags, resolve)
                conns = relay.since(mark)
                out[row] = (len(conns), sum(len(c.up) for c in conns),
                            sum(len(c.down) for c in conns))

            counted("baseline", self.url("/size/100"), ["--no-dbsc"])
            p = self.profile()
            counted("obc_login", self.url("/obc/login"),
                    ["--obc", "ecdsa", "--obc-warm", "--profile", p, "--no-dbsc"])
            counted("obc_return", self.url("/obc/whoami"),
                    ["--obc", "ecdsa", "--profile", p, "--no-dbsc"])
            p = self.profile()
            counted("dbsc_login", self.url("/dbsc/login"), ["--profile", p])
            counted("dbsc_bound", self.url("/dbsc/protected"), ["--profile", p])
            time.sleep(LIFETIME_S + 0.3)
            counted("dbsc_refresh", self.url("/dbsc/protected"), ["--profile", p])
        finally:
            relay.stop()
        return out

    # -- the TLS-terminating proxy ---------------------------------------------------------------

    def proxy(self):
        """{"obc": (yes/no, why), "dbsc": (yes/no, why)} through nginx terminating TLS."""
        nginx = _nginx_binary()
        if not nginx:
            why = "unavailable: nginx is not installed (tools/setup.sh installs it)"
            return {"obc": ("-", why), "dbsc": ("-", why)}
        backend = self.info["origins"].get("slow_http")
        if not backend:
            why = "unavailable: the world has no slow_http origin"
            return {"obc": ("-", why), "dbsc": ("-", why)}
        pki = os.path.join(self.info["dir"], "pki", "www.example.test")
        d = tempfile.mkdtemp(prefix="binding-nginx-", dir=os.environ.get("TEST_TMPDIR") or None)
        os.makedirs(os.path.join(d, "logs"))
        port = _free_port()
        with open(os.path.join(d, "nginx.conf"), "w") as f:
            f.write("""
%(user)s
daemon off;
master_process on;
worker_processes 1;
pid %(d)s/nginx.pid;
error_log %(d)s/logs/error.log;
events { worker_connections 64; }
http {
    access_log %(d)s/logs/access.log;
    client_body_temp_path %(d)s/cb;
    proxy_temp_path %(d)s/px;
    fastcgi_temp_path %(d)s/fc;
    uwsgi_temp_path %(d)s/uw;
    scgi_temp_path %(d)s/sc;
    server {
        listen 127.0.0.1:%(port)d ssl;
        ssl_certificate %(chain)s;
        ssl_certificate_key %(key)s;
        ssl_verify_client optional_no_ca;
        location / {
            proxy_pass http://%(baddr)s:%(bport)d;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-Proto https;
        }
    }
}
""" % {"user": "user root root;" if os.geteuid() == 0 else "", "d": d, "port": port,
       "chain": os.path.join(pki, "chain.pem"), "key": os.path.join(pki, "key.pem"),
       "baddr": backend["address"], "bport": backend["port"]})
        proc = subprocess.Popen([nginx, "-p", d + "/", "-c", os.path.join(d, "nginx.conf"), "-e",
                                 os.path.join(d, "logs", "error.log")],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise ExperimentError("nginx did not start (%s)" % d)
                    time.sleep(0.05)
            o = {"host": "www.example.test", "port": port}
            resolve = ["--resolve", "www.example.test:%d:127.0.0.1" % port]
            out = {}
            t, _ = self.fetch("obc via proxy", self.url("/obc/login", o),
                              ["--obc", "ecdsa", "--obc-warm", "--profile", self.profile(),
                               "--no-dbsc"], resolve)
            if t[0]["status"] == 200:
                out["obc"] = ("yes", "the backend got the client certificate")
            else:
                out["obc"] = ("no", "HTTP %d: nginx ends TLS, the backend sees no client "
                                    "certificate to bind to" % t[0]["status"])
            p = self.profile()
            t, _ = self.fetch("dbsc via proxy", self.url("/dbsc/login", o), ["--profile", p],
                              resolve)
            registered = len(t) == 2 and t[1]["dbsc"]["outcome"] == "registered"
            time.sleep(LIFETIME_S + 0.3)
            t2, _ = self.fetch("dbsc via proxy", self.url("/dbsc/protected", o),
                               ["--profile", p], resolve)
            refreshed = (t2[0]["status"] == 200 and
                         (t2[0].get("dbsc") or {}).get("outcome") == "refreshed")
            if registered and refreshed:
                out["dbsc"] = ("yes", "registered, then refreshed after expiry: the proof is "
                                      "in HTTP headers")
            else:
                out["dbsc"] = ("no", "registered %s, refreshed %s" % (registered, refreshed))
            return out
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
            shutil.rmtree(d, ignore_errors=True)


def run(args, log):
    """Measures the pair in a world of its own; returns (csv rows, report text)."""
    base_tmp = os.environ.get("TEST_TMPDIR") or None
    world_dir = tempfile.mkdtemp(prefix="binding-world-", dir=base_tmp)
    world = exp_common.World(args.world, world_dir, [
        "--testserver", args.testserver, "--netem", args.netem, "--rtt-ms", str(args.rtt_ms),
        "--no-dns", "--no-nginx", "--testserver-arg=--request-client-cert",
        "--testserver-arg=--dbsc-cookie-lifetime", "--testserver-arg=%d" % LIFETIME_S], log)
    failed = True
    pair = None
    try:
        world.start()
        for key in ("slow", "slow_http"):
            if key not in world.info.get("origins", {}):
                raise ExperimentError("the binding world has no %s origin" % key)
        pair = _Pair(args, world, log)
        log("OBC vs DBSC: warm-up round")
        pair.round()
        rounds = []
        for i in range(args.runs):
            log("OBC vs DBSC: round %d of %d" % (i + 1, args.runs))
            rounds.append(pair.round())
        world.check_alive()
        counted = pair.bytes_round()
        proxy = pair.proxy()
        failed = False
    finally:
        if pair is not None:
            shutil.rmtree(pair.profiles, ignore_errors=True)
        world.tear_down(keep=failed or args.keep_world)
    return _report(args, rounds, counted, proxy)


def _report(args, rounds, counted, proxy):
    rows = []

    def stat(key):
        return exp_common.summarize([r[key] for r in rounds])

    def add(mechanism, measure, key, unit="ms"):
        med, lo, hi = stat(key)
        rows.append({"mechanism": mechanism, "measure": measure, "runs": len(rounds),
                     "median": "%.3f" % med, "min": "%.3f" % lo, "max": "%.3f" % hi,
                     "unit": unit, "status": "ok"})
        return med

    def cell(key):
        vals = [r[key] for r in rounds]
        return exp_common.fmt_range(vals)

    base = add("none", "first_visit", "baseline")
    add("obc", "first_visit", "obc_login")
    add("dbsc", "first_visit", "dbsc_login")
    add("dbsc", "session_bound_after", "dbsc_registered")
    add("obc", "return_visit", "obc_return")
    add("dbsc", "return_visit", "dbsc_bound")
    add("dbsc", "refresh_visit", "dbsc_refresh")
    for mech, row in (("none", "baseline"), ("obc", "obc_login"), ("dbsc", "dbsc_login"),
                      ("obc", "obc_return"), ("dbsc", "dbsc_bound"),
                      ("dbsc", "dbsc_refresh")):
        n, up, down = counted[row]
        for measure, v in (("connections", n), ("client_bytes", up), ("server_bytes", down)):
            rows.append({"mechanism": mech, "measure": "%s_%s" % (row, measure), "runs": 1,
                         "median": v, "min": v, "max": v, "unit": "count" if
                         measure == "connections" else "bytes", "status": "ok"})
    for mech in ("obc", "dbsc"):
        yes, why = proxy[mech]
        rows.append({"mechanism": mech, "measure": "survives_tls_terminating_proxy",
                     "runs": 1, "median": yes, "min": "", "max": "", "unit": "",
                     "status": why})

    def b(row):
        n, up, down = counted[row]
        return "%d / %d (%d conn)" % (up, down, n)

    rtt = float(args.rtt_ms)
    med = {k: stat(k)[0] for k in ("obc_login", "dbsc_login", "dbsc_registered", "obc_return",
                                   "dbsc_bound", "dbsc_refresh")}
    keys = sorted(set(r["dbsc_key_source"] for r in rounds))
    attempts = sorted(set(r["dbsc_refresh_attempts"] for r in rounds))
    table = [
        ("first visit: the login's responseEnd", cell("obc_login") +
         " (%+.1f)" % (med["obc_login"] - base), cell("dbsc_login") +
         " (%+.1f)" % (med["dbsc_login"] - base)),
        ("session bound to the key after", "%.1f (with the response: the handshake "
         "presented the OBC)" % med["obc_login"], cell("dbsc_registered") +
         " (+%.2f RTT: the registration POST; key %s)" % (
             (med["dbsc_registered"] - med["dbsc_login"]) / rtt, "/".join(keys))),
        ("return visit, cookie valid", cell("obc_return"), cell("dbsc_bound")),
        ("return visit, cookie expired", "n/a: a channel-bound cookie needs no refresh",
         cell("dbsc_refresh") + " (+%.2f RTT; %s refresh POST%s)" % (
             (med["dbsc_refresh"] - med["dbsc_bound"]) / rtt,
             "/".join(str(a) for a in attempts), "" if attempts == [1] else "s")),
        ("client / server bytes, first visit", b("obc_login"), b("dbsc_login")),
        ("client / server bytes, return visit", b("obc_return"), b("dbsc_bound")),
        ("client / server bytes, refresh visit", "-", b("dbsc_refresh")),
        ("survives a TLS-terminating proxy", "%s: %s" % proxy["obc"],
         "%s: %s" % proxy["dbsc"]),
    ]
    out = []
    out.append("\nOBC vs DBSC: binding a login session to a key (own world: RTT %d ms, test "
               "servers with --request-client-cert and a %d s DBSC cookie; ms from startTime, "
               "median [min-max] of %d; no binding: %s ms; bytes through a relay without "
               "netem, baseline %s)\n" % (args.rtt_ms, LIFETIME_S, len(rounds),
                                         cell("baseline"), b("baseline")))
    buf = _Buf()
    exp_common.print_table(("", "OBC (ecdsa, channel-bound cookie)", "DBSC (ES256)"), table,
                           buf)
    out.append(buf.text)
    return rows, "".join(out)


class _Buf:
    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s
