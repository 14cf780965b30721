"""A byte-counting TCP relay for the experiments that count what a server sends
(successors.py, spdy_page_load.py): every byte of every connection kept with its arrival times,
and tls_records to split a server's stream into TLS records. Python 3, standard library only."""

import select
import socket
import threading
import time


class Conn:
    def __init__(self, cid):
        self.id = cid
        self.accepted = time.monotonic()
        self.closed = None
        self.up = bytearray()    # client -> server
        self.down = bytearray()  # server -> client
        self.up_chunks = []      # (t, offset in up) per read
        self.down_chunks = []


class ByteRelay:
    """A TCP relay that keeps every byte of every connection (the experiment's connections are
    small). Listens on (address, port), forwards to target. Client bytes reach the server
    up_delay_s late, so that the server's flights are ordered as on a real link (e.g. a response
    to early data leaves before the client's Finished arrives), not as on loopback."""

    def __init__(self, address, port, target, up_delay_s=0.025):
        self.target = target
        self.up_delay_s = up_delay_s
        self.lock = threading.Lock()
        self.conns = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((address, port))
        self.sock.listen(64)
        self.address = (address, port)
        self.stopping = False
        self.thread = threading.Thread(target=self._accept_loop, daemon=True)
        self.thread.start()

    def _accept_loop(self):
        while not self.stopping:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                conn = Conn(len(self.conns))
                self.conns.append(conn)
            threading.Thread(target=self._pump, args=(c, conn), daemon=True).start()

    def _pump(self, client, conn):
        try:
            server = socket.create_connection(self.target, timeout=10)
        except OSError:
            client.close()
            conn.closed = time.monotonic()
            return
        for s in (client, server):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.setblocking(False)
        open_ = {client: True, server: True}
        # Client -> server goes through a queue and a thread of its own (the delay).
        up_queue = []
        up_cv = threading.Condition()

        def upstream():
            while True:
                with up_cv:
                    while not up_queue:
                        up_cv.wait()
                    due, data = up_queue.pop(0)
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                try:
                    if data is None:
                        server.shutdown(socket.SHUT_WR)
                        return
                    while data:
                        try:
                            data = data[server.send(data):]
                        except (BlockingIOError, InterruptedError):
                            select.select([], [server], [], 1.0)
                except OSError:
                    return

        up_thread = threading.Thread(target=upstream, daemon=True)
        up_thread.start()

        def to_server(data):
            with up_cv:
                up_queue.append((time.monotonic() + self.up_delay_s, data))
                up_cv.notify()
        try:
            while open_[client] or open_[server]:
                r, _, _ = select.select([s for s in open_ if open_[s]], [], [], 0.5)
                if self.stopping:
                    break
                for s in r:
                    try:
                        data = s.recv(65536)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        open_[s] = False
                        if s is client:
                            to_server(None)
                        else:
                            try:
                                client.shutdown(socket.SHUT_WR)
                            except OSError:
                                pass
                        continue
                    now = time.monotonic()
                    with self.lock:
                        if s is client:
                            conn.up_chunks.append((now, len(conn.up)))
                            conn.up += data
                        else:
                            conn.down_chunks.append((now, len(conn.down)))
                            conn.down += data
                    if s is client:
                        to_server(data)
                        continue
                    client.setblocking(True)
                    try:
                        client.sendall(data)
                    except OSError:
                        open_[s] = False
                    client.setblocking(False)
        finally:
            conn.closed = time.monotonic()
            if open_[client]:
                to_server(None)
            up_thread.join(timeout=self.up_delay_s + 1.0)
            client.close()
            server.close()

    def mark(self):
        with self.lock:
            return len(self.conns)

    def since(self, mark, settle_s=0.3):
        """The connections accepted since mark, once their pumps are done or settle_s passed."""
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline:
            with self.lock:
                if all(c.closed is not None for c in self.conns[mark:]):
                    break
            time.sleep(0.02)
        with self.lock:
            return list(self.conns[mark:])

    def stop(self):
        self.stopping = True
        try:
            self.sock.close()
        except OSError:
            pass


def tls_records(data):
    """[(offset, type, length)] of the TLS records in data (a stream from its start); stops at
    the first thing that is not a record header."""
    out, i = [], 0
    while i + 5 <= len(data):
        t = data[i]
        if t not in (20, 21, 22, 23) or data[i + 1] != 3:
            break
        n = int.from_bytes(data[i + 3:i + 5], "big")
        out.append((i, t, n))
        i += 5 + n
    return out
