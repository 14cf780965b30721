#!/usr/bin/env python3
"""Writes fetch's man page (fetch.1, roff with the man macros) from `fetch --help` (fetch_help.py
reads the text): NAME, SYNOPSIS (the usage lines), DESCRIPTION, one OPTIONS subsection per
section of the help with every flag, EXIT STATUS (the help's closing paragraph), SEE ALSO.

    gen_man.py --fetch BIN [--out FILE] [--date YYYY-MM-DD]   (or --help-file FILE)

Bazel runs it at build time (//tools/fetch/helpgen:fetch_man -> fetch.1), so the page follows
the flags as they are added. Read it with `man -l fetch.1`.
"""

import argparse
import datetime
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fetch_help  # noqa: E402


def roff(text):
    """Escapes text for a roff line: backslashes, leading '.' and "'", and '-' as \\- (so that
    flags stay ASCII hyphens when copied)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # Anything beyond ASCII (the help's em dashes) as a named Unicode glyph.
    text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
    if text.startswith(".") or text.startswith("'"):
        text = "\\&" + text
    return text


def man_page(h, date):
    out = [
        '.\\" Generated from `fetch --help` by tools/fetch/helpgen/gen_man.py: do not edit.',
        '.TH FETCH 1 "%s" "netstack" "netstack tools"' % date,
        ".SH NAME",
        "fetch \\- %s" % roff(h.description[0].split(".")[0].replace("A curl-like", "a curl-like")
                              if h.description else "netstack's curl-like client"),
        ".SH SYNOPSIS",
    ]
    for i, u in enumerate(h.usage):
        if i:
            out.append(".br")
        out.append(".B fetch")
        out.append(roff(u[len("fetch"):].strip() if u.startswith("fetch") else u))
    out.append(".SH DESCRIPTION")
    out.append(roff(" ".join(h.description)))
    out.append(".PP")
    out.append("Every failure prints one line naming the network error and exits with the code "
               "of its area (\\fBEXIT STATUS\\fR). The trace's fields are explained in the "
               "repository's docs/trace\\-glossary.md.")
    out.append(".SH OPTIONS")
    for title, opts in h.sections:
        out.append(".SS %s" % roff(title))
        for o in opts:
            out.append(".TP")
            forms = ", ".join("\\fB%s\\fR" % roff(f) for f in o.flags)
            if o.arg:
                forms += " \\fI%s\\fR" % roff(o.arg)
            out.append(forms)
            out.append(roff(o.description))
    if h.closing:
        out.append(".SH EXIT STATUS")
        out.append(roff(" ".join(line.strip() for line in h.closing)))
    out.append(".SH SEE ALSO")
    out.append(".BR curl (1)")
    out.append(".PP")
    out.append("tools/fetch/README.md and docs/ in the netstack repository.")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--fetch", help="the fetch binary (runs --help)")
    src.add_argument("--help-file", help="the help text in a file")
    ap.add_argument("--out", help="output file [stdout]")
    ap.add_argument("--date", help="the page's date [SOURCE_DATE_EPOCH, else today]")
    args = ap.parse_args()
    date = args.date
    if not date:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        day = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch
               else datetime.datetime.now(datetime.timezone.utc))
        date = day.strftime("%Y-%m-%d")
    try:
        text = (fetch_help.run_help(args.fetch) if args.fetch else open(args.help_file).read())
        out = man_page(fetch_help.parse(text), date)
    except fetch_help.HelpFormatError as e:
        sys.exit("gen_man: %s" % e)
    if args.out:
        with open(args.out, "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
