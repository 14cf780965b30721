"""Shared pieces of the Python experiments (prefetch_latency.py, prefetch_server_cost.py,
handshake_rtt.py, successors.py, spdy_page_load.py, vs_curl.py):
the local world held open through a pipe, running `fetch` and reading its trace, summaries,
output paths and a small SVG bar chart. Python 3, standard library only."""

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True


class ExperimentError(Exception):
    pass


PRIVATE_NS_ENV = "NETSTACK_EXPERIMENT_PRIVATE_NS"


def exit_through_finally_on_termination():
    """SIGTERM and SIGHUP end the experiment as Ctrl-C does, through its finally blocks: the
    servers it started are stopped and its scratch directory removed (a long run stopped with
    kill leaves nothing behind; --resume picks up from the cells already written)."""
    def handler(signum, frame):
        raise SystemExit(128 + signum)
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, handler)


def enter_private_namespace(log):
    """Re-executes this experiment in a new network namespace of its own (loopback up), unless
    it already runs in one: for experiments that run `netem shell` themselves, which refuses
    the machine's own namespace. Needs root; without it, says so and exits 1."""
    if os.environ.get(PRIVATE_NS_ENV) == "1":
        exit_through_finally_on_termination()
        return
    if os.geteuid() != 0:
        log("error: this experiment needs root (a network namespace and netem shell's TUN "
            "link)")
        sys.exit(1)
    env = dict(os.environ)
    env[PRIVATE_NS_ENV] = "1"
    argv = [sys.executable, os.path.abspath(sys.argv[0])] + sys.argv[1:]
    os.execvpe("unshare", ["unshare", "-n", "sh", "-c",
                           'ip link set lo up && exec "$0" "$@"'] + argv, env)


def netem_shell_prefix(netem, link_args, resolve_hosts=(), port=None):
    """The prefix that runs a command behind `netem shell LINK_ARGS`; with resolve_hosts, the
    command (fetch) also gets --resolve HOST:PORT:<netem's side of the link> for each, so that
    it reaches servers listening on every address of this namespace through the link."""
    script = 'cmd=$0; exec "$cmd"'
    for h in resolve_hosts:
        script += ' --resolve %s:%d:"$NETEM_PEER"' % (h, port)
    script += ' "$@"'
    return [netem, "shell", "--quiet"] + list(link_args) + ["--", "sh", "-c", script]


def out_dir(path):
    """A relative --out is taken from the workspace under `bazel run`."""
    if os.path.isabs(path):
        return path
    return os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd(), path)


def check_executable(ap, args, flags):
    for flag in flags:
        path = getattr(args, flag)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error("--%s %s: not an executable file" % (flag.replace("_", "-"), path))
        setattr(args, flag, os.path.abspath(path))


