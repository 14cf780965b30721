#!/usr/bin/env python3
"""netem_benchmark: what the packet-level emulator itself costs (issue 20 item 5), measured
with the kernel's sockets in a private namespace; a benchmark, not a test (report the figures).

  1. Added latency: 2,000 sequential 100-byte UDP echoes through `netem shell` with no delay
     configured, (a) at --rate-mbps 50 on an idle link and (b) with no limits while a paced
     50 Mbit/s UDP stream crosses the link the other way; against the same echoes over
     loopback in the outer namespace (the kernel alone). netem's own cost per crossing is half
     the RTT difference (minus, in (a), the configured serialization of a 128-byte packet at
     50 Mbit/s: 20.5 us each way).
  2. Forwarding rate: one TCP bulk transfer (curl, 1 GB) through the shell with no limits set,
     against the same transfer over loopback.

Usage (root): python3 tools/netem/netem_benchmark.py bazel-bin/tools/netem/netem
"""

import os
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "testing"))
import netem_peers as peers  # noqa: E402

PINGS = 2000

PINGER = r"""
import os, socket, sys, time
host, port, n = sys.argv[1] or os.environ["NETEM_PEER"], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
s.connect((host, port))
payload = b"p" * 100
rtts = []
for i in range(n):
    t = time.perf_counter_ns()
    s.send(payload)
    s.recv(2048)
    rtts.append(time.perf_counter_ns() - t)
print(" ".join(str(r) for r in rtts))
"""

BLASTER = r"""
import socket, sys, time
port, mbps, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
pkt = b"b" * 1200
gap = len(pkt) * 8 / (mbps * 1e6)
end = time.monotonic() + seconds
nxt = time.monotonic()
while time.monotonic() < end:
    try:
        s.sendto(pkt, (sys.argv[4], port))
    except OSError:
        time.sleep(0.01)  # the link is not up yet
        nxt = time.monotonic()
        continue
    nxt += gap
    d = nxt - time.monotonic()
    if d > 0:
        time.sleep(d)
"""


def echo_server():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 0))

    def serve():
        while True:
            data, addr = s.recvfrom(2048)
            s.sendto(data, addr)
    threading.Thread(target=serve, daemon=True).start()
    return s.getsockname()[1]


def quantiles(ns):
    ns = sorted(ns)
    return {q: ns[min(len(ns) - 1, int(q * len(ns)))] / 1000.0 for q in (0.5, 0.99)}


def pings(netem, link, port, extra=()):
    if netem is None:
        out = subprocess.run([sys.executable, "-c", PINGER, "127.0.0.1", str(port), str(PINGS)],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
    else:
        rc, out, _ = peers.shell(netem, link, list(extra) + [sys.executable, "-c", PINGER, "",
                                                             str(port), str(PINGS)], stats=False)
        assert rc == 0
    return [int(x) for x in out.split()][100:]  # the first 100 warm up


def main():
    netem = os.path.abspath(sys.argv[1])
    peers.enter_private_namespace()
    port = echo_server()
    base = quantiles(pings(None, [], port))
    print("kernel alone (loopback): RTT p50 %.1f us, p99 %.1f us" % (base[0.5], base[0.99]))
    idle = quantiles(pings(netem, ["--rate-mbps", "50"], port))
    ser = 2 * 128 * 8 / 50e6 * 1e6
    for q in (0.5, 0.99):
        print("netem shell --rate-mbps 50, idle: RTT p%d %.1f us; netem's cost per crossing "
              "%.1f us (less %.1f us of configured serialization per RTT)" % (
                  q * 100, idle[q], (idle[q] - base[q] - ser) / 2, ser))
    # Under load: 50 Mbit/s of UDP from the outer side to the shell's side while pinging.
    sink = "python3 -c 'import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);" \
        "s.bind((\"0.0.0.0\",9999));[s.recv(2048) for _ in iter(int,1)]' & "
    script = sink + "sleep 0.3; python3 -c \"$1\" \"\" %d %d" % (port, PINGS)
    blaster = subprocess.Popen([sys.executable, "-c", BLASTER, "9999", "50", "30",
                                "198.19.1.2"])
    try:
        rc, out, _ = peers.shell(netem, [], ["sh", "-c", script, "sh", PINGER], stats=False)
    finally:
        blaster.kill()
        blaster.wait()
    loaded = quantiles([int(x) for x in out.split()][100:])
    for q in (0.5, 0.99):
        print("netem shell, no limits, 50 Mbit/s crossing: RTT p%d %.1f us; netem's cost per "
              "crossing %.1f us" % (q * 100, loaded[q], (loaded[q] - base[q]) / 2))
    bulk = peers.BulkServer()
    size = 1 << 30
    t0 = time.monotonic()
    subprocess.run(["curl", "-s", "-o", "/dev/null", "http://127.0.0.1:%d/%d" % (bulk.port, size)],
                   check=True)
    lo = size * 8 / (time.monotonic() - t0) / 1e6
    rows, _ = peers.curl_times(netem, [], "http://PEER:%d/%d" % (bulk.port, size))
    r = rows[0]
    through = size * 8 / (r["total"] - r["starttransfer"]) / 1e6
    print("bulk TCP, 1 GB: loopback %.0f Mbit/s; through netem shell, no limits: %.0f Mbit/s" % (
        lo, through))


if __name__ == "__main__":
    main()
