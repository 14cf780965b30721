#!/usr/bin/env python3
"""spdy_loss: "How Speedy is SPDY?" (Wang et al., NSDI 2014) reproduced on the packet-level
link (issue 20 item 7): synthetic pages loaded over HTTP/1.1 with six connections per host, over
SPDY/3 on one connection, over HTTP/2 on one connection (issue 24 item 5) and over HTTP/3 on one
QUIC connection (issue 25 item 5), across round-trip times, bandwidths and random loss;
optionally (h3ng) HTTP/3 from a second QUIC server, ngtcp2's, beside quic-go's.

    bazel run -c opt //tools/experiments:spdy_loss -- [--runs 10] [--out DIR]
        [--rtts-ms 20,100,200] [--rates-mbps 1,10] [--losses 0,0.005,0.01,0.02]
        [--pages 64x100B,64x1KB,64x10KB,64x100KB,2x10KB,8x10KB,32x10KB,128x10KB]
        [--queue droptail:100] [--protocols http1,spdy,h2,h3[,h3ng]] [--h3ng-cc cubic]

The page: N objects of S bytes on one host (a.pages.example.test, the world PKI's wildcard
certificate), all requested at once (`fetch -Z`), as a browser does once it has parsed the
page. The server: one test server (`testserver --spdy --http2`: SPDY/3, h2 or HTTP/1.1 by
ALPN, TLS 1.2)
in this experiment's own network namespace; for h3, Caddy (Debian `caddy`, quic-go inside, as
the world's h3 origin) on UDP and TCP port 8444 of the same namespace with the same certificate,
serving the same sizes from files (QUIC is TLS 1.3 only: the h3 loads cannot use TLS 1.2); for
h3ng (not in the default set), ngtcp2's own server (Debian's ngtcp2-server: gtlsserver, GnuTLS
inside, its congestion controller chosen by --h3ng-cc) on UDP port 8445, the same files and
certificate: two QUIC senders, so a loss penalty can be told apart from QUIC's.
The client: a fresh fetch process per load, run
behind `netem shell` with the cell's RTT, rate (each way) and loss (each way, independent;
a seed per run, so each run draws its own loss pattern, and the protocols of a run the same
seed), and a drop-tail queue; the kernel's own TCP (SYN, slow start, loss recovery). Each cell's runs
are interleaved, the protocol order alternating. Page load time: the last responseEnd minus
the first startTime (fetch's traces). Every load is checked: every object complete, SPDY and h2
each on one session, h3 on one QUIC connection (no fallback to TCP), HTTP/1.1 on at most six
connections.

Output (DIR): spdy_loss_runs.csv (every load), spdy_loss.csv (per cell: medians and the ratios
SPDY / HTTP/1.1, h2 / HTTP/1.1 and h3 / HTTP/1.1), spdy_loss.txt (the table and, per RTT, rate and page, the
lowest loss at which each multiplexed protocol's median is slower: the crossover),
spdy_loss.svg (the ratios per cell).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp_common  # noqa: E402
from exp_common import ExperimentError  # noqa: E402

HOST = "a.pages.example.test"
WILDCARD_DIR = "wildcard.example.test"  # tools/world/pki.py HOSTS["wildcard"]
SERVER_PORT = 8443
H3_PORT = 8444  # Caddy, UDP (h3) and TCP
H3NG_PORT = 8445  # gtlsserver, UDP (h3ng)
GTLSSERVER = "/usr/sbin/gtlsserver"
# HTTP/1.1 only: with h2 offered, the six connections would wait for the first's ALPN. h2:
# fetch's default ALPN (h2, http/1.1).
# h3: QUIC v1 (TLS 1.3 inside, whatever --tls-max says for the others).
PROTOCOL_FLAGS = {"http1": ["--http1.1"], "spdy": ["--spdy"], "h2": [], "h3": ["--http3"],
                  "h3ng": ["--http3"]}
PROTOCOL_NAMES = {"http1": "HTTP/1.1", "spdy": "SPDY", "h2": "h2", "h3": "h3",
                  "h3ng": "h3-ngtcp2"}
PROTOCOLS = ("http1", "spdy", "h2", "h3", "h3ng")  # the outputs' column order
MULTIPLEXED = ("spdy", "h2", "h3", "h3ng")
QUIC_PROTOCOLS = ("h3", "h3ng")
PORTS = {"h3": H3_PORT, "h3ng": H3NG_PORT}
DEFAULT_PAGES = "64x100B,64x1KB,64x10KB,64x100KB,2x10KB,8x10KB,32x10KB,128x10KB"
UNITS = {"B": 1, "KB": 1000, "MB": 1000 * 1000}


def log(msg):
    sys.stderr.write("spdy_loss: %s\n" % msg)
    sys.stderr.flush()


def parse_page(spec):
    """'64x10KB' -> (64, 10000)."""
    count, _, size = spec.partition("x")
    for unit in ("KB", "MB", "B"):
        if size.endswith(unit):
            return int(count), int(float(size[:-len(unit)]) * UNITS[unit])
    raise ValueError(spec)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--out", default="tools/experiments/results/spdy_loss")
    ap.add_argument("--rtts-ms", default="20,100,200")
    ap.add_argument("--rates-mbps", default="1,10")
    ap.add_argument("--losses", default="0,0.005,0.01,0.02")
    ap.add_argument("--pages", default=DEFAULT_PAGES)
    ap.add_argument("--queue", default="droptail:100",
                    help="netem's queue each way (default droptail:100)")
    ap.add_argument("--max-conns-per-host", type=int, default=6)
    ap.add_argument("--protocols", default="http1,spdy,h2,h3",
                    help="among http1, spdy, h2, h3, h3ng; http1 is the baseline of the "
                    "ratios")
    ap.add_argument("--h3ng-cc", default="cubic", choices=("cubic", "reno", "bbr"),
                    help="h3ng's congestion controller (gtlsserver --cc; default cubic)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the cells already in --out (with at least --runs runs) and "
                    "measure only the others: the full grid over several sittings")
    ap.add_argument("--merge-from", default="",
                    help="DIR[,DIR...]: measure nothing; add to --out the cells of each DIR "
                    "(parts of the grid measured side by side, each with its own --out) that "
                    "have --runs runs, with their loads, and write the outputs again")
    ap.add_argument("--pki", help="the //tools/world:pki launcher (default: next to --world)")
    for b in ("fetch", "testserver", "netem", "world", "certbundle"):
        ap.add_argument("--" + b, required=True)
    args = ap.parse_args(argv)
    try:
        args.rtts_ms = [int(x) for x in args.rtts_ms.split(",")]
        args.rates_mbps = [float(x) for x in args.rates_mbps.split(",")]
        args.losses = [float(x) for x in args.losses.split(",")]
        args.pages = [(p, parse_page(p)) for p in args.pages.split(",")]
    except ValueError as e:
        ap.error("bad list: %s" % e)
    args.protocols = [p for p in args.protocols.split(",") if p]
    if "http1" not in args.protocols or any(p not in PROTOCOL_FLAGS for p in args.protocols):
        ap.error("--protocols: http1 and any of spdy, h2, h3, h3ng")
    if args.runs < 1 or min(args.rtts_ms) < 0 or min(args.rates_mbps) <= 0 or \
            not all(0 <= x < 1 for x in args.losses):
        ap.error("--runs >= 1, RTTs >= 0, rates > 0, 0 <= loss < 1")
    if not args.merge_from:  # a merge runs none of them
        exp_common.check_executable(ap, args, ("fetch", "testserver", "netem"))
    return args


def build_pki(args, work):
    """The world's PKI (tools/world/pki.py) for the wildcard leaf and the root."""
    world_dir = os.path.dirname(os.path.realpath(args.world))
    pki_py = os.path.join(world_dir, "pki.py")
    if not os.path.isfile(pki_py):
        pki_py = os.path.join(os.path.dirname(os.path.abspath(args.world)), "pki.py")
    d = os.path.join(work, "pki")
    r = subprocess.run([sys.executable, pki_py, "--dir", d, "--quiet"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise ExperimentError("the PKI was not built: %s" % r.stdout)
    leaf = os.path.join(d, WILDCARD_DIR)
    return os.path.join(leaf, "chain.pem"), os.path.join(leaf, "key.pem"), \
        os.path.join(d, "root.pem")


def start_server(args, work, chain, key):
    argv = [args.testserver, "--listen", "0.0.0.0:%d" % SERVER_PORT, "--cert-chain", chain,
            "--key", key, "--spdy", "--http2", "--tls-max", "1.2", "--quiet",
            "--log", os.path.join(work, "testserver.log")]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=open(os.path.join(work, "testserver.err"), "wb"))
    for raw in proc.stdout:
        if raw.decode(errors="replace").strip() == "ready":
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc
    raise ExperimentError("the test server did not start (exit %s)" % proc.wait())


def caddy_binary():
    for p in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin", "/usr/sbin"]:
        c = os.path.join(p, "caddy")
        if p and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise ExperimentError("h3 needs caddy (Debian package caddy; tools/setup.sh installs it)")


def size_files(args, work):
    """The directory the QUIC servers serve: size/N, a file of N bytes for each page size."""
    root = os.path.join(work, "htdocs")
    if not os.path.isdir(root):
        os.makedirs(os.path.join(root, "size"))
        for _, (_, size) in args.pages:
            with open(os.path.join(root, "size", str(size)), "wb") as f:
                f.write(b"x" * size)
    return root


def wait_for_udp(proc, port, name, err_path, tcp=False):
    """Waits (20 s at most) until |proc| has bound UDP |port| (and TCP, with |tcp|)."""
    import socket
    import time
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ExperimentError("%s exited %s: see %s" % (name, proc.returncode, err_path))
        udp = False
        for table in ("/proc/net/udp", "/proc/net/udp6"):  # [::] binds are dual stack
            with open(table) as f:
                udp = udp or any(line.split()[1].endswith(":%04X" % port)
                                 for line in f.readlines()[1:])
        ok = udp
        if ok and tcp:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            except OSError:
                ok = False
        if ok:
            return proc
        time.sleep(0.05)
    proc.kill()
    with open(err_path, errors="replace") as f:
        tail = f.read()[-1500:]
    raise ExperimentError("%s did not bind UDP%s %d within 20 s: %s" % (
        name, " and TCP" if tcp else "", port, tail))


def start_gtlsserver(args, work, chain, key):
    """ngtcp2's HTTP/3 server on UDP H3NG_PORT of every address of this namespace: the same
    files and certificate as Caddy's, --h3ng-cc's congestion controller."""
    if not os.access(GTLSSERVER, os.X_OK):
        raise ExperimentError("h3ng needs %s (Debian package ngtcp2-server; tools/setup.sh "
                              "installs it)" % GTLSSERVER)
    err = os.path.join(work, "gtlsserver.err")
    proc = subprocess.Popen([GTLSSERVER, "-q", "-d", size_files(args, work), "--cc",
                             args.h3ng_cc, "*", str(H3NG_PORT), key, chain],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=open(err, "wb"))
    return wait_for_udp(proc, H3NG_PORT, "gtlsserver", err)


def start_caddy(args, work, chain, key):
    """Caddy serving /size/N (files of N bytes, each page size) over h3 on UDP and h1/h2 on
    TCP H3_PORT, every address of this namespace, with the test server's certificate."""
    d = os.path.join(work, "caddy")
    os.makedirs(d)
    root = size_files(args, work)
    conf = os.path.join(d, "Caddyfile")
    with open(conf, "w") as f:
        f.write("{\n\tadmin off\n\tauto_https off\n\tocsp_stapling off\n"
                "\tstorage file_system %s/data\n\tservers {\n\t\tprotocols h1 h2 h3\n\t}\n}\n"
                "https://%s:%d {\n\ttls %s %s\n\troot * %s\n\tfile_server\n}\n" % (
                    d, HOST, H3_PORT, chain, key, root))
    env = dict(os.environ, HOME=d, XDG_DATA_HOME=d, XDG_CONFIG_HOME=d)
    proc = subprocess.Popen([caddy_binary(), "run", "--config", conf, "--adapter", "caddyfile"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, "caddy.err"), "wb"), env=env)
    return wait_for_udp(proc, H3_PORT, "caddy", os.path.join(work, "caddy.err"), tcp=True)


