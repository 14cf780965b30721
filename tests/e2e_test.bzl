"""e2e_test: one end-to-end check script run under the local world (tests/e2e.py)."""

_BINARIES = [
    "//tools/dnslookup",
    "//tools/fetch",
    "//tools/netem",
    "//tools/testserver",
    "//tools/world",
]

_BINARY_ARGS = [
    "--fetch",
    "$(rootpath //tools/fetch)",
    "--testserver",
    "$(rootpath //tools/testserver)",
    "--netem",
    "$(rootpath //tools/netem)",
    "--world",
    "$(rootpath //tools/world)",
    "--dnslookup",
    "$(rootpath //tools/dnslookup)",
]

def e2e_test(name, extra_tags = [], data = []):
    """One end-to-end check script, run under the local world (see e2e.py)."""
    native.sh_test(
        name = name,
        size = "medium",
        srcs = ["run_py_test.sh"],
        args = ["$(rootpath %s.py)" % name] + _BINARY_ARGS,
        data = [
            "e2e.py",
            name + ".py",
        ] + _BINARIES + data,
        tags = [
            "integration",
            "local",
        ] + extra_tags,
    )

