#!/usr/bin/env python3
"""A small HTTP/3 file server on aioquic's API (aioquic 1.7.2, tools/aioquic/install.sh), for
tests/http3_test.py: the third HTTP/3 peer beside Caddy (quic-go) and ngtcp2's gtlsserver.

It serves the files under --root (GET and HEAD; 404 for anything else, 405 for other methods)
on 127.0.0.1 UDP --port with the given certificate chain and key, keeps the TLS session tickets
it issues in memory so a returning client resumes and may send 0-RTT (each ticket used once),
and speaks only the QUIC versions --versions names (v1, v2 or both: QUIC v2 alone makes it
answer a v1 Initial with Version Negotiation). One JSON line per connection (its version,
resumption and 0-RTT as the handshake ended) and per request (method, path, status, body bytes,
stream id, client address, whether it arrived before the handshake completed, i.e. in 0-RTT)
goes to --log. Stops on SIGTERM or SIGINT.
"""

import argparse
import asyncio
import json
import os
import signal
import sys

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import HandshakeCompleted, ProtocolNegotiated, QuicEvent
from aioquic.quic.packet import QuicProtocolVersion

VERSIONS = {"v1": QuicProtocolVersion.VERSION_1, "v2": QuicProtocolVersion.VERSION_2}
CHUNK = 64 * 1024


class Log:
    """JSON lines, flushed at once (the test reads them while the server runs)."""

    def __init__(self, path):
        self.f = open(path, "a", buffering=1)

    def write(self, **fields):
        self.f.write(json.dumps(fields, sort_keys=True) + "\n")


class TicketStore:
    """The tickets this server issued, by ticket bytes; a fetch removes it (single use)."""

    def __init__(self):
        self.tickets = {}

    def add(self, ticket):
        self.tickets[ticket.ticket] = ticket
        while len(self.tickets) > 1024:  # bounded: the oldest go
            self.tickets.pop(next(iter(self.tickets)))

    def pop(self, label):
        return self.tickets.pop(label, None)


class FileServerProtocol(QuicConnectionProtocol):
    """One QUIC connection: HTTP/3 once ALPN said h3, each request answered from the root."""

    root = None
    log = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._h3 = None
        self._handshake_done = False

    def _peer(self):
        try:
            host, port = self._quic._network_paths[0].addr[:2]
            return "%s:%d" % (host, port)
        except (AttributeError, IndexError):
            return "?"

    def quic_event_received(self, event: QuicEvent):
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self._h3 = H3Connection(self._quic)
        elif isinstance(event, HandshakeCompleted):
            self._handshake_done = True
            self.log.write(event="connection", peer=self._peer(), alpn=event.alpn_protocol,
                           version=int(self._quic._version),
                           resumed=event.session_resumed,
                           early_data_accepted=event.early_data_accepted)
        if self._h3 is None:
            return
        for h3_event in self._h3.handle_event(event):
            if isinstance(h3_event, HeadersReceived):
                self._answer(h3_event)
            elif isinstance(h3_event, DataReceived):
                pass  # request bodies are not used

    def _answer(self, event):
        headers = dict(event.headers)
        method = headers.get(b":method", b"").decode()
        path = headers.get(b":path", b"/").decode().split("?", 1)[0]
        body = b""
        if method not in ("GET", "HEAD"):
            status = 405
        else:
            full = os.path.realpath(os.path.join(self.root, path.lstrip("/")))
            inside = full.startswith(os.path.realpath(self.root) + os.sep)
            if inside and os.path.isfile(full):
                status = 200
                with open(full, "rb") as f:
                    body = f.read()
            else:
                status = 404
        length = len(body)
        self._h3.send_headers(event.stream_id, [
            (b":status", str(status).encode()),
            (b"server", b"netstack-aioquic-test"),
            (b"content-length", str(length).encode()),
        ], end_stream=method == "HEAD")
        if method != "HEAD":
            self._h3.send_data(event.stream_id, body, end_stream=True)
        self.transmit()
        self.log.write(event="request", method=method, path=path, status=status,
                       bytes=length if method != "HEAD" else 0, stream_id=event.stream_id,
                       peer=self._peer(), early=not self._handshake_done)


async def run(args):
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN,
                               supported_versions=[VERSIONS[v] for v in args.versions.split(",")],
                               max_datagram_frame_size=None)
    config.load_cert_chain(args.cert, args.key)
    FileServerProtocol.root = args.root
    FileServerProtocol.log = Log(args.log)
    tickets = TicketStore()
    server = await serve(args.host, args.port, configuration=config,
                         create_protocol=FileServerProtocol,
                         session_ticket_fetcher=tickets.pop,
                         session_ticket_handler=tickets.add)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--cert", required=True, help="PEM chain, leaf first")
    p.add_argument("--key", required=True)
    p.add_argument("--root", required=True, help="the directory served")
    p.add_argument("--log", required=True, help="JSON lines: connections and requests")
    p.add_argument("--versions", default="v1", help="v1, v2 or v1,v2 [v1]")
    args = p.parse_args()
    for v in args.versions.split(","):
        if v not in VERSIONS:
            p.error("--versions: %r is not v1 or v2" % v)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