def loss_seed(rtt, rate, loss, name, run):
    """netem's loss seed for one run of a cell: a different loss pattern for every run (the
    protocols of a run share it), the same again when the cell is measured again."""
    import zlib
    return zlib.crc32(("%d|%g|%g|%s|%d" % (rtt, rate, loss, name, run)).encode())


def runs_by_cell(runs):
    """|runs| grouped by cell_key, each cell's loads in their order."""
    grouped = {}
    for r in runs:
        grouped.setdefault(cell_key(r), []).append(r)
    return grouped


def why_incomplete(args, cell, cell_runs):
    """Why |cell| (with |cell_runs|, its loads) does not count as measured, or "" when it
    does: --runs runs of every protocol asked for, each with its load, and, with loss, a loss
    seed per load (before seeds every run of a cell drew the same loss pattern: netem's
    default seed)."""
    if any(cell.get(p + "_median_ms") in (None, "") for p in args.protocols):
        return "not every protocol asked for"
    loads = min(sum(1 for r in cell_runs if r["protocol"] == p) for p in args.protocols)
    if int(cell["runs"]) < args.runs or loads < int(cell["runs"]):
        return "%d of %d runs" % (min(loads, int(cell["runs"])), args.runs)
    if "h3ng" in args.protocols and cell.get("h3ng_cc") != args.h3ng_cc:
        return "h3ng measured with %s" % (cell.get("h3ng_cc") or "another congestion control")
    if float(cell["loss"]) > 0 and any(r.get("seed") in (None, "") for r in cell_runs):
        return "loss without a seed per run"
    return ""


