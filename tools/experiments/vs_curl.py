#!/usr/bin/env python3
"""fetch against curl on loopback: wall time per request and peak RSS, side by side.

    vs_curl.py --fetch BIN --certs DIR [--curl BIN] [--nginx BIN] [--requests 1000]
               [--process-runs 100] [--rounds 3] [--modes keepalive,newconn,process]
               [--tls 1.2,1.3] [--sizes 1k,100k] [--http 1.1,2] [--out DIR] [--keep-dir]

Measure an optimized fetch. The launcher's default is the runfiles' fetch, built in the mode of
the `bazel run` (Bazel 4.2 has no per-target compilation mode), so run it with -c opt:

    bazel run -c opt //tools/experiments:vs_curl -- --out DIR

or pass an opt build explicitly (a relative --fetch or --out is taken from the workspace under
`bazel run`; not bazel-bin/..., which the fastbuild `bazel run` re-points before it runs):

    bazel build -c opt //tools/fetch && bazel run //tools/experiments:vs_curl -- \\
      --fetch bazel-out/k8-opt/bin/tools/fetch/fetch --out DIR

Starts its own nginx on 127.0.0.1 (two free ports: HTTP/1.1 only, and `http2` offering h2 then
http/1.1; TLS 1.2 and 1.3, session cache
and tickets on, keepalive_requests high enough for one connection to carry every request;
cert/testdata's good_leaf chain, RSA-2048) serving two files it writes into a temporary
docroot: 1k.bin (1,024 bytes) and 100k.bin (102,400 bytes). Both clients are given the same
work: the host pinned to 127.0.0.1 (`--resolve`), the test root as the only trust anchor
(fetch `--trust-anchor`, curl `--cacert`), the TLS version pinned (fetch `--tls-min V
--tls-max V`, curl `--tlsvV --tls-max V`), bodies to /dev/null (one `-o /dev/null` per URL,
both), a `-w` line per transfer (status, connections, bytes: checked). fetch also gets
`--revocation off` (its default, soft OCSP/CRL checking, is work curl does not do; the test
chain names no responder, so it would cost next to nothing here anyway).

HTTP versions (--http): 1.1 against the HTTP/1.1-only port, fetch `--http1.1` and curl
`--http1.1`; 2 against the h2 port, fetch with its default ALPN (h2, http/1.1) and curl
`--http2`, every request checked in nginx's log as HTTP/2.0. The newconn mode is HTTP/1.1 only
(its `Connection: close` is a connection-specific header HTTP/2 forbids; an h2 client closes
nothing per request).

Modes (each cell = mode x TLS version x body size, fetch and curl alternately, the order
flipping from round to round):

  keepalive  one process, --requests GETs of the same URL (the URL repeated on the command
             line) on ONE kept-alive connection: checked, the -w lines must add up to 1 connect
  newconn    one process, --requests GETs, each on a NEW connection: the same URL list with
             `-H 'Connection: close'` (nginx closes after each response), TLS sessions resumed
             from the first (both clients; nginx's log says how many were resumed)
  process    --process-runs fresh processes, one GET each (what `time fetch URL` shows: process
             start-up, a full handshake, certificate verification, one request)

Measured per run: wall time of the process(es) (fork to reaped, from Python) divided by the
requests, user+system CPU (wait4's rusage) and peak RSS (GNU time's %M: the client's ru_maxrss;
/usr/bin/time, Debian package `time`); per cell the median over --rounds. Ratios are fetch/curl
(< 1: fetch is faster or smaller). Every run is checked (exit code 0, every -w line 200 with the
whole body, the expected number of connections, nginx's access log: one line per request with
the pinned TLS version); a failed check stops the experiment (exit 1, the temporary directory is
kept).

Output: a table; with --out DIR: DIR/vs_curl.csv (one row per cell), DIR/vs_curl_runs.csv
(every run), DIR/vs_curl.svg (time and RSS ratios) and DIR/vs_curl.txt (the table).

Python 3, standard library only.
"""

import argparse
import csv
import io
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import exp_common  # noqa: E402
from exp_common import ExperimentError  # noqa: E402

HOST = "www.example.test"  # a name in good_leaf (with localhost, 127.0.0.1)
SIZES = {"1k": 1024, "100k": 102400}
MODES = ["keepalive", "newconn", "process"]
TLS_VERSIONS = ["1.2", "1.3"]
CLIENTS = ["fetch", "curl"]
WRITE_OUT = "%{http_code} %{num_connects} %{size_download}\\n"

HTTP_VERSIONS = ["1.1", "2"]

