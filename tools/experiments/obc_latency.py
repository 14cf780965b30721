#!/usr/bin/env python3
"""Origin-bound certificate latency: the TLS-OBC paper's Figures 6 and 7, on loopback.

    obc_latency.py --fetch BIN --testserver BIN --cert-dir DIR
                   [--runs 21] [--tls 1.3,1.2] [--out DIR] [--check]

(Normally `bazel run -c opt //tools/experiments:obc_latency -- [--runs N] [--out DIR]`; the
launcher (run_experiment.sh, experiment() in BUILD.bazel) fills in the binaries and
cert/testdata from the runfiles.)

Starts two testservers on 127.0.0.1 with cert/testdata's chain (www.example.test, localhost):
the origin, with --request-client-cert, and a warm-up origin that asks for no certificate.
Each measurement is one fresh `fetch` process that first fetches https://localhost:PORT/ from
the warm-up origin and then the origin's https://www.example.test:PORT/; the second request's
responseEnd (its Resource Timing trace) is the measurement. The warm-up request stands for a
browser that is already running: the first TLS handshake of a process pays about 2 ms of one-off
costs (lazy initialisation, first use of code pages), which --obc-warm's wait would otherwise
take off the OBC rows only. Configurations:

  none                  no OBC (--obc off): the reference each OBC row is divided by
  ALG, pool warm        --obc ALG --obc-warm: the key pool is full before the requests
  ALG, pool cold        --obc ALG --obc-pool 0: no pre-generated keys; a new scope waits for
                        its key to be generated (what browsers did before key pools)

for ALG in ecdsa, rsa1024, rsa2048. A first visit uses a new, empty profile (--profile DIR: no
OBC for the origin yet); the second visit is the next fetch process on the same profile (the
OBC is a cached certificate; a new process has no TLS session, so it is a full handshake that
presents and signs with the OBC again). Within every run each TLS version measures all
configurations' first visits, then their second visits, in an order that rotates from run to
run, so that machine noise hits the rows alike; one discarded warm-up run comes first.
--no-warmup-request measures the origin's request alone, in a process that has done nothing
before it.

Every measurement is checked (exit 0, status 200, the TLS version, the trace's obc.source:
none / pooled_key on a warm first visit / pooled_key or generated on a cold one / cached_cert
on a second visit) and at the end the server's log must show an OBC on every OBC connection and
none on the others.

Output: a table per TLS version (median and [min-max] of responseEnd, the ratio of medians to
`none` in the same visit and TLS version, the added ms (difference of medians) and the median of
the per-run paired differences, the trace's obc.ms (time the request waited for its OBC) and
generationMs, the obc.source counts), and whether "warm pool: the first-visit latency an OBC
adds is at most 1 ms (median) for every algorithm" holds. With --out DIR: DIR/obc_latency.csv
(the summary), DIR/obc_latency_runs.csv (every measurement), DIR/obc_latency.txt (the printed
report). Exit codes: 0 ok, 1 a measurement failed, 2 bad usage, 3 --check and the claim does not
hold.

Python 3, standard library only.
"""

import argparse
import csv
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

HOST = "www.example.test"
ALGORITHMS = ["ecdsa", "rsa1024", "rsa2048"]
# name, algorithm (None: OBC off), pool ("warm", "cold", "-")
CONFIGS = [("none", None, "-")] + [
    ("%s_%s" % (alg, pool), alg, pool) for alg in ALGORITHMS for pool in ("warm", "cold")]
VISITS = ["first", "second"]
CLAIM_MS = 1.0

CSV_COLUMNS = ["tls", "config", "algorithm", "pool", "visit", "runs", "median_ms", "min_ms",
               "max_ms", "ratio_to_none", "added_ms", "paired_added_ms", "median_tls_ms",
               "median_obc_ms", "median_generation_ms", "obc_sources"]
RUNS_CSV_COLUMNS = ["run", "tls", "config", "visit", "order", "responseEnd", "connectEnd",
                    "tls_ms", "obc_source", "obc_ms", "generation_ms"]