class World:
    """One tools/world instance, held open through a pipe (--until-stdin-eof)."""

    def __init__(self, world_bin, directory, extra_args, log):
        self.dir = directory
        # The world's own default link (--link auto, or $NETSTACK_WORLD_LINK): the packet
        # world where it can run; start() then makes this process its client host.
        self.argv = [world_bin, "--dir", directory, "--quiet", "--until-stdin-eof"] + extra_args
        self.proc = None
        self.info = None
        self.log = log

    @property
    def json_path(self):
        return os.path.join(self.dir, "world.json")

    def start(self):
        self.log("starting the world in %s: %s" % (self.dir, " ".join(self.argv[1:])))
        # stderr passes through (with --quiet: errors only).
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        path = None
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").strip()
            if line.startswith("WORLD READY "):
                path = line[len("WORLD READY "):]
                break
        if path is None:
            rc = self.proc.wait()
            raise ExperimentError("the world did not start (exit code %s): %s" % (
                rc, " ".join(self.argv)))
        with open(path) as f:
            self.info = json.load(f)
        link = self.info.get("link") or {}
        if link.get("mode") == "packet":
            # This process (and every fetch, curl, Chromium or helper it starts from now on)
            # becomes the client host: the link's namespace and the world's DNS. The world
            # itself, reached through the stdin pipe, stays where it is.
            sys.path.insert(0, os.path.dirname(link["world_py"]))
            import namespaces
            namespaces.enter_client(link["client_pid"], link["resolv_conf"])
            self.log("this process is the client host of the packet world (%s)" %
                     link["client_address"])
        else:
            self.log("the relay world: %s" % link.get("why", "?"))
        return self.info

    @property
    def packet(self):
        return bool(self.info) and self.info.get("link", {}).get("mode") == "packet"

    def client_prefix(self):
        """What runs a command as the world's client host: `world exec --world FILE --` in the
        packet world (its network namespace and DNS), nothing in the relay world."""
        return client_prefix(self.json_path)

    def reload(self):
        """world.json again (the OCSP watchdog rewrites it when it restarts the responder)."""
        with open(self.json_path) as f:
            self.info = json.load(f)
        return self.info

    def check_alive(self):
        if self.proc is not None and self.proc.poll() is not None:
            raise ExperimentError("the world exited during the experiment (exit code %s); "
                                  "its logs: %s" % (self.proc.returncode,
                                                    os.path.join(self.dir, "logs")))

    def tear_down(self, keep, scratch_dirs=()):
        """Stops the world (a non-zero exit is logged), removes |scratch_dirs|, and removes the
        world's directory unless |keep| (a failed or --keep-world run), saying where it is."""
        rc = self.stop()
        if rc not in (0, None):
            self.log("warning: the world exited with code %s at teardown" % rc)
        for d in scratch_dirs:
            shutil.rmtree(d, ignore_errors=True)
        if keep:
            self.log("world directory kept for inspection: %s" % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def stop(self):
        if "namespaces" in sys.modules:
            # Out of the client namespace first: the world's netem stops what is left in it.
            sys.modules["namespaces"].leave_client()
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        try:
            self.proc.stdin.close()  # --until-stdin-eof: the world tears itself down
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            return self.proc.wait(timeout=30)


def client_prefix(world_json):
    """The command prefix that runs a command as the client host of the world whose world.json
    is |world_json|: world.py exec in the packet world, nothing in the relay world."""
    with open(world_json) as f:
        link = json.load(f).get("link") or {}
    if link.get("mode") != "packet":
        return []
    try:
        if os.stat("/proc/self/ns/net").st_ino == link.get("netns_inode"):
            return []  # already the client host (World.start)
    except OSError:
        pass
    return [sys.executable, link["world_py"], "exec", "--world", world_json, "--"]


def run_fetch(fetch, argv_tail, name, timeout=120, prefix=None):
    """Runs fetch with --trace-json - and returns (traces, stdout lines that are not traces,
    stderr). |prefix| goes first; by default, when the arguments name a packet world
    (--world FILE), the prefix that runs fetch as its client host. Raises ExperimentError on a
    non-zero exit."""
    if prefix is None:
        prefix = []
        if "--world" in argv_tail:
            prefix = client_prefix(argv_tail[argv_tail.index("--world") + 1])
    argv = list(prefix) + [fetch, "--trace-json", "-"] + argv_tail
    cmd = " ".join(argv)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ExperimentError("%s: fetch did not finish within %d s\n  command: %s" % (
            name, timeout, cmd))
    stderr = p.stderr.decode(errors="replace").strip()
    if p.returncode != 0:
        raise ExperimentError("%s: fetch failed with exit code %d\n  command: %s%s" % (
            name, p.returncode, cmd, "\n  stderr: " + stderr[-2000:] if stderr else ""))
    traces, other = [], []
    for line in p.stdout.decode(errors="replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            other.append(line)
            continue
        traces.append(obj)
    return traces, other, stderr, cmd


def check_rtts(rows, want, column="median_rtts"):
    """The problems of a smoke check's RTT table: |rows| maps a configuration to its CSV row,
    |want| a configuration to (expected RTTs, allowed below, allowed above). Prints each."""
    bad = []
    for name, (rtts, below, above) in want.items():
        if name not in rows:
            bad.append("no row for %s" % name)
            continue
        got = float(rows[name][column])
        print("%s: %.2f RTT (expected %.1f, -%.2f/+%.2f)" % (name, got, rtts, below, above))
        if not rtts - below <= got <= rtts + above:
            bad.append("%s is %.2f RTT" % (name, got))
    return bad


def smoke_check_main(out, files, show, check):
    """The body of a NAME_smoke_check.py (experiment.bzl): every one of |files| in |out| written
    and not empty, the ones in |show| printed, then check(out), which returns the problems
    found. Prints PASS, or FAIL and the problems; returns the exit code."""
    for f in files:
        path = os.path.join(out, f)
        if not os.path.isfile(path) or not os.path.getsize(path):
            print("FAIL: %s was not written" % path, file=sys.stderr)
            return 1
    for f in show:
        print("--- " + os.path.join(out, f))
        with open(os.path.join(out, f)) as fh:
            sys.stdout.write(fh.read())
    bad = check(out)
    if bad:
        print("FAIL: " + "; ".join(bad))
        return 1
    print("PASS")
    return 0


def rel(t, key):
    """A timing point of a trace in ms from its startTime (None if absent)."""
    v = t.get(key)
    if not isinstance(v, (int, float)):
        return None
    return v - (t.get("startTime") or 0.0)


def summarize(values):
    return statistics.median(values), min(values), max(values)


def fmt_range(values, digits=1):
    if not values:
        return "-"
    med, lo, hi = summarize(values)
    f = "%%.%df" % digits
    return (f + " [" + f + "-" + f + "]") % (med, lo, hi)


def print_table(header, rows, out=None):
    out = out or sys.stdout
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

    def line(r):
        return "  ".join((str(c).ljust(w) if i == 0 else str(c).rjust(w))
                         for i, (c, w) in enumerate(zip(r, widths)))
    out.write(line(header) + "\n")
    out.write(line(tuple("-" * w for w in widths)) + "\n")
    for r in rows:
        out.write(line(r) + "\n")


def write_csv(path, columns, rows):
    """Writes rows (dicts; keys beyond columns ignored) under a header of columns; floats with
    three decimals."""
    import csv
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.3f" % v if isinstance(v, float) else v) for k, v in r.items()})


def _esc(s):
    return (str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def bar_chart_svg(title, subtitle, unit, bars, notes=(), right_w=150):
    """A horizontal bar chart. bars: dicts with label, value (the bar), lo, hi (a whisker;
    optional), color, annotation (text after the bar; optional); right_w: room for the
    annotations right of the plot. Returns the SVG text."""
    label_w, plot_w = 250, 520
    bar_h, gap, top = 22, 8, 64
    width = label_w + plot_w + right_w
    height = top + len(bars) * (bar_h + gap) + 46 + 16 * len(notes)
    vmax = max([b.get("hi") or b["value"] for b in bars] + [1e-9])
    # A round axis maximum.
    step = 10 ** int(len(str(int(vmax))) - 1) if vmax >= 1 else 0.1
    axis_max = step * (int(vmax / step) + 1)
    x = lambda v: label_w + plot_w * v / axis_max  # noqa: E731
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>' % (
               10, _esc(title)),
           '<text x="%d" y="40" fill="#444">%s</text>' % (10, _esc(subtitle))]
    ticks = 5
    y_end = top + len(bars) * (bar_h + gap)
    for i in range(ticks + 1):
        v = axis_max * i / ticks
        xx = x(v)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (
            xx, top - 6, xx, y_end))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s</text>' % (
            xx, y_end + 14, ("%g" % round(v, 3))))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
        label_w + plot_w / 2, y_end + 30, _esc(unit)))
    for i, b in enumerate(bars):
        y = top + i * (bar_h + gap)
        out.append('<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s'
                   '</text>' % (label_w - 8, y + bar_h / 2, _esc(b["label"])))
        out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>' % (
            label_w, y, max(0.5, x(b["value"]) - label_w), bar_h, b.get("color", "#4c78a8")))
        if b.get("lo") is not None and b.get("hi") is not None:
            cy = y + bar_h / 2
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (
                x(b["lo"]), cy, x(b["hi"]), cy))
            for v in (b["lo"], b["hi"]):
                out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (
                    x(v), cy - 5, x(v), cy + 5))
        text = b.get("annotation") or ("%.1f" % b["value"])
        out.append('<text x="%.1f" y="%.1f" dominant-baseline="middle">%s</text>' % (
            max(x(b["value"]), x(b.get("hi") or 0)) + 6, y + bar_h / 2, _esc(text)))
    for i, n in enumerate(notes):
        out.append('<text x="10" y="%d" fill="#444">%s</text>' % (y_end + 48 + 16 * i, _esc(n)))
    out.append("</svg>")
    return "\n".join(out) + "\n"
