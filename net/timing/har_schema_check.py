"""har_schema_test: the HAR that net/timing writes passes a HAR 1.2 validator.

Usage: har_schema_check.py HAR_WATERFALL_SAMPLE SCHEMA.json

Runs the sample binary (a cross-origin redirect, a reused connection, DNS and
certificate-bundle prefetch with Snap Start, fresh OCSP, a failure, a URL that
needs escaping), validates its HAR against testdata/har-1.2.schema.json with
jsonschema (Debian's python3-jsonschema, Draft 7), checks what a schema cannot
(the timings add up to time, ssl lies within connect), checks that the sample's
facts arrived, and checks that the validator rejects broken copies.
"""

import copy
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    sys.exit("FAIL: python3-jsonschema is not installed for " + sys.executable +
             " (tools/setup.sh installs the Debian package python3-jsonschema)")

PHASES = ("blocked", "dns", "connect", "send", "wait", "receive")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def main():
    sample, schema_path = sys.argv[1], sys.argv[2]
    tmp = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
    har_path = os.path.join(tmp, "sample.har")
    svg_path = os.path.join(tmp, "sample.svg")
    subprocess.run([sample, har_path, svg_path], check=True)
    with open(har_path, "rb") as f:
        text = f.read().decode("utf-8")  # strict: the file must be UTF-8
    har = json.loads(text)
    with open(schema_path) as f:
        schema = json.load(f)

    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(har), key=lambda e: list(e.path))
    for e in errors:
        print("  schema: %s at %s" % (e.message, "/".join(map(str, e.path))))
    check(not errors, "the sample HAR is valid HAR 1.2 (%d entries)" %
          len(har["log"]["entries"]))

    entries = har["log"]["entries"]
    for i, e in enumerate(entries):
        t = e["timings"]
        total = sum(t[k] for k in PHASES if k in t and t[k] != -1)
        check(abs(total - e["time"]) < 1e-6,
              "entry %d: timings add up to time (%r = %r)" % (i, total, e["time"]))
        if t.get("ssl", -1) != -1:
            check(t["connect"] != -1 and t["ssl"] <= t["connect"],
                  "entry %d: ssl (%r) lies within connect (%r)" % (i, t["ssl"], t["connect"]))

    # The sample's facts.
    check(len(entries) == 5, "five entries")
    check(har["log"]["creator"]["name"] == "netstack-fetch", "creator name")
    check(har["log"]["pages"][0]["id"] == "page_1", "one page")
    check(entries[0]["startedDateTime"] == "2024-05-01T12:34:56.100+00:00",
          "startedDateTime from the wall-clock anchor: " + entries[0]["startedDateTime"])
    starts = [e["startedDateTime"] for e in entries]
    check(starts == sorted(starts), "entries in start order")
    e0, e1, e2, e3, e4 = entries
    check(e0["response"]["status"] == 301 and
          e0["response"]["redirectURL"] == "https://www.example.test/",
          "redirect: 301 to https://www.example.test/")
    check(e0["request"]["url"] == "http://example.test/old?q=1&r=a%20b",
          "URL without its fragment")
    check({"name": "r", "value": "a b"} in e0["request"]["queryString"],
          "queryString decoded")
    check(e1["response"]["redirectURL"] == "https://www.example.test/final",
          "relative Location resolved, fragment dropped: " + e1["response"]["redirectURL"])
    check(e1["response"]["cookies"][0]["name"] == "sid" and
          e1["response"]["cookies"][0]["secure"] is True, "Set-Cookie parsed")
    check(e1["_dnsSource"] == "prefetch" and e1["_certSource"] == "prefetch",
          "DNS and certificate from the prefetch")
    check(e1["_snapStart"]["state"] == "accepted", "Snap Start accepted")
    check(e1["_certBundle"]["startedMs"] < 0 and e1["_certBundle"]["prevalidated"],
          "the bundle job ran before the request (off the critical path)")
    check(e1["_revocation"]["source"] == "prevalidated", "revocation prevalidated")
    check(e2["connection"] == e1["connection"] and e2["timings"]["connect"] == -1 and
          e2["timings"]["dns"] == -1, "the reused connection: same id, no dns/connect")
    check(e2["request"]["cookies"] == [{"name": "sid", "value": "abc123"},
                                       {"name": "theme", "value": "dark"}],
          "request cookies")
    check({"name": "X-Folded", "value": "first second"} in e2["response"]["headers"],
          "folded header joined")
    check(e2["response"]["content"]["mimeType"] == "text/html; charset=utf-8" and
          e2["response"]["bodySize"] == 5120, "content type and size")
    check(e2["_obc"]["source"] == "pooled_key", "OBC facts")
    check(e3["request"]["url"] ==
          "https://cdn.example.test/app.js?a=1&b=<x>&c=\"q\"&d='\u00e9'&e=\ufffd",
          "URL escaped and unescaped again; invalid UTF-8 as U+FFFD")
    check(e3["serverIPAddress"] == "::1", "IPv6 server address")
    check(e3["_revocation"]["checks"][0]["source"] == "fresh", "fresh OCSP")
    check(e4["_error"] == "ERR_NAME_NOT_RESOLVED" and e4["response"]["status"] == 0,
          "the failure")

    # The validator is not lenient: broken copies fail.
    def mutated(change):
        h = copy.deepcopy(har)
        change(h)
        return h

    broken = {
        "timings.send missing": lambda h: h["log"]["entries"][0]["timings"].pop("send"),
        "startedDateTime not ISO 8601": lambda h: h["log"]["entries"][0].update(
            startedDateTime="yesterday"),
        "custom field without underscore": lambda h: h["log"]["entries"][1].update(
            dnsSource="prefetch"),
        "ssl -2": lambda h: h["log"]["entries"][1]["timings"].update(ssl=-2),
        "version 1.1": lambda h: h["log"].update(version="1.1"),
        "response.content missing": lambda h: h["log"]["entries"][2]["response"].pop("content"),
    }
    for what, change in broken.items():
        check(not validator.is_valid(mutated(change)), "rejects: " + what)

    if failures:
        sys.exit("FAIL: %d check(s) failed" % len(failures))
    print("PASS")


if __name__ == "__main__":
    main()