CSV_COLUMNS = ["http", "mode", "tls", "size", "requests_per_run", "rounds",
               "fetch_us_per_req", "curl_us_per_req", "time_ratio",
               "fetch_cpu_us_per_req", "curl_cpu_us_per_req", "cpu_ratio",
               "fetch_peak_rss_kb", "curl_peak_rss_kb", "rss_ratio",
               "fetch_resumed", "curl_resumed"]
RUNS_CSV_COLUMNS = ["round", "http", "mode", "tls", "size", "client", "order", "requests",
                    "processes", "wall_s", "us_per_req", "cpu_us_per_req", "peak_rss_kb",
                    "connects", "resumed"]

NGINX_CONF = """\
{user_line}
daemon off;
master_process on;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    types {{ application/octet-stream bin; }}
    default_type application/octet-stream;
    log_format vs '$ssl_protocol $ssl_session_reused $status $body_bytes_sent $server_protocol';
    access_log {dir}/access.log vs;
    client_body_temp_path {dir}/tmp_body;
    proxy_temp_path {dir}/tmp_proxy;
    fastcgi_temp_path {dir}/tmp_fastcgi;
    uwsgi_temp_path {dir}/tmp_uwsgi;
    scgi_temp_path {dir}/tmp_scgi;
    sendfile on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:VS:1m;
    ssl_session_timeout 10m;
    ssl_session_tickets on;
    server {{
        listen 127.0.0.1:{port} ssl;
        listen 127.0.0.1:{h2_port} ssl http2;
        server_name {host};
        ssl_certificate     {chain};
        ssl_certificate_key {key};
        root {dir}/html;
    }}
}}
"""


def log(msg):
    sys.stderr.write("vs_curl: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="fetch against curl on loopback (nginx): time per request, peak RSS")
    ap.add_argument("--fetch", required=True, metavar="BIN",
                    help="the fetch binary (build it with -c opt for real numbers)")
    ap.add_argument("--curl", default=shutil.which("curl") or "/usr/bin/curl", metavar="BIN")
    ap.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx",
                    metavar="BIN")
    ap.add_argument("--time", default="/usr/bin/time", metavar="BIN",
                    help="GNU time, for each client's peak RSS (-f %%M) [/usr/bin/time]")
    ap.add_argument("--certs", required=True, metavar="DIR",
                    help="cert/testdata (good_leaf_chain.pem, good_leaf.key, good_root.pem)")
    ap.add_argument("--requests", type=int, default=1000,
                    help="requests per process in keepalive and newconn [1000]")
    ap.add_argument("--process-runs", type=int, default=100,
                    help="processes (one request each) per run in mode process [100]")
    ap.add_argument("--rounds", type=int, default=3, help="runs per cell and client [3]")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--tls", default=",".join(TLS_VERSIONS))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--http", default=",".join(HTTP_VERSIONS),
                    help="HTTP versions: 1.1 and/or 2 [1.1,2]")
    ap.add_argument("--out", metavar="DIR", help="write the CSVs, the SVG and the table here")
    ap.add_argument("--keep-dir", action="store_true",
                    help="keep the temporary directory (nginx config, logs, docroot)")
    args = ap.parse_args(argv)
    ws = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if ws and not os.path.isabs(args.fetch):
        args.fetch = os.path.join(ws, args.fetch)
    exp_common.check_executable(ap, args, ["fetch", "curl", "nginx", "time"])
    for name, allowed in (("modes", MODES), ("tls", TLS_VERSIONS), ("sizes", list(SIZES)),
                          ("http", HTTP_VERSIONS)):
        vals = [v for v in getattr(args, name).split(",") if v]
        bad = [v for v in vals if v not in allowed]
        if bad or not vals:
            ap.error("--%s: %s not among %s" % (name, ",".join(bad) or "nothing", allowed))
        setattr(args, name, vals)
    for f in ("good_leaf_chain.pem", "good_leaf.key", "good_root.pem"):
        if not os.path.isfile(os.path.join(args.certs, f)):
            ap.error("--certs %s: no %s" % (args.certs, f))
    args.certs = os.path.abspath(args.certs)
    if args.requests < 1 or args.process_runs < 1 or args.rounds < 1:
        ap.error("--requests, --process-runs and --rounds must be >= 1")
    return args


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Nginx:
    def __init__(self, nginx, directory, certs):
        self.nginx, self.dir, self.certs = nginx, directory, certs
        self.proc = None
        self.port = None
        self.h2_port = None

    def start(self):
        html = os.path.join(self.dir, "html")
        os.makedirs(html, exist_ok=True)
        for name, n in SIZES.items():
            with open(os.path.join(html, name + ".bin"), "wb") as f:
                f.write(bytes((i * 7 + 13) % 251 for i in range(n)))
        # Root (CI containers): workers as root, the temporary directory may not be
        # reachable for nobody.
        user_line = "user root;" if os.geteuid() == 0 else ""
        for attempt in range(3):
            self.port = free_port()
            self.h2_port = free_port()
            conf = os.path.join(self.dir, "nginx.conf")
            with open(conf, "w") as f:
                f.write(NGINX_CONF.format(
                    user_line=user_line, dir=self.dir, port=self.port,
                    h2_port=self.h2_port, host=HOST,
                    chain=os.path.join(self.certs, "good_leaf_chain.pem"),
                    key=os.path.join(self.certs, "good_leaf.key")))
            errf = open(os.path.join(self.dir, "nginx-stderr.log"), "ab")
            self.proc = subprocess.Popen(
                [self.nginx, "-p", self.dir, "-c", conf, "-e", os.path.join(self.dir,
                                                                         "nginx-error.log")],
                stdin=subprocess.DEVNULL, stdout=errf, stderr=errf)
            errf.close()
            deadline = time.time() + 10
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                    return
                except OSError:
                    time.sleep(0.05)
            self.stop()
            with open(os.path.join(self.dir, "nginx-error.log"), errors="replace") as f:
                err = f.read()
            if "Address already in use" not in err:
                break
        raise ExperimentError("nginx did not start; see %s/nginx-error.log" % self.dir)

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    @property
    def access_log(self):
        return os.path.join(self.dir, "access.log")

    def log_size(self):
        try:
            return os.path.getsize(self.access_log)
        except OSError:
            return 0

    def log_since(self, offset):
        with open(self.access_log, errors="replace") as f:
            f.seek(offset)
            return [l.split() for l in f.read().splitlines() if l.strip()]


