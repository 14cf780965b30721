"""The local world's processes: Peer (one started server, relay or responder), stop_peers, the
free-port pickers and readiness waits, and the small file helpers the world writes its configs
with. Errors are WorldError; log() writes the world's `world: ...` lines to stderr.
"""

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pki  # noqa: E402

TEMPLATE_DIR = pki.TEMPLATE_DIR


class WorldError(Exception):
    pass


def log(msg):
    sys.stderr.write("world: %s\n" % msg)
    sys.stderr.flush()


# -- child processes ------------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _child_setup():
    """Runs in the child between fork and exec: ask the kernel to SIGTERM the peer if world.py
    dies without tearing down (e.g. SIGKILL). Popen(start_new_session=True) already made it a
    session and process-group leader, so its own children can be stopped with it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except Exception:
        pass


class Peer:
    """One started peer process (testserver, netem or nginx master)."""

    def __init__(self, name, kind, argv, out_path, log_path=None, stop_signal=signal.SIGTERM):
        self.name = name
        self.kind = kind
        self.argv = argv
        self.out_path = out_path  # its stdout+stderr
        self.log_path = log_path or out_path  # its own log, if it has one
        self.stop_signal = stop_signal
        self.proc = None
        self.reported_exit = False

    def start(self, append=False):
        with open(self.out_path, "ab" if append else "wb") as out:
            try:
                self.proc = subprocess.Popen(
                    self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True, preexec_fn=_child_setup, close_fds=True)
            except OSError as e:
                raise WorldError("%s could not be started (%s): %s" % (
                    self.name, " ".join(self.argv), e))

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def output(self):
        try:
            with open(self.out_path, "r", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def tail(self, n=15):
        lines = self.output().splitlines()
        return "\n".join("    | " + l for l in lines[-n:])

    def describe_failure(self, what):
        msg = "%s %s; its log: %s" % (self.name, what, self.log_path)
        if self.out_path != self.log_path:
            msg += " (stdout/stderr: %s)" % self.out_path
        msg += "\n  command: " + " ".join(self.argv)
        t = self.tail()
        if t:
            msg += "\n  last output:\n" + t
        return msg


def stop_peers(peers, grace=5.0):
    """Stops peers (in reverse start order): their stop signal, then SIGKILL to the process group
    after `grace` seconds. Also kills anything left in each peer's process group. Returns the
    names of peers that needed SIGKILL or survived it (empty when all stopped cleanly)."""
    peers = [p for p in reversed(peers) if p.proc is not None]
    for p in peers:
        if p.alive():
            try:
                os.kill(p.pid, p.stop_signal)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + grace
    unclean = []
    for p in peers:
        while p.alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if p.alive():
            log("%s (pid %d) did not stop within %.1f s; killing it" % (p.name, p.pid, grace))
            unclean.append(p.name)
        # The peer was started as a process-group leader; kill whatever is left of the group
        # (the peer if it is stuck, nginx workers whose master died).
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            p.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            log("%s (pid %d) survived SIGKILL" % (p.name, p.pid))
            unclean.append(p.name)
    return unclean


# -- ports, readiness and CPU --------------------------------------------------------------------

def pick_free_ports(addrs):
    """Returns one free TCP port per address in addrs (all sockets held open until every port is
    chosen so the picks do not collide). For peers that cannot bind port 0 and report back
    (nginx)."""
    socks = []
    try:
        ports = []
        for a in addrs:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((a, 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
        return ports
    finally:
        for s in socks:
            s.close()


def pick_free_udp_tcp_port(addr, avoid=()):
    """Returns a port free for both TCP and UDP on addr (for DNS, which serves both on one port).
    Another process can still take it before the peer binds it; callers retry on that."""
    for _ in range(50):
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            t.bind((addr, 0))
            port = t.getsockname()[1]
            if port in avoid:
                continue
            u.bind((addr, port))
            return port
        except OSError:
            continue
        finally:
            t.close()
            u.close()
    raise WorldError("no port free for both TCP and UDP on %s" % addr)


def can_connect(addr, port):
    try:
        with socket.create_connection((addr, port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_ready_lines(peers, timeout):
    """Waits until each peer has printed a line `ready`. Returns {name: [lines before ready]}.
    Raises WorldError naming the peer that exited or timed out."""
    deadline = time.monotonic() + timeout
    result = {}
    while True:
        for p in peers:
            if p.name in result:
                continue
            lines = [l.strip() for l in p.output().splitlines()]
            if "ready" in lines:
                result[p.name] = lines[:lines.index("ready")]
            elif not p.alive():
                raise WorldError(p.describe_failure(
                    "exited during start-up (exit code %s) before printing `ready`" %
                    p.proc.returncode))
        if len(result) == len(peers):
            return result
        if time.monotonic() > deadline:
            late = [p for p in peers if p.name not in result]
            raise WorldError(late[0].describe_failure(
                "did not print `ready` within %.0f s" % timeout))
        time.sleep(0.01)


def wait_connectable(peer, endpoints, timeout):
    deadline = time.monotonic() + timeout
    pending = list(endpoints)
    while pending:
        if not peer.alive():
            raise WorldError(peer.describe_failure(
                "exited during start-up (exit code %s)" % peer.proc.returncode))
        pending = [(a, p) for (a, p) in pending if not can_connect(a, p)]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise WorldError(peer.describe_failure(
                "was not accepting connections on %s within %.0f s" % (
                    ", ".join("%s:%d" % e for e in pending), timeout)))
        time.sleep(0.01)


def parse_listening(lines, proto):
    """Parses `listening PROTO ADDR:PORT[ ...]` lines into [(proto, addr, port)]."""
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "listening" and (proto is None or parts[1] in proto):
            host, _, port = parts[2].rpartition(":")
            try:
                out.append((parts[1], host.strip("[]"), int(port)))
            except ValueError:
                pass
    return out


def match_listener(reported, scheme, addr, port, who):
    """Takes the reported listener for (scheme, addr, port) out of `reported` and returns its
    port. Falls back to the only listener of that scheme if none names the address exactly."""
    for i, (s, a, p) in enumerate(reported):
        if s == scheme and a == addr and (port == 0 or p == port):
            del reported[i]
            return p
    same_scheme = [i for i, r in enumerate(reported) if r[0] == scheme]
    if len(same_scheme) == 1 and (port == 0 or reported[same_scheme[0]][2] == port):
        return reported.pop(same_scheme[0])[2]
    raise WorldError("%s did not report a `listening %s %s:%s` line (it reported: %s)" % (
        who.name, scheme, addr, port or "PORT", reported or "nothing") + "; its output: " +
        who.out_path)


def cpu_seconds(pid):
    """User + system CPU seconds pid has used, or None if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


# -- files ----------------------------------------------------------------------------------------

def read_template(name):
    """The text of templates/NAME."""
    with open(os.path.join(TEMPLATE_DIR, name)) as f:
        return f.read()


def write_file(path, text, mode=0o644):
    """Writes text to path atomically (a .tmp file renamed over it)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def write_bytes(path, data, mode=0o644):
    """Writes data to path atomically, making its directory first."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
