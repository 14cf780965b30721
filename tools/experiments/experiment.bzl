"""experiment(): one measurement of tools/experiments, its launcher and its smoke test.

    experiment(
        name = "vs_chromium",            # runs tools/experiments/vs_chromium.py
        smoke_args = ["--runs", "1"],    # a short run for the test
        smoke_check = "vs_chromium_smoke_check.py",  # python3 CHECK OUT_DIR fails on bad output
    )

makes `bazel run //tools/experiments:NAME -- [ARGS]` and NAME_smoke_test (by default exclusive:
experiments time round trips). The launcher (run_experiment.sh) runs NAME.py with python3 and
passes, before ARGS (so a flag in ARGS wins), one runfiles path per flag in `launcher_flags`: by
default --fetch, --testserver, --netem, --world and --certbundle; an experiment that takes other
inputs names its own from LAUNCHER_FLAGS below (e.g. vs_curl: --fetch and --certs). They reach
the launcher through NAME.flags, a generated file of `FLAG PATH` lines in its runfiles.

The smoke test runs the experiment with `--out DIR` and `smoke_args`, then `python3 CHECK DIR`
(also when the experiment failed, so the log shows every problem; the test fails either way).
`smoke_requires` lists programs without which the test passes, saying SKIP, without running.
"""

# The inputs a launcher can pass: flag -> (the label in the launcher's data, its path in the
# runfiles, relative to the workspace).
LAUNCHER_FLAGS = {
    "--certbundle": ("//tools/certbundle", "tools/certbundle/certbundle"),
    "--cert-dir": ("//cert/testdata", "cert/testdata"),
    "--certs": ("//cert/testdata", "cert/testdata"),
    "--fetch": ("//tools/fetch", "tools/fetch/fetch"),
    "--netem": ("//tools/netem", "tools/netem/netem"),
    "--obc-load": ("//tools/experiments:obc_load", "tools/experiments/obc_load"),
    "--pki": ("//tools/world:pki", "tools/world/pki"),
    "--testserver": ("//tools/testserver", "tools/testserver/testserver"),
    "--world": ("//tools/world", "tools/world/world"),
}

DEFAULT_LAUNCHER_FLAGS = ["--fetch", "--testserver", "--netem", "--world", "--certbundle"]

DEFAULT_SMOKE_TAGS = ["exclusive", "integration", "local"]

def experiment(
        name,
        smoke_args,
        smoke_check,
        data = [],
        launcher_flags = DEFAULT_LAUNCHER_FLAGS,
        smoke_tags = None,
        smoke_requires = []):
    """Declares the launcher NAME and the test NAME_smoke_test of tools/experiments/NAME.py.

    Args:
      name: the experiment; runs NAME.py.
      smoke_args: the experiment's arguments in the smoke test (besides --out).
      smoke_check: the check script, run as `python3 CHECK OUT_DIR`.
      data: more files NAME.py needs (helper modules, ...).
      launcher_flags: the flags the launcher passes, keys of LAUNCHER_FLAGS.
      smoke_tags: the smoke test's tags (default DEFAULT_SMOKE_TAGS).
      smoke_requires: programs (names on PATH or in /usr/sbin, or absolute paths) the smoke
        test needs; without one it skips.
    """
    labels = []
    lines = []
    for flag in launcher_flags:
        label, path = LAUNCHER_FLAGS[flag]
        if label not in labels:
            labels.append(label)
        lines.append("'%s %s'" % (flag, path))
    native.genrule(
        name = name + "_launcher_flags",
        outs = [name + ".flags"],
        cmd = "printf '%s\\n' " + " ".join(lines) + " > $@",
    )
    native.sh_binary(
        name = name,
        srcs = ["run_experiment.sh"],
        data = [
            name + ".py",
            name + ".flags",
            "exp_common.py",
        ] + data + labels,
    )
    args = []
    for program in smoke_requires:
        args += ["--require", program]
    native.sh_test(
        name = name + "_smoke_test",
        size = "medium",
        srcs = ["experiment_smoke_test.sh"],
        args = args + [name, "tools/experiments/" + smoke_check] + smoke_args,
        data = [
            ":" + name,
            smoke_check,
        ],
        tags = DEFAULT_SMOKE_TAGS if smoke_tags == None else smoke_tags,
    )