def client_argv(client, args, port, tls, size, mode, n, http):
    url = "https://%s:%d/%s.bin" % (HOST, port, size)
    resolve = "%s:%d:127.0.0.1" % (HOST, port)
    root = os.path.join(args.certs, "good_root.pem")
    if client == "fetch":
        argv = [args.fetch, "-s", "-S", "--resolve", resolve, "--trust-anchor", root,
                "--revocation", "off", "--tls-min", tls, "--tls-max", tls]
        # HTTP/2: fetch's default ALPN offers h2 first.
        argv += ["--http1.1"] if http == "1.1" else []
    else:
        argv = [args.curl, "-s", "-S", "--http1.1" if http == "1.1" else "--http2",
                "--resolve", resolve, "--cacert", root, "--tlsv" + tls, "--tls-max", tls]
    argv += ["-w", WRITE_OUT]  # both expand the \n escape
    if mode == "newconn":
        argv += ["-H", "Connection: close"]
    for _ in range(n):
        argv += ["-o", "/dev/null", url]
    return argv


def run_process(argv, outdir, name, time_bin):
    """Runs argv under GNU time; returns (wall s, user+sys CPU s, peak RSS KB, stdout text).

    Wall and CPU come from Python (perf_counter around fork..reap; wait4's rusage, which
    includes the waited-for client). The peak RSS is GNU time's %M, the client's ru_maxrss as
    its parent sees it: not from wait4 here, because Linux carries a parent's RSS high-water
    mark through fork and exec into the child's, so every client spawned straight from this
    Python process would report Python's ~17 MB instead of its own peak."""
    out_path = os.path.join(outdir, "last.out")
    err_path = os.path.join(outdir, "last.err")
    rss_path = os.path.join(outdir, "last.rss")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen([time_bin, "-f", "%M", "-o", rss_path] + argv,
                             stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path, errors="replace") as f:
        text = f.read()
    if p.returncode != 0:
        with open(err_path, errors="replace") as f:
            stderr = f.read().strip()
        shown = argv if len(argv) < 40 else argv[:37] + ["...(%d more)" % (len(argv) - 37)]
        raise ExperimentError("%s: exit code %d\n  command: %s%s" % (
            name, p.returncode, " ".join(shown), "\n  stderr: " + stderr[-2000:]
            if stderr else ""))
    try:
        with open(rss_path) as f:
            rss = int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        raise ExperimentError("%s: no peak RSS from %s -f %%M" % (name, time_bin))
    return wall, ru.ru_utime + ru.ru_stime, rss, text