def load(args, protocol, page, rtt, rate, loss, trust, seed):
    count, size = page
    port = PORTS.get(protocol, SERVER_PORT)
    urls = ["https://%s:%d/size/%d?r=%d" % (HOST, port, size, i) for i in range(count)]
    tls = [] if protocol in QUIC_PROTOCOLS else ["--tls-max", "1.2"]
    tail = ["--trust-anchor", trust] + tls + ["--revocation", "off",
            "--max-time", "300", "-Z", "--max-conns-per-host", str(args.max_conns_per_host)]
    tail += PROTOCOL_FLAGS[protocol] + ["-o", os.devnull] * count + urls
    link = ["--rtt-ms", str(rtt), "--rate-mbps", "%g" % rate, "--queue", args.queue]
    if loss > 0:
        link += ["--loss", "%g" % loss, "--seed", str(seed)]
    prefix = exp_common.netem_shell_prefix(args.netem, link, [HOST], port)
    traces, _, _, cmd = exp_common.run_fetch(args.fetch, tail, protocol, timeout=400,
                                             prefix=prefix)
    problems = []
    if len(traces) != count or any(t.get("error") not in (None, "OK") for t in traces):
        problems.append("%d traces for %d objects, errors %s" % (
            len(traces), count, sorted(set(str(t.get("error")) for t in traces))))
    if any(t.get("encodedBodySize") != size for t in traces):
        problems.append("incomplete bodies")
    sessions = {(t.get("spdy") or {}).get("sessionId") for t in traces if t.get("spdy")}
    conns = sum(1 for t in traces if not t.get("socketReused") and
                (t.get("spdy") or {}).get("session") != "pooled")
    if protocol == "spdy" and (len(sessions) != 1 or
                               any(t.get("tls", {}).get("alpn") != "spdy/3" for t in traces)):
        problems.append("SPDY on %d sessions" % len(sessions))
    h2_sessions = {(t.get("h2") or {}).get("sessionId") for t in traces}
    if protocol == "h2" and (len(h2_sessions) != 1 or None in h2_sessions or
                             any(t.get("tls", {}).get("alpn") != "h2" for t in traces)):
        problems.append("h2 on %d sessions" % len(h2_sessions))
    if protocol in QUIC_PROTOCOLS:
        quic = [t.get("quic") or {} for t in traces]
        new = sum(1 for q in quic if q.get("session") == "new")
        if new != 1 or any((q.get("used"), q.get("version"), q.get("fallback")) != (True, 1, "")
                           for q in quic) or any(t.get("tls", {}).get("alpn") != "h3"
                                                 for t in traces):
            problems.append("%d QUIC connections, quic %s" % (new, sorted(set(
                "%s/%s/%s" % (q.get("used"), q.get("version"), q.get("fallback"))
                for q in quic))))
    if protocol == "http1" and conns > args.max_conns_per_host:
        problems.append("%d connections" % conns)
    if problems:
        raise ExperimentError("%s: %s\n  command: %s" % (protocol, "; ".join(problems), cmd))
    start = min(t["startTime"] for t in traces)
    return max(t["startTime"] + t["responseEnd"] for t in traces) - start


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.merge_from:
        return merge(args)
    exp_common.enter_private_namespace(log)
    out = exp_common.out_dir(args.out)
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="spdy_loss-", dir=os.environ.get("TEST_TMPDIR") or None)
    runs, cells = ([], []) if not args.resume else load_outputs(out)
    # Done: enough runs of every protocol asked for (a cell measured before h2 had a row is
    # measured again).
    grouped = runs_by_cell(runs)
    done = {cell_key(c) for c in cells
            if not why_incomplete(args, c, grouped.get(cell_key(c), []))}
    # Cells with fewer runs than asked for are measured again, from scratch.
    cells = [c for c in cells if cell_key(c) in done]
    runs = [r for r in runs if cell_key(r) in done]
    if args.resume:
        log("resuming: %d cells already measured in %s" % (len(done), out))
    server = caddy = ngtcp2 = None
    try:
        chain, key, trust = build_pki(args, work)
        server = start_server(args, work, chain, key)
        if "h3" in args.protocols:
            caddy = start_caddy(args, work, chain, key)
        if "h3ng" in args.protocols:
            ngtcp2 = start_gtlsserver(args, work, chain, key)
        n_cells = len(args.rtts_ms) * len(args.rates_mbps) * len(args.losses) * len(args.pages)
        k = 0
        for rtt in args.rtts_ms:
            for rate in args.rates_mbps:
                for loss in args.losses:
                    for name, page in args.pages:
                        k += 1
                        if (rtt, rate, loss, name, args.queue) in done:
                            continue
                        plt = {p: [] for p in args.protocols}
                        for run in range(args.runs):
                            # The order rotates, so each protocol goes first in turn.
                            k0 = run % len(args.protocols)
                            order = args.protocols[k0:] + args.protocols[:k0]
                            for protocol in order:
                                seed = loss_seed(rtt, rate, loss, name, run)
                                ms = load(args, protocol, page, rtt, rate, loss, trust, seed)
                                plt[protocol].append(ms)
                                runs.append({"rtt_ms": rtt, "rate_mbps": rate, "loss": loss,
                                             "page": name, "queue": args.queue,
                                             "protocol": protocol, "run": run,
                                             "seed": seed, "page_load_ms": ms})
                        cell = {"rtt_ms": rtt, "rate_mbps": rate, "loss": loss, "page": name,
                                "runs": args.runs, "queue": args.queue}
                        if "h3ng" in args.protocols:
                            cell["h3ng_cc"] = args.h3ng_cc
                        for p in args.protocols:
                            cell[p + "_median_ms"] = statistics.median(plt[p])
                            cell[p + "_min_ms"] = min(plt[p])
                            cell[p + "_max_ms"] = max(plt[p])
                        for p in MULTIPLEXED:
                            if p in plt:
                                cell[p + "_over_http1"] = (cell[p + "_median_ms"] /
                                                           cell["http1_median_ms"])
                        cells.append(cell)
                        # The outputs so far, after every cell: a long run stopped early
                        # keeps what it measured.
                        write_outputs(args, out, runs, cells, quiet=True)
                        log("cell %d/%d: RTT %d ms, %g Mbit/s, loss %g, %s: %s" % (
                            k, n_cells, rtt, rate, loss, name, ", ".join(
                                "%s %.0f ms" % (PROTOCOL_NAMES[p], cell[p + "_median_ms"])
                                for p in args.protocols)))
    finally:
        for p in (server, caddy, ngtcp2):
            if p is not None:
                p.terminate()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)
    write_outputs(args, out, runs, cells)
    return 0


