"""Shared helpers for the end-to-end tests in tests/ (Python 3 standard library only).

A test script calls `e2e.main(CHECKS, rtt_ms=...)`. The first invocation (the one Bazel starts)
replaces itself with the local world launcher (`//tools/world:world ... --run python3 SCRIPT
--inner ...`), so the world's peers (nginx, the test servers, netem) are started before the checks
and always stopped after them, whatever happens to the checks. The `--inner` invocation loads
`$NETSTACK_WORLD` and runs every check, printing PASS/FAIL lines; it exits 1 if any check failed.

Peers a check starts itself (openssl s_server, a dedicated testserver, tiny Python servers) are
context managers that stop them by PID in `finally`.
"""

import argparse
import json
import os
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One line of fetch's stderr per failed request: "fetch: URL: ERR_NAME (-N): detail".
ERROR_LINE = re.compile(r"^fetch: (?P<url>\S+): (?P<name>ERR_[A-Z0-9_]+) \((?P<code>-\d+)\)"
                        r"(?:: (?P<detail>.+))?$", re.M)

# The W3C Resource Timing points fetch writes, in the order they must not decrease.
TIMING_POINTS = ["startTime", "fetchStart", "domainLookupStart", "domainLookupEnd", "connectStart",
                 "secureConnectionStart", "connectEnd", "requestStart", "responseStart",
                 "responseEnd"]

# The testserver's generated body (tools/testserver/test_server.cc GeneratedBody).
_PATTERN = b"netstack test body 0123456789 abcdefghijklmnopqrstuvwxyz\n"