def check_writeout(name, text, n, size_bytes):
    lines = [l.split() for l in text.splitlines() if l.strip()]
    if len(lines) != n:
        raise ExperimentError("%s: %d -w lines, expected %d:\n%s" % (
            name, len(lines), n, text[-500:]))
    connects = 0
    for l in lines:
        if len(l) != 3 or l[0] != "200" or int(l[2]) != size_bytes:
            raise ExperimentError("%s: transfer %r, expected '200 <connects> %d'" % (
                name, " ".join(l), size_bytes))
        connects += int(l[1])
    return connects


def measure(args, nginx, tmp, rnd, order, client, tls, size, mode, http):
    name = "%s http%s %s tls%s %s (round %d)" % (client, http, mode, tls, size, rnd)
    size_bytes = SIZES[size]
    port = nginx.port if http == "1.1" else nginx.h2_port
    offset = nginx.log_size()
    if mode == "process":
        procs, n = args.process_runs, args.process_runs
        argv = client_argv(client, args, port, tls, size, mode, 1, http)
        wall = cpu = 0.0
        rss = 0
        connects = 0
        for _ in range(procs):
            w, c, r, text = run_process(argv, tmp, name, args.time)
            wall, cpu, rss = wall + w, cpu + c, max(rss, r)
            connects += check_writeout(name, text, 1, size_bytes)
        want_connects = n
    else:
        procs, n = 1, args.requests
        argv = client_argv(client, args, port, tls, size, mode, n, http)
        wall, cpu, rss, text = run_process(argv, tmp, name, args.time)
        connects = check_writeout(name, text, n, size_bytes)
        want_connects = 1 if mode == "keepalive" else n
    if connects != want_connects:
        raise ExperimentError("%s: %d connections, expected %d" % (name, connects,
                                                                    want_connects))
    lines = nginx.log_since(offset)
    proto = "TLSv" + tls
    server_protocol = "HTTP/" + ("1.1" if http == "1.1" else "2.0")

    def ok(l):
        return l[0] == proto and l[2] == "200" and l[4:5] == [server_protocol]

    if len(lines) != n or not all(ok(l) for l in lines):
        bad = [l for l in lines if not ok(l)][:3]
        raise ExperimentError("%s: nginx logged %d requests (expected %d), e.g. %s" % (
            name, len(lines), n, bad or lines[:1]))
    # $ssl_session_reused is per connection: count the new connections' first requests.
    resumed = sum(1 for l in lines if l[1] == "r") if mode != "keepalive" else 0
    return {"round": rnd, "http": http, "mode": mode, "tls": tls, "size": size, "client": client,
            "order": order, "requests": n, "processes": procs, "wall_s": wall,
            "us_per_req": wall / n * 1e6, "cpu_us_per_req": cpu / n * 1e6,
            "peak_rss_kb": rss, "connects": connects, "resumed": resumed}


def fmt_us(v):
    return "%.0f" % v if v >= 100 else "%.1f" % v


def cells_of(args):
    """(http, mode, tls, size) in the order measured and reported."""
    return [(http, mode, tls, size) for http in args.http for mode in args.modes
            if not (http == "2" and mode == "newconn") for tls in args.tls
            for size in args.sizes]


def summarize(args, runs):
    cells = []
    for http, mode, tls, size in cells_of(args):
        sel = {c: [r for r in runs if (r["http"], r["mode"], r["tls"], r["size"],
                                       r["client"]) == (http, mode, tls, size, c)]
               for c in CLIENTS}
        med = lambda c, k: statistics.median(r[k] for r in sel[c])  # noqa: E731
        cell = {"http": http, "mode": mode, "tls": tls, "size": size,
                "requests_per_run": sel["fetch"][0]["requests"], "rounds": args.rounds}
        for c in CLIENTS:
            cell[c + "_us_per_req"] = med(c, "us_per_req")
            cell[c + "_cpu_us_per_req"] = med(c, "cpu_us_per_req")
            cell[c + "_peak_rss_kb"] = int(med(c, "peak_rss_kb"))
            cell[c + "_resumed"] = int(med(c, "resumed"))
        cell["time_ratio"] = cell["fetch_us_per_req"] / cell["curl_us_per_req"]
        cell["cpu_ratio"] = (cell["fetch_cpu_us_per_req"] /
                             max(cell["curl_cpu_us_per_req"], 1e-9))
        cell["rss_ratio"] = cell["fetch_peak_rss_kb"] / max(cell["curl_peak_rss_kb"], 1)
        cells.append(cell)
    return cells


