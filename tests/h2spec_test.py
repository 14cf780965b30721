#!/usr/bin/env python3
"""h2spec, the HTTP/2 conformance suite, against the testserver's HTTP/2 (issue 24, item 3).

Starts //tools/testserver with --http2 on loopback (no world: cert/testdata's leaf) and runs
`h2spec -S -t -k -p PORT -j REPORT` (every test case, the strict ones too, over TLS with ALPN h2),
then reads its JUnit report: the test fails on any failed or errored case that is not listed in
tests/h2spec_allowlist.txt (one "PACKAGE: TITLE | reason" line each), on an allow-listed case that
now passes (the list must stay true), on a report with fewer cases than h2spec has (a run that
stopped early), and if the server did not serve h2spec over h2 (its log) or stops answering.

h2spec comes from tools/h2spec/build.sh (the Go module proxy; cached in ~/.cache/netstack-h2spec,
built by tools/setup.sh), or --h2spec PATH.

Usage (Bazel runs it through tests/run_py_test.sh):
  h2spec_test.py --testserver PATH [--certs DIR] [--h2spec PATH] [--allowlist FILE]
"""

import argparse
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

# h2spec v2.2.1 has 146 cases with -S (145 without); fewer in a report means it stopped early.
MIN_CASES = 146


def fail(msg):
    print("FAIL h2spec: " + msg)
    sys.exit(1)


def load_allowlist(path):
    """{key: reason} from lines 'PACKAGE: TITLE | reason'; '#' starts a comment."""
    allowed = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, reason = line.partition("|")
            key, reason = key.strip(), reason.strip()
            if not sep or not key or not reason:
                fail("%s:%d: want 'PACKAGE: TITLE | reason', got %r" % (path, n, line))
            allowed[key] = reason
    return allowed


def read_report(path):
    """[(key, outcome, message)] for every test case of h2spec's JUnit report."""
    cases = []
    root = ET.parse(path).getroot()
    for suite in root.iter("testsuite"):
        for case in suite.iter("testcase"):
            key = "%s: %s" % (case.get("package"), case.get("classname"))
            outcome, message = "passed", ""
            for tag in ("failure", "error", "skipped"):
                el = case.find(tag)
                if el is not None:
                    outcome = "failed" if tag != "skipped" else "skipped"
                    message = (el.get("message") or "") + " " + (el.text or "")
                    break
            cases.append((key, outcome, message.strip()))
    return cases