class ExperimentError(Exception):
    pass


def log(msg):
    sys.stderr.write("obc_latency: %s\n" % msg)
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="First- and second-visit fetch latency with and without origin-bound "
                    "certificates (see tools/experiments/README.md).")
    ap.add_argument("--runs", type=int, default=21,
                    help="measurements per configuration and visit (default 21)")
    ap.add_argument("--tls", default="1.3,1.2",
                    help="comma-separated TLS versions to measure (default 1.3,1.2)")
    ap.add_argument("--configs", default=",".join(c[0] for c in CONFIGS),
                    help="comma-separated configurations (default: all; `none` is always "
                         "measured)")
    ap.add_argument("--out", metavar="DIR",
                    help="write DIR/obc_latency.csv, DIR/obc_latency_runs.csv and "
                         "DIR/obc_latency.txt; a relative DIR is taken from "
                         "$BUILD_WORKSPACE_DIRECTORY under `bazel run`")
    ap.add_argument("--no-warmup-request", action="store_true",
                    help="do not fetch from the warm-up origin first (measures a process's "
                         "first handshake, start-up costs included)")
    ap.add_argument("--check", action="store_true",
                    help="exit 3 unless the warm-pool claim holds for every algorithm and TLS "
                         "version measured")
    ap.add_argument("--keep-tmp", action="store_true",
                    help="keep the profiles and the server log instead of deleting them")
    ap.add_argument("--fetch", required=True, help="fetch binary")
    ap.add_argument("--testserver", required=True, help="testserver binary")
    ap.add_argument("--cert-dir", required=True,
                    help="cert/testdata (good_leaf_chain.pem, good_leaf.key, good_root.pem)")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    args.tls = [v.strip() for v in args.tls.split(",") if v.strip()]
    if not args.tls or any(v not in ("1.2", "1.3") for v in args.tls):
        ap.error("--tls takes 1.2 and/or 1.3")
    known = {c[0]: c for c in CONFIGS}
    wanted = [c.strip() for c in args.configs.split(",") if c.strip()]
    for c in wanted:
        if c not in known:
            ap.error("unknown configuration %r (known: %s)" % (c, ", ".join(known)))
    args.configs = [c for c in CONFIGS if c[0] in wanted or c[0] == "none"]
    for flag in ("fetch", "testserver"):
        path = getattr(args, flag)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error("--%s %s: not an executable file" % (flag, path))
        setattr(args, flag, os.path.abspath(path))
    args.cert_dir = os.path.abspath(args.cert_dir)
    for f in ("good_leaf_chain.pem", "good_leaf.key", "good_root.pem"):
        if not os.path.isfile(os.path.join(args.cert_dir, f)):
            ap.error("--cert-dir %s has no %s" % (args.cert_dir, f))
    return args


def out_dir(path):
    if os.path.isabs(path):
        return path
    return os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd(), path)


class Server:
    """A testserver on 127.0.0.1, ephemeral port; stopped by PID."""

    def __init__(self, args, log_path, request_client_cert):
        self.argv = [args.testserver, "--listen", "127.0.0.1:0",
                     "--cert-chain", os.path.join(args.cert_dir, "good_leaf_chain.pem"),
                     "--key", os.path.join(args.cert_dir, "good_leaf.key"),
                     "--quiet", "--log", log_path]
        if request_client_cert:
            self.argv.append("--request-client-cert")
        self.log_path = log_path
        self.proc = None
        self.port = None

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 10
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").strip()
            m = re.match(r"listening https 127\.0\.0\.1:(\d+)$", line)
            if m:
                self.port = int(m.group(1))
            if line == "ready" or time.monotonic() > deadline:
                break
        if self.port is None or self.proc.poll() is not None:
            raise ExperimentError("the testserver did not start: %s" % " ".join(self.argv))

    def check_alive(self):
        if self.proc.poll() is not None:
            raise ExperimentError("the testserver exited (code %s) during the experiment" %
                                  self.proc.returncode)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()


