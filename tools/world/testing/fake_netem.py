#!/usr/bin/env python3
"""A stand-in for tools/netem, for world_test only.

    fake_netem.py --tcp LISTEN_ADDR:PORT=TARGET_ADDR:PORT [--tcp ...]
                  [--udp LISTEN_ADDR:PORT=TARGET_ADDR:PORT ...] --rtt-ms R

Relays TCP connections to their targets, holding each chunk for R/2 ms in each direction (a
crude delay: chunks are not pipelined). UDP datagrams are relayed through one connected upstream
socket per client address, each held R/2 ms in each direction (in order). Prints
`listening tcp|udp ADDR:PORT -> TARGET` per relay, then `ready`; stops on SIGTERM.
"""

import argparse
import queue
import signal
import socket
import threading
import time


def pump(src, dst, delay):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if delay:
                time.sleep(delay)
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(lsock, target, delay):
    while True:
        try:
            conn, _ = lsock.accept()
        except OSError:
            return
        try:
            up = socket.create_connection(target)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=pump, args=(conn, up, delay), daemon=True).start()
        threading.Thread(target=pump, args=(up, conn, delay), daemon=True).start()


class DelayLine:
    """Calls send(data) for each put(data), `delay` seconds later, in order."""

    def __init__(self, send, delay):
        self.send = send
        self.delay = delay
        self.q = queue.Queue()
        threading.Thread(target=self._run, daemon=True).start()

    def put(self, data):
        self.q.put((time.monotonic() + self.delay, data))

    def _run(self):
        while True:
            due, data = self.q.get()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                self.send(data)
            except OSError:
                pass


def serve_udp(lsock, target, delay):
    mappings = {}  # client address -> DelayLine towards the target
    while True:
        try:
            data, client = lsock.recvfrom(65535)
        except OSError:
            return
        up_line = mappings.get(client)
        if up_line is None:
            up = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            up.connect(target)
            down_line = DelayLine(lambda d, c=client: lsock.sendto(d, c), delay)
            threading.Thread(target=udp_back, args=(up, down_line), daemon=True).start()
            up_line = mappings[client] = DelayLine(up.send, delay)
        up_line.put(data)


def udp_back(up, down_line):
    while True:
        try:
            data = up.recv(65535)
        except ConnectionRefusedError:
            continue
        except OSError:
            return
        down_line.put(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tcp", action="append", default=[])
    ap.add_argument("--udp", action="append", default=[])
    ap.add_argument("--rtt-ms", type=float, default=0)
    args, _ = ap.parse_known_args()
    delay = args.rtt_ms / 2000.0
    for spec in args.tcp:
        listen, _, target = spec.partition("=")
        la, _, lp = listen.rpartition(":")
        ta, _, tp = target.rpartition(":")
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((la, int(lp)))
        s.listen(64)
        a, p = s.getsockname()
        print("listening tcp %s:%d -> %s:%s" % (a, p, ta, tp), flush=True)
        threading.Thread(target=serve, args=(s, (ta, int(tp)), delay), daemon=True).start()
    for spec in args.udp:
        listen, _, target = spec.partition("=")
        la, _, lp = listen.rpartition(":")
        ta, _, tp = target.rpartition(":")
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((la, int(lp)))
        a, p = s.getsockname()
        print("listening udp %s:%d -> %s:%s" % (a, p, ta, tp), flush=True)
        threading.Thread(target=serve_udp, args=(s, (ta, int(tp)), delay), daemon=True).start()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(0.2):
        pass


if __name__ == "__main__":
    main()
