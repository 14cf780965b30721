#!/usr/bin/env python3
"""A stand-in for the project's test server, for world_test only.

Speaks the real test server's command-line interface (the subset world.py uses):
    fake_testserver.py --listen ADDR:PORT [--listen ...] [--http-listen ADDR:PORT ...]
        --cert-chain PEM --key PEM [--tls-max 1.2|1.3] [--docroot DIR] [--log FILE] ...
serves files from --docroot over HTTPS/HTTP (Python's ssl and http.server), prints
`listening https|http ADDR:PORT` per listener, then `ready`, and stops on SIGTERM.
Unknown flags with a value are accepted and ignored.
"""

import argparse
import functools
import http.server
import signal
import ssl
import sys
import threading


FAKE_ECH_CONFIG = "AEr+DQBGAQAgACBYajBLBFNw1HuAwSN8rApMLoG8OAv56OJ2ar+1xwJ8ZgAIAAEAAQABAANAE3B1YmxpYy5leGFtcGxlLnRlc3QAAA=="


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", action="append", default=[])
    ap.add_argument("--http-listen", action="append", default=[])
    ap.add_argument("--cert-chain")
    ap.add_argument("--key")
    ap.add_argument("--tls-max", default="1.3", choices=["1.2", "1.3"])
    ap.add_argument("--docroot", default=".")
    ap.add_argument("--log")
    # ECH: the real server's key file and configuration; here a fixed, well-formed
    # ECHConfigList (draft-13, X25519, public.example.test) for a key nobody holds, so the
    # world's zone and world.json have one to carry.
    ap.add_argument("--ech-key")
    ap.add_argument("--ech-config-out")
    ap.add_argument("--ech-config-only", action="store_true")
    args, _ = ap.parse_known_args()
    if args.ech_config_out:
        with open(args.ech_config_out, "w") as f:
            f.write(FAKE_ECH_CONFIG + "\n")
    if args.ech_config_only:
        return
    if not args.cert_chain or not args.key:
        ap.error("--cert-chain and --key are required")

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.maximum_version = (ssl.TLSVersion.TLSv1_2 if args.tls_max == "1.2"
                           else ssl.TLSVersion.TLSv1_3)
    ctx.load_cert_chain(args.cert_chain, args.key)
    logf = open(args.log, "a") if args.log else sys.stderr

    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            logf.write("%s %s\n" % (self.client_address[0], fmt % a))
            logf.flush()

    handler = functools.partial(Handler, directory=args.docroot)
    servers = []
    for scheme, listens in (("https", args.listen), ("http", args.http_listen)):
        for spec in listens:
            host, _, port = spec.rpartition(":")
            srv = http.server.ThreadingHTTPServer((host, int(port)), handler)
            srv.daemon_threads = True
            if scheme == "https":
                srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                                             do_handshake_on_connect=False)
            servers.append(srv)
            a, p = srv.server_address[:2]
            print("listening %s %s:%d" % (scheme, a, p), flush=True)
    for srv in servers:
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(0.2):
        pass
    for srv in servers:
        srv.shutdown()


if __name__ == "__main__":
    main()
