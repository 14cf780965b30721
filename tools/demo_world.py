#!/usr/bin/env python3
"""The demo's client side: run by tools/demo.sh as the world's client host (world.py --run, so
$NETSTACK_WORLD names world.json). Fetches from the world with tools/fetch and prints four short
tables, each followed by a line per word it uses (the trace's words: docs/trace-glossary.md):

  1. the front page (its HTML and whole trace only with --verbose 1);
  2. DNS: a cold lookup, one after --prefetch, one from the cache;
  3. one request per handshake configuration through the emulated link: plain HTTP, TLS 1.2
     (full, False Start), TLS 1.3 (full, resumed), Snap Start (learned orbit, prefetched
     bundle, with TCP Fast Open), and headless Chromium where it is installed;
  4. six parallel connections with --coalesce-handshakes.

Writes only below --work-dir (profiles, the front page's trace), which demo.sh removes.
Python 3, standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class DemoError(Exception):
    pass


class Demo:
    def __init__(self, args):
        self.fetch_bin = args.fetch
        self.rtt = args.rtt_ms
        self.work = args.work_dir
        self.verbose = args.verbose
        self.world_json = os.environ.get("NETSTACK_WORLD")
        if not self.world_json:
            raise DemoError("NETSTACK_WORLD is not set: run through tools/demo.sh")
        with open(self.world_json) as f:
            self.world = json.load(f)
        os.makedirs(self.work, exist_ok=True)

    def url(self, origin):
        return self.world["origins"][origin]["url"]

    def fetch(self, *args, traces=True):
        """Runs fetch against the world (revocation off: the demo times handshakes); returns
        the trace objects (--trace-json -), one per request. Raises DemoError on failure."""
        argv = [self.fetch_bin, "--world", self.world_json, "--revocation", "off"] + list(args)
        if traces:
            argv += ["--trace-json", "-"]
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise DemoError("%s failed (exit %d): %s" % (" ".join(argv), r.returncode,
                                                         r.stderr.strip()))
        return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]

    # -- 1. the front page -----------------------------------------------------------------------

    def front_page(self):
        url = self.url("www")
        page = os.path.join(self.work, "index.html")
        trace_file = os.path.join(self.work, "trace.json")
        self.fetch("-o", page, "--trace-json", trace_file, url, traces=False)
        with open(trace_file) as f:
            t = json.loads(f.readline())
        print("1. The front page: fetch --world world.json %s" % url)
        tls = t.get("tls", {})
        table(["status", "bytes", "responseEnd", "tls.version", "tls.alpn", "remoteAddress"],
              [[t["status"], t["encodedBodySize"], "%.1f" % t["responseEnd"],
                tls.get("version", "-"), tls.get("alpn", "-"), t["remoteAddress"]]])
        explain([
            ("bytes", "the body as received (the trace's encodedBodySize). responseEnd: ms from "
             "the request's start to its last byte."),
            ("tls.alpn", "the protocol the TLS handshake agreed on: http/1.1 here; spdy/3 with "
             "fetch --spdy at https://spdy.example.test/."),
            ("remoteAddress", "the server's address and port (the packet world's servers sit on "
             "198.18.0.N, standard ports)."),
        ])
        if self.verbose:
            print()
            with open(page) as f:
                sys.stdout.write(f.read())
            print()
            print(json.dumps(t, indent=2))
        else:
            print("   (tools/demo.sh -v prints the page and its whole trace)")
        print()

    # -- 2. DNS ----------------------------------------------------------------------------------

    def dns(self):
        dns = self.world.get("dns")
        if not dns:
            print("2. DNS: not running in this world (%s)" % self.world["skipped"].get("dns"))
            print()
            return
        url = self.url("www")
        host = self.world["origins"]["www"]["host"]
        rows = []
        for name, flags in (("cold", []), ("after --prefetch %s" % host, ["--prefetch", host])):
            t = self.fetch(*flags, "-o", "/dev/null", url)[-1]
            rows.append((name, t))
        t = self.fetch("--repeat", "2", "-o", "/dev/null", url)[-1]
        rows.append(("second visit (--repeat 2)", t))
        print("2. DNS through the world's Knot server, %d ms away" % dns["rtt_ms"])
        table(["lookup", "time (ms)", "dns.source"],
              [[name, "%.1f" % (t["domainLookupEnd"] - t["domainLookupStart"]),
                t["dns"]["source"]] for name, t in rows])
        explain([
            ("time", "domainLookupEnd - domainLookupStart, the trace's DNS lookup."),
            ("dns.source", "where the address came from: network (a query to the server), "
             "prefetch (resolved before the request: --prefetch), cache (the resolver's cache, "
             "filled by the first visit)."),
        ])
        print()

    # -- 3. the handshakes -----------------------------------------------------------------------

    def handshakes(self):
        link = self.world["link"]
        profile = os.path.join(self.work, "snap-profile")
        # Snap Start needs the server's orbit: one untimed visit learns it into a profile.
        self.fetch("--no-world-dns", "--snap-start", "--profile", profile, "-o", "/dev/null",
                   self.url("slow12"), traces=False)
        configs = [
            ("plain http (the baseline)", "slow_http", []),
            ("tls1.2 full handshake", "slow12", ["--tls-max", "1.2", "--no-false-start"]),
            ("tls1.2 False Start", "slow12", ["--tls-max", "1.2"]),
            ("tls1.3", "slow", ["--tls-max", "1.3"]),
            ("tls1.3 resumed (2nd of --repeat 2)", "slow", ["--tls-max", "1.3", "--repeat", "2"]),
            ("Snap Start, orbit learned before", "slow12", ["--snap-start", "--profile", profile]),
            ("Snap Start, 1st visit, CDN bundle", "slow",
             ["--snap-start", "--bundle-sources", "cdn", "--prefetch", "slow.example.test",
              "--profile", os.path.join(self.work, "fresh-profile")]),
            ("Snap Start + TFO, 1st visit, CDN", "slow",
             ["--snap-start", "--tcp-fast-open", "--bundle-sources", "cdn", "--prefetch",
              "slow.example.test", "--profile", os.path.join(self.work, "fresh-profile-tfo")]),
        ]
        rows = []
        for name, origin, flags in configs:
            t = self.fetch("--no-world-dns", *flags, "-o", "/dev/null", self.url(origin))[-1]
            rows.append([name, "%.1f" % t["connectEnd"], "%.1f" % t["responseEnd"],
                         "%.2f" % (t["responseEnd"] / self.rtt)])
        chromium_note = self.chromium_rows(rows)
        print("3. One request per handshake through a %d ms round-trip link (tools/netem), "
              "cold connections" % self.rtt)
        table(["configuration", "connectEnd", "responseEnd", "RTTs"], rows)
        explain([
            ("connectEnd", "ms from the request's start until its connection (TCP, and TLS) "
             "is ready."),
            ("responseEnd", "ms until the response's last byte."),
            ("RTTs", "responseEnd in round trips. Plain HTTP costs 2 (the SYN, then the "
             "request); each handshake round trip adds one."),
            ("False Start", "the TLS 1.2 client sends its request before the server's last "
             "handshake message."),
            ("resumed", "an abbreviated handshake with the session the first request left "
             "(a return visit)."),
            ("Snap Start", "a TLS 1.2 handshake with no round trip of its own (a 2010 Chrome "
             "experiment, never standardized)."),
            ("orbit", "the server's 8-byte Snap Start identity, learned here by one untimed "
             "visit before the table."),
            ("CDN bundle", "the server's certificate chain, cipher and orbit, fetched from a "
             "CDN before the request and verified: Snap Start on a 1st visit."),
            ("TFO", "TCP Fast Open: the ClientHello and the request ride in the SYN."),
        ] + chromium_note)
        if link["mode"] != "packet":
            explain([("relay world", "%s; no SYN crosses a relay, so each new connection "
                      "shows one round trip fewer." % link.get("why", "no root"))])
        print()

    def chromium_rows(self, rows):
        """Adds headless Chromium's first visits (plain HTTP, TLS 1.3) to rows where the packet
        world runs and Chromium is installed; returns the lines that explain them."""
        if self.world["link"]["mode"] != "packet":
            return []
        sys.path.insert(0, os.path.join(ROOT, "tools", "experiments"))
        import chromium  # noqa: E402 (tools/experiments/chromium.py)
        why = chromium.available()  # why it cannot run, or None
        if why:
            return [("chromium", "no rows: %s." % why)]
        w = self.world
        rules = ",".join("MAP %s %s" % (o["host"], o["address"]) for o in w["origins"].values())
        home = chromium.nss_home(w["trust_anchors"])
        for name, key in (("chromium plain http, 1st visit", "slow_http"),
                          ("chromium tls1.3, 1st visit", "slow")):
            # A fresh profile each time; the median of three by responseEnd.
            runs = sorted((chromium.visit(w["origins"][key]["url"], host_rules=rules,
                                          nss_home=home) for _ in range(3)),
                          key=lambda e: e["responseEnd"])
            e = runs[1]
            rows.append([name, "%.1f" % e["connectEnd"], "%.1f" % e["responseEnd"],
                         "%.2f" % (e["responseEnd"] / self.rtt)])
        return [("chromium", "headless Chromium on the same link, a fresh profile per visit, "
                 "median of three; its times are the page's PerformanceNavigationTiming.")]

    # -- 4. coalescing ---------------------------------------------------------------------------

    def coalescing(self):
        traces = self.fetch("--no-world-dns", "--parallel", "6", "--coalesce-handshakes",
                            "-o", "/dev/null", self.url("www"))
        full = sum(not t["tls"]["resumed"] for t in traces)
        print("4. Six parallel connections to one origin, no cached session, "
              "--coalesce-handshakes")
        table(["connections", "full handshakes", "resumed"],
              [[str(len(traces)), str(full), str(len(traces) - full)]])
        explain([
            ("coalescing", "the other connections wait for the first one's full handshake and "
             "resume its session (the trace's tls.waitedForSession). Opt-in: it saves the "
             "server five full handshakes, but a waiter finishes one wait later."),
        ])


def table(header, rows):
    """Prints rows under header, indented: the first column left-aligned, the others right."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        cells = [str(r[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in
                                                 zip(r[1:], widths[1:])]
        print("   " + "  ".join(cells))


def explain(items):
    """Prints one "word: meaning" paragraph per item under a table, wrapped to 100 columns."""
    for word, text in items:
        print(textwrap.fill("%s: %s" % (word, text), width=100, initial_indent="   ",
                            subsequent_indent="     "))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fetch", required=True, help="the fetch binary")
    ap.add_argument("--rtt-ms", type=float, default=100)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--verbose", type=int, default=0)
    args = ap.parse_args()
    try:
        demo = Demo(args)
        link = demo.world["link"]
        print("netstack demo: the local world (tools/world), %s link, %g ms round trip to "
              "slow*.example.test" % ("packet-level" if link["mode"] == "packet" else "relay",
                                      args.rtt_ms))
        print("(every word of these tables and of fetch's trace: docs/trace-glossary.md)")
        print()
        demo.front_page()
        demo.dns()
        demo.handshakes()
        demo.coalescing()
    except DemoError as e:
        sys.stderr.write("demo: %s\n" % e)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("demo: interrupted\n")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
