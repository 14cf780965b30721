"""Reads `fetch --help` (tools/fetch/fetch_options.cc's usage text) into sections of options, for
the generators beside it (gen_completion.py: bash completion; gen_man.py: the man page), so that
both follow the help text as flags are added.

The format it reads (what fetch_options.cc prints):

    usage: fetch [flags] URL...              usage lines: "usage: ..." and lines indented
           fetch --compare ...               to line up under it
    One line that says what fetch is.        the description (until the first blank line)

    Section title                            a line at column 0, then its options:
      -o, --output FILE       what it does   exactly two spaces, the flag forms (comma
                              continued      separated, an argument after the last), two or
      --prefetch HOST[:PORT],...             more spaces, the text; continuation lines are
                              text on the    indented by more than two spaces; a spec too long
                              next line      for the column stands alone on its line
      --tls-max 1.2|1.3       ...            an argument of literal words separated by |
                                             is a choice of values
    Exit codes: 0 ok, ...                    a last paragraph at column 0, with its indented
      6 DNS error, ...                       continuation lines

An option line that does not parse is an error (HelpFormatError), never skipped: a generator
that silently dropped a new flag would be worse than a build that fails.
"""

import re
import subprocess

# Argument placeholders whose values are files or directories.
FILE_ARGS = {"FILE", "FILE.svg", "FILE.csv", "PEM"}
DIR_ARGS = {"DIR"}


class HelpFormatError(Exception):
    pass


class Option:
    """One option line: its flag forms (["-o", "--output"]), its argument placeholder ("FILE",
    or None for a switch), the values a choice argument takes (["1.2", "1.3"], else []), and
    its description (continuation lines joined with spaces)."""

    def __init__(self, flags, arg, description):
        self.flags = flags
        self.arg = arg
        self.description = description
        self.choices = []
        if arg and re.fullmatch(r"[a-z0-9.]+(\|[a-z0-9.]+)+", arg):
            self.choices = arg.split("|")

    @property
    def takes_value(self):
        return self.arg is not None

    @property
    def completes_files(self):
        return self.arg in FILE_ARGS

    @property
    def completes_dirs(self):
        return self.arg in DIR_ARGS

    def __repr__(self):
        return "Option(%r, %r)" % (self.flags, self.arg)


class Help:
    """The parsed help: usage lines, the description, [(section title, [Option])], and the
    closing paragraph (the exit codes) as lines."""

    def __init__(self):
        self.usage = []
        self.description = []
        self.sections = []
        self.closing = []

    def options(self):
        return [o for _, opts in self.sections for o in opts]

    def flags(self):
        """Every flag form, in help order."""
        return [f for o in self.options() for f in o.flags]


FLAG_AT = re.compile(r"-{1,2}[A-Za-z0-9#:][A-Za-z0-9.#:_-]*")
ARG_AT = re.compile(r"'[^']*'(?: '[^']*')*|\S+")


def parse_spec(body, line):
    """Reads an option line's body (after its two leading spaces): the flag forms separated by
    ", ", then one space (or '=') and the argument placeholder if there is one (a word, or
    quoted words: -H 'Name: value'), then the text. Returns (flags, arg or None, text).
    '-o, --output FILE       write...' -> (['-o', '--output'], 'FILE', 'write...')."""
    flags, pos = [], 0
    while True:
        m = FLAG_AT.match(body, pos)
        if not m or (m.end() < len(body) and body[m.end()] not in " ,="):
            raise HelpFormatError("cannot read the flag at %r in option line %r" %
                                  (body[pos:pos + 20], line))
        flags.append(m.group(0))
        pos = m.end()
        if body.startswith(", ", pos):
            pos += 2
            continue
        break
    arg = None
    if body.startswith("=", pos) or (body.startswith(" ", pos) and
                                     not body.startswith("  ", pos)):
        m = ARG_AT.match(body, pos + 1)
        if m:
            arg, pos = m.group(0), m.end()
    # The text follows two or more spaces (one after an argument is tolerated: the
    # --cert-compression line of fetch's help has one).
    return flags, arg, body[pos:].strip()


def parse(text):
    """Parses the help text; raises HelpFormatError on a line it cannot place."""
    h = Help()
    lines = text.splitlines()
    i = 0
    # Usage lines, then the description up to the first blank line.
    while i < len(lines) and lines[i].strip():
        line = lines[i]
        if line.startswith("usage:") or (h.usage and line.startswith(" ")):
            h.usage.append(line.replace("usage:", "", 1).strip())
        else:
            h.description.append(line.strip())
        i += 1
    if not h.usage:
        raise HelpFormatError("no 'usage:' line at the top")
    current = None  # the option being read (continuation lines append to it)
    opts = None
    for line in lines[i:]:
        if not line.strip():
            current = None
            continue
        if not line.startswith(" "):
            current = None
            if re.match(r"^[A-Z][A-Za-z ,'-]*$", line) and not line.endswith("."):
                opts = []
                h.sections.append((line.strip(), opts))
            else:
                h.closing.append(line)
                opts = None
            continue
        if h.closing and opts is None:
            h.closing.append(line)
            continue
        if opts is None:
            raise HelpFormatError("indented line outside a section: %r" % line)
        m = re.match(r"^  (-\S.*)$", line)
        if m:
            # The text is absent when the spec is too long for its column: it starts on the
            # next line.
            flags, arg, text = parse_spec(m.group(1), line)
            current = Option(flags, arg, text)
            opts.append(current)
        elif line.startswith("    ") and current is not None:
            current.description = (current.description + " " + line.strip()).strip()
        else:
            raise HelpFormatError("cannot read help line %r (an option line starts with two "
                                  "spaces and a '-'; its continuation lines with more)" % line)
    for title, opts in h.sections:
        if not opts:
            raise HelpFormatError("section %r has no options" % title)
        for o in opts:
            if not o.description:
                raise HelpFormatError("option %s has no description" % ", ".join(o.flags))
    return h


def run_help(fetch):
    """Runs FETCH --help and returns its text (stdout; exit 0 required)."""
    r = subprocess.run([fetch, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        raise HelpFormatError("%s --help exited %d: %s" % (fetch, r.returncode, r.stderr))
    return r.stdout
