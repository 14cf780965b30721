#!/usr/bin/env python3
"""The trace glossary (docs/trace-glossary.md) explains every key of `fetch --trace-json` and every
value of its enumerated fields. Three checks, each robust to a different change:

  1. the keys of a real trace: trace_sample (net/timing's writer itself, fed two synthetic
     requests that fill every part of the trace) prints JSON; every key path in it
     (`tls.snapStart`, `cert.revocation.checks[].depth`) must appear in the glossary in
     backquotes. This follows the writer exactly, nesting included, with no network;
  2. the writer's source: every key literal in net/timing/load_timing.cc's LoadTimingToJson,
     AppendCertBundle and AppendHttpsRecord, and every Resource Timing point of OrderedPoints, must be the last part
     of a path from (1). A key added in a part of the trace that trace_sample does not fill yet
     fails here, naming the key, instead of passing unseen;
  3. the values: every string the trace's enumerations print (the ...ToString functions of
     tcp.fastOpen / tcp.fastOpenMode, obc.source / obc.algorithm, cert.revocation source and
     outcome, tls.snapStart, tls.ech, tls.echRetry, dns.httpsRecord.status) must appear in the
     glossary in backquotes.

Usage: trace_glossary_test.py TRACE_SAMPLE GLOSSARY LOAD_TIMING_CC (the other sources are found
beside LOAD_TIMING_CC's workspace root).
"""

import json
import os
import re
import subprocess
import sys
import unittest

SAMPLE = GLOSSARY = LOAD_TIMING = ROOT = None

# (source file, function) whose `return "value";` lines are trace values.
ENUM_FUNCTIONS = [
    ("net/socket/tcp_fast_open.cc", "TcpFastOpenOutcomeToString"),
    ("net/socket/tcp_fast_open.cc", "TcpFastOpenModeToString"),
    ("cert/obc/obc_types.cc", "ObcSourceToString"),
    ("cert/obc/obc_types.cc", "KeyAlgorithmToString"),
    ("cert/cert_verifier.cc", "RevocationSourceToString"),
    ("cert/cert_verifier.cc", "RevocationOutcomeToString"),
    ("net/ssl/ssl_info.cc", "SnapStartOutcomeToString"),
    ("net/ssl/ssl_info.cc", "EarlyDataStateToString"),
    ("net/ssl/ssl_info.cc", "EchOutcomeToString"),
    ("net/ssl/ssl_info.cc", "EchRetryToString"),
    ("dns/https_record_info.cc", "HttpsRecordStatusToString"),
    ("dns/dns_source.cc", "DnsSourceToString"),
    ("net/timing/load_timing.cc", "SessionUseToString"),
    ("net/timing/load_timing.cc", "DbscRoleToString"),
    ("net/timing/load_timing.cc", "DbscOutcomeToString"),
    ("net/base/request_priority.cc", "RequestPriorityToString"),
    ("net/http2/http2_session_pool.cc", "CoalescedByToString"),
]


def key_paths(value, prefix=""):
    """Every key path in a JSON value: {"tls": {"alpn": ...}} -> tls, tls.alpn; a list of
    objects adds [] (cert.revocation.checks[].depth)."""
    paths = set()
    if isinstance(value, dict):
        for k, v in value.items():
            p = prefix + "." + k if prefix else k
            paths.add(p)
            paths |= key_paths(v, p)
    elif isinstance(value, list):
        for v in value:
            paths |= key_paths(v, prefix + "[]")
    return paths


def function_body(source, name):
    """The text of the C++ function |name| (from its signature to the closing brace at column
    0)."""
    m = re.search(r"^[^\n;]*\b%s\([^)]*\)\s*\{\n(.*?)^\}" % re.escape(name), source, re.S | re.M)
    if not m:
        raise AssertionError("no function %s in the source" % name)
    return m.group(1)


def glossary_words():
    with open(GLOSSARY) as f:
        return set(re.findall(r"`([^`\n]+)`", f.read()))


class TraceGlossaryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        out = subprocess.run([SAMPLE], stdout=subprocess.PIPE, check=True, text=True).stdout
        cls.traces = [json.loads(line) for line in out.splitlines() if line.strip()]
        cls.paths = set()
        for t in cls.traces:
            cls.paths |= key_paths(t)
        cls.words = glossary_words()

    def test_sample_fills_the_trace(self):
        # Guards the sample: both requests, and the optional parts present.
        self.assertEqual(len(self.traces), 2)
        for p in ("tls.snapStart", "spdy.streamId", "h2.coalescedOnto", "priority",
                  "tcp.fastOpenMode", "tls.handshake.chosen", "tls.certCompression.algorithm",
                  "obc.algorithm", "cert.bundle.notUsedBecause", "cert.revocation.checks[].detail", "failedAt", "secureConnectionStart",
                  "dbsc.deferredMs", "dbsc.keySource",
                  "dns.httpsRecord.ech", "tls.echRetry", "tls.sniOnWire"):
            self.assertIn(p, self.paths)

    def test_every_key_path_is_in_the_glossary(self):
        missing = sorted(self.paths - self.words)
        self.assertEqual(missing, [], "trace keys docs/trace-glossary.md does not explain "
                         "(write each as `path` in the glossary)")

    def test_every_key_the_writer_can_emit_is_in_the_sample(self):
        with open(LOAD_TIMING) as f:
            src = f.read()
        body = (function_body(src, "LoadTimingToJson") + function_body(src, "AppendCertBundle") +
                function_body(src, "AppendHttpsRecord"))
        keys = set(re.findall(r'\\"([A-Za-z][A-Za-z0-9]*)\\":', body))
        # The Resource Timing points: OrderedPoints' table ({"startTime", ...}, and the ones it
        # pushes back).
        points = set(re.findall(r'\{"([A-Za-z]+)",', function_body(src, "OrderedPoints")))
        self.assertIn("connectEnd", points)
        self.assertIn("snapStart", keys)
        leaves = {p.split(".")[-1].replace("[]", "") for p in self.paths}
        self.assertEqual(sorted((keys | points) - leaves), [],
                         "keys in net/timing/load_timing.cc that trace_sample's requests do not "
                         "produce: fill their fields in tools/tracedoc/trace_sample.cc")

    def test_every_enumerated_value_is_in_the_glossary(self):
        missing = []
        for path, fn in ENUM_FUNCTIONS:
            with open(os.path.join(ROOT, path)) as f:
                values = set(re.findall(r'return "([^"]+)";', function_body(f.read(), fn)))
            self.assertTrue(values, fn)
            values.discard("unknown")  # the fall-through of an invalid enum
            missing += ["%s: %s" % (fn, v) for v in sorted(values - self.words)]
        self.assertEqual(missing, [], "values docs/trace-glossary.md does not list")


def main():
    global SAMPLE, GLOSSARY, LOAD_TIMING, ROOT
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    SAMPLE, GLOSSARY, LOAD_TIMING = (os.path.abspath(a) for a in sys.argv[1:4])
    ROOT = os.path.dirname(os.path.dirname(os.path.dirname(LOAD_TIMING)))
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[4:])


if __name__ == "__main__":
    main()
