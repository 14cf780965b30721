"""netem_peers: peers for netem's packet-level tests and benchmark (standard library only): a namespace
to run in, a bulk TCP server, a UDP sink, a self-signed TLS server, and helpers to run
commands behind `netem shell`. Used by netem_shell_test.py and netem_benchmark.py."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

PRIVATE_ENV = "NETEM_TEST_PRIVATE_NS"


def enter_private_namespace():
    """Re-executes this script in a new network namespace (loopback up) unless it already
    runs in one it made: netem shell refuses the machine's namespace, and nothing here may
    touch it."""
    if os.environ.get(PRIVATE_ENV) == "1":
        return
    env = dict(os.environ)
    env[PRIVATE_ENV] = "1"
    argv = [sys.executable] + sys.argv
    cmd = "ip link set lo up && exec " + " ".join("'%s'" % a.replace("'", "'\\''") for a in argv)
    os.execvpe("unshare", ["unshare", "-n", "sh", "-c", cmd], env)


class BulkServer:
    """TCP server: a client sends 'GET N\\n' and receives N bytes, then the server closes.
    Also speaks enough HTTP/1.0 for curl: 'GET /N HTTP/1.1' gets N bytes of body."""

    def __init__(self, port=0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", port))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.chunk = b"x" * (1 << 20)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        try:
            data = b""
            while b"\n" not in data:
                more = conn.recv(4096)
                if not more:
                    return
                data += more
            line = data.split(b"\n")[0].decode().strip()
            parts = line.split()
            http = len(parts) == 3 and parts[2].startswith("HTTP/")
            n = int(parts[1].lstrip("/"))
            # No Nagle: a small last segment must not wait for an ACK (it would add a
            # round trip that is the server's, not the link's).
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            head = b""
            if http:
                while b"\r\n\r\n" not in data:
                    more = conn.recv(4096)
                    if not more:
                        return
                    data += more
                head = (b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                        % n)
            while n > 0 or head:
                k = min(n, len(self.chunk))
                conn.sendall(head + self.chunk[:k])  # the head goes with the first bytes
                head = b""
                n -= k
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(65536):
                pass
        except (OSError, ValueError, IndexError):
            pass
        finally:
            conn.close()

    def close(self):
        self.sock.close()


class UdpSink:
    """Counts the sequence numbers of datagrams received (4-byte big-endian prefix)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind(("0.0.0.0", 0))
        self.port = self.sock.getsockname()[1]
        self.seen = set()
        self.sock.settimeout(0.1)
        self.stop = False
        # Read while the sender runs: a new namespace's rmem_max caps the buffer at
        # about 200 KB, which a burst would overflow (a loss that is not the link's).
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while not self.stop:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.seen.add(int.from_bytes(data[:4], "big"))

    def finish(self, quiet_seconds=0.3):
        time.sleep(quiet_seconds)
        self.stop = True
        self.thread.join()
        self.sock.close()
        return self.seen


UDP_SENDER = r"""
import os, socket, sys, time
n, port, size, linger = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
pad = b"p" * max(0, size - 4)
for i in range(n):
    s.sendto(i.to_bytes(4, "big") + pad, (os.environ["NETEM_PEER"], port))
    if i % 20 == 19:
        time.sleep(0.001)  # paced: no kernel queue between here and netem overflows
time.sleep(linger)  # netem stops with this command: let the link drain first
"""


def make_tls_cert(d):
    key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=netem.test"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return cert, key