def expected_sources(algorithm, pool, visit):
    if algorithm is None:
        return ("none",)
    if visit == "second":
        return ("cached_cert",)
    return ("pooled_key",) if pool == "warm" else ("generated",)


def run_fetch(args, server, warmup, tls, name, algorithm, pool, visit, profile):
    argv = [args.fetch, "--trust-anchor", os.path.join(args.cert_dir, "good_root.pem"),
            "--resolve", "%s:%d:127.0.0.1" % (HOST, server.port), "--resolve",
            "localhost:%d:127.0.0.1" % warmup.port, "--revocation", "off",
            "--tls-min", tls, "--tls-max", tls, "--trace-json", "-", "-o", "/dev/null",
            "--max-time", "60", "--profile", profile]
    if algorithm:
        argv += ["--obc", algorithm]
        argv += ["--obc-warm"] if pool == "warm" else ["--obc-pool", "0"]
    want_lines = 1
    if not args.no_warmup_request:
        # One -o per URL, as curl.
        argv += ["-o", "/dev/null", "https://localhost:%d/" % warmup.port]
        want_lines = 2
    argv.append("https://%s:%d/" % (HOST, server.port))
    cmd = " ".join(argv)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
    except subprocess.TimeoutExpired:
        raise ExperimentError("%s: fetch did not finish within 120 s\n  command: %s" % (name, cmd))
    stderr = p.stderr.decode(errors="replace").strip()
    if p.returncode != 0:
        raise ExperimentError("%s: fetch failed with exit code %d\n  command: %s%s" % (
            name, p.returncode, cmd, "\n  stderr: " + stderr if stderr else ""))
    lines = [l for l in p.stdout.decode(errors="replace").splitlines() if l.strip()]
    if len(lines) != want_lines:
        raise ExperimentError("%s: expected %d trace lines, got %d\n  command: %s" % (
            name, want_lines, len(lines), cmd))
    try:
        traces = [json.loads(l) for l in lines]
    except ValueError:
        raise ExperimentError("%s: the trace is not JSON: %r" % (name, lines[0][:200]))
    t = traces[-1]
    if want_lines == 2 and (traces[0].get("status") != 200 or
                            (traces[0].get("obc") or {}).get("source") != "none"):
        raise ExperimentError("%s: the warm-up request did not do as expected: %s" % (
            name, json.dumps(traces[0])))
    obc = t.get("obc") or {}
    tls_facts = t.get("tls") or {}
    problems = []
    if t.get("status") != 200 or t.get("error") != "OK":
        problems.append("status %s, error %s" % (t.get("status"), t.get("error")))
    if tls_facts.get("version") != "TLSv" + tls:
        problems.append("TLS version %s" % tls_facts.get("version"))
    if tls_facts.get("resumed"):
        problems.append("a resumed handshake (a fresh process should have no session)")
    if obc.get("source") not in expected_sources(algorithm, pool, visit):
        problems.append("obc.source %r, expected %s" % (
            obc.get("source"), " or ".join(expected_sources(algorithm, pool, visit))))
    if algorithm and obc.get("algorithm") != algorithm:
        problems.append("obc.algorithm %r" % obc.get("algorithm"))
    for k in ("secureConnectionStart", "connectEnd", "responseEnd"):
        if not isinstance(t.get(k), (int, float)):
            problems.append("no %s" % k)
    if problems:
        raise ExperimentError("%s (%s visit): %s\n  command: %s\n  trace: %s" % (
            name, visit, "; ".join(problems), cmd, json.dumps(t)))
    return {
        "responseEnd": t["responseEnd"] - (t.get("startTime") or 0),
        "connectEnd": t["connectEnd"] - (t.get("startTime") or 0),
        "tls_ms": t["connectEnd"] - t["secureConnectionStart"],
        "obc_source": obc.get("source", "none"),
        "obc_ms": float(obc.get("ms") or 0.0),
        "generation_ms": float(obc.get("generationMs") or 0.0),
    }


def check_server_log(path, expected_obc, expected_plain):
    """Every connection the server logged must carry an OBC hash iff the fetch asked for one."""
    return _count_obc_connections(path, expected_obc, expected_plain)


