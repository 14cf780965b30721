#!/usr/bin/env python3
"""fetch's curl conventions, side by side with curl on the same server (the world's nginx):
-L through 301/302/303/307/308 (a POST becomes a GET on 301-303, stays a POST with its body on
307/308), across origins and through relative Locations (?q, ../x, //host/x, \\x: where a
browser lands), --max-redirs (exit 47 as curl), -X, -d/--data/--data-binary @FILE, -o per URL
and -O, -s/-S, -w with curl's variables (and ours, and %{json}); the system trust store by
default (SSL_CERT_FILE); compare mode's table. See tests/README.md."""

import json
import os
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib

import e2e
from e2e import expect, expect_eq

W = "%{http_code} %{num_redirects} %{url_effective} %{num_connects} %{size_download}\\n"


def _resolve_args(ctx):
    out = []
    for r in ctx.world["resolve"]:
        out += ["--resolve", r]
    return out


def _curl(ctx, *args):
    argv = ["curl", "-s", "--cacert", ctx.root_pem] + _resolve_args(ctx) + [str(a) for a in args]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def _fetch(ctx, *args, **kw):
    return ctx.fetch(*args, **kw)


def redirects_agree_with_curl(ctx):
    base = ctx.url("nginx")
    for code in (301, 302, 303, 307, 308):
        for data in ([], ["-d", "a=1&b=2"]):
            url = base + "redirect/%d" % code
            r = _fetch(ctx, "-L", "-w", W, *data, url, trace=True).expect_ok()
            rc, out, err = _curl(ctx, "-L", "-w", W, *data, url)
            expect_eq(rc, 0, "curl exit for %d %r (%s)" % (code, data, err))
            expect_eq(r.out.decode(), out, "body and -w for %d %r" % (code, data))
            # One trace entry per hop.
            expect_eq([t["status"] for t in r.trace], [code, 200], "trace hops for %d" % code)
    # Not followed: %{redirect_url} names the target.
    url = base + "redirect/302"
    r = _fetch(ctx, "-s", "-o", os.devnull, "-w", "%{http_code} %{redirect_url}", url)
    rc, out, _ = _curl(ctx, "-o", os.devnull, "-w", "%{http_code} %{redirect_url}", url)
    expect_eq(r.out.decode(), out, "-w without -L")


def redirect_to_another_origin_gets_its_own_connection(ctx):
    r = _fetch(ctx, "-L", "-w", "\\n%{num_connects} %{url_effective}", ctx.url("nginx") +
               "redirect/cross", trace=True).expect_ok()
    lines = r.out.decode().splitlines()
    expect_eq(lines[-1], "2 " + ctx.url("ecdsa") + "whoami", "connections and final URL")
    expect_eq([t["remoteAddress"].split(":")[0] for t in r.trace],
              [ctx.origin("nginx")["address"], ctx.origin("ecdsa")["address"]], "hop addresses")


def relative_locations_land_where_a_browser_lands(ctx):
    # nginx sends these Locations as written; fetch resolves them by the WHATWG URL Standard.
    base = ctx.url("nginx")
    method_get = "method=GET length= type=\n"
    for path, lands, body, as_curl in (
            # A query alone keeps the whole path ("page" too).
            ("redirect/rel/query", base + "redirect/rel/query?page=2", "page=2\n", True),
            ("redirect/rel/dir/up", base + "method", method_get, True),
            # Scheme-relative: another host (and origin), the same scheme. Not compared with
            # curl: /whoami names the negotiated cipher, and curl's url_effective keeps a
            # default port that the WHATWG URL drops.
            ("redirect/rel/scheme-relative", ctx.url("ecdsa") + "whoami", None, False),
            # A backslash is a slash in http(s) URLs, as browsers read it; curl is not asked.
            ("redirect/rel/backslash", base + "method", method_get, False)):
        r = _fetch(ctx, "-L", "-w", "\n%{num_redirects} %{url_effective}", base + path)
        r.expect_ok()
        got_body, _, last = r.out.decode().rpartition("\n")
        expect_eq(last, "1 " + lands, "where -L lands from /%s" % path)
        if body is not None:
            expect_eq(got_body, body, "body after /%s" % path)
        if as_curl:
            rc, out, err = _curl(ctx, "-L", "-w", "\n%{num_redirects} %{url_effective}",
                                 base + path)
            expect_eq(rc, 0, "curl exit for /%s (%s)" % (path, err))
            expect_eq(r.out.decode(), out, "fetch and curl from /%s" % path)


def max_redirs_exits_47_as_curl(ctx):
    url = ctx.url("nginx") + "redirect/loop"
    r = _fetch(ctx, "-L", "--max-redirs", "3", url)
    r.expect_error(47, "ERR_TOO_MANY_REDIRECTS")
    rc, _, _ = _curl(ctx, "-L", "--max-redirs", "3", url)
    expect_eq(rc, 47, "curl's exit code")


