"""Headless Chromium as a measured client (standard library only).

visit(url, ...) starts Debian's chromium with a fresh profile, trusting a given root through
a throw-away NSS database, drives it over the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-separated JSON on file descriptors 3 and 4, no port opened),
navigates once, and returns the page's Navigation Timing entry (ms from startTime). Used by
the demo and tools/experiments:vs_chromium; run it as the client host of a world
(`world.py exec` or --run) so that its packets cross the emulated link.
"""

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--disable-features=OptimizationHints,MediaRouter,Translate",
    "--no-proxy-server", "--remote-debugging-pipe",
]


class ChromiumError(Exception):
    pass


def available():
    """Why headless Chromium cannot be used here, or None."""
    if not shutil.which("chromium"):
        return "no chromium (Debian package chromium)"
    if not shutil.which("certutil"):
        return "no certutil (Debian package libnss3-tools)"
    return None


def make_nss_home(root_pem, home):
    """A HOME whose NSS database trusts root_pem (what Chromium on Linux reads)."""
    db = os.path.join(home, ".pki", "nssdb")
    os.makedirs(db, exist_ok=True)
    for argv in (["certutil", "-d", "sql:" + db, "-N", "--empty-password"],
                 ["certutil", "-d", "sql:" + db, "-A", "-t", "C,,", "-n", "world-root", "-i",
                  root_pem]):
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise ChromiumError("%s: %s" % (" ".join(argv), r.stdout.strip()))


def nss_home(root_pem):
    """A temporary HOME trusting root_pem, removed when the process exits."""
    import atexit
    home = tempfile.mkdtemp(prefix="chromium-home-")
    atexit.register(shutil.rmtree, home, True)
    make_nss_home(root_pem, home)
    return home


class _Pipe:
    def __init__(self, write_fd, read_fd):
        self.w, self.r = write_fd, read_fd
        self.buf = b""
        self.next_id = 1

    def send(self, method, params=None, session=None):
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.next_id += 1
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        return msg["id"]

    def read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromiumError("no answer from chromium in time")
            r, _, _ = select.select([self.r], [], [], left)
            if r:
                data = os.read(self.r, 1 << 16)
                if not data:
                    raise ChromiumError("chromium closed its pipe")
                self.buf += data
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, deadline=None):
        i = self.send(method, params, session)
        while True:
            m = self.read(deadline)
            if m.get("id") == i:
                if "error" in m:
                    raise ChromiumError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def wait_event(self, method, deadline):
        while True:
            m = self.read(deadline)
            if m.get("method") == method:
                return m


def visit(url, root_pem=None, host_rules=None, timeout=30.0, nss_home=None):
    """One first visit of url in a fresh profile: the navigation's PerformanceNavigationTiming
    as a dict (ms from startTime), plus 'chromium_version'. host_rules: Chromium's
    --host-resolver-rules (e.g. 'MAP www.example.test 198.18.0.11'). nss_home: a HOME made by
    make_nss_home (made here, once per call, when None and root_pem is given)."""
    tmp = tempfile.mkdtemp(prefix="chromium-visit-")
    try:
        home = nss_home
        if home is None:
            home = os.path.join(tmp, "home")
            os.makedirs(home)
            if root_pem:
                make_nss_home(root_pem, home)
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        argv = ["chromium"] + CHROMIUM_FLAGS + ["--user-data-dir=" + os.path.join(tmp, "profile")]
        if host_rules:
            argv.append("--host-resolver-rules=" + host_rules)
        argv.append("about:blank")
        env = dict(os.environ, HOME=home)

        def fds():
            # The pipe ends become fds 3 and 4 (what --remote-debugging-pipe reads and
            # writes). preexec_fn runs before Popen closes descriptors, so 3 and 4 are what
            # pass_fds keeps.
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        pipe = _Pipe(to_chrome_w, from_chrome_r)
        deadline = time.monotonic() + timeout
        try:
            version = pipe.call("Browser.getVersion", deadline=deadline).get("product", "?")
            target = pipe.call("Target.createTarget", {"url": "about:blank"},
                               deadline=deadline)["targetId"]
            session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                deadline=deadline)["sessionId"]
            pipe.call("Page.enable", session=session, deadline=deadline)
            nav = pipe.call("Page.navigate", {"url": url}, session=session, deadline=deadline)
            if nav.get("errorText"):
                raise ChromiumError("navigation to %s failed: %s" % (url, nav["errorText"]))
            pipe.wait_event("Page.loadEventFired", deadline)
            res = pipe.call("Runtime.evaluate", {
                "expression": "JSON.stringify(performance.getEntriesByType('navigation')[0])",
                "returnByValue": True}, session=session, deadline=deadline)
            entry = json.loads(res["result"]["value"])
            entry["chromium_version"] = version
            try:
                pipe.call("Browser.close", deadline=time.monotonic() + 5)
            except ChromiumError:
                pass
            return entry
        finally:
            os.close(to_chrome_w)
            os.close(from_chrome_r)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--check"]:
        why = available()
        print(why or "ok")
        sys.exit(1 if why else 0)
    print(json.dumps(visit(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None,
                           sys.argv[3] if len(sys.argv) > 3 else None), indent=1))


_VISIT_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import chromium
print(json.dumps(chromium.visit(sys.argv[2], host_rules=sys.argv[3], nss_home=sys.argv[4])))
"""


def visit_as(prefix, url, host_rules, nss_home, timeout=120):
    """visit() in a child process started with the command |prefix| first (the world's client
    host: exp_common.World.client_prefix()). Returns visit()'s dict; raises RuntimeError with
    the child's stderr when it fails."""
    here = os.path.dirname(os.path.abspath(__file__))
    argv = list(prefix) + [sys.executable, "-c", _VISIT_CHILD, here, url, host_rules, nss_home]
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("chromium visit of %s failed: %s" % (url, p.stderr.strip()[-2000:]))
    return json.loads(p.stdout)