def generated_body(n):
    return (_PATTERN * (n // len(_PATTERN) + 1))[:n]


class CheckFailed(AssertionError):
    pass


class PeerMissing(CheckFailed):
    """A check needs a peer the world could not start (see main)."""


def expect(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def expect_eq(actual, expected, what):
    if actual != expected:
        raise CheckFailed("%s: expected %r, got %r" % (what, expected, actual))


def expect_near(value, target, tol, what):
    if abs(value - target) > tol:
        raise CheckFailed("%s: %.1f is not within %.1f +- %.1f" % (what, value, target, tol))


# --------------------------------------------------------------------------------------------
# fetch


class FetchResult:
    def __init__(self, argv, rc, out, err, secs, trace, events):
        self.argv, self.rc, self.out, self.err, self.secs = argv, rc, out, err, secs
        self.trace = trace      # list of --trace-json objects (or None)
        self.events = events    # parsed --trace-events JSON (or None)

    def describe(self):
        return "fetch %s\n  exit %d after %.2fs\n  stderr: %s" % (
            " ".join(self.argv), self.rc, self.secs, self.err.strip().replace("\n", "\n          "))

    def expect_rc(self, rc):
        if self.rc != rc:
            raise CheckFailed("expected exit code %d\n%s" % (rc, self.describe()))
        return self

    def expect_ok(self):
        return self.expect_rc(0)

    def error_lines(self):
        return [m.groupdict() for m in ERROR_LINE.finditer(self.err)]

    def expect_error(self, rc, name, detail_re=None):
        """Exit code rc and a `fetch: URL: NAME (-N): detail` line naming the error."""
        self.expect_rc(rc)
        lines = self.error_lines()
        expect(lines, "no 'fetch: URL: ERR_NAME (-N): detail' line on stderr\n" + self.describe())
        expect(any(l["name"] == name for l in lines),
               "expected %s on stderr\n%s" % (name, self.describe()))
        for l in lines:
            if l["name"] == name:
                expect(l["detail"], "error line without a detail\n" + self.describe())
                if detail_re:
                    expect(re.search(detail_re, l["detail"]),
                           "detail %r does not match %r" % (l["detail"], detail_re))
        return self


class Ctx:
    """What a check gets: the world, the binaries, a scratch directory, and helpers."""

    def __init__(self, args, world):
        self.args = args
        self.world = world
        self.rtt_ms = world.get("rtt_ms") if world else None
        self.tmp = os.path.join(args.tmp, "checks")
        os.makedirs(self.tmp, exist_ok=True)
        self._n = 0

    # --- the world
    def origin(self, key):
        o = self.world["origins"].get(key)
        if o is None:
            why = self.world.get("skipped", {}).get(key)
            if self.world.get("missing_peers"):
                raise PeerMissing("world has no origin %r (skipped: %s); missing peers: %s" %
                                  (key, why, missing_peers_text(self.world)))
            raise CheckFailed("world has no origin %r (skipped: %s)" % (key, why))
        return o

    def url(self, key, path=""):
        return self.origin(key)["url"] + path.lstrip("/")

    def world_json(self):
        return os.environ["NETSTACK_WORLD"]

    def log_path(self, name):
        return self.world["logs"][name]

    @property
    def pki(self):
        return os.path.join(self.world["dir"], "pki")

    @property
    def root_pem(self):
        return self.world["trust_anchors"]

    def scratch(self, name):
        self._n += 1
        return os.path.join(self.tmp, "%03d-%s" % (self._n, name))

    # --- fetch
    def fetch(self, *args, world=True, world_dns=False, revocation="off", trace=False,
              events=False, timeout=60, env=None):
        """Runs fetch (with --world unless world=False). trace/events: parse the traces.
        world_dns: resolve through the world's DNS server (behind its DNS RTT) instead of its
        static addresses; off by default so round-trip counts see only TCP/TLS/HTTP."""
        argv = [self.args.fetch]
        if world:
            argv += ["--world", self.world_json()]
            if not world_dns:
                argv += ["--no-world-dns"]
        # Revocation checking is off unless a check asks for it: round-trip counts and error
        # checks must not see OCSP traffic.
        if revocation:
            argv += ["--revocation", revocation]
        trace_file = events_file = None
        if trace:
            trace_file = self.scratch("trace.json")
            argv += ["--trace-json", trace_file]
        if events:
            events_file = self.scratch("trace-events.json")
            argv += ["--trace-events", events_file]
        argv += [str(a) for a in args]
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            raise CheckFailed("fetch did not finish within %ss: %s" % (timeout, " ".join(argv)))
        secs = time.monotonic() - t0
        err = p.stderr.decode("utf-8", "replace")
        tr = ev = None
        shown = argv[1:]
        if trace_file and os.path.exists(trace_file):
            tr = []
            with open(trace_file) as f:
                for i, line in enumerate(f):
                    if line.strip():
                        try:
                            tr.append(json.loads(line))
                        except ValueError as e:
                            raise CheckFailed("--trace-json line %d is not JSON (%s): %r" %
                                              (i + 1, e, line[:200]))
        if events_file and os.path.exists(events_file):
            with open(events_file) as f:
                text = f.read()
            try:
                ev = json.loads(text)
            except ValueError as e:
                raise CheckFailed("--trace-events output is not JSON (%s): %r" % (e, text[:300]))
        return FetchResult(shown, p.returncode, p.stdout, err, secs, tr, ev)


# --------------------------------------------------------------------------------------------
# Logs and peers


class LogTail:
    """The JSON lines appended to a log after this object was made (so a check sees only its own
    run in a log that the whole world shares)."""

    def __init__(self, path):
        self.path = path
        self.offset = os.path.getsize(path) if os.path.exists(path) else 0

    def text(self, settle=0.2):
        # The servers write a connection's line before answering it, so by the time fetch has
        # exited they are written; a short settle covers lines written at close.
        time.sleep(settle)
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            return f.read().decode("utf-8", "replace")

    def json_lines(self, settle=0.2):
        out = []
        for line in self.text(settle).splitlines():
            line = line.strip()
            if line.startswith("{"):
                out.append(json.loads(line))
        return out

    def events(self, name, settle=0.2):
        return [l for l in self.json_lines(settle) if l.get("event") == name]


def free_port(addr="127.0.0.1"):
    s = socket.socket()
    s.bind((addr, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def is_listening(port, addr="127.0.0.1"):
    want = "%s:%04X" % ("".join("%02X" % int(b) for b in reversed(addr.split("."))), port)
    try:
        with open("/proc/net/tcp") as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                if parts[1] == want and parts[3] == "0A":
                    return True
    except OSError:
        pass
    return False


_SETPRIV = shutil.which("setpriv")


class Peer:
    """A process a check starts; `with Peer(...) as p:` stops it by PID however the check ends."""

    def __init__(self, name, argv, log_path, ready=None, timeout=10, stdout_pipe=False):
        self.name, self.argv, self.log_path = name, argv, log_path
        self._log = open(log_path, "ab")
        # Backstop if this Python process is SIGKILLed: the peer gets SIGTERM when we die.
        if _SETPRIV:
            argv = [_SETPRIV, "--pdeathsig", "TERM", "--"] + list(argv)
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE if stdout_pipe else self._log,
                                     stderr=self._log, start_new_session=True)
        self.pid = self.proc.pid
        self.stdout_lines = []
        self._buf = b""
        try:
            if ready:
                deadline = time.monotonic() + timeout
                while not ready(self):
                    if self.proc.poll() is not None:
                        raise CheckFailed("%s exited with %s during start-up: %s\n%s" %
                                          (name, self.proc.returncode, " ".join(argv), self.tail()))
                    if time.monotonic() > deadline:
                        raise CheckFailed("%s not ready within %ss: %s\n%s" %
                                          (name, timeout, " ".join(argv), self.tail()))
                    time.sleep(0.02)
        except BaseException:
            self.stop()
            raise

    def read_stdout_line(self, timeout=0.1):
        """The next complete line of the peer's stdout (stdout_pipe=True), or None."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        line = line.decode("utf-8", "replace")
        self.stdout_lines.append(line)
        return line

    def tail(self, n=15):
        self._log.flush()
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            lines = []
        return "\n".join(["  | " + l for l in (self.stdout_lines + lines)[-n:]])

    def stop(self, grace=5):
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def peer_binary(name):
    """The path of a third-party peer program |name| (PATH, then /usr/sbin, /usr/local/sbin,
    /usr/bin), or PeerMissing: tools/setup.sh installs every peer the tests use."""
    path = shutil.which(name) or next(
        (p for p in ("/usr/sbin/" + name, "/usr/local/sbin/" + name, "/usr/bin/" + name)
         if os.access(p, os.X_OK)), None)
    if not path:
        raise PeerMissing("%s is not installed (tools/setup.sh installs it)" % name)
    return path


def leaf_files(ctx, host):
    """(chain.pem, key.pem) of the world PKI's leaf for |host|."""
    d = os.path.join(ctx.pki, host)
    return os.path.join(d, "chain.pem"), os.path.join(d, "key.pem")


def nginx(ctx, name, http_block):
    """nginx (Debian's, one worker, in the foreground) with |http_block| inside `http { }`.
    The block is a %-format over: d (a scratch directory of the peer's own), access (its access
    log), port (a free port on 127.0.0.1 for the block's `listen`). Returns the running Peer
    with .port, .access and .dir; `with` stops it."""
    d = ctx.scratch(name)
    os.makedirs(os.path.join(d, "logs"), exist_ok=True)
    port = free_port()
    access = os.path.join(d, "logs", "access.log")
    error_log = os.path.join(d, "logs", "error.log")
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""
%(user)s
daemon off;
master_process on;
worker_processes 1;
pid %(d)s/nginx.pid;
error_log %(error_log)s info;
events { worker_connections 256; }
http {
    client_body_temp_path %(d)s/cb;
    proxy_temp_path %(d)s/px;
    fastcgi_temp_path %(d)s/fc;
    uwsgi_temp_path %(d)s/uw;
    scgi_temp_path %(d)s/sc;
%(body)s
}
""" % {"user": "user root root;" if os.geteuid() == 0 else "", "d": d, "error_log": error_log,
       "body": http_block % {"d": d, "access": access, "port": port}})
    peer = Peer(name, [peer_binary("nginx"), "-p", d + "/", "-c", conf, "-e", error_log],
                ctx.scratch(name + ".out"), ready=lambda p: is_listening(port))
    peer.port, peer.access, peer.dir = port, access, d
    return peer


def s_server(ctx, host, extra, name="s_server"):
    """openssl s_server -www on 127.0.0.1:PORT with the world's certificate for `host` (a
    directory under pki/); serves one connection at a time. Retries on a lost port race."""
    leaf = os.path.join(ctx.pki, host)
    for attempt in range(5):
        port = free_port()
        argv = ["openssl", "s_server", "-accept", "127.0.0.1:%d" % port, "-www",
                "-cert", os.path.join(leaf, "leaf.pem"), "-key", os.path.join(leaf, "key.pem"),
                "-cert_chain", os.path.join(leaf, "chain.pem")] + list(extra)
        try:
            peer = Peer(name, argv, ctx.scratch(name + ".log"),
                        ready=lambda p: is_listening(port), timeout=10)
        except CheckFailed:
            if attempt < 4:
                continue
            raise
        peer.port = port
        return peer
    raise CheckFailed("unreachable")


def testserver(ctx, host, extra=(), name="testserver"):
    """A dedicated testserver (HTTPS on 127.0.0.1, ephemeral port) with its own --log."""
    leaf = os.path.join(ctx.pki, host)
    log = ctx.scratch(name + ".jsonl")
    argv = [ctx.args.testserver, "--listen", "127.0.0.1:0",
            "--cert-chain", os.path.join(leaf, "chain.pem"),
            "--key", os.path.join(leaf, "key.pem"), "--log", log, "--quiet"] + list(extra)

    def ready(p):
        line = p.read_stdout_line()
        return bool(line) and line.strip() == "ready"

    peer = Peer(name, argv, ctx.scratch(name + ".err"), ready=ready, stdout_pipe=True)
    for line in peer.stdout_lines:
        m = re.match(r"listening https 127\.0\.0\.1:(\d+)", line)
        if m:
            peer.port = int(m.group(1))
    peer.log = log
    expect(getattr(peer, "port", None), "testserver printed no port: %r" % peer.stdout_lines)
    return peer


class TinyServer:
    """A TCP server on 127.0.0.1 that runs handler(conn) for each connection in a thread.
    `with TinyServer(handler) as s:` closes the listener and joins the threads."""

    def __init__(self, handler, backlog=16):
        self.handler = handler
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(backlog)
        self.port = self.sock.getsockname()[1]
        self.seen = []          # whatever handlers record
        self.errors = []
        self._stop = False
        self._threads = []
        self._accept = threading.Thread(target=self._loop, daemon=True)
        self._accept.start()

    def _loop(self):
        while not self._stop:
            try:
                r, _, _ = select.select([self.sock], [], [], 0.05)
                if not r:
                    continue
                conn, _ = self.sock.accept()
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, conn):
        try:
            conn.settimeout(10)
            self.handler(self, conn)
        except Exception as e:  # recorded for the check's diagnostics
            self.errors.append(repr(e))
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def close(self):
        self._stop = True
        self._accept.join(2)
        self.sock.close()
        for t in self._threads:
            t.join(2)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def read_request_head(conn, limit=65536):
    data = b""
    while b"\r\n\r\n" not in data and len(data) < limit:
        d = conn.recv(65536)
        if not d:
            break
        data += d
    return data


# --------------------------------------------------------------------------------------------
# Trace checks shared by several tests


def check_trace_object(t, https, what="trace"):
    """Every W3C point present (secureConnectionStart only for https), numbers, non-decreasing."""
    names = [p for p in TIMING_POINTS if https or p != "secureConnectionStart"]
    for p in names:
        expect(p in t, "%s: %s missing: %s" % (what, p, json.dumps(t)))
        expect(isinstance(t[p], (int, float)) and not isinstance(t[p], bool),
               "%s: %s is %r, not a number: %s" % (what, p, t[p], json.dumps(t)))
    if not https:
        expect("secureConnectionStart" not in t,
               "%s: secureConnectionStart present for plain http: %s" % (what, json.dumps(t)))
        expect("tls" not in t, "%s: tls facts present for plain http" % what)
    else:
        expect(isinstance(t.get("tls"), dict), "%s: no tls object for https" % what)
    expect_eq(t["startTime"], 0, "%s: startTime" % what)
    for a, b in zip(names, names[1:]):
        expect(t[a] <= t[b], "%s: %s (%s) > %s (%s): %s" % (what, a, t[a], b, t[b], json.dumps(t)))


def median(values):
    return statistics.median(values)


# --------------------------------------------------------------------------------------------
# Running


def _parse_args(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--fetch", default=os.path.join(REPO, "bazel-bin/tools/fetch/fetch"))
    ap.add_argument("--testserver",
                    default=os.path.join(REPO, "bazel-bin/tools/testserver/testserver"))
    ap.add_argument("--netem", default=os.path.join(REPO, "bazel-bin/tools/netem/netem"))
    ap.add_argument("--dnslookup",
                    default=os.path.join(REPO, "bazel-bin/tools/dnslookup/dnslookup"))
    ap.add_argument("--world", default=os.path.join(REPO, "tools/world/world.sh"))
    ap.add_argument("--tmp", default=None, help="scratch directory (default $TEST_TMPDIR)")
    ap.add_argument("--only", action="append", default=[], help="run only checks named so")
    ap.add_argument("--strict", action="store_true",
                    default=os.environ.get("NETSTACK_E2E_STRICT") == "1",
                    help="known-bug checks fail the test too (or NETSTACK_E2E_STRICT=1)")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    for k in ("fetch", "testserver", "netem", "world", "dnslookup"):
        setattr(args, k, os.path.abspath(getattr(args, k)))
    if args.tmp is None:
        args.tmp = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp(prefix="netstack-e2e-")
    args.tmp = os.path.abspath(args.tmp)
    return args


def _forward_args(args):
    out = ["--fetch", args.fetch, "--testserver", args.testserver, "--netem", args.netem,
           "--world", args.world, "--dnslookup", args.dnslookup, "--tmp", args.tmp]
    for o in args.only:
        out += ["--only", o]
    if args.strict:
        out.append("--strict")
    return out


def missing_peers_text(world):
    return "; ".join("%s (%s)" % kv for kv in sorted((world.get("missing_peers") or {}).items()))


def link_args():
    """The world's link mode: NETSTACK_WORLD_LINK (packet, relay or auto) if set."""
    link = os.environ.get("NETSTACK_WORLD_LINK")
    return ["--link", link] if link else []


def main(checks, rtt_ms=100, known_bugs=(), world_args=()):
    """checks: list of functions f(ctx). known_bugs: functions that currently fail because of a
    reported bug; they are run and reported, and do not fail the test unless --strict (or
    NETSTACK_E2E_STRICT=1) is given; a pass is reported too, so the marker can be removed once
    the bug is fixed."""
    args = _parse_args(sys.argv[1:])
    script = os.path.abspath(sys.argv[0])
    if not args.inner:
        for k in ("fetch", "testserver", "netem", "world"):
            path = getattr(args, k)
            if not os.access(path, os.X_OK):
                print("e2e: %s binary %s is missing (bazel build //tools/...)" % (k, path))
                sys.exit(2)
        wdir = os.path.join(args.tmp, "world")
        if os.path.isdir(wdir):
            shutil.rmtree(wdir)
        cmd = [args.world, "--dir", wdir, "--testserver", args.testserver, "--netem", args.netem,
               "--rtt-ms", str(rtt_ms), "--quiet"] + link_args() + list(world_args) + [
                   "--run", sys.executable, script, "--inner"]
        cmd += _forward_args(args)
        print("e2e: starting the world: %s" % " ".join(cmd), flush=True)
        sys.stdout.flush()
        # exec: the world becomes this process, so Bazel's SIGTERM on timeout reaches it and it
        # stops every peer.
        os.execv(cmd[0], cmd)

    # The world passes SIGTERM (e.g. Bazel's timeout) on to us: unwind, so every `finally` stops
    # the peers the checks started.
    def on_term(signum, frame):
        print("e2e: signal %d: stopping" % signum, flush=True)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    with open(os.environ["NETSTACK_WORLD"]) as f:
        world = json.load(f)
    print("e2e: world ready in %.1fs (%s), rtt %s ms, skipped: %s" % (
        world.get("startup_seconds", 0), world["dir"], world.get("rtt_ms"),
        world.get("skipped") or "nothing"), flush=True)
    # tools/setup.sh installs every peer: one the world could not find fails the test, named,
    # before any check runs. NETSTACK_ALLOW_MISSING_PEERS=1 (local runs) runs the checks instead
    # and skips those that need a missing peer's origins.
    allow_missing = os.environ.get("NETSTACK_ALLOW_MISSING_PEERS") == "1"
    if world.get("missing_peers"):
        if not allow_missing:
            print("FAIL missing peers: %s\n    tools/setup.sh installs them; "
                  "NETSTACK_ALLOW_MISSING_PEERS=1 runs the checks that do not need them" %
                  missing_peers_text(world), flush=True)
            sys.exit(1)
        print("e2e: missing peers (allowed by NETSTACK_ALLOW_MISSING_PEERS=1): %s" %
              missing_peers_text(world), flush=True)
    ctx = Ctx(args, world)
    failed = []
    skipped = []
    t_all = time.monotonic()
    for fn, known in [(c, False) for c in checks] + [(c, not args.strict) for c in known_bugs]:
        name = fn.__name__
        if args.only and name not in args.only:
            continue
        t0 = time.monotonic()
        try:
            fn(ctx)
        except CheckFailed as e:
            if isinstance(e, PeerMissing) and allow_missing:
                skipped.append(name)
                print("SKIP %-44s %s" % (name, e), flush=True)
                continue
            ok, msg = False, str(e)
        except Exception:
            ok, msg = False, traceback.format_exc()
        else:
            ok, msg = True, ""
        dt = time.monotonic() - t0
        if ok:
            print("PASS %-44s %6.2fs%s" % (name, dt, "  (known bug seems FIXED: drop the marker)"
                                           if known else ""), flush=True)
        elif known:
            print("KNOWN BUG %-39s %6.2fs (not counted)\n    %s" %
                  (name, dt, msg.replace("\n", "\n    ")), flush=True)
        else:
            failed.append(name)
            print("FAIL %-44s %6.2fs\n    %s" % (name, dt, msg.replace("\n", "\n    ")),
                  flush=True)
    print("e2e: %d check(s) failed%s%s; checks took %.1fs" % (
        len(failed), (": " + ", ".join(failed)) if failed else "",
        ("; %d skipped for missing peers: %s" % (len(skipped), ", ".join(skipped)))
        if skipped else "", time.monotonic() - t_all),
        flush=True)
    sys.exit(1 if failed else 0)