def methods_and_bodies_agree_with_curl(ctx):
    url = ctx.url("nginx") + "method"
    body = ctx.scratch("body.txt")
    with open(body, "w") as f:
        f.write("x=1\ny=2\n")
    for args in (["-X", "PUT"], ["-X", "DELETE"], ["-d", "@" + body],
                 ["--data-binary", "@" + body], ["-d", "a=1", "-d", "b=2"],
                 ["-X", "PATCH", "-d", "z=9", "-H", "Content-Type: text/plain"]):
        r = _fetch(ctx, *args, url).expect_ok()
        rc, out, _ = _curl(ctx, *args, url)
        expect_eq(r.out.decode(), out, "server's view of %r" % args)


def outputs_and_silence(ctx):
    a, b = ctx.scratch("a.txt"), ctx.scratch("b.txt")
    _fetch(ctx, "-o", a, "-o", b, ctx.url("nginx") + "whoami",
           ctx.url("nginx") + "method").expect_ok()
    expect(open(a).read().startswith("proto="), "first -o")
    expect(open(b).read().startswith("method=GET"), "second -o")
    # An -o file is open only while its URL is fetched (then closed: a run of 1,000 URLs
    # does not hold 1,000 files); the body is written once however many --repeat rounds and
    # --parallel copies fetch it, and a file left from before the run is replaced.
    rep = ctx.scratch("rep.txt")
    with open(rep, "w") as f:
        f.write("stale\n")
    _fetch(ctx, "--repeat", "2", "--parallel", "2", "-o", rep,
           ctx.url("nginx") + "method").expect_ok()
    body = open(rep).read()
    expect_eq(body.count("method=GET"), 1, "bodies in the -o file of --repeat 2 --parallel 2")
    expect("stale" not in body, "the -o file was replaced, not appended to")
    d = ctx.scratch("remote")
    os.makedirs(d)
    argv = [ctx.args.fetch, "--world", ctx.world_json(), "--no-world-dns", "-O",
            ctx.url("nginx") + "whoami"]
    p = subprocess.run(argv, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    expect_eq(p.returncode, 0, "-O exit (%s)" % p.stderr.decode())
    expect(os.path.exists(os.path.join(d, "whoami")), "-O wrote whoami")
    # -s hides the error message (the exit code stays); -S shows it again.
    dead = "https://127.0.0.1:%d/" % e2e.free_port()
    r = _fetch(ctx, "-s", dead)
    expect(r.rc == 7 and r.err.strip() == "", "-s: rc %d, stderr %r" % (r.rc, r.err))
    r = _fetch(ctx, "-s", "-S", dead)
    r.expect_error(7, "ERR_CONNECTION_REFUSED")


def write_out_variables(ctx):
    r = _fetch(ctx, "-o", os.devnull, "-w", "%{json}", ctx.url("nginx") + "whoami").expect_ok()
    j = json.loads(r.out.decode())
    for key in ("http_code", "time_namelookup", "time_connect", "time_appconnect",
                "time_pretransfer", "time_starttransfer", "time_total", "size_download",
                "num_connects", "ssl_verify_result", "snap_start", "cert_source",
                "revocation_source", "obc_source"):
        expect(key in j, "%%{json} lacks %s: %r" % (key, j))
    expect_eq(j["http_code"], 200, "http_code (a number, as curl's %{json})")
    times = [float(j[k]) for k in ("time_namelookup", "time_connect", "time_appconnect",
                                   "time_pretransfer", "time_starttransfer", "time_total")]
    expect(times == sorted(times), "curl's times must not decrease: %r" % times)
    expect_eq(j["cert_source"], "handshake", "cert_source")


def system_trust_store_by_default(ctx):
    url = ctx.url("nginx") + "whoami"
    env = dict(os.environ, SSL_CERT_FILE=ctx.root_pem, SSL_CERT_DIR="/nonexistent")
    argv = [ctx.args.fetch] + _resolve_args(ctx) + [url]
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    expect_eq(p.returncode, 0, "fetch with SSL_CERT_FILE and no flags (%s)" % p.stderr.decode())
    # Without the world's root the server is not trusted: certificate error, exit 60.
    env = dict(os.environ)
    env.pop("SSL_CERT_FILE", None)
    env.pop("SSL_CERT_DIR", None)
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    expect_eq(p.returncode, 60, "untrusted with the system store (%s)" % p.stderr.decode())


def compare_mode_prints_its_table(ctx):
    out = ctx.scratch("compare.csv")
    r = _fetch(ctx, "--compare", "--tls-max 1.2 --no-false-start", "--tls-max 1.3", "--runs",
               "3", "--compare-out", out, ctx.url("slow")).expect_ok()
    text = r.out.decode()
    for phase in ("dns", "tcp", "tls", "request_to_first_byte", "total"):
        expect(phase in text, "compare table lacks %s:\n%s" % (phase, text))
    rows = {l.split(",")[0]: l.split(",") for l in open(out).read().splitlines()[1:]}
    expect_eq(rows["total"][1], "3", "runs of A")
    # TLS 1.3 saves a round trip over a full TLS 1.2 handshake without False Start.
    expect(float(rows["tls"][-1]) < 0.85, "B/A of the TLS phase: %r" % rows["tls"])


def _png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    expect(head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG: %r" % head[:8])
    return struct.unpack(">II", head[16:24])


def har_and_waterfall_of_a_run_with_redirects_prefetch_and_snap_start(ctx):
    try:
        import jsonschema
    except ImportError:
        raise e2e.CheckFailed("python3-jsonschema is missing (tools/setup.sh installs it)")
    har, svg = ctx.scratch("run.har"), ctx.scratch("run.svg")
    slow = ctx.origin("slow")
    _fetch(ctx, "-L", "--snap-start", "--bundle-sources", "cdn", "--prefetch", slow["host"],
           "--profile", ctx.scratch("har-profile"), "--har", har, "--waterfall", svg,
           "-o", os.devnull, "-o", os.devnull, ctx.url("nginx") + "redirect/301", slow["url"],
           revocation="soft").expect_ok()
    doc = json.load(open(har))
    schema_path = os.path.join(e2e.REPO, "net/timing/testdata/har-1.2.schema.json")
    jsonschema.validate(doc, json.load(open(schema_path)))
    entries = doc["log"]["entries"]
    expect_eq([e["response"]["status"] for e in entries], [301, 200, 200], "HAR entries")
    for e in entries:
        t = e["timings"]
        total = sum(v for k, v in t.items() if k in ("blocked", "dns", "connect", "send",
                                                      "wait", "receive") and v > 0)
        expect(abs(total - e["time"]) < 0.01, "timings add up: %r vs %r" % (t, e["time"]))
    last = entries[-1]
    expect("accepted" in json.dumps(last.get("_snapStart")), "_snapStart: %r" %
           last.get("_snapStart"))
    expect("prefetch" in json.dumps(last.get("_certSource")), "_certSource: %r" %
           last.get("_certSource"))
    expect(last.get("_certBundle"), "_certBundle")
    # The waterfall: well-formed XML, rendered by a real browser at its declared size.
    root = ET.parse(svg).getroot()
    width, height = int(float(root.get("width"))), int(float(root.get("height")))
    browser = shutil.which("chromium") or shutil.which("chromium-headless-shell")
    expect(browser, "Chromium is missing (tools/setup.sh installs the chromium package)")
    png = ctx.scratch("run.png")
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--user-data-dir=" + ctx.scratch("chromium"),
                    "--screenshot=" + png, "--window-size=%d,%d" % (width, height),
                    "file://" + svg], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=60)
    expect(os.path.exists(png), "Chromium wrote no screenshot")
    expect_eq(_png_size(png), (width, height), "rendered size")
    expect(os.path.getsize(png) > 3000, "the rendered picture is not blank")