def merge(args):
    """--merge-from: the union of the complete cells of --out (first) and of each part, in the
    grid's order. A cell in two places keeps the first one's loads (no averaging across
    sittings); an incomplete cell of a part is left out and said."""
    out = exp_common.out_dir(args.out)
    os.makedirs(out, exist_ok=True)
    runs, cells = load_outputs(out)
    # --out's own cells by the same rule as the parts'.
    grouped = runs_by_cell(runs)
    kept = {cell_key(c) for c in cells
            if not why_incomplete(args, c, grouped.get(cell_key(c), []))}
    if len(kept) < len(cells):
        log("%s: %d cells not complete by this run's rules: left out" % (
            out, len(cells) - len(kept)))
    cells = [c for c in cells if cell_key(c) in kept]
    runs = [r for r in runs if cell_key(r) in kept]
    seen = set(kept)
    for part in args.merge_from.split(","):
        part = exp_common.out_dir(part)
        if not os.path.isfile(os.path.join(part, "spdy_loss.csv")):
            raise ExperimentError("--merge-from %s: no spdy_loss.csv there" % part)
        p_runs, p_cells = load_outputs(part)
        p_grouped = runs_by_cell(p_runs)
        added = 0
        for c in p_cells:
            key = cell_key(c)
            if key in seen:
                continue
            mine = p_grouped.get(key, [])
            why = why_incomplete(args, c, mine)
            if why:
                log("%s: cell RTT %d ms, %g Mbit/s, loss %g, %s: %s: left out" % (
                    part, c["rtt_ms"], c["rate_mbps"], c["loss"], c["page"], why))
                continue
            seen.add(key)
            cells.append(c)
            runs.extend(mine)
            added += 1
        log("%s: %d cells added" % (part, added))
    page_order = {name: i for i, (name, _) in enumerate(args.pages)}

    def order(c):
        return (c["rtt_ms"], c["rate_mbps"], c["loss"], page_order.get(c["page"], len(page_order)),
                c["page"])
    cells.sort(key=order)
    runs.sort(key=order)  # stable: each cell's loads stay in the order they were measured
    write_outputs(args, out, runs, cells)
    return 0


