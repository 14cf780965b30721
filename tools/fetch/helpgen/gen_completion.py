#!/usr/bin/env python3
"""Writes fetch's bash completion from `fetch --help` (fetch_help.py reads the text): every flag
of the help, the values of a choice argument (--tls-max 1.2|1.3), files after a FILE argument,
directories after a DIR argument, nothing after any other argument.

    gen_completion.py --fetch BIN [--out FILE]     (or --help-file FILE instead of --fetch)

Bazel runs it at build time (//tools/fetch/helpgen:fetch_completion -> fetch.bash), so the
completion follows the flags as they are added. Install: `source fetch.bash`, or copy it to
/usr/share/bash-completion/completions/fetch. Needs no bash-completion helpers.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fetch_help  # noqa: E402

# Flags fetch takes that its help does not list as options.
EXTRA_FLAGS = ["--help"]


def shell_words(words):
    for w in words:
        if any(c in w for c in " '\"\\$`"):
            raise fetch_help.HelpFormatError("unexpected character in %r" % w)
    return " ".join(words)


def completion(h):
    flags = h.flags() + [f for f in EXTRA_FLAGS if f not in h.flags()]
    cases = []
    for o in h.options():
        if not o.takes_value:
            continue
        pattern = "|".join(o.flags)
        if o.choices:
            action = "COMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % shell_words(o.choices)
        elif o.completes_dirs:
            action = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))"
        elif o.completes_files:
            action = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))"
        else:
            action = "COMPREPLY=()  # %s" % o.arg.replace("\n", " ")
        cases.append("    %s)\n      %s\n      return\n      ;;" % (pattern, action))
    return """\
# bash completion for fetch, netstack's curl-like client (tools/fetch).
# Generated from `fetch --help` by tools/fetch/helpgen/gen_completion.py: do not edit.
_fetch() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local prev=
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  case $prev in
%s
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W '%s' -- "$cur"))
    return
  fi
  COMPREPLY=()  # a URL
}
complete -F _fetch fetch
""" % ("\n".join(cases), shell_words(flags))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--fetch", help="the fetch binary (runs --help)")
    src.add_argument("--help-file", help="the help text in a file")
    ap.add_argument("--out", help="output file [stdout]")
    args = ap.parse_args()
    try:
        text = (fetch_help.run_help(args.fetch) if args.fetch else open(args.help_file).read())
        out = completion(fetch_help.parse(text))
    except fetch_help.HelpFormatError as e:
        sys.exit("gen_completion: %s" % e)
    if args.out:
        with open(args.out, "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