def start_server(args, tmp):
    log = os.path.join(tmp, "testserver.jsonl")
    argv = [args.testserver, "--listen", "127.0.0.1:0", "--http2",
            "--cert-chain", os.path.join(args.certs, "good_leaf_chain.pem"),
            "--key", os.path.join(args.certs, "good_leaf.key"), "--log", log, "--quiet"]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=open(os.path.join(tmp, "testserver.err"), "wb"))
    port = None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        line = proc.stdout.readline().decode()
        if not line:
            break
        m = re.match(r"listening https 127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
        if line.strip() == "ready":
            return proc, port, log
    proc.kill()
    fail("the testserver did not start: %s" % " ".join(argv))


def h2_get(port, path):
    """One GET over h2 with nothing but the standard library: the status of the response."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2"])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            if s.selected_alpn_protocol() != "h2":
                fail("ALPN chose %r, not h2" % s.selected_alpn_protocol())
            # Preface, empty SETTINGS, HEADERS (END_STREAM|END_HEADERS) for stream 1 with
            # :method GET (static 2), :scheme https (7), :path literal, :authority literal.
            block = b"\x82\x87" + b"\x04" + bytes([len(path)]) + path.encode() + \
                b"\x01\x09localhost"
            frames = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
            frames += len(block).to_bytes(3, "big") + b"\x01\x05\x00\x00\x00\x01" + block
            s.sendall(frames)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                pos = 0
                while pos + 9 <= len(data):
                    length = int.from_bytes(data[pos:pos + 3], "big")
                    ftype, sid = data[pos + 3], int.from_bytes(data[pos + 5:pos + 9], "big")
                    if pos + 9 + length > len(data):
                        break
                    if ftype == 1 and sid == 1:
                        # :status 200 is static index 8 (0x88).
                        return 200 if data[pos + 9:pos + 9 + length].startswith(b"\x88") \
                            else -1
                    pos += 9 + length
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--testserver", required=True)
    parser.add_argument("--certs", default="cert/testdata")
    parser.add_argument("--h2spec", default="")
    parser.add_argument("--build-script", default="tools/h2spec/build.sh")
    parser.add_argument("--allowlist", default="tests/h2spec_allowlist.txt")
    args, _ = parser.parse_known_args()
    args.testserver = os.path.abspath(args.testserver)
    args.certs = os.path.abspath(args.certs)
    allowed = load_allowlist(args.allowlist)
    h2spec = args.h2spec
    if not h2spec:
        p = subprocess.run(["bash", args.build_script], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
        if p.returncode != 0:
            fail("no h2spec binary: tools/h2spec/build.sh exited %d:\n%s" %
                 (p.returncode, p.stderr.decode("utf-8", "replace")))
        h2spec = p.stdout.decode().strip().splitlines()[-1]
    tmp = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp(prefix="h2spec-")
    report = os.path.join(tmp, "h2spec.xml")
    proc, port, log = start_server(args, tmp)
    try:
        t0 = time.monotonic()
        run = subprocess.run([h2spec, "-S", "-t", "-k", "-h", "127.0.0.1", "-p", str(port),
                              "-o", "5", "-j", report], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=600)
        secs = time.monotonic() - t0
        output = run.stdout.decode("utf-8", "replace")
        if proc.poll() is not None:
            fail("the testserver died during h2spec (exit %s)" % proc.returncode)
        status = h2_get(port, "/size/10")
        if status != 200:
            fail("after h2spec the server answered %r to GET /size/10 over h2" % status)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    # SIGTERM is a clean stop (exit 0): anything else (a sanitizer's report, a crash) fails.
    if proc.returncode != 0:
        with open(os.path.join(tmp, "testserver.err"), "rb") as f:
            err = f.read().decode("utf-8", "replace")
        fail("the testserver exited %d after h2spec:\n%s" % (proc.returncode, err[-4000:]))
    if not os.path.exists(report):
        fail("h2spec wrote no report (exit %d):\n%s" % (run.returncode, output[-3000:]))
    cases = read_report(report)
    failed = [(k, m) for k, o, m in cases if o == "failed"]
    skipped = [k for k, o, _ in cases if o == "skipped"]
    passed = [k for k, o, _ in cases if o == "passed"]
    unexpected = [(k, m) for k, m in failed if k not in allowed]
    stale = [k for k in allowed if k in passed]
    unknown = [k for k in allowed if k not in {c[0] for c in cases}]
    with open(log) as f:
        conns = [json.loads(l) for l in f if '"event":"connection"' in l]
    h2_conns = [c for c in conns if c.get("alpn") == "h2"]
    print("h2spec: %d cases in %.1f s: %d passed, %d failed (%d allow-listed), %d skipped; "
          "server: %d h2 connections, %d streams" %
          (len(cases), secs, len(passed), len(failed), len(failed) - len(unexpected),
           len(skipped), len(h2_conns), sum(c.get("streams", 0) for c in h2_conns)))
    for k, m in failed:
        print("  %s %s\n      %s" % ("allowed:" if k in allowed else "FAILED: ", k,
                                     allowed.get(k) or m[:300]))
    problems = []
    if len(cases) < MIN_CASES:
        problems.append("only %d cases in the report (h2spec has %d): it stopped early?\n%s" %
                        (len(cases), MIN_CASES, output[-3000:]))
    if unexpected:
        problems.append("%d failures not in %s" % (len(unexpected), args.allowlist))
    if stale:
        problems.append("allow-listed cases that now pass (drop them): %s" % stale)
    if unknown:
        problems.append("allow-listed cases h2spec does not have: %s" % unknown)
    if len(h2_conns) < len(cases) // 2:
        problems.append("the server logged %d h2 connections for %d cases" %
                        (len(h2_conns), len(cases)))
    if problems:
        fail("; ".join(problems))
    print("PASS h2spec (%.1f s)" % secs)


if __name__ == "__main__":
    main()