def _count_obc_connections(path, expected_obc, expected_plain):
    with_obc = without = 0
    with open(path) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            entry = json.loads(line)
            if entry.get("event") != "connection":
                continue
            if entry.get("obc_spki_sha256"):
                with_obc += 1
            else:
                without += 1
    if (with_obc, without) != (expected_obc, expected_plain):
        raise ExperimentError(
            "the server logged %d connection(s) with an OBC and %d without; the fetches made "
            "%d and %d" % (with_obc, without, expected_obc, expected_plain))
    return with_obc, without


def fmt_range(values):
    return "%.2f [%.2f-%.2f]" % (statistics.median(values), min(values), max(values))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    tmp = tempfile.mkdtemp(prefix="obc_latency-", dir=os.environ.get("TEST_TMPDIR") or None)
    server = Server(args, os.path.join(tmp, "testserver.jsonl"), True)
    warmup = Server(args, os.path.join(tmp, "warmup.jsonl"), False)
    failed = True
    try:
        server.start()
        warmup.start()
        log("testserver --request-client-cert on 127.0.0.1:%d; %d run(s), TLS %s, configs %s" % (
            server.port, args.runs, "/".join(args.tls), ", ".join(c[0] for c in args.configs)))
        samples = {}  # (tls, config, visit) -> [measurement]
        rows = []
        counter = [0]
        expected = {"obc": 0, "plain": 0}

        def one_run(run, record):
            for tls in args.tls:
                k = run % len(args.configs)
                order = args.configs[k:] + args.configs[:k]
                profiles = {}
                for visit in VISITS:
                    for pos, (name, algorithm, pool) in enumerate(order):
                        server.check_alive()
                        if visit == "first":
                            counter[0] += 1
                            profiles[name] = os.path.join(tmp, "p%05d" % counter[0])
                        m = run_fetch(args, server, warmup, tls, name, algorithm, pool,
                                      visit, profiles[name])
                        expected["obc" if algorithm else "plain"] += 1
                        if record:
                            samples.setdefault((tls, name, visit), []).append(m)
                            rows.append(dict(m, run=run + 1, tls=tls, config=name,
                                             visit=visit, order=pos + 1))
                for p in profiles.values():
                    shutil.rmtree(p, ignore_errors=True)

        # One discarded round: the first processes pay page-ins and lazy initialisation.
        log("warm-up run (discarded)")
        one_run(0, record=False)
        t0 = time.monotonic()
        for run in range(args.runs):
            one_run(run, record=True)
            if (run + 1) % max(1, args.runs // 5) == 0 or run + 1 == args.runs:
                log("run %d/%d (%.0f s)" % (run + 1, args.runs, time.monotonic() - t0))
        time.sleep(0.2)  # the server writes a connection's line when it closes
        with_obc, without = check_server_log(server.log_path, expected["obc"], expected["plain"])
        if not args.no_warmup_request:
            check_server_log(warmup.log_path, 0, expected["obc"] + expected["plain"])

        # -- summary ------------------------------------------------------------------------
        summary = []
        for tls in args.tls:
            for visit in VISITS:
                ref = samples[(tls, "none", visit)]
                ref_med = statistics.median(m["responseEnd"] for m in ref)
                for name, algorithm, pool in args.configs:
                    ms = samples[(tls, name, visit)]
                    resp = [m["responseEnd"] for m in ms]
                    med = statistics.median(resp)
                    paired = [a["responseEnd"] - b["responseEnd"] for a, b in zip(ms, ref)]
                    sources = {}
                    for m in ms:
                        sources[m["obc_source"]] = sources.get(m["obc_source"], 0) + 1
                    summary.append({
                        "tls": tls, "config": name, "algorithm": algorithm or "none",
                        "pool": pool, "visit": visit, "runs": len(ms), "resp": resp,
                        "median_ms": med, "min_ms": min(resp), "max_ms": max(resp),
                        "ratio_to_none": med / ref_med, "added_ms": med - ref_med,
                        "paired_added_ms": statistics.median(paired),
                        "median_tls_ms": statistics.median(m["tls_ms"] for m in ms),
                        "median_obc_ms": statistics.median(m["obc_ms"] for m in ms),
                        "median_generation_ms": statistics.median(m["generation_ms"]
                                                                  for m in ms),
                        "obc_sources": " ".join("%s:%d" % kv for kv in sorted(sources.items())),
                    })

        out = []
        out.append("obc_latency: testserver --request-client-cert on loopback, %d run(s) per row, "
                   "fresh fetch process per measurement (%s); responseEnd in ms from the "
                   "request's startTime, median [min-max]; ratio and added ms against `none` in "
                   "the same TLS version and visit" % (
                       args.runs, "the process's first request" if args.no_warmup_request
                       else "after one request to a warm-up origin"))
        hdr = ("tls", "visit", "config", "responseEnd", "vs none", "added ms", "paired",
               "TLS ms", "obc.ms", "genMs", "obc.source")
        table = [(s["tls"], s["visit"], s["config"], fmt_range(s["resp"]),
                  "%.3f" % s["ratio_to_none"], "%+.2f" % s["added_ms"],
                  "%+.2f" % s["paired_added_ms"], "%.2f" % s["median_tls_ms"],
                  "%.2f" % s["median_obc_ms"], "%.2f" % s["median_generation_ms"],
                  s["obc_sources"]) for s in summary]
        widths = [max(len(r[i]) for r in table + [hdr]) for i in range(len(hdr))]
        fmt = lambda r: "  ".join(  # noqa: E731
            (c.ljust(w) if i in (0, 1, 2, 10) else c.rjust(w))
            for i, (c, w) in enumerate(zip(r, widths)))
        out.append("")
        out.append(fmt(hdr))
        out.append(fmt(tuple("-" * w for w in widths)))
        last = None
        for r in table:
            if last and (r[0], r[1]) != last:
                out.append("")
            last = (r[0], r[1])
            out.append(fmt(r))
        out.append("")
        out.append("server log: %d connection(s) presented an OBC, %d did not, as asked" % (
            with_obc, without))
        verdicts = []
        for s in summary:
            if s["visit"] == "first" and s["pool"] == "warm":
                ok = s["added_ms"] <= CLAIM_MS
                verdicts.append(ok)
                out.append("CLAIM TLS %s %-8s warm first visit: %+.2f ms median (paired %+.2f) "
                           "%s %.0f ms: %s" % (s["tls"], s["algorithm"], s["added_ms"],
                                               s["paired_added_ms"], "<=" if ok else ">",
                                               CLAIM_MS, "holds" if ok else "DOES NOT HOLD"))
        holds = all(verdicts) and bool(verdicts)
        out.append("CLAIM warm pool: first-visit latency added by an OBC is at most %.0f ms "
                   "(median) for every algorithm: %s" % (
                       CLAIM_MS, "HOLDS" if holds else "DOES NOT HOLD"))
        report = "\n".join(out) + "\n"
        sys.stdout.write(report)

        if args.out:
            d = out_dir(args.out)
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, "obc_latency.csv")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(CSV_COLUMNS)
                for s in summary:
                    w.writerow([("%.3f" % s[c]) if isinstance(s[c], float) else s[c]
                                for c in CSV_COLUMNS])
            runs_path = os.path.join(d, "obc_latency_runs.csv")
            with open(runs_path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=RUNS_CSV_COLUMNS, extrasaction="ignore")
                w.writeheader()
                for r in rows:
                    w.writerow({k: ("%.3f" % v if isinstance(v, float) else v)
                                for k, v in r.items()})
            with open(os.path.join(d, "obc_latency.txt"), "w") as f:
                f.write(report)
            print("wrote %s, %s and obc_latency.txt" % (path, runs_path))
        sys.stdout.flush()
        failed = False
        if args.check and not holds:
            return 3
        return 0
    except ExperimentError as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        server.stop()
        warmup.stop()
        if failed or args.keep_tmp:
            log("scratch directory kept: %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