def start_tls_server(d):
    """openssl s_server -www with TLS 1.3 on a free port of every address; (proc, port)."""
    cert, key = make_tls_cert(d)
    s = socket.socket()
    s.bind(("0.0.0.0", 0))
    port = s.getsockname()[1]
    s.close()
    proc = subprocess.Popen(["openssl", "s_server", "-accept", str(port), "-www", "-tls1_3",
                             "-cert", cert, "-key", key, "-quiet"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise RuntimeError("openssl s_server did not listen")


def netns_inodes():
    """The network namespaces some process is in (their inodes)."""
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                found.add(os.stat("/proc/%s/ns/net" % pid).st_ino)
            except OSError:
                pass
    return found


def links():
    """`ip -o link` of this namespace."""
    return subprocess.run(["ip", "-o", "link"], stdout=subprocess.PIPE, text=True,
                          check=True).stdout


def processes():
    return {p for p in os.listdir("/proc") if p.isdigit()}


def _parent(pid):
    """The parent pid of `pid` (a string), or None once it is gone."""
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[1]
    except (OSError, IndexError):
        return None


def _ancestors(pid):
    """`pid`'s parent, its parent's parent, ... up to pid 1 (at most 64 steps)."""
    chain = []
    while pid not in (None, "0", "1") and len(chain) < 64:
        pid = _parent(pid)
        if pid is not None:
            chain.append(pid)
    return chain


def _ours(pid, me, my_ancestors):
    """Whether process `pid` is this test's doing: a descendant of this process, or an orphan
    reparented to init or to one of this process's ancestors (a subreaper), as what a stopped
    world leaves behind would be. A process some other program on the machine started meanwhile
    (another shell's command) is not."""
    chain = _ancestors(pid)
    if me in chain:
        return True
    return bool(chain) and (chain[0] == "1" or chain[0] in my_ancestors)


def leftovers(before, after):
    """What `after` (a snapshot()) has that `before` had not: a list of sentences, empty when
    nothing was left behind. New processes count when they are this test's doing (_ours)."""
    found = []
    me = str(os.getpid())
    my_ancestors = set(_ancestors(me))
    if after[0] - before[0]:
        found.append("network namespaces left: %s" % sorted(after[0] - before[0]))
    if after[1] != before[1]:
        found.append("links differ:\n%s\n---\n%s" % (before[1], after[1]))
    for p in sorted(after[2] - before[2]):
        try:
            with open("/proc/%s/stat" % p) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open("/proc/%s/cmdline" % p) as f:
                cmdline = f.read().replace("\0", " ")
        except (OSError, IndexError):
            continue  # gone meanwhile
        # An exited process not yet reaped (a zombie: no command line) runs nothing; the
        # machine-wide list may also hold one of another program's.
        if state == "Z" or not cmdline or not _ours(p, me, my_ancestors):
            continue
        found.append("process left: %s %s" % (p, cmdline))
    return found


def snapshot():
    """(namespaces, links, processes) now, for leftovers()."""
    return (netns_inodes(), links(), processes())


def shell(netem, link_args, command, stats=True, timeout=120):
    """Runs `netem shell LINK_ARGS -- COMMAND`; returns (exit code, stdout, stats dict)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        stats_path = f.name
    argv = [netem, "shell", "--quiet"] + (["--stats", stats_path] if stats else []) + \
        list(link_args) + ["--"] + list(command)
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    st = None
    if stats:
        try:
            with open(stats_path) as f:
                st = json.load(f)
        except (OSError, ValueError):
            st = None
        os.unlink(stats_path)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
    return r.returncode, r.stdout, st


def curl_times(netem, link_args, url, extra=(), runs=1):
    """curl's -w times (seconds) for URL behind the link, one dict per run (one shell)."""
    fmt = "%{time_connect} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} " \
          "%{time_total} %{size_download}\\n"
    script = "for i in $(seq %d); do curl -sS -o /dev/null %s -w '%s' \"%s\" || exit 1; done" % (
        runs, " ".join(extra), fmt, url.replace("PEER", "$NETEM_PEER"))
    rc, out, st = shell(netem, link_args, ["sh", "-c", script])
    if rc != 0:
        raise AssertionError("curl failed behind netem (exit %d)" % rc)
    rows = []
    for line in out.strip().splitlines():
        c, a, p, s, t, n = line.split()
        rows.append({"connect": float(c), "appconnect": float(a), "pretransfer": float(p),
                     "starttransfer": float(s), "total": float(t), "size": int(float(n))})
    return rows, st