def curl_flags_agree_with_curl(ctx):
    base = ctx.url("nginx")
    # -fsSL: a 404 writes nothing and exits 22, as curl; combined flags parse.
    r = _fetch(ctx, "-fsSL", base + "status/404")
    rc, out, _ = _curl(ctx, "-fsSL", base + "status/404")
    expect_eq((r.rc, r.out.decode()), (rc, out), "-fsSL on a 404 (fetch, curl)")
    expect_eq(r.rc, 22, "--fail exit")
    r = _fetch(ctx, "-fsSL", "-w", W, base + "redirect/302").expect_ok()
    rc, out, _ = _curl(ctx, "-fsSL", "-w", W, base + "redirect/302")
    expect_eq(r.out.decode(), out, "-fsSL through a redirect")
    # -i: the heads (each hop's with -L) before the body; -D: the same heads to a file.
    dump = ctx.scratch("heads.txt")
    r = _fetch(ctx, "-siL", "-D", dump, base + "redirect/301").expect_ok()
    text = r.out.decode()
    expect(text.startswith("HTTP/1.1 301") and "\r\n\r\nHTTP/1.1 200" in text and
           text.endswith("method=GET length= type=\n"), "-iL output: %r" % text[:200])
    expect_eq(open(dump, newline="").read(), text[:text.rindex("\r\n\r\n") + 4], "-D file")
    # --compressed: nginx gzips, both decode to the same page.
    ours, theirs = ctx.scratch("gz.html"), ctx.scratch("gz-curl.html")
    _fetch(ctx, "--compressed", "-o", ours, base + "gzip/index.html").expect_ok()
    rc, out, _ = _curl(ctx, "--compressed", "-o", theirs, base + "gzip/index.html")
    expect_eq(rc, 0, "curl --compressed")
    expect_eq(open(ours, "rb").read(), open(theirs, "rb").read(), "--compressed bodies")
    expect(open(ours, "rb").read().startswith(b"<"), "a decoded page")
    raw = _fetch(ctx, "-s", "-H", "Accept-Encoding: gzip", base + "gzip/index.html").expect_ok()
    expect_eq(raw.out[:2], b"\x1f\x8b", "without --compressed the body stays gzip")
    # -k: the untrusted origin's certificate is accepted, as curl -k; without it, exit 60.
    untrusted = ctx.url("untrusted")
    r = _fetch(ctx, "-s", "-o", os.devnull, "-w", "%{http_code}", untrusted)
    rc, _, _ = _curl(ctx, "-o", os.devnull, untrusted)
    expect_eq((r.rc, rc), (60, 60), "untrusted without -k (fetch, curl)")
    r = _fetch(ctx, "-k", "-s", "-o", os.devnull, "-w", "%{http_code}", untrusted,
               trace=True).expect_ok()
    rc, out, _ = _curl(ctx, "-k", "-o", os.devnull, "-w", "%{http_code}", untrusted)
    expect_eq((r.out.decode(), rc, out), ("200", 0, "200"), "-k (fetch, curl)")
    detail = json.dumps(r.trace[-1])
    expect("ignored (insecure)" in detail, "the trace names what -k ignored")
    # --retry 2 on a 503 with Retry-After: 1: three attempts, a warning per retry, the last
    # response's body only, as curl.
    r = _fetch(ctx, "--retry", "2", "-w", "%{http_code}\n", base + "status/503")
    rc, out, err = _curl(ctx, "--retry", "2", "-w", "%{http_code}\n", base + "status/503")
    expect_eq((r.rc, r.out.decode()), (rc, out), "--retry 2 on a 503 (fetch, curl)")
    expect_eq(r.err.count("Will retry in 1 seconds"), 2, "retry warnings: %r" % r.err)
    # (curl, run here with -s, says the same "Warning: Problem : HTTP error. Will retry in 1
    # seconds. 2 retries left." lines without it)
    # -b NAME=VALUE, -A, -u: the headers nginx's /method cannot show, so the test server's
    # echo: the request headers as the world's www origin received them.
    # Cookie files: -c writes the jar, -b FILE reads it back (curl reads ours).
    jar = ctx.scratch("jar.txt")
    seed = ctx.scratch("seed.txt")
    with open(seed, "w") as f:
        f.write("nginx.example.test\tFALSE\t/\tFALSE\t0\tsession\tone\n")
    _fetch(ctx, "-s", "-o", os.devnull, "-b", seed, "-c", jar,
           base + "whoami").expect_ok()
    text = open(jar).read()
    expect("nginx.example.test\tFALSE\t/\tFALSE\t0\tsession\tone" in text, "-c: %r" % text)
    rc, _, err = _curl(ctx, "-s", "-o", os.devnull, "-b", jar, base + "whoami")
    expect_eq(rc, 0, "curl reads fetch's cookie file (%s)" % err)
    # --version names the features compiled in; a usage error is two lines.
    r = _fetch(ctx, "--version").expect_ok()
    expect("Snap-Start" in r.out.decode() and "Protocols: http https" in r.out.decode(),
           "--version: %r" % r.out)
    r = _fetch(ctx, "--no-such-flag", base)
    expect_eq(r.rc, 2, "usage error exit")
    expect_eq(len(r.err.strip().splitlines()), 2, "usage error lines: %r" % r.err)
    # An unknown -w variable expands to nothing and is named once, as curl.
    r = _fetch(ctx, "-o", os.devnull, "-o", os.devnull, "-w", "%{nosuch}|%{nosuch}|",
               base + "whoami",
               base + "whoami").expect_ok()
    expect_eq(r.out.decode(), "||||", "unknown -w variables")
    expect_eq(r.err.count("unknown --write-out variable: 'nosuch'"), 1, r.err)


CHECKS = [
    redirects_agree_with_curl,
    redirect_to_another_origin_gets_its_own_connection,
    relative_locations_land_where_a_browser_lands,
    max_redirs_exits_47_as_curl,
    methods_and_bodies_agree_with_curl,
    outputs_and_silence,
    write_out_variables,
    system_trust_store_by_default,
    compare_mode_prints_its_table,
    curl_flags_agree_with_curl,
    har_and_waterfall_of_a_run_with_redirects_prefetch_and_snap_start,
]

if __name__ == "__main__":
    e2e.main(CHECKS, rtt_ms=50)
