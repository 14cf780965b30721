"""waterfall_render_test: the waterfall SVG is well-formed XML and renders in a
real browser at the size it declares.

Usage: waterfall_render_check.py HAR_WATERFALL_SAMPLE

1. Parses the sample's SVG with xml.etree (expat: a strict XML parser) and
   reads the size it declares (width, height, viewBox).
2. Loads it in headless Chromium as an <img> and reads the browser's
   naturalWidth x naturalHeight (--dump-dom).
3. Screenshots it in headless Chromium in a window larger than the picture
   and decodes the PNG: the non-white area (the picture has a frame at its
   edge) must be exactly the declared size, and the DevTools phase colours
   must be on screen.
Chromium is Debian's chromium (tools/setup.sh installs it); without it the
test fails.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG_NS = "{http://www.w3.org/2000/svg}"
DEVTOOLS_COLORS = {
    "DNS #009688": (0x00, 0x96, 0x88),
    "initial connection #FF9800": (0xFF, 0x98, 0x00),
    "SSL #9C27B0": (0x9C, 0x27, 0xB0),
    "waiting #00C853": (0x00, 0xC8, 0x53),
    "content download #03A9F4": (0x03, 0xA9, 0xF4),
}
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def decode_png(data):
    """Returns (width, height, rows of (r, g, b) tuples) of an 8-bit RGB(A) PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = ihdr
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError("unsupported PNG: depth %d color %d interlace %d" %
                         (depth, color, interlace))
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def chromium():
    for name in ("chromium", "chromium-headless-shell", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    for path in ("/usr/bin/chromium", "/usr/lib/chromium/chromium"):
        if os.path.exists(path):
            return path
    return None


def run_chromium(browser, tmp, args):
    env = dict(os.environ, HOME=tmp)
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu",
           "--no-first-run", "--no-default-browser-check",
           "--disable-dev-shm-usage", "--hide-scrollbars",
           "--force-device-scale-factor=1",
           "--user-data-dir=" + os.path.join(tmp, "chromium-profile")] + args
    return subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=30)


def main():
    sample = sys.argv[1]
    tmp = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
    har_path = os.path.join(tmp, "sample.har")
    svg_path = os.path.join(tmp, "sample.svg")
    subprocess.run([sample, har_path, svg_path], check=True)

    # 1. Well-formed XML, declared size.
    root = ET.parse(svg_path).getroot()
    check(root.tag == SVG_NS + "svg", "the root is an SVG element")
    width, height = int(root.get("width")), int(root.get("height"))
    check(root.get("viewBox") == "0 0 %d %d" % (width, height),
          "viewBox matches width x height (%dx%d)" % (width, height))
    texts = ["".join(t.itertext()) for t in root.iter(SVG_NS + "text")]
    titles = ["".join(t.itertext()) for t in root.iter(SVG_NS + "title")]
    check(any("b=<x>&c=\"q\"&d='\u00e9'&e=\ufffd" in t for t in titles),
          "the escaped URL reads back as written (invalid UTF-8 as U+FFFD)")
    check(any("Off the critical path" in t for t in texts),
          "a section for the prefetch jobs")
    check(any(t.startswith("bundle prefetch dns") for t in texts) and
          any(t.startswith("DNS prefetch www.example.test") for t in texts) and
          any(t.startswith("OCSP/CRL ocsp depth 0 (prevalidated") for t in texts),
          "bundle, DNS prefetch and prevalidation rows")
    check(sum(t.startswith("bundle prefetch") for t in texts) == 1,
          "the shared bundle job drawn once")
    check(any(t == "0" for t in texts) and any(t.endswith(" ms") and
                                               t[:-3].replace(".", "").isdigit()
                                               for t in texts),
          "a time axis in ms")

    browser = chromium()
    if not browser:
        sys.exit("FAIL: Chromium not found (Debian package 'chromium'; "
                 "tools/setup.sh installs it)")

    # 2. The browser's own idea of the picture's size, as an <img>.
    html_path = os.path.join(tmp, "img.html")
    with open(html_path, "w") as f:
        f.write("<!DOCTYPE html><html><body><img id='w' src='sample.svg' "
                "onload=\"document.body.setAttribute('data-size', "
                "this.naturalWidth + 'x' + this.naturalHeight)\" "
                "onerror=\"document.body.setAttribute('data-size', 'error')\">"
                "</body></html>")
    dom = run_chromium(browser, tmp, ["--virtual-time-budget=5000",
                                      "--dump-dom", "file://" + html_path])
    m = re.search(rb'data-size="([^"]*)"', dom.stdout)
    got = m.group(1).decode() if m else "nothing (stderr: %s)" % dom.stderr[-500:]
    check(got == "%dx%d" % (width, height),
          "Chromium loads it as an image of %dx%d: %s" % (width, height, got))

    # 3. Rendered: the non-white area is the declared size.
    win_w, win_h = width + 160, height + 120
    png_path = os.path.join(tmp, "sample.png")
    shot = run_chromium(browser, tmp, ["--screenshot=" + png_path,
                                       "--window-size=%d,%d" % (win_w, win_h),
                                       "file://" + svg_path])
    if not os.path.exists(png_path):
        sys.exit("FAIL: Chromium wrote no screenshot (exit %d): %s" %
                 (shot.returncode, shot.stderr[-1000:].decode(errors="replace")))
    with open(png_path, "rb") as f:
        png_w, png_h, rows = decode_png(f.read())
    check((png_w, png_h) == (win_w, win_h),
          "screenshot is the window size %dx%d: %dx%d" % (win_w, win_h, png_w, png_h))
    xs, ys, counts = [], [], dict.fromkeys(DEVTOOLS_COLORS, 0)
    wanted = {v: k for k, v in DEVTOOLS_COLORS.items()}
    for y, row in enumerate(rows):
        for x, px in enumerate(row):
            if px != (255, 255, 255):
                xs.append(x)
                ys.append(y)
                if px in wanted:
                    counts[wanted[px]] += 1
    check(bool(xs), "the screenshot is not blank")
    if xs:
        box = (min(xs), min(ys), max(xs) + 1, max(ys) + 1)
        check(box == (0, 0, width, height),
              "rendered extent %dx%d at (%d,%d) equals the declared %dx%d" %
              (box[2] - box[0], box[3] - box[1], box[0], box[1], width, height))
    for name, n in counts.items():
        check(n >= 20, "%s on screen (%d px)" % (name, n))

    if failures:
        sys.exit("FAIL: %d check(s) failed" % len(failures))
    print("PASS")


if __name__ == "__main__":
    main()
