#!/usr/bin/env python3
"""Tests of fetch's generated bash completion and man page (BUILD.bazel says what each checks).

Usage: helpgen_test.py FETCH FETCH_BASH FETCH_1
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch_help  # noqa: E402
import gen_completion  # noqa: E402
import gen_man  # noqa: E402

FETCH = COMPLETION = MAN = None


def scan_flags(help_text):
    """Every flag on the help's option lines, found without fetch_help's parser: the lines that
    start with two spaces and '-', up to the first run of two spaces."""
    flags = set()
    for line in help_text.splitlines():
        if re.match(r"^  -", line):
            spec = re.split(r"\s{2,}", line.strip())[0]
            flags.update(re.findall(r"(?<![\w'-])--?[A-Za-z0-9#][\w.#-]*", spec))
    return flags


def complete(script, *words):
    """What the completion offers after |words| (the last one is being typed)."""
    prog = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
            '_fetch; printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(["bash", "-c", prog, "bash", script, "fetch"] + list(words),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise AssertionError("bash: %s" % r.stderr)
    return [w for w in r.stdout.splitlines() if w]


class GeneratedFromFetchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.help = fetch_help.run_help(FETCH)
        cls.flags = scan_flags(cls.help)

    def test_scan_finds_the_flags_people_know(self):
        # Guards the independent scan itself.
        for f in ("-o", "--output", "--trace-json", "--world", "--spdy", "-H", "--tls-max"):
            self.assertIn(f, self.flags)
        self.assertGreater(len(self.flags), 50)

    def test_completion_offers_every_flag(self):
        offered = set(complete(COMPLETION, "-"))
        missing = sorted(self.flags - offered)
        self.assertEqual(missing, [], "flags in `fetch --help` the completion lacks")
        self.assertIn("--help", offered)
        self.assertEqual(sorted(offered - self.flags - {"--help"}), [],
                         "the completion offers flags that `fetch --help` does not list")
        self.assertEqual(sorted(complete(COMPLETION, "--tls-m")), ["--tls-max", "--tls-min"])

    def test_completion_values(self):
        self.assertEqual(complete(COMPLETION, "--tls-max", ""), ["1.2", "1.3"])
        self.assertEqual(complete(COMPLETION, "--revocation", "s"), ["soft"])
        self.assertEqual(complete(COMPLETION, "--obc", ""), ["off", "ecdsa", "rsa1024",
                                                              "rsa2048"])
        # A value that is neither a choice nor a path: nothing offered.
        self.assertEqual(complete(COMPLETION, "--max-time", ""), [])
        self.assertEqual(complete(COMPLETION, "-H", ""), [])
        # FILE: files; DIR: directories only. A URL position: nothing.
        tmp = tempfile.mkdtemp()
        try:
            os.mkdir(os.path.join(tmp, "profdir"))
            open(os.path.join(tmp, "prof.json"), "w").close()
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                self.assertEqual(sorted(complete(COMPLETION, "--world", "prof")),
                                 ["prof.json", "profdir"])
                self.assertEqual(complete(COMPLETION, "--profile", "prof"), ["profdir"])
                self.assertEqual(sorted(complete(COMPLETION, "-o", "prof")),
                                 ["prof.json", "profdir"])
                self.assertEqual(complete(COMPLETION, "https://www.example.test/", ""), [])
            finally:
                os.chdir(cwd)
        finally:
            shutil.rmtree(tmp)

    def test_completion_is_what_the_generator_makes_now(self):
        with open(COMPLETION) as f:
            self.assertEqual(f.read(), gen_completion.completion(fetch_help.parse(self.help)))

    def test_man_page_renders_and_names_every_flag(self):
        if not shutil.which("groff"):
            self.skipTest("no groff")
        r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-P-c", "-rLL=200n", MAN],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        text = re.sub(r".\x08", "", r.stdout)  # no overstrike
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS"):
            self.assertRegex(text, r"(?m)^%s$" % section)
        # Every flag as its own word (the page keeps ASCII hyphens).
        words = set(re.findall(r"(?<![\w-])--?[A-Za-z0-9#][\w.#-]*", text))
        self.assertEqual(sorted(self.flags - words), [])
        for title in re.findall(r"(?m)^([A-Z][A-Za-z ,'-]*)$", self.help):
            self.assertIn("   " + title + "\n", text)


class ParserTest(unittest.TestCase):
    HELP = """usage: fetch [flags] URL...
A client. Defaults in [brackets].

Output
  -f, --fail              exit 22 on an HTTP status >= 400; no body
  -#, --progress-bar      a bar
  -x, --proxy [PROTOCOL://]HOST[:PORT]
                          the proxy
  --http1.1               HTTP/1.1 only
  -k, --insecure          no verification
  --compressed            ask for gzip, br
  --cert-compression LIST certificate compression (one space: tolerated)
  --tls-max 1.2|1.3       highest TLS version [1.3]
  -H 'Name: value'        extra request header
  --prefetch HOST[:PORT],...
                          resolve these hosts first

Exit codes: 0 ok, 22 HTTP error,
  28 timeout.
"""

    def test_curl_forms(self):
        h = fetch_help.parse(self.HELP)
        opts = {o.flags[-1]: o for o in h.options()}
        self.assertEqual(opts["--fail"].flags, ["-f", "--fail"])
        self.assertFalse(opts["--fail"].takes_value)
        self.assertEqual(opts["--progress-bar"].flags, ["-#", "--progress-bar"])
        self.assertEqual(opts["--proxy"].arg, "[PROTOCOL://]HOST[:PORT]")
        self.assertEqual(opts["--proxy"].description, "the proxy")
        self.assertFalse(opts["--http1.1"].takes_value)
        self.assertEqual(opts["--cert-compression"].arg, "LIST")
        self.assertEqual(opts["--cert-compression"].description,
                         "certificate compression (one space: tolerated)")
        self.assertEqual(opts["--tls-max"].choices, ["1.2", "1.3"])
        self.assertEqual(opts["-H"].arg, "'Name: value'")
        self.assertEqual(opts["--prefetch"].arg, "HOST[:PORT],...")
        self.assertEqual(h.closing, ["Exit codes: 0 ok, 22 HTTP error,", "  28 timeout."])
        # The completion and the man page carry the new flags.
        script = gen_completion.completion(h)
        for f in ("-f", "--fail", "-#", "--progress-bar", "-x", "--proxy", "--http1.1", "-k"):
            self.assertIn(" %s " % f, " " + script.split("compgen -W '")[-1].split("'")[0] + " ")
        page = gen_man.man_page(h, "2024-01-01")
        self.assertIn("\\fB\\-\\-http1.1\\fR", page)
        self.assertIn("\\fB\\-#\\fR, \\fB\\-\\-progress\\-bar\\fR", page)

    def test_unreadable_lines_are_errors(self):
        for bad in ("  -o, output FILE        no dash on the second form\n",
                    "  --flag\n",  # no description, none on the next line
                    " --flag                  one leading space\n",
                    "  --x!y                  a character no flag has\n"):
            with self.assertRaises(fetch_help.HelpFormatError, msg=bad):
                fetch_help.parse("usage: fetch URL\nA client.\n\nOutput\n" + bad)
        with self.assertRaises(fetch_help.HelpFormatError):
            fetch_help.parse("fetch: no usage line\n")


def main():
    global FETCH, COMPLETION, MAN
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    FETCH, COMPLETION, MAN = (os.path.abspath(a) for a in sys.argv[1:4])
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[4:])


if __name__ == "__main__":
    main()