def table(cells):
    header = ("http", "mode", "tls", "size", "reqs", "fetch us/req", "curl us/req", "time f/c",
              "fetch cpu", "curl cpu", "cpu f/c", "fetch RSS KB", "curl RSS KB", "RSS f/c",
              "resumed f/c")
    rows = []
    for c in cells:
        rows.append((c["http"], c["mode"], c["tls"], c["size"], c["requests_per_run"],
                     fmt_us(c["fetch_us_per_req"]), fmt_us(c["curl_us_per_req"]),
                     "%.2f" % c["time_ratio"], fmt_us(c["fetch_cpu_us_per_req"]),
                     fmt_us(c["curl_cpu_us_per_req"]), "%.2f" % c["cpu_ratio"],
                     c["fetch_peak_rss_kb"], c["curl_peak_rss_kb"], "%.2f" % c["rss_ratio"],
                     "-" if c["mode"] == "keepalive" else
                     "%d/%d" % (c["fetch_resumed"], c["curl_resumed"])))
    return header, rows


def svg(cells, args):
    bars = []
    for c in cells:
        label = "HTTP/%s %s TLS %s %s" % (c["http"], c["mode"], c["tls"], c["size"])
        bars.append({"label": label + " time", "value": c["time_ratio"], "color": "#4c78a8",
                     "annotation": "%.2f (%s vs %s us)" % (c["time_ratio"],
                                                           fmt_us(c["fetch_us_per_req"]),
                                                           fmt_us(c["curl_us_per_req"]))})
        bars.append({"label": label + " RSS", "value": c["rss_ratio"], "color": "#f58518",
                     "annotation": "%.2f (%d vs %d KB)" % (c["rss_ratio"],
                                                          c["fetch_peak_rss_kb"],
                                                          c["curl_peak_rss_kb"])})
    return exp_common.bar_chart_svg(
        "fetch / curl on loopback nginx (1.0 = curl; below: fetch faster / smaller)",
        "wall time per request (blue) and peak RSS (orange), median of %d rounds; "
        "keepalive/newconn %d requests per process, process %d processes" % (
            args.rounds, args.requests, args.process_runs),
        "fetch / curl", bars,
        notes=("fetch: %s" % args.fetch, "curl: %s" % args.curl))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if "-opt" not in args.fetch and "k8-opt" not in os.path.realpath(args.fetch):
        log("warning: %s does not look like a -c opt build; build it with "
            "'bazel build -c opt //tools/fetch' for numbers worth quoting" % args.fetch)
    tmp = tempfile.mkdtemp(prefix="vs_curl.")
    nginx = Nginx(args.nginx, tmp, args.certs)
    failed = True
    try:
        nginx.start()
        log("nginx on 127.0.0.1:%d (%s)" % (nginx.port, tmp))
        # Warm-up (page cache, nginx's session cache and worker; both binaries in memory).
        for client in CLIENTS:
            for http in args.http:
                measure(args, nginx, tmp, 0, 0, client, args.tls[-1], args.sizes[0], "process",
                        http)
        runs = []
        for rnd in range(1, args.rounds + 1):
            for http, mode, tls, size in cells_of(args):
                order = CLIENTS if rnd % 2 else CLIENTS[::-1]
                for i, client in enumerate(order):
                    runs.append(measure(args, nginx, tmp, rnd, i, client, tls, size, mode,
                                        http))
            log("round %d of %d done" % (rnd, args.rounds))
        cells = summarize(args, runs)
        header, rows = table(cells)
        buf = io.StringIO()
        buf.write("fetch %s\ncurl  %s\n" % (args.fetch, args.curl))
        buf.write("us/req: wall time per request (process: per process), median of %d rounds; "
                  "RSS: peak (GNU time %%M); f/c = fetch/curl\n" % args.rounds)
        exp_common.print_table(header, rows, buf)
        report = buf.getvalue()
        sys.stdout.write(report)
        if args.out:
            d = exp_common.out_dir(args.out)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "vs_curl.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for c in cells:
                    w.writerow({k: (("%.3f" if k.endswith("ratio") else "%.1f") % v
                                    if isinstance(v, float) else v) for k, v in c.items()})
            with open(os.path.join(d, "vs_curl_runs.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, RUNS_CSV_COLUMNS)
                w.writeheader()
                for r in runs:
                    w.writerow({k: (("%.6f" if k == "wall_s" else "%.1f") % v
                                    if isinstance(v, float) else v) for k, v in r.items()})
            with open(os.path.join(d, "vs_curl.svg"), "w") as f:
                f.write(svg(cells, args))
            with open(os.path.join(d, "vs_curl.txt"), "w") as f:
                f.write(report)
            print("wrote %s/vs_curl{.csv,_runs.csv,.svg,.txt}" % d)
        failed = False
        return 0
    except ExperimentError as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        nginx.stop()
        if failed or args.keep_dir:
            log("directory kept for inspection: %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