def cell_key(c):
    # The queue is part of the link: cells measured under another one are not reused.
    return (int(c["rtt_ms"]), float(c["rate_mbps"]), float(c["loss"]), c["page"],
            c.get("queue") or "droptail:100")


def load_outputs(out):
    """The runs and cells an earlier (stopped or partial) run wrote to |out|, as numbers, for
    --resume: the full grid takes hours and can be measured over several sittings."""
    import csv

    def num(row):
        r = dict(row)
        for k, v in r.items():
            if k not in ("page", "protocol", "queue", "h3ng_cc") and v not in (None, ""):
                try:
                    r[k] = int(v)
                except ValueError:
                    r[k] = float(v)
        return r
    try:
        with open(os.path.join(out, "spdy_loss_runs.csv")) as f:
            runs = [num(r) for r in csv.DictReader(f)]
        with open(os.path.join(out, "spdy_loss.csv")) as f:
            cells = [num(r) for r in csv.DictReader(f)]
    except OSError:
        return [], []
    return runs, cells


def _ratio(c, p):
    v = c.get(p + "_over_http1")
    return None if v in (None, "") else float(v)


def write_outputs(args, out, runs, cells, quiet=False):
    exp_common.write_csv(os.path.join(out, "spdy_loss_runs.csv"),
                         ["rtt_ms", "rate_mbps", "loss", "page", "queue", "protocol", "run",
                          "seed", "page_load_ms"], runs)
    # The protocols asked for or measured in any cell (h3ng only where it was).
    shown = [p for p in PROTOCOLS if p in args.protocols or
             any(c.get(p + "_median_ms") not in (None, "") for c in cells)]
    cols = ["rtt_ms", "rate_mbps", "loss", "page", "queue", "runs"]
    for p in shown:
        cols += [p + "_median_ms", p + "_min_ms", p + "_max_ms"]
    multiplexed = [p for p in shown if p in MULTIPLEXED]
    cols += [p + "_over_http1" for p in multiplexed]
    if "h3ng" in shown:
        cols.append("h3ng_cc")
    exp_common.write_csv(os.path.join(out, "spdy_loss.csv"), cols, cells)
    lines = ["spdy_loss: page load time, HTTP/1.1 (%d connections per host) against SPDY/3, "
             "HTTP/2 and HTTP/3 (one connection each), on netem shell's packet-level link (%s "
             "queue each way, independent loss each way); TLS 1.2 (h3: QUIC v1, TLS 1.3, "
             "Caddy's quic-go; h3-ngtcp2: the same from ngtcp2's server, the h3ng_cc "
             "column's congestion controller); %d "
             "run(s) per cell, interleaved; medians in ms ('-': not measured in that cell)" % (
                 args.max_conns_per_host, args.queue, args.runs), ""]

    def ms(c, p):
        v = c.get(p + "_median_ms")
        return "-" if v in (None, "") else "%.0f" % float(v)

    def ratio(c, p):
        v = _ratio(c, p)
        return "-" if v is None else "%.2f" % v

    table = [(c["rtt_ms"], "%g" % c["rate_mbps"], "%g%%" % (100 * c["loss"]), c["page"]) +
             tuple(ms(c, p) for p in shown) + tuple(ratio(c, p) for p in multiplexed)
             for c in cells]
    import io
    rep = io.StringIO()
    exp_common.print_table(
        ("RTT ms", "Mbit/s", "loss", "page") + tuple(PROTOCOL_NAMES[p] for p in shown) +
        tuple("%s/HTTP" % PROTOCOL_NAMES[p] for p in multiplexed), table, rep)
    lines.append(rep.getvalue())
    lines.append("Crossover (the lowest loss at which a multiplexed protocol's median is slower "
                 "than HTTP/1.1's; '-' = never in the range measured):")
    # The grid of the cells measured (with --resume, more than this sitting's arguments).
    pages = []
    for c in cells:
        if c["page"] not in pages:
            pages.append(c["page"])
    for rtt in sorted({c["rtt_ms"] for c in cells}):
        for rate in sorted({c["rate_mbps"] for c in cells}):
            for name in pages:
                mine = sorted((c for c in cells if c["rtt_ms"] == rtt and
                               c["rate_mbps"] == rate and c["page"] == name),
                              key=lambda c: c["loss"])
                if not mine:
                    continue
                cross = []
                for p in multiplexed:
                    have = [c for c in mine if _ratio(c, p) is not None]
                    worse = [c["loss"] for c in have if _ratio(c, p) > 1.0]
                    cross.append("%s %s" % (PROTOCOL_NAMES[p], "%g%%" % (100 * worse[0])
                                            if worse else ("-" if have else "n/a")))
                lines.append("  RTT %3d ms, %4g Mbit/s, %-9s %s" % (rtt, rate, name,
                                                                    ", ".join(cross)))
    lines.append("")
    for p in multiplexed:
        have = [c for c in cells if _ratio(c, p) is not None]
        wins = sum(1 for c in have if _ratio(c, p) < 1.0)
        lines.append("%s faster than HTTP/1.1 in %d of %d cells" % (PROTOCOL_NAMES[p], wins,
                                                                    len(have)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "spdy_loss.txt"), "w") as f:
        f.write(text)
    if not quiet:
        sys.stdout.write(text)
    bars = []
    for c in cells:
        for p in multiplexed:
            v = _ratio(c, p)
            if v is None:
                continue
            bars.append({"label": "%s %dms %gM %g%% %s" % (PROTOCOL_NAMES[p], c["rtt_ms"],
                                                          c["rate_mbps"], 100 * c["loss"],
                                                          c["page"]),
                         "value": v, "color": {"spdy": "#54a24b", "h2": "#4c78a8",
                                               "h3": "#eeca3b", "h3ng": "#b279a2"}[p]
                         if v < 1 else "#e45756",
                         "annotation": "%.2f" % v})
    with open(os.path.join(out, "spdy_loss.svg"), "w") as f:
        f.write(exp_common.bar_chart_svg(
            "SPDY/3, HTTP/2 and HTTP/3 page load time over HTTP/1.1's (below 1: faster)",
            "median of %d runs per cell; netem shell, %s queue" % (args.runs, args.queue),
            "protocol / HTTP/1.1", bars, right_w=60))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ExperimentError as e:
        log("error: %s" % e)
        sys.exit(1)
